#include <couplet/status.h>

const char *couplet_status_name(couplet_status_t status) {
  switch (status) {
    case COUPLET_OK:
      return "COUPLET_OK";
    case COUPLET_ERR_ARG:
      return "COUPLET_ERR_ARG";
    case COUPLET_ERR_BUSY:
      return "COUPLET_ERR_BUSY";
    case COUPLET_ERR_TIMEOUT:
      return "COUPLET_ERR_TIMEOUT";
    case COUPLET_ERR_UNSUPPORTED:
      return "COUPLET_ERR_UNSUPPORTED";
    case COUPLET_ERR_STATE:
      return "COUPLET_ERR_STATE";
    case COUPLET_ERR_HW:
      return "COUPLET_ERR_HW";
    case COUPLET_ERR_NULL:
      return "COUPLET_ERR_NULL";
    case COUPLET_ERR_KEY_LEN:
      return "COUPLET_ERR_KEY_LEN";
    case COUPLET_ERR_LEN:
      return "COUPLET_ERR_LEN";
    case COUPLET_ERR_UNSUPPORTED_MODE:
      return "COUPLET_ERR_UNSUPPORTED_MODE";
    case COUPLET_ERR_UNSUPPORTED_KEY_SIZE:
      return "COUPLET_ERR_UNSUPPORTED_KEY_SIZE";
    case COUPLET_ERR_AUTH:
      return "COUPLET_ERR_AUTH";
    case COUPLET_STATUS_COUNT:
    default:
      return "COUPLET_STATUS_UNKNOWN";
  }
}
