/* Init and finalize only: the valgrind leak check and launch-time target. */
#include <shmem.h>

int main(void)
{
    shmem_init();
    shmem_finalize();
    return 0;
}
