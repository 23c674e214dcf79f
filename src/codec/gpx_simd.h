/*
 * gpx_simd.h - the table of vectorised inner loops the block forms call
 * (internal to src/codec; the variant is chosen in gpx_cpu.c).
 *
 * Every kernel does a prefix of the work and says how much: the block
 * form's own scalar loop (the scalar variant, always compiled) finishes
 * the rest, so a kernel may stop wherever a vector load would leave the
 * bytes it was told are readable, and every variant's result is the
 * scalar one by construction of the tail.  A NULL entry means "none": the
 * scalar loop does all.  Kernels never read outside the bytes they are
 * told are readable and never write outside the slots they are given.
 */
#ifndef GPX_SIMD_H
#define GPX_SIMD_H

#include <string.h>

#include "gpx_cpu.h"
#include "gpx_bits.h"

typedef struct gpx_simd_ops
{
	gpx_simd_level level;

	/*
	 * Unpack fields: out[i] = the w bits (0 < w <= 32) at bit bit + i w of
	 * p (LSB-first), for i < cnt, reading only p[0..avail).  Returns how
	 * many leading fields it wrote.
	 */
	uint32_t	(*unpack) (const uint8_t *p, size_t avail, uint64_t bit,
						   uint32_t w, uint32_t cnt, uint32_t *out);

	/*
	 * d-gaps to docIDs in place: g[i] = start + sum over j <= i of
	 * (g[j] + 1), wrapping, for i < cnt (all of them).
	 */
	void		(*gaps_sum) (uint32_t *g, uint32_t cnt, uint32_t start);

	/*
	 * An LRC segment: out[j] = base + ((slope_q * j) >> 8) + dev[j],
	 * wrapping uint32, dev[j] the w-bit field (0 <= w <= 32) at bit j w of
	 * dev[0..avail).  Returns how many leading elements it wrote.
	 */
	uint32_t	(*lrc) (const uint8_t *dev, size_t avail, uint32_t w,
						uint32_t cnt, uint32_t base, uint32_t slope_q,
						uint32_t *out);

	/*
	 * Positions of one bits: for the first `want` one bits at or after bit
	 * `bit` of p and before bit `end`, out[r] = add + (position - bit).
	 * Reads 8 bytes at byte offsets up to (end - 1) >> 3 (the caller
	 * guarantees 8 readable bytes past the byte of bit end - 1); may write
	 * out[r] for r < cap (cap >= want).  Returns the ones found.
	 */
	uint32_t	(*ones) (const uint8_t *p, uint64_t bit, uint64_t end,
						 uint32_t want, uint32_t cap, uint32_t add,
						 uint32_t *out);

	/*
	 * Elias-Fano merge: lo[r] = base + (((hi[r] - r) << b) | lo[r]) for
	 * r < m (b <= 31; all of them).
	 */
	void		(*ef_merge) (uint32_t *lo, const uint32_t *hi, uint32_t m,
							 uint32_t b, uint32_t base);

	/*
	 * First index i >= p with buf[i] >= x; buf holds values <=
	 * GPX_MAX_DOCID and one of them, at or after p, is >= x, followed by
	 * readable slots up to 32 values past it (the intersection's
	 * sentinels).
	 */
	uint32_t	(*scan) (const uint32_t *buf, uint32_t p, uint32_t x);


	/*
	 * A merge pass over one decoded block: buf[0..cnt) strictly
	 * increasing, followed by at least 32 readable slots; the candidates
	 * c[i..m) strictly increasing, c[i] >= buf[*p - 1] (or *p = 0).  Keeps
	 * (moving them to c[*w], c[*w + 1], ...) the candidates found in buf,
	 * from c[i] on while they are <= buf[cnt - 1]; returns the index of the
	 * first candidate not looked at, leaves in *p a position with buf[0..*p)
	 * below it.
	 */
	uint32_t	(*merge) (const uint32_t *buf, uint32_t cnt, uint32_t *p,
						  uint32_t *c, uint32_t i, uint32_t m, uint32_t *w);

	/*
	 * merge with positions (gpx_intersect_pos): as merge from c[i] on
	 * (the block's buf with its 32 readable slots, the candidates up to
	 * buf[cnt - 1]), orig[] moving with c[] (orig[*w] = orig[i] for each
	 * kept), and row[orig[i]] = base + the index of c[i] in buf for each
	 * kept (any value for the others).  Returns the index of the first
	 * candidate not looked at.
	 */
	uint32_t	(*merge_pos) (const uint32_t *buf, uint32_t cnt, uint32_t *c,
							  uint32_t *orig, uint32_t i, uint32_t m,
							  uint32_t *w, uint32_t *row, uint32_t base);

	/*
	 * Positions in one decoded block: buf[0..cnt) strictly increasing
	 * (0 < cnt <= GPX_MAX_BLOCK), x[0..n) strictly increasing.  pos[r] =
	 * the index of x[r] in buf, or GPX_SIMD_NOPOS where buf lacks it, for
	 * every r < n; returns how many buf holds.  Reads only buf[0..cnt).
	 */
	uint32_t	(*locate) (const uint32_t *buf, uint32_t cnt, const uint32_t *x,
						   uint32_t n, uint32_t *pos);

	/*
	 * Gaps of a sorted run: the smallest and largest d[j] - d[j - 1] over
	 * 1 <= j <= r into *gmin, *gmax (both untouched when r is 0), for the
	 * r it returns: how many leading gaps of the cnt - 1 it looked at.
	 */
	uint32_t	(*gap_range) (const uint32_t *d, uint32_t cnt, uint32_t *gmin,
							  uint32_t *gmax);

	/*
	 * The LRC encoder's exact ranges (gpx_lrc.c): over j < r, the largest
	 * and the smallest of r_j - i j into mx[i], mn[i] for i < k (k = 2 or
	 * 3), r_j = 256 (d[j] - d[0]) - s j, for the r it returns (how many
	 * leading j it looked at; mx, mn untouched when 0).  The caller
	 * guarantees 256 (d[cnt - 1] - d[0]) < 2^31 and (s + k - 1)(cnt - 1)
	 * < 2^31, so every term is exact in int32 whatever order the
	 * wrapping arithmetic takes.
	 */
	uint32_t	(*lrc_ext) (const uint32_t *d, uint32_t cnt, uint32_t s,
							uint32_t k, int32_t *mx, int32_t *mn);

	/*
	 * The sortedness flag of gpx_check_sorted: *flag |= d[i] | (d[i] -
	 * d[i - 1] - 1) (uint32) over 1 <= i <= r, for the r it returns (how
	 * many leading i of the n - 1 it looked at).
	 */
	size_t		(*sorted_flag) (const uint32_t *d, size_t n, uint32_t *flag);

	/*
	 * A set operation on two strictly increasing runs of docIDs (values
	 * <= 2^31 - 1; gpx_setops.c): op GPX_SIMD_UNION (a | b),
	 * GPX_SIMD_DIFFERENCE (a - b) or GPX_SIMD_SYMDIFF (a # b), merged
	 * from a[*ia] and b[*ib] on while both runs have a whole vector left.
	 * Every step takes all docIDs up to a cut from both runs, so two
	 * equal docIDs are always taken together; *ia and *ib end past what
	 * was taken, and the elements of the result it gives (in order) go to
	 * out[0..r), r returned.  Writes nothing past out[r - 1].
	 */
	uint32_t	(*setop) (int op, const uint32_t *a, uint32_t na,
						  const uint32_t *b, uint32_t nb, uint32_t *ia,
						  uint32_t *ib, uint32_t *out);
} gpx_simd_ops;

