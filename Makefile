# gpuidx - compressed posting lists and GPU-batched intersection for PostgreSQL
#
# PGXS build.  The C parts always build; the CUDA parts (cuda/*.cu) build
# when nvcc is found (NVCC=... to point at one, NVCC= to build CPU-only).
#
#   make && make install        build and install into PG_CONFIG's server
#   make COPT=-DUSE_ASSERT_CHECKING   the same with the extension's Asserts on
#                               (works against a server built without them)
#   make unittest               C unit tests of the pure-C codec core
#   make installcheck           pg_regress suite against a running server
#   make prove_installcheck     TAP tests (test/t/*.pl; each starts its own
#                               servers from PG_CONFIG's bindir; not as root)
#   test/run-tests.sh           everything, on a fresh Debian machine

EXTENSION = gpuidx
MODULE_big = gpuidx
# Scripts: shipped versions' are frozen files (DATA); the current version's
# install script and its update script from EXTVERSION_PREV are generated
# from sql/gpuidx.sql.in (its head says how to add objects).
EXTVERSION = $(shell sed -n "s/^default_version *= *'\([^']*\)'.*/\1/p" $(EXTENSION).control)
EXTVERSION_PREV = 0.1
DATA = sql/gpuidx--0.1.sql
DATA_built = sql/gpuidx--$(EXTVERSION).sql sql/gpuidx--$(EXTVERSION_PREV)--$(EXTVERSION).sql
PGFILEDESC = "gpuidx - compressed posting lists with GPU-batched intersection"

