#define COUPLET_RTOS_BACKEND COUPLET_RTOS_BACKEND_MMIO
#define RTOS_CHECKS rtos_checks_mmio
#include "checks.inc"
