/*
 * gpx_simd_avx512.c - the AVX-512 variant of the inner loops (gpx_simd.h):
 * F, BW, VL, DQ, VBMI and VBMI2 (every CPU with VBMI but Cannon Lake has
 * VBMI2 too), every function compiled for them by its target attribute
 * (gpx_cpu.c calls it only where the CPU has them all).
 *
 * Unpacking fields of width w <= 25: a group of 16 fields spans exactly
 * 2w bytes, so one layout serves the whole run; a byte-masked load of the
 * group's bytes (masked loads never fault on the bytes left out, so a
 * group may end anywhere inside the readable bytes), one cross-lane byte
 * permute (VBMI) puts each field's 4 bytes in its slot, a variable shift
 * and a mask finish it, and a masked store writes a last, partial group.
 * One bits become positions 56 bits at a time: a byte compress (VBMI2)
 * of the byte positions 0..63 under the bits as a mask, then widened 16
 * at a time.
 */
#include "gpx_simd.h"

#if GPX_SIMD_X86

#include <immintrin.h>

#define AVX512_FN __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi,avx512vbmi2,bmi2,popcnt"))) static

/* A run's field layout for groups of 16. */
typedef struct avx512_layout
{
	__m512i		idx;
	__m512i		shift;
	__m512i		mask;
	uint32_t	s0;
	uint32_t	w;
} avx512_layout;

/*
 * The layout of fields of w bits (1..25) starting at bit s0 (0..7), in
 * registers: field i starts at bit r = s0 + i w, byte r >> 3, shift r & 7.
 */
AVX512_FN void
avx512_layout_of(uint32_t s0, uint32_t w, avx512_layout *lay)
{
	__m512i		r = _mm512_add_epi32(_mm512_set1_epi32((int32_t) s0),
									 _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
																		  10, 11, 12, 13, 14, 15),
														_mm512_set1_epi32((int32_t) w)));

	/* bytes c, c + 1, c + 2, c + 3 of each slot */
	lay->idx = _mm512_add_epi32(_mm512_mullo_epi32(_mm512_srli_epi32(r, 3),
												   _mm512_set1_epi32(0x01010101)),
								_mm512_set1_epi32(0x03020100));
	lay->shift = _mm512_and_si512(r, _mm512_set1_epi32(7));
	lay->mask = _mm512_set1_epi32((int32_t) gpx_mask(w));
	lay->s0 = s0;
	lay->w = w;
}

/* The 16 fields of the group whose first byte is q (64 bytes readable). */
AVX512_FN __m512i
avx512_group_full(const uint8_t *q, const avx512_layout *lay)
{
	__m512i		v = _mm512_permutexvar_epi8(lay->idx, _mm512_loadu_si512(q));

	return _mm512_and_si512(_mm512_srlv_epi32(v, lay->shift), lay->mask);
}

/*
 * The first n (1..16) fields of the group whose first byte is q, loading
 * only the bytes that hold them; the other lanes are garbage.
 */
AVX512_FN __m512i
avx512_group(const uint8_t *q, uint32_t n, const avx512_layout *lay)
{
	uint32_t	need = (lay->s0 + n * lay->w + 7) >> 3;	/* <= 51 */
	__m512i		v = _mm512_maskz_loadu_epi8(_bzhi_u64(~UINT64_C(0), need), q);

	v = _mm512_permutexvar_epi8(lay->idx, v);
	return _mm512_and_si512(_mm512_srlv_epi32(v, lay->shift), lay->mask);
}

/* Lane mask of the first n lanes (n <= 16). */
AVX512_FN __mmask16
avx512_first(uint32_t n)
{
	return (__mmask16) _bzhi_u32(0xFFFFu, n);
}

/*
 * How many leading fields of cnt at bit bit lie in avail bytes: field i
 * ends at bit bit + (i + 1) w.
 */
AVX512_FN uint32_t
avx512_fit(size_t avail, uint64_t bit, uint32_t w, uint32_t cnt)
{
	uint64_t	bits = (uint64_t) avail * 8;
	uint64_t	n;

	if (bit + w > bits)
		return 0;
	n = (bits - bit) / w;
	return n < cnt ? (uint32_t) n : cnt;
}

