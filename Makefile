# nczarr-rs: build, example and tests.
#
#   make quickstart   build the library, compile and run examples/quickstart.c
#   make test         install test dependencies, then run every test
#   make install      install library, headers, netcdf.pc, nc-config and the
#                     CMake package netCDF (PREFIX=/usr/local, DESTDIR)
#   make uninstall    remove exactly what make install installed
#   make MPI=1 ...    the same for the parallel build (nc_create_par and
#                     nc_open_par over MPI, in target/mpi/release)
#
# The library is target/release/libnetcdf.so (SONAME libnetcdf.so.19); the
# build (build.rs) links libnetcdf.so.19 to it, so programs linked against
# target/release load it and not a system netcdf-c.

TARGET_DIR := $(or $(CARGO_TARGET_DIR),$(CURDIR)/target)
SERIAL_LIBDIR := $(abspath $(TARGET_DIR))/release
# The parallel build (nc_create_par/nc_open_par over MPI, Cargo feature
# mpi) has its own target directory, so both builds coexist: `make MPI=1`
# (build, install, ...) works on it, and `make mpi-test` builds both.
MPI_TARGET_DIR := $(abspath $(TARGET_DIR))/mpi
MPI_LIBDIR := $(MPI_TARGET_DIR)/release
ifeq ($(MPI),1)
CARGO_FLAGS := --features mpi --target-dir $(MPI_TARGET_DIR)
LIBDIR   := $(MPI_LIBDIR)
else
CARGO_FLAGS :=
LIBDIR   := $(SERIAL_LIBDIR)
endif
LIB      := $(LIBDIR)/libnetcdf.so
CFLAGS   ?= -std=c99 -Wall -Wextra -O2
VENV     := $(CURDIR)/.venv
# Test tools built from source (cbindgen) live outside the clone, so a
# machine builds them once.
TOOLS    ?= $(or $(NCZARR_RS_TOOLS),$(HOME)/.cache/nczarr-rs/tools)
CBINDGEN := $(TOOLS)/bin/cbindgen
# Every pytest run lists what it skipped, expected to fail or passed
# unexpectedly, with reasons (-r: f, E as by default, s, x, X); with
# CI=true any skip is a failure (tests/pytest_no_skip.py).
PYTEST    = $(VENV)/bin/python -m pytest -q -rfEsxX -p no:cacheprovider -p tests.pytest_no_skip

# Installation directories (GNU names; libdir may be e.g. $(PREFIX)/lib/x86_64-linux-gnu).
PREFIX     ?= /usr/local
bindir     ?= $(PREFIX)/bin
libdir     ?= $(PREFIX)/lib
includedir ?= $(PREFIX)/include
INSTALL_ENV = PREFIX='$(PREFIX)' bindir='$(bindir)' libdir='$(libdir)' includedir='$(includedir)' \
	DESTDIR='$(DESTDIR)' FORCE='$(FORCE)' LIB='$(LIB)' PARALLEL='$(MPI)'

.PHONY: all build quickstart test deps lint unit-test fuzz-test abi-check ctest bench-smoke memcheck-test interop-test s3-test zip-test v3-test package-test \
	fortran-test tools-abi-test tools-test reference-test programs-test netcdf-c-suite-test mpi-test install uninstall clean

all: build

build:
	cargo build --release $(CARGO_FLAGS)
	@test "$$(readlink $(LIBDIR)/libnetcdf.so.19)" = libnetcdf.so || \
	    { echo "error: no $(LIBDIR)/libnetcdf.so.19 -> libnetcdf.so, which build.rs makes" \
	        "(touch build.rs to rerun it); without it programs load the system's netcdf-c"; exit 1; }

quickstart: build
	cc $(CFLAGS) -I$(CURDIR)/include examples/quickstart.c -L$(LIBDIR) -lnetcdf \
	    -Wl,-rpath,$(LIBDIR) -o $(TARGET_DIR)/quickstart
	$(TARGET_DIR)/quickstart

