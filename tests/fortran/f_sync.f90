! f_sync.f90 - Fortran ordering and point-to-point synchronization, and
! the lock: a token goes round the ring through wait_until of each
! integer kind and through shmem_wait; data put before a fence is there
! when the flag put after it is; and every PE adds to a counter on PE 0
! with a plain get and put inside shmem_set_lock/shmem_clear_lock, so the
! counter ends at exactly the number of increments only if the lock
! excluded.
program f_sync
  implicit none
  include 'shmem.fh'
  integer, parameter :: iters = 50, n = 64
  integer :: shmem_my_pe, shmem_n_pes, shmem_test_lock
  integer :: me, np, right, i, v
  integer*4, save :: flag4
  integer*8, save :: flag8
  integer, save :: flagd, waitd, counter, data(n), src(n), dflag
  integer*4, save :: wait4
  integer*8, save :: wait8
  integer*8, save :: lock

  call shmem_init()
  me = shmem_my_pe()
  np = shmem_n_pes()
  right = mod(me + 1, np)
  flag4 = 0; flag8 = 0; flagd = 0; waitd = 0; wait4 = 0; wait8 = 0
  counter = 0; lock = 0; dflag = 0; data = -1
  call shmem_barrier_all()

  ! ring: PE k waits for k (from k - 1), sends k + 1; PE 0 starts and
  ! waits for np from the last PE
  if (me == 0) call shmem_int4_set(flag4, 1, right)
  if (me /= 0) then
    call shmem_int4_wait_until(flag4, SHMEM_CMP_EQ, me)
    call shmem_int4_set(flag4, me + 1, right)
  end if
  if (me == 0) call shmem_int4_wait_until(flag4, SHMEM_CMP_GE, np)
  call check(flag4 == merge(np, me, me == 0), 'int4_wait_until')
  ! the same with INTEGER*8 values past 2**32
  if (me == 0) call shmem_int8_set(flag8, 2_8**32 + 1, right)
  if (me /= 0) then
    call shmem_int8_wait_until(flag8, SHMEM_CMP_GT, 2_8**32 + me - 1)
    call shmem_int8_set(flag8, 2_8**32 + me + 1, right)
  end if
  if (me == 0) call shmem_int8_wait_until(flag8, SHMEM_CMP_NE, 0_8)
  call check(flag8 == 2_8**32 + merge(np, me, me == 0), 'int8_wait_until')
  ! default INTEGER: shmem_wait_until, the token sent by a put and quiet
  call shmem_barrier_all()
  if (me == 0) call send(1)
  if (me /= 0) then
    call shmem_wait_until(flagd, SHMEM_CMP_EQ, me)
    call send(me + 1)
  end if
  if (me == 0) call shmem_wait_until(flagd, SHMEM_CMP_GT, np - 1)
  call check(flagd == merge(np, me, me == 0), 'wait_until')

  ! shmem_wait (until the value differs): set the right neighbour's word,
  ! wait for the left neighbour to set mine
  call shmem_int4_set(wait4, me + 1, right)
  call shmem_int4_wait(wait4, 0)
  call shmem_int8_set(wait8, 2_8**40, right)
  call shmem_int8_wait(wait8, 0_8)
  v = 7
  call shmem_integer_put(waitd, v, 1, right)
  call shmem_quiet()
  call shmem_wait(waitd, 0)
  call check(wait4 == mod(me - 1 + np, np) + 1 .and. wait8 == 2_8**40 .and. waitd == 7, &
             'shmem_int4_wait, shmem_int8_wait, shmem_wait')
  call shmem_barrier_all()

  ! fence: the data put before it is there once the flag put after it is
  do i = 1, n
    src(i) = 100 * me + i
  end do
  call shmem_put4(data, src, n, right)
  call shmem_fence()
  v = 1
  call shmem_integer_put(dflag, v, 1, right)
  call shmem_wait_until(dflag, SHMEM_CMP_EQ, 1)
  do i = 1, n
    call check(data(i) == 100 * mod(me - 1 + np, np) + i, 'fence: data before flag')
  end do
  call shmem_barrier_all()

  ! the lock: a read-modify-write of PE 0's counter, excluded
  do i = 1, iters
    call shmem_set_lock(lock)
    call shmem_integer_get(v, counter, 1, 0)
    v = v + 1
    call shmem_integer_put(counter, v, 1, 0)
    call shmem_quiet()
    call shmem_clear_lock(lock)
  end do
  call shmem_barrier_all()
  if (me == 0) call check(counter == np * iters, 'set_lock/clear_lock: lost increments')
  ! test_lock: 0 when it takes the lock, 1 while another PE holds it
  call shmem_barrier_all()
  if (me == 0) call check(shmem_test_lock(lock) == 0, 'test_lock of a free lock')
  call shmem_barrier_all()
  if (me == np - 1 .and. np > 1) call check(shmem_test_lock(lock) /= 0, 'test_lock of a held lock')
  call shmem_barrier_all()
  if (me == 0) call shmem_clear_lock(lock)
  call shmem_barrier_all()
  call shmem_finalize()
  if (me == 0) print '(a,i0,a)', 'PASS: f_sync at ', np, ' PEs'

contains

  ! The default-INTEGER token to the right neighbour.
  subroutine send(val)
    integer, intent(in) :: val
    integer, save :: t
    t = val
    call shmem_integer_put(flagd, t, 1, right)
    call shmem_quiet()
  end subroutine

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      print '(a,i0,a,a)', 'FAIL: PE ', me, ': ', what
      error stop 1
    end if
  end subroutine
end program f_sync