AVX512_FN uint32_t
avx512_unpack(const uint8_t *p, size_t avail, uint64_t bit, uint32_t w,
			  uint32_t cnt, uint32_t *out)
{
	avx512_layout lay;
	const uint8_t *q = p + (bit >> 3);
	uint32_t	n,
				i;

	if (w == 0 || w > 25)
		return 0;
	n = avx512_fit(avail, bit, w, cnt);
	if (n == 0)
		return 0;
	avx512_layout_of((uint32_t) (bit & 7), w, &lay);
	/* whole groups with a plain 64-byte load while it stays in avail */
	for (i = 0; i + 16 <= n && (size_t) (q - p) + 64 <= avail; i += 16, q += 2 * w)
		_mm512_storeu_si512(out + i, avx512_group_full(q, &lay));
	for (; i + 16 <= n; i += 16, q += 2 * w)
		_mm512_storeu_si512(out + i, avx512_group(q, 16, &lay));
	if (i < n)
		_mm512_mask_storeu_epi32(out + i, avx512_first(n - i),
								 avx512_group(q, n - i, &lay));
	return n;
}

/* Inclusive prefix sum of the 16 lanes of v. */
AVX512_FN __m512i
avx512_prefix16(__m512i v)
{
	const __m512i z = _mm512_setzero_si512();

	v = _mm512_add_epi32(v, _mm512_alignr_epi32(v, z, 15));
	v = _mm512_add_epi32(v, _mm512_alignr_epi32(v, z, 14));
	v = _mm512_add_epi32(v, _mm512_alignr_epi32(v, z, 12));
	return _mm512_add_epi32(v, _mm512_alignr_epi32(v, z, 8));
}

AVX512_FN void
avx512_gaps_sum(uint32_t *g, uint32_t cnt, uint32_t start)
{
	const __m512i one = _mm512_set1_epi32(1),
				last = _mm512_set1_epi32(15);
	__m512i		carry = _mm512_set1_epi32((int32_t) start);
	uint32_t	i = 0;

	/* each group's prefix sum and total are off the chain (one add) */
	for (; i + 16 <= cnt; i += 16)
	{
		__m512i		x = avx512_prefix16(_mm512_add_epi32(_mm512_loadu_si512(g + i), one));

		_mm512_storeu_si512(g + i, _mm512_add_epi32(x, carry));
		carry = _mm512_add_epi32(carry, _mm512_permutexvar_epi32(last, x));
	}
	if (i < cnt)
	{
		__mmask16	k = avx512_first(cnt - i);
		__m512i		x = avx512_prefix16(_mm512_maskz_add_epi32(
			k, _mm512_maskz_loadu_epi32(k, g + i), one));

		_mm512_mask_storeu_epi32(g + i, k, _mm512_add_epi32(x, carry));
	}
}

AVX512_FN uint32_t
avx512_lrc(const uint8_t *dev, size_t avail, uint32_t w, uint32_t cnt,
		   uint32_t base, uint32_t slope_q, uint32_t *out)
{
	/* (slope_q j) >> 8 = (slope_q >> 8) j + (((slope_q & 255) j) >> 8) */
	const __m512i j0 = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
										 11, 12, 13, 14, 15),
				hstep = _mm512_set1_epi32((int32_t) (16 * (slope_q >> 8))),
				lstep = _mm512_set1_epi32((int32_t) (16 * (slope_q & 255)));
	/* base + (slope_q >> 8) j (wrapping), and (slope_q & 255) j (< 2^16) */
	__m512i		hj = _mm512_add_epi32(_mm512_set1_epi32((int32_t) base),
									  _mm512_mullo_epi32(j0, _mm512_set1_epi32((int32_t) (slope_q >> 8)))),
				lj = _mm512_mullo_epi32(j0, _mm512_set1_epi32((int32_t) (slope_q & 255)));
	avx512_layout lay;
	const uint8_t *q = dev;
	uint32_t	n,
				i;

	if (w > 25)
		return 0;
	/* the layout is unused when every deviation is 0 (w = 0) */
	avx512_layout_of(0, w > 0 ? w : 1, &lay);
	if (w == 0)
		n = cnt;
	else
		n = avx512_fit(avail, 0, w, cnt);

	for (i = 0; i + 16 <= n; i += 16, q += 2 * w)
	{
		__m512i		x = _mm512_add_epi32(hj, _mm512_srli_epi32(lj, 8));

		if (w > 0)
			x = _mm512_add_epi32(x, (size_t) (q - dev) + 64 <= avail ?
								 avx512_group_full(q, &lay) : avx512_group(q, 16, &lay));
		_mm512_storeu_si512(out + i, x);
		hj = _mm512_add_epi32(hj, hstep);
		lj = _mm512_add_epi32(lj, lstep);
	}
	if (i < n)
	{
		__m512i		x = _mm512_add_epi32(hj, _mm512_srli_epi32(lj, 8));

		if (w > 0)
			x = _mm512_add_epi32(x, avx512_group(q, n - i, &lay));
		_mm512_mask_storeu_epi32(out + i, avx512_first(n - i), x);
	}
	return n;
}

