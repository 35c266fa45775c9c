"""Stand-in for netcdf-c 4.9.0's nczarr_test/ncdumpchunks (ncdumpchunks.c),
which prints each chunk of a variable of an NCZarr store as libnczarr's
internal NCZ_read_chunk returns it (a missing chunk: the fill value). This
reads the store itself (.zarray, the chunk objects; compressed chunks are
decoded with numcodecs) and prints what ncdumpchunks prints:

    rank=R dims=(D,...) chunks=(C,...)
    [I/O][I/O]... = V V V | V V V | ...

one line per chunk in row-major chunk order (rank 3: one line per first
index), each int value as "%02d" (-b: the bytes of each int as "%02u").

    ncdumpchunks [-b] [-D] [-T LEVEL] -v VAR URL
"""

import getopt
import json
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from store import open_store, shell_unescape, split_url  # noqa: E402

NC_EINVAL, NC_ENOTATT, NC_ENOTVAR, NC_EBADCHUNK, NC_EDIMSIZE = -36, -43, -49, -127, -63
MESSAGES = {
    NC_EINVAL: "NetCDF: Invalid argument",
    NC_ENOTATT: "NetCDF: Attribute not found",
    NC_ENOTVAR: "NetCDF: Variable not found",
    NC_EBADCHUNK: "NetCDF: Bad chunk sizes.",
    NC_EDIMSIZE: "NetCDF: Invalid dimension size",
}


def usage(err=0):
    if err:
        sys.stderr.write("Error: (%d) %s\n" % (err, MESSAGES.get(err, "error")))
    sys.stderr.write("usage: ncdumpchunks -v <var> <file> \n")
    sys.exit(1)


def filenamefor(f):
    if split_url(f)[0] is not None:
        return f
    ext = f.rsplit(".", 1)[1] if "." in f else None
    return "file://%s#mode=nczarr,%s" % (f, ext) if ext in ("file", "zip") else f


def printvector(vec):
    # ncdumpchunks.c prints each number into a 4-byte buffer: 3 digits at most
    return ",".join(str(v)[:3] for v in vec)


def decode(raw, meta):
    """A chunk object's bytes to the array's bytes: filters and compressor
    undone (numcodecs), as NCZ_read_chunk hands them over."""
    codecs = list(meta.get("filters") or [])
    if meta.get("compressor"):
        codecs.append(meta["compressor"])
    if not codecs:
        return raw
    import numcodecs

    for c in reversed(codecs):
        raw = numcodecs.get_codec(c).decode(raw)
    return bytes(raw)


def main(argv):
    try:
        opts, args = getopt.getopt(argv, "bv:DT:")
    except getopt.GetoptError as e:
        sys.stderr.write("unknown option: '%s'\n" % e.opt)
        return 1
    ubyte, var, debug = False, "", False
    for o, a in opts:
        if o == "-b":
            ubyte = True
        elif o == "-v":
            var = a
        elif o == "-D":
            debug = True
    if not args:
        sys.stderr.write("no input file specified\n")
        return 1
    url = filenamefor(shell_unescape(args[0]))
    if not var:
        sys.stderr.write("no input var specified\n")
        return 1
    store = open_store(url)
    if store.length("/%s/.zarray" % var) is None:
        usage(NC_ENOTVAR)
    meta = json.loads(store.read("/%s/.zarray" % var))
    dims, chunks = list(meta["shape"]), list(meta["chunks"])
    rank = len(dims)
    if rank == 0:
        usage(NC_EDIMSIZE)
    fill = meta.get("fill_value")
    if fill is None:
        usage(NC_ENOTATT)
    dtype = meta["dtype"]
    sep = meta.get("dimension_separator", ".")

    counts = [-(-d // c) for d, c in zip(dims, chunks)]
    chunkprod = 1
    for c in chunks:
        chunkprod *= c
    out = [b"rank=%d dims=(%s) chunks=(%s)\n" % (rank, printvector(dims).encode(), printvector(chunks).encode())]
    fillchunk = struct.pack("<%di" % chunkprod, *([int(fill)] * chunkprod))

    index = [0] * rank
    while index[0] < counts[0]:
        offset = [i * c for i, c in zip(index, chunks)]
        if debug:
            sys.stderr.write("chunk: %s\n" % printvector(offset))
        key = "/%s/%s" % (var, sep.join(str(i) for i in index))
        if store.length(key) is None:
            data = fillchunk  # a hole: every int is the fill value
        else:
            data = decode(store.read(key), meta)
            if dtype[0] == ">" and dtype[2:] == "4":  # big-endian ints to native
                data = b"".join(data[i:i + 4][::-1] for i in range(0, len(data), 4))
            # the buffer is chunkprod ints, zeroed, the chunk read into it
            data = (data + b"\0" * (4 * chunkprod))[:4 * chunkprod]
        ints = struct.unpack("<%di" % chunkprod, data)
        sindices = "".join("[%d/%d]" % (i, o) for i, o in zip(index, offset)) + " ="
        out.append(sindices.encode())
        out.append(printchunk(ints, data, chunks, chunkprod, rank, ubyte, len(sindices)))
        # the odometer
        for r in range(rank - 1, -1, -1):
            index[r] += 1
            if index[r] < counts[r]:
                break
            if r == 0:
                break
            index[r] = 0
    sys.stdout.buffer.write(b"".join(out))
    return 0


def printchunk(ints, data, chl, chunkprod, rank, ubyte, indent):
    if ubyte:
        rank = 0
    if rank == 1:
        cols = (1, 1, chl[0])
    elif rank == 2:
        cols = (1, chl[0], chl[1])
    elif rank == 3:
        cols = (chl[0], chl[1], chl[2])
    else:
        cols = (1, 1, chunkprod)
    s, pos = [], 0
    for k0 in range(cols[0]):
        if k0 > 0:
            s.append(" " * indent)
        for k1 in range(cols[1]):
            if k1 > 0:
                s.append(" |")
            for _ in range(cols[2]):
                if ubyte:
                    s.append("".join(" %02u" % b for b in data[4 * pos:4 * pos + 4]))
                else:
                    s.append(" %02d" % ints[pos])
                pos += 1
        s.append("\n")
    return "".join(s).encode()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
