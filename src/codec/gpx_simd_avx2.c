/*
 * gpx_simd_avx2.c - the AVX2 variant of the inner loops (gpx_simd.h),
 * every function compiled for AVX2 by its target attribute, so the file
 * builds into a library that still runs on any x86-64 (gpx_cpu.c calls it
 * only where the CPU has AVX2).
 *
 * Unpacking bit fields of width w <= 25: a group of 8 fields spans exactly
 * w bytes, so its layout (the byte and bit at which each field starts,
 * relative to the group's first byte) is the same for every group of a
 * run.  Each 128-bit lane loads the 16 bytes from its first field's byte,
 * a byte shuffle moves each field's 4 bytes into its 32-bit slot, a
 * variable shift drops the bits below the field and a mask those above.
 * Wider fields (not met in real posting lists) are left to the scalar
 * loop.
 */
#include "gpx_simd.h"

#if GPX_SIMD_X86

#include <immintrin.h>

#define AVX2_FN __attribute__((target("avx2,bmi2,popcnt"))) static

/* A run's field layout: the shuffle and the shifts of a group of 8. */
typedef struct avx2_layout
{
	__m256i		shuf;
	__m256i		shift;
	__m256i		mask;
	uint32_t	c4;				/* byte of field 4, lane 1's load */
} avx2_layout;

/*
 * The layout of fields of w bits (1..25) starting at bit s0 (0..7), in
 * registers: field i starts at bit r = s0 + i w, byte r >> 3 (lane 1
 * counts from field 4's byte), shift r & 7.
 */
AVX2_FN void
avx2_layout_of(uint32_t s0, uint32_t w, avx2_layout *lay)
{
	__m256i		r = _mm256_add_epi32(_mm256_set1_epi32((int32_t) s0),
									 _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
														_mm256_set1_epi32((int32_t) w)));
	__m256i		c;

	lay->c4 = (s0 + 4 * w) >> 3;
	c = _mm256_sub_epi32(_mm256_srli_epi32(r, 3),
						 _mm256_setr_epi32(0, 0, 0, 0, (int32_t) lay->c4, (int32_t) lay->c4,
										   (int32_t) lay->c4, (int32_t) lay->c4));
	/* bytes c, c + 1, c + 2, c + 3 of each slot */
	lay->shuf = _mm256_add_epi32(_mm256_mullo_epi32(c, _mm256_set1_epi32(0x01010101)),
								 _mm256_set1_epi32(0x03020100));
	lay->shift = _mm256_and_si256(r, _mm256_set1_epi32(7));
	lay->mask = _mm256_set1_epi32((int32_t) gpx_mask(w));
}

/* The 8 fields of the group whose first byte is q. */
AVX2_FN __m256i
avx2_group(const uint8_t *q, const avx2_layout *lay)
{
	__m256i		v = _mm256_inserti128_si256(
		_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *) q)),
		_mm_loadu_si128((const __m128i *) (q + lay->c4)), 1);

	v = _mm256_shuffle_epi8(v, lay->shuf);
	return _mm256_and_si256(_mm256_srlv_epi32(v, lay->shift), lay->mask);
}

/* Groups of 8 fields whose loads stay in avail bytes (see gpx_simd.h). */
AVX2_FN uint32_t
avx2_groups(size_t avail, uint64_t bit, uint32_t w, uint32_t cnt)
{
	size_t		b0 = (size_t) (bit >> 3),
				c4 = ((bit & 7) + 4 * w) >> 3,
				g;

	/* group g reads [b0 + g w, b0 + g w + c4 + 16) */
	if (b0 + c4 + 16 > avail)
		return 0;
	g = (avail - b0 - c4 - 16) / w + 1;
	return g < cnt / 8 ? (uint32_t) g : cnt / 8;
}

AVX2_FN uint32_t
avx2_unpack(const uint8_t *p, size_t avail, uint64_t bit, uint32_t w,
			uint32_t cnt, uint32_t *out)
{
	avx2_layout lay;
	const uint8_t *q = p + (bit >> 3);
	uint32_t	ng,
				g;

	if (w == 0 || w > 25)
		return 0;
	ng = avx2_groups(avail, bit, w, cnt);
	if (ng == 0)
		return 0;
	avx2_layout_of((uint32_t) (bit & 7), w, &lay);
	for (g = 0; g < ng; g++, q += w)
		_mm256_storeu_si256((__m256i *) (out + 8 * g), avx2_group(q, &lay));
	return 8 * ng;
}

