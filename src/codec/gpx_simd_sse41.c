/*
 * gpx_simd_sse41.c - the SSE4.1 variant of the inner loops (gpx_simd.h),
 * every function compiled for SSE4.1 by its target attribute.
 *
 * Unpacking fields of width w <= 25 in groups of 8 (two 128-bit halves of
 * 4, the layout of gpx_simd_avx2.c): SSE has no per-lane shift, so each
 * field is moved up to bit 7 by a multiply by 2^(7 - shift), which keeps
 * it inside 32 bits because shift + w <= 32 - (7 - shift) for w <= 25,
 * then shifted down by 7 and masked.
 */
#include "gpx_simd.h"

#if GPX_SIMD_X86

#include <immintrin.h>

#define SSE41_FN __attribute__((target("sse4.1,popcnt"))) static

/* A run's field layout: shuffles and multipliers of a group of 8. */
typedef struct sse41_layout
{
	__m128i		shuf0,
				shuf1;
	__m128i		mul0,
				mul1;
	__m128i		mask;
	uint32_t	c4;
} sse41_layout;

/*
 * The layout of fields of w bits (1..25) starting at bit s0 (0..7), in
 * registers: field i starts at bit r = s0 + i w, byte r >> 3 (half 1
 * counts from field 4's byte), shift r & 7, multiplier 2^(7 - shift)
 * (looked up by a byte shuffle).
 */
SSE41_FN void
sse41_layout_of(uint32_t s0, uint32_t w, sse41_layout *lay)
{
	const __m128i vw = _mm_set1_epi32((int32_t) w),
				v0 = _mm_set1_epi32((int32_t) s0),
				bytes = _mm_set1_epi32(0x01010101),
				seq = _mm_set1_epi32(0x03020100),
				seven = _mm_set1_epi32(7),
				hi24 = _mm_set1_epi32((int32_t) 0xFFFFFF00u),
				pow = _mm_setr_epi8((char) 128, 64, 32, 16, 8, 4, 2, 1,
									0, 0, 0, 0, 0, 0, 0, 0);
	__m128i		r0 = _mm_add_epi32(v0, _mm_mullo_epi32(_mm_setr_epi32(0, 1, 2, 3), vw)),
				r1 = _mm_add_epi32(v0, _mm_mullo_epi32(_mm_setr_epi32(4, 5, 6, 7), vw));

	lay->c4 = (s0 + 4 * w) >> 3;
	lay->shuf0 = _mm_add_epi32(_mm_mullo_epi32(_mm_srli_epi32(r0, 3), bytes), seq);
	lay->shuf1 = _mm_add_epi32(_mm_mullo_epi32(_mm_sub_epi32(_mm_srli_epi32(r1, 3),
															 _mm_set1_epi32((int32_t) lay->c4)),
											   bytes), seq);
	lay->mul0 = _mm_shuffle_epi8(pow, _mm_or_si128(_mm_and_si128(r0, seven), hi24));
	lay->mul1 = _mm_shuffle_epi8(pow, _mm_or_si128(_mm_and_si128(r1, seven), hi24));
	lay->mask = _mm_set1_epi32((int32_t) gpx_mask(w));
}

/* Fields 0-3 (half 0) or 4-7 (half 1) of the group at q. */
SSE41_FN __m128i
sse41_half(const uint8_t *q, __m128i shuf, __m128i mul, __m128i mask)
{
	__m128i		v = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *) q), shuf);

	return _mm_and_si128(_mm_srli_epi32(_mm_mullo_epi32(v, mul), 7), mask);
}

/* Groups of 8 fields whose loads stay in avail bytes. */
SSE41_FN uint32_t
sse41_groups(size_t avail, uint64_t bit, uint32_t w, uint32_t cnt)
{
	size_t		b0 = (size_t) (bit >> 3),
				c4 = ((bit & 7) + 4 * w) >> 3,
				g;

	if (b0 + c4 + 16 > avail)
		return 0;
	g = (avail - b0 - c4 - 16) / w + 1;
	return g < cnt / 8 ? (uint32_t) g : cnt / 8;
}

