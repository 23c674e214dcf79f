# cuda/cuda.mk - GPU test and benchmark builds of the CUDA back end.
#
# Works on its own (no PostgreSQL needed, e.g. on the GPU machine):
#   make -f cuda/cuda.mk gpucheck     test/gpu/test_gpu (GPU vs CPU, needs a GPU), then
#                                     test/gpu/sqlcheck.sh: pg_regress through the GPU executor
#   make -f cuda/cuda.mk gpubench     build test/gpu/bin/bench_gpu and bench_gpu_rank
#   make -f cuda/cuda.mk emucheck     the same tests on the host emulation of
#                                     the kernels (test/gpu/gpx_emu.h), no GPU
#   make -f cuda/cuda.mk gpu-build    just build the programs
# or from the top-level Makefile after PGXS:   include cuda/cuda.mk
#
# Knobs: CUDA_ARCH, GPU_NVCC, GPU_TEST_ARGS (e.g. --quick), GPU_CC; for a
# variant build of the kernels (tuning), GPU_DEFS=-DNAME=VALUE together with
# GPU_VARIANT=_suffix puts objects and programs under their own names (the
# emulation's too: emucheck with the same two checks that variant), e.g.
# GPU_DEFS=-DGPX_DEC_FAST=7 GPU_VARIANT=_fast (cuda/gpx_dec_dev.cuh).

# The GPU architectures of every nvcc build, the extension's (Makefile) and
# these programs': sm_XY is machine code for compute capability X.Y (it
# runs on X.Y and later minor versions: sm_80 on A100, A10, L4, L40 too),
# compute_XY is PTX that the driver compiles for GPUs newer than any sm_
# listed.  The kernels need 8.0 or newer.  A quicker build for one GPU
# generation: make CUDA_ARCH=sm_90 (or sm_80).
CUDA_ARCH ?= sm_80 sm_90 compute_90
CUDA_GENCODE = $(foreach a,$(CUDA_ARCH),-gencode arch=compute_$(lastword $(subst _, ,$(a))),code=$(a))

GPU_NVCC ?= $(or $(NVCC),$(shell command -v nvcc 2>/dev/null),/usr/local/cuda/bin/nvcc)
GPU_DEFS ?=
GPU_VARIANT ?=
GPU_NVCCFLAGS ?= -O3 -std=c++17 $(CUDA_GENCODE) -Xcompiler -Wall $(GPU_DEFS) -Isrc/codec -Icuda
GPU_CC ?= gcc
GPU_CXX ?= g++
GPU_CFLAGS ?= -O2 -g -std=gnu11 -ffp-contract=off -Wall -Wextra -Wno-unused-parameter -Wno-sign-compare -Isrc/codec -Icuda
GPU_EMUFLAGS ?= -O1 -g -std=c++17 -Wall -Wno-unknown-pragmas -DGPX_EMU -DGPX_DIRECT_MIN_BYTES=4096 $(GPU_DEFS) -Itest/gpu -Isrc/codec -Icuda
GPU_TEST_ARGS ?=