CODEC_SRCS = $(sort $(wildcard src/codec/gpx_*.c))
PG_SRCS = $(sort $(wildcard src/*.c))
OBJS = $(CODEC_SRCS:.c=.o) $(PG_SRCS:.c=.o)

REGRESS = $(sort $(patsubst sql/%.sql,%,$(filter-out sql/gpuidx--%,$(wildcard sql/*.sql))))
REGRESS_OPTS = --load-extension=$(EXTENSION)

PG_CONFIG ?= pg_config
PG_CPPFLAGS = -I$(srcdir)/src -I$(srcdir)/src/codec -I$(srcdir)/cuda
# -ffp-contract=off: BM25 scores must be the same bits on every path
# (src/codec/gpx_bm25.h), so no multiply-add may be fused
PG_CFLAGS = -std=gnu11 -Wall -Wextra -Wno-unused-parameter -Wno-sign-compare \
	-Wno-missing-field-initializers -ffp-contract=off

# ---- CUDA (optional) ------------------------------------------------------
# With nvcc: cuda/*.cu plus the host-only planner cuda/gpx_cuda_plan.c, for
# the GPU architectures of CUDA_ARCH (cuda/cuda.mk).  Without: the stub
# cuda/gpx_cuda_none.c, whose every call says the build has no CUDA.
#
# make GPX_EMU=1 (tests only, never production): the same back end compiled
# by the host compiler against the CUDA emulation of test/gpu/gpx_emu.h
# instead of nvcc, so that the executor's GPU path (routing, batches in
# flight, the device cache, faults, GPU = CPU) runs on a machine without a
# GPU, slowly: test/run-tests.sh's "gpu-exec" stage runs TAP suites on it.
NVCC ?= $(shell command -v nvcc 2>/dev/null || { test -x /usr/local/cuda/bin/nvcc && echo /usr/local/cuda/bin/nvcc; })
CUDA_SRCS = $(sort $(wildcard cuda/*.cu))
ifeq ($(GPX_EMU),1)
CUDA_OBJS = $(CUDA_SRCS:.cu=.emuo)
OBJS += cuda/gpx_cuda_plan.o
EXTRA_CLEAN += $(CUDA_OBJS)
SHLIB_LINK += $(CUDA_OBJS) -ldl -lrt -lpthread -Wl,-Bstatic -lstdc++ -Wl,-Bdynamic \
	-Wl,--exclude-libs,ALL
else ifneq ($(strip $(NVCC)),)
ifneq ($(strip $(CUDA_SRCS)),)
CUDA_HOME ?= $(patsubst %/bin/,%,$(dir $(NVCC)))
NVCCFLAGS ?= -O3 -std=c++17 $(CUDA_GENCODE) -Xcompiler -fPIC -Xcompiler -Wall \
	-Isrc/codec -Icuda
CUDA_OBJS = $(CUDA_SRCS:.cu=.cuo)
OBJS += cuda/gpx_cuda_plan.o
EXTRA_CLEAN += $(CUDA_OBJS)
# CUDA objects are linked through SHLIB_LINK, not OBJS: PGXS emits LLVM
# bitcode for every object in OBJS and has no bitcode rule for .cu files.
# The CUDA runtime is linked statically; it opens libcuda only on first use,
# so the library loads on machines without an NVIDIA driver.  libstdc++ is
# linked statically too, with its symbols hidden, so a library built with a
# newer gcc loads beside an older system libstdc++ and clashes with nothing.
SHLIB_LINK += $(CUDA_OBJS) -L$(CUDA_HOME)/lib64 -L$(CUDA_HOME)/targets/x86_64-linux/lib \
	-lcudart_static -ldl -lrt -lpthread -Wl,-Bstatic -lstdc++ -Wl,-Bdynamic \
	-Wl,--exclude-libs,ALL
endif
endif
ifeq ($(strip $(CUDA_OBJS)),)
OBJS += cuda/gpx_cuda_none.o
endif

PGXS := $(shell $(PG_CONFIG) --pgxs)
# PGXS emits LLVM bitcode (for JIT) with the clang PostgreSQL was built
# with; where that clang is missing (the GPU machine's bundle) skip it.
PG_CLANG := $(shell sed -n 's/^CLANG *= *//p' $(dir $(PGXS))../Makefile.global 2>/dev/null)
ifeq ($(wildcard $(firstword $(PG_CLANG))),)
override with_llvm = no
endif
include $(PGXS)
# COPT's defines (make COPT=-DUSE_ASSERT_CHECKING) reach the JIT bitcode
# too, so that inlined copies agree with the library on every struct
BITCODE_CFLAGS += $(filter -D%,$(COPT))

# which back end the library was last linked with (nvcc, emu or none): a
# change relinks it, so switching between make and make GPX_EMU=1 never
# leaves the other back end's objects in the library
GPX_FLAVOUR = $(if $(filter 1,$(GPX_EMU)),emu,$(if $(strip $(CUDA_OBJS)),nvcc,none))
.gpx-flavour: FORCE
	@echo '$(GPX_FLAVOUR)' | cmp -s - $@ || echo '$(GPX_FLAVOUR)' >$@
.PHONY: FORCE
FORCE:
$(shlib): .gpx-flavour
EXTRA_CLEAN += .gpx-flavour

ifneq ($(strip $(CUDA_OBJS)),)
cuda/%.cuo: cuda/%.cu $(wildcard cuda/*.cuh) $(wildcard src/codec/*.h)
	$(NVCC) $(NVCCFLAGS) -c $< -o $@
cuda/%.emuo: cuda/%.cu $(wildcard cuda/*.cuh) $(wildcard src/codec/*.h) test/gpu/gpx_emu.h
	$(CXX) -O1 -g -std=c++17 -fPIC -Wall -Wno-unknown-pragmas -DGPX_EMU -Itest/gpu \
		-Isrc/codec -Icuda -x c++ -c $< -o $@
$(shlib): $(CUDA_OBJS)
endif

# the generated scripts (a template error stops make, leaving no script)
sql/gpuidx--$(EXTVERSION).sql: sql/gpuidx.sql.in sql/gpuidx_gen.awk
	awk -v to=$(EXTVERSION) -f sql/gpuidx_gen.awk $< >$@.tmp || { rm -f $@.tmp; exit 1; }
	mv $@.tmp $@
sql/gpuidx--$(EXTVERSION_PREV)--$(EXTVERSION).sql: sql/gpuidx.sql.in sql/gpuidx_gen.awk
	awk -v from=$(EXTVERSION_PREV) -v to=$(EXTVERSION) -f sql/gpuidx_gen.awk $< >$@.tmp || { rm -f $@.tmp; exit 1; }
	mv $@.tmp $@

$(OBJS): $(wildcard src/*.h) $(wildcard src/codec/*.h) $(wildcard cuda/*.h)

# ---- tests --------------------------------------------------------------------
# The reference library (test/ref) serves the unit tests, the fuzzers, the
# generator and the benchmarks; the unit-test harness is test/unit/unit.c.
REF_SRCS = test/ref/gpx_ref.c
REF_HDRS = test/ref/gpx_ref.h

# C unit tests of the codec core and the CUDA planner (no PostgreSQL needed)
UNIT_CC ?= $(CC)
UNIT_CFLAGS ?= -O2 -g -std=gnu11 -Wall -Wextra -ffp-contract=off -Isrc/codec -Icuda -Itest/ref -Itest/unit
UNIT_TESTS = $(patsubst test/unit/%.c,test/unit/bin/%,$(wildcard test/unit/test_*.c))
UNIT_LIB_SRCS = $(CODEC_SRCS) cuda/gpx_cuda_plan.c $(REF_SRCS) test/unit/unit.c

test/unit/bin/%: test/unit/%.c $(UNIT_LIB_SRCS) $(wildcard src/codec/*.h) cuda/gpx_cuda_plan.h $(REF_HDRS) $(wildcard test/unit/*.h)
	@mkdir -p test/unit/bin
	$(UNIT_CC) $(UNIT_CFLAGS) -o $@ $< $(UNIT_LIB_SRCS) -lm -lpthread

# test_gputhread builds the executor's GPU thread with the back end of
# builds without nvcc into itself
test/unit/bin/test_gputhread: src/exec_gputhread.c src/exec_gputhread.h cuda/gpx_cuda_none.c

.PHONY: unittest unittest-build
unittest-build: $(UNIT_TESTS)
unittest: unittest-build
	@test/unit/run-unit.sh $(UNIT_TESTS)

EXTRA_CLEAN += test/unit/bin

# TAP tests through PGXS's prove_installcheck (PROVE_TESTS picks files,
# PROVE_FLAGS adds prove options); installcheck stays pg_regress alone
PROVE_TESTS ?= $(sort $(wildcard test/t/*.pl))
.PHONY: prove_installcheck
ifeq ($(enable_tap_tests),yes)
prove_installcheck:
	$(prove_installcheck)
else
prove_installcheck:
	@echo "prove_installcheck: $(PG_CONFIG)'s PGXS has no TAP support (built without --enable-tap-tests)"; exit 1
endif

# ---- benchmarks, data generator, demo; GPU tests ------------------------------
include test/bench/bench.mk
include cuda/cuda.mk
include test/fuzz/fuzz.mk