# Under `make test` nothing may be skipped, as in CI: CI=true, which the
# suites honour (a missing tool, server or compiler fails; pytest skips
# fail, tests/pytest_no_skip.py; bench/smoke.sh and tests/s3_driver.rs
# fail too), for every target it runs. A target run alone (make
# interop-test) may still skip, and says what and why.
test: export CI = true
test: deps lint build unit-test fuzz-test abi-check ctest bench-smoke memcheck-test tools-abi-test interop-test v3-test s3-test reference-test zip-test tools-test programs-test netcdf-c-suite-test fortran-test package-test mpi-test

deps:
	NCZARR_RS_TOOLS=$(TOOLS) tools/install-test-deps.sh

lint:
	cargo fmt --all -- --check
	rustfmt --edition 2024 --check fuzz/src/*.rs fuzz/fuzz_targets/*.rs
	cargo clippy --release --all-targets -- -D warnings
	cargo clippy --release --all-targets --features mpi --target-dir $(MPI_TARGET_DIR) -- -D warnings

# The S3 driver's tests (tests/s3_driver.rs) need moto and s3s-fs on
# 127.0.0.1: started here, stopped whatever the tests' outcome.
S3_SERVERS = MOTO_SERVER=$(VENV)/bin/moto_server S3S_FS=$(TOOLS)/bin/s3s-fs $(CURDIR)/tools/s3-servers.sh
S3_STATE  := $(abspath $(TARGET_DIR))/s3-servers

unit-test:
	$(S3_SERVERS) start $(S3_STATE) >/dev/null
	set -a; . $(S3_STATE)/urls.env; set +a; cargo test --release; rc=$$?; \
	    $(S3_SERVERS) stop $(S3_STATE); exit $$rc

# Every fuzz target (fuzz/) for FUZZ_SECONDS each (default 20; about 3
# minutes in all, plus the build), from the committed seeds; fails on any
# crash, timeout or memory blow-up. fuzz/README.md has the details.
fuzz-test: deps
	NCZARR_RS_TOOLS=$(TOOLS) fuzz/run.sh

abi-check: build
	ctests/abi/check.sh $(LIB) $(CBINDGEN)

# Then again on zip archives, the tests that use only the API (the others
# look at the directory store's files).
CTESTS_ON_ZIP = t_atts t_cbuffers t_dims t_fork t_fork_after_threads t_groups t_misc t_process t_quantize \
	t_threads t_udt t_v2 t_write_behind t_write_errors
ctest: build
	ctests/run.sh $(LIBDIR)
	NCZARR_RS_CTEST_STORAGE=zip ctests/run.sh $(LIBDIR) $(CTESTS_ON_ZIP)

# The shared benchmark programs (ncbench.c, ncz_bench.c) against this
# library on tiny cubes, every storage mode, codec and workload, and
# zarr-python's stores read back: correctness only, every value checked,
# no timing (bench/run measures; see bench/RESULTS.md).
bench-smoke: build
	bench/smoke.sh $(LIBDIR)

# The C tests under AddressSanitizer (+UBSan, LeakSanitizer) and valgrind.
memcheck-test: build
	ctests/memcheck.sh $(LIBDIR)
	NCZARR_RS_CTEST_SANITIZE=asan ctests/run.sh --for 120 $(LIBDIR) t_fork

# The netcdf-c internals Debian's ncdump/ncgen/nccopy import, compared
# call by call with Debian's own libnetcdf.so.19 (from netcdf-bin).
tools-abi-test: build
	ctests/tools_abi/run.sh $(LIBDIR)

interop-test: build
	NCZARR_RS_LIBDIR=$(LIBDIR) $(PYTEST) tests/interop

# S3: moto[server] (from the venv) and s3s-fs (verifies signatures) on
# 127.0.0.1, started by the tests (tests/s3/conftest.py), with a counting,
# fault-injecting proxy (tests/s3/proxy.py) in front of them.
s3-test: build
	NCZARR_RS_LIBDIR=$(LIBDIR) NCZARR_RS_TOOLS=$(TOOLS) $(PYTEST) tests/s3

# kerchunk / VirtualiZarr reference files (#mode=zarr,reference) of netCDF
# files, on disk and on the S3 test servers, read through our library and
# compared with netcdf-c's read of the files (tests/reference/README.md);
# then the reference benchmark's smoke (bench/reference/run --smoke: each of
# its readers on a tiny field over s3s-fs, every value checked, no timing
# judged; about 15 s).
reference-test: build
	NCZARR_RS_LIBDIR=$(LIBDIR) NCZARR_RS_TOOLS=$(TOOLS) $(PYTEST) tests/reference
	REF_PYTHON=$(VENV)/bin/python NCZARR_RS_TOOLS=$(TOOLS) MOTO_SERVER=$(VENV)/bin/moto_server \
	    bench/reference/run --smoke --libdir $(LIBDIR)

# Zarr v3: what zarr-python 3 and xarray write (tests/v3/corpus.py), read
# through our library and compared value by value with zarr-python's view.
v3-test: build
	NCZARR_RS_LIBDIR=$(LIBDIR) $(PYTEST) tests/v3

# Zip stores (file://...d.zip#mode=nczarr,zip): round trips, the layouts of
# netcdf-c, zarr-python and Info-ZIP's zip, writing, nccopy, hostile zips.
zip-test: build
	NCZARR_RS_LIBDIR=$(LIBDIR) $(PYTEST) tests/zip

# Debian's ncdump, ncgen and nccopy run over our library, checked against
# the same binaries over netcdf-c 4.10.1 (tests/tools/harness.py).
tools-test: build
	NCZARR_RS_LIBDIR=$(LIBDIR) $(PYTEST) tests/tools

# netcdf-c 4.9.0's own tests (nc_test, nc_test4, ncdump; from Debian's
# source package, built in a cache outside the clone) over Debian's
# libnetcdf and over ours: every test that passes over Debian's passes over
# ours, but those tests/netcdf_c_suite/exceptions.txt lists with a reason.
netcdf-c-suite-test: build
	tests/netcdf_c_suite/fetch.sh
	tests/netcdf_c_suite/compare.sh $(LIBDIR)

# Debian's programs linked to libnetcdf.so.19 (NCO, CDO, GDAL,
# python3-netcdf4, netcdf-c++4, ncdump/ncgen/nccopy) on .nc files, over
# Debian's netcdf-c and over us alike, and converting to NCZarr and back.
programs-test: build
	NCZARR_RS_LIBDIR=$(LIBDIR) $(PYTEST) tests/programs

# Fortran programs over Debian's netcdf-fortran (libnetcdff) over this library.
fortran-test: build
	tests/fortran/run.sh $(LIBDIR) $(VENV)/bin/python

# MPI: the parallel build (both builds, whatever MPI says) and its tests
# under mpirun on 4 ranks (ctests/mpi/run.sh): stores written in parallel,
# read back by every rank, by ncdump over the serial build and over
# netcdf-c 4.10.1, and by zarr-python; directories and S3 (moto, s3s-fs);
# netcdf-c's and (over netcdf-fortran) Fortran 90 parallel programs.
mpi-test:
	$(MAKE) build MPI=
	$(MAKE) build MPI=1
	MOTO_SERVER=$(VENV)/bin/moto_server S3S_FS=$(TOOLS)/bin/s3s-fs \
	    ctests/mpi/run.sh $(MPI_LIBDIR) $(SERIAL_LIBDIR) $(VENV)/bin/python

# Installs what `make build` built; it does not build (so `sudo make
# install` needs no Rust toolchain in root's PATH).
install:
	$(INSTALL_ENV) packaging/install.sh install

uninstall:
	$(INSTALL_ENV) packaging/install.sh uninstall

# Install into a scratch prefix and build programs against it with CMake,
# pkg-config and nc-config; check they run this library; uninstall.
package-test: build
	tests/package/run.sh $(LIBDIR)

clean:
	cargo clean
	rm -rf quickstart.zarr