/* Inclusive prefix sum of the 8 lanes of v. */
AVX2_FN __m256i
avx2_prefix8(__m256i v)
{
	__m256i		t;

	v = _mm256_add_epi32(v, _mm256_slli_si256(v, 4));
	v = _mm256_add_epi32(v, _mm256_slli_si256(v, 8));
	/* lane 0's total (its element 3) into every element of lane 1 */
	t = _mm256_shuffle_epi32(v, 0xFF);
	t = _mm256_permute2x128_si256(t, t, 0x08);
	return _mm256_add_epi32(v, t);
}

AVX2_FN void
avx2_gaps_sum(uint32_t *g, uint32_t cnt, uint32_t start)
{
	const __m256i one = _mm256_set1_epi32(1),
				last = _mm256_set1_epi32(7);
	__m256i		carry = _mm256_set1_epi32((int32_t) start);
	uint32_t	i = 0,
				v = start;

	/*
	 * Each group's own prefix sum and total are off the chain from group
	 * to group, which is one add.
	 */
	for (; i + 8 <= cnt; i += 8)
	{
		__m256i		x = avx2_prefix8(_mm256_add_epi32(
			_mm256_loadu_si256((const __m256i *) (g + i)), one));

		_mm256_storeu_si256((__m256i *) (g + i), _mm256_add_epi32(x, carry));
		carry = _mm256_add_epi32(carry, _mm256_permutevar8x32_epi32(x, last));
	}
	if (i > 0)
		v = g[i - 1];
	for (; i < cnt; i++)
	{
		v += g[i] + 1;
		g[i] = v;
	}
}

AVX2_FN uint32_t
avx2_lrc(const uint8_t *dev, size_t avail, uint32_t w, uint32_t cnt,
		 uint32_t base, uint32_t slope_q, uint32_t *out)
{
	/* (slope_q j) >> 8 = (slope_q >> 8) j + (((slope_q & 255) j) >> 8) */
	const __m256i j0 = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
				hstep = _mm256_set1_epi32((int32_t) (8 * (slope_q >> 8))),
				lstep = _mm256_set1_epi32((int32_t) (8 * (slope_q & 255)));
	/* base + (slope_q >> 8) j (wrapping), and (slope_q & 255) j (< 2^16) */
	__m256i		hj = _mm256_add_epi32(_mm256_set1_epi32((int32_t) base),
									  _mm256_mullo_epi32(j0, _mm256_set1_epi32((int32_t) (slope_q >> 8)))),
				lj = _mm256_mullo_epi32(j0, _mm256_set1_epi32((int32_t) (slope_q & 255)));
	avx2_layout lay;
	const uint8_t *q = dev;
	uint32_t	ng,
				g;

	if (w > 25)
		return 0;
	/* the layout is unused when every deviation is 0 (w = 0) */
	avx2_layout_of(0, w > 0 ? w : 1, &lay);
	if (w == 0)
		ng = cnt / 8;
	else
		ng = avx2_groups(avail, 0, w, cnt);

	for (g = 0; g < ng; g++, q += w)
	{
		__m256i		x = _mm256_add_epi32(hj, _mm256_srli_epi32(lj, 8));

		if (w > 0)
			x = _mm256_add_epi32(x, avx2_group(q, &lay));
		_mm256_storeu_si256((__m256i *) (out + 8 * g), x);
		hj = _mm256_add_epi32(hj, hstep);
		lj = _mm256_add_epi32(lj, lstep);
	}
	return 8 * ng;
}

AVX2_FN uint32_t
avx2_ones(const uint8_t *p, uint64_t bit, uint64_t end, uint32_t want,
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
				_mm256_storeu_si256((__m256i *) (out + r),
									_mm256_add_epi32(_mm256_cvtepu8_epi32(
										_mm_loadl_epi64((const __m128i *) gpx_bm_pos[v])),
													 _mm256_set1_epi32((int32_t) (rel + k))));
			else
				for (uint32_t t = 0; t < 8 && r + t < cap; t++)
					out[r + t] = rel + k + gpx_bm_pos[v][t];
			r += (uint32_t) __builtin_popcount(v);
		}
		pos += nb;
	}
	return r < want ? r : want;
}

