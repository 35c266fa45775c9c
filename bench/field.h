/* bench/field.h: the analytic field of the shared ncz_bench.c (the same
 * formula, bit for bit, as examples/codec_rates.rs and zarr_bench.py), so
 * that every benchmark program writes and checks the same values and the
 * codec rates measured on them apply. */
#ifndef NCZARR_RS_BENCH_FIELD_H
#define NCZARR_RS_BENCH_FIELD_H
#include <stdint.h>

static inline float field(uint32_t t, uint32_t y, uint32_t x) {
    uint32_t h = (t * 73856093u) ^ (y * 19349663u) ^ (x * 83492791u);
    h ^= h >> 13;
    h *= 0x5bd1e995u;
    h ^= h >> 15;
    uint32_t base = ((y * y) >> 6) + (x >> 2) + t;
    return (float)base * 0.25f + (float)(h & 0xFFu) * (1.0f / 1024.0f);
}

#endif
