! f_rma.f90 - the Fortran RMA routines: every PE puts arrays made of its
! rank into its right neighbour with each typed, sized, non-blocking and
! strided routine, then gets its right neighbour's, and checks what
! arrived against the formula of the PE it came from.
program f_rma
  implicit none
  include 'shmem.fh'
  integer, parameter :: n = 8
  integer :: shmem_my_pe, shmem_n_pes
  integer :: me, np, right, left, i, k
  integer, save :: isrc(n), idst(n), istr(2*n)
  real, save :: rsrc(n), rdst(n)
  double precision, save :: dsrc(n), ddst(n), dstr(2*n)
  complex, save :: csrc(n), cdst(n)
  logical, save :: lsrc(n), ldst(n)
  character(len=n), save :: chsrc, chdst
  integer*4, save :: s4(n), d4(n)
  integer*8, save :: s8(n), d8(n), s128(2*n), d128(2*n), str8(2*n)
  real*4, save :: s32(n), d32(n)
  real*8, save :: s64(n), d64(n)
  character, save :: smem(n), dmem(n)

  call shmem_init()
  me = shmem_my_pe()
  np = shmem_n_pes()
  right = mod(me + 1, np)
  left = mod(me - 1 + np, np)
  call fill(me)
  call shmem_barrier_all()

  ! ---- puts into the right neighbour: what arrives is the left one's
  call shmem_integer_put(idst, isrc, n, right)
  call shmem_real_put(rdst, rsrc, n, right)
  call shmem_double_put(ddst, dsrc, n, right)
  call shmem_complex_put(cdst, csrc, n, right)
  call shmem_logical_put(ldst, lsrc, n, right)
  call shmem_character_put(chdst, chsrc, n, right)
  call shmem_put4(d4, s4, n, right)
  call shmem_put8(d8, s8, n, right)
  call shmem_put32(d32, s32, n, right)
  call shmem_put64(d64, s64, n, right)
  call shmem_put128(d128, s128, n, right)
  call shmem_putmem(dmem, smem, n, right)
  call shmem_barrier_all()
  call expect(left, 'put')
  call shmem_barrier_all()

  ! ---- the same through the non-blocking forms, completed by quiet
  call clear()
  call shmem_barrier_all()
  call shmem_integer_put_nbi(idst, isrc, n, right)
  call shmem_real_put_nbi(rdst, rsrc, n, right)
  call shmem_double_put_nbi(ddst, dsrc, n, right)
  call shmem_complex_put_nbi(cdst, csrc, n, right)
  call shmem_logical_put_nbi(ldst, lsrc, n, right)
  call shmem_character_put_nbi(chdst, chsrc, n, right)
  call shmem_put4_nbi(d4, s4, n, right)
  call shmem_put8_nbi(d8, s8, n, right)
  call shmem_put32_nbi(d32, s32, n, right)
  call shmem_put64_nbi(d64, s64, n, right)
  call shmem_put128_nbi(d128, s128, n, right)
  call shmem_putmem_nbi(dmem, smem, n, right)
  call shmem_quiet()
  call shmem_barrier_all()
  call expect(left, 'put_nbi')
  call shmem_barrier_all()

  ! ---- gets from the right neighbour
  call clear()
  call shmem_integer_get(idst, isrc, n, right)
  call shmem_real_get(rdst, rsrc, n, right)
  call shmem_double_get(ddst, dsrc, n, right)
  call shmem_complex_get(cdst, csrc, n, right)
  call shmem_logical_get(ldst, lsrc, n, right)
  call shmem_character_get(chdst, chsrc, n, right)
  call shmem_get4(d4, s4, n, right)
  call shmem_get8(d8, s8, n, right)
  call shmem_get32(d32, s32, n, right)
  call shmem_get64(d64, s64, n, right)
  call shmem_get128(d128, s128, n, right)
  call shmem_getmem(dmem, smem, n, right)
  call expect(right, 'get')
  call clear()
  call shmem_integer_get_nbi(idst, isrc, n, right)
  call shmem_real_get_nbi(rdst, rsrc, n, right)
  call shmem_double_get_nbi(ddst, dsrc, n, right)
  call shmem_complex_get_nbi(cdst, csrc, n, right)
  call shmem_logical_get_nbi(ldst, lsrc, n, right)
  call shmem_character_get_nbi(chdst, chsrc, n, right)
  call shmem_get4_nbi(d4, s4, n, right)
  call shmem_get8_nbi(d8, s8, n, right)
  call shmem_get32_nbi(d32, s32, n, right)
  call shmem_get64_nbi(d64, s64, n, right)
  call shmem_get128_nbi(d128, s128, n, right)
  call shmem_getmem_nbi(dmem, smem, n, right)
  call shmem_quiet()
  call expect(right, 'get_nbi')

  ! ---- strided: every other element of the target (iput) and of the
  ! source (iget); the elements between stay as they were
  istr = -1
  dstr = -1d0
  str8 = -1
  call shmem_barrier_all()
  call shmem_integer_iput(istr, isrc, 2, 1, n, right)
  call shmem_double_iput(dstr, dsrc, 2, 1, n, right)
  call shmem_iput8(str8, s8, 2, 1, n, right)
  call shmem_barrier_all()
  do i = 1, n
    call check(istr(2*i-1) == ival(left, i) .and. istr(2*i) == -1, 'integer_iput')
    call check(dstr(2*i-1) == dval(left, i) .and. dstr(2*i) == -1d0, 'double_iput')
    call check(str8(2*i-1) == i8val(left, i) .and. str8(2*i) == -1, 'iput8')
  end do
  call shmem_barrier_all()
  idst = -1
  ddst = -1d0
  d8 = -1
  call shmem_integer_iget(idst, isrc, 1, 2, n/2, right)
  call shmem_double_iget(ddst, dsrc, 1, 2, n/2, right)
  call shmem_iget8(d8, s8, 1, 2, n/2, right)
  do k = 1, n/2
    call check(idst(k) == ival(right, 2*k-1), 'integer_iget')
    call check(ddst(k) == dval(right, 2*k-1), 'double_iget')
    call check(d8(k) == i8val(right, 2*k-1), 'iget8')
  end do
  call check(all(idst(n/2+1:) == -1), 'integer_iget beyond')
  call shmem_barrier_all()
  call shmem_finalize()
  if (me == 0) print '(a,i0,a)', 'PASS: f_rma at ', np, ' PEs'

