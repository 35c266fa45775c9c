//! netCDF error codes and their messages.
//!
//! Every fallible operation in the crate returns [`NcResult`]; the C layer
//! turns the error into the plain `int` netcdf-c callers expect.

use std::ffi::CStr;

/// A netCDF status code (always negative for library errors, or a positive
/// `errno` value for system errors).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NcError(pub i32);

pub type NcResult<T> = Result<T, NcError>;

/// The numeric codes, named as in `netcdf.h`.
pub mod code {
    pub const NC_NOERR: i32 = 0;
    pub const NC2_ERR: i32 = -1;
    pub const NC_SYSERR: i32 = -31;
    pub const NC_EXDR: i32 = -32;
    pub const NC_EBADID: i32 = -33;
    pub const NC_ENFILE: i32 = -34;
    pub const NC_EEXIST: i32 = -35;
    pub const NC_EINVAL: i32 = -36;
    pub const NC_EPERM: i32 = -37;
    pub const NC_ENOTINDEFINE: i32 = -38;
    pub const NC_EINDEFINE: i32 = -39;
    pub const NC_EINVALCOORDS: i32 = -40;
    pub const NC_EMAXDIMS: i32 = -41;
    pub const NC_ENAMEINUSE: i32 = -42;
    pub const NC_ENOTATT: i32 = -43;
    pub const NC_EMAXATTS: i32 = -44;
    pub const NC_EBADTYPE: i32 = -45;
    pub const NC_EBADDIM: i32 = -46;
    pub const NC_EUNLIMPOS: i32 = -47;
    pub const NC_EMAXVARS: i32 = -48;
    pub const NC_ENOTVAR: i32 = -49;
    pub const NC_EGLOBAL: i32 = -50;
    pub const NC_ENOTNC: i32 = -51;
    pub const NC_ESTS: i32 = -52;
    pub const NC_EMAXNAME: i32 = -53;
    pub const NC_EUNLIMIT: i32 = -54;
    pub const NC_ENORECVARS: i32 = -55;
    pub const NC_ECHAR: i32 = -56;
    pub const NC_EEDGE: i32 = -57;
    pub const NC_ESTRIDE: i32 = -58;
    pub const NC_EBADNAME: i32 = -59;
    pub const NC_ERANGE: i32 = -60;
    pub const NC_ENOMEM: i32 = -61;
    pub const NC_EVARSIZE: i32 = -62;
    pub const NC_EDIMSIZE: i32 = -63;
    pub const NC_ETRUNC: i32 = -64;
    pub const NC_EAXISTYPE: i32 = -65;
    pub const NC_EDAP: i32 = -66;
    pub const NC_ECURL: i32 = -67;
    pub const NC_EIO: i32 = -68;
    pub const NC_ENODATA: i32 = -69;
    pub const NC_EDAPSVC: i32 = -70;
    pub const NC_EDAS: i32 = -71;
    pub const NC_EDDS: i32 = -72;
    pub const NC_EDATADDS: i32 = -73;
    pub const NC_EDAPURL: i32 = -74;
    pub const NC_EURL: i32 = NC_EDAPURL;
    pub const NC_EDAPCONSTRAINT: i32 = -75;
    pub const NC_ETRANSLATION: i32 = -76;
    pub const NC_EACCESS: i32 = -77;
    pub const NC_EAUTH: i32 = -78;
    pub const NC_ENOTFOUND: i32 = -90;
    pub const NC_ECANTREMOVE: i32 = -91;
    pub const NC_EINTERNAL: i32 = -92;
    pub const NC_EPNETCDF: i32 = -93;
    pub const NC_EHDFERR: i32 = -101;
    pub const NC_ECANTREAD: i32 = -102;
    pub const NC_ECANTWRITE: i32 = -103;
    pub const NC_ECANTCREATE: i32 = -104;
    pub const NC_EFILEMETA: i32 = -105;
    pub const NC_EDIMMETA: i32 = -106;
    pub const NC_EATTMETA: i32 = -107;
    pub const NC_EVARMETA: i32 = -108;
    pub const NC_ENOCOMPOUND: i32 = -109;
    pub const NC_EATTEXISTS: i32 = -110;
    pub const NC_ENOTNC4: i32 = -111;
    pub const NC_ESTRICTNC3: i32 = -112;
    pub const NC_ENOTNC3: i32 = -113;
    pub const NC_ENOPAR: i32 = -114;
    pub const NC_EPARINIT: i32 = -115;
    pub const NC_EBADGRPID: i32 = -116;
    pub const NC_EBADTYPID: i32 = -117;
    pub const NC_ETYPDEFINED: i32 = -118;
    pub const NC_EBADFIELD: i32 = -119;
    pub const NC_EBADCLASS: i32 = -120;
    pub const NC_EMAPTYPE: i32 = -121;
    pub const NC_ELATEFILL: i32 = -122;
    pub const NC_ELATEDEF: i32 = -123;
    pub const NC_EDIMSCALE: i32 = -124;
    pub const NC_ENOGRP: i32 = -125;
    pub const NC_ESTORAGE: i32 = -126;
    pub const NC_EBADCHUNK: i32 = -127;
    pub const NC_ENOTBUILT: i32 = -128;
    pub const NC_EDISKLESS: i32 = -129;
    pub const NC_ECANTEXTEND: i32 = -130;
    pub const NC_EMPI: i32 = -131;
    pub const NC_EFILTER: i32 = -132;
    pub const NC_ERCFILE: i32 = -133;
    pub const NC_ENULLPAD: i32 = -134;
    pub const NC_EINMEMORY: i32 = -135;
    pub const NC_ENOFILTER: i32 = -136;
    pub const NC_ENCZARR: i32 = -137;
    pub const NC_ES3: i32 = -138;
    pub const NC_EEMPTY: i32 = -139;
    pub const NC_EOBJECT: i32 = -140;
    pub const NC_ENOOBJECT: i32 = -141;
    pub const NC_EPLUGIN: i32 = -142;
}

