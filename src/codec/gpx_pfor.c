/*
 * gpx_pfor.c - posting_pfor: Parallel PForDelta (ParaPFor, Ao et al. VLDB
 * 2011, Appendix D) over d-gaps, blocks of 128 docIDs, with an OptPFD-style
 * exhaustive choice of the bit width per block.
 *
 * BLOCK FORMAT (codec GPX_CODEC_PFOR, blocks of 128, v1 header param 0)
 * ---------------------------------------------------------------------
 * The blob header and directory are the common ones (gpx_codec.h).  Block
 * k holds cnt = min(128, n - 128 k) docIDs d[0..cnt); the directory entry
 * of block k gives d[0] (not repeated in the payload) and where the block
 * starts: the payload word index `off` (version 1), or a byte offset that
 * is a multiple of 4 with kind 2 (version 2, where a block may also be an
 * Elias-Fano or bitmap block: gpx_ef.c, gpx_bitmap.c).  In version 1
 * block 0 starts at word 0 and every block is a whole number of words,
 * immediately followed by the next block (offsets strictly increasing, no
 * gaps); the last block ends exactly at payload_bytes.  In version 2 a
 * PFor block fills its words exactly as well: the next block (or the
 * payload's end) starts right after its last word.
 *
 * The block encodes the m = cnt - 1 gaps g[i] = d[i+1] - d[i] - 1 >= 0,
 * i = 0..m-1 (gap index i is the gap *before* element i + 1).
 *
 * All positions below are bit positions counted from the first bit of
 * word `off` (bit 0 = least significant bit of that word; packing is
 * LSB-first across consecutive little-endian words, as in gpx_bits.h).
 *
 *   bits  0..5    b    low bit width, 0..32
 *   bits  6..12   e    exception count, 0..m
 *   bits 13..18   hb   high bit width of the exceptions:
 *                        e == 0: hb == 0;  e > 0: 1 <= hb and b + hb <= 32
 *   LOW   at bit 19,                 m fields of b bits:
 *           LOW[i] = g[i] & (2^b - 1)
 *   POS   at bit 19 + m*b,           e fields of 7 bits:
 *           gap indices of the exceptions, strictly increasing, < m
 *   HIGH  at bit 19 + m*b + 7*e,     e fields of hb bits:
 *           HIGH[x] = g[POS[x]] >> b, never 0 (an exception is >= 2^b)
 *   total T = 19 + m*b + e*(7 + hb) bits; the block occupies
 *   ceil(T / 32) words and the bits from T to the end of its last word are 0.
 *
 * So the three header fields share word `off` with the start of LOW (the
 * 13 bits left there hold data, which saves 0.1 bits/docID over a separate
 * header word), and every section offset is O(1) from (header word, cnt).
 * A block with cnt == 1 is the single word 0.
 *
 * Decoding (one GPU thread per element/exception, as in ParaPFor):
 *   1. g[i] = LOW[i]                          for i < m       (parallel)
 *   2. g[POS[x]] |= HIGH[x] << b              for x < e       (parallel)
 *   3. d[0] = dir first; d[i+1] = d[i] + g[i] + 1  (block-local prefix sum)
 * The encoder uses hb = bitwidth(max g) - b and picks the b minimising the
 * block's size in words (ties: the larger b, i.e. fewer exceptions); any b
 * satisfying the rules above is valid.
 */
#include "gpx_internal.h"
#include "gpx_simd.h"

#define PFOR_LOG2_BLOCK 7
#define PFOR_BLOCK		(1u << PFOR_LOG2_BLOCK)
#define PFOR_HDR_BITS	19		/* b, e, hb fields; LOW starts here */
#define PFOR_POS_BITS	7		/* width of an exception position */

/* Header field accessors (h = the block's first payload word). */
#define PFOR_B(h)		((h) & 0x3Fu)
#define PFOR_E(h)		(((h) >> 6) & 0x7Fu)
#define PFOR_HB(h)		(((h) >> 13) & 0x3Fu)
#define PFOR_HEADER(b, e, hb) ((uint32_t) (b) | ((uint32_t) (e) << 6) | \
							   ((uint32_t) (hb) << 13))

/* Size in bits of a block with m gaps, width b, e exceptions of hb bits. */
static inline uint64_t
pfor_block_bits(uint32_t m, uint32_t b, uint32_t e, uint32_t hb)
{
	return PFOR_HDR_BITS + (uint64_t) m * b + (uint64_t) e * (PFOR_POS_BITS + hb);
}

