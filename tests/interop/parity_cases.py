"""The CDL datasets tests/interop/test_metadata_parity.py writes with Debian's
ncgen over our library and over netcdf-c 4.10.1, so that their NCZarr/Zarr
metadata objects can be compared key by key.

The first four are netcdf-c's own nczarr_test inputs (v4.10.1; the 72 rows
of ref_misc1.cdl's data are generated, not spelled out); the others cover what the JSON metadata encodes:
attributes of every type (integral-valued, non-finite, extreme, several
values), char attributes whose text is or is not JSON, strings, groups,
unlimited dimensions, fill values and filters; and tests/tools/rich.cdl."""

import pathlib

# nczarr_test/ref_jsonconvention.cdl (run_jsonconvention.sh).
JSONCONVENTION = r"""netcdf tmp_jsonconvention {
dimensions:
	d1 = 1 ;
variables:
	int v(d1) ;
		v:varjson1 = "{\"key1\": [1,2,3], \"key2\": {\"key3\": \"abc\"}}" ;
		v:varjson2 = "[[1.0,0.0,0.0],[0.0,1.0,0.0],[0.0,0.0,1.0]]" ;
		v:varjson3  = "[0.,0.,1.]" ;
		v:varchar1  = "1.0, 0.0, 0.0" ;

// global attributes:
		:globalfloat = 1. ;
		:globalfloatvec = 1., 2. ;
		:globalchar = "abc" ;
		:globalillegal = "[ [ 1.0, 0.0, 0.0 ], [ 0.0, 1.0, 0.0 ], [ 0.0, 0.0, 1.0 " ;
data:

 v = _ ;
}
"""

# nczarr_test/ref_purezarr_base.cdl (run_purezarr.sh).
PUREZARR_BASE = """netcdf ref_purezarr {
dimensions:
    x = 2;
    y = 5;
variables:
	int i(x,y) ;
}
"""

# nczarr_test/ref_misc1.cdl (run_misc.sh, with ZARR.DIMENSION_SEPARATOR=/
# in .ncrc: see test_dimension_separator_from_ncrc).
MISC1 = """netcdf tmp_misc1 {
dimensions:
	d0 = 6 ;
	d1 = 12 ;
	d2 = 4 ;
variables:
	int v(d0, d1, d2) ;
		v:_FillValue = -1 ;
data:

 v =
""" + ",\n".join(
    "  " + (f"{4 * (row // 12)}, {4 * (row // 12) + 1}, {4 * (row // 12) + 2}, {4 * (row // 12) + 3}"
            if row % 12 == 0 else "_, _, _, _")
    for row in range(72)) + " ;\n}\n"

# nczarr_test/ref_misc2.cdl (run_misc.sh).
MISC2 = """netcdf tmp_misc2 {
dimensions:
        d0 = 2;
	d1 = 2;
variables:
	int v(d0, d1) ;
 		v:_FillValue = -2147483647 ;
data:

  v =
   0, 1,
   2, 3 ;
}
"""

# Numeric attributes: every type at its limits, several values, integral
# floats and doubles (small and large), values past float's 6 significant
# digits, -0, NaN and the infinities.
NUMBERS = """netcdf numbers {
variables:
	int v ;
		v:a_byte = -128b, 0b, 127b ;
		v:a_ubyte = 0UB, 255UB ;
		v:a_short = -32768s, 32767s ;
		v:a_ushort = 65535US ;
		v:a_int = -2147483647, 2147483647 ;
		v:a_int1 = 42 ;
		v:a_uint = 4294967295U ;
		v:a_int64 = -9223372036854775807LL, 9223372036854775807LL ;
		v:a_uint64 = 0ULL, 18446744073709551615ULL ;
		v:a_float1 = 1.f ;
		v:a_floatint = 1.f, -2.f, 100000.f, 16777216.f ;
		v:a_float = 0.1f, -2.5f, 1.e30f, 3.4028235e38f, 1.e-45f ;
		v:a_double1 = 1. ;
		v:a_doubleint = 1., -2., 100000., 1000000., 1.e15, 9007199254740992. ;
		v:a_double = 0.1, 3.141592653589793, 1.e300, 5.e-324, 123456.7 ;
		v:a_negzero = -0. ;
		v:a_fnan = NaNf ;
		v:a_finf = Infinityf, -Infinityf ;
		v:a_dnan = NaN ;
		v:a_dinf = Infinity ;
		v:a_dninf = -Infinity ;
		v:a_dmix = 1., NaN, 2.5 ;
data:

 v = 1 ;
}
"""

