! f_long.f90 - shmem.fh with its function declarations on (symm configured
! with -DSYMM_FORTRAN_LONG_HEADER=ON, or the test build's other header):
! under IMPLICIT NONE the program declares none of the functions it calls,
! and each returns its declared type.
program f_long
  implicit none
  include 'shmem.fh'
  integer :: me, np, right
  integer*4, save :: c4
  integer*8, save :: c8, lock
  integer, save :: d
  real*4, save :: r4
  real*8, save :: r8
  double precision :: t0
  integer*8 :: p
  integer*4 :: o4
  integer*8 :: o8
  character(len=16) :: transport

  call shmem_init()
  t0 = shmemx_wtime()
  me = shmem_my_pe()
  np = shmem_n_pes()
  call check(my_pe() == me .and. num_pes() == np, 'my_pe/num_pes')
  right = mod(me + 1, np)
  c4 = 0; c8 = 0; d = 0; r4 = 1.5; r8 = 2.5d0; lock = 0
  call shmem_barrier_all()
  call check(shmem_pe_accessible(right) .and. .not. shmem_pe_accessible(-1), 'pe_accessible')
  call check(shmem_addr_accessible(c4, right), 'addr_accessible')
  p = shmem_ptr(c4, right)
  ! (0 where no peer is mapped: SYMM_TRANSPORT=ucx)
  call get_environment_variable('SYMM_TRANSPORT', transport)
  call check((p /= 0) .neqv. (transport == 'ucx' .and. np > 1), 'shmem_ptr')
  o4 = shmem_int4_fadd(c4, 2, 0)
  o4 = shmem_int4_finc(c4, 0)
  o8 = shmem_int8_fadd(c8, 2_8**35, 0)
  o8 = shmem_int8_finc(c8, 0)
  call shmem_barrier_all()
  if (me == 0) then
    call check(c4 == 3 * np .and. c8 == (2_8**35 + 1) * np, 'fadd/finc')
    call check(shmem_int4_fetch(c4, 0) == 3 * np, 'int4_fetch')
    call check(shmem_int8_fetch(c8, 0) == (2_8**35 + 1) * np, 'int8_fetch')
    call check(shmem_int4_swap(c4, 5, 0) == 3 * np .and. c4 == 5, 'int4_swap')
    call check(shmem_int4_cswap(c4, 5, 6, 0) == 5 .and. c4 == 6, 'int4_cswap')
    call check(shmem_int8_swap(c8, 2_8**40, 0) == (2_8**35 + 1) * np, 'int8_swap')
    call check(shmem_int8_cswap(c8, 2_8**40, 1_8, 0) == 2_8**40 .and. c8 == 1, 'int8_cswap')
    call check(shmem_swap(d, 9, 0) == 0 .and. d == 9, 'shmem_swap')
    call check(shmem_real4_swap(r4, 3.5, 0) == 1.5 .and. shmem_real4_fetch(r4, 0) == 3.5, &
               'real4_swap/fetch')
    call check(shmem_real8_swap(r8, 4.5d0, 0) == 2.5d0 .and. shmem_real8_fetch(r8, 0) == 4.5d0, &
               'real8_swap/fetch')
    call check(shmem_test_lock(lock) == 0, 'test_lock')
    call shmem_clear_lock(lock)
  end if
  call check(shmemx_wtime() >= t0, 'shmemx_wtime')
  call shmem_barrier_all()
  call shmem_finalize()
  if (me == 0) print '(a,i0,a)', 'PASS: f_long at ', np, ' PEs'

contains

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      print '(a,i0,a,a)', 'FAIL: PE ', me, ': ', what
      error stop 1
    end if
  end subroutine
end program f_long