/* Element count of block blk of a v1 list. */
static inline uint32_t
pfor_count(const gpx_list *l, uint32_t blk)
{
	uint64_t	rest = (uint64_t) l->n - ((uint64_t) blk << PFOR_LOG2_BLOCK);

	return rest < PFOR_BLOCK ? (uint32_t) rest : PFOR_BLOCK;
}

/* Payload word offset of block blk of a v1 list, from the directory. */
static inline uint32_t
pfor_dir_offset(const gpx_list *l, uint32_t blk)
{
	return gpx_load32(l->dir + (size_t) blk * GPX_DIR_ENTRY_SIZE + 4);
}

/*
 * Unpack cnt fields of `width` bits starting at bit `bitpos` of words into
 * out, with a 64-bit accumulator; reads only the words holding the fields.
 */
static inline void
pfor_unpack(const uint8_t *words, uint64_t bitpos, uint32_t width,
			uint32_t cnt, uint32_t *out)
{
	uint64_t	w;
	uint64_t	acc;
	uint32_t	avail;
	uint32_t	mask;
	uint32_t	i;

	if (width == 0)
	{
		for (i = 0; i < cnt; i++)
			out[i] = 0;
		return;
	}
	if (cnt == 0)
		return;
	w = bitpos >> 5;
	acc = gpx_word(words, w++) >> (bitpos & 31);
	avail = 32 - (uint32_t) (bitpos & 31);
	mask = gpx_mask(width);
	for (i = 0; i < cnt; i++)
	{
		if (avail < width)
		{
			acc |= (uint64_t) gpx_word(words, w++) << avail;
			avail += 32;
		}
		out[i] = (uint32_t) acc & mask;
		acc >>= width;
		avail -= width;
	}
}

/*
 * Sum of the first cnt fields of `width` bits at bit `bitpos` (same reads
 * as pfor_unpack); wraps modulo 2^32, callers use it on validated data.
 */
static inline uint32_t
pfor_sum_fields(const uint8_t *words, uint64_t bitpos, uint32_t width,
				uint32_t cnt)
{
	uint64_t	w;
	uint64_t	acc;
	uint32_t	avail;
	uint32_t	mask;
	uint32_t	sum = 0;
	uint32_t	i;

	if (width == 0 || cnt == 0)
		return 0;
	w = bitpos >> 5;
	acc = gpx_word(words, w++) >> (bitpos & 31);
	avail = 32 - (uint32_t) (bitpos & 31);
	mask = gpx_mask(width);
	for (i = 0; i < cnt; i++)
	{
		if (avail < width)
		{
			acc |= (uint64_t) gpx_word(words, w++) << avail;
			avail += 32;
		}
		sum += (uint32_t) acc & mask;
		acc >>= width;
		avail -= width;
	}
	return sum;
}

/*
 * pfor_unpack of a trusted block with one 8-byte load per field, when
 * plen (the payload's length in bytes) leaves 8 readable bytes past the
 * last field's first byte; else pfor_unpack.
 */
static inline void
pfor_unpack_trusted(const uint8_t *words, size_t plen, uint64_t bitpos,
					uint32_t width, uint32_t cnt, uint32_t *out)
{
	uint32_t	mask,
				i;

	if (!GPX_FAST_BITS || width == 0 ||
		((bitpos + (uint64_t) cnt * width) >> 3) + 8 > plen)
	{
		pfor_unpack(words, bitpos, width, cnt, out);
		return;
	}
	mask = gpx_mask(width);
	for (i = 0; i < cnt; i++)
	{
		out[i] = gpx_get_bits_fast(words, bitpos, mask);
		bitpos += width;
	}
}

/*
 * Decode the gaps of a (trusted) block into g[0..m): unpack LOW, then
 * patch the exceptions with their high bits.  plen: the payload's length
 * in bytes.
 */
