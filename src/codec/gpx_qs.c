/*
 * gpx_qs.c - posting_qs, format version 1: one Elias-Fano (quasi-
 * succinct) list with a sample every 256 elements, so that every block
 * decodes on its own (Parallel-QS, Li 2014) and lower_bound / next_geq can
 * skip.  Version 2 qs lists are made of Elias-Fano blocks with their own
 * low-bit width each (gpx_ef.c) and bitmap blocks (gpx_bitmap.c).
 *
 * Version 1 payload format (this comment is the specification the CUDA
 * kernel follows).  Let n >= 1 be the element count, d[0..n) the docIDs (strictly
 * increasing, <= 2^31 - 1), last = d[n-1], and
 *
 *     u = last + 1
 *     b = 0                       if u / n < 2 (integer division)
 *       = floor(log2(u / n))      otherwise          (so 0 <= b <= 31)
 *
 * b is stored in the header's param byte and must equal this formula (so
 * every list has exactly one representation).  Each docID is split into a
 * low part d[i] & (2^b - 1) and a high part h[i] = d[i] >> b.
 *
 * The payload is an array of little-endian uint32 words, bits numbered
 * LSB-first inside each word (bit p is bit p & 31 of word p >> 5):
 *
 *   words [0, LW)        low-bits array, LW = ceil(n * b / 32): the low
 *                        part of element i occupies bits [i*b, i*b + b).
 *                        Bits at or beyond n * b are zero.
 *   words [LW, LW + UW)  upper-bits array, relative bit numbering starting
 *                        at 0 in word LW.  L = (last >> b) + n bits,
 *                        UW = ceil(L / 32).  Element i sets bit h[i] + i;
 *                        every other bit is zero.  Hence there are exactly
 *                        n one bits, the last one is bit L - 1, the number
 *                        of zeros before element i's one bit is h[i], and
 *                        the element index of a one bit is its rank among
 *                        the ones.
 *
 *   payload_bytes = 4 * (LW + UW) exactly.
 *
 * Blocks are 256 elements (log2_block 8).  Directory entry k holds
 * first = d[256k] and offset = 256k + h[256k], the position in the
 * upper-bits array of element 256k's one bit.  To decode block k
 * independently: start at bit offset(k), take the next cnt one bits (cnt =
 * min(256, n - 256k)); the j-th of them at position p gives element
 * i = 256k + j with d[i] = ((p - i) << b) | low(i).
 */
#include "gpx_internal.h"

#define GPX_QS_BLOCK		(1u << GPX_QS_LOG2_BLOCK)

/* Sizes derived from n and last: everything the layout depends on. */
typedef struct gpx_qs_geom
{
	uint32_t	b;				/* low bits per element */
	uint64_t	low_words;		/* words of the low-bits array */
	uint64_t	upper_bits;		/* L: bits of the upper-bits array */
	uint64_t	upper_words;	/* words of the upper-bits array */
	uint64_t	payload_bytes;	/* 4 * (low_words + upper_words) */
} gpx_qs_geom;

/* Number of low bits b for n elements ending at last (the canonical value). */
static uint32_t
gpx_qs_low_bits(uint32_t n, uint32_t last)
{
	uint64_t	q;

	if (n == 0)
		return 0;
	q = ((uint64_t) last + 1) / n;
	if (q < 2)
		return 0;
	return 63 - (uint32_t) __builtin_clzll(q);
}

/* Fill g with the layout of n elements ending at last (64-bit, no overflow). */
static void
gpx_qs_geometry(uint32_t n, uint32_t last, gpx_qs_geom *g)
{
	g->b = gpx_qs_low_bits(n, last);
	g->low_words = gpx_words_for_bits((uint64_t) n * g->b);
	g->upper_bits = (g->b >= 32 ? 0 : (uint64_t) (last >> g->b)) + n;
	g->upper_words = gpx_words_for_bits(g->upper_bits);
	g->payload_bytes = 4 * (g->low_words + g->upper_words);
}