AVX512_FN uint32_t
avx512_ones(const uint8_t *p, uint64_t bit, uint64_t end, uint32_t want,
			uint32_t cap, uint32_t add, uint32_t *out)
{
	const __m512i iota8 = _mm512_set_epi8(63, 62, 61, 60, 59, 58, 57, 56, 55, 54,
										  53, 52, 51, 50, 49, 48, 47, 46, 45, 44,
										  43, 42, 41, 40, 39, 38, 37, 36, 35, 34,
										  33, 32, 31, 30, 29, 28, 27, 26, 25, 24,
										  23, 22, 21, 20, 19, 18, 17, 16, 15, 14,
										  13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2,
										  1, 0);
	const __m512i z = _mm512_setzero_si512();
	uint64_t	pos = bit;
	uint32_t	r = 0;

	while (r < want && pos < end)
	{
		uint64_t	w;
		uint32_t	nb = end - pos < 56 ? (uint32_t) (end - pos) : 56,
					c;
		__m512i		b,
					vrel;

		memcpy(&w, p + (pos >> 3), 8);
		w = _bzhi_u64(w >> (pos & 7), nb);
		c = (uint32_t) __builtin_popcountll(w);
		/* the ones' positions as bytes, in order (VBMI2) */
		b = _mm512_maskz_compress_epi8(w, iota8);
		vrel = _mm512_set1_epi32((int32_t) (add + (uint32_t) (pos - bit)));
		if (r + 64 <= cap)
		{
			/*
			 * room for all 56: three groups whatever the count (about
			 * half the bits of Elias-Fano's upper part are ones), no
			 * branch on it but for a rare fourth
			 */
			_mm512_storeu_si512(out + r, _mm512_add_epi32(
				_mm512_cvtepu8_epi32(_mm512_castsi512_si128(b)), vrel));
			_mm512_storeu_si512(out + r + 16, _mm512_add_epi32(
				_mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32(b, 1)), vrel));
			_mm512_storeu_si512(out + r + 32, _mm512_add_epi32(
				_mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32(b, 2)), vrel));
			if (c > 48)
				_mm512_storeu_si512(out + r + 48, _mm512_add_epi32(
					_mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32(b, 3)), vrel));
			r += c;
			pos += nb;
			continue;
		}
		for (uint32_t k = 0; k < c; k += 16)
		{
			__m512i		v = _mm512_add_epi32(_mm512_cvtepu8_epi32(_mm512_castsi512_si128(b)),
											 vrel);

			if (r + k + 16 <= cap)
				_mm512_storeu_si512(out + r + k, v);
			else if (r + k < cap)
				_mm512_mask_storeu_epi32(out + r + k, avx512_first(cap - r - k), v);
			b = _mm512_alignr_epi32(z, b, 4);
		}
		r += c;
		pos += nb;
	}
	return r < want ? r : want;
}

AVX512_FN void
avx512_ef_merge(uint32_t *lo, const uint32_t *hi, uint32_t m, uint32_t b,
				uint32_t base)
{
	const __m128i cb = _mm_cvtsi32_si128((int) b);
	const __m512i vb = _mm512_set1_epi32((int32_t) base),
				sixteen = _mm512_set1_epi32(16);
	__m512i		r = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
									  12, 13, 14, 15);

	for (uint32_t i = 0; i < m; i += 16)
	{
		__mmask16	k = avx512_first(m - i < 16 ? m - i : 16);
		__m512i		h = _mm512_sll_epi32(_mm512_sub_epi32(
			_mm512_maskz_loadu_epi32(k, hi + i), r), cb);

		_mm512_mask_storeu_epi32(lo + i, k, _mm512_add_epi32(vb, _mm512_or_si512(
			h, _mm512_maskz_loadu_epi32(k, lo + i))));
		r = _mm512_add_epi32(r, sixteen);
	}
}