static inline void
pfor_decode_gaps(const uint8_t *payload, size_t plen, uint32_t off,
				 uint32_t m, uint32_t *g)
{
	uint32_t	h = gpx_word(payload, off);
	uint32_t	b = PFOR_B(h);
	uint32_t	e = PFOR_E(h);
	uint32_t	hb = PFOR_HB(h);
	uint64_t	bit = (uint64_t) off * 32 + PFOR_HDR_BITS;
	uint64_t	posbit = bit + (uint64_t) m * b;
	uint64_t	hibit = posbit + (uint64_t) e * PFOR_POS_BITS;
	const gpx_simd_ops *o = gpx_simd();
	uint32_t	x,
				done = 0;

	/* the vectorised variant's share, then the scalar loop's */
	if (o->unpack != NULL && b > 0)
		done = o->unpack(payload, plen, bit, b, m, g);
	pfor_unpack_trusted(payload, plen, bit + (uint64_t) done * b, b, m - done,
						g + done);
	if (GPX_FAST_BITS && e > 0 && ((hibit + (uint64_t) e * hb) >> 3) + 8 <= plen)
	{
		/* every field readable with one 8-byte load: no branch per field */
		uint32_t	hmask = gpx_mask(hb);

		for (x = 0; x < e; x++)
		{
			uint32_t	pos = gpx_get_bits_fast(payload, posbit, (1u << PFOR_POS_BITS) - 1);

			g[pos] |= gpx_get_bits_fast(payload, hibit, hmask) << (b & 31);
			posbit += PFOR_POS_BITS;
			hibit += hb;
		}
		return;
	}
	for (x = 0; x < e; x++)
	{
		uint32_t	pos = gpx_get_bits(payload, posbit + (uint64_t) x * PFOR_POS_BITS,
									   PFOR_POS_BITS);
		uint32_t	hi = gpx_get_bits(payload, hibit + (uint64_t) x * hb, hb);

		/* e > 0 implies b <= 31 in a valid block */
		g[pos] |= hi << (b & 31);
	}
}


/* Upper bound of the v1 blob size for n docIDs ending at last. */
static size_t
gpx_pfor_encode_bound(uint32_t n, uint32_t last)
{
	uint64_t	nb = gpx_nblocks_for(n, PFOR_LOG2_BLOCK);
	uint64_t	w = gpx_bitwidth(last);
	uint64_t	words;

	if (n == 0)
		return GPX_V1_HEADER_SIZE;

	/*
	 * Every gap is <= last, so b = bitwidth(last) with no exceptions is a
	 * candidate; the chosen b is never larger.  Per block that is
	 * ceil((19 + m w) / 32) <= 1 + (19 + m w) / 32 words, and the m sum
	 * to n - nb.
	 */
	words = nb + (nb * PFOR_HDR_BITS + ((uint64_t) n - nb) * w) / 32 + 1;
	return (size_t) (gpx_payload_offset((uint32_t) nb) + words * 4);
}

/*
 * Plan the smallest block for d[0..cnt) (OptPFD: every b from the widest
 * gap down to 0, the fewest words, ties to the larger b); returns its
 * words, *hdr its header word.
 */
uint64_t
gpx_pfor_blk_plan(const uint32_t *d, uint32_t cnt, uint32_t *hdr)
{
	uint32_t	m = cnt - 1;
	uint8_t		h0[33],
				h1[33],
				h2[33],
				h3[33];			/* counts <= 32 each */
	uint32_t	mx = 0,
				orr = 0;
	uint32_t	best_b = 0,
				best_e = 0;
	uint64_t	best_words = UINT64_MAX;
	uint32_t	e = 0;
	uint32_t	b,
				i;

	/*
	 * The histogram of gap widths, in four copies taking every fourth gap
	 * (a run of equal widths would otherwise wait on one counter's
	 * store); a width as 63 - clz(2 g + 1), 0 for g = 0 without a branch.
	 */
#define PFOR_W(g) (63 - __builtin_clzll(2 * (uint64_t) (g) + 1))
	memset(h0, 0, sizeof(h0));
	memset(h1, 0, sizeof(h1));
	memset(h2, 0, sizeof(h2));
	memset(h3, 0, sizeof(h3));
	for (i = 0; i + 4 <= m; i += 4)
	{
		uint32_t	g0 = d[i + 1] - d[i] - 1,
					g1 = d[i + 2] - d[i + 1] - 1,
					g2 = d[i + 3] - d[i + 2] - 1,
					g3 = d[i + 4] - d[i + 3] - 1;

		orr |= g0 | g1 | g2 | g3;
		h0[PFOR_W(g0)]++;
		h1[PFOR_W(g1)]++;
		h2[PFOR_W(g2)]++;
		h3[PFOR_W(g3)]++;
	}
	for (; i < m; i++)
	{
		uint32_t	g = d[i + 1] - d[i] - 1;

		orr |= g;
		h0[PFOR_W(g)]++;
	}
#undef PFOR_W
	mx = gpx_bitwidth(orr);
	for (b = mx + 1; b-- > 0;)
	{
		uint64_t	wds;

		if (b < mx)				/* gaps wider than b */
			e += (uint32_t) h0[b + 1] + h1[b + 1] + h2[b + 1] + h3[b + 1];
		wds = gpx_words_for_bits(pfor_block_bits(m, b, e, e ? mx - b : 0));
		if (wds < best_words)
		{
			best_words = wds;
			best_b = b;
			best_e = e;
		}
	}
	*hdr = PFOR_HEADER(best_b, best_e, best_e ? mx - best_b : 0);
	return best_words;
}

