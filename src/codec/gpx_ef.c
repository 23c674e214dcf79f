/*
 * gpx_ef.c - the Elias-Fano block of format version 2: the own form of
 * posting_qs blocks, and the form of one-block lists of every type whose
 * docIDs are not dense enough for a bitmap (gpx_bitmap.c).
 *
 * BLOCK FORMAT (this comment is the specification the CUDA kernels follow)
 * ------------------------------------------------------------------------
 * A block holds cnt docIDs d[0..cnt); d[0] is its first docID, from the
 * directory or the header, not repeated.  With m = cnt - 1 and, for
 * j = 1..m, y[j] = d[j] - d[0] - 1 (non-decreasing, >= 0), the block's
 * bits, counted from its first bit (LSB-first, byte 0 bit 0 first):
 *
 *   m = 0:  no bits.
 *   m >= 1:
 *     bits [0, 5)               b, the number of low bits (0..31)
 *     bits [5, 5 + m b)         LOW: y[j] & (2^b - 1) for j = 1..m, b bits
 *                               each
 *     bits [U, ...), U = 5+m b  UPPER: for j = 1..m the bit
 *                               U + (y[j] >> b) + (j - 1) is set; no other
 *                               bit is set up to the block's end
 *
 * so the r-th one of UPPER (r = 0..m-1), at U + q, is element j = r + 1:
 * d[j] = d[0] + 1 + (((q - r) << b) | LOW[r]).  The encoder picks the b
 * that makes the block smallest; any b whose values fit is valid.  A block
 * that is a whole one-block list ends with the byte holding its last one
 * bit, so that the list's last docID is read from the blob's final byte
 * (gpx_ef_blk_last); in a list with a directory the bits after the last
 * one may run on (zeros) to the next block.
 *
 * Readers never touch a byte past the payload (gpx_load64_tail), so a
 * block can end at any byte of the blob.  Version 1 qs lists use the same
 * coding over the whole list instead (gpx_qs.c).
 */
#include "gpx_internal.h"
#include "gpx_simd.h"

#define EF_B_BITS	5

/* Position of the r-th (0-based) one bit of w (w has more than r ones). */
static inline uint32_t
ef_select64(uint64_t w, uint32_t r)
{
	uint32_t	lo = (uint32_t) w;
	uint32_t	c = (uint32_t) __builtin_popcount(lo);

	if (r < c)
		return gpx_select32(lo, r);
	return 32 + gpx_select32((uint32_t) (w >> 32), r - c);
}

/* The decoded geometry of a block with m >= 1. */
typedef struct ef_geom
{
	uint32_t	b;
	uint32_t	m;
	uint64_t	low;			/* bit of LOW[0] */
	uint64_t	up;				/* bit U */
	uint32_t	mask;			/* gpx_mask(b) */
	bool		fast;			/* LOW readable with 8-byte loads */
} ef_geom;

/* Read b and the section positions of block k (k->cnt >= 2). */
static inline void
ef_geom_of(const gpx_blk *k, ef_geom *g)
{
	g->m = k->cnt - 1;
	g->b = gpx_bits_tail(k->p, k->plen, k->bit, EF_B_BITS);
	g->low = k->bit + EF_B_BITS;
	g->up = g->low + (uint64_t) g->m * g->b;
	g->mask = gpx_mask(g->b);
	g->fast = GPX_FAST_BITS && (g->up >> 3) + 8 <= k->plen;
}

/* LOW[r]. */
static inline uint32_t
ef_low(const gpx_blk *k, const ef_geom *g, uint32_t r)
{
	uint64_t	pos = g->low + (uint64_t) r * g->b;

	if (g->b == 0)
		return 0;
	return g->fast ? gpx_get_bits_fast(k->p, pos, g->mask) :
		gpx_bits_tail(k->p, k->plen, pos, g->b);
}