AVX512_FN uint32_t
avx512_scan(const uint32_t *buf, uint32_t p, uint32_t x)
{
	const __m512i vx = _mm512_set1_epi32((int32_t) x);
	uint32_t	lt = _mm512_cmplt_epu32_mask(_mm512_loadu_si512(buf + p), vx);

	/* the values below x are a prefix: the first other one answers */
	if (lt != 0xFFFFu)
		return p + (uint32_t) __builtin_ctz(~lt);
	p += 16;
	for (;;)
	{
		lt = _mm512_cmplt_epu32_mask(_mm512_loadu_si512(buf + p), vx) |
			(uint32_t) _mm512_cmplt_epu32_mask(_mm512_loadu_si512(buf + p + 16), vx) << 16;
		if (lt != 0xFFFFFFFFu)
			return p + (uint32_t) __builtin_ctz(~lt);
		p += 32;
	}
}

/*
 * The first index e >= i with c[e] > x, or m (c[i..m) increasing): 16
 * candidates a compare, no dependent loads as in a binary search.
 */
AVX512_FN uint32_t
avx512_upto(const uint32_t *c, uint32_t i, uint32_t m, uint32_t x)
{
	const __m512i vx = _mm512_set1_epi32((int32_t) x);

	for (;;)
	{
		__mmask16	kin = avx512_first(m - i < 16 ? m - i : 16),
					k = _mm512_mask_cmple_epu32_mask(kin, _mm512_maskz_loadu_epi32(kin, c + i), vx);

		i += (uint32_t) __builtin_popcount((uint32_t) k);
		if (k != 0xFFFF)
			return i;
	}
}

/*
 * The last value of each 16-value window of buf[0..cnt) (cnt <= 256),
 * read inside the block only; the lanes of windows past it
 * GPX_MAX_DOCID, never below a docID.
 */
AVX512_FN __m512i
avx512_window_lasts(const uint32_t *buf, uint32_t cnt)
{
	const __m512i idx = _mm512_min_epu32(
		_mm512_setr_epi32(15, 31, 47, 63, 79, 95, 111, 127,
						  143, 159, 175, 191, 207, 223, 239, 255),
		_mm512_set1_epi32((int32_t) (cnt - 1)));

	return _mm512_mask_i32gather_epi32(_mm512_set1_epi32((int32_t) GPX_MAX_DOCID),
									   avx512_first((cnt + 15) >> 4), idx, buf, 4);
}

/*
 * Merge by sampled windows: the block is cut into windows of 16 values,
 * and the last value of each (at most 16 windows: a block holds at most
 * 256) is gathered once into one register.  A candidate x can only be in
 * the first window whose last value is >= x: its index is the count of
 * samples below x (one compare, one popcount), and one compare of x with
 * that window answers.  No candidate's work depends on another's, and
 * nothing branches on the data, so successive candidates overlap fully
 * (a walk through the block from candidate to candidate would chain each
 * to the last one's position, and mispredict where a step ends).
 */
AVX512_FN uint32_t
avx512_merge(const uint32_t *buf, uint32_t cnt, uint32_t *pp, uint32_t *c,
			 uint32_t i, uint32_t m, uint32_t *wp)
{
	uint32_t	w = *wp,
				last = buf[cnt - 1],
				e,
				j = *pp >> 4;
	__m512i		samples;

	/* cnt <= GPX_MAX_BLOCK = 256: the 16 samples cover the block */
	e = avx512_upto(c, i, m, last);
	if (e == i)
		return i;
	/* lanes past the block's windows never count as below a candidate */
	samples = avx512_window_lasts(buf, cnt);
	for (; i < e; i++)
	{
		uint32_t	x = c[i];
		__m512i		vx = _mm512_set1_epi32((int32_t) x);

		j = (uint32_t) __builtin_popcount(_mm512_cmplt_epu32_mask(samples, vx));
		c[w] = x;
		w += _mm512_cmpeq_epu32_mask(_mm512_loadu_si512(buf + 16 * j), vx) != 0;
	}
	*pp = 16 * j;
	*wp = w;
	return e;
}

/*
 * avx512_merge that also records where each kept candidate is (the
 * window's index plus the lane of the match) and moves orig[] along.
 */
