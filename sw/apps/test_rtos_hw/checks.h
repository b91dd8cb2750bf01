// The accelerator checks of test_rtos_hw, compiled once per backend (checks_tight.c,
// checks_mmio.c): each file picks COUPLET_RTOS_BACKEND and includes checks.inc.
#ifndef TEST_RTOS_HW_CHECKS_H_
#define TEST_RTOS_HW_CHECKS_H_

int rtos_checks_tight(void);
int rtos_checks_mmio(void);

#endif  // TEST_RTOS_HW_CHECKS_H_
