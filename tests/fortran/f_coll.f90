! f_coll.f90 - the Fortran active-set collectives: broadcast, collect,
! fcollect, alltoall(s) of each size, and every _to_all reduction, over
! all PEs and over the even and the odd PEs (logPE_stride 1, where the
! pSync arrays of INTEGERs carry the set's state); each result is checked
! against a local computation over the contributions every PE is known
! to make.
program f_coll
  implicit none
  include 'shmem.fh'
  integer, parameter :: n = 4, maxpe = 16
  integer :: shmem_my_pe, shmem_n_pes
  integer :: me, np, i, j, p, root, start, sz, nin, pos
  integer, save :: psb(SHMEM_BCAST_SYNC_SIZE), psc(SHMEM_COLLECT_SYNC_SIZE)
  integer, save :: psa(SHMEM_ALLTOALL_SYNC_SIZE), psr(SHMEM_REDUCE_SYNC_SIZE)
  integer, save :: psr2(SHMEM_REDUCE_SYNC_SIZE), psbar(SHMEM_BARRIER_SYNC_SIZE)
  integer*4, save :: b4(n), b4d(n), c4(n), c4d(n * maxpe), a4(n * maxpe), a4d(n * maxpe)
  integer*8, save :: b8(n), b8d(n), c8(n), c8d(n * maxpe), a8(n * maxpe), a8d(n * maxpe)
  real*4, save :: b32(n), b32d(n), c32(n), c32d(n * maxpe)
  real*8, save :: b64(n), b64d(n), c64(n), c64d(n * maxpe)
  integer*4, save :: as4(2 * n * maxpe), as4d(2 * n * maxpe)
  integer*8, save :: as8(2 * n * maxpe), as8d(2 * n * maxpe)
  integer*4, save :: i4(n), i4p(n), i4r(n), w4(n)
  integer*8, save :: i8(n), i8p(n), i8r(n), w8(n)
  real*4, save :: r4(n), r4p(n), r4r(n), wr4(n)
  real*8, save :: r8(n), r8p(n), r8r(n), wr8(n), x8(1)
  complex*8, save :: z8(n), z8p(n), z8r(n), wz8(n)
  complex*16, save :: z16(n), z16p(n), z16r(n), wz16(n)

  call shmem_init()
  me = shmem_my_pe()
  np = shmem_n_pes()
  call check(np <= maxpe, 'at most 16 PEs')
  psb = SHMEM_SYNC_VALUE; psc = SHMEM_SYNC_VALUE; psa = SHMEM_SYNC_VALUE
  psr = SHMEM_SYNC_VALUE; psr2 = SHMEM_SYNC_VALUE; psbar = SHMEM_SYNC_VALUE
  call shmem_barrier_all()

  ! ---- broadcast from the last PE
  root = np - 1
  do i = 1, n
    b4(i) = 10 * me + i
    b8(i) = int(me, 8) * 2_8**36 + i
    b32(i) = real(me) + 0.125 * i
    b64(i) = dble(me) * 1d9 + i
  end do
  b4d = -1; b8d = -1; b32d = -1; b64d = -1
  call shmem_broadcast4(b4d, b4, n, root, 0, 0, np, psb)
  call shmem_broadcast8(b8d, b8, n, root, 0, 0, np, psb)
  call shmem_broadcast32(b32d, b32, n, root, 0, 0, np, psb)
  call shmem_broadcast64(b64d, b64, n, root, 0, 0, np, psb)
  if (me /= root) then
    do i = 1, n
      call check(b4d(i) == 10 * root + i, 'broadcast4')
      call check(b8d(i) == int(root, 8) * 2_8**36 + i, 'broadcast8')
      call check(b32d(i) == real(root) + 0.125 * i, 'broadcast32')
      call check(b64d(i) == dble(root) * 1d9 + i, 'broadcast64')
    end do
  end if
  call shmem_barrier_all()

  ! ---- fcollect: n from each PE; collect: me + 1 from each PE
  do i = 1, n
    c4(i) = 100 * me + i
    c8(i) = -(int(me, 8) * 2_8**34 + i)
    c32(i) = real(me) - 0.5 * i
    c64(i) = dble(me) / 4d0 + i
  end do
  call shmem_fcollect4(c4d, c4, n, 0, 0, np, psc)
  call shmem_fcollect8(c8d, c8, n, 0, 0, np, psc)
  call shmem_fcollect32(c32d, c32, n, 0, 0, np, psc)
  call shmem_fcollect64(c64d, c64, n, 0, 0, np, psc)
  do p = 0, np - 1
    do i = 1, n
      call check(c4d(p * n + i) == 100 * p + i, 'fcollect4')
      call check(c8d(p * n + i) == -(int(p, 8) * 2_8**34 + i), 'fcollect8')
      call check(c32d(p * n + i) == real(p) - 0.5 * i, 'fcollect32')
      call check(c64d(p * n + i) == dble(p) / 4d0 + i, 'fcollect64')
    end do
  end do
  call shmem_barrier_all()
  nin = min(me + 1, n)
  c4d = -1; c8d = -1; c32d = -1; c64d = -1
  call shmem_collect4(c4d, c4, nin, 0, 0, np, psc)
  call shmem_collect8(c8d, c8, nin, 0, 0, np, psc)
  call shmem_collect32(c32d, c32, nin, 0, 0, np, psc)
  call shmem_collect64(c64d, c64, nin, 0, 0, np, psc)
  pos = 0
  do p = 0, np - 1
    do i = 1, min(p + 1, n)
      pos = pos + 1
      call check(c4d(pos) == 100 * p + i, 'collect4')
      call check(c8d(pos) == -(int(p, 8) * 2_8**34 + i), 'collect8')
      call check(c32d(pos) == real(p) - 0.5 * i, 'collect32')
      call check(c64d(pos) == dble(p) / 4d0 + i, 'collect64')
    end do
  end do
  call check(c4d(pos + 1) == -1, 'collect4 past the end')
  call shmem_barrier_all()

  ! ---- alltoall: block j of my source goes to PE j
  do j = 0, np - 1
    do i = 1, n
      a4(j * n + i) = 1000 * me + 10 * j + i
      a8(j * n + i) = int(me, 8) * 2_8**40 + 100 * j + i
    end do
  end do
  call shmem_alltoall32(a4d, a4, n, 0, 0, np, psa)
  call shmem_alltoall64(a8d, a8, n, 0, 0, np, psa)
  do j = 0, np - 1
    do i = 1, n
      call check(a4d(j * n + i) == 1000 * j + 10 * me + i, 'alltoall32')
      call check(a8d(j * n + i) == int(j, 8) * 2_8**40 + 100 * me + i, 'alltoall64')
    end do
  end do
  call shmem_barrier_all()
  ! alltoalls: every other element of the source, into every other one
  ! of the target (strides 2), n elements per PE
  as4 = -1; as4d = -1; as8 = -1; as8d = -1
  do j = 0, np - 1
    do i = 1, n
      as4(2 * (j * n + i) - 1) = 1000 * me + 10 * j + i
      as8(2 * (j * n + i) - 1) = -(int(me, 8) * 2_8**40 + 100 * j + i)
    end do
  end do
  call shmem_barrier_all()
  call shmem_alltoalls32(as4d, as4, 2, 2, n, 0, 0, np, psa)
  call shmem_alltoalls64(as8d, as8, 2, 2, n, 0, 0, np, psa)
  do j = 0, np - 1
    do i = 1, n
      call check(as4d(2 * (j * n + i) - 1) == 1000 * j + 10 * me + i, 'alltoalls32')
      call check(as4d(2 * (j * n + i)) == -1, 'alltoalls32 gap')
      call check(as8d(2 * (j * n + i) - 1) == -(int(j, 8) * 2_8**40 + 100 * me + i), &
                 'alltoalls64')
    end do
  end do
  call shmem_barrier_all()

  ! ---- reductions over all PEs
  call reduce_all(0, 0, np)
  ! ---- and over a strided active set: the even PEs, then the odd ones
  call shmem_barrier_all()
  start = mod(me, 2)
  sz = (np - start + 1) / 2
  call shmem_barrier(start, 1, sz, psbar)
  call reduce_all(start, 1, sz)
  b4d = -1
  call shmem_broadcast4(b4d, b4, n, 0, start, 1, sz, psb)
  if (me /= start) call check(b4d(1) == 10 * start + 1, 'broadcast4 over a strided set')
  call shmem_barrier(start, 1, sz, psbar)
  call shmem_barrier_all()
  ! In place (as CloverLeaf does): dest and source the same word
  x8(1) = dble(me + 1)
  call shmem_real8_sum_to_all(x8, x8, 1, 0, 0, np, wr8, psr)
  call check(x8(1) == dble(np * (np + 1) / 2), 'real8_sum_to_all in place')
  call shmem_barrier_all()
  call shmem_finalize()
  if (me == 0) print '(a,i0,a)', 'PASS: f_coll at ', np, ' PEs'

contains

  ! Every _to_all over the set (st, 2**logs, size) of the members'
  ! sources v*, and prod's p* (1 or 2, 1 or 1.5: no overflow, exact).
  subroutine reduce_all(st, logs, size)
    integer, intent(in) :: st, logs, size
    integer :: k, q, last, step
    integer*4 :: es4(n), ep4(n), emx4(n), emn4(n), ea4(n), eo4(n), ex4(n)
    integer*8 :: es8(n), ep8(n), emx8(n), emn8(n), ea8(n), eo8(n), ex8(n)
    real*4 :: es32(n), ep32(n), emx32(n), emn32(n)
    real*8 :: es64(n), ep64(n), emx64(n), emn64(n)
    complex*8 :: ezs8(n), ezp8(n)
    complex*16 :: ezs16(n), ezp16(n)
    step = 2**logs
    last = st + (size - 1) * step
    es4 = 0; ep4 = 1; emx4 = -huge(1_4); emn4 = huge(1_4); ea4 = -1; eo4 = 0; ex4 = 0
    es8 = 0; ep8 = 1; emx8 = -huge(1_8); emn8 = huge(1_8); ea8 = -1; eo8 = 0; ex8 = 0
    es32 = 0; ep32 = 1; emx32 = -huge(1.0); emn32 = huge(1.0)
    es64 = 0; ep64 = 1; emx64 = -huge(1d0); emn64 = huge(1d0)
    ezs8 = 0; ezp8 = 1; ezs16 = 0; ezp16 = 1
    do q = st, last, step
      do k = 1, n
        es4(k) = es4(k) + v4(q, k)
        ep4(k) = ep4(k) * (1 + mod(q + k, 2))
        emx4(k) = max(emx4(k), v4(q, k))
        emn4(k) = min(emn4(k), v4(q, k))
        ea4(k) = iand(ea4(k), v4(q, k))
        eo4(k) = ior(eo4(k), v4(q, k))
        ex4(k) = ieor(ex4(k), v4(q, k))
        es8(k) = es8(k) + v8(q, k)
        ep8(k) = ep8(k) * (1 + mod(q + k, 2))
        emx8(k) = max(emx8(k), v8(q, k))
        emn8(k) = min(emn8(k), v8(q, k))
        ea8(k) = iand(ea8(k), v8(q, k))
        eo8(k) = ior(eo8(k), v8(q, k))
        ex8(k) = ieor(ex8(k), v8(q, k))
        es32(k) = es32(k) + real(q + k)
        ep32(k) = ep32(k) * real(1 + mod(q + k, 2))
        emx32(k) = max(emx32(k), real(q + k))
        emn32(k) = min(emn32(k), real(q + k))
        es64(k) = es64(k) + (dble(q) - dble(k) / 2d0)
        ep64(k) = ep64(k) * (1d0 + mod(q + k, 2) / 2d0)
        emx64(k) = max(emx64(k), dble(q) - dble(k) / 2d0)
        emn64(k) = min(emn64(k), dble(q) - dble(k) / 2d0)
        ezs8(k) = ezs8(k) + cmplx(real(q + 1), real(k))
        ezp8(k) = ezp8(k) * cmplx(1.0, real(mod(q + k, 2)))
        ezs16(k) = ezs16(k) + cmplx(dble(k), dble(q + 1), kind=8)
        ezp16(k) = ezp16(k) * cmplx(1d0, dble(mod(q + k + 1, 2)), kind=8)
      end do
    end do
    do k = 1, n
      i4(k) = v4(me, k)
      i4p(k) = 1 + mod(me + k, 2)
      i8(k) = v8(me, k)
      i8p(k) = 1 + mod(me + k, 2)
      r4(k) = real(me + k)
      r4p(k) = real(1 + mod(me + k, 2))
      r8(k) = dble(me) - dble(k) / 2d0
      r8p(k) = 1d0 + mod(me + k, 2) / 2d0
      z8(k) = cmplx(real(me + 1), real(k))
      z8p(k) = cmplx(1.0, real(mod(me + k, 2)))
      z16(k) = cmplx(dble(k), dble(me + 1), kind=8)
      z16p(k) = cmplx(1d0, dble(mod(me + k + 1, 2)), kind=8)
    end do
    call shmem_int4_sum_to_all(i4r, i4, n, st, logs, size, w4, psr)
    call check(all(i4r == es4), 'int4_sum_to_all')
    call shmem_int4_prod_to_all(i4r, i4p, n, st, logs, size, w4, psr2)
    call check(all(i4r == ep4), 'int4_prod_to_all')
    call shmem_int4_max_to_all(i4r, i4, n, st, logs, size, w4, psr)
    call check(all(i4r == emx4), 'int4_max_to_all')
    call shmem_int4_min_to_all(i4r, i4, n, st, logs, size, w4, psr2)
    call check(all(i4r == emn4), 'int4_min_to_all')
    call shmem_int4_and_to_all(i4r, i4, n, st, logs, size, w4, psr)
    call check(all(i4r == ea4), 'int4_and_to_all')
    call shmem_int4_or_to_all(i4r, i4, n, st, logs, size, w4, psr2)
    call check(all(i4r == eo4), 'int4_or_to_all')
    call shmem_int4_xor_to_all(i4r, i4, n, st, logs, size, w4, psr)
    call check(all(i4r == ex4), 'int4_xor_to_all')
    call shmem_int8_sum_to_all(i8r, i8, n, st, logs, size, w8, psr2)
    call check(all(i8r == es8), 'int8_sum_to_all')
    call shmem_int8_prod_to_all(i8r, i8p, n, st, logs, size, w8, psr)
    call check(all(i8r == ep8), 'int8_prod_to_all')
    call shmem_int8_max_to_all(i8r, i8, n, st, logs, size, w8, psr2)
    call check(all(i8r == emx8), 'int8_max_to_all')
    call shmem_int8_min_to_all(i8r, i8, n, st, logs, size, w8, psr)
    call check(all(i8r == emn8), 'int8_min_to_all')
    call shmem_int8_and_to_all(i8r, i8, n, st, logs, size, w8, psr2)
    call check(all(i8r == ea8), 'int8_and_to_all')
    call shmem_int8_or_to_all(i8r, i8, n, st, logs, size, w8, psr)
    call check(all(i8r == eo8), 'int8_or_to_all')
    call shmem_int8_xor_to_all(i8r, i8, n, st, logs, size, w8, psr2)
    call check(all(i8r == ex8), 'int8_xor_to_all')
    call shmem_real4_sum_to_all(r4r, r4, n, st, logs, size, wr4, psr)
    call check(all(r4r == es32), 'real4_sum_to_all')
    call shmem_real4_prod_to_all(r4r, r4p, n, st, logs, size, wr4, psr2)
    call check(all(r4r == ep32), 'real4_prod_to_all')
    call shmem_real4_max_to_all(r4r, r4, n, st, logs, size, wr4, psr)
    call check(all(r4r == emx32), 'real4_max_to_all')
    call shmem_real4_min_to_all(r4r, r4, n, st, logs, size, wr4, psr2)
    call check(all(r4r == emn32), 'real4_min_to_all')
    call shmem_real8_sum_to_all(r8r, r8, n, st, logs, size, wr8, psr)
    call check(all(r8r == es64), 'real8_sum_to_all')
    call shmem_real8_prod_to_all(r8r, r8p, n, st, logs, size, wr8, psr2)
    call check(all(r8r == ep64), 'real8_prod_to_all')
    call shmem_real8_max_to_all(r8r, r8, n, st, logs, size, wr8, psr)
    call check(all(r8r == emx64), 'real8_max_to_all')
    call shmem_real8_min_to_all(r8r, r8, n, st, logs, size, wr8, psr2)
    call check(all(r8r == emn64), 'real8_min_to_all')
    call shmem_comp4_sum_to_all(z8r, z8, n, st, logs, size, wz8, psr)
    call check(all(z8r == ezs8), 'comp4_sum_to_all')
    call shmem_comp4_prod_to_all(z8r, z8p, n, st, logs, size, wz8, psr2)
    call check(all(z8r == ezp8), 'comp4_prod_to_all')
    call shmem_comp8_sum_to_all(z16r, z16, n, st, logs, size, wz16, psr)
    call check(all(z16r == ezs16), 'comp8_sum_to_all')
    call shmem_comp8_prod_to_all(z16r, z16p, n, st, logs, size, wz16, psr2)
    call check(all(z16r == ezp16), 'comp8_prod_to_all')
  end subroutine

  ! The int4 source of PE q, element k: different bits per PE and element.
  integer*4 function v4(q, k)
    integer, intent(in) :: q, k
    v4 = 3 + 2 * q + 16 * k + 256 * mod(q, 3)
  end function

  ! The int8 one: v4 past the low 32 bits, the rank in them.
  integer*8 function v8(q, k)
    integer, intent(in) :: q, k
    v8 = int(v4(q, k), 8) * 2_8**32 + q
  end function

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      print '(a,i0,a,a)', 'FAIL: PE ', me, ': ', what
      error stop 1
    end if
  end subroutine
end program f_coll