AVX512_FN uint32_t
avx512_merge_pos(const uint32_t *buf, uint32_t cnt, uint32_t *c,
				 uint32_t *orig, uint32_t i, uint32_t m, uint32_t *wp,
				 uint32_t *row, uint32_t base)
{
	uint32_t	w = *wp,
				e;
	__m512i		samples;

	e = avx512_upto(c, i, m, buf[cnt - 1]);
	if (e == i)
		return i;
	samples = avx512_window_lasts(buf, cnt);
	for (; i < e; i++)
	{
		uint32_t	x = c[i],
					o = orig[i];
		__m512i		vx = _mm512_set1_epi32((int32_t) x);
		uint32_t	j = (uint32_t) __builtin_popcount(_mm512_cmplt_epu32_mask(samples, vx));
		__mmask16	k = _mm512_cmpeq_epu32_mask(_mm512_loadu_si512(buf + 16 * j), vx);

		/* no match: 16 past the window, a row entry nobody reads */
		row[o] = base + 16 * j + (uint32_t) __builtin_ctz((uint32_t) k | 0x10000u);
		c[w] = x;
		orig[w] = o;
		w += k != 0;
	}
	*wp = w;
	return e;
}

/*
 * Positions by sampled windows, as avx512_merge: the window of x is the
 * count of windows whose last value is below x, and one masked compare
 * with that window (its lanes inside the block only) gives the index.
 */
AVX512_FN uint32_t
avx512_locate(const uint32_t *buf, uint32_t cnt, const uint32_t *x,
			  uint32_t n, uint32_t *pos)
{
	const uint32_t nwin = (cnt + 15) >> 4;
	__m512i		samples;
	uint32_t	found = 0;

	samples = avx512_window_lasts(buf, cnt);
	for (uint32_t r = 0; r < n; r++)
	{
		__m512i		vx = _mm512_set1_epi32((int32_t) x[r]);
		uint32_t	j = (uint32_t) __builtin_popcount(_mm512_cmplt_epu32_mask(samples, vx)),
					left = j < nwin ? cnt - 16 * j : 0;
		__mmask16	in = avx512_first(left < 16 ? left : 16),
					k = _mm512_mask_cmpeq_epu32_mask(in, _mm512_maskz_loadu_epi32(in, buf + 16 * (j < nwin ? j : 0)), vx);

		pos[r] = k != 0 ? 16 * j + (uint32_t) __builtin_ctz(k) : GPX_SIMD_NOPOS;
		found += k != 0;
	}
	return found;
}

/* The smallest and largest gap of d's first gaps, 16 at a time. */
AVX512_FN uint32_t
avx512_gap_range(const uint32_t *d, uint32_t cnt, uint32_t *gmin,
                 uint32_t *gmax)
{
	__m512i		mn = _mm512_set1_epi32(-1),
				mx = _mm512_setzero_si512();
	uint32_t	r = 0,
				lo,
				hi;

	for (; r + 16 < cnt; r += 16)
	{
		__m512i		g = _mm512_sub_epi32(_mm512_loadu_si512(d + r + 1), _mm512_loadu_si512(d + r));

		mn = _mm512_min_epu32(mn, g);
		mx = _mm512_max_epu32(mx, g);
	}
	if (r == 0)
		return 0;
	lo = _mm512_reduce_min_epu32(mn);
	hi = _mm512_reduce_max_epu32(mx);
	*gmin = lo < *gmin ? lo : *gmin;
	*gmax = hi > *gmax ? hi : *gmax;
	return r;
}

/*
 * The LRC encoder's exact ranges at k slopes, 16 docIDs at a time: r_j =
 * 256 (d[j] - d[0]) - s j in wrapping int32 (exact by the caller's
 * bounds), s j kept by adding 16 s per step.
 */