/* A bit stream written LSB-first through a 64-bit accumulator. */
typedef struct pfor_wr
{
	uint8_t    *p;				/* next word to store */
	uint64_t	acc;
	uint32_t	have;			/* bits in acc, < 32 between puts */
} pfor_wr;

/* Append the w bits (w <= 32) of v (< 2^w) to the stream. */
static inline void
pfor_put(pfor_wr *s, uint32_t v, uint32_t w)
{
	s->acc |= (uint64_t) v << s->have;
	s->have += w;
	if (s->have >= 32)
	{
		gpx_store32(s->p, (uint32_t) s->acc);
		s->p += 4;
		s->acc >>= 32;
		s->have -= 32;
	}
}

/*
 * Write the planned block of d[0..cnt) at payload word wpos (zeroed): the
 * header, LOW, POS and HIGH are one LSB-first stream from the block's
 * first word, stored a word at a time (the block's words are its own, so
 * whole-word stores write what OR-ing bits into zeros would).
 */
void
gpx_pfor_blk_write(uint8_t *payload, uint64_t wpos, const uint32_t *d,
				   uint32_t cnt, uint32_t hdr)
{
	uint32_t	m = cnt - 1;
	uint32_t	b = PFOR_B(hdr),
				e = PFOR_E(hdr),
				hb = PFOR_HB(hdr);
	uint32_t	mask = gpx_mask(b);
	uint8_t		xpos[PFOR_BLOCK];
	uint32_t	xhigh[PFOR_BLOCK];
	uint32_t	x = 0;
	pfor_wr		s = {payload + 4 * wpos, hdr, PFOR_HDR_BITS};

	for (uint32_t i = 0; i < m; i++)
	{
		uint32_t	g = d[i + 1] - d[i] - 1;

		pfor_put(&s, g & mask, b);
		if (e > 0 && (g >> b) != 0)	/* e > 0: b < mx <= 31 */
		{
			xpos[x] = (uint8_t) i;
			xhigh[x++] = g >> b;
		}
	}
	for (uint32_t i = 0; i < x; i++)
		pfor_put(&s, xpos[i], PFOR_POS_BITS);
	for (uint32_t i = 0; i < x; i++)
		pfor_put(&s, xhigh[i], hb);
	if (s.have > 0)
		gpx_store32(s.p, (uint32_t) s.acc);
}

/* Encode docs[0..n) as a v1 pfor blob into out[0..cap) (out is zeroed). */
static gpx_status
gpx_pfor_encode(const uint32_t *docs, uint32_t n, uint8_t *out, size_t cap,
				size_t *outlen)
{
	uint32_t	nb = gpx_nblocks_for(n, PFOR_LOG2_BLOCK);
	size_t		poff = gpx_payload_offset(nb);
	uint8_t    *payload = out + poff;
	uint64_t	wpos = 0;		/* payload words written so far */
	uint32_t	k;

	if (cap < poff)
		return GPX_E_NOSPACE;
	for (k = 0; k < nb; k++)
	{
		uint64_t	s = (uint64_t) k << PFOR_LOG2_BLOCK;
		uint32_t	cnt = (n - s) < PFOR_BLOCK ? (uint32_t) (n - s) : PFOR_BLOCK;
		uint32_t	hdr;
		uint64_t	words = gpx_pfor_blk_plan(docs + s, cnt, &hdr);

		if (wpos + words > UINT32_MAX / 4)
			return GPX_E_TOOBIG;
		if (poff + (wpos + words) * 4 > cap)
			return GPX_E_NOSPACE;
		gpx_pfor_blk_write(payload, wpos, docs + s, cnt, hdr);
		gpx_write_dir(out, k, docs[s], (uint32_t) wpos);
		wpos += words;
	}
	gpx_write_header(out, GPX_CODEC_PFOR, PFOR_LOG2_BLOCK, 0, n, docs[0],
					 docs[n - 1], nb, (uint32_t) (wpos * 4));
	*outlen = poff + wpos * 4;
	return GPX_OK;
}