/* A position gpx_simd_ops.locate gives a value the block lacks. */
#define GPX_SIMD_NOPOS 0xFFFFFFFFu

/* The operations of gpx_simd_ops.setop. */
#define GPX_SIMD_UNION		0
#define GPX_SIMD_DIFFERENCE	1
#define GPX_SIMD_SYMDIFF	2

/* The tables (NULL-filled beyond the scalar one where not compiled). */
extern const gpx_simd_ops gpx_simd_scalar_ops;
#if defined(__x86_64__) && defined(__GNUC__)
#define GPX_SIMD_X86 1
extern const gpx_simd_ops gpx_simd_sse41_ops;
extern const gpx_simd_ops gpx_simd_avx2_ops;
extern const gpx_simd_ops gpx_simd_avx512_ops;
#else
#define GPX_SIMD_X86 0
#endif

/* The table in use (set by gpx_simd_init at first use). */
extern const gpx_simd_ops *gpx_simd_cur;

/* Choose the table (idempotent, thread-safe) and return it. */
const gpx_simd_ops *gpx_simd_init(void);

/* The table in use (hot paths). */
static inline const gpx_simd_ops *
gpx_simd(void)
{
	const gpx_simd_ops *o = __atomic_load_n(&gpx_simd_cur, __ATOMIC_ACQUIRE);

	return o != NULL ? o : gpx_simd_init();
}