AVX512_FN uint32_t
avx512_lrc_ext(const uint32_t *d, uint32_t cnt, uint32_t s, uint32_t k,
               int32_t *mx, int32_t *mn)
{
	const __m512i d0 = _mm512_set1_epi32((int32_t) d[0]),
				step = _mm512_set1_epi32(16),
				sstep = _mm512_set1_epi32((int32_t) (s * 16u));
	__m512i		jv = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
				sj = _mm512_mullo_epi32(jv, _mm512_set1_epi32((int32_t) s)),
				x0 = _mm512_set1_epi32(INT32_MIN),
				x1 = x0,
				x2 = x0,
				n0 = _mm512_set1_epi32(INT32_MAX),
				n1 = n0,
				n2 = n0;
	uint32_t	j = 0;

	if (k == 2)
		for (; j + 16 <= cnt; j += 16)
		{
			__m512i		r = _mm512_sub_epi32(_mm512_slli_epi32(_mm512_sub_epi32(_mm512_loadu_si512(d + j), d0), 8), sj);

			x0 = _mm512_max_epi32(x0, r);
			n0 = _mm512_min_epi32(n0, r);
			r = _mm512_sub_epi32(r, jv);
			x1 = _mm512_max_epi32(x1, r);
			n1 = _mm512_min_epi32(n1, r);
			jv = _mm512_add_epi32(jv, step);
			sj = _mm512_add_epi32(sj, sstep);
		}
	else
		for (; j + 16 <= cnt; j += 16)
		{
			__m512i		r = _mm512_sub_epi32(_mm512_slli_epi32(_mm512_sub_epi32(_mm512_loadu_si512(d + j), d0), 8), sj);

			x0 = _mm512_max_epi32(x0, r);
			n0 = _mm512_min_epi32(n0, r);
			r = _mm512_sub_epi32(r, jv);
			x1 = _mm512_max_epi32(x1, r);
			n1 = _mm512_min_epi32(n1, r);
			r = _mm512_sub_epi32(r, jv);
			x2 = _mm512_max_epi32(x2, r);
			n2 = _mm512_min_epi32(n2, r);
			jv = _mm512_add_epi32(jv, step);
			sj = _mm512_add_epi32(sj, sstep);
		}
	if (j == 0)
		return 0;
	mx[0] = _mm512_reduce_max_epi32(x0);
	mn[0] = _mm512_reduce_min_epi32(n0);
	mx[1] = _mm512_reduce_max_epi32(x1);
	mn[1] = _mm512_reduce_min_epi32(n1);
	if (k > 2)
	{
		mx[2] = _mm512_reduce_max_epi32(x2);
		mn[2] = _mm512_reduce_min_epi32(n2);
	}
	return j;
}

/* The sortedness flag of d's first elements, 16 at a time. */
AVX512_FN size_t
avx512_sorted_flag(const uint32_t *d, size_t n, uint32_t *flag)
{
	__m512i		f = _mm512_setzero_si512();
	const __m512i one = _mm512_set1_epi32(1);
	size_t		r = 0;

	for (; r + 16 < n; r += 16)
	{
		__m512i		a = _mm512_loadu_si512(d + r + 1);

		f = _mm512_or_si512(f, _mm512_or_si512(a, _mm512_sub_epi32(_mm512_sub_epi32(a, _mm512_loadu_si512(d + r)), one)));
	}
	*flag |= (uint32_t) _mm512_reduce_or_epi32(f);
	return r;
}

/*
 * Sort a bitonic sequence of 16 unsigned lanes ascending: compare-exchange
 * at distances 8, 4, 2 and 1 (lane swaps within the register).
 */
AVX512_FN __m512i
avx512_bitonic16(__m512i v)
{
	__m512i		p;

	p = _mm512_shuffle_i32x4(v, v, _MM_SHUFFLE(1, 0, 3, 2));
	v = _mm512_mask_mov_epi32(_mm512_min_epu32(v, p), 0xFF00, _mm512_max_epu32(v, p));
	p = _mm512_shuffle_i32x4(v, v, _MM_SHUFFLE(2, 3, 0, 1));
	v = _mm512_mask_mov_epi32(_mm512_min_epu32(v, p), 0xF0F0, _mm512_max_epu32(v, p));
	p = _mm512_shuffle_epi32(v, _MM_PERM_BADC);
	v = _mm512_mask_mov_epi32(_mm512_min_epu32(v, p), 0xCCCC, _mm512_max_epu32(v, p));
	p = _mm512_shuffle_epi32(v, _MM_PERM_CDAB);
	return _mm512_mask_mov_epi32(_mm512_min_epu32(v, p), 0xAAAA, _mm512_max_epu32(v, p));
}

/*
 * Lanes of the merged, tagged run x (2 v for a docID v of a, 2 v + 1 for
 * one of b, so that equal docIDs sit side by side, a's first) that op
 * keeps, prev and next holding each lane's neighbours: a's copy of a
 * common docID is followed by b's, b's preceded by a's.
 */