/* 64 bits of the block's stream from bit pos on (fewer near the end). */
static inline uint64_t
ef_window(const gpx_blk *k, uint64_t pos)
{
	return gpx_load64_tail(k->p, k->plen, (size_t) (pos >> 3)) >> (pos & 7);
}

/*
 * Decode the elements 1..m of a block whose bits start at bit `bit` of p,
 * with 8 readable bytes past its end: LOW by one 8-byte load each, UPPER
 * by 64-bit windows and count-trailing-zeros.
 */
static inline void
ef_decode_fast(const uint8_t *p, uint64_t bit, uint32_t m, uint32_t first,
			   uint32_t *out)
{
	uint32_t	b = (uint32_t) (gpx_get_bits_fast(p, bit, 31) & 31);
	uint32_t	mask = gpx_mask(b);
	uint64_t	low = bit + EF_B_BITS,
				up = low + (uint64_t) m * b,
				pos = up;
	uint32_t	base = first + 1,
				r = 0;

	while (r < m)
	{
		uint64_t	w;

		memcpy(&w, p + (pos >> 3), 8);
		w >>= pos & 7;
		while (w != 0 && r < m)
		{
			uint32_t	q = (uint32_t) (pos - up) + (uint32_t) __builtin_ctzll(w);

			out[1 + r] = base + (((q - r) << b) |
								 (b ? gpx_get_bits_fast(p, low + (uint64_t) r * b, mask) : 0));
			r++;
			w &= w - 1;
		}
		pos += 64 - (pos & 7);
	}
}

/*
 * ef_decode_fast with a vectorised variant's kernels: UPPER's ones to
 * positions, LOW unpacked (the scalar loop finishing what the kernel
 * leaves), then both merged.  p has avail readable bytes and 8 past the
 * block's end (bit `end`).  False (nothing usable written) when UPPER
 * does not hold m ones before end: not a valid block.
 */
static bool
ef_decode_simd(const gpx_simd_ops *o, const uint8_t *p, size_t avail,
			   uint64_t bit, uint64_t end, uint32_t m, uint32_t first,
			   uint32_t *out)
{
	uint32_t	b = (uint32_t) (gpx_get_bits_fast(p, bit, 31) & 31);
	uint32_t	mask = gpx_mask(b);
	uint64_t	low = bit + EF_B_BITS,
				up = low + (uint64_t) m * b;
	uint32_t	hi[GPX_MAX_BLOCK];
	uint32_t	r = 0;

	if (up > end || o->ones(p, up, end, m, GPX_MAX_BLOCK, 0, hi) != m)
		return false;
	if (b == 0)
		memset(out + 1, 0, (size_t) m * sizeof(uint32_t));
	else
	{
		r = o->unpack(p, avail, low, b, m, out + 1);
		for (; r < m; r++)
			out[1 + r] = gpx_get_bits_fast(p, low + (uint64_t) r * b, mask);
	}
	o->ef_merge(out + 1, hi, m, b, first + 1);
	return true;
}

