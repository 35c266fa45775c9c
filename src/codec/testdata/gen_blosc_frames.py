# Frames for src/codec/blosc/partial.rs's tests: numcodecs Blosc (c-blosc
# 1.21) of 20000 little-endian u32s, (i // 7) with a noisy low byte on
# every 16th; each frame as a u32 LE length, then the frame; in the order
# cname (lz4, blosclz, zstd, zlib), shuffle (0, 1, 2), blocksize (0, 4096).
import numpy as np, struct, sys
from numcodecs import Blosc
n = 20000
i = np.arange(n, dtype=np.uint32)
vals = ((i // 7) | (((i * 2654435761) >> 24) & 0xff) * (i % 16 == 0)).astype('<u4')
out = b''
for cname in ['lz4', 'blosclz', 'zstd', 'zlib']:
    for shuf in [0, 1, 2]:
        for bs in [0, 4096]:
            f = Blosc(cname=cname, clevel=5, shuffle=shuf, blocksize=bs).encode(vals)
            hdr = struct.unpack('<BBBBIII', f[:16])
            print(cname, shuf, bs, 'flags', hdr[2], 'blocksize', hdr[5], len(f), file=sys.stderr)
            out += struct.pack('<I', len(f)) + f
open(sys.argv[1], 'wb').write(out)
print(len(out), file=sys.stderr)
