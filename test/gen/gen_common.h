/*
 * gen_common.h - helpers shared by the synthetic collection generator
 * (gpx_gen.c), its checker (gpx_gencheck.c) and the benchmark programs:
 * the generator's random streams and distributions (on the reference
 * library's splitmix64, test/ref/gpx_ref.h), an LSD radix sort, and a
 * reader for the PostgreSQL COPY text lines the generator writes.  The
 * result hash and the reference intersection are the reference library's
 * (ref_hash_docs, ref_intersect2).
 *
 * Standalone C (no PostgreSQL headers); everything here is static inline;
 * the programs link test/ref/gpx_ref.c.
 */
#ifndef GPX_GEN_COMMON_H
#define GPX_GEN_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include "gpx_ref.h"

/* GOV2's document count (TREC GOV2, as the issue and DESIGN.md state). */
#define GEN_GOV2_DOCS 25205179.0

/* A random stream of the generator: the reference library's splitmix64. */
typedef ref_rng gen_rng;

/* Mix three words into one (a stream seed independent of call order). */
static inline uint64_t
gen_mix(uint64_t a, uint64_t b, uint64_t c)
{
	gen_rng		r = {a * 0xD1B54A32D192ED03ull ^ b};

	ref_next(&r);
	r.s ^= c * 0x9E3779B97F4A7C15ull;
	return ref_next(&r);
}

/* A generator seeded for stream `stream`, item `idx` of a run with `seed`. */
static inline gen_rng
gen_stream(uint64_t seed, uint64_t stream, uint64_t idx)
{
	gen_rng		r = {gen_mix(seed, stream, idx)};

	return r;
}

/* Uniform double in [0, 1). */
static inline double
gen_unit(gen_rng *r)
{
	return (ref_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

/* Uniform integer in [0, n), n > 0 (multiply-shift, bias < 2^-32). */
static inline uint64_t
gen_below(gen_rng *r, uint64_t n)
{
	return (uint64_t) (((unsigned __int128) ref_next(r) * n) >> 64);
}

/* Standard normal deviate (Box-Muller, one of the pair). */
static inline double
gen_normal(gen_rng *r)
{
	double		u1 = gen_unit(r),
				u2 = gen_unit(r);

	if (u1 < 1e-300)
		u1 = 1e-300;
	return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

/* Log-normal deviate with the given mean (not median) and log-sd sigma. */
static inline double
gen_lognormal_mean(gen_rng *r, double mean, double sigma)
{
	return mean * exp(sigma * gen_normal(r) - 0.5 * sigma * sigma);
}

/* Sort a[0..n) ascending with two 16-bit LSD radix passes (tmp: n slots). */
static inline void
gen_radix_sort(uint32_t *a, uint32_t *tmp, size_t n)
{
	size_t		cnt[65537];

	for (int pass = 0; pass < 2; pass++)
	{
		int			sh = pass * 16;
		uint32_t   *src = pass ? tmp : a,
				   *dst = pass ? a : tmp;

		memset(cnt, 0, sizeof(cnt));
		for (size_t i = 0; i < n; i++)
			cnt[((src[i] >> sh) & 0xFFFF) + 1]++;
		for (int i = 0; i < 65536; i++)
			cnt[i + 1] += cnt[i];
		for (size_t i = 0; i < n; i++)
			dst[cnt[(src[i] >> sh) & 0xFFFF]++] = src[i];
	}
}

/*
 * Parse a COPY text array literal "{1,2,3}" of non-negative integers
 * starting at *p; appends to a growing buffer (*buf, *cap) and returns the
 * count, or -1 on a syntax error.  *p is left after the closing brace.
 */
static inline long
gen_parse_array(const char **p, uint32_t **buf, size_t *cap)
{
	const char *s = *p;
	size_t		n = 0;

	if (*s != '{')
		return -1;
	s++;
	if (*s == '}')
	{
		*p = s + 1;
		return 0;
	}
	for (;;)
	{
		uint64_t	v = 0;

		if (*s < '0' || *s > '9')
			return -1;
		while (*s >= '0' && *s <= '9')
		{
			v = v * 10 + (uint64_t) (*s - '0');
			if (v > 0xFFFFFFFFull)
				return -1;
			s++;
		}
		if (n == *cap)
		{
			*cap = *cap ? *cap * 2 : 1024;
			*buf = realloc(*buf, *cap * sizeof(uint32_t));
			if (*buf == NULL)
				return -1;
		}
		(*buf)[n++] = (uint32_t) v;
		if (*s == ',')
			s++;
		else if (*s == '}')
		{
			*p = s + 1;
			return (long) n;
		}
		else
			return -1;
	}
}

/* Read one whole line (any length) into *line; returns its length or -1 at EOF. */
static inline long
gen_getline(FILE *f, char **line, size_t *cap)
{
	ssize_t		n = getline(line, cap, f);

	if (n < 0)
		return -1;
	if (n > 0 && (*line)[n - 1] == '\n')
		(*line)[--n] = '\0';
	return (long) n;
}

#endif							/* GPX_GEN_COMMON_H */
