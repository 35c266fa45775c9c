"""Stand-in for netcdf-c 4.9.0's nczarr_test/zmapio (zmapio.c), which walks
an NCZarr store through libnczarr's internal zmap API and prints every
object. This reads the directory or zip archive itself and prints what
zmapio prints:

    [N] KEY : (LEN) |CONTENT|

N counting every key of the walk (directories too, which are not printed),
the walk going depth first through names sorted bytewise; metadata objects
(last segment starting with '.') as text, chunks as LEN values of the -t
type (default ubyte, 'Default type: ubyte' on stderr), or '...' with -h.

    zmapio [-t TYPE] [-h] [-d] [-x objdump] [-X m] [-T LEVEL] URL
"""

import getopt
import math
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from store import open_store, shell_unescape, split_url  # noqa: E402

def cfloat(v):
    """C's printf("%f"): nan, -nan, inf, -inf as glibc prints them."""
    if math.isnan(v):
        return "-nan" if math.copysign(1.0, v) < 0 else "nan"
    if math.isinf(v):
        return "-inf" if v < 0 else "inf"
    return "%f" % v


TYPES = {  # name: (struct code, size, printf-like formatter)
    "ubyte": ("B", 1, str), "byte": ("b", 1, str),
    "ushort": ("H", 2, str), "short": ("h", 2, str),
    "uint": ("I", 4, str), "int": ("i", 4, str),
    "uint64": ("Q", 8, str), "int64": ("q", 8, str),
    "float": ("f", 4, cfloat), "double": ("d", 8, cfloat),
}
URLEXTS = ("nzf", "zip", "nz4")


def usage():
    sys.stderr.write("usage: zmapio [-t <type>][-d][-v][-x] <file>\n")
    sys.exit(1)


def filenamefor(f):
    """A plain path ending in .nzf/.zip/.nz4 becomes a file:// URL."""
    if split_url(f)[0] is not None:
        return f
    ext = f.rsplit(".", 1)[1] if "." in f else None
    return "file://%s#mode=nczarr,%s" % (f, ext) if ext in URLEXTS else f


def keykind(key, nozmetadata):
    last = "/" + key.rsplit("/", 1)[1]
    if last[1:2] == ".":
        return "ignore" if last == "/.zmetadata" and nozmetadata else "meta"
    if last.endswith("/"):
        return "group"
    return "chunk"


def main(argv):
    try:
        opts, args = getopt.getopt(argv, "dhvx:t:T:X:")
    except getopt.GetoptError:
        sys.stderr.write("unknown option\n")
        return 1
    meta_only = debug = nozmetadata = False
    typename, op = None, None
    for o, a in opts:
        if o == "-d":
            debug = True
        elif o == "-h":
            meta_only = True
        elif o == "-v":
            usage()
        elif o == "-t":
            if a.lower() not in TYPES:
                usage()
            typename = a.lower()
        elif o == "-x":
            if a.lower() not in ("objdump", "clear"):
                usage()
            op = a.lower()
        elif o == "-X":
            nozmetadata = "m" in a
    if typename is None:
        typename = "ubyte"
        sys.stderr.write("Default type: %s\n" % typename)
    if len(args) > 1:
        sys.stderr.write("zmapio: only one input file argument permitted\n")
        return 1
    if not args:
        sys.stderr.write("zmapio: no input file specified\n")
        return 1
    url = filenamefor(shell_unescape(args[0]))
    if op != "objdump":
        sys.stderr.write("Default action: objdump\n")
    store = open_store(url)

    # depth-first walk: every key below "/", each level sorted bytewise
    keys = []

    def walk(prefix):
        for name in sorted(store.search(prefix), key=lambda n: n.encode()):
            key = ("" if prefix == "/" else prefix) + "/" + name
            keys.append(key)
            walk(key)

    walk("/")
    if debug:
        sys.stderr.write("stack:\n" + "".join("[%d] %s\n" % (i, k) for i, k in enumerate(keys)))
    code, size, fmt = TYPES[typename]
    buf = sys.stdout.buffer

    class out:  # raw bytes, as printf("%c") writes them
        write = staticmethod(lambda s: buf.write(s.encode() if isinstance(s, str) else s))
    for depth, key in enumerate(keys):
        n = store.length(key)
        if n is None:
            continue  # no content: a directory
        if n == 0:
            out.write("[%d] %s : (0) ||\n" % (depth, key))
            continue
        kind = keykind(key, nozmetadata)
        content = store.read(key)
        if kind == "chunk":
            n = -(-n // size)
            out.write("[%d] %s : (%d) (%s) |" % (depth, key, n, typename))
            if meta_only:
                out.write("...")
            else:
                padded = content + b"\0" * (n * size - len(content))
                vals = struct.unpack("<%d%s" % (n, code), padded)
                out.write(", ".join(fmt(v) for v in vals))
        else:
            out.write("[%d] %s : (%d) |" % (depth, key, n))
            if kind == "meta":
                out.write(content)
            elif kind == "group":
                out.write(content.hex())
        out.write("|\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