AVX2_FN void
avx2_ef_merge(uint32_t *lo, const uint32_t *hi, uint32_t m, uint32_t b,
			  uint32_t base)
{
	const __m128i cb = _mm_cvtsi32_si128((int) b);
	const __m256i vb = _mm256_set1_epi32((int32_t) base),
				eight = _mm256_set1_epi32(8);
	__m256i		r = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
	uint32_t	i = 0;

	for (; i + 8 <= m; i += 8)
	{
		__m256i		h = _mm256_sll_epi32(_mm256_sub_epi32(
			_mm256_loadu_si256((const __m256i *) (hi + i)), r), cb);

		_mm256_storeu_si256((__m256i *) (lo + i),
							_mm256_add_epi32(vb, _mm256_or_si256(h,
																 _mm256_loadu_si256((const __m256i *) (lo + i)))));
		r = _mm256_add_epi32(r, eight);
	}
	for (; i < m; i++)
		lo[i] = base + (((hi[i] - i) << b) | lo[i]);
}

/* Bit i set when buf[i] < x, for 8 values. */
AVX2_FN uint32_t
avx2_lt8(const uint32_t *buf, __m256i vx)
{
	return (uint32_t) _mm256_movemask_ps(_mm256_castsi256_ps(
		_mm256_cmpgt_epi32(vx, _mm256_loadu_si256((const __m256i *) buf))));
}

AVX2_FN uint32_t
avx2_scan(const uint32_t *buf, uint32_t p, uint32_t x)
{
	const __m256i vx = _mm256_set1_epi32((int32_t) x);
	uint32_t	lt = avx2_lt8(buf + p, vx) | avx2_lt8(buf + p + 8, vx) << 8;

	/* the values below x are a prefix: the first other one answers */
	if (lt != 0xFFFFu)
		return p + (uint32_t) __builtin_ctz(~lt);
	p += 16;
	for (;;)
	{
		lt = avx2_lt8(buf + p, vx) | avx2_lt8(buf + p + 8, vx) << 8 |
			avx2_lt8(buf + p + 16, vx) << 16 | avx2_lt8(buf + p + 24, vx) << 24;
		if (lt != 0xFFFFFFFFu)
			return p + (uint32_t) __builtin_ctz(~lt);
		p += 32;
	}
}

/*
 * The last value of each 16-value window of buf[0..cnt) (cnt <= 256),
 * windows 0-7 in *s0 and 8-15 in *s1; a window past the block samples
 * buf[cnt - 1], so only buf[0..cnt) is read.
 */
AVX2_FN void
avx2_window_lasts(const uint32_t *buf, uint32_t cnt, __m256i *s0, __m256i *s1)
{
	const __m256i lastv = _mm256_set1_epi32((int32_t) (cnt - 1));

	*s0 = _mm256_i32gather_epi32((const int *) buf,
								 _mm256_min_epu32(_mm256_setr_epi32(15, 31, 47, 63, 79, 95, 111, 127),
												  lastv), 4);
	*s1 = _mm256_i32gather_epi32((const int *) buf,
								 _mm256_min_epu32(_mm256_setr_epi32(143, 159, 175, 191, 207, 223, 239, 255),
												  lastv), 4);
}

/*
 * The window x can only be in: how many windows end below it (16 when x
 * is above the block).  Values <= GPX_MAX_DOCID: signed compares order
 * them.
 */
AVX2_FN uint32_t
avx2_window_of(__m256i vx, __m256i s0, __m256i s1)
{
	return (uint32_t) __builtin_popcount((uint32_t) _mm256_movemask_ps(_mm256_castsi256_ps(
		_mm256_cmpgt_epi32(vx, s0))) |
		(uint32_t) _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(vx, s1))) << 8);
}

/*
 * Merge by sampled windows, as gpx_simd_avx512.c does: the last value of
 * each window of 16 (at most 16 windows) in two registers, once per call;
 * a candidate's window is the count of samples below it, and two compares
 * with that window answer, no candidate waiting for another's result.
 * Samples past the block's windows repeat its last value, which no
 * candidate merged here exceeds.
 */