/*
 * Check the block k, which must fill [bit, end) exactly (end - bit a
 * multiple of 32): header fields, size (GPX_E_DIRECTORY when it differs),
 * zero padding, exceptions, and the values in range; the values go to
 * scratch[0..cnt).  Never reads outside the block's words.
 */
gpx_status
gpx_pfor_blk_check(const gpx_blk *k, uint32_t *scratch)
{
	const uint8_t *payload = k->p;
	uint32_t	off = (uint32_t) (k->bit >> 5);
	uint64_t	nw;
	uint32_t	cnt = k->cnt;
	uint32_t	m = cnt - 1;
	uint32_t	h,
				b,
				e,
				hb;
	uint64_t	bits,
				bit,
				posbit,
				hibit;
	uint64_t	v;
	uint32_t	x,
				i,
				prev;

	if ((k->bit & 31) != 0 || (k->end & 31) != 0 || k->end <= k->bit ||
		k->end > (uint64_t) k->plen * 8)
		return GPX_E_DIRECTORY;
	nw = (k->end - k->bit) >> 5;
	h = gpx_word(payload, off);
	b = PFOR_B(h);
	e = PFOR_E(h);
	hb = PFOR_HB(h);

	/* header fields, before any size is computed from them */
	if (b > 32 || e > m)
		return GPX_E_PAYLOAD;
	if (e == 0 ? hb != 0 : (hb == 0 || b + hb > 32))
		return GPX_E_PAYLOAD;

	/* the block must fill exactly [off, end) */
	bits = pfor_block_bits(m, b, e, hb);
	if (gpx_words_for_bits(bits) != nw)
		return GPX_E_DIRECTORY;
	/* padding bits after the block's data must be zero */
	if ((bits & 31) != 0 &&
		(gpx_word(payload, off + nw - 1) >> (bits & 31)) != 0)
		return GPX_E_PAYLOAD;

	/* gaps into scratch[1..cnt); every read is inside the block */
	bit = (uint64_t) off * 32 + PFOR_HDR_BITS;
	posbit = bit + (uint64_t) m * b;
	hibit = posbit + (uint64_t) e * PFOR_POS_BITS;
	pfor_unpack(payload, bit, b, m, scratch + 1);
	prev = 0;
	for (x = 0; x < e; x++)
	{
		uint32_t	pos = gpx_get_bits(payload, posbit + (uint64_t) x * PFOR_POS_BITS,
									   PFOR_POS_BITS);
		uint32_t	hi = gpx_get_bits(payload, hibit + (uint64_t) x * hb, hb);

		if (pos >= m || (x > 0 && pos <= prev))
			return GPX_E_PAYLOAD;
		if (hi == 0)			/* not really an exception: not canonical */
			return GPX_E_PAYLOAD;
		prev = pos;
		/* e > 0 so b + hb <= 32 with hb >= 1: b <= 31 */
		scratch[1 + pos] |= hi << b;
	}

	/* prefix sum with overflow check in 64 bits */
	v = k->first;
	scratch[0] = (uint32_t) v;
	for (i = 1; i < cnt; i++)
	{
		v += (uint64_t) scratch[i] + 1;
		if (v > GPX_MAX_DOCID)
			return GPX_E_PAYLOAD;
		scratch[i] = (uint32_t) v;
	}
	return GPX_OK;
}

/* Bytes block k takes by its header word (0: no word, or bad fields). */
uint64_t
gpx_pfor_blk_bytes(const gpx_blk *k)
{
	uint32_t	h,
				b,
				e,
				hb;

	if ((k->bit & 31) != 0 || k->bit + 32 > (uint64_t) k->plen * 8)
		return 0;
	h = gpx_word(k->p, k->bit >> 5);
	b = PFOR_B(h);
	e = PFOR_E(h);
	hb = PFOR_HB(h);
	if (b > 32 || e > k->cnt - 1 || (e == 0 ? hb != 0 : (hb == 0 || b + hb > 32)))
		return 0;
	return 4 * gpx_words_for_bits(pfor_block_bits(k->cnt - 1, b, e, hb));
}