/* Decode block k into out; returns its count. */
uint32_t
gpx_ef_blk_decode(const gpx_blk *k, uint32_t *out)
{
	ef_geom		g;
	uint32_t	base = k->first + 1;
	uint64_t	pos,
				limit = (uint64_t) k->plen * 8;
	uint32_t	r = 0;

	out[0] = k->first;
	if (k->cnt < 2)
		return k->cnt;
	if (k->end - k->bit <= 64 && (k->bit & 7) == 0)
	{
		/* a block of at most 8 bytes (most of real text): in one register */
		uint64_t	w = gpx_load64_tail(k->p, k->plen, (size_t) (k->bit >> 3));
		uint32_t	b = (uint32_t) w & 31,
					m = k->cnt - 1;
		uint64_t	lows = w >> EF_B_BITS,
					up;
		uint32_t	q0 = 0;

		if (EF_B_BITS + (uint64_t) m * b < 64)
		{
			up = w >> (EF_B_BITS + m * b);
			for (r = 0; r < m; r++)
			{
				uint32_t	t = (uint32_t) __builtin_ctzll(up);

				q0 += t;
				out[1 + r] = base + ((q0 - r) << b | ((uint32_t) lows & gpx_mask(b)));
				lows >>= b;
				up >>= t;
				up >>= 1;
				q0++;
			}
			return k->cnt;
		}
	}
	if (GPX_FAST_BITS)
	{
		uint8_t		tmp[GPX_SLACK_COPY + 16];
		uint64_t	bit;
		const uint8_t *p = gpx_blk_slack(k, tmp, &bit);

		if (p != NULL)
		{
			const gpx_simd_ops *o = gpx_simd();
			/* bytes readable at p: the payload, or the copy and its slack */
			size_t		avail = p == k->p ? k->plen :
				k->plen - (size_t) (k->bit >> 3) + 16;

			if (o->ones != NULL &&
				ef_decode_simd(o, p, avail, bit, bit + (k->end - k->bit),
							   k->cnt - 1, k->first, out))
				return k->cnt;
			ef_decode_fast(p, bit, k->cnt - 1, k->first, out);
			return k->cnt;
		}
	}
	/* the bounded reader (a block too large to copy: not a valid one) */
	ef_geom_of(k, &g);
	pos = g.up;
	while (r < g.m && pos < limit)
	{
		uint64_t	w = ef_window(k, pos);

		while (w != 0 && r < g.m)
		{
			uint64_t	q = pos + (uint64_t) __builtin_ctzll(w) - g.up;

			out[1 + r] = base + (((uint32_t) (q - r) << g.b) | ef_low(k, &g, r));
			r++;
			w &= w - 1;
		}
		pos += 64 - (pos & 7);
	}
	return k->cnt;
}

/* Element j of block k: select the (j-1)-th one of UPPER. */
uint32_t
gpx_ef_blk_nth(const gpx_blk *k, uint32_t j)
{
	ef_geom		g;
	uint64_t	pos,
				limit = (uint64_t) k->plen * 8;
	uint32_t	r,
				left;

	if (j == 0)
		return k->first;
	ef_geom_of(k, &g);
	r = j - 1;
	left = r;
	pos = g.up;
	while (pos < limit)
	{
		uint64_t	w = ef_window(k, pos);
		uint32_t	c = (uint32_t) __builtin_popcountll(w);

		if (left < c)
		{
			uint64_t	q = pos + ef_select64(w, left) - g.up;

			return k->first + 1 + (((uint32_t) (q - r) << g.b) | ef_low(k, &g, r));
		}
		left -= c;
		pos += 64 - (pos & 7);
	}
	return k->first;			/* not reached for a valid block */
}

/*
 * Index in block k of the first element >= x (k->first <= x), *val that
 * element; cnt if there is none.  Passes (x - first - 1) >> b zeros of
 * UPPER by popcounts (every one before them is an element below x), then
 * compares the values that follow.
 */
static inline __attribute__((always_inline)) uint32_t
ef_lower_bound(const gpx_blk *k, uint32_t x, uint32_t *val)
{
	ef_geom		g;
	uint64_t	pos,
				limit = (uint64_t) k->plen * 8;
	uint32_t	r = 0,
				need;

	if (x <= k->first)
	{
		if (val)
			*val = k->first;
		return 0;
	}
	if (k->cnt < 2)
		return k->cnt;
	ef_geom_of(k, &g);
	pos = g.up;
	need = (x - k->first - 1) >> g.b;
	while (need > 0)
	{
		uint64_t	w = ef_window(k, pos);
		uint32_t	nb = 64 - (uint32_t) (pos & 7);
		uint64_t	zeros = ~w & (nb == 64 ? ~0ull : ((1ull << nb) - 1));
		uint32_t	zc = (uint32_t) __builtin_popcountll(zeros);

		if (need <= zc)
		{
			uint32_t	zp = ef_select64(zeros, need - 1);

			r += (uint32_t) __builtin_popcountll(w & ((1ull << zp) - 1));
			pos += zp + 1;
			break;
		}
		need -= zc;
		r += (uint32_t) __builtin_popcountll(w);
		pos += nb;
		if (r >= g.m || pos >= limit)
			return k->cnt;
	}
	/* every one from pos on has a high part >= x's: compare values */
	while (r < g.m && pos < limit)
	{
		uint64_t	w = ef_window(k, pos);

		while (w != 0)
		{
			uint64_t	q = pos + (uint64_t) __builtin_ctzll(w) - g.up;
			uint32_t	v = k->first + 1 + (((uint32_t) (q - r) << g.b) | ef_low(k, &g, r));

			if (v >= x)
			{
				if (val)
					*val = v;
				return r + 1;
			}
			if (++r >= g.m)
				return k->cnt;
			w &= w - 1;
		}
		pos += 64 - (pos & 7);
	}
	return k->cnt;
}

