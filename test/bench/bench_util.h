/*
 * bench_util.h - timing and statistics helpers shared by the benchmark
 * programs (bench_codec.c, bench_query.c).
 */
#ifndef GPX_BENCH_UTIL_H
#define GPX_BENCH_UTIL_H

#include <math.h>
#include <stddef.h>
#include <time.h>

/* Seconds on the monotonic clock. */
static inline double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* qsort comparator for doubles. */
static inline int
cmp_double(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return x < y ? -1 : x > y;
}

/* Percentile p (0..100) of sorted v[0..n) (nearest rank). */
static inline double
percentile(const double *v, size_t n, double p)
{
	size_t		i = (size_t) ceil(p / 100.0 * n);

	if (n == 0)
		return 0;
	return v[i == 0 ? 0 : (i > n ? n - 1 : i - 1)];
}

#endif