AVX2_FN uint32_t
avx2_merge(const uint32_t *buf, uint32_t cnt, uint32_t *pp, uint32_t *c,
		   uint32_t i, uint32_t m, uint32_t *wp)
{
	uint32_t	w = *wp,
				last = buf[cnt - 1],
				e,
				j = *pp >> 4;
	__m256i		s0,
				s1;

	/* e: the first candidate above the block */
	e = gpx_simd_upper(c, i, m, last);
	if (e == i)
		return i;
	/* cnt <= GPX_MAX_BLOCK = 256: the 16 samples cover the block */
	avx2_window_lasts(buf, cnt, &s0, &s1);
	for (; i < e; i++)
	{
		uint32_t	x = c[i];
		const __m256i vx = _mm256_set1_epi32((int32_t) x);
		const uint32_t *win;

		j = avx2_window_of(vx, s0, s1);
		win = buf + 16 * j;
		c[w] = x;
		w += !_mm256_testz_si256(_mm256_or_si256(
			_mm256_cmpeq_epi32(_mm256_loadu_si256((const __m256i *) win), vx),
			_mm256_cmpeq_epi32(_mm256_loadu_si256((const __m256i *) (win + 8)), vx)),
								 _mm256_set1_epi32(-1));
	}
	*pp = 16 * j;
	*wp = w;
	return e;
}

/*
 * avx2_merge that also records where each kept candidate is (the
 * window's index plus the lane of the match) and moves orig[] along.
 */
AVX2_FN uint32_t
avx2_merge_pos(const uint32_t *buf, uint32_t cnt, uint32_t *c,
			   uint32_t *orig, uint32_t i, uint32_t m, uint32_t *wp,
			   uint32_t *row, uint32_t base)
{
	uint32_t	w = *wp,
				e;
	__m256i		s0,
				s1;

	e = gpx_simd_upper(c, i, m, buf[cnt - 1]);
	if (e == i)
		return i;
	avx2_window_lasts(buf, cnt, &s0, &s1);
	for (; i < e; i++)
	{
		uint32_t	x = c[i],
					o = orig[i],
					j,
					eq;
		const __m256i vx = _mm256_set1_epi32((int32_t) x);
		const uint32_t *win;

		j = avx2_window_of(vx, s0, s1);
		win = buf + 16 * j;
		eq = (uint32_t) _mm256_movemask_ps(_mm256_castsi256_ps(
			_mm256_cmpeq_epi32(_mm256_loadu_si256((const __m256i *) win), vx))) |
			(uint32_t) _mm256_movemask_ps(_mm256_castsi256_ps(
			_mm256_cmpeq_epi32(_mm256_loadu_si256((const __m256i *) (win + 8)), vx))) << 8;
		/* no match: 16 past the window, a row entry nobody reads */
		row[o] = base + 16 * j + (uint32_t) __builtin_ctz(eq | 0x10000u);
		c[w] = x;
		orig[w] = o;
		w += eq != 0;
	}
	*wp = w;
	return e;
}

/*
 * Positions by sampled windows, as avx2_merge; the window is loaded with
 * its lanes past the block masked off, so only buf[0..cnt) is read.
 */
AVX2_FN uint32_t
avx2_locate(const uint32_t *buf, uint32_t cnt, const uint32_t *x,
			uint32_t n, uint32_t *pos)
{
	const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
	const uint32_t nwin = (cnt + 15) >> 4;
	__m256i		s0,
				s1;
	uint32_t	found = 0;

	avx2_window_lasts(buf, cnt, &s0, &s1);
	for (uint32_t r = 0; r < n; r++)
	{
		const __m256i vx = _mm256_set1_epi32((int32_t) x[r]);
		uint32_t	j,
					left,
					eq;
		const uint32_t *win;
		__m256i		lv,
					m0,
					m1;

		j = avx2_window_of(vx, s0, s1);
		/* above the block (j == 16 >= nwin): no lane */
		left = j < nwin ? cnt - 16 * j : 0;
		win = buf + 16 * (j < nwin ? j : 0);
		lv = _mm256_set1_epi32((int32_t) (left < 16 ? left : 16));
		m0 = _mm256_cmpgt_epi32(lv, lane);
		m1 = _mm256_cmpgt_epi32(lv, _mm256_add_epi32(lane, _mm256_set1_epi32(8)));
		eq = (uint32_t) _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_and_si256(m0,
			_mm256_cmpeq_epi32(_mm256_maskload_epi32((const int *) win, m0), vx)))) |
			(uint32_t) _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_and_si256(m1,
			_mm256_cmpeq_epi32(_mm256_maskload_epi32((const int *) (win + 8), m1), vx)))) << 8;
		pos[r] = eq != 0 ? 16 * j + (uint32_t) __builtin_ctz(eq) : GPX_SIMD_NOPOS;
		found += eq != 0;
	}
	return found;
}

