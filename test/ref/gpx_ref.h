/*
 * gpx_ref.h - the reference library of the tests, the generator and the
 * benchmarks: one deterministic random generator, test-list generators,
 * and the naive algorithms every result is checked against (sort, lower
 * bound, intersection, the result hash).
 *
 * Linked by the C unit tests (test/unit), the fuzzers (test/fuzz), the
 * synthetic collection generator and its checker (test/gen) and the
 * benchmark programs (test/bench).  Plain C with no PostgreSQL or codec
 * headers; the few helpers that sit in inner loops (the generator step,
 * the lower bound) are static inline, the rest is in gpx_ref.c.
 */
#ifndef GPX_REF_H
#define GPX_REF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

/* splitmix64 state; any seed is valid. */
typedef struct ref_rng
{
	uint64_t	s;
} ref_rng;

/* One splitmix64 step: the next 64 random bits. */
static inline uint64_t
ref_next(ref_rng *r)
{
	uint64_t	z = (r->s += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* Uniform in [0, bound) by remainder (bound > 0; bias below 2^-32). */
static inline uint32_t
ref_below(ref_rng *r, uint64_t bound)
{
	return (uint32_t) (ref_next(r) % bound);
}

/* Index of the first element >= x in sorted a[0..n) (n if none). */
static inline uint32_t
ref_lower_bound(const uint32_t *a, uint32_t n, uint32_t x)
{
	uint32_t	lo = 0,
				hi = n;

	while (lo < hi)
	{
		uint32_t	mid = lo + (hi - lo) / 2;

		if (a[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* True iff x is in sorted a[0..n). */
static inline int
ref_contains(const uint32_t *a, uint32_t n, uint32_t x)
{
	uint32_t	i = ref_lower_bound(a, n, x);

	return i < n && a[i] == x;
}

/* The shapes of test lists (ref_make_list). */
typedef enum ref_dist
{
	REF_UNIFORM,				/* n distinct uniform values in [0, universe) */
	REF_CLUSTERED,				/* dense runs separated by random gaps */
	REF_EXTREME					/* 0, the top of the universe, huge and tiny gaps */
} ref_dist;

/* malloc, or print "out of memory" and exit(2); a size of 0 allocates 1 byte. */
void	   *ref_xmalloc(size_t sz);

/*
 * Fill out[0..n) with a strictly increasing list of the given shape within
 * [0, universe) (universe <= 2^32).  Returns the count produced (n, unless
 * the universe is too small).
 */
uint32_t	ref_make_list(ref_rng *r, ref_dist dist, uint32_t n,
						  uint64_t universe, uint32_t *out);

/*
 * Exactly min(n, universe) distinct values of [0, universe), sorted, by
 * selection sampling (one random draw per value of the universe).
 */
uint32_t	ref_uniform_sample(ref_rng *r, uint32_t n, uint64_t universe,
							   uint32_t *out);

/* Sort a[0..n) ascending and drop duplicates in place; returns the new count. */
uint32_t	ref_sort_unique(uint32_t *a, uint32_t n);

/*
 * Merge intersection of sorted a[0..na) and b[0..nb) into out, which may
 * alias a; returns the count.
 */
uint32_t	ref_intersect2(const uint32_t *a, uint32_t na, const uint32_t *b,
						   uint32_t nb, uint32_t *out);

/*
 * FNV-1a 64 over the docIDs as 4 little-endian bytes each: the result hash
 * the generator writes into answers.copy and the benchmarks compare.
 */
uint64_t	ref_hash_docs(const uint32_t *d, size_t n);

#ifdef __cplusplus
}
#endif

#endif							/* GPX_REF_H */
