/*
 * gpx_lrc.c - SegLRC: linear regression compression over segments of 256
 * docIDs (Ao et al., VLDB 2011, section 5.2), with the per-segment safe
 * search range of section 4.3 used to contract in-segment searches.
 *
 * Blob: the common header (codec GPX_CODEC_LRC, segments of 256, v1
 * param 0) and directory (gpx_codec.h); directory entry k holds the first
 * docID of segment k and where it starts: the payload WORD index (version
 * 1), or a byte offset that is a multiple of 4 with kind 2 (version 2,
 * where a block may also be an Elias-Fano or bitmap block: gpx_ef.c,
 * gpx_bitmap.c).
 *
 * Payload (version 1): the segments one after the other, each starting on
 * a word boundary, segment 0 at word 0, no gap between segments and
 * nothing after the last one.  In version 2 a segment fills its words
 * exactly too: the next block (or the payload's end) starts right after
 * it.  Segment k holds cnt = min(256, n - 256 k) docIDs d[j],
 * j = 0 .. cnt-1 (local index), as three header words then the deviations:
 *
 *   word 0  base     int32, two's complement
 *   word 1  slope_q  uint32, unsigned fixed point slope, LRC_FRAC = 8
 *                    fraction bits (slope = slope_q / 256)
 *   word 2  maxdev   uint32, an upper bound of every deviation
 *   word 3  dev[0..cnt) packed LSB-first at width w = bitwidth(maxdev)
 *           (0..32; w is not stored, it is 32 - clz(maxdev), 0 for 0),
 *           ceil(cnt * w / 32) words, unused high bits of the last word 0
 *
 * so a segment takes 3 + ceil(cnt * w / 32) words.  Element j decodes alone:
 *
 *   pred(j) = base + ((slope_q * j) >> 8)     slope_q * j in 64 bits
 *   d[j]    = pred(j) + dev[j]
 *
 * (slope_q * j) >> 8 < 2^32 for j <= 255, and a valid blob has every d[j]
 * in [0, 2^31-1], so a decoder may compute d[j] in wrapping uint32
 * arithmetic: (uint32) base + (uint32) ((slope_q * j) >> 8) + dev[j].
 * Decoding is integer-only: CPU and GPU decode bit-identically.
 *
 * Search (LR contraction): dev[j] in [0, maxdev] gives, with exact
 * integers, pred(j) <= d[j] <= pred(j) + maxdev and pred non-decreasing,
 * so for a target x the first j with d[j] >= x lies in [J0, J1] where
 *   J1 = first j with pred(j) >= x            (d[J1] >= x for sure)
 *   J0 = first j with pred(j) + maxdev >= x   (d[j] < x for all j < J0)
 * and J(t) = first j with (slope_q * j) >> 8 >= t is 0 for t <= 0,
 * ceil(t * 256 / slope_q) otherwise (cnt when slope_q = 0 or beyond cnt),
 * t = x - base (resp. x - base - maxdev) in signed 64-bit arithmetic.  A
 * kernel may use any J0' <= J0 and J1' >= J1 (a float estimate widened by
 * one, say): only the search gets longer, never wrong.
 *
 * Encoding: per segment the slope minimising the exact (unfloored)
 * deviation range max(256 d[j] - s j) - min(256 d[j] - s j) is found by
 * binary search on that convex function of s, integers only; then the
 * floored ranges of s-1, s, s+1 and 0 are compared and the smallest kept
 * (slope 0 bounds maxdev by d[cnt-1] - d[0], hence w by bitwidth(last)).
 * base = min_j (d[j] - ((slope_q * j) >> 8)), so min dev = 0, and maxdev =
 * max dev.  A least-squares slope (double) was measured and never beat
 * this choice, so none is used: the encoder has no floating point at all.
 *
 * Validation accepts any maxdev >= every dev (w = bitwidth(maxdev) fixes
 * the size); it rejects base/slope/dev combinations whose exact value
 * leaves [0, 2^31-1], mismatched offsets and sizes, and (gpx_check_block)
 * values that do not increase or disagree with the directory and header.
 */
#include "gpx_internal.h"
#include "gpx_simd.h"

#define LRC_LOG2_SEG	GPX_LRC_LOG2_BLOCK
#define LRC_SEG			(1u << LRC_LOG2_SEG)
#define LRC_FRAC		8
#define LRC_HDR_WORDS	3

