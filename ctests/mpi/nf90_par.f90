! Parallel I/O through netcdf-fortran's Fortran 90 API (module netcdf),
! built against the parallel install (ctests/mpi/netcdf_fortran.sh), over
! the parallel library: nf90_create and nf90_open with comm= and info=
! (nf_create_par -> nc_create_par_fortran, nf_open_par ->
! nc_open_par_fortran) and nf90_var_par_access.
!
! Usage: mpirun -np N nf90_par URL   (URL an NCZarr store, e.g.
!        file:///abs/f90par.zarr#mode=nczarr,file)
!
! On N ranks, in Fortran order (C order is the reverse):
!   temp(x, y)   float, NX x 3N, deflate level 4 and shuffle, collective
!   count(x, y)  int, NX x 3N, independent
!   rec(t)       double along the unlimited dimension t (independent: the
!                default access)
! temp and count are in chunks of 3 x 4: rank r writes rows 3r+1..3r+3, so
! every chunk's rows belong to two ranks (the library's two-phase exchange
! assembles them). Rank r writes records 2r+1 and 2r+2, so the ranks end
! the unlimited dimension at different lengths and the store has the
! longest, 2N. Every rank then reopens the store in parallel and checks
! every value, the dimensions, the variables' types, shapes, chunks and
! filters, the attributes, and that the library is nczarr-rs. The values
! are repeated in ctests/mpi/check_nf90_par.py, which checks the store
! afterwards.
!
! Any failed check prints the rank and what failed, then MPI_Abort: a
! rank that stopped alone would leave the others waiting in a collective
! call.
module par_checks
  use mpi
  use netcdf
  implicit none
  integer :: rank = -1

