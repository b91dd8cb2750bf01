// Everything in the couplet SDK in one include.

#ifndef COUPLET_COUPLET_H_
#define COUPLET_COUPLET_H_

#include <couplet/soc_config.h>
#include <couplet/status.h>
#include <couplet/mmio.h>
#include <couplet/csr.h>
#include <couplet/counters.h>
#include <couplet/irq.h>
#include <couplet/irq_wait.h>
#include <couplet/console.h>
#include <couplet/timer.h>
#include <couplet/sim.h>
#include <couplet/selftest.h>

#endif  // COUPLET_COUPLET_H_
