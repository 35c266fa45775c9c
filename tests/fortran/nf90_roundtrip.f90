! Round trip through netcdf-fortran's Fortran 90 API (module netcdf) over
! whichever libnetcdf.so.19 the loader finds.
!
! Usage: nf90_roundtrip DATASET
!   DATASET  an NCZarr URL, e.g. "file://t.zarr#mode=nczarr,file" (created
!            with NF90_CLOBBER alone: the mode implies netCDF-4), or a plain
!            path such as "t.nc" (created with NF90_CLOBBER + NF90_NETCDF4).
!
! Creates the dataset (dimensions, one unlimited; variables of every
! numeric type, char and int64; chunking, deflate, shuffle, endianness,
! fill values; attributes; a group and a subgroup), writes it (whole
! arrays, strided slices, single values, a record at a time), closes it,
! reopens it read-only and checks every inquiry and every value, then a
! few error paths. Prints the library version, then "PASS" and exits 0
! only if every check passed; otherwise prints each failed check and
! stops with status 1.
!
! Expected values follow netcdf-c (4.10.1 for NCZarr). The same values are
! checked from Python by check_store.py: keep the two in step.
! Checks shared by the program's parts: a failed check is printed and
! counted, and the program goes on.
module checks
  use netcdf
  implicit none
  integer :: nfail = 0