SSE41_FN uint32_t
sse41_unpack(const uint8_t *p, size_t avail, uint64_t bit, uint32_t w,
			 uint32_t cnt, uint32_t *out)
{
	sse41_layout lay;
	const uint8_t *q = p + (bit >> 3);
	uint32_t	ng,
				g;

	if (w == 0 || w > 25)
		return 0;
	ng = sse41_groups(avail, bit, w, cnt);
	if (ng == 0)
		return 0;
	sse41_layout_of((uint32_t) (bit & 7), w, &lay);
	for (g = 0; g < ng; g++, q += w)
	{
		_mm_storeu_si128((__m128i *) (out + 8 * g),
						 sse41_half(q, lay.shuf0, lay.mul0, lay.mask));
		_mm_storeu_si128((__m128i *) (out + 8 * g + 4),
						 sse41_half(q + lay.c4, lay.shuf1, lay.mul1, lay.mask));
	}
	return 8 * ng;
}

/* Inclusive prefix sum of the 4 lanes of v. */
SSE41_FN __m128i
sse41_prefix4(__m128i v)
{
	v = _mm_add_epi32(v, _mm_slli_si128(v, 4));
	return _mm_add_epi32(v, _mm_slli_si128(v, 8));
}

SSE41_FN void
sse41_gaps_sum(uint32_t *g, uint32_t cnt, uint32_t start)
{
	const __m128i one = _mm_set1_epi32(1);
	__m128i		carry = _mm_set1_epi32((int32_t) start);
	uint32_t	i = 0,
				v = start;

	/* each group's prefix sum and total are off the chain (one add) */
	for (; i + 4 <= cnt; i += 4)
	{
		__m128i		x = sse41_prefix4(_mm_add_epi32(
			_mm_loadu_si128((const __m128i *) (g + i)), one));

		_mm_storeu_si128((__m128i *) (g + i), _mm_add_epi32(x, carry));
		carry = _mm_add_epi32(carry, _mm_shuffle_epi32(x, 0xFF));
	}
	if (i > 0)
		v = g[i - 1];
	for (; i < cnt; i++)
	{
		v += g[i] + 1;
		g[i] = v;
	}
}

/* base + the line at 4 consecutive j. */
SSE41_FN __m128i
sse41_line(__m128i vb, __m128i hi, __m128i lo, __m128i j)
{
	return _mm_add_epi32(vb, _mm_add_epi32(_mm_mullo_epi32(hi, j),
										   _mm_srli_epi32(_mm_mullo_epi32(lo, j), 8)));
}

SSE41_FN uint32_t
sse41_lrc(const uint8_t *dev, size_t avail, uint32_t w, uint32_t cnt,
		  uint32_t base, uint32_t slope_q, uint32_t *out)
{
	/* (slope_q j) >> 8 = (slope_q >> 8) j + (((slope_q & 255) j) >> 8) */
	const __m128i hi = _mm_set1_epi32((int32_t) (slope_q >> 8)),
				lo = _mm_set1_epi32((int32_t) (slope_q & 255)),
				vb = _mm_set1_epi32((int32_t) base),
				four = _mm_set1_epi32(4);
	__m128i		j = _mm_setr_epi32(0, 1, 2, 3);
	sse41_layout lay;
	const uint8_t *q = dev;
	uint32_t	ng,
				g;

	if (w > 25)
		return 0;
	/* the layout is unused when every deviation is 0 (w = 0) */
	sse41_layout_of(0, w > 0 ? w : 1, &lay);
	if (w == 0)
		ng = cnt / 8;
	else
		ng = sse41_groups(avail, 0, w, cnt);

	for (g = 0; g < ng; g++, q += w)
	{
		__m128i		x0 = sse41_line(vb, hi, lo, j),
					x1 = sse41_line(vb, hi, lo, _mm_add_epi32(j, four));

		if (w > 0)
		{
			x0 = _mm_add_epi32(x0, sse41_half(q, lay.shuf0, lay.mul0, lay.mask));
			x1 = _mm_add_epi32(x1, sse41_half(q + lay.c4, lay.shuf1, lay.mul1, lay.mask));
		}
		_mm_storeu_si128((__m128i *) (out + 8 * g), x0);
		_mm_storeu_si128((__m128i *) (out + 8 * g + 4), x1);
		j = _mm_add_epi32(j, _mm_add_epi32(four, four));
	}
	return 8 * ng;
}

