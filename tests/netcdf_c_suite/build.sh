#!/usr/bin/env bash
# Build netcdf-c 4.9.0's test programs (nc_test, nc_test4, ncdump helpers,
# nczarr_test) into the cache ($NCZARR_RS_TOOLS/netcdf-c-src/build), against OUR headers
# (include/ of this repository) and linked with -L LIBDIR -lnetcdf, without
# an rpath: run.sh picks the library at run time with LD_LIBRARY_PATH.
#
#   tests/netcdf_c_suite/build.sh [LIBDIR]     (default: target/release)
#
# A program that does not link against LIBDIR's libnetcdf.so (it uses
# netcdf-c internals that the library does not export) is not built; the
# reasons are in $BUILD/not_built.txt. Programs that call HDF5 themselves
# (to make or inspect the files) are linked with Debian's libhdf5 too;
# NCSUITE_HDF5=0 leaves them out instead. The stand-ins for helper programs
# that use netcdf-c internals (suite.sh's STANDINS) are installed beside them.
#
# Cached: make (with -MMD) rebuilds an object only when its source or a
# header changed, and relinks when the library's exported symbols changed;
# a stamp skips even that when nothing changed. NCSUITE_FORCE=1 rebuilds all.
set -euo pipefail
. "$(dirname "$0")/suite.sh"

LIBDIR=$(cd "${1:-$DEFAULT_LIBDIR}" && pwd)
NCSUITE_HDF5=${NCSUITE_HDF5:-1}
CC=${CC:-cc}

log() { echo "build: $*"; }