/* One segment's header fields, decoded. */
typedef struct lrc_seg
{
	int64_t		base;
	uint64_t	slope_q;
	uint32_t	maxdev;
	uint32_t	w;
	uint32_t	mask;			/* gpx_mask(w) */
	bool		fast;			/* deviations readable by gpx_get_bits_fast */
	const uint8_t *dev;			/* first word of the packed deviations */
} lrc_seg;

/* Element count of segment blk of a list with n elements. */
static inline uint32_t
lrc_count(const gpx_list *l, uint32_t blk)
{
	uint64_t	rest = (uint64_t) l->n - ((uint64_t) blk << LRC_LOG2_SEG);

	return rest < LRC_SEG ? (uint32_t) rest : LRC_SEG;
}

/* Words taken by the packed deviations of cnt elements at width w. */
static inline uint32_t
lrc_dev_words(uint32_t cnt, uint32_t w)
{
	return (uint32_t) gpx_words_for_bits((uint64_t) cnt * w);
}

/* Decode the header of the segment that starts at payload word off. */
static inline void
lrc_read_seg(const uint8_t *payload, uint32_t off, lrc_seg *s)
{
	const uint8_t *p = payload + 4 * (size_t) off;

	s->base = (int32_t) gpx_load32(p);
	s->slope_q = gpx_load32(p + 4);
	s->maxdev = gpx_load32(p + 8);
	s->w = gpx_bitwidth(s->maxdev);
	s->mask = gpx_mask(s->w);
	s->fast = false;
	s->dev = p + 4 * LRC_HDR_WORDS;
}

/*
 * Header of the segment of block k of a valid blob.  Its deviations are
 * read with one 8-byte load each (fast) when the payload holds 8 bytes
 * past the first byte of every field, as it does for all segments but
 * those that end within 8 bytes of the payload's end.
 */
static inline void
lrc_seg_of(const gpx_blk *k, lrc_seg *s)
{
	lrc_read_seg(k->p, (uint32_t) (k->bit >> 5), s);
	s->fast = GPX_FAST_BITS &&
		(size_t) (k->p + k->plen - s->dev) >=
		(size_t) lrc_dev_words(k->cnt, s->w) * 4 + 8;
}

/* Deviation j of a segment read by lrc_seg_of. */
static inline uint32_t
lrc_dev(const lrc_seg *s, uint32_t j)
{
	uint64_t	bit = (uint64_t) j * s->w;

	return s->fast ? gpx_get_bits_fast(s->dev, bit, s->mask) :
		gpx_get_bits(s->dev, bit, s->w);
}

/* The line's offset (slope_q * j) >> 8 at local index j. */
static inline uint64_t
lrc_lift(uint64_t slope_q, uint32_t j)
{
	return (slope_q * j) >> LRC_FRAC;
}

/* Element j of a segment of a valid blob (wrapping uint32 arithmetic). */
static inline uint32_t
lrc_elem(const lrc_seg *s, uint32_t j)
{
	return (uint32_t) s->base + (uint32_t) lrc_lift(s->slope_q, j) +
		lrc_dev(s, j);
}

/* First local index j < cnt with lift(j) >= t, else cnt (exact). */
static inline uint32_t
lrc_first_lift_geq(uint64_t slope_q, int64_t t, uint32_t cnt)
{
	uint64_t	j;

	if (t <= 0)
		return 0;
	if (slope_q == 0)
		return cnt;
	/* floor(slope_q * j / 256) >= t  <=>  slope_q * j >= 256 t; t < 2^34 */
	j = (((uint64_t) t << LRC_FRAC) + slope_q - 1) / slope_q;
	return j < cnt ? (uint32_t) j : cnt;
}

/*
 * Whether the exact range of 256 d[j] - s j (a convex function of s) is
 * smaller at s + 1 than at s, i.e. whether its minimiser lies above s.
 */
static bool
lrc_range_falls(const uint32_t *d, uint32_t cnt, uint64_t s)
{
	int64_t		lo0 = INT64_MAX,
				hi0 = INT64_MIN,
				lo1 = INT64_MAX,
				hi1 = INT64_MIN;
	uint32_t	j;

	for (j = 0; j < cnt; j++)
	{
		int64_t		v0 = ((int64_t) d[j] << LRC_FRAC) - (int64_t) (s * j);
		int64_t		v1 = v0 - (int64_t) j;

		lo0 = v0 < lo0 ? v0 : lo0;
		hi0 = v0 > hi0 ? v0 : hi0;
		lo1 = v1 < lo1 ? v1 : lo1;
		hi1 = v1 > hi1 ? v1 : hi1;
	}
	return hi1 - lo1 < hi0 - lo0;
}