/* Unaligned loads of 8 uint32 / int32. */
#define AVX2_LOAD(p) _mm256_loadu_si256((const __m256i *) (p))
/* Horizontal reductions of 8 lanes: halves, then pairs, then neighbours. */
#define AVX2_HRED(name, op) \
AVX2_FN uint32_t \
name(__m256i v) \
{ \
	__m128i		h = op(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1)); \
\
	h = op(h, _mm_shuffle_epi32(h, 0x4E)); \
	h = op(h, _mm_shuffle_epi32(h, 0xB1)); \
	return (uint32_t) _mm_cvtsi128_si32(h); \
}
AVX2_HRED(avx2_hmin_u32, _mm_min_epu32)
AVX2_HRED(avx2_hmax_u32, _mm_max_epu32)
AVX2_HRED(avx2_hmin_s32, _mm_min_epi32)
AVX2_HRED(avx2_hmax_s32, _mm_max_epi32)
AVX2_HRED(avx2_hor_32, _mm_or_si128)

/* The smallest and largest gap of d's first gaps, 8 at a time. */
AVX2_FN uint32_t
avx2_gap_range(const uint32_t *d, uint32_t cnt, uint32_t *gmin,
               uint32_t *gmax)
{
	__m256i		mn = _mm256_set1_epi32(-1),
				mx = _mm256_setzero_si256();
	uint32_t	r = 0,
				lo,
				hi;

	for (; r + 8 < cnt; r += 8)
	{
		__m256i		g = _mm256_sub_epi32(AVX2_LOAD(d + r + 1), AVX2_LOAD(d + r));

		mn = _mm256_min_epu32(mn, g);
		mx = _mm256_max_epu32(mx, g);
	}
	if (r == 0)
		return 0;
	lo = avx2_hmin_u32(mn);
	hi = avx2_hmax_u32(mx);
	*gmin = lo < *gmin ? lo : *gmin;
	*gmax = hi > *gmax ? hi : *gmax;
	return r;
}

/*
 * The LRC encoder's exact ranges at k slopes, 8 docIDs at a time: r_j =
 * 256 (d[j] - d[0]) - s j in wrapping int32 (exact by the caller's
 * bounds), s j kept by adding 8 s per step.
 */
AVX2_FN uint32_t
avx2_lrc_ext(const uint32_t *d, uint32_t cnt, uint32_t s, uint32_t k,
             int32_t *mx, int32_t *mn)
{
	const __m256i d0 = _mm256_set1_epi32((int32_t) d[0]),
				step = _mm256_set1_epi32(8),
				sstep = _mm256_set1_epi32((int32_t) (s * 8u));
	__m256i		jv = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
				sj = _mm256_mullo_epi32(jv, _mm256_set1_epi32((int32_t) s)),
				x0 = _mm256_set1_epi32(INT32_MIN),
				x1 = x0,
				x2 = x0,
				n0 = _mm256_set1_epi32(INT32_MAX),
				n1 = n0,
				n2 = n0;
	uint32_t	j = 0;

	if (k == 2)
		for (; j + 8 <= cnt; j += 8)
		{
			__m256i		r = _mm256_sub_epi32(_mm256_slli_epi32(_mm256_sub_epi32(AVX2_LOAD(d + j), d0), 8), sj);

			x0 = _mm256_max_epi32(x0, r);
			n0 = _mm256_min_epi32(n0, r);
			r = _mm256_sub_epi32(r, jv);
			x1 = _mm256_max_epi32(x1, r);
			n1 = _mm256_min_epi32(n1, r);
			jv = _mm256_add_epi32(jv, step);
			sj = _mm256_add_epi32(sj, sstep);
		}
	else
		for (; j + 8 <= cnt; j += 8)
		{
			__m256i		r = _mm256_sub_epi32(_mm256_slli_epi32(_mm256_sub_epi32(AVX2_LOAD(d + j), d0), 8), sj);

			x0 = _mm256_max_epi32(x0, r);
			n0 = _mm256_min_epi32(n0, r);
			r = _mm256_sub_epi32(r, jv);
			x1 = _mm256_max_epi32(x1, r);
			n1 = _mm256_min_epi32(n1, r);
			r = _mm256_sub_epi32(r, jv);
			x2 = _mm256_max_epi32(x2, r);
			n2 = _mm256_min_epi32(n2, r);
			jv = _mm256_add_epi32(jv, step);
			sj = _mm256_add_epi32(sj, sstep);
		}
	if (j == 0)
		return 0;
	mx[0] = (int32_t) avx2_hmax_s32(x0);
	mn[0] = (int32_t) avx2_hmin_s32(n0);
	mx[1] = (int32_t) avx2_hmax_s32(x1);
	mn[1] = (int32_t) avx2_hmin_s32(n1);
	if (k > 2)
	{
		mx[2] = (int32_t) avx2_hmax_s32(x2);
		mn[2] = (int32_t) avx2_hmin_s32(n2);
	}
	return j;
}

