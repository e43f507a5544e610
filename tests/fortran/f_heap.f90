! f_heap.f90 - the Fortran symmetric heap and queries: shpalloc'd arrays
! reached through Cray pointers take puts from the left neighbour,
! shpclmove grows one keeping its contents, shpdeallc frees; errcode -1
! for a length that is not positive (abort 0); shmem_ptr gives a Cray
! pointer to a peer's copy; shmem_pe_accessible and shmem_addr_accessible
! are LOGICAL; my_pe, num_pes, shmem_info_get_version and _name,
! shmemx_wtime and the no-op cache routines.
program f_heap
  implicit none
  include 'shmem.fh'
  integer, parameter :: n = 100
  integer :: shmem_my_pe, shmem_n_pes, my_pe, num_pes
  logical :: shmem_pe_accessible, shmem_addr_accessible
  integer*8 :: shmem_ptr
  double precision :: shmemx_wtime
  integer :: me, np, right, left, i, err, major, minor
  real*8 :: a(4 * n), peer(n)
  integer :: b(n)
  pointer (pa, a)
  pointer (pb, b)
  pointer (ppeer, peer)
  real*8, save :: src(n)
  real*8, allocatable :: private(:)
  character(len=SHMEM_MAX_NAME_LEN) :: name
  character(len=16) :: transport
  double precision :: t0

  call start_pes(0)
  me = shmem_my_pe()
  np = shmem_n_pes()
  call check(my_pe() == me .and. num_pes() == np, 'my_pe/num_pes')
  right = mod(me + 1, np)
  left = mod(me - 1 + np, np)
  t0 = shmemx_wtime()

  ! n REAL*8 = 2n 32-bit words
  call shpalloc(pa, 2 * n, err, 1)
  call check(err == 0, 'shpalloc errcode')
  call shpalloc(pb, n, err, 0)
  call check(err == 0, 'shpalloc errcode (b)')
  do i = 1, n
    src(i) = dble(me) * 1000d0 + i
    a(i) = -1d0
    b(i) = -1
  end do
  call shmem_barrier_all()
  call shmem_double_put(a, src, n, right)
  call shmem_barrier_all()
  do i = 1, n
    call check(a(i) == dble(left) * 1000d0 + i, 'put into a shpalloc block')
  end do
  ! shmem_ptr: a Cray pointer to the right neighbour's a (all PEs of
  ! this test share the node)
  ppeer = shmem_ptr(a, right)
  ! (SYMM_TRANSPORT=ucx maps no peer: shmem_ptr is 0 there, as the spec
  ! says for a peer not reachable by loads and stores.)
  call get_environment_variable('SYMM_TRANSPORT', transport)
  if (transport == 'ucx' .and. np > 1) then
    call check(ppeer == 0, 'shmem_ptr of a peer reached through UCX')
  else
    call check(ppeer /= 0, 'shmem_ptr of a node-local peer')
    do i = 1, n
      call check(peer(i) == dble(me) * 1000d0 + i, 'load through shmem_ptr')
    end do
  end if
  ppeer = shmem_ptr(a, me)
  call check(ppeer == pa, 'shmem_ptr of my own copy')
  call shmem_barrier_all()
  ! grow a to 4n REAL*8: the contents stay
  call shpclmove(pa, 8 * n, err, 1)
  call check(err == 0 .or. err == 1, 'shpclmove errcode')
  do i = 1, n
    call check(a(i) == dble(left) * 1000d0 + i, 'shpclmove kept the contents')
  end do
  call shmem_barrier_all()
  call shmem_double_put(a(3 * n + 1), src, n, right)
  call shmem_barrier_all()
  call check(a(4 * n) == dble(left) * 1000d0 + n, 'put into the grown block')
  call shmem_barrier_all()
  call shpdeallc(pa, err, 1)
  call check(err == 0, 'shpdeallc errcode')
  call shpdeallc(pb, err, 0)
  call check(err == 0, 'shpdeallc errcode (b)')
  ! a length that is not positive: errcode -1 (abort 0), nothing allocated
  pb = 0
  call shpalloc(pb, 0, err, 0)
  call check(err == -1 .and. pb == 0, 'shpalloc of 0 words')

  ! accessibility
  do i = 0, np - 1
    call check(shmem_pe_accessible(i), 'shmem_pe_accessible')
  end do
  call check(.not. shmem_pe_accessible(np), 'shmem_pe_accessible(npes)')
  call check(shmem_addr_accessible(src, right), 'shmem_addr_accessible of a SAVE array')
  allocate(private(n))
  call check(.not. shmem_addr_accessible(private, right), 'shmem_addr_accessible of ALLOCATE')
  call check(shmem_ptr(private, right) == 0, 'shmem_ptr of ALLOCATE')
  deallocate(private)

  ! version and name
  call shmem_info_get_version(major, minor)
  call check(major == SHMEM_MAJOR_VERSION .and. minor == SHMEM_MINOR_VERSION, 'version')
  call check(major == 1 .and. minor == 5, 'version 1.5')
  name = 'x'
  call shmem_info_get_name(name)
  call check(name == SHMEM_VENDOR_STRING .and. name(1:4) == 'symm', 'info_get_name')

  call shmem_clear_cache_inv()
  call shmem_set_cache_inv()
  call shmem_udcflush()
  call shmem_clear_cache_line_inv(src)
  call shmem_set_cache_line_inv(src)
  call shmem_udcflush_line(src)
  call check(shmemx_wtime() >= t0, 'shmemx_wtime')
  call shmem_barrier_all()
  call shmem_finalize()
  if (me == 0) print '(a,i0,a)', 'PASS: f_heap at ', np, ' PEs'

contains

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      print '(a,i0,a,a)', 'FAIL: PE ', me, ': ', what
      error stop 1
    end if
  end subroutine
end program f_heap