/*
 * Validate the directory offsets and every block of a v1 pfor blob whose
 * common header and directory firsts were checked by gpx_validate().
 */
static gpx_status
gpx_pfor_validate(const gpx_list *l, uint32_t *scratch)
{
	uint32_t	nwords = l->payload_bytes / 4;
	uint32_t	k;

	if (l->param != 0 || l->log2_block != PFOR_LOG2_BLOCK ||
		(l->payload_bytes & 3) != 0 ||
		l->nblocks != gpx_nblocks_for(l->n, PFOR_LOG2_BLOCK))
		return GPX_E_HEADER;
	if (l->n == 0)
		return l->payload_bytes == 0 ? GPX_OK : GPX_E_HEADER;

	/* offsets: block 0 at 0, strictly increasing, all inside the payload */
	for (k = 0; k < l->nblocks; k++)
	{
		uint32_t	off = pfor_dir_offset(l, k);

		if (k == 0 ? off != 0 : off <= pfor_dir_offset(l, k - 1))
			return GPX_E_DIRECTORY;
		if (off >= nwords)
			return GPX_E_DIRECTORY;
	}

	for (k = 0; k < l->nblocks; k++)
	{
		gpx_blk		b;
		gpx_status	st;

		gpx_blk_at(l, k, &b);
		b.cnt = pfor_count(l, k);
		st = gpx_pfor_blk_check(&b, scratch);
		if (st == GPX_OK)
			st = gpx_check_block(l, k, scratch, b.cnt);
		if (st != GPX_OK)
			return st;
	}
	return GPX_OK;
}

/* Decode block k into out; returns its count. */
uint32_t
gpx_pfor_blk_decode(const gpx_blk *k, uint32_t *out)
{
	uint32_t	cnt = k->cnt;
	uint32_t	v = k->first;
	uint32_t	i;

	const gpx_simd_ops *o = gpx_simd();

	pfor_decode_gaps(k->p, k->plen, (uint32_t) (k->bit >> 5), cnt - 1, out + 1);
	out[0] = v;
	if (o->gaps_sum != NULL)
	{
		o->gaps_sum(out + 1, cnt - 1, v);
		return cnt;
	}
	for (i = 1; i < cnt; i++)
	{
		v += out[i] + 1;
		out[i] = v;
	}
	return cnt;
}

/* Element j of block k: sum its first j gaps (LOW, then exceptions). */
uint32_t
gpx_pfor_blk_nth(const gpx_blk *k, uint32_t j)
{
	uint32_t	off,
				h,
				b,
				e,
				hb,
				m,
				sum,
				x;
	uint64_t	bit,
				posbit,
				hibit;

	if (j == 0)
		return k->first;
	off = (uint32_t) (k->bit >> 5);
	m = k->cnt - 1;
	h = gpx_word(k->p, off);
	b = PFOR_B(h);
	e = PFOR_E(h);
	hb = PFOR_HB(h);
	bit = (uint64_t) off * 32 + PFOR_HDR_BITS;
	posbit = bit + (uint64_t) m * b;
	hibit = posbit + (uint64_t) e * PFOR_POS_BITS;
	sum = pfor_sum_fields(k->p, bit, b, j);
	for (x = 0; x < e; x++)
	{
		uint32_t	pos = gpx_get_bits(k->p, posbit + (uint64_t) x * PFOR_POS_BITS,
									   PFOR_POS_BITS);

		if (pos >= j)
			break;
		sum += gpx_get_bits(k->p, hibit + (uint64_t) x * hb, hb) << (b & 31);
	}
	return k->first + j + sum;
}

/* Index in block k of the first element >= x (decode, binary search). */
uint32_t
gpx_pfor_blk_lower_bound(const gpx_blk *k, uint32_t x, uint32_t *val)
{
	uint32_t	buf[PFOR_BLOCK];
	uint32_t	cnt = gpx_pfor_blk_decode(k, buf);
	uint32_t	lo = 0,
				hi = cnt;

	while (lo < hi)
	{
		uint32_t	mid = lo + (hi - lo) / 2;

		if (buf[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < cnt && val)
		*val = buf[lo];
	return lo;
}

const gpx_codec_ops gpx_pfor_ops = {
	.id = GPX_CODEC_PFOR,
	.log2_block = PFOR_LOG2_BLOCK,
	.name = "pfor",
	.encode_bound = gpx_pfor_encode_bound,
	.encode = gpx_pfor_encode,
	.validate = gpx_pfor_validate,
};