/* The sortedness flag of d's first elements, 8 at a time. */
AVX2_FN size_t
avx2_sorted_flag(const uint32_t *d, size_t n, uint32_t *flag)
{
	__m256i		f = _mm256_setzero_si256();
	const __m256i one = _mm256_set1_epi32(1);
	size_t		r = 0;

	for (; r + 8 < n; r += 8)
	{
		__m256i		a = AVX2_LOAD(d + r + 1);

		f = _mm256_or_si256(f, _mm256_or_si256(a, _mm256_sub_epi32(_mm256_sub_epi32(a, AVX2_LOAD(d + r)), one)));
	}
	*flag |= avx2_hor_32(f);
	return r;
}

/* Sort a bitonic sequence of 8 unsigned lanes ascending (distances 4, 2, 1). */
AVX2_FN __m256i
avx2_bitonic8(__m256i v)
{
	__m256i		p;

	p = _mm256_permute2x128_si256(v, v, 0x01);
	v = _mm256_blend_epi32(_mm256_min_epu32(v, p), _mm256_max_epu32(v, p), 0xF0);
	p = _mm256_shuffle_epi32(v, 0x4E);
	v = _mm256_blend_epi32(_mm256_min_epu32(v, p), _mm256_max_epu32(v, p), 0xCC);
	p = _mm256_shuffle_epi32(v, 0xB1);
	return _mm256_blend_epi32(_mm256_min_epu32(v, p), _mm256_max_epu32(v, p), 0xAA);
}

/* The lanes of a tagged merged run op keeps (avx512_setop_keep's rule). */
AVX2_FN uint32_t
avx2_setop_keep(int op, __m256i x, __m256i prev, __m256i next)
{
	const __m256i one = _mm256_set1_epi32(1);
	__m256i		isb = _mm256_cmpeq_epi32(_mm256_and_si256(x, one), one),
				dup_b = _mm256_and_si256(isb, _mm256_cmpeq_epi32(_mm256_add_epi32(prev, one), x)),
				dup_a = _mm256_andnot_si256(isb, _mm256_cmpeq_epi32(_mm256_add_epi32(x, one), next)),
				drop;

	if (op == GPX_SIMD_UNION)
		drop = dup_b;
	else if (op == GPX_SIMD_DIFFERENCE)
		drop = _mm256_or_si256(isb, dup_a);
	else
		drop = _mm256_or_si256(dup_a, dup_b);
	return ~(uint32_t) _mm256_movemask_ps(_mm256_castsi256_ps(drop)) & 0xFFu;
}

/*
 * Store the lanes of v (untagged) that keep names, in order, at out: a
 * permutation from the table of one-bit positions, then a store of the
 * first popcount lanes.  Returns their count.
 */
