#define COUPLET_RTOS_BACKEND COUPLET_RTOS_BACKEND_TIGHT
#define RTOS_CHECKS rtos_checks_tight
#include "checks.inc"
