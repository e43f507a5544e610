! f_errors.f90 MODE - misuse of the Fortran API, which must end the job
! with symm's message naming the C routine and the Fortran one:
!   nonsym  shmem_integer_put into an ALLOCATE array (not symmetric)
!   neglen  shmem_put8 with len -1
!   set     shmem_barrier with an active set past the last PE
!   align   shmem_barrier with a pSync not aligned to 8 bytes
!   exit    shmem_global_exit(3) on PE 0
program f_errors
  implicit none
  include 'shmem.fh'
  integer :: shmem_my_pe, shmem_n_pes
  integer :: me, np
  integer, save :: src(4)
  integer, save :: psync(SHMEM_BARRIER_SYNC_SIZE + 1)
  integer*8, save :: d8(4), s8(4)
  integer, allocatable :: private(:)
  character(len=16) :: mode

  call get_command_argument(1, mode)
  call shmem_init()
  me = shmem_my_pe()
  np = shmem_n_pes()
  psync = SHMEM_SYNC_VALUE
  src = me
  s8 = me
  call shmem_barrier_all()
  select case (trim(mode))
  case ('nonsym')
    allocate(private(4))
    call shmem_integer_put(private, src, 4, mod(me + 1, np))
  case ('neglen')
    call shmem_put8(d8, s8, -1, 0)
  case ('set')
    call shmem_barrier(0, 0, np + 1, psync)
  case ('align')
    call shmem_barrier(0, 0, np, psync(2))
  case ('exit')
    if (me == 0) call shmem_global_exit(3)
  case default
    print *, 'FAIL: unknown mode ', trim(mode)
    error stop 1
  end select
  call shmem_barrier_all()
  call shmem_finalize()
  print '(a,a,a)', 'FAIL: mode ', trim(mode), ' returned'
end program f_errors
