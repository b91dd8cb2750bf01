// The smallest FreeRTOS app: two tasks take turns through a queue, then the program ends.
//
// Expected output:
//   hello: ping 1 / pong 1 / ping 2 / pong 2 / ping 3 / pong 3 (one per line), then
//   hello: done after N ticks

#include <stdio.h>
#include <stdlib.h>

#include "FreeRTOS.h"
#include "couplet_rtos.h"
#include "queue.h"
#include "task.h"

#define ROUNDS 3

static QueueHandle_t to_pong;
static QueueHandle_t to_ping;

static void ping(void *arg) {
  (void)arg;
  TickType_t start = xTaskGetTickCount();
  for (int i = 1; i <= ROUNDS; i++) {
    int reply = 0;
    printf("hello: ping %d\n", i);
    xQueueSend(to_pong, &i, portMAX_DELAY);
    xQueueReceive(to_ping, &reply, portMAX_DELAY);
  }
  vTaskDelay(2);
  printf("hello: done after %lu ticks\n", (unsigned long)(xTaskGetTickCount() - start));
  exit(0);
}

static void pong(void *arg) {
  (void)arg;
  for (;;) {
    int value = 0;
    xQueueReceive(to_pong, &value, portMAX_DELAY);
    printf("hello: pong %d\n", value);
    xQueueSend(to_ping, &value, portMAX_DELAY);
  }
}

void app_main(void) {
  to_pong = xQueueCreate(1, sizeof(int));
  to_ping = xQueueCreate(1, sizeof(int));
  xTaskCreate(ping, "ping", 4 * configMINIMAL_STACK_SIZE, NULL, tskIDLE_PRIORITY + 1, NULL);
  xTaskCreate(pong, "pong", 4 * configMINIMAL_STACK_SIZE, NULL, tskIDLE_PRIORITY + 1, NULL);
}
