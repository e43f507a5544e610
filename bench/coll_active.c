/* coll_active.c - 1 MiB broadcast64, fcollect64 and double_sum_to_all with the
 * deprecated active-set API (OpenSHMEM 1.4), so Open MPI 4.1 runs it as well:
 *   oshcc -O2 bench/coll_active.c -o a && oshrun -np 2 ./a */
#include <shmem.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
static long ps[SHMEM_BCAST_SYNC_SIZE], pr[SHMEM_REDUCE_SYNC_SIZE], pc[SHMEM_COLLECT_SYNC_SIZE];
static double now(void){struct timespec t; clock_gettime(CLOCK_MONOTONIC,&t); return t.tv_sec*1e6+t.tv_nsec*1e-3;}
int main(void){ shmem_init(); int me=shmem_my_pe(), n=shmem_n_pes(); size_t B=1<<20, N=B/8;
 for (int i=0;i<SHMEM_BCAST_SYNC_SIZE;i++) ps[i]=SHMEM_SYNC_VALUE;
 for (int i=0;i<SHMEM_REDUCE_SYNC_SIZE;i++) pr[i]=SHMEM_SYNC_VALUE;
 for (int i=0;i<SHMEM_COLLECT_SYNC_SIZE;i++) pc[i]=SHMEM_SYNC_VALUE;
 double *src=shmem_malloc(B), *dst=shmem_malloc(B*n), *wrk=shmem_malloc(B); memset(src,1,B); memset(dst,0,B*n); memset(wrk,0,B);
 shmem_barrier_all(); int it=50; double t0,t1,tb=0,tf=0,tr=0;
 for (int r=0;r<3;r++){
 shmem_barrier_all(); t0=now(); for(int i=0;i<it;i++){ shmem_broadcast64(dst,src,N,0,0,0,n,ps); shmem_barrier_all();} t1=now(); tb=(t1-t0)/it;
 shmem_barrier_all(); t0=now(); for(int i=0;i<it;i++){ shmem_fcollect64(dst,src,N,0,0,n,pc); shmem_barrier_all();} t1=now(); tf=(t1-t0)/it;
 shmem_barrier_all(); t0=now(); for(int i=0;i<it;i++){ shmem_double_sum_to_all(dst,src,(int)N,0,0,n,wrk,pr); shmem_barrier_all();} t1=now(); tr=(t1-t0)/it; }
 if(!me){ char name[SHMEM_MAX_NAME_LEN]; shmem_info_get_name(name); printf("%-28s %d PEs, 1 MiB: broadcast64 %.1f us, fcollect64 %.1f us, double_sum_to_all %.1f us (each incl. one barrier_all)\n", name, n, tb, tf, tr);}
 shmem_finalize(); return 0;}