# --- tools ------------------------------------------------------------------
need_pkgs=()
command -v "$CC" >/dev/null || need_pkgs+=(gcc)
command -v make >/dev/null || need_pkgs+=(make)
command -v m4 >/dev/null || need_pkgs+=(m4)
[ -f "$HDF5_INC/hdf5.h" ] || need_pkgs+=(libhdf5-dev)
[ -x "$DEB_NCDUMP" ] && [ -x "$DEB_NCGEN" ] && [ -x "$DEB_NCCOPY" ] || need_pkgs+=(netcdf-bin)
[ -f "$DEB_LIBNETCDF" ] || need_pkgs+=(libnetcdf19)
if [ ${#need_pkgs[@]} -gt 0 ]; then
    log "installing ${need_pkgs[*]}"
    SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq "${need_pkgs[@]}" >/dev/null
fi

[ -f "$SRC/nc_test/test_get.m4" ] || "$SUITE_DIR/fetch.sh"

# --- the library under test -------------------------------------------------
# target/release/libnetcdf.so may be in the middle of a rebuild: wait until
# it exists and has not changed for 3 s.
wait_for_lib() {
    local lib=$LIBDIR/libnetcdf.so.19 i prev= cur
    [ -e "$lib" ] || lib=$LIBDIR/libnetcdf.so
    for i in $(seq 1 200); do
        cur=$(stat -L -c '%s %Y' "$lib" 2>/dev/null || true)
        # not modified in the last 5 s: take it as it is
        if [ -n "$cur" ] && [ $(( $(date +%s) - ${cur#* } )) -gt 5 ] && nm -D --defined-only "$lib" >/dev/null 2>&1; then
            return 0
        fi
        if [ -n "$cur" ] && [ "$cur" = "$prev" ] && nm -D --defined-only "$lib" >/dev/null 2>&1; then
            return 0
        fi
        prev=$cur
        [ "$i" = 1 ] || log "waiting for $lib (being rebuilt?)"
        sleep 3
    done
    echo "build: no usable $lib" >&2
    exit 1
}
wait_for_lib
LIBFILE=$LIBDIR/libnetcdf.so
[ -e "$LIBFILE" ] || LIBFILE=$LIBDIR/libnetcdf.so.19

# --- netcdf-c's configure, once: config.h, libnetcdf.settings, test_common.sh
# As close to Debian's CMake build as matters to the tests: CMake's default
# chunk size (16 MiB; autoconf's is 4 MiB, which tst_chunks checks), mmap on.
CONFIGURE_OPTS=(--disable-dap --disable-byterange --enable-hdf5 --disable-plugins
                --disable-doxygen --disable-examples --enable-mmap
                --with-default-chunk-size=16777216
                "CPPFLAGS=-I$HDF5_INC" "LDFLAGS=-L$HDF5_LIB")
cfg_key=$(printf '%s\n' "${CONFIGURE_OPTS[@]}" | sha256sum | cut -c1-16)
if [ ! -f "$CFG/config.h" ] || [ "$(cat "$CFG/.configured" 2>/dev/null)" != "$cfg_key" ]; then
    log "running netcdf-c's configure in $CFG (log: $CFG/configure.log)"
    rm -rf "$CFG"; mkdir -p "$CFG"
    (cd "$CFG" && "$SRC/configure" "${CONFIGURE_OPTS[@]}" >configure.log 2>&1) \
        || { tail -20 "$CFG/configure.log"; exit 1; }
    echo "$cfg_key" > "$CFG/.configured"
fi

# write FILE from stdin, leaving it (and its mtime) alone when unchanged
put() { local t; t=$(mktemp "$1.XXXXXX"); cat > "$t"; if cmp -s "$t" "$1"; then rm -f "$t"; else mv "$t" "$1"; fi; }

# --- stand-ins for helper programs that use netcdf-c internals: DIR/NAME
# runs standins/NAME.py with the repository's venv Python (zarr, numcodecs),
# else python3. They read the store itself and load no libnetcdf.
mkdir -p "$BUILD"
PY=$REPO/.venv/bin/python
[ -x "$PY" ] || PY=$(command -v python3)
for sn in "${STANDINS[@]}"; do
    mkdir -p "$BUILD/${sn%%/*}"
    printf '#!/bin/sh\n# stand-in for netcdf-c'"'"'s %s (tests/netcdf_c_suite/build.sh)\nexec %q -B %q "$@"\n' \
        "$sn" "$PY" "$SUITE_DIR/standins/${sn#*/}.py" | put "$BUILD/$sn"
    chmod +x "$BUILD/$sn"
done

# --- quick stamp --------------------------------------------------------------
syms_hash=$( { echo "$LIBDIR"; nm -D --defined-only "$LIBFILE" | awk '{print $3}' | sort; } | sha256sum | cut -c1-32)
stamp=$( {
    echo "$syms_hash $NCSUITE_HDF5 $CC $OURINC"
    "$CC" --version | head -1
    cat "$SUITE_DIR/build.sh" "$SUITE_DIR/suite.sh" "$CFG/config.h" "$CACHE/.fetched" "$SUITE_DIR"/standins/*.py "$SUITE_DIR"/standins/*.c
    for h in "$OURINC"/*.h; do echo "$h"; cat "$h"; done
    } | sha256sum | cut -c1-32)
missing=0
if [ -f "$BUILD/built.txt" ]; then
    while read -r p; do
        [ -x "$BUILD/$p" ] || { missing=1; rm -f "$BUILD/$p.status"; }
    done < "$BUILD/built.txt"
fi
if [ "${NCSUITE_FORCE:-0}" != 1 ] && [ $missing = 0 ] && [ "$(cat "$BUILD/.stamp" 2>/dev/null)" = "$stamp" ]; then
    log "up to date ($BUILD; $(wc -l < "$BUILD/built.txt") programs built, $(wc -l < "$BUILD/not_built.txt") not)"
    exit 0
fi
[ "${NCSUITE_FORCE:-0}" = 1 ] && rm -rf "$BUILD/obj" && find "$BUILD" -name '*.status' -delete 2>/dev/null || true

# exported-symbol stamp: programs relink when it changes
echo "$syms_hash" | put "$BUILD/libsyms.stamp"

# --- include directory: netcdf-c's internal headers, minus the public ones we provide
INC=$BUILD/inc
mkdir -p "$INC"
want=" "
for h in "$SRC"/include/*.h "$CFG"/include/netcdf_dispatch.h; do
    b=$(basename "$h")
    [ -e "$OURINC/$b" ] && continue        # ours wins: netcdf.h, netcdf_meta.h, ...
    want+="$b "
    [ "$(readlink "$INC/$b" 2>/dev/null)" = "$h" ] || ln -sfn "$h" "$INC/$b"
done
for f in "$INC"/*.h; do
    b=$(basename "$f")
    case "$want" in *" $b "*) ;; *) [ "$b" = config.h ] || rm -f "$f" ;; esac
done
put "$INC/config.h" < "$CFG/config.h"
put "$BUILD/config.h" < "$CFG/config.h"
put "$BUILD/libnetcdf.settings" < "$CFG/libnetcdf.settings"

# --- tools the shell tests use: Debian's ncdump/ncgen/nccopy
mkdir -p "$BUILD/ncdump" "$BUILD/ncgen" "$BUILD/ncgen3" "$BUILD/nc_test" "$BUILD/nc_test4" "$BUILD/nczarr_test"
ln -sfn "$DEB_NCDUMP" "$BUILD/ncdump/ncdump"
ln -sfn "$DEB_NCCOPY" "$BUILD/ncdump/nccopy"
ln -sfn "$DEB_NCGEN" "$BUILD/ncgen/ncgen"
[ -x "$DEB_NCGEN3" ] && ln -sfn "$DEB_NCGEN3" "$BUILD/ncgen3/ncgen3"

# test_common.sh (netcdf-c's configure makes it from test_common.in): the
# source tree, this build directory, and Debian's tools.
sed -e "s|^TOPSRCDIR=.*|TOPSRCDIR='$SRC'|" \
    -e "s|^TOPBUILDDIR=.*|TOPBUILDDIR='$BUILD'|" \
    -e "s|^export NCDUMP=.*|export NCDUMP='$DEB_NCDUMP'|" \
    -e "s|^export NCCOPY=.*|export NCCOPY='$DEB_NCCOPY'|" \
    -e "s|^export NCGEN=.*|export NCGEN='$DEB_NCGEN'|" \
    -e "s|^export NCGEN3=.*|export NCGEN3='$DEB_NCGEN3'|" \
    -e "s|^export NCPATHCVT=.*|export NCPATHCVT='$BUILD/ncdump/ncpathcvt'|" \
    "$CFG/test_common.sh" | put "$BUILD/test_common.sh"

# --- link helper, called by make for each program
cat <<EOF | put "$BUILD/link-one.sh"
#!/usr/bin/env bash
# link-one.sh DIR NAME OBJ... : link one test program, or say why not (NAME.skip)
set -u
dir=\$1 name=\$2; shift 2
out=$BUILD/\$dir/\$name
rm -f "\$out" "\$out.skip" "\$out.linklog"
for o in "\$@"; do
    if [ -f "\$o.failed" ]; then
        echo "does not compile against our headers: \$(grep -m1 'error' "\$o.log" | sed 's|.*/||')" > "\$out.skip"
        exit 0
    fi
done
h5=\$(nm -u "\$@" 2>/dev/null | awk '\$2 ~ /^H5/ {print \$2}' | sort -u)
libs=
# standins/nc_internals.c's zutest: netcdf-c's libnetcdf binds to the program's
nm "\$@" 2>/dev/null | grep -q ' [BCD] zutest\$' && libs="-Wl,--export-dynamic-symbol=zutest"
if [ -n "\$h5" ]; then
    if [ "$NCSUITE_HDF5" = 1 ]; then
        libs="\$libs -L$HDF5_LIB -lhdf5_hl -lhdf5"
    else
        echo "calls HDF5 directly (\$(echo \$h5 | tr ' ' '\n' | head -4 | paste -sd, -))" > "\$out.skip"
        exit 0
    fi
fi
if ! $CC -o "\$out.tmp" "\$@" -L$LIBDIR -Wl,--no-undefined -Wl,--no-allow-shlib-undefined -lnetcdf \$libs -lm -lpthread 2> "\$out.linklog"; then
    syms=\$(grep -o "undefined reference to \\\`[^']*'" "\$out.linklog" | sed "s/.*\\\`//; s/'\\\$//" | sort -u)
    if [ -n "\$syms" ]; then
        n=\$(echo "\$syms" | wc -l)
        echo "uses netcdf-c internals that our libnetcdf does not export: \$(echo "\$syms" | head -5 | paste -sd' ' -)\$( [ "\$n" -gt 5 ] && echo " (+\$((n-5)) more)")" > "\$out.skip"
    else
        echo "does not link: \$(grep -m1 -i error "\$out.linklog")" > "\$out.skip"
    fi
    rm -f "\$out.tmp"
    exit 0
fi
if readelf -d "\$out.tmp" | grep -qE 'RPATH|RUNPATH'; then
    echo "build: \$out has an rpath" >&2; exit 1
fi
undef=\$(LD_LIBRARY_PATH=$LIBDIR ldd -r "\$out.tmp" 2>&1 | grep -m3 'undefined symbol' | awk '{print \$3}' | paste -sd' ' -)
if [ -n "\$undef" ]; then
    echo "unresolved at load time over our libnetcdf: \$undef" > "\$out.skip"
    rm -f "\$out.tmp"; exit 0
fi
mv "\$out.tmp" "\$out"
rm -f "\$out.linklog"
EOF
chmod +x "$BUILD/link-one.sh"

# --- the Makefile
excluded_names=" "
for e in "${EXCLUDED[@]}"; do excluded_names+="${e%%|*} "; done
ourhdrs=$(ls "$OURINC"/*.h | paste -sd' ' -)
{
    echo "# generated by tests/netcdf_c_suite/build.sh"
    echo "CC := $CC"
    echo "CFLAGS := -O1 -g -w -fcommon -std=gnu11"
    echo "COMMON := -DHAVE_CONFIG_H -DTOPSRCDIR=$SRC -DTOPBINDIR=$BUILD -I$OURINC -I$INC -I$HDF5_INC"
    echo "HDRS := $ourhdrs $INC/config.h"
    echo ".SUFFIXES:"
    echo ".SECONDARY:"
    echo "all:"
    echo "$BUILD/gen/nc_test/%.c: $SRC/nc_test/%.m4"
    printf '\t@mkdir -p $(@D) && cd %s/nc_test && m4 $< > $@.tmp && mv $@.tmp $@\n' "$SRC"
    for g in "${GENERATED[@]}"; do
        IFS='|' read -r gname gline gsrc <<< "$g"
        echo "$BUILD/gen/$gname: $SRC/$gsrc"
        printf '\t@mkdir -p $(@D) && { echo %q; cat $<; } > $@.tmp && mv $@.tmp $@\n' "$gline"
    done
    echo "$BUILD/obj/standins/%.o: $SUITE_DIR/standins/%.c \$(HDRS)"
    printf '\t@mkdir -p $(@D); rm -f $@.failed; $(CC) $(COMMON) $(CFLAGS) -MMD -MP -c $< -o $@ 2> $@.log || { touch $@.failed $@; echo "build: cannot compile $<"; }\n'
    for d in nc_test nc_test4 ncdump nczarr_test; do
        extra="-I$SRC/$d"
        [ "$d" = nc_test ] && extra+=" -I$SRC/libsrc"
        [ "$d" = nczarr_test ] && extra+=" -I$SRC -I$SRC/libnczarr"
        for pair in "%:$SRC/$d" "m4_%:$BUILD/gen/$d"; do
            echo "$BUILD/obj/$d/${pair%%:*}.o: ${pair#*:}/%.c \$(HDRS)"
            printf '\t@mkdir -p $(@D); rm -f $@.failed; $(CC) $(COMMON) %s $(CFLAGS) -MMD -MP -c $< -o $@ 2> $@.log || { touch $@.failed $@; echo "build: cannot compile $<"; }\n' "$extra"
        done
    done
    statuses=()
    for p in "${PROGRAMS[@]}"; do
        read -r d name srcs <<< "$p"
        case "$excluded_names" in *" $d/$name "*) continue ;; esac
        [ -n "$srcs" ] || srcs="$name.c"
        objs=()
        for s in $srcs; do
            if [[ $s == @* ]]; then
                s=${s#@}
                [ -f "$SRC/$d/${s%.c}.m4" ] || [[ " ${GENERATED[*]} " == *" $d/$s|"* ]] \
                    || { echo "build: no $SRC/$d/${s%.c}.m4" >&2; exit 1; }
                s=m4_$s
            elif [[ $s == %* ]]; then
                s=${s#%}
                [ -f "$SUITE_DIR/standins/$s" ] || { echo "build: no $SUITE_DIR/standins/$s" >&2; exit 1; }
                objs+=("$BUILD/obj/standins/${s%.c}.o")
                continue
            else
                [ -f "$SRC/$d/$s" ] || { echo "build: no $SRC/$d/$s" >&2; exit 1; }
            fi
            objs+=("$BUILD/obj/$d/${s%.c}.o")
        done
        st=$BUILD/$d/$name.status
        statuses+=("$st")
        echo "$st: ${objs[*]} $BUILD/libsyms.stamp $BUILD/link-one.sh"
        printf '\t@%s/link-one.sh %s %s %s && touch $@\n' "$BUILD" "$d" "$name" "${objs[*]}"
    done
    echo "all: ${statuses[*]}"
    echo "-include \$(wildcard $BUILD/obj/*/*.d)"
} | put "$BUILD/Makefile"

# Dependency files name sources by absolute path. One written from a
# checkout elsewhere (another clone, another CI path) names a source that
# is gone, which make cannot remake ("No rule to make target"): such
# objects are dropped and rebuilt from this checkout.
for dep in "$BUILD"/obj/*/*.d; do
    [ -e "$dep" ] || continue
    src=$(tr '\\\n' '  ' < "$dep" | sed 's/^[^:]*: *//' | awk '{ print $1 }')
    if [ -n "$src" ] && [ ! -e "$src" ]; then
        rm -f "$dep" "${dep%.d}.o"
    fi
done

log "compiling and linking against $LIBFILE ..."
t0=$(date +%s)
make -s -k -j"$(nproc)" -f "$BUILD/Makefile" all
log "make took $(( $(date +%s) - t0 )) s"

# --- what was built, what was not
: > "$BUILD/built.txt.new"; : > "$BUILD/not_built.txt.new"
for p in "${PROGRAMS[@]}"; do
    read -r d name _ <<< "$p"
    case "$excluded_names" in *" $d/$name "*) continue ;; esac
    if [ -x "$BUILD/$d/$name" ]; then
        echo "$d/$name" >> "$BUILD/built.txt.new"
    elif [ -f "$BUILD/$d/$name.skip" ]; then
        printf '%s  %s\n' "$d/$name" "$(cat "$BUILD/$d/$name.skip")" >> "$BUILD/not_built.txt.new"
    else
        printf '%s  %s\n' "$d/$name" "build failed (see $BUILD/$d/$name.linklog)" >> "$BUILD/not_built.txt.new"
    fi
done
mv "$BUILD/built.txt.new" "$BUILD/built.txt"
mv "$BUILD/not_built.txt.new" "$BUILD/not_built.txt"
echo "$LIBDIR" > "$BUILD/libdir.txt"
echo "$stamp" > "$BUILD/.stamp"
log "$(wc -l < "$BUILD/built.txt") programs built in $BUILD, $(wc -l < "$BUILD/not_built.txt") not built:"
sed 's/^/  /' "$BUILD/not_built.txt"