/*
 * First index i in [lo, n) with a[i] > x, or n, for a strictly increasing
 * a (gallop from lo, then bisect): the scalar search the variants' merges
 * and the set operations share.
 */
static inline uint32_t
gpx_simd_upper(const uint32_t *a, uint32_t lo, uint32_t n, uint32_t x)
{
	uint32_t	hi,
				step = 1;

	if (lo >= n || a[lo] > x)
		return lo;
	/* a[lo] <= x */
	for (;;)
	{
		uint64_t	p = (uint64_t) lo + step;

		if (p >= n)
		{
			hi = n;
			break;
		}
		if (a[p] > x)
		{
			hi = (uint32_t) p;
			break;
		}
		lo = (uint32_t) p;
		step <<= 1;
	}
	/* a[lo] <= x, a[hi] > x or hi == n */
	while (hi - lo > 1)
	{
		uint32_t	mid = lo + (hi - lo) / 2;

		if (a[mid] <= x)
			lo = mid;
		else
			hi = mid;
	}
	return hi;
}

/* Positions of the one bits of every byte value, low first, 0-padded. */
extern const uint8_t gpx_bm_pos[256][8];

/*
 * gpx_simd_ops.locate through the table in use, or a forward scan where
 * it has none (same contract).
 */
static inline uint32_t
gpx_simd_locate(const gpx_simd_ops *o, const uint32_t *buf, uint32_t cnt,
				const uint32_t *x, uint32_t n, uint32_t *pos)
{
	uint32_t	p = 0,
				found = 0;

	if (o->locate != NULL)
		return o->locate(buf, cnt, x, n, pos);
	for (uint32_t r = 0; r < n; r++)
	{
		while (p < cnt && buf[p] < x[r])
			p++;
		pos[r] = p < cnt && buf[p] == x[r] ? p : GPX_SIMD_NOPOS;
		found += p < cnt && buf[p] == x[r];
	}
	return found;
}

/*
 * gpx_simd_ops.merge_pos through the table in use, or by
 * gpx_simd_locate where it has none (same contract).
 */
static inline uint32_t
gpx_simd_merge_pos(const gpx_simd_ops *o, const uint32_t *buf, uint32_t cnt,
				   uint32_t *c, uint32_t *orig, uint32_t i, uint32_t m,
				   uint32_t *w, uint32_t *row, uint32_t base)
{
	uint32_t	e,
				at[GPX_MAX_BLOCK];

	if (o->merge_pos != NULL)
		return o->merge_pos(buf, cnt, c, orig, i, m, w, row, base);
	/* the candidates up to the block's last, GPX_MAX_BLOCK at a time */
	e = gpx_simd_upper(c, i, m, buf[cnt - 1]);
	while (i < e)
	{
		uint32_t	n = e - i < GPX_MAX_BLOCK ? e - i : GPX_MAX_BLOCK;

		gpx_simd_locate(o, buf, cnt, c + i, n, at);
		for (uint32_t r = 0; r < n; r++)
		{
			uint32_t	oi = orig[i + r];

			row[oi] = base + at[r];
			c[*w] = c[i + r];
			orig[*w] = oi;
			*w += at[r] != GPX_SIMD_NOPOS;
		}
		i += n;
	}
	return e;
}

#endif							/* GPX_SIMD_H */