/* Start of the upper-bits array of a parsed list (b = l->param). */
static inline const uint8_t *
gpx_qs_upper(const gpx_list *l)
{
	return l->payload + 4 * gpx_words_for_bits((uint64_t) l->n * l->param);
}

/* Words of the upper-bits array of a parsed list. */
static inline uint64_t
gpx_qs_upper_words(const gpx_list *l)
{
	return l->payload_bytes / 4 -
		gpx_words_for_bits((uint64_t) l->n * l->param);
}

/* Low part of element i. */
static inline uint32_t
gpx_qs_low(const gpx_list *l, uint32_t i)
{
	return gpx_get_bits(l->payload, (uint64_t) i * l->param, l->param);
}

/* Upper bound of the v1 blob size: the exact size (it depends on n, last only). */
static size_t
gpx_qs_encode_bound(uint32_t n, uint32_t last)
{
	gpx_qs_geom g;

	gpx_qs_geometry(n, last, &g);
	return gpx_payload_offset(gpx_nblocks_for(n, GPX_QS_LOG2_BLOCK)) +
		(size_t) g.payload_bytes;
}

/* Write the v1 blob: header, directory of samples, low bits, upper bits. */
static gpx_status
gpx_qs_encode(const uint32_t *docs, uint32_t n, uint8_t *out, size_t cap,
			  size_t *outlen)
{
	gpx_qs_geom g;
	uint32_t	last = docs[n - 1];
	uint32_t	nblocks = gpx_nblocks_for(n, GPX_QS_LOG2_BLOCK);
	uint64_t	total;
	uint8_t    *low;
	uint8_t    *upper;
	uint32_t	mask;
	uint32_t	i;

	gpx_qs_geometry(n, last, &g);
	if (g.payload_bytes > UINT32_MAX)
		return GPX_E_TOOBIG;
	total = (uint64_t) gpx_payload_offset(nblocks) + g.payload_bytes;
	if (total > cap)
		return GPX_E_NOSPACE;

	low = out + gpx_payload_offset(nblocks);
	upper = low + 4 * g.low_words;
	mask = gpx_mask(g.b);
	for (i = 0; i < n; i++)
	{
		uint32_t	d = docs[i];
		uint64_t	pos = (uint64_t) (d >> g.b) + i;
		uint8_t    *w = upper + 4 * (pos >> 5);

		gpx_put_bits(low, (uint64_t) i * g.b, g.b, d & mask);
		gpx_store32(w, gpx_load32(w) | (1u << (pos & 31)));
		if ((i & (GPX_QS_BLOCK - 1)) == 0)
			gpx_write_dir(out, i >> GPX_QS_LOG2_BLOCK, d, (uint32_t) pos);
	}
	gpx_write_header(out, GPX_CODEC_QS, GPX_QS_LOG2_BLOCK, g.b, n, docs[0],
					 last, nblocks, (uint32_t) g.payload_bytes);
	*outlen = (size_t) total;
	return GPX_OK;
}

/* Decode block blk of a v1 list: walk its one bits from the sample with ctz. */
uint32_t
gpx_qs1_decode_block(const gpx_list *l, uint32_t blk, uint32_t *out)
{
	const uint8_t *upper = gpx_qs_upper(l);
	uint32_t	b = l->param;
	uint32_t	cnt = gpx_block_count(l, blk);
	uint32_t	i = blk << GPX_QS_LOG2_BLOCK;
	uint32_t	p0 = gpx_dir_offset(l, blk);
	uint64_t	wi = p0 >> 5;
	uint32_t	w = gpx_word(upper, wi) & (~0u << (p0 & 31));
	uint32_t	mask = gpx_mask(b);
	uint32_t	j;

	/* 8 bytes readable from every low field of the block (the payload) */
	bool		fast = GPX_FAST_BITS &&
		(((uint64_t) (i + cnt) * b) >> 3) + 8 <= l->payload_bytes;

	for (j = 0; j < cnt; j++, i++)
	{
		uint64_t	p;

		while (w == 0)
			w = gpx_word(upper, ++wi);
		p = (wi << 5) + (uint32_t) __builtin_ctz(w);
		w &= w - 1;
		out[j] = ((uint32_t) (p - i) << b) |
			(fast ? gpx_get_bits_fast(l->payload, (uint64_t) i * b, mask) :
			 gpx_qs_low(l, i));
	}
	return cnt;
}

