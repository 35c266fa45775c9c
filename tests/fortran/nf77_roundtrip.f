C     Round trip through netcdf-fortran's FORTRAN 77 API (netcdf.inc)
C     over whichever libnetcdf.so.19 the loader finds.
C
C     Usage: nf77_roundtrip DATASET
C       DATASET  an NCZarr URL ("file://t.zarr#mode=nczarr,file") or a
C                plain path ("t.nc", created as netCDF-4).
C
C     Creates one dimension, one double variable with a text attribute
C     and a global int attribute; writes the variable whole, then one
C     element and a two-element slice over it; reopens read-only and
C     checks the inquiries and every value. Prints "PASS" and exits 0
C     only if every check passed.
      PROGRAM NF77RT
      IMPLICIT NONE
      INCLUDE 'netcdf.inc'
      INTEGER NX
      PARAMETER (NX = 5)
      CHARACTER*1024 PATH
      CHARACTER*(NF_MAX_NAME) NAME
      CHARACTER*32 TEXT
      INTEGER NCID, DIMID, VARID, STATUS, CMODE, I, NFAIL
      INTEGER NDIMS, NVARS, NGATTS, UNLIM, XTYPE, NATTS, DIMIDS(2)
      INTEGER ALEN, DLEN, IVAL(2), START(1), COUNT(1), IDX(1)
      DOUBLE PRECISION V(NX), W(NX), WANT(NX), ONE, PAIR(2)

      NFAIL = 0
      IF (IARGC() .NE. 1) THEN
         PRINT *, 'usage: nf77_roundtrip DATASET'
         STOP 2
      END IF
      CALL GETARG(1, PATH)
      PRINT '(A,A)', 'library: ', NF_INQ_LIBVERS()
      IF (PATH(1:7) .EQ. 'file://') THEN
         CMODE = NF_CLOBBER
      ELSE
         CMODE = IOR(NF_CLOBBER, NF_NETCDF4)
      END IF

      DO 10 I = 1, NX
         V(I) = 0.5D0 * I - 1.0D0
         WANT(I) = V(I)
 10   CONTINUE
C     Overwritten after the whole-array write.
      WANT(2) = 42.0D0
      WANT(4) = -4.5D0
      WANT(5) = 1.0D10

C     ---- create, define, write ----
      STATUS = NF_CREATE(PATH, CMODE, NCID)
      IF (STATUS .NE. NF_NOERR) THEN
         PRINT *, 'nf_create: ', NF_STRERROR(STATUS)
         STOP 1
      END IF
      CALL CHK(NF_DEF_DIM(NCID, 'n', NX, DIMID), 'def_dim', NFAIL)
      CALL CHK(NF_DEF_VAR(NCID, 'v', NF_DOUBLE, 1, DIMID, VARID),
     &     'def_var', NFAIL)
      CALL CHK(NF_PUT_ATT_TEXT(NCID, VARID, 'units', 6, 'meters'),
     &     'put_att_text', NFAIL)
      IVAL(1) = 7
      IVAL(2) = -8
      CALL CHK(NF_PUT_ATT_INT(NCID, NF_GLOBAL, 'answer', NF_INT, 2,
     &     IVAL), 'put_att_int', NFAIL)
      CALL CHK(NF_ENDDEF(NCID), 'enddef', NFAIL)
      CALL CHK(NF_PUT_VAR_DOUBLE(NCID, VARID, V), 'put_var', NFAIL)
      IDX(1) = 2
      CALL CHK(NF_PUT_VAR1_DOUBLE(NCID, VARID, IDX, 42.0D0),
     &     'put_var1', NFAIL)
      START(1) = 4
      COUNT(1) = 2
      PAIR(1) = -4.5D0
      PAIR(2) = 1.0D10
      CALL CHK(NF_PUT_VARA_DOUBLE(NCID, VARID, START, COUNT, PAIR),
     &     'put_vara', NFAIL)
      CALL CHK(NF_CLOSE(NCID), 'close', NFAIL)