/*
 * Floored fit of slope_q: *base = min (d[j] - lift(j)) and the max
 * deviation; false if base does not fit the int32 header field (cannot
 * happen for a candidate that beats slope 0, kept as a guard).
 */
static bool
lrc_fit(const uint32_t *d, uint32_t cnt, uint64_t slope_q,
		int64_t *base, uint64_t *maxdev)
{
	int64_t		lo = INT64_MAX,
				hi = INT64_MIN;
	uint32_t	j;

	for (j = 0; j < cnt; j++)
	{
		int64_t		v = (int64_t) d[j] - (int64_t) lrc_lift(slope_q, j);

		if (v < lo)
			lo = v;
		if (v > hi)
			hi = v;
	}
	if (lo < INT32_MIN)
		return false;
	*base = lo;
	*maxdev = (uint64_t) (hi - lo);
	return true;
}

/*
 * Whether the exact ranges of every slope s <= smax over d[0..cnt) can be
 * computed in int32 relative to d[0] (lrc_ext): 256 (d[j] - d[0]) and
 * s j both stay below 2^31, so their difference does too.
 */
static inline bool
lrc_ext_fits(const uint32_t *d, uint32_t cnt, uint64_t smax)
{
	return d[cnt - 1] - d[0] < (1u << 23) &&
		smax * (cnt - 1) <= (uint64_t) INT32_MAX;
}

/*
 * Over j < cnt, the largest and the smallest r_j - i j (i < k, k = 2 or 3),
 * r_j = 256 (d[j] - d[0]) - s j, the exact range's terms relative to
 * 256 d[0], into mx[i], mn[i]; lrc_ext_fits(d, cnt, s + k - 1) holds.  The
 * vectorised variant's share first, then the scalar loop's.
 */
static void
lrc_ext(const uint32_t *d, uint32_t cnt, uint32_t s, uint32_t k,
		int64_t *mx, int64_t *mn)
{
	const gpx_simd_ops *o = gpx_simd();
	int32_t		vx[3],
				vn[3];
	uint32_t	j = 0;

	for (uint32_t i = 0; i < k; i++)
	{
		mx[i] = INT64_MIN;
		mn[i] = INT64_MAX;
	}
	if (o->lrc_ext != NULL && (j = o->lrc_ext(d, cnt, s, k, vx, vn)) > 0)
		for (uint32_t i = 0; i < k; i++)
		{
			mx[i] = vx[i];
			mn[i] = vn[i];
		}
	if (j >= cnt)
		return;
	/* each slope's accumulators in locals, a loop per k */
	{
		int64_t		x0 = mx[0],
					x1 = mx[1],
					x2 = k > 2 ? mx[2] : INT64_MIN,
					n0 = mn[0],
					n1 = mn[1],
					n2 = k > 2 ? mn[2] : INT64_MAX,
					sj = (int64_t) s * j;

		if (k == 2)
			for (; j < cnt; j++, sj += s)
			{
				int64_t		r = ((int64_t) (d[j] - d[0]) << LRC_FRAC) - sj;

				x0 = r > x0 ? r : x0;
				n0 = r < n0 ? r : n0;
				r -= j;
				x1 = r > x1 ? r : x1;
				n1 = r < n1 ? r : n1;
			}
		else
			for (; j < cnt; j++, sj += s)
			{
				int64_t		r = ((int64_t) (d[j] - d[0]) << LRC_FRAC) - sj;

				x0 = r > x0 ? r : x0;
				n0 = r < n0 ? r : n0;
				r -= j;
				x1 = r > x1 ? r : x1;
				n1 = r < n1 ? r : n1;
				r -= j;
				x2 = r > x2 ? r : x2;
				n2 = r < n2 ? r : n2;
			}
		mx[0] = x0;
		mx[1] = x1;
		mn[0] = n0;
		mn[1] = n1;
		if (k > 2)
		{
			mx[2] = x2;
			mn[2] = n2;
		}
	}
}

