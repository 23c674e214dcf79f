# test/bench/bench.mk - benchmark harness, synthetic data generator, demo.
# Included from the top-level Makefile (after PGXS, which defines CC and the
# codec sources):   include test/bench/bench.mk
#
#   make bench            CPU benchmark (docs/bench/cpu.md + PNGs)
#   make bench-gpu        the same on the GPU machine, GPU paths required
#   make bench-ci         a tiny run into test/bench/out (checks the harness;
#                         figures mostly "too small to report")
#   make gentest          generator and loader tests (test/gen/run-suite.sh)
#   make demo             scripts/demo.sh (root on a fresh Debian 12)
#   make bench-scaleout   1 server vs coordinator + 1 / 2 postgres_fdw shards
#   make bench-tf         Simple-8b frequency coding: greedy vs optimal packing
#                         (test/bench/bench_tf.sh -> test/bench/out/tf.md)
#   make bench-rank       ranked retrieval against GIN and RUM, backend and
#                         executor, 1 and 16 clients (test/bench/rank_bench.sh
#                         -> docs/bench/rank.md)
#   make bench-key        CPU cost of list identity per MB (keyed hash, memcmp)
#   make bench-setops     set algebra and appends: library and SQL against
#                         int4[] + intarray (docs/bench/setops.md)
#   make bench-tools      just build the programs below
#
# Knobs go to the scripts through the environment, e.g.
#   make bench BENCH_SCALE=0.05 BENCH_QUERIES=2000 BENCH_CORPUS=linux

BENCH_CC ?= $(CC)
BENCH_CFLAGS ?= -O2 -g -std=gnu11 -Wall -Wextra -Wno-unused-parameter
BENCH_PG_CONFIG ?= $(or $(PG_CONFIG),pg_config)
BENCH_PQ_INC ?= -I$(shell $(BENCH_PG_CONFIG) --includedir 2>/dev/null)
# libpq: the development symlink when there is one, else the runtime library
# itself (the GPU machine's PostgreSQL bundle has only libpq.so.5)
BENCH_PQ_LIB ?= $(shell d=$$($(BENCH_PG_CONFIG) --libdir 2>/dev/null); \
	if [ -e "$$d/libpq.so" ]; then echo "-L$$d -lpq"; else \
	for p in $$(echo "$$LD_LIBRARY_PATH" | tr : ' ') $$d /usr/lib/x86_64-linux-gnu; do \
	[ -e "$$p/libpq.so.5" ] && { echo "-L$$p -l:libpq.so.5"; break; }; done; fi)
BENCH_CODEC_SRCS ?= $(sort $(wildcard src/codec/gpx_*.c))
# the reference library (result hash, reference intersection, test lists)
BENCH_REF_SRCS ?= test/ref/gpx_ref.c
BENCH_REF_DEPS = $(BENCH_REF_SRCS) test/ref/gpx_ref.h

# the library-level benchmark links the CUDA objects when the main build made them
BENCH_CUDA_LINK = $(if $(strip $(CUDA_OBJS)),$(CUDA_OBJS) cuda/gpx_cuda_plan.o -L$(CUDA_HOME)/lib64 \
	-L$(CUDA_HOME)/targets/x86_64-linux/lib -lcudart_static -ldl -lrt -lstdc++,)

BENCH_PROGS = test/gen/bin/gpx_gen test/gen/bin/gpx_gencheck \
	test/bench/bin/bench_codec test/bench/bin/bench_query test/bench/bin/gpx_corpus \
	test/bench/bin/bench_size test/bench/bin/bench_rank test/bench/bin/bench_tf test/bench/bin/bench_key \
	test/bench/bin/bench_setops \
	test/bench/bin/bench_simd