SSE41_FN uint32_t
sse41_ones(const uint8_t *p, uint64_t bit, uint64_t end, uint32_t want,
		   uint32_t cap, uint32_t add, uint32_t *out)
{
	uint64_t	pos = bit;
	uint32_t	r = 0;

	while (r < want && pos < end)
	{
		uint64_t	w;
		uint32_t	nb = end - pos < 56 ? (uint32_t) (end - pos) : 56,
					rel = add + (uint32_t) (pos - bit);

		memcpy(&w, p + (pos >> 3), 8);
		w = (w >> (pos & 7)) & ((UINT64_C(1) << nb) - 1);
		for (uint32_t k = 0; k < nb && w != 0; k += 8, w >>= 8)
		{
			uint32_t	v = (uint32_t) w & 0xFF;

			if (r + 8 <= cap)
			{
				__m128i		t = _mm_loadl_epi64((const __m128i *) gpx_bm_pos[v]),
							vb = _mm_set1_epi32((int32_t) (rel + k));

				_mm_storeu_si128((__m128i *) (out + r),
								 _mm_add_epi32(_mm_cvtepu8_epi32(t), vb));
				_mm_storeu_si128((__m128i *) (out + r + 4),
								 _mm_add_epi32(_mm_cvtepu8_epi32(_mm_srli_si128(t, 4)), vb));
			}
			else
				for (uint32_t t = 0; t < 8 && r + t < cap; t++)
					out[r + t] = rel + k + gpx_bm_pos[v][t];
			r += (uint32_t) __builtin_popcount(v);
		}
		pos += nb;
	}
	return r < want ? r : want;
}

SSE41_FN void
sse41_ef_merge(uint32_t *lo, const uint32_t *hi, uint32_t m, uint32_t b,
			   uint32_t base)
{
	const __m128i cb = _mm_cvtsi32_si128((int) b),
				vb = _mm_set1_epi32((int32_t) base),
				four = _mm_set1_epi32(4);
	__m128i		r = _mm_setr_epi32(0, 1, 2, 3);
	uint32_t	i = 0;

	for (; i + 4 <= m; i += 4)
	{
		__m128i		h = _mm_sll_epi32(_mm_sub_epi32(
			_mm_loadu_si128((const __m128i *) (hi + i)), r), cb);

		_mm_storeu_si128((__m128i *) (lo + i), _mm_add_epi32(vb, _mm_or_si128(
			h, _mm_loadu_si128((const __m128i *) (lo + i)))));
		r = _mm_add_epi32(r, four);
	}
	for (; i < m; i++)
		lo[i] = base + (((hi[i] - i) << b) | lo[i]);
}

/* Bit i set when b[i] < x, for i < 16. */
SSE41_FN uint32_t
sse41_lt16(const uint32_t *b, __m128i vx)
{
	__m128i		m0 = _mm_cmplt_epi32(_mm_loadu_si128((const __m128i *) b), vx),
				m1 = _mm_cmplt_epi32(_mm_loadu_si128((const __m128i *) (b + 4)), vx),
				m2 = _mm_cmplt_epi32(_mm_loadu_si128((const __m128i *) (b + 8)), vx),
				m3 = _mm_cmplt_epi32(_mm_loadu_si128((const __m128i *) (b + 12)), vx);

	return (uint32_t) _mm_movemask_epi8(_mm_packs_epi16(_mm_packs_epi32(m0, m1),
													   _mm_packs_epi32(m2, m3)));
}

SSE41_FN uint32_t
sse41_scan(const uint32_t *buf, uint32_t p, uint32_t x)
{
	const __m128i vx = _mm_set1_epi32((int32_t) x);
	uint32_t	lt = sse41_lt16(buf + p, vx);

	if (lt != 0xFFFFu)
		return p + (uint32_t) __builtin_ctz(~lt);
	p += 16;
	for (;;)
	{
		lt = sse41_lt16(buf + p, vx) | (sse41_lt16(buf + p + 16, vx) << 16);
		if (lt != 0xFFFFFFFFu)
			return p + (uint32_t) __builtin_ctz(~lt);
		p += 32;
	}
}

