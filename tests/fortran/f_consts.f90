! f_consts.f90 - every constant of shmem.fh equals what a C program sees
! in shmem.h (f_consts_c.c holds the names and the C side): the same
! value, or for the pSync sizes the INTEGERs that hold the C size's longs.
! Needs no PEs; prints one line per mismatch.
program f_consts
  implicit none
  include 'shmem.fh'
  integer, parameter :: n = 22
  integer :: vals(n), nbad
  vals = [SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION, SHMEM_MAX_NAME_LEN, &
          SHMEM_THREAD_SINGLE, SHMEM_THREAD_FUNNELED, SHMEM_THREAD_SERIALIZED, &
          SHMEM_THREAD_MULTIPLE, SHMEM_CMP_EQ, SHMEM_CMP_NE, SHMEM_CMP_GT, &
          SHMEM_CMP_LE, SHMEM_CMP_LT, SHMEM_CMP_GE, SHMEM_SYNC_VALUE, &
          SHMEM_REDUCE_MIN_WRKDATA_SIZE, SHMEM_BARRIER_SYNC_SIZE, &
          SHMEM_BCAST_SYNC_SIZE, SHMEM_REDUCE_SYNC_SIZE, SHMEM_COLLECT_SYNC_SIZE, &
          SHMEM_ALLTOALL_SYNC_SIZE, SHMEM_ALLTOALLS_SYNC_SIZE, SHMEM_SYNC_SIZE]
  nbad = 0
  call symm_fconsts_check(vals, n, nbad)
  call symm_fconsts_vendor(SHMEM_VENDOR_STRING, nbad)
  if (nbad /= 0) then
    print '(a,i0,a)', 'FAIL: ', nbad, ' constant(s) of shmem.fh differ from shmem.h'
    error stop 1
  end if
  print '(a,i0,a)', 'PASS: f_consts: ', n + 1, ' constants of shmem.fh equal shmem.h'
end program f_consts
