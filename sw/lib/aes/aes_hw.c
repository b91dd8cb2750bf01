// State shared by the AES accelerator's backends.

#include <couplet/soc_config.h>

#if COUPLET_AES_PRESENT

#include "aes_hw.h"

uint32_t couplet_aes_hw_resident_key;

#else
// ISO C forbids an empty translation unit.
typedef int couplet_aes_hw_unused_t;
#endif