C     ---- reopen and check ----
      STATUS = NF_OPEN(PATH, NF_NOWRITE, NCID)
      IF (STATUS .NE. NF_NOERR) THEN
         PRINT *, 'nf_open: ', NF_STRERROR(STATUS)
         STOP 1
      END IF
      CALL CHK(NF_INQ(NCID, NDIMS, NVARS, NGATTS, UNLIM), 'inq', NFAIL)
      CALL EXPECT(NDIMS .EQ. 1 .AND. NVARS .EQ. 1 .AND. NGATTS .EQ. 1
     &     .AND. UNLIM .EQ. -1, 'inq: 1 dim, 1 var, 1 att, no unlim',
     &     NFAIL)
      CALL CHK(NF_INQ_DIM(NCID, DIMID, NAME, DLEN), 'inq_dim', NFAIL)
      CALL EXPECT(NAME .EQ. 'n' .AND. DLEN .EQ. NX, 'dimension n(5)',
     &     NFAIL)
      CALL CHK(NF_INQ_VARID(NCID, 'v', VARID), 'inq_varid', NFAIL)
      CALL CHK(NF_INQ_VAR(NCID, VARID, NAME, XTYPE, NDIMS, DIMIDS,
     &     NATTS), 'inq_var', NFAIL)
      CALL EXPECT(NAME .EQ. 'v' .AND. XTYPE .EQ. NF_DOUBLE .AND.
     &     NDIMS .EQ. 1 .AND. DIMIDS(1) .EQ. DIMID .AND. NATTS .EQ. 1,
     &     'variable v: double, (n), 1 attribute', NFAIL)
      CALL CHK(NF_INQ_ATT(NCID, VARID, 'units', XTYPE, ALEN),
     &     'inq_att', NFAIL)
      CALL EXPECT(XTYPE .EQ. NF_CHAR .AND. ALEN .EQ. 6,
     &     'units: char, length 6', NFAIL)
      TEXT = ' '
      CALL CHK(NF_GET_ATT_TEXT(NCID, VARID, 'units', TEXT),
     &     'get_att_text', NFAIL)
      CALL EXPECT(TEXT .EQ. 'meters', 'units = meters', NFAIL)
      CALL CHK(NF_INQ_ATT(NCID, NF_GLOBAL, 'answer', XTYPE, ALEN),
     &     'inq_att answer', NFAIL)
      CALL EXPECT(XTYPE .EQ. NF_INT .AND. ALEN .EQ. 2,
     &     'answer: int, length 2', NFAIL)
      IVAL(1) = 0
      IVAL(2) = 0
      CALL CHK(NF_GET_ATT_INT(NCID, NF_GLOBAL, 'answer', IVAL),
     &     'get_att_int', NFAIL)
      CALL EXPECT(IVAL(1) .EQ. 7 .AND. IVAL(2) .EQ. -8,
     &     'answer = 7, -8', NFAIL)
      CALL CHK(NF_GET_VAR_DOUBLE(NCID, VARID, W), 'get_var', NFAIL)
      DO 20 I = 1, NX
         CALL EXPECT(W(I) .EQ. WANT(I), 'value of v', NFAIL)
 20   CONTINUE
      IDX(1) = 4
      CALL CHK(NF_GET_VAR1_DOUBLE(NCID, VARID, IDX, ONE), 'get_var1',
     &     NFAIL)
      CALL EXPECT(ONE .EQ. -4.5D0, 'v(4) = -4.5', NFAIL)
      IDX(1) = 6
      STATUS = NF_GET_VAR1_DOUBLE(NCID, VARID, IDX, ONE)
      CALL EXPECT(STATUS .EQ. NF_EINVALCOORDS, 'v(6) is out of range',
     &     NFAIL)
      STATUS = NF_INQ_VARID(NCID, 'nope', VARID)
      CALL EXPECT(STATUS .EQ. NF_ENOTVAR, 'no variable nope', NFAIL)
      CALL EXPECT(NF_STRERROR(STATUS) .EQ. 'NetCDF: Variable not found',
     &     'strerror(NF_ENOTVAR)', NFAIL)
      CALL CHK(NF_CLOSE(NCID), 'close', NFAIL)
      STATUS = NF_CLOSE(NCID)
      CALL EXPECT(STATUS .EQ. NF_EBADID, 'second close: NF_EBADID',
     &     NFAIL)

      IF (NFAIL .NE. 0) THEN
         PRINT *, NFAIL, ' check(s) failed'
         STOP 1
      END IF
      PRINT '(A)', 'PASS'
      END

      SUBROUTINE CHK(STATUS, WHAT, NFAIL)
      IMPLICIT NONE
      INCLUDE 'netcdf.inc'
      INTEGER STATUS, NFAIL
      CHARACTER*(*) WHAT
      IF (STATUS .NE. NF_NOERR) THEN
         PRINT *, 'FAIL: ', WHAT, ': ', STATUS, ' ', NF_STRERROR(STATUS)
         NFAIL = NFAIL + 1
      END IF
      END

      SUBROUTINE EXPECT(COND, WHAT, NFAIL)
      IMPLICIT NONE
      LOGICAL COND
      INTEGER NFAIL
      CHARACTER*(*) WHAT
      IF (.NOT. COND) THEN
         PRINT *, 'FAIL: ', WHAT
         NFAIL = NFAIL + 1
      END IF
      END