AVX512_FN __mmask16
avx512_setop_keep(int op, __m512i x, __m512i prev, __m512i next)
{
	const __m512i one = _mm512_set1_epi32(1);
	__mmask16	isb = _mm512_test_epi32_mask(x, one),
				dup_b = _mm512_mask_cmpeq_epi32_mask(isb, _mm512_add_epi32(prev, one), x),
				dup_a = _mm512_mask_cmpeq_epi32_mask((__mmask16) ~isb,
													 _mm512_add_epi32(x, one), next);

	if (op == GPX_SIMD_UNION)
		return (__mmask16) ~dup_b;
	if (op == GPX_SIMD_DIFFERENCE)
		return (__mmask16) (~isb & ~dup_a);
	return (__mmask16) (~dup_a & ~dup_b);
}

/*
 * Set operations 16 + 16 at a time: load 16 docIDs of each run, tag them
 * (a: 2 v, b: 2 v + 1), merge the two sorted vectors by a bitonic network
 * (the second reversed, then min / max, then each half sorted), and take
 * the merged lanes up to the cut min(a's 16th, b's 16th) (all 16 of the
 * run with the smaller one, the others' prefix below it: a common docID
 * is taken from both or from neither); the kept lanes, untagged, are
 * compressed and stored under a mask.
 */
AVX512_FN uint32_t
avx512_setop(int op, const uint32_t *a, uint32_t na, const uint32_t *b,
			 uint32_t nb, uint32_t *ia, uint32_t *ib, uint32_t *out)
{
	const __m512i rev = _mm512_setr_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6,
										  5, 4, 3, 2, 1, 0),
				one = _mm512_set1_epi32(1);
	uint32_t	i = *ia,
				j = *ib,
				k = 0;

	while (i + 16 <= na && j + 16 <= nb)
	{
		__m512i		va = _mm512_loadu_si512(a + i),
					vb = _mm512_loadu_si512(b + j),
					ta = _mm512_slli_epi32(va, 1),
					tb = _mm512_permutexvar_epi32(rev, _mm512_or_si512(_mm512_slli_epi32(vb, 1), one)),
					lo = avx512_bitonic16(_mm512_min_epu32(ta, tb)),
					hi = avx512_bitonic16(_mm512_max_epu32(ta, tb));
		uint32_t	cut = a[i + 15] < b[j + 15] ? a[i + 15] : b[j + 15];
		__m512i		vc = _mm512_set1_epi32((int32_t) cut);
		uint32_t	ca = (uint32_t) __builtin_popcount(_mm512_cmple_epu32_mask(va, vc)),
					cb = (uint32_t) __builtin_popcount(_mm512_cmple_epu32_mask(vb, vc)),
					t = ca + cb;	/* 16 <= t <= 32 */
		__mmask16	kl = avx512_setop_keep(op, lo, _mm512_alignr_epi32(lo, lo, 15),
										   _mm512_alignr_epi32(hi, lo, 1));
		uint32_t	nl = (uint32_t) __builtin_popcount(kl);

		_mm512_mask_storeu_epi32(out + k, avx512_first(nl),
								 _mm512_maskz_compress_epi32(kl, _mm512_srli_epi32(lo, 1)));
		k += nl;
		if (t > 16)
		{
			__mmask16	kh = avx512_setop_keep(op, hi, _mm512_alignr_epi32(hi, lo, 15),
											   _mm512_alignr_epi32(hi, hi, 1)) &
				avx512_first(t - 16);
			uint32_t	nh = (uint32_t) __builtin_popcount(kh);

			_mm512_mask_storeu_epi32(out + k, avx512_first(nh),
									 _mm512_maskz_compress_epi32(kh, _mm512_srli_epi32(hi, 1)));
			k += nh;
		}
		i += ca;
		j += cb;
	}
	*ia = i;
	*ib = j;
	return k;
}

const gpx_simd_ops gpx_simd_avx512_ops = {
	.level = GPX_SIMD_AVX512,
	.unpack = avx512_unpack,
	.gaps_sum = avx512_gaps_sum,
	.lrc = avx512_lrc,
	.ones = avx512_ones,
	.ef_merge = avx512_ef_merge,
	.scan = avx512_scan,
	.merge = avx512_merge,
	.merge_pos = avx512_merge_pos,
	.locate = avx512_locate,
	.gap_range = avx512_gap_range,
	.lrc_ext = avx512_lrc_ext,
	.sorted_flag = avx512_sorted_flag,
	.setop = avx512_setop,
};

#endif							/* GPX_SIMD_X86 */
