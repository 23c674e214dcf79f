/*
 * unit.h - a tiny test harness for the C unit tests: check macros that
 * count passes and failures, a deterministic RNG, and list generators
 * shared by the codec and intersection tests.
 */
#ifndef GPX_UNIT_H
#define GPX_UNIT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "gpx_codec.h"

extern long unit_passed;
extern long unit_failed;

/* Record one check; print the failing expression with its location. */
#define CHECK(cond) do { \
	if (cond) unit_passed++; \
	else { unit_failed++; \
		if (unit_failed <= 50) fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); } \
} while (0)

/* Like CHECK with a printf-style explanation on failure. */
#define CHECKF(cond, ...) do { \
	if (cond) unit_passed++; \
	else { unit_failed++; \
		if (unit_failed <= 50) { fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
			fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } \
} while (0)

/* Print the closing "N passed, N failed" line and return the exit code. */
int			unit_finish(void);

/* malloc or exit(2) on failure (tests only); a size of 0 allocates 1 byte. */
void	   *unit_xmalloc(size_t sz);

/* splitmix64-based deterministic generator. */
typedef struct unit_rng { uint64_t s; } unit_rng;
uint64_t	unit_next(unit_rng *r);
/* Uniform in [0, bound) (bound > 0). */
uint32_t	unit_below(unit_rng *r, uint64_t bound);

typedef enum unit_dist
{
	UNIT_UNIFORM,				/* n distinct uniform values in [0, universe) */
	UNIT_CLUSTERED,				/* dense runs separated by random gaps */
	UNIT_EXTREME				/* 0, 2^31-1, huge gaps, tiny gaps */
} unit_dist;

/*
 * Fill out[0..n) with a strictly increasing list of the given distribution
 * within [0, universe) (universe <= 2^31).  Returns the count actually
 * produced (n, unless the universe is too small).
 */
uint32_t	unit_make_list(unit_rng *r, unit_dist dist, uint32_t n,
						   uint64_t universe, uint32_t *out);

/* Format version unit_encode_exact writes (0: the current one). */
extern int	unit_format_version;

/*
 * Encode docs with codec into a fresh exact-size malloc'd blob, so that any
 * over-read shows under ASan; records the encode as a check.  NULL (and
 * *len = 0) on failure.
 */
uint8_t    *unit_encode_exact(int codec, const uint32_t *docs, uint32_t n,
							  size_t *len);

/* gpx_validate on an exact-size copy of blob[0..len). */
gpx_status	unit_validate_exact(const uint8_t *blob, size_t len);

/* Naive reference: index of the first element >= x in a sorted array. */
uint32_t	ref_lower_bound(const uint32_t *a, uint32_t n, uint32_t x);

/* Naive reference: sort and de-duplicate in place; returns the new count. */
uint32_t	ref_sort_unique(uint32_t *a, uint32_t n);

/* Naive reference: merge intersection of two sorted arrays into out. */
uint32_t	ref_intersect2(const uint32_t *a, uint32_t na, const uint32_t *b,
						   uint32_t nb, uint32_t *out);

#endif
