/* mpp/shmemx.h - historical include path. */
#include <shmemx.h>