#if GPX_SIMD_X86
/*
 * The same compiled for popcnt (the generic x86-64 build counts bits
 * through a libgcc call, a tenth of a qs intersection's time): taken
 * where the variant in use implies the instruction (SSE4.1 and up).
 */
__attribute__((target("popcnt"))) static uint32_t
ef_lower_bound_popcnt(const gpx_blk *k, uint32_t x, uint32_t *val)
{
	return ef_lower_bound(k, x, val);
}
#endif

/*
 * Index in block k of the first element >= x (k->first <= x), *val that
 * element; cnt if there is none (ef_lower_bound).
 */
uint32_t
gpx_ef_blk_lower_bound(const gpx_blk *k, uint32_t x, uint32_t *val)
{
#if GPX_SIMD_X86
	if (gpx_simd()->level >= GPX_SIMD_SSE41)
		return ef_lower_bound_popcnt(k, x, val);
#endif
	return ef_lower_bound(k, x, val);
}

/*
 * Check block k: b, exactly m ones in UPPER up to k->end, values strictly
 * increasing and <= GPX_MAX_DOCID (64-bit arithmetic), at most max_pad
 * bytes after the one holding the last one bit.  Values go to scratch.
 */
gpx_status
gpx_ef_blk_check(const gpx_blk *k, uint32_t max_pad, uint32_t *scratch)
{
	ef_geom		g;
	uint64_t	pos,
				lastone = 0;
	uint64_t	prev = k->first;
	uint32_t	r = 0;

	if (k->end < k->bit || k->end > (uint64_t) k->plen * 8 ||
		(k->bit & 7) != 0 || (k->end & 7) != 0)
		return GPX_E_DIRECTORY;
	scratch[0] = k->first;
	if (k->cnt < 2)
	{
		/* no bits: the block is empty or zero padding */
		if ((k->end - k->bit) / 8 > max_pad)
			return GPX_E_TRAILING;
		for (pos = k->bit; pos < k->end; pos += 8)
			if (k->p[pos >> 3] != 0)
				return GPX_E_PAYLOAD;
		return GPX_OK;
	}
	if (k->end - k->bit < EF_B_BITS)
		return GPX_E_TRUNCATED;
	ef_geom_of(k, &g);
	if (g.up > k->end)
		return GPX_E_TRUNCATED;
	for (pos = g.up; pos < k->end; pos += 64 - (pos & 7))
	{
		uint64_t	w = ef_window(k, pos);
		uint64_t	left = k->end - pos;

		if (left < 64)
			w &= (1ull << left) - 1;	/* bits of the block only */
		while (w != 0)
		{
			uint64_t	q = pos + (uint64_t) __builtin_ctzll(w) - g.up;
			uint64_t	hi,
						v;

			if (r >= g.m)
				return GPX_E_PAYLOAD;	/* a one too many */
			if (q < r)
				return GPX_E_PAYLOAD;	/* cannot happen: ones are distinct */
			hi = q - r;
			if (hi > (GPX_MAX_DOCID >> g.b))
				return GPX_E_PAYLOAD;
			v = (uint64_t) k->first + 1 + ((hi << g.b) | ef_low(k, &g, r));
			if (v > GPX_MAX_DOCID || v <= prev)
				return GPX_E_PAYLOAD;
			scratch[1 + r] = (uint32_t) v;
			prev = v;
			lastone = pos + (uint64_t) __builtin_ctzll(w);
			r++;
			w &= w - 1;
		}
	}
	if (r != g.m)
		return GPX_E_TRUNCATED;
	if ((k->end >> 3) - (lastone >> 3) - 1 > max_pad)
		return GPX_E_TRAILING;
	return GPX_OK;
}