contains

  integer function ival(pe, i)
    integer, intent(in) :: pe, i
    ival = 1000 * pe + i
  end function

  double precision function dval(pe, i)
    integer, intent(in) :: pe, i
    dval = dble(pe) * 1.0d6 + dble(i) / 8d0
  end function

  integer*8 function i8val(pe, i)
    integer, intent(in) :: pe, i
    i8val = int(pe + 1, 8) * 2_8**40 + i
  end function

  subroutine fill(pe)
    integer, intent(in) :: pe
    integer :: j
    do j = 1, n
      isrc(j) = ival(pe, j)
      rsrc(j) = real(pe) + 0.25 * j
      dsrc(j) = dval(pe, j)
      csrc(j) = cmplx(real(pe), real(j))
      lsrc(j) = mod(pe + j, 2) == 0
      chsrc(j:j) = achar(iachar('a') + mod(pe + j, 26))
      s4(j) = -100 * pe - j
      s8(j) = i8val(pe, j)
      s32(j) = -real(pe) - 0.5 * j
      s64(j) = -dval(pe, j)
      s128(2*j-1) = i8val(pe, j)
      s128(2*j) = -i8val(pe, j)
      smem(j) = achar(iachar('A') + mod(3 * pe + j, 26))
    end do
    call clear()
  end subroutine

  subroutine clear()
    idst = 0
    rdst = 0
    ddst = 0
    cdst = (0.0, 0.0)
    ldst = .false.
    chdst = ' '
    d4 = 0
    d8 = 0
    d32 = 0
    d64 = 0
    d128 = 0
    dmem = ' '
  end subroutine

  ! What arrived is pe's fill.
  subroutine expect(pe, what)
    integer, intent(in) :: pe
    character(len=*), intent(in) :: what
    integer :: j
    do j = 1, n
      call check(idst(j) == ival(pe, j), what // ' integer')
      call check(rdst(j) == real(pe) + 0.25 * j, what // ' real')
      call check(ddst(j) == dval(pe, j), what // ' double')
      call check(cdst(j) == cmplx(real(pe), real(j)), what // ' complex')
      call check(ldst(j) .eqv. (mod(pe + j, 2) == 0), what // ' logical')
      call check(chdst(j:j) == achar(iachar('a') + mod(pe + j, 26)), what // ' character')
      call check(d4(j) == -100 * pe - j, what // '4')
      call check(d8(j) == i8val(pe, j), what // '8')
      call check(d32(j) == -real(pe) - 0.5 * j, what // '32')
      call check(d64(j) == -dval(pe, j), what // '64')
      call check(d128(2*j-1) == i8val(pe, j) .and. d128(2*j) == -i8val(pe, j), what // '128')
      call check(dmem(j) == achar(iachar('A') + mod(3 * pe + j, 26)), what // 'mem')
    end do
  end subroutine

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      print '(a,i0,a,a)', 'FAIL: PE ', me, ': ', what
      error stop 1
    end if
  end subroutine
end program f_rma
