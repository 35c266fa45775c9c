#!/usr/bin/env bash
# ABI check: the checked-in headers and the built library must agree.
#
# 1. Every function the library exports is declared in include/netcdf*.h
#    or, for netcdf-c internals the utilities import, in tools_abi.h.
# 2. Every function declared there is exported, or listed in
#    pending_symbols.txt (the API not implemented yet). The list may only
#    shrink: a function that gets implemented must leave it.
# 3. Every exported function has the same C signature in the header as in
#    the Rust source: cbindgen writes the Rust declarations as C, and one C
#    file includes both; a C compiler rejects any "conflicting types".
# 4. Every Rust constant named like a header macro has the header's value.
#
# Usage: ctests/abi/check.sh LIBRARY CBINDGEN
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
lib=${1:-$root/target/release/libnetcdf.so}
cbindgen=${2:-cbindgen}
work=$root/target/abi
mkdir -p "$work"
status=0

grep -ho 'EXTERNL[^;]*' "$root"/include/netcdf.h "$root"/include/netcdf_filter.h "$root"/include/netcdf_f.h "$root"/include/netcdf_mem.h "$root"/include/netcdf_aux.h "$here"/tools_abi.h \
    | grep '(' | sed -E 's/\(.*//; s/.*[ *]([A-Za-z_][A-Za-z0-9_]*)$/\1/' | sort -u > "$work/declared.txt"
# nczrs_* symbols are private: Rust bodies called back from csrc/*.c, which
# a cdylib cannot keep hidden.
nm -D --defined-only "$lib" | awk '$2 == "T" && $3 !~ /^nczrs_/ {print $3}' | sort -u > "$work/exported.txt"
sort -u "$here/pending_symbols.txt" > "$work/pending.txt"

undeclared=$(comm -23 "$work/exported.txt" "$work/declared.txt")
if [ -n "$undeclared" ]; then
    echo "exported but not declared in include/: $undeclared"; status=1
fi
missing=$(comm -23 "$work/declared.txt" "$work/exported.txt")
if ! diff <(echo "$missing") "$work/pending.txt" > "$work/pending.diff"; then
    echo "declared-but-not-exported functions differ from pending_symbols.txt"
    echo "(< missing from the library and not listed; > listed but now exported):"
    cat "$work/pending.diff"; status=1
fi

(cd "$root" && "$cbindgen" --quiet --config "$here/cbindgen.toml" --output "$work/rust_decls.h" .)
(cd "$root" && "$cbindgen" --quiet --config "$here/cbindgen-constants.toml" --output "$work/rust_consts.h" .)
sed -nE 's/^#define ([A-Za-z0-9_]+) (.+)$/#ifdef \1\n_Static_assert((\1) == (\2), "\1 differs between netcdf.h and the Rust code");\n#endif/p' \
    "$work/rust_consts.h" > "$work/rust_consts_check.h"
printf '#include "netcdf.h"\n#include "netcdf_filter.h"\n#include "netcdf_f.h"\n#include "netcdf_mem.h"\n#include "netcdf_aux.h"\n#include "tools_abi.h"\n#include "rust_decls.h"\n#include "rust_consts_check.h"\n' > "$work/signatures.c"
if ! cc -std=c11 -Wall -Werror -fsyntax-only -I"$root/include" -I"$here" -I"$work" "$work/signatures.c"; then
    echo "the Rust and header signatures or constants disagree"; status=1
fi
nconsts=$(grep -c _Static_assert "$work/rust_consts_check.h" || true)
nexported=$(wc -l < "$work/exported.txt")
npending=$(wc -l < "$work/pending.txt")
if [ $status -eq 0 ]; then
    echo "abi: $nexported functions exported and declared alike; $nconsts constants compared; $npending declared functions pending"
fi
exit $status