/*
 * The last element of a one-block list from its final byte (O(1)): the
 * highest one of the block is element m's.  Rejects what cannot be read.
 */
gpx_status
gpx_ef_blk_last(const gpx_blk *k, uint32_t *last)
{
	ef_geom		g;
	uint8_t		fb;
	uint64_t	hp,
				q,
				hi,
				v;

	if (k->cnt < 2)
	{
		*last = k->first;
		return k->end == k->bit ? GPX_OK : GPX_E_PAYLOAD;
	}
	if (k->end < k->bit + 8 || (k->end & 7) != 0 || (k->bit & 7) != 0)
		return GPX_E_PAYLOAD;
	fb = k->p[(k->end >> 3) - 1];
	if (fb == 0)
		return GPX_E_TRAILING;	/* a valid one ends with the last element */
	ef_geom_of(k, &g);
	hp = k->end - 8 + (uint64_t) (31 - __builtin_clz((uint32_t) fb));
	if (hp < g.up || hp - g.up < g.m - 1)
		return GPX_E_PAYLOAD;
	q = hp - g.up;
	hi = q - (g.m - 1);
	if (hi > (GPX_MAX_DOCID >> g.b))
		return GPX_E_PAYLOAD;
	v = (uint64_t) k->first + 1 + ((hi << g.b) | ef_low(k, &g, g.m - 1));
	if (v > GPX_MAX_DOCID)
		return GPX_E_PAYLOAD;
	*last = (uint32_t) v;
	return GPX_OK;
}

/*
 * Bits of the smallest block for d[0..cnt) (0 when cnt == 1), *b the low
 * width that gives it (ties: the larger b, fewer upper bits to walk).
 */
uint64_t
gpx_ef_blk_plan(const uint32_t *d, uint32_t cnt, uint32_t *b)
{
	uint64_t	m = cnt - 1,
				best = UINT64_MAX;
	uint32_t	ymax,
				c;

	*b = 0;
	if (cnt < 2)
		return 0;
	ymax = d[cnt - 1] - d[0] - 1;
	for (c = 0; c < 32; c++)
	{
		uint64_t	bits = EF_B_BITS + m * c + m + (ymax >> c);

		if (bits <= best)
		{
			best = bits;
			*b = c;
		}
	}
	return best;
}

/*
 * Write the block of d[0..cnt) with low width b at bit `bit` of zeroed p:
 * the width and LOW as one stream, then UPPER's ones (gpx_internal.h's
 * writers, a word at a time).
 */
void
gpx_ef_blk_write(uint8_t *p, uint64_t bit, const uint32_t *d, uint32_t cnt,
				 uint32_t b)
{
	uint64_t	m = cnt - 1,
				up = bit + EF_B_BITS + m * b;
	uint32_t	mask = gpx_mask(b),
				r;
	gpx_bitw	lw;
	gpx_onesw	ow;

	if (cnt < 2)
		return;
	gpx_bitw_init(&lw, p, bit);
	gpx_bitw_put(&lw, b, EF_B_BITS);
	for (r = 0; r < m; r++)
		gpx_bitw_put(&lw, (d[r + 1] - d[0] - 1) & mask, b);
	gpx_bitw_flush(&lw);
	gpx_onesw_init(&ow, p, up);
	for (r = 0; r < m; r++)
		gpx_onesw_set(&ow, up + ((d[r + 1] - d[0] - 1) >> b) + r);
}