GPU_CODEC_SRCS := $(sort $(wildcard src/codec/gpx_*.c))
GPU_CUDA_SRCS := $(sort $(wildcard cuda/*.cu))
GPU_CUDA_HDRS := $(wildcard cuda/*.cuh) $(wildcard cuda/*.h) $(wildcard src/codec/*.h)
GPU_OBJDIR := test/gpu/obj$(GPU_VARIANT)
# the codec core and the back end's host-only planner: C, built by GPU_CC
GPU_CODEC_OBJS := $(patsubst src/codec/%.c,$(GPU_OBJDIR)/codec/%.o,$(GPU_CODEC_SRCS)) \
	$(GPU_OBJDIR)/host/gpx_cuda_plan.o
GPU_CUDA_OBJS := $(patsubst cuda/%.cu,$(GPU_OBJDIR)/cuda/%.o,$(GPU_CUDA_SRCS))
GPU_EMU_OBJS := $(patsubst cuda/%.cu,$(GPU_OBJDIR)/emu/%.o,$(GPU_CUDA_SRCS))
# the unit-test harness and the reference library (test_gpu and test_s8b
# count cases with it)
GPU_UNIT_OBJS := $(GPU_OBJDIR)/test/unit.o $(GPU_OBJDIR)/test/gpx_ref.o
GPU_UNIT_INC := -Itest/unit -Itest/ref

GPU_TEST_BIN := test/gpu/bin/test_gpu$(GPU_VARIANT)
GPU_BENCH_BIN := test/gpu/bin/bench_gpu$(GPU_VARIANT)
GPU_EMU_BIN := test/gpu/bin/test_gpu_emu$(GPU_VARIANT)
# Simple-8b frequency blocks: device decode (cuda/gpx_s8b_dev.cuh) = CPU decode
GPU_S8B_BIN := test/gpu/bin/test_s8b$(GPU_VARIANT)
GPU_S8B_EMU_BIN := test/gpu/bin/test_s8b_emu$(GPU_VARIANT)
# ranked retrieval: GPU top-k (cuda/gpx_rank*.cu) = CPU (gpx_rank_batch_run)
GPU_RANK_BIN := test/gpu/bin/test_gpu_rank$(GPU_VARIANT)
GPU_RANK_EMU_BIN := test/gpu/bin/test_gpu_rank_emu$(GPU_VARIANT)
GPU_RANK_BENCH_BIN := test/gpu/bin/bench_gpu_rank$(GPU_VARIANT)
# batched union: GPU (cuda/gpx_union*.cu) = CPU pool (gpx_union_many) = naive
GPU_UNION_BIN := test/gpu/bin/test_gpu_union$(GPU_VARIANT)
GPU_UNION_EMU_BIN := test/gpu/bin/test_gpu_union_emu

.PHONY: gpucheck gpucheck-lib gpucheck-sql gpubench emucheck gpu-build gpu-clean

gpu-build: $(GPU_TEST_BIN) $(GPU_BENCH_BIN) $(GPU_S8B_BIN) $(GPU_RANK_BIN) $(GPU_RANK_BENCH_BIN) \
	$(GPU_UNION_BIN)

# gpucheck: GPU-versus-CPU library suites, then the whole pg_regress suite
# through the GPU executor (needs the extension installed; run as root or
# as a user that may start PostgreSQL)
gpucheck: gpucheck-lib gpucheck-sql

gpucheck-lib: $(GPU_TEST_BIN) $(GPU_S8B_BIN) $(GPU_RANK_BIN) $(GPU_UNION_BIN)
	$(GPU_TEST_BIN) $(GPU_TEST_ARGS)
	$(GPU_S8B_BIN)
	$(GPU_RANK_BIN)
	$(GPU_UNION_BIN)

gpucheck-sql:
	test/gpu/sqlcheck.sh

gpubench: $(GPU_BENCH_BIN) $(GPU_RANK_BENCH_BIN)

emucheck: $(GPU_EMU_BIN) $(GPU_S8B_EMU_BIN) $(GPU_RANK_EMU_BIN) $(GPU_UNION_EMU_BIN)
	$(GPU_EMU_BIN) --quick $(GPU_TEST_ARGS)
	$(GPU_S8B_EMU_BIN) --quick
	$(GPU_RANK_EMU_BIN) --quick
	$(GPU_UNION_EMU_BIN) --quick

$(GPU_OBJDIR)/codec/%.o: src/codec/%.c $(wildcard src/codec/*.h)
	@mkdir -p $(dir $@)
	$(GPU_CC) $(GPU_CFLAGS) -c $< -o $@

$(GPU_OBJDIR)/host/gpx_cuda_plan.o: cuda/gpx_cuda_plan.c cuda/gpx_cuda_plan.h $(wildcard src/codec/*.h)
	@mkdir -p $(dir $@)
	$(GPU_CC) $(GPU_CFLAGS) -c $< -o $@

$(GPU_OBJDIR)/test/%.o: test/unit/%.c test/unit/unit.h test/ref/gpx_ref.h $(wildcard src/codec/*.h)
	@mkdir -p $(dir $@)
	$(GPU_CC) $(GPU_CFLAGS) $(GPU_UNIT_INC) -c $< -o $@

$(GPU_OBJDIR)/test/%.o: test/ref/%.c test/ref/gpx_ref.h
	@mkdir -p $(dir $@)
	$(GPU_CC) $(GPU_CFLAGS) $(GPU_UNIT_INC) -c $< -o $@

$(GPU_OBJDIR)/cuda/%.o: cuda/%.cu $(GPU_CUDA_HDRS)
	@mkdir -p $(dir $@)
	$(GPU_NVCC) $(GPU_NVCCFLAGS) -c $< -o $@

$(GPU_OBJDIR)/emu/%.o: cuda/%.cu $(GPU_CUDA_HDRS) test/gpu/gpx_emu.h
	@mkdir -p $(dir $@)
	$(GPU_CXX) $(GPU_EMUFLAGS) -x c++ -c $< -o $@

$(GPU_TEST_BIN): test/gpu/test_gpu.cu test/gpu/gpu_rng.h $(GPU_CUDA_OBJS) $(GPU_CODEC_OBJS) $(GPU_UNIT_OBJS)
	@mkdir -p $(dir $@)
	$(GPU_NVCC) $(GPU_NVCCFLAGS) $(GPU_UNIT_INC) -o $@ $< $(GPU_CUDA_OBJS) $(GPU_CODEC_OBJS) $(GPU_UNIT_OBJS) -lpthread

$(GPU_BENCH_BIN): test/gpu/bench_gpu.cu test/gpu/gpu_rng.h $(GPU_CUDA_OBJS) $(GPU_CODEC_OBJS) $(GPU_CUDA_HDRS)
	@mkdir -p $(dir $@)
	$(GPU_NVCC) $(GPU_NVCCFLAGS) -Xcompiler -fopenmp -o $@ $< $(GPU_CUDA_OBJS) $(GPU_CODEC_OBJS) -lpthread

$(GPU_EMU_BIN): test/gpu/test_gpu.cu test/gpu/gpu_rng.h $(GPU_EMU_OBJS) $(GPU_CODEC_OBJS) $(GPU_UNIT_OBJS)
	@mkdir -p $(dir $@)
	$(GPU_CXX) $(GPU_EMUFLAGS) $(GPU_UNIT_INC) -x c++ -o $@ $< -x none $(GPU_EMU_OBJS) $(GPU_CODEC_OBJS) \
		$(GPU_UNIT_OBJS) -lpthread

$(GPU_S8B_BIN): test/gpu/test_s8b.cu test/gpu/gpu_rng.h test/gpu/gpu_test.h $(GPU_CODEC_OBJS) $(GPU_UNIT_OBJS) $(GPU_CUDA_HDRS)
	@mkdir -p $(dir $@)
	$(GPU_NVCC) $(GPU_NVCCFLAGS) $(GPU_UNIT_INC) -o $@ $< $(GPU_CODEC_OBJS) $(GPU_UNIT_OBJS)

$(GPU_S8B_EMU_BIN): test/gpu/test_s8b.cu test/gpu/gpu_rng.h test/gpu/gpu_test.h $(GPU_CODEC_OBJS) $(GPU_UNIT_OBJS) $(GPU_CUDA_HDRS) test/gpu/gpx_emu.h
	@mkdir -p $(dir $@)
	$(GPU_CXX) $(GPU_EMUFLAGS) $(GPU_UNIT_INC) -x c++ -o $@ $< -x none $(GPU_CODEC_OBJS) \
		$(GPU_UNIT_OBJS) -lpthread

$(GPU_RANK_BIN): test/gpu/test_gpu_rank.cu test/gpu/gpu_rng.h test/gpu/gpu_test.h $(GPU_CUDA_OBJS) $(GPU_CODEC_OBJS) $(GPU_UNIT_OBJS)
	@mkdir -p $(dir $@)
	$(GPU_NVCC) $(GPU_NVCCFLAGS) $(GPU_UNIT_INC) -o $@ $< $(GPU_CUDA_OBJS) $(GPU_CODEC_OBJS) $(GPU_UNIT_OBJS) -lpthread

$(GPU_RANK_BENCH_BIN): test/gpu/bench_gpu_rank.cu test/gpu/gpu_rng.h $(GPU_CUDA_OBJS) $(GPU_CODEC_OBJS) $(GPU_CUDA_HDRS)
	@mkdir -p $(dir $@)
	$(GPU_NVCC) $(GPU_NVCCFLAGS) -o $@ $< $(GPU_CUDA_OBJS) $(GPU_CODEC_OBJS) -lpthread

$(GPU_RANK_EMU_BIN): test/gpu/test_gpu_rank.cu test/gpu/gpu_rng.h test/gpu/gpu_test.h $(GPU_EMU_OBJS) $(GPU_CODEC_OBJS) $(GPU_UNIT_OBJS)
	@mkdir -p $(dir $@)
	$(GPU_CXX) $(GPU_EMUFLAGS) $(GPU_UNIT_INC) -x c++ -o $@ $< -x none $(GPU_EMU_OBJS) $(GPU_CODEC_OBJS) \
		$(GPU_UNIT_OBJS) -lpthread

$(GPU_UNION_BIN): test/gpu/test_gpu_union.cu test/gpu/gpu_rng.h test/gpu/gpu_test.h $(GPU_CUDA_OBJS) $(GPU_CODEC_OBJS) $(GPU_UNIT_OBJS)
	@mkdir -p $(dir $@)
	$(GPU_NVCC) $(GPU_NVCCFLAGS) $(GPU_UNIT_INC) -o $@ $< $(GPU_CUDA_OBJS) $(GPU_CODEC_OBJS) $(GPU_UNIT_OBJS) -lpthread

$(GPU_UNION_EMU_BIN): test/gpu/test_gpu_union.cu test/gpu/gpu_rng.h test/gpu/gpu_test.h $(GPU_EMU_OBJS) $(GPU_CODEC_OBJS) $(GPU_UNIT_OBJS)
	@mkdir -p $(dir $@)
	$(GPU_CXX) $(GPU_EMUFLAGS) $(GPU_UNIT_INC) -x c++ -o $@ $< -x none $(GPU_EMU_OBJS) $(GPU_CODEC_OBJS) \
		$(GPU_UNIT_OBJS) -lpthread

gpu-clean:
	rm -rf test/gpu/bin test/gpu/obj*

# the top-level make clean cleans these too (PGXS reads EXTRA_CLEAN too
# early for an include after it)
clean: gpu-clean
