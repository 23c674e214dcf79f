/*
 * bench_key.c - CPU cost of list identity per MB of list: the old unkeyed
 * hash (test/unit/old_hash64.h), plain SipHash-2-4-128 (gpx_siphash128),
 * gpx_key_content in each implementation this CPU runs, and memcmp of two
 * equal buffers (what deciding equality by the bytes costs), on one
 * thread, for lists of several sizes.
 *
 *   test/bench/bin/bench_key [--min-time SECONDS] [--rounds N]
 *
 * Each figure is the best of N rounds (default 5) of at least SECONDS
 * (default 0.2) of back-to-back calls on the same buffer, so it is the
 * cost with the list in cache up to the cache's size; the 64 MB row shows
 * it from memory.  Prints one table (ms per MB and GB/s).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpx_batch.h"
#include "old_hash64.h"

/* Keeps results alive so that nothing is optimised away. */
static volatile uint64_t bench_sink;

/* Seconds on the monotonic clock. */
static double
bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* What is measured. */
typedef enum bench_op
{
	OP_OLD_HASH,
	OP_SIPHASH,
	OP_KEY_GENERIC,
	OP_KEY_AVX2,
	OP_KEY_AVX512,
	OP_MEMCMP,
	OP_COUNT
} bench_op;

static const char *const op_names[OP_COUNT] = {
	"old gpx_hash64 (unkeyed)", "SipHash-2-4-128", "gpx_key_content generic",
	"gpx_key_content avx2", "gpx_key_content avx512", "memcmp (equal)"
};

/* One call of op on buf[0..len) (b: an equal copy, for memcmp). */
static void
bench_once(bench_op op, const gpx_keyset *ks, const uint8_t *buf,
		   const uint8_t *b, size_t len)
{
	gpx_key		k = {0, 0};

	switch (op)
	{
		case OP_OLD_HASH:
			k.lo = old_hash64(buf, len);
			break;
		case OP_SIPHASH:
			k = gpx_siphash128(ks->fin, buf, len);
			break;
		case OP_KEY_GENERIC:
			k = gpx_key_content_impl(ks, 1, buf, len, GPX_KEY_IMPL_GENERIC);
			break;
		case OP_KEY_AVX2:
			k = gpx_key_content_impl(ks, 1, buf, len, GPX_KEY_IMPL_AVX2);
			break;
		case OP_KEY_AVX512:
			k = gpx_key_content_impl(ks, 1, buf, len, GPX_KEY_IMPL_AVX512);
			break;
		case OP_MEMCMP:
			k.lo = (uint64_t) memcmp(buf, b, len);
			break;
		case OP_COUNT:
			break;
	}
	bench_sink += k.lo ^ k.hi;
}

/* Best seconds per call of op over rounds of at least min_time. */
static double
bench_op_time(bench_op op, const gpx_keyset *ks, const uint8_t *buf,
			  const uint8_t *b, size_t len, double min_time, int rounds)
{
	double		best = 1e30;

	for (int r = 0; r < rounds; r++)
	{
		double		t0 = bench_now(),
					t;
		long		calls = 0;

		do
		{
			for (int i = 0; i < 8; i++)
				bench_once(op, ks, buf, b, len);
			calls += 8;
			t = bench_now() - t0;
		} while (t < min_time);
		if (t / calls < best)
			best = t / calls;
	}
	return best;
}

int
main(int argc, char **argv)
{
	static const size_t sizes[] = {4096, 65536, 1 << 20, 64 << 20};
	double		min_time = 0.2;
	int			rounds = 5;
	size_t		maxlen = sizes[sizeof(sizes) / sizeof(sizes[0]) - 1];
	uint8_t    *buf,
			   *copy;
	uint8_t		secret[16];
	gpx_keyset	ks;

	for (int i = 1; i < argc; i++)
	{
		if (strcmp(argv[i], "--min-time") == 0 && i + 1 < argc)
			min_time = atof(argv[++i]);
		else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc)
			rounds = atoi(argv[++i]);
		else
		{
			fprintf(stderr, "usage: %s [--min-time SECONDS] [--rounds N]\n", argv[0]);
			return 2;
		}
	}
	if (rounds < 1 || min_time <= 0)
	{
		fprintf(stderr, "--rounds and --min-time must be positive\n");
		return 2;
	}
	buf = malloc(maxlen);
	copy = malloc(maxlen);
	if (buf == NULL || copy == NULL)
	{
		fprintf(stderr, "out of memory\n");
		return 1;
	}
	for (size_t i = 0; i < maxlen; i++)
		buf[i] = (uint8_t) ((i * 2654435761u) >> 13);
	memcpy(copy, buf, maxlen);
	for (int i = 0; i < 16; i++)
		secret[i] = (uint8_t) (i * 29 + 3);
	gpx_keyset_init(&ks, secret);

	printf("| %-26s |", "CPU cost, ms per MB (GB/s)");
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
		printf(" %zu kB |", sizes[s] / 1024);
	printf("\n| --- |");
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
		printf(" --- |");
	printf("\n");
	for (int op = 0; op < OP_COUNT; op++)
	{
		if ((op == OP_KEY_AVX2 && !gpx_key_impl_available(GPX_KEY_IMPL_AVX2)) ||
			(op == OP_KEY_AVX512 && !gpx_key_impl_available(GPX_KEY_IMPL_AVX512)))
			continue;
		printf("| %-26s |", op_names[op]);
		for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
		{
			double		t = bench_op_time((bench_op) op, &ks, buf, copy, sizes[s],
										  min_time, rounds);
			double		ms_per_mb = t * 1e3 * (1 << 20) / sizes[s];

			printf(" %.3f (%.1f) |", ms_per_mb, sizes[s] / t / 1e9);
			fflush(stdout);
		}
		printf("\n");
	}
	free(buf);
	free(copy);
	return 0;
}
