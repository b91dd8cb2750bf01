// State shared by the Keccak accelerator's SHA-3 backends (sha3_hw.h).

#include <couplet/soc_config.h>

#if defined(COUPLET_KECCAK_PRESENT) && COUPLET_KECCAK_PRESENT

#include "sha3_hw.h"

sha3_hw_t sha3_hw;

#else
// ISO C forbids an empty translation unit.
typedef int couplet_sha3_hw_unused_t;
#endif