contains

  subroutine fail(msg)
    character(len=*), intent(in) :: msg
    nfail = nfail + 1
    print '(2a)', 'FAIL: ', msg
  end subroutine fail

  subroutine expect(cond, msg)
    logical, intent(in) :: cond
    character(len=*), intent(in) :: msg
    if (.not. cond) call fail(msg)
  end subroutine expect

  subroutine ok(st, what)
    integer, intent(in) :: st
    character(len=*), intent(in) :: what
    if (st /= nf90_noerr) then
       call fail(what // ': status ' // itoa(st) // ' ' // trim(nf90_strerror(st)))
    end if
  end subroutine ok

  subroutine fatal(st, what)
    integer, intent(in) :: st
    character(len=*), intent(in) :: what
    if (st /= nf90_noerr) then
       print '(a,a,i0,1x,a)', what, ': status ', st, trim(nf90_strerror(st))
       error stop 1
    end if
  end subroutine fatal

  ! A call that must fail with netcdf-c's status and message.
  subroutine expect_status(st, want, text, what)
    integer, intent(in) :: st, want
    character(len=*), intent(in) :: text, what
    if (st /= want) then
       call fail(what // ': status ' // itoa(st) // ' (' // trim(nf90_strerror(st)) // '), want ' // itoa(want))
    end if
    if (trim(nf90_strerror(want)) /= text) then
       call fail(what // ': nf90_strerror(' // itoa(want) // ') = "' // trim(nf90_strerror(want)) // &
            '", want "' // text // '"')
    end if
  end subroutine expect_status

  function itoa(v) result(str)
    integer, intent(in) :: v
    character(len=:), allocatable :: str
    character(len=16) :: buf
    write (buf, '(i0)') v
    str = trim(buf)
  end function itoa

  integer function dimid(grp, name)
    integer, intent(in) :: grp
    character(len=*), intent(in) :: name
    call ok(nf90_inq_dimid(grp, name, dimid), 'inq_dimid ' // name)
  end function dimid

  integer function varid(grp, name)
    integer, intent(in) :: grp
    character(len=*), intent(in) :: name
    call ok(nf90_inq_varid(grp, name, varid), 'inq_varid ' // name)
  end function varid

  subroutine check_att(grp, vid, name, want_type, want_len)
    integer, intent(in) :: grp, vid, want_type, want_len
    character(len=*), intent(in) :: name
    integer :: xtype, len
    call ok(nf90_inquire_attribute(grp, vid, name, xtype=xtype, len=len), 'inquire_attribute ' // name)
    call expect(xtype == want_type, 'attribute ' // name // ' type ' // itoa(xtype) // ' want ' // itoa(want_type))
    call expect(len == want_len, 'attribute ' // name // ' length ' // itoa(len) // ' want ' // itoa(want_len))
  end subroutine check_att

end module checks

program nf90_roundtrip
  use netcdf
  use checks
  use, intrinsic :: iso_fortran_env, only: int8, int16, int32, int64, real32, real64
  implicit none

  integer, parameter :: nx = 6, ny = 4, nt = 3, nstr = 8, nz = 3
  integer, parameter :: nvars = 11
  character(len=*), parameter :: var_names(nvars) = [character(len=10) :: &
       'v_real', 'v_double', 'v_int', 'v_short', 'v_byte', 'v_char', &
       'v_int64', 'v_ubyte', 'v_be', 'v_rec_int', 'v_scalar']
  integer(int64), parameter :: fill_int64 = -9223372036854775806_int64
  ! netcdf-c's codes for a missing dataset: NC_ENOTFOUND for an NCZarr
  ! store, ENOENT for a file.
  integer, parameter :: nc_enotfound = -141, enoent = 2

  character(len=1024) :: path, missing
  logical :: is_url
  integer :: ncid, cmode, i, j, k, t
  integer :: x_id, y_id, t_id, s_id, z_id
  integer :: v_real, v_double, v_int, v_short, v_byte, v_char, v_int64, v_ubyte, v_be, v_rec_int, v_scalar
  integer :: grp1, sub, g_var, dummy

  ! The data, in Fortran order (x fastest).
  real(real32) :: r(nx, ny), rr(nx, ny), rsub(3, 2), rt(ny, nx), r1
  real(real64) :: d(nx, nt), dd(nx, nt), drec(nx), dval
  integer(int32) :: n(nx, ny), nn(nx, ny), nstrided(3, ny), n1
  integer(int16) :: s(nx), ss(nx)
  integer(int8) :: b(nx), bb(nx)
  character(len=nstr) :: c(ny), cc(ny), c1(1)
  integer(int64) :: l(nx), ll(nx)
  integer :: ub(nx), uub(nx)
  real(real32) :: be(nx), bbe(nx)
  integer :: recint(nt)
  integer :: g(nz, nx), gg(nz, nx)
  real(real64), parameter :: pi = 3.14159265358979323846_real64

  if (command_argument_count() /= 1) then
     print '(a)', 'usage: nf90_roundtrip DATASET'
     stop 2
  end if
  call get_command_argument(1, path)
  is_url = path(1:7) == 'file://'
  if (is_url) then
     missing = 'file://no_such_dir/missing.zarr#mode=nczarr,file'
  else
     missing = 'no_such_dir/missing.nc'
  end if
  print '(2a)', 'library: ', trim(nf90_inq_libvers())

  ! ---- values ----
  do j = 1, ny
     do i = 1, nx
        r(i, j) = real(i + 10 * j, real32) + 0.5
     end do
  end do
  do t = 1, nt
     do i = 1, nx
        d(i, t) = 1000.0_real64 * t + 0.25_real64 * i
     end do
  end do
  ! v_int: x = 1, 3, 5 written with stride 2, then (6,4) alone; the rest
  ! stays at the fill value -1.
  n = -1
  do j = 1, ny
     do i = 1, nx, 2
        n(i, j) = 100 * i + j
     end do
  end do
  n(6, 4) = 7777
  do i = 1, nx
     s(i) = int((i - 3) * 1000, int16)
     l(i) = (-1_int64)**i * i * 3000000000_int64
     be(i) = 1.5 * i
  end do
  b = [integer(int8) :: -128, -1, 0, 1, 42, 127]
  ub = [0, 1, 127, 128, 200, 255]
  c = [character(len=nstr) :: 'alpha', 'beta', 'gamma', 'deltaXYZ']
  recint = [11, 22, nf90_fill_int]
  do i = 1, nx
     do k = 1, nz
        g(k, i) = 100 * k + i
     end do
  end do

  ! ==== create and define ====
  if (is_url) then
     cmode = NF90_CLOBBER
  else
     cmode = ior(NF90_CLOBBER, NF90_NETCDF4)
  end if
  call fatal(nf90_create(trim(path), cmode, ncid), 'nf90_create')

  call ok(nf90_def_dim(ncid, 'x', nx, x_id), 'def_dim x')
  call ok(nf90_def_dim(ncid, 'y', ny, y_id), 'def_dim y')
  call ok(nf90_def_dim(ncid, 'time', NF90_UNLIMITED, t_id), 'def_dim time')
  call ok(nf90_def_dim(ncid, 'strlen', nstr, s_id), 'def_dim strlen')
  call expect_status(nf90_def_dim(ncid, 'x', 5, dummy), NF90_ENAMEINUSE, &
       'NetCDF: String match to name in use', 'def_dim of a name in use')

  call ok(nf90_put_att(ncid, NF90_GLOBAL, 'title', 'nczarr-rs Fortran 90 test'), 'att title')
  call ok(nf90_put_att(ncid, NF90_GLOBAL, 'int_att', [1, -2, 3]), 'att int_att')
  call ok(nf90_put_att(ncid, NF90_GLOBAL, 'dbl_att', [1.5_real64, -2.25_real64, 1.0e300_real64]), 'att dbl_att')
  call ok(nf90_put_att(ncid, NF90_GLOBAL, 'flt_att', 0.5_real32), 'att flt_att')
  call ok(nf90_put_att(ncid, NF90_GLOBAL, 'short_att', [-7_int16, 7_int16]), 'att short_att')
  call ok(nf90_put_att(ncid, NF90_GLOBAL, 'byte_att', [-1_int8, 1_int8, 2_int8]), 'att byte_att')

  call ok(nf90_def_var(ncid, 'v_real', NF90_FLOAT, [x_id, y_id], v_real, &
       chunksizes=[3, 2], deflate_level=4, shuffle=.true.), 'def_var v_real')
  call ok(nf90_def_var_fill(ncid, v_real, 0, -999.0_real32), 'def_var_fill v_real')
  call ok(nf90_put_att(ncid, v_real, 'units', 'K'), 'att units')
  call ok(nf90_put_att(ncid, v_real, 'valid_range', [-1000.0_real32, 1000.0_real32]), 'att valid_range')

  call ok(nf90_def_var(ncid, 'v_double', NF90_DOUBLE, [x_id, t_id], v_double, &
       chunksizes=[nx, 1]), 'def_var v_double')
  call ok(nf90_put_att(ncid, v_double, 'long_name', 'record data'), 'att long_name')

  call ok(nf90_def_var(ncid, 'v_int', NF90_INT, [x_id, y_id], v_int), 'def_var v_int')
  call ok(nf90_def_var_fill(ncid, v_int, 0, -1), 'def_var_fill v_int')

  call ok(nf90_def_var(ncid, 'v_short', NF90_SHORT, [x_id], v_short, &
       deflate_level=1, shuffle=.false.), 'def_var v_short')
  call ok(nf90_put_att(ncid, v_short, 'valid_min', -5000_int16), 'att valid_min')

  call ok(nf90_def_var(ncid, 'v_byte', NF90_BYTE, [x_id], v_byte), 'def_var v_byte')
  call ok(nf90_def_var(ncid, 'v_char', NF90_CHAR, [s_id, y_id], v_char), 'def_var v_char')
  call ok(nf90_def_var(ncid, 'v_int64', NF90_INT64, [x_id], v_int64), 'def_var v_int64')
  call ok(nf90_def_var(ncid, 'v_ubyte', NF90_UBYTE, [x_id], v_ubyte), 'def_var v_ubyte')
  call ok(nf90_def_var(ncid, 'v_be', NF90_FLOAT, [x_id], v_be, &
       endianness=NF90_ENDIAN_BIG), 'def_var v_be')
  call ok(nf90_def_var(ncid, 'v_rec_int', NF90_INT, [t_id], v_rec_int, chunksizes=[2]), 'def_var v_rec_int')
  call ok(nf90_def_var(ncid, 'v_scalar', NF90_DOUBLE, v_scalar), 'def_var v_scalar')

  call ok(nf90_def_grp(ncid, 'grp1', grp1), 'def_grp grp1')
  call ok(nf90_def_dim(grp1, 'z', nz, z_id), 'def_dim z')
  call ok(nf90_def_var(grp1, 'g_var', NF90_INT, [z_id, x_id], g_var), 'def_var g_var')
  call ok(nf90_put_att(grp1, NF90_GLOBAL, 'description', 'first group'), 'att description')
  call ok(nf90_def_grp(grp1, 'sub', sub), 'def_grp sub')
  call ok(nf90_put_att(sub, NF90_GLOBAL, 'level', 2), 'att level')

  call ok(nf90_enddef(ncid), 'enddef')

  ! ==== write ====
  call ok(nf90_put_var(ncid, v_real, r), 'put v_real')
  call ok(nf90_put_var(ncid, v_int, n(1:nx:2, :), start=[1, 1], count=[3, ny], stride=[2, 1]), 'put v_int strided')
  call ok(nf90_put_var(ncid, v_int, 7777, start=[6, 4]), 'put v_int (6,4)')
  call ok(nf90_put_var(ncid, v_short, s), 'put v_short')
  call ok(nf90_put_var(ncid, v_byte, b), 'put v_byte')
  call ok(nf90_put_var(ncid, v_char, c), 'put v_char')
  call ok(nf90_put_var(ncid, v_int64, l), 'put v_int64')
  call ok(nf90_put_var(ncid, v_ubyte, ub), 'put v_ubyte')
  call ok(nf90_put_var(ncid, v_be, be), 'put v_be')
  call ok(nf90_put_var(ncid, v_scalar, pi), 'put v_scalar')
  call ok(nf90_put_var(grp1, g_var, g), 'put g_var')
  ! Records 1 and 2, one at a time, then a sync.
  do t = 1, 2
     call ok(nf90_put_var(ncid, v_double, d(:, t), start=[1, t], count=[nx, 1]), 'put v_double record')
     call ok(nf90_put_var(ncid, v_rec_int, recint(t), start=[t]), 'put v_rec_int record')
  end do
  call ok(nf90_sync(ncid), 'sync')
  ! Back to define mode for one more attribute, then record 3 of v_double
  ! only: v_rec_int(3) reads as its fill value.
  call ok(nf90_redef(ncid), 'redef')
  call ok(nf90_put_att(ncid, NF90_GLOBAL, 'added_later', 'yes'), 'att added_later')
  call ok(nf90_enddef(ncid), 'enddef 2')
  call ok(nf90_put_var(ncid, v_double, d(:, 3), start=[1, 3], count=[nx, 1]), 'put v_double record 3')
  call ok(nf90_close(ncid), 'close after write')

  ! ==== reopen read-only and check everything ====
  call fatal(nf90_open(trim(path), NF90_NOWRITE, ncid), 'nf90_open')
  call check_file_level()
  call check_variables()
  call check_attributes()
  call check_data()
  call check_groups()

  ! ==== error paths ====
  call expect_status(nf90_inq_varid(ncid, 'no_such_var', dummy), NF90_ENOTVAR, &
       'NetCDF: Variable not found', 'inq_varid of a missing variable')
  call expect_status(nf90_put_var(ncid, v_int, 5, start=[1, 1]), NF90_EPERM, &
       'NetCDF: Write to read only', 'put_var on a read-only dataset')
  call expect_status(nf90_get_var(ncid, v_real, r1, start=[nx + 1, 1]), NF90_EINVALCOORDS, &
       'NetCDF: Index exceeds dimension bound', 'get_var past the end')
  call expect_status(nf90_def_dim(ncid, 'w', 2, dummy), NF90_EPERM, &
       'NetCDF: Write to read only', 'def_dim on a read-only dataset')
  call ok(nf90_close(ncid), 'close after read')
  call expect_status(nf90_inquire(ncid, nVariables=dummy), NF90_EBADID, &
       'NetCDF: Not a valid ID', 'inquire on a closed ncid')
  call expect_status(nf90_inquire(6488064, nVariables=dummy), NF90_EBADID, &
       'NetCDF: Not a valid ID', 'inquire on a never-opened ncid')
  call expect_status(nf90_close(6488064), NF90_EBADID, &
       'NetCDF: Not a valid ID', 'close of a never-opened ncid')
  if (is_url) then
     call expect_status(nf90_open(trim(missing), NF90_NOWRITE, dummy), nc_enotfound, &
          'NetCDF: Some object not found', 'open of a missing store')
  else
     call expect_status(nf90_open(trim(missing), NF90_NOWRITE, dummy), enoent, &
          'No such file or directory', 'open of a missing file')
  end if

  if (nfail > 0) then
     print '(i0,a)', nfail, ' check(s) failed'
     stop 1
  end if
  print '(a)', 'PASS'

contains

  subroutine check_file_level()
    integer :: ndims, nv, natts, unlim, fmt, len, id, ids(10), nids, parents, i
    character(len=nf90_max_name) :: name
    character(len=*), parameter :: dnames(4) = [character(len=6) :: 'x', 'y', 'time', 'strlen']
    integer, parameter :: dlens(4) = [nx, ny, nt, nstr]

    call ok(nf90_inquire(ncid, ndims, nv, natts, unlim, fmt), 'inquire')
    call expect(ndims == 4, 'root has 4 dimensions, got ' // itoa(ndims))
    call expect(nv == nvars, 'root has 11 variables, got ' // itoa(nv))
    call expect(natts == 7, 'root has 7 attributes, got ' // itoa(natts))
    call expect(fmt == nf90_format_netcdf4, 'format netcdf4, got ' // itoa(fmt))
    call ok(nf90_inq_format(ncid, fmt), 'inq_format')
    call expect(fmt == nf90_format_netcdf4, 'inq_format netcdf4, got ' // itoa(fmt))
    do i = 1, 4
       id = dimid(ncid, trim(dnames(i)))
       call ok(nf90_inquire_dimension(ncid, id, name, len), 'inquire_dimension ' // trim(dnames(i)))
       call expect(name == dnames(i), 'dimension name ' // trim(name) // ' want ' // trim(dnames(i)))
       call expect(len == dlens(i), 'dimension ' // trim(dnames(i)) // ' length ' // itoa(len) // &
            ' want ' // itoa(dlens(i)))
       if (i == 3) call expect(unlim == id, 'unlimitedDimId is time')
    end do
    ! include_parents is intent(out) in netcdf-fortran's interface, but
    ! nf_inq_dimids reads it.
    parents = 0
    call ok(nf90_inq_dimids(ncid, nids, ids, parents), 'inq_dimids')
    call expect(nids == 4, 'inq_dimids: 4 dimensions in root, got ' // itoa(nids))
  end subroutine check_file_level

  ! Name, type, shape, attribute count, storage settings, fill value of
  ! each variable.
  subroutine check_variables()
    integer :: ids(nvars + 1), nv, vid, xtype, ndims, dimids(4), natts, deflate, endian, no_fill
    integer :: chunks(4), j, k
    logical :: contiguous, shuffle, fletcher32
    character(len=nf90_max_name) :: name
    real(real32) :: ffill
    real(real64) :: dfill
    integer :: ifill
    integer(int16) :: sfill
    integer(int8) :: bfill
    integer(int64) :: lfill
    integer :: want_type(nvars), want_ndims(nvars), want_natts(nvars), want_deflate(nvars)
    logical :: want_shuffle(nvars)
    character(len=6) :: want_dims(2, nvars)

    want_type = [NF90_FLOAT, NF90_DOUBLE, NF90_INT, NF90_SHORT, NF90_BYTE, NF90_CHAR, &
         NF90_INT64, NF90_UBYTE, NF90_FLOAT, NF90_INT, NF90_DOUBLE]
    want_ndims = [2, 2, 2, 1, 1, 2, 1, 1, 1, 1, 0]
    want_natts = [3, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0]
    want_deflate = [4, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0]
    want_shuffle = [.true., .false., .false., .false., .false., .false., .false., .false., .false., .false., .false.]
    want_dims(:, 1) = ['x     ', 'y     ']
    want_dims(:, 2) = ['x     ', 'time  ']
    want_dims(:, 3) = ['x     ', 'y     ']
    want_dims(:, 4) = ['x     ', '      ']
    want_dims(:, 5) = ['x     ', '      ']
    want_dims(:, 6) = ['strlen', 'y     ']
    want_dims(:, 7) = ['x     ', '      ']
    want_dims(:, 8) = ['x     ', '      ']
    want_dims(:, 9) = ['x     ', '      ']
    want_dims(:, 10) = ['time  ', '      ']
    want_dims(:, 11) = ['      ', '      ']

    ! Variables come back in definition order.
    call ok(nf90_inq_varids(ncid, nv, ids), 'inq_varids')
    call expect(nv == nvars, 'inq_varids count ' // itoa(nv))
    do k = 1, min(nv, nvars)
       vid = ids(k)
       call ok(nf90_inquire_variable(ncid, vid, name=name, xtype=xtype, ndims=ndims, dimids=dimids, &
            nAtts=natts, deflate_level=deflate, shuffle=shuffle, fletcher32=fletcher32), &
            'inquire_variable ' // trim(var_names(k)))
       call expect(name == var_names(k), 'variable ' // itoa(k) // ' is ' // trim(name) // &
            ', want ' // trim(var_names(k)))
       call expect(xtype == want_type(k), trim(name) // ' type ' // itoa(xtype))
       call expect(ndims == want_ndims(k), trim(name) // ' ndims ' // itoa(ndims))
       call expect(natts == want_natts(k), trim(name) // ' natts ' // itoa(natts) // ' want ' // itoa(want_natts(k)))
       call expect(deflate == want_deflate(k), trim(name) // ' deflate_level ' // itoa(deflate))
       call expect(shuffle .eqv. want_shuffle(k), trim(name) // ' shuffle')
       call expect(.not. fletcher32, trim(name) // ' fletcher32')
       do j = 1, min(ndims, 2)
          call expect(dimids(j) == dimid(ncid, trim(want_dims(j, k))), trim(name) // ' dimension ' // itoa(j) // &
               ' is not ' // trim(want_dims(j, k)))
       end do
    end do

    ! Chunking as defined.
    vid = varid(ncid, 'v_real')
    call ok(nf90_inquire_variable(ncid, vid, contiguous=contiguous, chunksizes=chunks), 'chunking v_real')
    call expect(.not. contiguous, 'v_real is chunked')
    call expect(all(chunks(1:2) == [3, 2]), 'v_real chunks (3,2), got ' // itoa(chunks(1)) // ',' // itoa(chunks(2)))
    vid = varid(ncid, 'v_double')
    call ok(nf90_inquire_variable(ncid, vid, contiguous=contiguous, chunksizes=chunks), 'chunking v_double')
    call expect(.not. contiguous, 'v_double is chunked')
    call expect(all(chunks(1:2) == [nx, 1]), 'v_double chunks (6,1), got ' // itoa(chunks(1)) // ',' // itoa(chunks(2)))
    vid = varid(ncid, 'v_rec_int')
    call ok(nf90_inquire_variable(ncid, vid, chunksizes=chunks), 'chunking v_rec_int')
    call expect(chunks(1) == 2, 'v_rec_int chunk 2, got ' // itoa(chunks(1)))

    ! Endianness.
    vid = varid(ncid, 'v_be')
    call ok(nf90_inquire_variable(ncid, vid, endianness=endian), 'endianness v_be')
    call expect(endian == NF90_ENDIAN_BIG, 'v_be is big-endian, got ' // itoa(endian))
    vid = varid(ncid, 'v_real')
    call ok(nf90_inquire_variable(ncid, vid, endianness=endian), 'endianness v_real')
    call expect(endian == NF90_ENDIAN_LITTLE, 'v_real is little-endian, got ' // itoa(endian))

    ! Fill values: the two set, and the defaults.
    call ok(nf90_inq_var_fill(ncid, varid(ncid, 'v_real'), no_fill, ffill), 'inq_var_fill v_real')
    call expect(no_fill == 0 .and. ffill == -999.0_real32, 'v_real fill -999')
    call ok(nf90_inq_var_fill(ncid, varid(ncid, 'v_int'), no_fill, ifill), 'inq_var_fill v_int')
    call expect(no_fill == 0 .and. ifill == -1, 'v_int fill -1, got ' // itoa(ifill))
    ! netcdf-c 4.10.1 (the reference run) writes the default double fill
    ! into .zarray as 9.96921e+36 (printf %g) and reads that back after
    ! its own writes; nczarr-rs keeps full precision, so it must answer
    ! NC_FILL_DOUBLE exactly.
    call ok(nf90_inq_var_fill(ncid, varid(ncid, 'v_double'), no_fill, dfill), 'inq_var_fill v_double')
    if (index(nf90_inq_libvers(), 'nczarr-rs') == 0) then
       call expect(no_fill == 0 .and. (dfill == nf90_fill_double .or. dfill == 9.96921e+36_real64), &
            'v_double default fill')
    else
       call expect(no_fill == 0 .and. dfill == nf90_fill_double, 'v_double default fill')
    end if
    call ok(nf90_inq_var_fill(ncid, varid(ncid, 'v_rec_int'), no_fill, ifill), 'inq_var_fill v_rec_int')
    call expect(no_fill == 0 .and. ifill == nf90_fill_int, 'v_rec_int default fill')
    call ok(nf90_inq_var_fill(ncid, varid(ncid, 'v_short'), no_fill, sfill), 'inq_var_fill v_short')
    call expect(no_fill == 0 .and. sfill == nf90_fill_short, 'v_short default fill')
    call ok(nf90_inq_var_fill(ncid, varid(ncid, 'v_byte'), no_fill, bfill), 'inq_var_fill v_byte')
    call expect(no_fill == 0 .and. bfill == nf90_fill_byte, 'v_byte default fill')
    call ok(nf90_inq_var_fill(ncid, varid(ncid, 'v_int64'), no_fill, lfill), 'inq_var_fill v_int64')
    call expect(no_fill == 0 .and. lfill == fill_int64, 'v_int64 default fill')
    call ok(nf90_inq_var_fill(ncid, varid(ncid, 'v_be'), no_fill, ffill), 'inq_var_fill v_be')
    call expect(no_fill == 0 .and. ffill == nf90_fill_float, 'v_be default fill')
  end subroutine check_variables

  ! Every attribute: the names listed by number, then type, length and
  ! value of each.
  subroutine check_attributes()
    character(len=*), parameter :: gnames(7) = [character(len=11) :: 'title', 'int_att', 'dbl_att', &
         'flt_att', 'short_att', 'byte_att', 'added_later']
    character(len=nf90_max_name) :: name
    logical :: seen(7)
    integer :: natts, attnum, m, k
    character(len=100) :: text
    integer :: ivals(3)
    real(real64) :: dvals(3)
    real(real32) :: fval, fvals(2)
    integer(int16) :: svals(2), sval
    integer(int8) :: bvals(3)

    call ok(nf90_inquire(ncid, nAttributes=natts), 'inquire natts')
    seen = .false.
    do k = 1, natts
       call ok(nf90_inq_attname(ncid, NF90_GLOBAL, k, name), 'inq_attname ' // itoa(k))
       m = findloc(gnames, trim(name), dim=1)
       if (m == 0) then
          call fail('unexpected global attribute ' // trim(name))
       else
          call expect(.not. seen(m), 'global attribute listed twice: ' // trim(name))
          seen(m) = .true.
          call ok(nf90_inquire_attribute(ncid, NF90_GLOBAL, trim(name), attnum=attnum), 'attnum ' // trim(name))
          call expect(attnum == k, 'attnum of ' // trim(name) // ' is ' // itoa(attnum) // ', want ' // itoa(k))
       end if
    end do
    call expect(all(seen), 'every global attribute listed')

    call check_att(ncid, NF90_GLOBAL, 'title', NF90_CHAR, 25)
    call ok(nf90_get_att(ncid, NF90_GLOBAL, 'title', text), 'get title')
    call expect(text == 'nczarr-rs Fortran 90 test', 'title = "' // trim(text) // '"')
    call check_att(ncid, NF90_GLOBAL, 'added_later', NF90_CHAR, 3)
    call ok(nf90_get_att(ncid, NF90_GLOBAL, 'added_later', text), 'get added_later')
    call expect(text == 'yes', 'added_later = "' // trim(text) // '"')
    call check_att(ncid, NF90_GLOBAL, 'int_att', NF90_INT, 3)
    call ok(nf90_get_att(ncid, NF90_GLOBAL, 'int_att', ivals), 'get int_att')
    call expect(all(ivals == [1, -2, 3]), 'int_att values')
    call check_att(ncid, NF90_GLOBAL, 'dbl_att', NF90_DOUBLE, 3)
    call ok(nf90_get_att(ncid, NF90_GLOBAL, 'dbl_att', dvals), 'get dbl_att')
    call expect(all(dvals == [1.5_real64, -2.25_real64, 1.0e300_real64]), 'dbl_att values')
    call check_att(ncid, NF90_GLOBAL, 'flt_att', NF90_FLOAT, 1)
    call ok(nf90_get_att(ncid, NF90_GLOBAL, 'flt_att', fval), 'get flt_att')
    call expect(fval == 0.5_real32, 'flt_att value')
    call check_att(ncid, NF90_GLOBAL, 'short_att', NF90_SHORT, 2)
    call ok(nf90_get_att(ncid, NF90_GLOBAL, 'short_att', svals), 'get short_att')
    call expect(all(svals == [-7_int16, 7_int16]), 'short_att values')
    call check_att(ncid, NF90_GLOBAL, 'byte_att', NF90_BYTE, 3)
    call ok(nf90_get_att(ncid, NF90_GLOBAL, 'byte_att', bvals), 'get byte_att')
    call expect(all(bvals == [-1_int8, 1_int8, 2_int8]), 'byte_att values')
    ! A numeric attribute read through another type converts.
    call ok(nf90_get_att(ncid, NF90_GLOBAL, 'short_att', dvals(1:2)), 'get short_att as double')
    call expect(all(dvals(1:2) == [-7.0_real64, 7.0_real64]), 'short_att as double')

    ! Variable attributes.
    call check_att(ncid, varid(ncid, 'v_real'), 'units', NF90_CHAR, 1)
    call ok(nf90_get_att(ncid, varid(ncid, 'v_real'), 'units', text), 'get units')
    call expect(text == 'K', 'units = "' // trim(text) // '"')
    call check_att(ncid, varid(ncid, 'v_real'), 'valid_range', NF90_FLOAT, 2)
    call ok(nf90_get_att(ncid, varid(ncid, 'v_real'), 'valid_range', fvals), 'get valid_range')
    call expect(all(fvals == [-1000.0_real32, 1000.0_real32]), 'valid_range values')
    call check_att(ncid, varid(ncid, 'v_real'), '_FillValue', NF90_FLOAT, 1)
    call ok(nf90_get_att(ncid, varid(ncid, 'v_real'), '_FillValue', fval), 'get v_real _FillValue')
    call expect(fval == -999.0_real32, 'v_real _FillValue value')
    call check_att(ncid, varid(ncid, 'v_int'), '_FillValue', NF90_INT, 1)
    call ok(nf90_get_att(ncid, varid(ncid, 'v_int'), '_FillValue', ivals(1)), 'get v_int _FillValue')
    call expect(ivals(1) == -1, 'v_int _FillValue value')
    call check_att(ncid, varid(ncid, 'v_double'), 'long_name', NF90_CHAR, 11)
    call ok(nf90_get_att(ncid, varid(ncid, 'v_double'), 'long_name', text), 'get long_name')
    call expect(text == 'record data', 'long_name = "' // trim(text) // '"')
    call check_att(ncid, varid(ncid, 'v_short'), 'valid_min', NF90_SHORT, 1)
    call ok(nf90_get_att(ncid, varid(ncid, 'v_short'), 'valid_min', sval), 'get valid_min')
    call expect(sval == -5000_int16, 'valid_min value')
    call expect_status(nf90_inquire_attribute(ncid, NF90_GLOBAL, 'no_such_att'), NF90_ENOTATT, &
         'NetCDF: Attribute not found', 'inquire of a missing attribute')
  end subroutine check_attributes

  subroutine check_data()
    integer :: vid, t
    ! Whole arrays.
    rr = 0
    call ok(nf90_get_var(ncid, varid(ncid, 'v_real'), rr), 'get v_real')
    call expect(all(rr == r), 'v_real values')
    dd = 0
    call ok(nf90_get_var(ncid, varid(ncid, 'v_double'), dd), 'get v_double')
    call expect(all(dd == d), 'v_double values')
    nn = 0
    call ok(nf90_get_var(ncid, varid(ncid, 'v_int'), nn), 'get v_int')
    call expect(all(nn == n), 'v_int values (written with stride 2, the rest fill -1)')
    ss = 0
    call ok(nf90_get_var(ncid, varid(ncid, 'v_short'), ss), 'get v_short')
    call expect(all(ss == s), 'v_short values')
    bb = 0
    call ok(nf90_get_var(ncid, varid(ncid, 'v_byte'), bb), 'get v_byte')
    call expect(all(bb == b), 'v_byte values')
    cc = ''
    call ok(nf90_get_var(ncid, varid(ncid, 'v_char'), cc), 'get v_char')
    call expect(all(cc == c), 'v_char values')
    ll = 0
    call ok(nf90_get_var(ncid, varid(ncid, 'v_int64'), ll), 'get v_int64')
    call expect(all(ll == l), 'v_int64 values')
    uub = 0
    call ok(nf90_get_var(ncid, varid(ncid, 'v_ubyte'), uub), 'get v_ubyte')
    call expect(all(uub == ub), 'v_ubyte values')
    bbe = 0
    call ok(nf90_get_var(ncid, varid(ncid, 'v_be'), bbe), 'get v_be')
    call expect(all(bbe == be), 'v_be values')
    dval = 0
    call ok(nf90_get_var(ncid, varid(ncid, 'v_scalar'), dval), 'get v_scalar')
    call expect(dval == pi, 'v_scalar value')
    ! v_rec_int: records 1 and 2 written, record 3 is the default fill.
    recint = 0
    call ok(nf90_get_var(ncid, varid(ncid, 'v_rec_int'), recint), 'get v_rec_int')
    call expect(all(recint == [11, 22, nf90_fill_int]), 'v_rec_int values (record 3 is fill)')

    ! Slices, strides, single values, a record, a mapped (transposed) read.
    vid = varid(ncid, 'v_real')
    rsub = 0
    call ok(nf90_get_var(ncid, vid, rsub, start=[2, 2], count=[3, 2]), 'get v_real slice')
    call expect(all(rsub == r(2:4, 2:3)), 'v_real slice (2:4,2:3)')
    r1 = 0
    call ok(nf90_get_var(ncid, vid, r1, start=[5, 3]), 'get v_real (5,3)')
    call expect(r1 == r(5, 3), 'v_real (5,3)')
    rt = 0
    call ok(nf90_get_var(ncid, vid, rt, start=[1, 1], count=[nx, ny], map=[ny, 1]), 'get v_real mapped')
    call expect(all(rt == transpose(r)), 'v_real read transposed through map')
    vid = varid(ncid, 'v_int')
    nstrided = 0
    call ok(nf90_get_var(ncid, vid, nstrided, start=[1, 1], count=[3, ny], stride=[2, 1]), 'get v_int strided')
    call expect(all(nstrided == n(1:nx:2, :)), 'v_int strided read')
    call ok(nf90_get_var(ncid, vid, nstrided(:, 1:2), start=[2, 1], count=[3, 2], stride=[2, 3]), 'get v_int strided 2')
    call expect(all(nstrided(:, 1:2) == n(2:nx:2, 1:ny:3)), 'v_int strided read of fill and (6,4)')
    n1 = 0
    call ok(nf90_get_var(ncid, vid, n1, start=[6, 4]), 'get v_int (6,4)')
    call expect(n1 == 7777, 'v_int (6,4) = 7777, got ' // itoa(n1))
    vid = varid(ncid, 'v_double')
    do t = nt, 1, -1
       drec = 0
       call ok(nf90_get_var(ncid, vid, drec, start=[1, t], count=[nx, 1]), 'get v_double record')
       call expect(all(drec == d(:, t)), 'v_double record ' // itoa(t))
    end do
    c1 = ''
    call ok(nf90_get_var(ncid, varid(ncid, 'v_char'), c1, start=[1, 4], count=[nstr, 1]), 'get v_char(4)')
    call expect(c1(1) == 'deltaXYZ', 'v_char(4) = "' // c1(1) // '"')
    call ok(nf90_get_var(ncid, varid(ncid, 'v_char'), c1, start=[1, 2], count=[nstr, 1]), 'get v_char(2)')
    call expect(c1(1) == 'beta', 'v_char(2) = "' // c1(1) // '"')
  end subroutine check_data

  subroutine check_groups()
    integer :: ngrps, grps(4), gid, sid, parent, len, ndims, nv, natts, ids(10), nids, parents
    integer :: vid, xtype, dimids(2), level
    character(len=nf90_max_name) :: name
    character(len=100) :: text

    call ok(nf90_inq_grps(ncid, ngrps, grps), 'inq_grps root')
    call expect(ngrps == 1, 'root has 1 group, got ' // itoa(ngrps))
    call ok(nf90_inq_grpname(grps(1), name), 'inq_grpname')
    call expect(name == 'grp1', 'group name ' // trim(name))
    call ok(nf90_inq_grp_ncid(ncid, 'grp1', gid), 'inq_grp_ncid grp1')
    call expect(gid == grps(1), 'inq_grp_ncid matches inq_grps')
    call ok(nf90_inq_grpname(ncid, name), 'inq_grpname root')
    call expect(name == '/', 'root group name ' // trim(name))

    call ok(nf90_inquire(gid, ndims, nv, natts), 'inquire grp1')
    call expect(ndims == 1 .and. nv == 1 .and. natts == 1, 'grp1 has 1 dimension, 1 variable, 1 attribute')
    parents = 0
    call ok(nf90_inq_dimids(gid, nids, ids, parents), 'inq_dimids grp1')
    call expect(nids == 1, 'grp1 defines 1 dimension, got ' // itoa(nids))
    call expect(ids(1) == dimid(gid, 'z'), 'grp1 dimension is z')
    call ok(nf90_inquire_dimension(gid, dimid(gid, 'z'), name, len), 'inquire_dimension z')
    call expect(name == 'z' .and. len == nz, 'dimension z length 3')
    ! x is visible from the group.
    call expect(dimid(gid, 'x') == dimid(ncid, 'x'), 'x seen from grp1 is the root x')
    call check_att(gid, NF90_GLOBAL, 'description', NF90_CHAR, 11)
    call ok(nf90_get_att(gid, NF90_GLOBAL, 'description', text), 'get description')
    call expect(text == 'first group', 'description = "' // trim(text) // '"')

    vid = varid(gid, 'g_var')
    call ok(nf90_inquire_variable(gid, vid, name=name, xtype=xtype, ndims=ndims, dimids=dimids), 'inquire g_var')
    call expect(name == 'g_var' .and. xtype == NF90_INT .and. ndims == 2, 'g_var is int(z, x)')
    call expect(dimids(1) == dimid(gid, 'z') .and. dimids(2) == dimid(ncid, 'x'), 'g_var dimensions (z, x)')
    gg = 0
    call ok(nf90_get_var(gid, vid, gg), 'get g_var')
    call expect(all(gg == g), 'g_var values')
    call expect_status(nf90_inq_varid(ncid, 'g_var', dummy), NF90_ENOTVAR, &
         'NetCDF: Variable not found', 'g_var is not in the root group')

    call ok(nf90_inq_grps(gid, ngrps, grps), 'inq_grps grp1')
    call expect(ngrps == 1, 'grp1 has 1 group')
    call ok(nf90_inq_grp_full_ncid(ncid, '/grp1/sub', sid), 'inq_grp_full_ncid /grp1/sub')
    call expect(sid == grps(1), 'inq_grp_full_ncid matches inq_grps')
    call ok(nf90_inq_grpname_full(sid, len, name), 'inq_grpname_full')
    call expect(name(1:len) == '/grp1/sub', 'full name ' // name(1:len))
    call ok(nf90_inq_grp_parent(sid, parent), 'inq_grp_parent')
    call expect(parent == gid, 'parent of sub is grp1')
    call ok(nf90_get_att(sid, NF90_GLOBAL, 'level', level), 'get level')
    call expect(level == 2, 'level = 2')
    call ok(nf90_inq_grps(sid, ngrps, grps), 'inq_grps sub')
    call expect(ngrps == 0, 'sub has no groups')
    call expect_status(nf90_inq_grp_parent(ncid, parent), NF90_ENOGRP, &
         'NetCDF: No group found.', 'parent of the root group')
  end subroutine check_groups

end program nf90_roundtrip
