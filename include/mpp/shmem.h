/* mpp/shmem.h - the historical include path of SGI/Cray SHMEM programs. */
#include <shmem.h>