# Char attributes: JSON objects and arrays (compact, spaced, nested,
# empty), JSON scalars (numbers, true, null, a quoted string, a bare word)
# and text that is not JSON.
CHARS = r"""netcdf chars {
variables:
	int v ;
		v:obj = "{\"a\": 1, \"b\": [1, 2], \"c\": {\"d\": \"e\"}}" ;
		v:obj_compact = "{\"a\":1,\"b\":[1,2]}" ;
		v:obj_empty = "{}" ;
		v:obj_unicode = "{\"k\": \"\303\251\"}" ;
		v:arr = "[1, 2, 3]" ;
		v:arr_compact = "[1,2,3]" ;
		v:arr_nested = "[[1,2],[3,4]]" ;
		v:arr_strings = "[\"x\", \"y\"]" ;
		v:arr_floats = "[1.5, 2.0, 1e3]" ;
		v:arr_empty = "[]" ;
		v:num_int = "123" ;
		v:num_neg = "-5" ;
		v:num_float = "1.0" ;
		v:word_true = "true" ;
		v:word_null = "null" ;
		v:word = "abc" ;
		v:quoted = "\"abc\"" ;
		v:text = "not json" ;
		v:text_spaces = "abc  " ;
		v:bad_array = "[1, 2" ;
		v:trailing = "[1] x" ;
		v:empty = "" ;
		v:unicode = "h\303\251llo" ;

// global attributes:
		:gobj = "{\"x\": [true, false, null]}" ;
		:garr = "[\"a\", 1, 2.5]" ;
data:

 v = 1 ;
}
"""

# String attributes and variables, char variables.
STRINGS = r"""netcdf strings {
dimensions:
	n = 2 ;
	nc = 3 ;
variables:
	string sv(n) ;
		string sv:one = "single" ;
		string sv:two = "a", "bc" ;
		string sv:json = "{\"a\": 1}" ;
		string sv:empty = "" ;
	char cv(n, nc) ;
		cv:note = "chars" ;

// global attributes:
		string :gstrings = "x", "", "zzz" ;
data:

 sv = "hello", "world!" ;

 cv = "abc", "de" ;
}
"""

# Groups, unlimited dimensions, fill values of every kind, filters.
STRUCTURE = r"""netcdf structure {
dimensions:
	x = 3 ;
	t = UNLIMITED ; // (2 currently)
variables:
	float temp(t, x) ;
		temp:_FillValue = -999.f ;
		temp:units = "K" ;
		temp:_ChunkSizes = 1, 3 ;
		temp:_DeflateLevel = 5 ;
		temp:_Shuffle = "true" ;
	double dz(x) ;
		dz:_DeflateLevel = 1 ;
	int ishuf(x) ;
		ishuf:_Shuffle = "true" ;
	byte b(x) ;
		b:_FillValue = 3b ;
	ubyte ub(x) ;
	short s(x) ;
	ushort us(x) ;
	uint ui(x) ;
	int64 i64(x) ;
		i64:_FillValue = -9223372036854775807LL ;
	uint64 u64(x) ;
	float fnan(x) ;
		fnan:_FillValue = NaNf ;
	double dinf(x) ;
		dinf:_FillValue = Infinity ;
	double dfill(x) ;
		dfill:_FillValue = 1.5 ;
	float nofill(x) ;
		nofill:_NoFill = "true" ;
	string str(x) ;
	char c(x) ;
	int scalar ;
		scalar:note = "scalar" ;

// global attributes:
		:title = "structure" ;
data:

 temp = 1, 2, 3, 4, _, 6 ;

 dz = 0.5, 1.5, 2.5 ;

 ishuf = 1, 2, 3 ;

 b = 1, _, 3 ;

 str = "a", "", "ccc" ;

 c = "xyz" ;

 scalar = 7 ;

group: g1 {
  dimensions:
  	y = 2 ;
  	u = UNLIMITED ; // (1 currently)
  variables:
  	int gv(y, x) ;
  		gv:_FillValue = -5 ;
  	short gu(u) ;

  // group attributes:
  		:gatt = 2.5 ;
  		:gint = 3 ;
  data:

   gv = 1, 2, 3, 4, 5, _ ;

   gu = 9 ;

  group: g2 {
    variables:
    	double deep(y) ;
    		deep:units = "m" ;

    // group attributes:
    		:depth = 2 ;
    data:

     deep = 1, 2 ;
    } // group g2
  } // group g1
}
"""

RICH = (pathlib.Path(__file__).resolve().parents[1] / "tools" / "rich.cdl").read_text(encoding="utf-8")

CASES = {
    "jsonconvention": JSONCONVENTION,
    "purezarr_base": PUREZARR_BASE,
    "misc1": MISC1,
    "misc2": MISC2,
    "numbers": NUMBERS,
    "chars": CHARS,
    "strings": STRINGS,
    "structure": STRUCTURE,
    # tests/tools/rich.cdl: every filter netcdf-c 4.10.1 and its plugins
    # write, big-endian storage, CF time variables.
    "rich": RICH,
}