AVX2_FN uint32_t
avx2_store_kept(uint32_t *out, __m256i v, uint32_t keep)
{
	const __m256i iota = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
	__m256i		idx = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *) gpx_bm_pos[keep]));
	uint32_t	n = (uint32_t) __builtin_popcount(keep);

	_mm256_maskstore_epi32((int *) out,
						   _mm256_cmpgt_epi32(_mm256_set1_epi32((int) n), iota),
						   _mm256_permutevar8x32_epi32(_mm256_srli_epi32(v, 1), idx));
	return n;
}

/*
 * Set operations 8 + 8 at a time, as avx512_setop does 16 + 16: tagged
 * docIDs, a bitonic merge, the lanes up to the cut, the kept ones stored.
 */
AVX2_FN uint32_t
avx2_setop(int op, const uint32_t *a, uint32_t na, const uint32_t *b,
		   uint32_t nb, uint32_t *ia, uint32_t *ib, uint32_t *out)
{
	const __m256i rev = _mm256_setr_epi32(7, 6, 5, 4, 3, 2, 1, 0),
				up1 = _mm256_setr_epi32(1, 2, 3, 4, 5, 6, 7, 0),
				dn1 = _mm256_setr_epi32(7, 0, 1, 2, 3, 4, 5, 6),
				zero = _mm256_setzero_si256(),
				one = _mm256_set1_epi32(1);
	uint32_t	i = *ia,
				j = *ib,
				k = 0;

	while (i + 8 <= na && j + 8 <= nb)
	{
		__m256i		va = _mm256_loadu_si256((const __m256i *) (a + i)),
					vb = _mm256_loadu_si256((const __m256i *) (b + j)),
					ta = _mm256_slli_epi32(va, 1),
					tb = _mm256_permutevar8x32_epi32(_mm256_or_si256(_mm256_slli_epi32(vb, 1), one), rev),
					lo = avx2_bitonic8(_mm256_min_epu32(ta, tb)),
					hi = avx2_bitonic8(_mm256_max_epu32(ta, tb));
		uint32_t	cut = a[i + 7] < b[j + 7] ? a[i + 7] : b[j + 7];
		__m256i		vc = _mm256_set1_epi32((int32_t) cut);
		/* docIDs are below 2^31: a signed compare orders them */
		uint32_t	ca = 8 - (uint32_t) __builtin_popcount(_mm256_movemask_ps(
			_mm256_castsi256_ps(_mm256_cmpgt_epi32(va, vc)))),
					cb = 8 - (uint32_t) __builtin_popcount(_mm256_movemask_ps(
			_mm256_castsi256_ps(_mm256_cmpgt_epi32(vb, vc)))),
					t = ca + cb;	/* 8 <= t <= 16 */
		__m256i		lo_prev = _mm256_permutevar8x32_epi32(lo, dn1),
					lo_next = _mm256_blend_epi32(_mm256_permutevar8x32_epi32(lo, up1),
												 _mm256_permutevar8x32_epi32(hi, zero), 0x80);

		k += avx2_store_kept(out + k, lo, avx2_setop_keep(op, lo, lo_prev, lo_next));
		if (t > 8)
		{
			__m256i		hi_prev = _mm256_blend_epi32(_mm256_permutevar8x32_epi32(hi, dn1),
													 _mm256_permutevar8x32_epi32(lo, _mm256_set1_epi32(7)), 0x01),
						hi_next = _mm256_permutevar8x32_epi32(hi, up1);

			k += avx2_store_kept(out + k, hi, avx2_setop_keep(op, hi, hi_prev, hi_next) &
								 ((1u << (t - 8)) - 1));
		}
		i += ca;
		j += cb;
	}
	*ia = i;
	*ib = j;
	return k;
}

const gpx_simd_ops gpx_simd_avx2_ops = {
	.level = GPX_SIMD_AVX2,
	.unpack = avx2_unpack,
	.gaps_sum = avx2_gaps_sum,
	.lrc = avx2_lrc,
	.ones = avx2_ones,
	.ef_merge = avx2_ef_merge,
	.scan = avx2_scan,
	.merge = avx2_merge,
	.merge_pos = avx2_merge_pos,
	.locate = avx2_locate,
	.gap_range = avx2_gap_range,
	.lrc_ext = avx2_lrc_ext,
	.sorted_flag = avx2_sorted_flag,
	.setop = avx2_setop,
};

#endif							/* GPX_SIMD_X86 */