# the codec size table of docs/bench/size.md (uniform lists in [0, 2^24))
test/bench/bin/bench_size: test/bench/bench_size.c $(BENCH_CODEC_SRCS) $(wildcard src/codec/*.h) $(BENCH_REF_DEPS)
	@mkdir -p test/bench/bin
	$(BENCH_CC) $(BENCH_CFLAGS) -Isrc/codec -Itest/ref -o $@ $< $(BENCH_CODEC_SRCS) $(BENCH_REF_SRCS) -lm -lpthread

# the CPU cost of list identity per MB (docs/RELIABILITY.md, "List identity")
test/bench/bin/bench_key: test/bench/bench_key.c test/unit/old_hash64.h $(BENCH_CODEC_SRCS) $(wildcard src/codec/*.h)
	@mkdir -p test/bench/bin
	$(BENCH_CC) $(BENCH_CFLAGS) -Isrc/codec -Itest/unit -o $@ $< $(BENCH_CODEC_SRCS) -lm -lpthread

.PHONY: bench-key
bench-key: test/bench/bin/bench_key
	test/bench/bin/bench_key

# the set algebra and append benchmark (docs/bench/setops.md with the SQL
# part: make bench-setops)
test/bench/bin/bench_setops: test/bench/bench_setops.c test/bench/bench_util.h $(BENCH_CODEC_SRCS) $(wildcard src/codec/*.h)
	@mkdir -p test/bench/bin
	$(BENCH_CC) $(BENCH_CFLAGS) -Isrc/codec -o $@ $< $(BENCH_CODEC_SRCS) -lm -lpthread

.PHONY: bench-setops
bench-setops: test/bench/bin/bench_setops
	test/bench/setops_bench.sh

.PHONY: bench-size
bench-size: test/bench/bin/bench_size
	@mkdir -p docs/bench
	{ echo "# Codec sizes"; echo; echo "- **date**: $$(date -u '+%Y-%m-%d %H:%M UTC')"; \
	  echo "- **command**: make bench-size"; echo "- **gpuidx**: $$(git rev-parse --short HEAD 2>/dev/null)"; echo; \
	  test/bench/bin/bench_size; } > docs/bench/size.md
	@cat docs/bench/size.md

# bits per frequency and decode speed of the Simple-8b packings
test/bench/bin/bench_tf: test/bench/bench_tf.c test/bench/bench_util.h test/gen/gen_common.h \
		$(BENCH_CODEC_SRCS) $(wildcard src/codec/*.h) $(BENCH_REF_DEPS)
	@mkdir -p test/bench/bin
	$(BENCH_CC) $(BENCH_CFLAGS) -Isrc/codec -Itest/gen -Itest/ref -o $@ $< $(BENCH_CODEC_SRCS) \
		$(BENCH_REF_SRCS) -lm -lpthread

.PHONY: bench-tf
bench-tf: test/bench/bin/bench_tf test/bench/bin/gpx_corpus test/gen/bin/gpx_gen
	test/bench/bench_tf.sh

.PHONY: bench-rank
bench-rank: test/bench/bin/bench_query test/bench/bin/gpx_corpus test/gen/bin/gpx_gen
	test/bench/rank_bench.sh

test/gen/bin/%: test/gen/%.c test/gen/gen_common.h test/gen/gen_tf.h $(BENCH_REF_DEPS)
	@mkdir -p test/gen/bin
	$(BENCH_CC) $(BENCH_CFLAGS) -Itest/ref -o $@ $< $(BENCH_REF_SRCS) -lm

test/bench/bin/bench_codec: test/bench/bench_codec.c test/bench/bench_util.h test/gen/gen_common.h $(BENCH_CODEC_SRCS) \
		$(wildcard src/codec/*.h) $(BENCH_REF_DEPS) $(if $(strip $(CUDA_OBJS)),$(CUDA_OBJS) cuda/gpx_cuda_plan.o)
	@mkdir -p test/bench/bin
	$(BENCH_CC) $(BENCH_CFLAGS) -Isrc/codec -Icuda -Itest/gen -Itest/ref -o $@ $< $(BENCH_CODEC_SRCS) \
		$(BENCH_REF_SRCS) $(BENCH_CUDA_LINK) -lm -lpthread

# the vectorised variants side by side (decode, gpx_intersect), and the same
# with CRoaring beside them: bench_roaring builds only where libroaring-dev
# is installed (bench-tools and CI's test run never need it)
test/bench/bin/bench_simd: test/bench/bench_simd.c $(BENCH_CODEC_SRCS) $(wildcard src/codec/*.h)
	@mkdir -p test/bench/bin
	$(BENCH_CC) $(BENCH_CFLAGS) -Isrc/codec -o $@ $< $(BENCH_CODEC_SRCS) -lm -lpthread

BENCH_ROARING_H ?= $(wildcard /usr/include/roaring/roaring.h)
test/bench/bin/bench_roaring: test/bench/bench_simd.c $(BENCH_CODEC_SRCS) $(wildcard src/codec/*.h)
	@test -n "$(BENCH_ROARING_H)" || { echo "bench_roaring needs libroaring-dev (apt-get install libroaring-dev)" >&2; exit 1; }
	@mkdir -p test/bench/bin
	$(BENCH_CC) $(BENCH_CFLAGS) -DBENCH_ROARING -Isrc/codec -o $@ $< $(BENCH_CODEC_SRCS) -lroaring -lm -lpthread

.PHONY: bench-simd
bench-simd: test/bench/bin/bench_simd $(if $(BENCH_ROARING_H),test/bench/bin/bench_roaring)

test/bench/bin/bench_query: test/bench/bench_query.c test/bench/bench_util.h test/gen/gen_common.h \
		test/bench/bench_cpu.c test/bench/bench_cpu.h $(BENCH_REF_DEPS)
	@mkdir -p test/bench/bin
	$(BENCH_CC) $(BENCH_CFLAGS) $(BENCH_PQ_INC) -Itest/gen -Itest/ref -o $@ $< test/bench/bench_cpu.c \
		$(BENCH_REF_SRCS) $(BENCH_PQ_LIB) -lm -lpthread

# ranked retrieval at library level: the OR algorithms and AND (docs/RANKING.md)
test/bench/bin/bench_rank: test/bench/bench_rank.c test/bench/bench_util.h test/gen/gen_common.h \
		$(BENCH_CODEC_SRCS) $(wildcard src/codec/*.h) $(BENCH_REF_DEPS)
	@mkdir -p test/bench/bin
	$(BENCH_CC) $(BENCH_CFLAGS) -ffp-contract=off -Isrc/codec -Itest/gen -Itest/ref -o $@ $< \
		$(BENCH_CODEC_SRCS) $(BENCH_REF_SRCS) -lm -lpthread

test/bench/bin/gpx_corpus: test/bench/gpx_corpus.c
	@mkdir -p test/bench/bin
	$(BENCH_CC) $(BENCH_CFLAGS) -o $@ $<

.PHONY: bench-tools bench bench-gpu bench-ci gentest demo
bench-tools: $(BENCH_PROGS)

bench: bench-tools
	test/bench/run-bench.sh --profile cpu

bench-gpu: bench-tools
	test/bench/run-bench.sh --profile gpu

bench-ci: bench-tools
	test/bench/run-bench.sh --profile ci

gentest: bench-tools
	test/gen/run-suite.sh

demo:
	scripts/demo.sh

# PGXS tests EXTRA_CLEAN when it is included, before this file: hook clean
.PHONY: bench-clean
clean: bench-clean
bench-clean:
	rm -rf test/gen/bin test/bench/bin test/bench/out

# document-partitioned postings: 1 server vs coordinator + 1 and 2 shards
# (postgres_fdw over loopback), docs/bench/scaleout.md
.PHONY: bench-scaleout
bench-scaleout:
	test/bench/scaleout_bench.sh