/* Element i of a v1 list: from its block's sample, skip ones by popcount, select in word. */
uint32_t
gpx_qs1_nth(const gpx_list *l, uint32_t i)
{
	const uint8_t *upper = gpx_qs_upper(l);
	uint32_t	r = i & (GPX_QS_BLOCK - 1);
	uint32_t	p0 = gpx_dir_offset(l, i >> GPX_QS_LOG2_BLOCK);
	uint64_t	wi = p0 >> 5;
	uint32_t	w = gpx_word(upper, wi) & (~0u << (p0 & 31));
	uint32_t	c;
	uint64_t	p;

	while (r >= (c = (uint32_t) __builtin_popcount(w)))
	{
		r -= c;
		w = gpx_word(upper, ++wi);
	}
	p = (wi << 5) + gpx_select32(w, r);
	return ((uint32_t) (p - i) << l->param) | gpx_qs_low(l, i);
}

/*
 * Index in block blk of the first element >= x: from the sample, pass zeros
 * word by word (popcount) until x >> b zeros lie behind, so every later one
 * has high part >= x >> b, then compare whole values from there.
 */
uint32_t
gpx_qs1_block_lower_bound(const gpx_list *l, uint32_t blk, uint32_t x,
						 uint32_t *val)
{
	const uint8_t *upper = gpx_qs_upper(l);
	uint64_t	nwords = gpx_qs_upper_words(l);
	uint32_t	b = l->param;
	uint32_t	cnt = gpx_block_count(l, blk);
	uint32_t	e0 = blk << GPX_QS_LOG2_BLOCK;
	uint32_t	p0 = gpx_dir_offset(l, blk);
	uint32_t	hx = x >> b;
	uint32_t	h0 = p0 - e0;
	uint64_t	wi = p0 >> 5;
	uint32_t	sh = p0 & 31;
	uint32_t	w = gpx_word(upper, wi);
	uint32_t	ones = w & (~0u << sh);	/* not yet passed ones of word wi */
	uint32_t	j = 0;			/* block ones passed so far */

	if (hx > h0)
	{
		/* pass hx - h0 more zeros: then every later one has high >= hx */
		uint32_t	need = hx - h0;
		uint32_t	zeros = ~w & (~0u << sh);

		for (;;)
		{
			uint32_t	zc = (uint32_t) __builtin_popcount(zeros);

			if (need <= zc)
			{
				uint32_t	zp = gpx_select32(zeros, need - 1);
				uint32_t	below = (1u << zp) - 1;	/* bit zp is a zero */

				j += (uint32_t) __builtin_popcount(ones & below);
				ones &= ~below;
				break;
			}
			need -= zc;
			j += (uint32_t) __builtin_popcount(ones);
			if (j >= cnt || wi + 1 >= nwords)
				return cnt;
			w = gpx_word(upper, ++wi);
			ones = w;
			zeros = ~w;
		}
		if (j >= cnt)
			return cnt;
	}

	/* every remaining one has high part >= hx: the first value >= x wins */
	for (; j < cnt; j++)
	{
		uint32_t	i = e0 + j;
		uint64_t	p;
		uint32_t	v;

		while (ones == 0)
		{
			if (wi + 1 >= nwords)
				return cnt;
			ones = gpx_word(upper, ++wi);
		}
		p = (wi << 5) + (uint32_t) __builtin_ctz(ones);
		ones &= ones - 1;
		v = ((uint32_t) (p - i) << b) | gpx_qs_low(l, i);
		if (v >= x)
		{
			if (val)
				*val = v;
			return j;
		}
	}
	return cnt;
}