macro_rules! named_errors {
    ($($name:ident = $code:ident),* $(,)?) => {
        impl NcError {
            $(pub const $name: NcError = NcError(code::$code);)*
        }
    };
}

named_errors! {
    EBADID = NC_EBADID, ENFILE = NC_ENFILE, EEXIST = NC_EEXIST, EINVAL = NC_EINVAL, EPERM = NC_EPERM,
    ENOTINDEFINE = NC_ENOTINDEFINE, EINDEFINE = NC_EINDEFINE, ENAMEINUSE = NC_ENAMEINUSE,
    ENOTATT = NC_ENOTATT, EBADTYPE = NC_EBADTYPE, EBADDIM = NC_EBADDIM, EUNLIMPOS = NC_EUNLIMPOS,
    ENOTVAR = NC_ENOTVAR, EGLOBAL = NC_EGLOBAL, ENOTNC = NC_ENOTNC, EMAXNAME = NC_EMAXNAME,
    EUNLIMIT = NC_EUNLIMIT, ECHAR = NC_ECHAR, EBADNAME = NC_EBADNAME, ERANGE = NC_ERANGE,
    ENOMEM = NC_ENOMEM, EDIMSIZE = NC_EDIMSIZE, EIO = NC_EIO, EURL = NC_EURL, EACCESS = NC_EACCESS,
    EAUTH = NC_EAUTH, EINTERNAL = NC_EINTERNAL, EATTMETA = NC_EATTMETA, ESTRICTNC3 = NC_ESTRICTNC3,
    EBADGRPID = NC_EBADGRPID, EBADTYPID = NC_EBADTYPID, ELATEFILL = NC_ELATEFILL,
    ELATEDEF = NC_ELATEDEF, ENOGRP = NC_ENOGRP, EBADCHUNK = NC_EBADCHUNK, ENOTBUILT = NC_ENOTBUILT,
    EMAXDIMS = NC_EMAXDIMS, ENCZARR = NC_ENCZARR, EEMPTY = NC_EEMPTY, EOBJECT = NC_EOBJECT,
    ENOOBJECT = NC_ENOOBJECT, ENOTNC4 = NC_ENOTNC4, ESTORAGE = NC_ESTORAGE, ENOFILTER = NC_ENOFILTER,
    EFILTER = NC_EFILTER, EINVALCOORDS = NC_EINVALCOORDS, EEDGE = NC_EEDGE, ESTRIDE = NC_ESTRIDE,
    ES3 = NC_ES3, ENOTFOUND = NC_ENOTFOUND,
}

