#!/usr/bin/env bash
# Get netcdf-c 4.9.0's source (Debian's source package "netcdf") into a cache
# outside the repository, once:
#   ${NCZARR_RS_TOOLS:-$HOME/.cache/nczarr-rs/tools}/netcdf-c-src/
# The unpacked tree is netcdf-c-src/tree (a symlink to netcdf-4.9.0/).
# Adds a deb-src entry for this machine's Debian release when none exists,
# runs apt-get update and installs dpkg-dev when needed. Needs root (apt).
set -euo pipefail

TOOLS=${NCZARR_RS_TOOLS:-$HOME/.cache/nczarr-rs/tools}
CACHE=$TOOLS/netcdf-c-src
WANT_VERSION=4.9.0

if [ -f "$CACHE/tree/nc_test/test_get.m4" ] && [ -f "$CACHE/.fetched" ]; then
    echo "fetch: netcdf-c source already in $CACHE/tree"
    exit 0
fi

SUDO=
[ "$(id -u)" = 0 ] || SUDO=sudo

have_deb_src() {
    grep -qsE '^[[:space:]]*deb-src[[:space:]]' /etc/apt/sources.list /etc/apt/sources.list.d/*.list && return 0
    grep -qsiE '^[[:space:]]*Types:.*deb-src' /etc/apt/sources.list.d/*.sources && return 0
    return 1
}

if ! have_deb_src; then
    . /etc/os-release
    codename=${VERSION_CODENAME:-bookworm}
    # Reuse the mirror the machine already uses for binary packages.
    uri=$(grep -hsiE '^[[:space:]]*URIs:' /etc/apt/sources.list.d/*.sources | grep -v -- '-security' | head -1 | awk '{print $2}')
    [ -n "$uri" ] || uri=$(grep -hsE '^[[:space:]]*deb[[:space:]]' /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
        | grep -v -- '-security' | head -1 | sed -E 's/^[[:space:]]*deb[[:space:]]+(\[[^]]*\][[:space:]]+)?([^[:space:]]+).*/\2/')
    [ -n "$uri" ] || uri=http://deb.debian.org/debian
    keyring=/usr/share/keyrings/debian-archive-keyring.gpg
    echo "fetch: adding deb-src for $codename ($uri) in /etc/apt/sources.list.d/nczarr-rs-deb-src.sources"
    {
        echo "Types: deb-src"
        echo "URIs: $uri"
        echo "Suites: $codename ${codename}-updates"
        echo "Components: main"
        [ -f "$keyring" ] && echo "Signed-By: $keyring"
    } | $SUDO tee /etc/apt/sources.list.d/nczarr-rs-deb-src.sources >/dev/null
    $SUDO apt-get update -qq
elif ! apt-cache showsrc netcdf >/dev/null 2>&1 || [ -z "$(apt-cache showsrc netcdf 2>/dev/null)" ]; then
    $SUDO apt-get update -qq
fi

command -v dpkg-source >/dev/null || $SUDO apt-get install -y -qq dpkg-dev

mkdir -p "$CACHE"
cd "$CACHE"
rm -rf netcdf-[0-9]* tree
# apt-get source as root warns that it cannot drop privileges to _apt; harmless.
apt-get source -qq "netcdf=$(apt-cache showsrc netcdf | awk '/^Version:/{print $2}' | grep "^1:$WANT_VERSION" | head -1)" \
    || apt-get source -qq netcdf
dir=$(ls -d netcdf-[0-9]*/ | head -1)
dir=${dir%/}
[ -f "$dir/nc_test/test_get.m4" ] || { echo "fetch: $dir has no nc_test/test_get.m4" >&2; exit 1; }
grep -q "$WANT_VERSION" "$dir/configure.ac" || echo "fetch: warning: $dir is not netcdf-c $WANT_VERSION" >&2
ln -sfn "$dir" tree
date -u +%FT%TZ > .fetched
echo "fetch: netcdf-c source in $CACHE/tree ($dir)"