/*
 * Validate b, the payload size, the zero padding, the upper-bits array (n
 * ones, the last at L - 1, the samples at the ranks 256k), then decode
 * every block and check it.
 */
static gpx_status
gpx_qs_validate(const gpx_list *l, uint32_t *scratch)
{
	gpx_qs_geom g;
	const uint8_t *upper;
	uint64_t	lowbits;
	uint64_t	wi;
	uint64_t	ones = 0;		/* one bits in words before wi */
	uint64_t	target = 0;		/* rank of the next sample */
	uint32_t	k = 0;			/* next sample (block) to check */
	uint32_t	tail;
	uint32_t	w;
	gpx_status	st;

	if (l->n == 0)
		return (l->param == 0 && l->payload_bytes == 0) ?
			GPX_OK : GPX_E_HEADER;
	if (l->log2_block != GPX_QS_LOG2_BLOCK ||
		l->nblocks != gpx_nblocks_for(l->n, GPX_QS_LOG2_BLOCK) ||
		l->last > GPX_MAX_DOCID)
		return GPX_E_HEADER;
	gpx_qs_geometry(l->n, l->last, &g);
	if (l->param != g.b)
		return GPX_E_HEADER;
	if (g.payload_bytes != l->payload_bytes)
		return GPX_E_HEADER;

	/* low-bits array: padding after n * b bits is zero */
	lowbits = (uint64_t) l->n * g.b;
	if ((lowbits & 31) != 0 &&
		(gpx_word(l->payload, g.low_words - 1) & ~gpx_mask(lowbits & 31)) != 0)
		return GPX_E_PAYLOAD;

	/* upper-bits array: count ones, locate the samples */
	upper = l->payload + 4 * g.low_words;
	for (wi = 0; wi < g.upper_words; wi++)
	{
		uint32_t	c;

		w = gpx_word(upper, wi);
		c = (uint32_t) __builtin_popcount(w);
		while (k < l->nblocks && target < ones + c)
		{
			uint64_t	pos = (wi << 5) +
				gpx_select32(w, (uint32_t) (target - ones));

			if (pos != gpx_dir_offset(l, k))
				return GPX_E_DIRECTORY;
			k++;
			target += GPX_QS_BLOCK;
		}
		ones += c;
	}
	if (ones != l->n || k != l->nblocks)
		return GPX_E_PAYLOAD;
	/*
	 * No bit at or beyond L, and bit L - 1 (the last element's) is set.
	 * Either check alone, with check_block, suffices; without both, a one
	 * beyond L could wrap (h << b) around 32 bits back onto a valid value.
	 */
	tail = (uint32_t) (g.upper_bits & 31);
	w = gpx_word(upper, g.upper_words - 1);
	if (tail != 0 && (w & ~gpx_mask(tail)) != 0)
		return GPX_E_PAYLOAD;
	if ((w & (1u << ((g.upper_bits - 1) & 31))) == 0)
		return GPX_E_PAYLOAD;

	/*
	 * Every high part is now <= last >> b (high parts never decrease along
	 * the ones and the last one is at L - 1), so decoding cannot overflow
	 * and stays inside the payload.  Check each block's values.
	 */
	for (k = 0; k < l->nblocks; k++)
	{
		uint32_t	cnt = gpx_qs1_decode_block(l, k, scratch);

		st = gpx_check_block(l, k, scratch, cnt);
		if (st != GPX_OK)
			return st;
	}
	return GPX_OK;
}

const gpx_codec_ops gpx_qs_ops = {
	.id = GPX_CODEC_QS,
	.log2_block = GPX_QS_LOG2_BLOCK,
	.name = "qs",
	.encode_bound = gpx_qs_encode_bound,
	.encode = gpx_qs_encode,
	.validate = gpx_qs_validate,
};
