C     f_fixed.f - a fixed-form program in the style of the NAS Parallel
C     Benchmarks' OpenSHMEM ports: include 'mpp/shmem.fh', declare the
C     functions it calls itself (as the specification's synopses do),
C     start_pes, a put round the ring, a broadcast and a reduction with
C     pSync arrays of the header's sizes.
      PROGRAM FFIXED
      IMPLICIT NONE
      INCLUDE 'mpp/shmem.fh'
      INTEGER NUM_PES, MY_PE
      INTEGER ME, NP, I, RIGHT, LEFT, N
      PARAMETER (N = 10)
      INTEGER IA(N), IB(N), NITER
      INTEGER PSYNC1(SHMEM_BCAST_SYNC_SIZE)
      INTEGER PSYNC2(SHMEM_REDUCE_SYNC_SIZE)
      DOUBLE PRECISION T, TMAX, TSUM
      DOUBLE PRECISION PWRK(MAX(1, SHMEM_REDUCE_MIN_WRKDATA_SIZE))
      SAVE IA, IB, NITER, PSYNC1, PSYNC2, T, TMAX, TSUM, PWRK
      DATA PSYNC1 /SHMEM_BCAST_SYNC_SIZE*SHMEM_SYNC_VALUE/

      CALL START_PES(0)
      NP = NUM_PES()
      ME = MY_PE()
      RIGHT = MOD(ME + 1, NP)
      LEFT = MOD(ME - 1 + NP, NP)
      DO 10 I = 1, SHMEM_REDUCE_SYNC_SIZE
         PSYNC2(I) = SHMEM_SYNC_VALUE
   10 CONTINUE
      DO 20 I = 1, N
         IA(I) = ME * 100 + I
   20 CONTINUE
      CALL SHMEM_BARRIER_ALL
      CALL SHMEM_INTEGER_PUT(IB, IA, N, RIGHT)
      CALL SHMEM_BARRIER_ALL
      DO 30 I = 1, N
         IF (IB(I) .NE. LEFT * 100 + I) THEN
            PRINT *, 'FAIL: PE ', ME, ': integer_put element ', I
            STOP 1
         END IF
   30 CONTINUE

      NITER = 0
      IF (ME .EQ. 0) NITER = 42
      CALL SHMEM_BROADCAST4(NITER, NITER, 1, 0, 0, 0, NP, PSYNC1)
      IF (NITER .NE. 42) THEN
         PRINT *, 'FAIL: PE ', ME, ': broadcast4 gave ', NITER
         STOP 1
      END IF

      T = DBLE(ME + 1)
      CALL SHMEM_REAL8_MAX_TO_ALL(TMAX, T, 1, 0, 0, NP, PWRK, PSYNC2)
      CALL SHMEM_BARRIER_ALL
      CALL SHMEM_REAL8_SUM_TO_ALL(TSUM, T, 1, 0, 0, NP, PWRK, PSYNC2)
      IF (TMAX .NE. DBLE(NP) .OR. TSUM .NE. DBLE(NP*(NP+1)/2)) THEN
         PRINT *, 'FAIL: PE ', ME, ': max ', TMAX, ' sum ', TSUM
         STOP 1
      END IF
      CALL SHMEM_BARRIER_ALL
      IF (ME .EQ. 0) PRINT '(A,I0,A)', 'PASS: f_fixed at ', NP, ' PEs'
      END