/* ceil(v / 256) for any int64 v (>> of a negative value is arithmetic). */
static inline int64_t
lrc_ceil_frac(int64_t v)
{
	return (v + (1 << LRC_FRAC) - 1) >> LRC_FRAC;
}

/*
 * Choose slope_q, base and maxdev for one segment d[0..cnt).
 *
 * The floored deviations follow from the exact ones: d[j] - lift(j) =
 * ceil((256 d[j] - s j) / 256), a non-decreasing function of the exact
 * term, so the floored fit of a slope (base = the smallest, maxdev = the
 * largest less the smallest) is ceil(min / 256) and ceil(max / 256) -
 * ceil(min / 256) of the exact terms.  Where those fit in int32 relative
 * to d[0] (lrc_ext_fits: segments spanning less than 2^23 with gaps below
 * about 2^15, every real posting list's but the sparsest) the search and
 * the fits run on lrc_ext, vectorised; otherwise on 64-bit scalar passes.
 * Both compute the same exact ranges, so the choice is the same.
 */
static void
lrc_choose(const uint32_t *d, uint32_t cnt, uint32_t *slope_out,
		   int64_t *base_out, uint32_t *maxdev_out)
{
	uint64_t	lo = UINT64_MAX,
				hi = 0,
				best_slope = 0,
				best_dev;
	int64_t		best_base;
	const gpx_simd_ops *o;
	uint32_t	gmin = UINT32_MAX,
				gmax = 0,
				j = 1,
				k;

	/* slope 0 always fits: base = d[0], maxdev = d[cnt-1] - d[0] */
	best_base = d[0];
	best_dev = d[cnt - 1] - d[0];
	if (cnt < 2)
		goto done;

	/* the minimiser lies between the smallest and largest gap slopes */
	o = gpx_simd();
	if (o->gap_range != NULL)
		j += o->gap_range(d, cnt, &gmin, &gmax);
	for (; j < cnt; j++)
	{
		uint32_t	g = d[j] - d[j - 1];

		gmin = g < gmin ? g : gmin;
		gmax = g > gmax ? g : gmax;
	}
	lo = (uint64_t) gmin << LRC_FRAC;
	hi = (uint64_t) gmax << LRC_FRAC;
	if (hi > UINT32_MAX)
		hi = UINT32_MAX;
	if (lo > hi)
		lo = hi;

	if (lrc_ext_fits(d, cnt, hi + 1))
	{
		int64_t		mx[3],
					mn[3];
		int64_t		span = (int64_t) (d[cnt - 1] - d[0]) << LRC_FRAC,
					fbest = INT64_MAX;
		uint64_t	c1 = cnt - 1,
					lo0 = lo,
					hi0 = hi,
					s0;
		bool		first = true;

		/*
		 * Convex: find the first s with range(s + 1) >= range(s).  The
		 * range's minimiser a (the least one) keeps both ends of the
		 * segment inside its strip: |256 (d[cnt-1] - d[0]) - a (cnt - 1)|
		 * <= range(a) <= any range seen, fbest, so the first s sought, an
		 * integer in (a - 1, ceil(a)], lies within [floor((span - fbest) /
		 * (cnt - 1)), ceil((span + fbest) / (cnt - 1))] (clamped to the
		 * search's ends): each probe narrows the interval by that too,
		 * and the first probes the endpoints' slope, next to a.
		 */
		while (lo < hi)
		{
			uint64_t	mid = lo + (hi - lo) / 2;
			uint64_t	alo,
						ahi;

			if (first)
			{
				mid = ((uint64_t) span + c1 / 2) / c1;
				mid = mid < lo ? lo : mid > hi - 1 ? hi - 1 : mid;
				first = false;
			}
			lrc_ext(d, cnt, (uint32_t) mid, 2, mx, mn);
			if (mx[1] - mn[1] < mx[0] - mn[0])
				lo = mid + 1;
			else
				hi = mid;
			fbest = mx[0] - mn[0] < fbest ? mx[0] - mn[0] : fbest;
			fbest = mx[1] - mn[1] < fbest ? mx[1] - mn[1] : fbest;
			alo = span > fbest ? (uint64_t) (span - fbest) / c1 : 0;
			ahi = ((uint64_t) (span + fbest) + c1 - 1) / c1;
			alo = alo > hi0 ? hi0 : alo;
			ahi = ahi < lo0 ? lo0 : ahi;
			if (alo > lo && alo <= hi)
				lo = alo;
			if (ahi < hi && ahi >= lo)
				hi = ahi;
		}
		/* the floors may favour a neighbour: lo - 1, lo, lo + 1 */
		s0 = lo > 0 ? lo - 1 : lo;
		lrc_ext(d, cnt, (uint32_t) s0, (uint32_t) (lo + 2 - s0), mx, mn);
		for (k = 0; k < lo + 2 - s0; k++)
		{
			int64_t		b = lrc_ceil_frac(mn[k]);
			uint64_t	m = (uint64_t) (lrc_ceil_frac(mx[k]) - b);

			if (m < best_dev)
			{
				best_dev = m;
				best_base = (int64_t) d[0] + b;
				best_slope = s0 + k;
			}
		}
		goto done;
	}

	/* sparse segments: the exact ranges in 64 bits, over all points */
	while (lo < hi)
	{
		uint64_t	mid = lo + (hi - lo) / 2;

		if (lrc_range_falls(d, cnt, mid))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (k = 0; k < 3; k++)
	{
		uint64_t	s = lo + k - 1;		/* lo - 1, lo, lo + 1 */
		int64_t		b;
		uint64_t	m;

		if ((k == 0 && lo == 0) || s > UINT32_MAX)
			continue;
		if (lrc_fit(d, cnt, s, &b, &m) && m < best_dev)
		{
			best_dev = m;
			best_base = b;
			best_slope = s;
		}
	}
done:
	*slope_out = (uint32_t) best_slope;
	*base_out = best_base;
	*maxdev_out = (uint32_t) best_dev;
}

/* Upper bound of the v1 blob size: w <= bitwidth(last) in every segment. */
static size_t
gpx_lrc_encode_bound(uint32_t n, uint32_t last)
{
	uint64_t	nb = gpx_nblocks_for(n, LRC_LOG2_SEG);
	uint64_t	words = nb * (LRC_HDR_WORDS + 1) +
		gpx_words_for_bits((uint64_t) n * gpx_bitwidth(last));
	uint64_t	bytes = gpx_payload_offset((uint32_t) nb) + 4 * words;

	return bytes > SIZE_MAX ? SIZE_MAX : (size_t) bytes;
}

/* Plan the segment of d[0..cnt): line, deviation bound, words. */
void
gpx_lrc_blk_plan(const uint32_t *d, uint32_t cnt, gpx_lrc_plan *pl)
{
	lrc_choose(d, cnt, &pl->slope_q, &pl->base, &pl->maxdev);
	pl->words = LRC_HDR_WORDS + lrc_dev_words(cnt, gpx_bitwidth(pl->maxdev));
}

/*
 * Write the planned segment of d[0..cnt) at payload word wpos (zeroed):
 * the header words, then the deviations packed LSB-first through a 64-bit
 * accumulator, a word stored as each fills (the segment's words are its
 * own, so whole-word stores write what OR-ing bits into zeros would).
 */
void
gpx_lrc_blk_write(uint8_t *payload, uint64_t wpos, const uint32_t *d,
				  uint32_t cnt, const gpx_lrc_plan *pl)
{
	uint8_t    *p = payload + 4 * wpos;
	uint32_t	w = gpx_bitwidth(pl->maxdev);
	uint32_t	base = (uint32_t) pl->base;
	uint64_t	acc = 0,
				lift = 0;
	uint32_t	have = 0;

	gpx_store32(p, (uint32_t) pl->base);
	gpx_store32(p + 4, pl->slope_q);
	gpx_store32(p + 8, pl->maxdev);
	p += 4 * LRC_HDR_WORDS;
	if (w == 0)
		return;
	for (uint32_t j = 0; j < cnt; j++, lift += pl->slope_q)
	{
		/* d[j] - base - lift(j), in [0, maxdev]: exact in wrapping uint32 */
		uint32_t	dev = d[j] - base - (uint32_t) (lift >> LRC_FRAC);

		acc |= (uint64_t) dev << have;
		have += w;
		if (have >= 32)
		{
			gpx_store32(p, (uint32_t) acc);
			p += 4;
			acc >>= 32;
			have -= 32;
		}
	}
	if (have > 0)
		gpx_store32(p, (uint32_t) acc);
}

/* Encode docs[0..n) as a v1 SegLRC blob into the zeroed out[0..cap). */
static gpx_status
gpx_lrc_encode(const uint32_t *docs, uint32_t n, uint8_t *out, size_t cap,
			   size_t *outlen)
{
	uint32_t	nb = gpx_nblocks_for(n, LRC_LOG2_SEG);
	size_t		poff = gpx_payload_offset(nb);
	uint8_t    *payload = out + poff;
	uint64_t	pos = 0;		/* payload words written */
	uint32_t	blk;

	if (poff > cap)
		return GPX_E_NOSPACE;
	for (blk = 0; blk < nb; blk++)
	{
		const uint32_t *d = docs + ((size_t) blk << LRC_LOG2_SEG);
		uint32_t	cnt = n - (blk << LRC_LOG2_SEG);
		gpx_lrc_plan pl;

		if (cnt > LRC_SEG)
			cnt = LRC_SEG;
		gpx_lrc_blk_plan(d, cnt, &pl);
		if ((pos + pl.words) * 4 > UINT32_MAX)
			return GPX_E_TOOBIG;
		if ((pos + pl.words) * 4 > cap - poff)
			return GPX_E_NOSPACE;
		gpx_write_dir(out, blk, d[0], (uint32_t) pos);
		gpx_lrc_blk_write(payload, pos, d, cnt, &pl);
		pos += pl.words;
	}
	gpx_write_header(out, GPX_CODEC_LRC, LRC_LOG2_SEG, 0, n, docs[0],
					 docs[n - 1], nb, (uint32_t) (pos * 4));
	*outlen = poff + (size_t) pos * 4;
	return GPX_OK;
}

/*
 * Decode the segment of block k with range checks into scratch; it must
 * fill [bit, end) exactly (GPX_E_PAYLOAD otherwise, as in version 1).
 */
gpx_status
gpx_lrc_blk_check(const gpx_blk *k, uint32_t *scratch)
{
	uint64_t	avail;
	uint64_t	segw;
	lrc_seg		s;
	uint32_t	j;

	if ((k->bit & 31) != 0 || (k->end & 31) != 0 || k->end < k->bit ||
		k->end > (uint64_t) k->plen * 8)
		return GPX_E_DIRECTORY;
	avail = (k->end - k->bit) >> 5;
	if (avail < LRC_HDR_WORDS)
		return GPX_E_PAYLOAD;
	lrc_read_seg(k->p, (uint32_t) (k->bit >> 5), &s);
	segw = LRC_HDR_WORDS + lrc_dev_words(k->cnt, s.w);
	if (avail != segw)
		return GPX_E_PAYLOAD;
	for (j = 0; j < k->cnt; j++)
	{
		uint32_t	dev = gpx_get_bits(s.dev, (uint64_t) j * s.w, s.w);
		int64_t		v = s.base + (int64_t) lrc_lift(s.slope_q, j) + dev;

		if (dev > s.maxdev || v < 0 || v > (int64_t) GPX_MAX_DOCID)
			return GPX_E_PAYLOAD;
		scratch[j] = (uint32_t) v;
	}
	return GPX_OK;
}

/* Bytes the segment of block k takes by its header (0: not readable). */
uint64_t
gpx_lrc_blk_bytes(const gpx_blk *k)
{
	lrc_seg		s;

	if ((k->bit & 31) != 0 || k->bit + 32 * LRC_HDR_WORDS > (uint64_t) k->plen * 8)
		return 0;
	lrc_read_seg(k->p, (uint32_t) (k->bit >> 5), &s);
	return 4 * ((uint64_t) LRC_HDR_WORDS + lrc_dev_words(k->cnt, s.w));
}

/* Check the LRC-specific fields and decode every v1 segment with range checks. */
static gpx_status
gpx_lrc_validate(const gpx_list *l, uint32_t *scratch)
{
	uint64_t	nwords = l->payload_bytes / 4;
	uint64_t	pos = 0;
	uint32_t	blk;

	if (l->param != 0 || l->log2_block != LRC_LOG2_SEG ||
		(l->payload_bytes & 3) != 0 ||
		l->nblocks != gpx_nblocks_for(l->n, LRC_LOG2_SEG))
		return GPX_E_HEADER;
	for (blk = 0; blk < l->nblocks; blk++)
	{
		uint32_t	cnt = lrc_count(l, blk);
		uint32_t	off = gpx_load32(l->dir + (size_t) blk * GPX_DIR_ENTRY_SIZE + 4);
		uint64_t	segw;
		lrc_seg		s;
		gpx_blk		k;
		gpx_status	st;

		/* segments are contiguous from word 0: offsets are implied */
		if (off != pos)
			return GPX_E_DIRECTORY;
		if (nwords - pos < LRC_HDR_WORDS)
			return GPX_E_PAYLOAD;
		lrc_read_seg(l->payload, off, &s);
		segw = LRC_HDR_WORDS + lrc_dev_words(cnt, s.w);
		if (nwords - pos < segw)
			return GPX_E_PAYLOAD;
		k.p = l->payload;
		k.plen = l->payload_bytes;
		k.bit = pos * 32;
		k.end = (pos + segw) * 32;
		k.first = gpx_dir_first_at(l, blk);
		k.cnt = cnt;
		k.form = GPX_FORM_LRC;
		pos += segw;
		st = gpx_lrc_blk_check(&k, scratch);
		if (st == GPX_OK)
			st = gpx_check_block(l, blk, scratch, cnt);
		if (st != GPX_OK)
			return st;
	}
	/* nothing may follow the last segment */
	if (pos != nwords)
		return GPX_E_PAYLOAD;
	return GPX_OK;
}

/*
 * Decode the elements j0..cnt-1 of segment s into out, its deviations read
 * with gpx_get_bits_fast when fast (a constant at each call site, so that
 * each gets its own loop).
 */
static inline __attribute__((always_inline)) void
lrc_decode_seg(const lrc_seg *s, uint32_t j0, uint32_t cnt, uint32_t *out,
			   bool fast)
{
	uint64_t	acc = s->slope_q * j0;
	uint64_t	bit = (uint64_t) j0 * s->w;

	for (uint32_t j = j0; j < cnt; j++)
	{
		out[j] = (uint32_t) s->base + (uint32_t) (acc >> LRC_FRAC) +
			(fast ? gpx_get_bits_fast(s->dev, bit, s->mask) :
			 gpx_get_bits(s->dev, bit, s->w));
		acc += s->slope_q;
		bit += s->w;
	}
}

/* Decode the segment of block k into out; returns its count. */
uint32_t
gpx_lrc_blk_decode(const gpx_blk *k, uint32_t *out)
{
	lrc_seg		s;
	const gpx_simd_ops *o = gpx_simd();
	uint32_t	done = 0;

	lrc_seg_of(k, &s);
	/* the vectorised variant's share, then the scalar loop's */
	if (o->lrc != NULL)
		done = o->lrc(s.dev, (size_t) (k->p + k->plen - s.dev), s.w, k->cnt,
					  (uint32_t) s.base, (uint32_t) s.slope_q, out);
	if (done >= k->cnt)
		return k->cnt;
	if (s.fast)
		lrc_decode_seg(&s, done, k->cnt, out, true);
	else
		lrc_decode_seg(&s, done, k->cnt, out, false);
	return k->cnt;
}

/* Element j of block k, decoded alone. */
uint32_t
gpx_lrc_blk_nth(const gpx_blk *k, uint32_t j)
{
	lrc_seg		s;

	lrc_seg_of(k, &s);
	return lrc_elem(&s, j);
}

/* First local index in block k with element >= x, LR-contracted. */
uint32_t
gpx_lrc_blk_lower_bound(const gpx_blk *k, uint32_t x, uint32_t *val)
{
	uint32_t	cnt = k->cnt;
	lrc_seg		s;
	int64_t		t;
	uint32_t	lo,
				hi;

	lrc_seg_of(k, &s);
	t = (int64_t) x - s.base;
	/* answer in [lo, hi]: pred(hi) >= x, pred(j) + maxdev < x for j < lo */
	lo = lrc_first_lift_geq(s.slope_q, t - (int64_t) s.maxdev, cnt);
	hi = lrc_first_lift_geq(s.slope_q, t, cnt);
	while (lo < hi)
	{
		uint32_t	mid = lo + (hi - lo) / 2;

		if (lrc_elem(&s, mid) < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < cnt && val != NULL)
		*val = lrc_elem(&s, lo);
	return lo;
}

const gpx_codec_ops gpx_lrc_ops = {
	.id = GPX_CODEC_LRC,
	.log2_block = LRC_LOG2_SEG,
	.name = "lrc",
	.encode_bound = gpx_lrc_encode_bound,
	.encode = gpx_lrc_encode,
	.validate = gpx_lrc_validate,
};