/*
 * Merge by windows of 16 (four registers), as gpx_simd_avx512.c does: the
 * window at the first value >= the next candidate, then every candidate
 * up to its last value tested against all 16 at once, independently.
 */
SSE41_FN uint32_t
sse41_merge(const uint32_t *buf, uint32_t cnt, uint32_t *pp, uint32_t *c,
			uint32_t i, uint32_t m, uint32_t *wp)
{
	uint32_t	p = *pp,
				w = *wp,
				last = buf[cnt - 1];

	while (i < m && c[i] <= last)
	{
		uint32_t	lt = sse41_lt16(buf + p, _mm_set1_epi32((int32_t) c[i])),
					lim;
		__m128i		w0,
					w1,
					w2,
					w3;

		if (lt == 0xFFFFu)
		{
			p += 16;
			continue;
		}
		p += (uint32_t) __builtin_ctz(~lt);
		w0 = _mm_loadu_si128((const __m128i *) (buf + p));
		w1 = _mm_loadu_si128((const __m128i *) (buf + p + 4));
		w2 = _mm_loadu_si128((const __m128i *) (buf + p + 8));
		w3 = _mm_loadu_si128((const __m128i *) (buf + p + 12));
		lim = buf[p + 15] < last ? buf[p + 15] : last;
		do
		{
			uint32_t	x = c[i++];
			__m128i		v = _mm_set1_epi32((int32_t) x),
						e = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi32(w0, v), _mm_cmpeq_epi32(w1, v)),
										 _mm_or_si128(_mm_cmpeq_epi32(w2, v), _mm_cmpeq_epi32(w3, v)));

			c[w] = x;
			w += !_mm_testz_si128(e, e);
		} while (i < m && c[i] <= lim);
	}
	*pp = p;
	*wp = w;
	return i;
}

/* Unaligned loads of 4 uint32 / int32. */
#define SSE41_LOAD(p) _mm_loadu_si128((const __m128i *) (p))
/* Horizontal reductions of 4 lanes: pairs, then neighbours. */
#define SSE41_HRED(name, op) \
SSE41_FN uint32_t \
name(__m128i h) \
{ \
	h = op(h, _mm_shuffle_epi32(h, 0x4E)); \
	h = op(h, _mm_shuffle_epi32(h, 0xB1)); \
	return (uint32_t) _mm_cvtsi128_si32(h); \
}
SSE41_HRED(sse41_hmin_u32, _mm_min_epu32)
SSE41_HRED(sse41_hmax_u32, _mm_max_epu32)
SSE41_HRED(sse41_hmin_s32, _mm_min_epi32)
SSE41_HRED(sse41_hmax_s32, _mm_max_epi32)
SSE41_HRED(sse41_hor_32, _mm_or_si128)

/* The smallest and largest gap of d's first gaps, 4 at a time. */
SSE41_FN uint32_t
sse41_gap_range(const uint32_t *d, uint32_t cnt, uint32_t *gmin,
                uint32_t *gmax)
{
	__m128i		mn = _mm_set1_epi32(-1),
				mx = _mm_setzero_si128();
	uint32_t	r = 0,
				lo,
				hi;

	for (; r + 4 < cnt; r += 4)
	{
		__m128i		g = _mm_sub_epi32(SSE41_LOAD(d + r + 1), SSE41_LOAD(d + r));

		mn = _mm_min_epu32(mn, g);
		mx = _mm_max_epu32(mx, g);
	}
	if (r == 0)
		return 0;
	lo = sse41_hmin_u32(mn);
	hi = sse41_hmax_u32(mx);
	*gmin = lo < *gmin ? lo : *gmin;
	*gmax = hi > *gmax ? hi : *gmax;
	return r;
}

/*
 * The LRC encoder's exact ranges at k slopes, 4 docIDs at a time: r_j =
 * 256 (d[j] - d[0]) - s j in wrapping int32 (exact by the caller's
 * bounds), s j kept by adding 4 s per step.
 */
