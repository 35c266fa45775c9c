#!/usr/bin/env bash
# badid_all.inc (run by t_badid) calls every function the library exports:
# a function exported since it was generated must be added
# (ctests/gen_badid_all.py) and its results reviewed.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
lib=$NCZARR_RS_LIBDIR/libnetcdf.so
exported=$(nm -D --defined-only "$lib" | awk '$2 == "T" && $3 !~ /^nczrs_/ {print $3}' | sort -u)
called=$(grep -o '^    [(void)]*[A-Za-z_][A-Za-z0-9_]*(\|"[a-z]*:[A-Za-z_][A-Za-z0-9_]*"' "$here/badid_all.inc" \
    | sed -E 's/^ *(\(void\))?//; s/\($//; s/"[a-z]*:([A-Za-z0-9_]*)"/\1/' | sort -u)
missing=$(comm -23 <(echo "$exported") <(echo "$called"))
if [ -n "$missing" ]; then
    echo "exported but not called by badid_all.inc (run ctests/gen_badid_all.py):"
    echo "$missing"
    exit 1
fi
echo "PASS: all $(echo "$exported" | wc -l) exported functions are called"