contains

  subroutine die(msg)
    character(len=*), intent(in) :: msg
    integer :: ierr
    write (*, '(a,i0,2a)') 'nf90_par: rank ', rank, ': FAIL: ', msg
    flush (6)
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
    error stop 1
  end subroutine die

  ! A call that must succeed.
  subroutine ok(status, what)
    integer, intent(in) :: status
    character(len=*), intent(in) :: what
    if (status /= nf90_noerr) call die(what // ': status ' // itoa(status) // ' (' // &
         trim(nf90_strerror(status)) // ')')
  end subroutine ok

  ! A call that must fail with exactly `want`.
  subroutine fails(status, want, what)
    integer, intent(in) :: status, want
    character(len=*), intent(in) :: what
    if (status /= want) call die(what // ': status ' // itoa(status) // ' (' // &
         trim(nf90_strerror(status)) // '), expected ' // itoa(want) // ' (' // &
         trim(nf90_strerror(want)) // ')')
  end subroutine fails

  subroutine expect(cond, what)
    logical, intent(in) :: cond
    character(len=*), intent(in) :: what
    if (.not. cond) call die(what)
  end subroutine expect

  function itoa(v) result(str)
    integer, intent(in) :: v
    character(len=:), allocatable :: str
    character(len=16) :: buf
    write (buf, '(i0)') v
    str = trim(buf)
  end function itoa

  ! The values, x and y counted from 1 (the checker has the same formulas).
  real function temp_at(x, y)
    integer, intent(in) :: x, y
    temp_at = real(100 * (y - 1) + (x - 1)) + 0.25
  end function temp_at

  integer function count_at(x, y)
    integer, intent(in) :: x, y
    ! 10000 times the rank that wrote the row, so a row from the wrong
    ! rank's slab shows.
    count_at = 10000 * ((y - 1) / 3) + 100 * (y - 1) + (x - 1)
  end function count_at

  double precision function rec_at(t)
    integer, intent(in) :: t
    rec_at = 10 * (t - 1) + 0.5d0
  end function rec_at

end module par_checks

program nf90_par
  use mpi
  use netcdf
  use par_checks
  implicit none
  integer, parameter :: NX = 6, ROWS = 3, XCHUNK = 3, YCHUNK = 4, RECS = 2
  character(len=*), parameter :: TITLE = 'nczarr-rs nf90 parallel test'
  character(len=4096) :: url
  character(len=64) :: text
  integer :: ierr, nranks, ny, nt, ncid, xdim, ydim, tdim, temp_id, count_id, rec_id, x, y, t, y0
  integer :: ndims, nvars, natts, unlim, fmt, dlen, xtype, deflate, iatt, chunks(2), dimids(2)
  logical :: shuffle, contiguous
  real :: slab_temp(NX, ROWS), vrange(2)
  integer :: slab_count(NX, ROWS)
  double precision :: slab_rec(RECS)
  real, allocatable :: all_temp(:, :)
  integer, allocatable :: all_count(:, :)
  double precision, allocatable :: all_rec(:)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  if (command_argument_count() /= 1) call die('usage: nf90_par URL')
  call get_command_argument(1, url)
  ny = ROWS * nranks
  nt = RECS * nranks
  y0 = ROWS * rank   ! this rank's rows are y0+1 .. y0+ROWS
  call expect(index(nf90_inq_libvers(), 'nczarr-rs') > 0, &
       'the library is not nczarr-rs: ' // trim(nf90_inq_libvers()))

  ! ---- write ----
  ! NF90_MPIIO: the flag netcdf-c once required for parallel access, still
  ! accepted (and ignored) by netcdf-c and by us.
  call ok(nf90_create(trim(url), ior(ior(NF90_NETCDF4, NF90_CLOBBER), NF90_MPIIO), ncid, &
       comm=MPI_COMM_WORLD, info=MPI_INFO_NULL), 'nf90_create')
  call ok(nf90_def_dim(ncid, 'x', NX, xdim), 'nf90_def_dim x')
  call ok(nf90_def_dim(ncid, 'y', ny, ydim), 'nf90_def_dim y')
  call ok(nf90_def_dim(ncid, 't', NF90_UNLIMITED, tdim), 'nf90_def_dim t')
  call ok(nf90_def_var(ncid, 'temp', NF90_FLOAT, (/ xdim, ydim /), temp_id, &
       chunksizes=(/ XCHUNK, YCHUNK /), deflate_level=4, shuffle=.true.), 'nf90_def_var temp')
  call ok(nf90_def_var(ncid, 'count', NF90_INT, (/ xdim, ydim /), count_id, &
       chunksizes=(/ XCHUNK, YCHUNK /)), 'nf90_def_var count')
  call ok(nf90_def_var(ncid, 'rec', NF90_DOUBLE, (/ tdim /), rec_id), 'nf90_def_var rec')
  call ok(nf90_put_att(ncid, NF90_GLOBAL, 'title', TITLE), 'nf90_put_att title')
  call ok(nf90_put_att(ncid, NF90_GLOBAL, 'nranks', nranks), 'nf90_put_att nranks')
  call ok(nf90_put_att(ncid, temp_id, 'units', 'K'), 'nf90_put_att units')
  call ok(nf90_put_att(ncid, temp_id, 'valid_range', (/ -1.5, 1.0e4 /)), 'nf90_put_att valid_range')
  call ok(nf90_enddef(ncid), 'nf90_enddef')

  call ok(nf90_var_par_access(ncid, temp_id, nf90_collective), 'nf90_var_par_access temp collective')
  call ok(nf90_var_par_access(ncid, count_id, nf90_independent), 'nf90_var_par_access count independent')
  ! A misuse: the library's status comes back through netcdf-fortran.
  call fails(nf90_var_par_access(ncid, 9999, nf90_collective), NF90_ENOTVAR, &
       'nf90_var_par_access of varid 9999')

  do y = 1, ROWS
     do x = 1, NX
        slab_temp(x, y) = temp_at(x, y0 + y)
        slab_count(x, y) = count_at(x, y0 + y)
     end do
  end do
  do t = 1, RECS
     slab_rec(t) = rec_at(RECS * rank + t)
  end do
  ! Collective: every rank makes the call.
  call ok(nf90_put_var(ncid, temp_id, slab_temp, start=(/ 1, y0 + 1 /), count=(/ NX, ROWS /)), &
       'nf90_put_var temp')
  call ok(nf90_put_var(ncid, count_id, slab_count, start=(/ 1, y0 + 1 /), count=(/ NX, ROWS /)), &
       'nf90_put_var count')
  call ok(nf90_put_var(ncid, rec_id, slab_rec, start=(/ RECS * rank + 1 /), count=(/ RECS /)), &
       'nf90_put_var rec')
  call ok(nf90_close(ncid), 'nf90_close')

  ! ---- read back on every rank ----
  call ok(nf90_open(trim(url), NF90_NOWRITE, ncid, comm=MPI_COMM_WORLD, info=MPI_INFO_NULL), &
       'nf90_open')
  call ok(nf90_inquire(ncid, nDimensions=ndims, nVariables=nvars, nAttributes=natts, &
       unlimitedDimId=unlim, formatNum=fmt), 'nf90_inquire')
  call expect(ndims == 3 .and. nvars == 3 .and. natts == 2, 'dimensions, variables, attributes: ' // &
       itoa(ndims) // ' ' // itoa(nvars) // ' ' // itoa(natts) // ', expected 3 3 2')
  call expect(fmt == NF90_FORMAT_NETCDF4, 'format ' // itoa(fmt))
  ! By name: a store need not list its objects in the order defined.
  call ok(nf90_inq_dimid(ncid, 'x', xdim), 'nf90_inq_dimid x')
  call ok(nf90_inq_dimid(ncid, 'y', ydim), 'nf90_inq_dimid y')
  call ok(nf90_inq_dimid(ncid, 't', tdim), 'nf90_inq_dimid t')
  call expect(unlim == tdim, 'the unlimited dimension is ' // itoa(unlim) // ', not t')
  call ok(nf90_inquire_dimension(ncid, xdim, len=dlen), 'nf90_inquire_dimension x')
  call expect(dlen == NX, 'x has length ' // itoa(dlen))
  call ok(nf90_inquire_dimension(ncid, ydim, len=dlen), 'nf90_inquire_dimension y')
  call expect(dlen == ny, 'y has length ' // itoa(dlen))
  call ok(nf90_inquire_dimension(ncid, tdim, len=dlen), 'nf90_inquire_dimension t')
  call expect(dlen == nt, 't has length ' // itoa(dlen) // ', expected the longest any rank wrote, ' // itoa(nt))

  call ok(nf90_get_att(ncid, NF90_GLOBAL, 'title', text), 'nf90_get_att title')
  call expect(text == TITLE, 'title is "' // trim(text) // '"')
  call ok(nf90_get_att(ncid, NF90_GLOBAL, 'nranks', iatt), 'nf90_get_att nranks')
  call expect(iatt == nranks, 'nranks is ' // itoa(iatt))

  call ok(nf90_inq_varid(ncid, 'temp', temp_id), 'nf90_inq_varid temp')
  call ok(nf90_inq_varid(ncid, 'count', count_id), 'nf90_inq_varid count')
  call ok(nf90_inq_varid(ncid, 'rec', rec_id), 'nf90_inq_varid rec')
  call ok(nf90_inquire_variable(ncid, temp_id, xtype=xtype, ndims=ndims, dimids=dimids, nAtts=natts, &
       contiguous=contiguous, chunksizes=chunks, deflate_level=deflate, shuffle=shuffle), &
       'nf90_inquire_variable temp')
  call expect(xtype == NF90_FLOAT .and. ndims == 2 .and. all(dimids == (/ xdim, ydim /)) .and. natts == 2, &
       'temp: type, shape or number of attributes')
  call expect(.not. contiguous .and. all(chunks == (/ XCHUNK, YCHUNK /)), &
       'temp: chunks ' // itoa(chunks(1)) // ' x ' // itoa(chunks(2)))
  call expect(deflate == 4 .and. shuffle, 'temp: deflate level ' // itoa(deflate) // ' or no shuffle')
  call ok(nf90_get_att(ncid, temp_id, 'units', text), 'nf90_get_att units')
  call expect(text == 'K', 'temp:units is "' // trim(text) // '"')
  call ok(nf90_get_att(ncid, temp_id, 'valid_range', vrange), 'nf90_get_att valid_range')
  call expect(vrange(1) == -1.5 .and. vrange(2) == 1.0e4, 'temp:valid_range')
  call ok(nf90_inquire_variable(ncid, count_id, xtype=xtype, dimids=dimids, chunksizes=chunks, &
       deflate_level=deflate, shuffle=shuffle), 'nf90_inquire_variable count')
  call expect(xtype == NF90_INT .and. all(dimids == (/ xdim, ydim /)) .and. all(chunks == (/ XCHUNK, YCHUNK /)) &
       .and. deflate == 0 .and. .not. shuffle, 'count: type, shape, chunks or filters')
  call ok(nf90_inquire_variable(ncid, rec_id, xtype=xtype, ndims=ndims, dimids=dimids(1:1)), &
       'nf90_inquire_variable rec')
  call expect(xtype == NF90_DOUBLE .and. ndims == 1 .and. dimids(1) == tdim, 'rec: type or shape')

  ! Every value, temp read collectively, the others independently.
  call ok(nf90_var_par_access(ncid, temp_id, nf90_collective), 'nf90_var_par_access temp (read)')
  allocate (all_temp(NX, ny), all_count(NX, ny), all_rec(nt))
  call ok(nf90_get_var(ncid, temp_id, all_temp), 'nf90_get_var temp')
  call ok(nf90_get_var(ncid, count_id, all_count), 'nf90_get_var count')
  call ok(nf90_get_var(ncid, rec_id, all_rec), 'nf90_get_var rec')
  do y = 1, ny
     do x = 1, NX
        call expect(all_temp(x, y) == temp_at(x, y), 'temp(' // itoa(x) // ', ' // itoa(y) // ')')
        call expect(all_count(x, y) == count_at(x, y), 'count(' // itoa(x) // ', ' // itoa(y) // ') = ' // &
             itoa(all_count(x, y)) // ', expected ' // itoa(count_at(x, y)))
     end do
  end do
  do t = 1, nt
     call expect(all_rec(t) == rec_at(t), 'rec(' // itoa(t) // ')')
  end do
  call ok(nf90_close(ncid), 'nf90_close (read)')

  if (rank == 0) write (*, '(3a,i0,a)') 'nf90_par ', trim(url), ': ', nranks, ' ranks: ok'
  call MPI_Finalize(ierr)
end program nf90_par