SSE41_FN uint32_t
sse41_lrc_ext(const uint32_t *d, uint32_t cnt, uint32_t s, uint32_t k,
              int32_t *mx, int32_t *mn)
{
	const __m128i d0 = _mm_set1_epi32((int32_t) d[0]),
				step = _mm_set1_epi32(4),
				sstep = _mm_set1_epi32((int32_t) (s * 4u));
	__m128i		jv = _mm_setr_epi32(0, 1, 2, 3),
				sj = _mm_mullo_epi32(jv, _mm_set1_epi32((int32_t) s)),
				x0 = _mm_set1_epi32(INT32_MIN),
				x1 = x0,
				x2 = x0,
				n0 = _mm_set1_epi32(INT32_MAX),
				n1 = n0,
				n2 = n0;
	uint32_t	j = 0;

	if (k == 2)
		for (; j + 4 <= cnt; j += 4)
		{
			__m128i		r = _mm_sub_epi32(_mm_slli_epi32(_mm_sub_epi32(SSE41_LOAD(d + j), d0), 8), sj);

			x0 = _mm_max_epi32(x0, r);
			n0 = _mm_min_epi32(n0, r);
			r = _mm_sub_epi32(r, jv);
			x1 = _mm_max_epi32(x1, r);
			n1 = _mm_min_epi32(n1, r);
			jv = _mm_add_epi32(jv, step);
			sj = _mm_add_epi32(sj, sstep);
		}
	else
		for (; j + 4 <= cnt; j += 4)
		{
			__m128i		r = _mm_sub_epi32(_mm_slli_epi32(_mm_sub_epi32(SSE41_LOAD(d + j), d0), 8), sj);

			x0 = _mm_max_epi32(x0, r);
			n0 = _mm_min_epi32(n0, r);
			r = _mm_sub_epi32(r, jv);
			x1 = _mm_max_epi32(x1, r);
			n1 = _mm_min_epi32(n1, r);
			r = _mm_sub_epi32(r, jv);
			x2 = _mm_max_epi32(x2, r);
			n2 = _mm_min_epi32(n2, r);
			jv = _mm_add_epi32(jv, step);
			sj = _mm_add_epi32(sj, sstep);
		}
	if (j == 0)
		return 0;
	mx[0] = (int32_t) sse41_hmax_s32(x0);
	mn[0] = (int32_t) sse41_hmin_s32(n0);
	mx[1] = (int32_t) sse41_hmax_s32(x1);
	mn[1] = (int32_t) sse41_hmin_s32(n1);
	if (k > 2)
	{
		mx[2] = (int32_t) sse41_hmax_s32(x2);
		mn[2] = (int32_t) sse41_hmin_s32(n2);
	}
	return j;
}

/* The sortedness flag of d's first elements, 4 at a time. */
SSE41_FN size_t
sse41_sorted_flag(const uint32_t *d, size_t n, uint32_t *flag)
{
	__m128i		f = _mm_setzero_si128();
	const __m128i one = _mm_set1_epi32(1);
	size_t		r = 0;

	for (; r + 4 < n; r += 4)
	{
		__m128i		a = SSE41_LOAD(d + r + 1);

		f = _mm_or_si128(f, _mm_or_si128(a, _mm_sub_epi32(_mm_sub_epi32(a, SSE41_LOAD(d + r)), one)));
	}
	*flag |= sse41_hor_32(f);
	return r;
}

const gpx_simd_ops gpx_simd_sse41_ops = {
	.level = GPX_SIMD_SSE41,
	.unpack = sse41_unpack,
	.gaps_sum = sse41_gaps_sum,
	.lrc = sse41_lrc,
	.ones = sse41_ones,
	.ef_merge = sse41_ef_merge,
	.scan = sse41_scan,
	.merge = sse41_merge,
	.gap_range = sse41_gap_range,
	.lrc_ext = sse41_lrc_ext,
	.sorted_flag = sse41_sorted_flag,
};

#endif							/* GPX_SIMD_X86 */
