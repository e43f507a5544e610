/* coll_active.c - broadcast64, fcollect64 and double_sum_to_all with the
 * deprecated active-set API (OpenSHMEM 1.4), so Open MPI 4.1 runs it as well.
 * Sizes in bytes per PE as arguments (default: 1 MiB):
 *   oshcc -O2 bench/coll_active.c -o a && oshrun -np 2 ./a 8 65536 1048576 */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static long ps[SHMEM_BCAST_SYNC_SIZE], pr[SHMEM_REDUCE_SYNC_SIZE], pc[SHMEM_COLLECT_SYNC_SIZE];
static double now(void){struct timespec t; clock_gettime(CLOCK_MONOTONIC,&t); return t.tv_sec*1e6+t.tv_nsec*1e-3;}
int main(int argc, char **argv){ shmem_init(); int me=shmem_my_pe(), n=shmem_n_pes(); size_t maxb=8;
 for (int a=1;a<argc;a++) if ((size_t)atol(argv[a])>maxb) maxb=(size_t)atol(argv[a]);
 if (argc<2) maxb=1<<20;
 for (int i=0;i<SHMEM_BCAST_SYNC_SIZE;i++) ps[i]=SHMEM_SYNC_VALUE;
 for (int i=0;i<SHMEM_REDUCE_SYNC_SIZE;i++) pr[i]=SHMEM_SYNC_VALUE;
 for (int i=0;i<SHMEM_COLLECT_SYNC_SIZE;i++) pc[i]=SHMEM_SYNC_VALUE;
 double *src=shmem_malloc(maxb), *dst=shmem_malloc(maxb*n), *wrk=shmem_malloc(maxb>SHMEM_REDUCE_MIN_WRKDATA_SIZE*8?maxb:SHMEM_REDUCE_MIN_WRKDATA_SIZE*8); memset(src,1,maxb); memset(dst,0,maxb*n);
 char name[SHMEM_MAX_NAME_LEN]; shmem_info_get_name(name);
 for (int a=(argc<2?0:1); a<(argc<2?1:argc); a++){
 size_t B=argc<2?maxb:(size_t)atol(argv[a]), N=B/8; if (N==0) N=1;
 shmem_barrier_all(); int it=B<=65536?500:50; double t0,t1,tb=0,tf=0,tr=0;
 for (int r=0;r<3;r++){
 shmem_barrier_all(); t0=now(); for(int i=0;i<it;i++){ shmem_broadcast64(dst,src,N,0,0,0,n,ps); shmem_barrier_all();} t1=now(); tb=(t1-t0)/it;
 shmem_barrier_all(); t0=now(); for(int i=0;i<it;i++){ shmem_fcollect64(dst,src,N,0,0,n,pc); shmem_barrier_all();} t1=now(); tf=(t1-t0)/it;
 shmem_barrier_all(); t0=now(); for(int i=0;i<it;i++){ shmem_double_sum_to_all(dst,src,(int)N,0,0,n,wrk,pr); shmem_barrier_all();} t1=now(); tr=(t1-t0)/it; }
 if(!me) printf("%-28s %d PEs, %7zu B: broadcast64 %8.1f us, fcollect64 %8.1f us, double_sum_to_all %8.1f us (each incl. one barrier_all)\n", name, n, N*8, tb, tf, tr);}
 shmem_finalize(); return 0;}