impl NcError {
    /// An I/O error from the operating system, mapped as netcdf-c's file map
    /// does: a missing object is NC_ENOOBJECT, a permission problem NC_EAUTH,
    /// anything else the raw errno (netCDF reports system errors as positive
    /// codes) or NC_EIO when there is none.
    pub fn from_io(err: &std::io::Error) -> NcError {
        use std::io::ErrorKind;
        match err.kind() {
            ErrorKind::NotFound => NcError::ENOOBJECT,
            ErrorKind::PermissionDenied => NcError::EAUTH,
            ErrorKind::OutOfMemory => NcError::ENOMEM,
            _ => match err.raw_os_error() {
                Some(errno) if errno > 0 => NcError(errno),
                _ => NcError::EIO,
            },
        }
    }
}

/// The message `nc_strerror` returns for a library (negative) code, or
/// `None` for codes netCDF does not define.
pub fn library_message(status: i32) -> Option<&'static CStr> {
    use code::*;
    Some(match status {
        NC_NOERR => c"No error",
        NC_EBADID => c"NetCDF: Not a valid ID",
        NC_ENFILE => c"NetCDF: Too many files open",
        NC_EEXIST => c"NetCDF: File exists && NC_NOCLOBBER",
        NC_EINVAL => c"NetCDF: Invalid argument",
        NC_EPERM => c"NetCDF: Write to read only",
        NC_ENOTINDEFINE => c"NetCDF: Operation not allowed in data mode",
        NC_EINDEFINE => c"NetCDF: Operation not allowed in define mode",
        NC_EINVALCOORDS => c"NetCDF: Index exceeds dimension bound",
        NC_EMAXDIMS => c"NetCDF: NC_MAX_DIMS exceeded",
        NC_ENAMEINUSE => c"NetCDF: String match to name in use",
        NC_ENOTATT => c"NetCDF: Attribute not found",
        NC_EMAXATTS => c"NetCDF: NC_MAX_ATTRS exceeded",
        NC_EBADTYPE => c"NetCDF: Not a valid data type or _FillValue type mismatch",
        NC_EBADDIM => c"NetCDF: Invalid dimension ID or name",
        NC_EUNLIMPOS => c"NetCDF: NC_UNLIMITED in the wrong index",
        NC_EMAXVARS => c"NetCDF: NC_MAX_VARS exceeded",
        NC_ENOTVAR => c"NetCDF: Variable not found",
        NC_EGLOBAL => c"NetCDF: Action prohibited on NC_GLOBAL varid",
        NC_ENOTNC => c"NetCDF: Unknown file format",
        NC_ESTS => c"NetCDF: In Fortran, string too short",
        NC_EMAXNAME => c"NetCDF: NC_MAX_NAME exceeded",
        NC_EUNLIMIT => c"NetCDF: NC_UNLIMITED size already in use",
        NC_ENORECVARS => c"NetCDF: nc_rec op when there are no record vars",
        NC_ECHAR => c"NetCDF: Attempt to convert between text & numbers",
        NC_EEDGE => c"NetCDF: Start+count exceeds dimension bound",
        NC_ESTRIDE => c"NetCDF: Illegal stride",
        NC_EBADNAME => c"NetCDF: Name contains illegal characters",
        NC_ERANGE => c"NetCDF: Numeric conversion not representable",
        NC_ENOMEM => c"NetCDF: Memory allocation (malloc) failure",
        NC_EVARSIZE => c"NetCDF: One or more variable sizes violate format constraints",
        NC_EDIMSIZE => c"NetCDF: Invalid dimension size",
        NC_ETRUNC => c"NetCDF: File likely truncated or possibly corrupted",
        NC_EAXISTYPE => c"NetCDF: Illegal axis type",
        NC_EDAP => c"NetCDF: DAP failure",
        NC_ECURL => c"NetCDF: libcurl failure",
        NC_EIO => c"NetCDF: I/O failure",
        NC_ENODATA => c"NetCDF: Variable has no data",
        NC_EDAPSVC => c"NetCDF: DAP server error",
        NC_EDAS => c"NetCDF: Malformed or inaccessible DAP DAS",
        NC_EDDS => c"NetCDF: Malformed or inaccessible DAP2 DDS or DAP4 DMR response",
        NC_EDATADDS => c"NetCDF: Malformed or inaccessible DAP2 DATADDS or DAP4 DAP response",
        NC_EDAPURL => c"NetCDF: Malformed URL",
        NC_EDAPCONSTRAINT => c"NetCDF: Malformed or unexpected Constraint",
        NC_ETRANSLATION => c"NetCDF: Untranslatable construct",
        NC_EACCESS => c"NetCDF: Access failure",
        NC_EAUTH => c"NetCDF: Authorization failure",
        NC_ENOTFOUND => c"NetCDF: file not found",
        NC_ECANTREMOVE => c"NetCDF: cannot delete file",
        NC_EINTERNAL => c"NetCDF: internal library error; Please contact Unidata support",
        NC_EPNETCDF => c"NetCDF: PnetCDF error",
        NC_EHDFERR => c"NetCDF: HDF error",
        NC_ECANTREAD => c"NetCDF: Can't read file",
        NC_ECANTWRITE => c"NetCDF: Can't write file",
        NC_ECANTCREATE => c"NetCDF: Can't create file",
        NC_EFILEMETA => c"NetCDF: Can't add HDF5 file metadata",
        NC_EDIMMETA => c"NetCDF: Can't define dimensional metadata",
        NC_EATTMETA => c"NetCDF: Can't open HDF5 attribute",
        NC_EVARMETA => c"NetCDF: Problem with variable metadata.",
        NC_ENOCOMPOUND => c"NetCDF: Can't create HDF5 compound type",
        NC_EATTEXISTS => c"NetCDF: Attempt to create attribute that already exists",
        NC_ENOTNC4 => c"NetCDF: Attempting netcdf-4 operation on netcdf-3 file",
        NC_ESTRICTNC3 => c"NetCDF: Attempting netcdf-4 operation on strict nc3 netcdf-4 file",
        NC_ENOTNC3 => c"NetCDF: Attempting netcdf-3 operation on netcdf-4 file",
        NC_ENOPAR => c"NetCDF: Parallel operation on file opened for non-parallel access",
        NC_EPARINIT => c"NetCDF: Error initializing for parallel access",
        NC_EBADGRPID => c"NetCDF: Bad group ID",
        NC_EBADTYPID => c"NetCDF: Bad type ID",
        NC_ETYPDEFINED => c"NetCDF: Type has already been defined and may not be edited",
        NC_EBADFIELD => c"NetCDF: Bad field ID",
        NC_EBADCLASS => c"NetCDF: Bad class",
        NC_EMAPTYPE => c"NetCDF: Mapped access for atomic types only",
        NC_ELATEFILL => c"NetCDF: Attempt to define fill value when data already exists.",
        NC_ELATEDEF => c"NetCDF: Attempt to define var properties, like deflate, after enddef.",
        NC_EDIMSCALE => c"NetCDF: Problem with HDF5 dimscales.",
        NC_ENOGRP => c"NetCDF: No group found.",
        NC_ESTORAGE => c"NetCDF: Cannot specify both contiguous and chunking.",
        NC_EBADCHUNK => c"NetCDF: Bad chunk sizes.",
        NC_ENOTBUILT => {
            c"NetCDF: Attempt to use feature that was not turned on when netCDF was built."
        }
        NC_EDISKLESS => c"NetCDF: Error in using diskless access",
        NC_ECANTEXTEND => {
            c"NetCDF: Attempt to extend dataset during NC_INDEPENDENT I/O operation. Use nc_var_par_access to set mode NC_COLLECTIVE before extending variable."
        }
        NC_EMPI => c"NetCDF: MPI operation failed.",
        NC_EFILTER => c"NetCDF: Filter error: bad id or parameters or duplicate filter",
        NC_ERCFILE => c"NetCDF: RC File Failure.",
        NC_ENULLPAD => c"NetCDF: File fails strict Null-Byte Header check.",
        NC_EINMEMORY => c"NetCDF: In-memory File operation failed.",
        NC_ENOFILTER => c"NetCDF: Filter error: undefined filter encountered",
        NC_ENCZARR => c"NetCDF: NCZarr error",
        NC_ES3 => c"NetCDF: S3 error",
        NC_EEMPTY => c"NetCDF: Attempt to read empty NCZarr map key",
        NC_EOBJECT => c"NetCDF: Some object exists when it should not",
        NC_ENOOBJECT => c"NetCDF: Some object not found",
        NC_EPLUGIN => c"NetCDF: Unclassified failure in accessing a dynamically loaded plugin",
        _ => return None,
    })
}

/// The message for codes netCDF does not know.
pub const UNKNOWN_ERROR: &CStr = c"Unknown Error";
