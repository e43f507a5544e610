! f_amo.f90 - the Fortran AMOs: every PE adds, increments, fetch-adds,
! swaps and compare-swaps words on PE 0 (INTEGER*4 and INTEGER*8, the
! latter with values past 2**32), and sets, fetches and swaps REAL*4 and
! REAL*8 words of its right neighbour; the results are checked against
! what the PEs' known contributions make.
program f_amo
  implicit none
  include 'shmem.fh'
  integer :: shmem_my_pe, shmem_n_pes, shmem_swap
  integer*4 :: shmem_int4_fadd, shmem_int4_finc, shmem_int4_swap, shmem_int4_cswap
  integer*4 :: shmem_int4_fetch
  integer*8 :: shmem_int8_fadd, shmem_int8_finc, shmem_int8_swap, shmem_int8_cswap
  integer*8 :: shmem_int8_fetch
  real*4 :: shmem_real4_swap, shmem_real4_fetch
  real*8 :: shmem_real8_swap, shmem_real8_fetch
  integer*8, parameter :: big = 2_8**33
  integer :: me, np, right, left, i
  integer*4, save :: c4, f4, g4, x4, w4, olds4(64), wins4
  integer*8, save :: c8, f8, g8, x8, w8, olds8(64)
  integer, save :: xd, oldsd(64)
  real*4, save :: r4
  real*8, save :: r8
  integer*4 :: o4
  integer*8 :: o8
  integer :: od
  real*4 :: p4
  real*8 :: p8
  logical :: seen(0:64)

  call shmem_init()
  me = shmem_my_pe()
  np = shmem_n_pes()
  right = mod(me + 1, np)
  left = mod(me - 1 + np, np)
  call check(np <= 64, 'at most 64 PEs')
  c4 = 0; f4 = 0; g4 = 0; x4 = 0; w4 = 0; wins4 = 0
  c8 = 0; f8 = 0; g8 = 0; x8 = 0; w8 = 0; xd = 0
  r4 = -1.0; r8 = -1d0
  call shmem_barrier_all()

  ! add and inc: PE 0's counters end at the sum of every contribution
  call shmem_int4_add(c4, me + 1, 0)
  call shmem_int4_inc(c4, 0)
  call shmem_int8_add(c8, big * (me + 1), 0)
  call shmem_int8_inc(c8, 0)
  ! fadd, finc: the old values every PE saw are a permutation
  o4 = shmem_int4_fadd(f4, 1, 0)
  o8 = shmem_int8_finc(f8, 0)
  call shmem_integer_put(olds4(me + 1), o4, 1, 0)
  call shmem_put8(olds8(me + 1), o8, 1, 0)
  o4 = shmem_int4_finc(g4, 0)
  call check(o4 >= 0 .and. o4 < np, 'int4_finc range')
  o8 = shmem_int8_fadd(g8, big, 0)
  call check(o8 >= 0 .and. o8 < big * np .and. mod(o8, big) == 0, 'int8_fadd range')
  ! swap: the chain of swaps hands back 0 and every value but the last
  o4 = shmem_int4_swap(x4, me + 1, 0)
  o8 = shmem_int8_swap(x8, big + me + 1, 0)
  od = shmem_swap(xd, me + 1, 0)
  call shmem_integer_put(oldsd(me + 1), od, 1, 0)
  ! cswap: exactly one PE finds 0 and puts its rank + 1
  if (shmem_int4_cswap(w4, 0, me + 1, 0) == 0) call shmem_int4_add(wins4, 1, 0)
  o8 = shmem_int8_cswap(w8, 0_8, big + me, 0)
  call shmem_barrier_all()

  if (me == 0) then
    call check(c4 == np * (np + 1) / 2 + np, 'int4_add/inc')
    call check(c8 == big * (np * (np + 1) / 2) + np, 'int8_add/inc')
    call check(f4 == np .and. f8 == np, 'int4_fadd/int8_finc total')
    call check(g4 == np .and. g8 == big * np, 'int4_finc/int8_fadd total')
    seen = .false.
    do i = 1, np
      call check(olds4(i) >= 0 .and. olds4(i) < np, 'int4_fadd range')
      seen(olds4(i)) = .true.
    end do
    call check(all(seen(0:np-1)), 'int4_fadd permutation')
    seen = .false.
    do i = 1, np
      call check(olds8(i) >= 0 .and. olds8(i) < np, 'int8_finc range')
      seen(int(olds8(i))) = .true.
    end do
    call check(all(seen(0:np-1)), 'int8_finc permutation')
    ! xd ended with one PE's value; the olds are every other value and 0
    seen = .false.
    seen(xd) = .true.
    do i = 1, np
      call check(.not. seen(oldsd(i)), 'swap: a value handed back twice')
      seen(oldsd(i)) = .true.
    end do
    call check(all(seen(0:np)), 'swap chain')
    call check(x4 >= 1 .and. x4 <= np, 'int4_swap final')
    call check(x8 > big .and. x8 <= big + np, 'int8_swap final')
    call check(wins4 == 1 .and. w4 >= 1 .and. w4 <= np, 'int4_cswap: one winner')
    call check(w8 >= big .and. w8 < big + np, 'int8_cswap: one winner')
  end if
  call shmem_barrier_all()

  ! fetch and set
  call shmem_int4_set(c4, 7 * me, right)
  call shmem_int8_set(c8, big * me, right)
  call shmem_real4_set(r4, real(me) + 0.5, right)
  call shmem_real8_set(r8, dble(me) + 0.25d0, right)
  call shmem_barrier_all()
  call check(c4 == 7 * left .and. c8 == big * left, 'int4_set/int8_set')
  call check(r4 == real(left) + 0.5 .and. r8 == dble(left) + 0.25d0, 'real4_set/real8_set')
  call check(shmem_int4_fetch(c4, right) == 7 * me, 'int4_fetch')
  call check(shmem_int8_fetch(c8, right) == big * me, 'int8_fetch')
  call check(shmem_real4_fetch(r4, right) == real(me) + 0.5, 'real4_fetch')
  call check(shmem_real8_fetch(r8, right) == dble(me) + 0.25d0, 'real8_fetch')
  call shmem_barrier_all()
  ! swap with the right neighbour: it hands back what I set there
  p4 = shmem_real4_swap(r4, -real(me), right)
  p8 = shmem_real8_swap(r8, -dble(me), right)
  call check(p4 == real(me) + 0.5 .and. p8 == dble(me) + 0.25d0, 'real4_swap/real8_swap')
  call shmem_barrier_all()
  call check(r4 == -real(left) .and. r8 == -dble(left), 'real swap stored')
  call shmem_barrier_all()
  call shmem_finalize()
  if (me == 0) print '(a,i0,a)', 'PASS: f_amo at ', np, ' PEs'

contains

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      print '(a,i0,a,a)', 'FAIL: PE ', me, ': ', what
      error stop 1
    end if
  end subroutine
end program f_amo
