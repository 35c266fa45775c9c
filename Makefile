# nczarr-rs: build, example and tests.
#
#   make quickstart   build the library, compile and run examples/quickstart.c
#   make test         install test dependencies, then run every test
#
# The library is target/release/libnetcdf.so (SONAME libnetcdf.so.19).

LIBDIR   := $(CURDIR)/target/release
LIB      := $(LIBDIR)/libnetcdf.so
CFLAGS   ?= -std=c99 -Wall -Wextra -O2
VENV     := $(CURDIR)/.venv
# Test tools built from source (cbindgen) live outside the clone, so a
# machine builds them once.
TOOLS    ?= $(or $(NCZARR_RS_TOOLS),$(HOME)/.cache/nczarr-rs/tools)
CBINDGEN := $(TOOLS)/bin/cbindgen

.PHONY: all build quickstart test deps lint unit-test abi-check ctest interop-test clean

all: build

build:
	cargo build --release
	ln -sf libnetcdf.so $(LIBDIR)/libnetcdf.so.19

quickstart: build
	cc $(CFLAGS) -I$(CURDIR)/include examples/quickstart.c -L$(LIBDIR) -lnetcdf \
	    -Wl,-rpath,$(LIBDIR) -o $(CURDIR)/target/quickstart
	$(CURDIR)/target/quickstart

test: deps lint build unit-test abi-check ctest interop-test

deps:
	NCZARR_RS_TOOLS=$(TOOLS) tools/install-test-deps.sh

lint:
	cargo fmt --all -- --check
	cargo clippy --release --all-targets -- -D warnings

unit-test:
	cargo test --release

abi-check: build
	ctests/abi/check.sh $(LIB) $(CBINDGEN)

ctest: build
	ctests/run.sh $(LIBDIR)

interop-test: build
	NCZARR_RS_LIBDIR=$(LIBDIR) $(VENV)/bin/python -m pytest -q -p no:cacheprovider tests/interop

clean:
	cargo clean
	rm -rf quickstart.zarr

# Debian's ncdump, ncgen and nccopy run over our library, checked against
# the same binaries over netcdf-c 4.10.1 (tests/tools/harness.py); `make
# test` runs it after the other tests.
.PHONY: tools-test
test: tools-test
tools-test: build
	NCZARR_RS_LIBDIR=$(LIBDIR) $(VENV)/bin/python -m pytest -q -p no:cacheprovider tests/tools
