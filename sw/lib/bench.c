#include <couplet/bench.h>

#include <stdio.h>

uint32_t couplet_bench_fnv1a(const uint8_t *p, size_t n) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; i++) {
    h = (h ^ p[i]) * 16777619u;
  }
  return h;
}

void couplet_bench_report(const char *suite, const char *backend, const char *measure,
                          couplet_bench_sample_t start, couplet_bench_sample_t end, uint32_t check) {
  printf("result %s/%s/%s cycles=%lu instret=%lu check=0x%08lx\n", suite, backend, measure,
         (unsigned long)(uint32_t)(end.cycles - start.cycles), (unsigned long)(uint32_t)(end.instret - start.instret),
         (unsigned long)check);
}

int couplet_bench_failed(const char *app, const char *backend, const char *what,
                         couplet_status_t status) {
  printf("%s: FAIL %s %s: %s\n", app, backend, what, couplet_status_name(status));
  return 1;
}
