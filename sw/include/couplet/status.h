// Result type shared by every SDK call that can fail.
//
// Values are stable numbers: new services (accelerators, RTOS glue) append codes before
// COUPLET_STATUS_COUNT and give them a name in sw/lib/status.c, never renumber old ones.

#ifndef COUPLET_STATUS_H_
#define COUPLET_STATUS_H_

// A result the caller must look at. GCC does not let a (void) cast silence this, on purpose:
// handle the error, or compare against COUPLET_OK and report.
#define COUPLET_MUST_CHECK __attribute__((warn_unused_result))

typedef enum {
  COUPLET_OK = 0,
  COUPLET_ERR_ARG = 1,          // an argument is out of range or NULL
  COUPLET_ERR_BUSY = 2,         // the resource is in use; try again later
  COUPLET_ERR_TIMEOUT = 3,      // a bounded wait ran out before the hardware answered
  COUPLET_ERR_UNSUPPORTED = 4,  // this SoC configuration does not have the feature
  COUPLET_ERR_STATE = 5,        // the call is not valid in the current state
  COUPLET_ERR_HW = 6,           // the hardware reported an error
  COUPLET_ERR_NULL = 7,         // a required pointer is NULL
  COUPLET_ERR_KEY_LEN = 8,      // a key length the algorithm does not define
  COUPLET_ERR_LEN = 9,          // a data length that is not a multiple of the block size
  COUPLET_ERR_UNSUPPORTED_MODE = 10,      // the hardware was built without this mode or direction
  COUPLET_ERR_UNSUPPORTED_KEY_SIZE = 11,  // the hardware was built without this key size
  COUPLET_ERR_AUTH = 12,        // authenticated decryption: the tag does not match the data
  COUPLET_STATUS_COUNT          // number of codes; keep last
} couplet_status_t;

// A fixed, human-readable name ("COUPLET_ERR_TIMEOUT"); "COUPLET_STATUS_UNKNOWN" for values
// outside the enum. Never NULL.
const char *couplet_status_name(couplet_status_t status);

#endif  // COUPLET_STATUS_H_
