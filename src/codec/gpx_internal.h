/*
 * gpx_internal.h - what the common format code (gpx_format.c) and the
 * block forms share: a located block (gpx_blk), the per-form block
 * functions, the version 1 list codecs, varints and header helpers.
 *
 * A reader locates block k of a list (gpx_blk_at: its form, first docID,
 * count and bit range in the payload), then calls the functions of that
 * form.  Version 1 lists have one form per codec (PFOR, LRC, QS1); version
 * 2 lists choose a form per block (own PFOR/LRC, EF, BITMAP).
 */
#ifndef GPX_INTERNAL_H
#define GPX_INTERNAL_H

#include "gpx_codec.h"
#include "gpx_bits.h"

/* Elements per block of a codec (log2). */
#define GPX_PFOR_LOG2_BLOCK	7
#define GPX_LRC_LOG2_BLOCK	8
#define GPX_QS_LOG2_BLOCK	8

/* Tag byte of a version 2 blob. */
#define GPX_TAG_V2			0x80u
#define GPX_TAG_CODEC(t)	(((t) >> 5) & 3u)
#define GPX_TAG_KIND(t)		(((t) >> 4) & 1u)
#define GPX_TAG_SMALL(t)	((t) & 15u)
#define GPX_SMALL_MAX		15	/* largest n of a small list */

/* Version 2 info word: shapes and the kind field. */
#define GPX_SHAPE_EMPTY		0
#define GPX_SHAPE_ONE		1
#define GPX_SHAPE_BLOCKS	2
#define GPX_INFO_SHAPE(i)	((i) & 3u)
#define GPX_INFO_KIND(i)	(((i) >> 2) & 3u)
#define GPX_INFO_FLAGS		(GPX_F_TF | GPX_F_DIREXTRA)

/* Largest varint a header holds (5 bytes of 7 bits cover 32 bits). */
#define GPX_VARINT_MAX		5

/*
 * One block of a list, located: its form, first docID, element count and
 * where its bits lie.  p/plen: the payload and its length in bytes (a
 * reader never reads p[plen] or beyond); bits [bit, end) are the block's.
 * PFOR and LRC blocks start at a multiple of 32 bits.  QS1 blocks (v1 qs)
 * are read through the list (gpx_qs.c); their bit range is unused.
 */
typedef struct gpx_blk
{
	const uint8_t *p;
	size_t		plen;
	uint64_t	bit;
	uint64_t	end;
	uint32_t	first;
	uint32_t	cnt;
	uint8_t		form;
} gpx_blk;

/* ----------------------------------------------------------- varints -- */

/* Bytes of the varint of v. */
static inline uint32_t
gpx_varint_len(uint32_t v)
{
	uint32_t	n = 1;

	while (v >= 0x80)
	{
		v >>= 7;
		n++;
	}
	return n;
}

/* Write the varint of v at out; returns its length. */
static inline uint32_t
gpx_varint_put(uint8_t *out, uint32_t v)
{
	uint32_t	n = 0;

	while (v >= 0x80)
	{
		out[n++] = (uint8_t) (v | 0x80);
		v >>= 7;
	}
	out[n++] = (uint8_t) v;
	return n;
}

/*
 * Read a canonical varint of at most 32 bits from buf[*pos..len) and
 * advance *pos: GPX_E_TRUNCATED when the bytes end first, GPX_E_HEADER
 * when it is longer than 5 bytes, above 2^32 - 1, or ends with a
 * redundant group (a final 0x00 after others).
 */
static inline gpx_status
gpx_varint_get(const uint8_t *buf, size_t len, size_t *pos, uint32_t *v)
{
	uint64_t	r = 0;
	uint32_t	i;

	for (i = 0; i < GPX_VARINT_MAX; i++)
	{
		uint8_t		c;

		if (*pos >= len)
			return GPX_E_TRUNCATED;
		c = buf[(*pos)++];
		r |= (uint64_t) (c & 0x7F) << (7 * i);
		if ((c & 0x80) == 0)
		{
			if ((c == 0 && i > 0) || r > UINT32_MAX)
				return GPX_E_HEADER;
			*v = (uint32_t) r;
			return GPX_OK;
		}
	}
	return GPX_E_HEADER;
}

/* ------------------------------------------------- bounded bit reads -- */

/*
 * Little-endian 64 bits at p[pos..pos+8), bytes at or past plen read as 0
 * (pos < plen or not): a reader of a byte-granular payload never touches
 * memory past its end.
 */
static inline uint64_t
gpx_load64_tail(const uint8_t *p, size_t plen, size_t pos)
{
	uint64_t	v = 0;

	if (pos + 8 <= plen)
	{
#if GPX_FAST_BITS
		memcpy(&v, p + pos, 8);
#else
		for (int i = 7; i >= 0; i--)
			v = (v << 8) | p[pos + i];
#endif
		return v;
	}
	for (size_t i = plen; i > pos; i--)
		v = (v << 8) | p[i - 1];
	return v;
}

/* `width` (0..32) bits at bit position bitpos of p[0..plen), bounded. */
static inline uint32_t
gpx_bits_tail(const uint8_t *p, size_t plen, uint64_t bitpos, uint32_t width)
{
	if (width == 0)
		return 0;
	return (uint32_t) (gpx_load64_tail(p, plen, (size_t) (bitpos >> 3)) >>
					   (bitpos & 7)) & gpx_mask(width);
}

/*
 * Bytes of a block copied with 8 zero bytes of slack (EF and bitmap blocks
 * at the payload's end): the largest Elias-Fano block (255 values of 32
 * bits) plus a word of padding.
 */
#define GPX_SLACK_COPY	1040

/*
 * Block k's bytes with 8 readable bytes past its end, for unchecked 8-byte
 * loads: in place when the payload has them (*bit = k->bit), else copied
 * into tmp (GPX_SLACK_COPY + 16 bytes) and zero-padded (*bit relative to
 * tmp); NULL when the block is too large to copy.
 */
static inline const uint8_t *
gpx_blk_slack(const gpx_blk *k, uint8_t *tmp, uint64_t *bit)
{
	size_t		b0 = (size_t) (k->bit >> 3),
				len;

	if ((k->end >> 3) + 8 <= k->plen)
	{
		*bit = k->bit;
		return k->p;
	}
	len = k->plen - b0;
	if (len > GPX_SLACK_COPY)
		return NULL;
	memcpy(tmp, k->p + b0, len);
	memset(tmp + len, 0, 16);
	*bit = k->bit & 7;
	return tmp;
}

/* ------------------------------------------------------ bit writers -- */

/*
 * Bit fields written LSB-first from any bit of a packed array (gpx_bits.h's
 * layout) that is zero from that bit on, through a 64-bit accumulator:
 * each full word is OR-ed into memory (the first may hold earlier bits),
 * so the result is that of gpx_put_bits field by field, at a load and a
 * store per word instead of per field.
 */
typedef struct gpx_bitw
{
	uint8_t    *words;
	uint64_t	w;				/* word the accumulator's bit 0 belongs to */
	uint64_t	acc;
	uint32_t	have;			/* bits of word w written or skipped, < 32 */
} gpx_bitw;

/* Start writing at bit `bit` of words. */
static inline void
gpx_bitw_init(gpx_bitw *s, uint8_t *words, uint64_t bit)
{
	s->words = words;
	s->w = bit >> 5;
	s->acc = 0;
	s->have = (uint32_t) (bit & 31);
}

/* Append the low `width` bits (width <= 32) of v < 2^width. */
static inline void
gpx_bitw_put(gpx_bitw *s, uint32_t v, uint32_t width)
{
	s->acc |= (uint64_t) v << s->have;
	s->have += width;
	if (s->have >= 32)
	{
		uint8_t    *q = s->words + 4 * s->w;

		gpx_store32(q, gpx_load32(q) | (uint32_t) s->acc);
		s->w++;
		s->acc >>= 32;
		s->have -= 32;
	}
}

/* OR the bits still held into memory. */
static inline void
gpx_bitw_flush(gpx_bitw *s)
{
	if (s->acc != 0)
	{
		uint8_t    *q = s->words + 4 * s->w;

		gpx_store32(q, gpx_load32(q) | (uint32_t) s->acc);
		s->acc = 0;
	}
}

/*
 * Single one bits set at increasing positions of a packed array, zero
 * from the first position's word on but for bits already in that word:
 * the current word is kept in a register and stored whole after every
 * bit (no branch and no load per bit; a new word starts from zero).
 */
typedef struct gpx_onesw
{
	uint8_t    *words;
	uint64_t	w;				/* the word acc holds */
	uint32_t	acc;
} gpx_onesw;

/* Start at bit `from` (no bit before it will be set). */
static inline void
gpx_onesw_init(gpx_onesw *s, uint8_t *words, uint64_t from)
{
	s->words = words;
	s->w = from >> 5;
	s->acc = gpx_load32(words + 4 * s->w);
}

/* Set bit `bit` (not below the last one set, nor below `from`). */
static inline void
gpx_onesw_set(gpx_onesw *s, uint64_t bit)
{
	uint64_t	w = bit >> 5;

	s->acc = (w == s->w ? s->acc : 0) | (1u << (bit & 31));
	s->w = w;
	gpx_store32(s->words + 4 * w, s->acc);
}

/* ------------------------------------------------------ block forms -- */

/* PFor block (gpx_pfor.c): b, e, hb header bits, LOW, POS, HIGH. */
uint32_t	gpx_pfor_blk_decode(const gpx_blk *k, uint32_t *out);
uint32_t	gpx_pfor_blk_nth(const gpx_blk *k, uint32_t j);
uint32_t	gpx_pfor_blk_lower_bound(const gpx_blk *k, uint32_t x, uint32_t *val);
/* Check a block that must fill [bit, end) exactly; values to scratch. */
gpx_status	gpx_pfor_blk_check(const gpx_blk *k, uint32_t *scratch);
/* Bytes block k takes by its header (0 if that is not readable or sane). */
uint64_t	gpx_pfor_blk_bytes(const gpx_blk *k);
/* Words of the smallest PFor block for d[0..cnt); *hdr its header word. */
uint64_t	gpx_pfor_blk_plan(const uint32_t *d, uint32_t cnt, uint32_t *hdr);
/* Write that block at word wpos of the zeroed payload. */
void		gpx_pfor_blk_write(uint8_t *payload, uint64_t wpos, const uint32_t *d,
							   uint32_t cnt, uint32_t hdr);

/* LRC segment (gpx_lrc.c): base, slope, maxdev words, deviations. */
typedef struct gpx_lrc_plan
{
	int64_t		base;
	uint32_t	slope_q;
	uint32_t	maxdev;
	uint64_t	words;
} gpx_lrc_plan;
uint32_t	gpx_lrc_blk_decode(const gpx_blk *k, uint32_t *out);
uint32_t	gpx_lrc_blk_nth(const gpx_blk *k, uint32_t j);
uint32_t	gpx_lrc_blk_lower_bound(const gpx_blk *k, uint32_t x, uint32_t *val);
gpx_status	gpx_lrc_blk_check(const gpx_blk *k, uint32_t *scratch);
uint64_t	gpx_lrc_blk_bytes(const gpx_blk *k);
void		gpx_lrc_blk_plan(const uint32_t *d, uint32_t cnt, gpx_lrc_plan *pl);
void		gpx_lrc_blk_write(uint8_t *payload, uint64_t wpos, const uint32_t *d,
							  uint32_t cnt, const gpx_lrc_plan *pl);

/* Version 2 Elias-Fano block (gpx_ef.c). */
uint32_t	gpx_ef_blk_decode(const gpx_blk *k, uint32_t *out);
uint32_t	gpx_ef_blk_nth(const gpx_blk *k, uint32_t j);
uint32_t	gpx_ef_blk_lower_bound(const gpx_blk *k, uint32_t x, uint32_t *val);
/*
 * Check a block whose bits after the last element are zero up to end, with
 * at most max_pad bytes after the byte holding the last element's bit (0
 * for a one-block list, whose last docID is read from its final byte; 3
 * for blocks of a directory, padded to a word); values to scratch.
 * GPX_E_TRUNCATED: fewer elements than cnt; GPX_E_TRAILING: more padding
 * (the caller makes them GPX_E_PAYLOAD inside a list); the bitmap block's
 * check says the same.
 */
gpx_status	gpx_ef_blk_check(const gpx_blk *k, uint32_t max_pad, uint32_t *scratch);
/* Bits of the smallest EF block for d[0..cnt) (0 for cnt 1), *b its b. */
uint64_t	gpx_ef_blk_plan(const uint32_t *d, uint32_t cnt, uint32_t *b);
/* Write it at bit `bit` of the zeroed p. */
void		gpx_ef_blk_write(uint8_t *p, uint64_t bit, const uint32_t *d,
							 uint32_t cnt, uint32_t b);
/* Last element of a one-block list from its final byte (gpx_open). */
gpx_status	gpx_ef_blk_last(const gpx_blk *k, uint32_t *last);

/* Version 2 bitmap block (gpx_bitmap.c). */
uint32_t	gpx_bm_blk_decode(const gpx_blk *k, uint32_t *out);
uint32_t	gpx_bm_blk_nth(const gpx_blk *k, uint32_t j);
uint32_t	gpx_bm_blk_lower_bound(const gpx_blk *k, uint32_t x, uint32_t *val);
bool		gpx_bm_blk_contains(const gpx_blk *k, uint32_t x);
/* The first element >= x (first < x), without its rank; false if none. */
bool		gpx_bm_blk_next(const gpx_blk *k, uint32_t x, uint32_t *val);
gpx_status	gpx_bm_blk_check(const gpx_blk *k, uint32_t max_pad, uint32_t *scratch);
/* Bits of the bitmap block of d[0..cnt). */
uint64_t	gpx_bm_blk_plan(const uint32_t *d, uint32_t cnt);
void		gpx_bm_blk_write(uint8_t *p, uint64_t bit, const uint32_t *d,
							 uint32_t cnt);
gpx_status	gpx_bm_blk_last(const gpx_blk *k, uint32_t *last);

/* ------------------------------------------------ version 1 codecs -- */

/*
 * A version 1 codec: the whole-list encoder and validator (they keep the
 * 0.1 rules and statuses); decoding goes through the block forms.
 */
typedef struct gpx_codec_ops
{
	uint8_t		id;
	uint8_t		log2_block;
	const char *name;
	/* Upper bound of the v1 blob size for n docIDs ending at last. */
	size_t		(*encode_bound) (uint32_t n, uint32_t last);

	/*
	 * Write the whole v1 blob.  docs are already checked sorted and in
	 * range, n >= 1, cap >= encode_bound(n, last), out[0..cap) zeroed.
	 */
	gpx_status	(*encode) (const uint32_t *docs, uint32_t n,
						   uint8_t *out, size_t cap, size_t *outlen);

	/*
	 * Validate codec-specific header fields and the payload of a v1 blob
	 * whose common header and directory checks passed (gpx_open: sizes
	 * consistent, directory firsts strictly increasing, dir[0].first ==
	 * first, all dir firsts <= last), block by block through
	 * gpx_check_block.  scratch: GPX_MAX_BLOCK.
	 */
	gpx_status	(*validate) (const gpx_list *l, uint32_t *scratch);
} gpx_codec_ops;

extern const gpx_codec_ops gpx_pfor_ops;
extern const gpx_codec_ops gpx_lrc_ops;
extern const gpx_codec_ops gpx_qs_ops;

/* Operations for a codec id, or NULL. */
const gpx_codec_ops *gpx_ops(int codec);

/* v1 qs blocks (gpx_qs.c): read through the list. */
uint32_t	gpx_qs1_decode_block(const gpx_list *l, uint32_t blk, uint32_t *out);
uint32_t	gpx_qs1_nth(const gpx_list *l, uint32_t i);
uint32_t	gpx_qs1_block_lower_bound(const gpx_list *l, uint32_t blk,
									  uint32_t x, uint32_t *val);

/* ------------------------------------------------- list geometry -- */

/* Number of blocks for n elements in blocks of 1 << log2_block. */
static inline uint32_t
gpx_nblocks_for(uint32_t n, uint32_t log2_block)
{
	return (uint32_t) (((uint64_t) n + (1u << log2_block) - 1) >> log2_block);
}

/* Byte offset of the payload inside a v1 blob with nblocks blocks. */
static inline size_t
gpx_payload_offset(uint32_t nblocks)
{
	return GPX_V1_HEADER_SIZE + (size_t) nblocks * GPX_DIR_ENTRY_SIZE;
}

/*
 * First docID of block b, straight from the directory (hot paths); a v2
 * list of one block has no directory: its first is the list's.
 */
static inline uint32_t
gpx_dir_first_at(const gpx_list *l, uint32_t b)
{
	if (l->dir == NULL)
		return l->first;
	return gpx_load32(l->dir + (size_t) b * l->dir_stride);
}

/* The stored 32-bit offset / loc of block b (0 without a directory). */
static inline uint32_t
gpx_dir_loc_at(const gpx_list *l, uint32_t b)
{
	if (l->dir == NULL)
		return 0;
	return gpx_load32(l->dir + (size_t) b * l->dir_stride + 4);
}

/* Element count of block b (hot paths). */
static inline uint32_t
gpx_block_count_at(const gpx_list *l, uint32_t b)
{
	return b + 1 < l->nblocks ? 1u << l->log2_block :
		l->n - (b << l->log2_block);
}

/* The form of a v2 kind in a list of codec (GPX_FORM_NONE if invalid). */
static inline gpx_form
gpx_kind_form(int codec, uint32_t kind)
{
	switch (kind)
	{
		case GPX_KIND_EF:
			return GPX_FORM_EF;
		case GPX_KIND_BITMAP:
			return GPX_FORM_BITMAP;
		case GPX_KIND_OWN:
			return codec == GPX_CODEC_PFOR ? GPX_FORM_PFOR :
				codec == GPX_CODEC_LRC ? GPX_FORM_LRC : GPX_FORM_NONE;
	}
	return GPX_FORM_NONE;
}

/* The form of block b (of a list gpx_open accepted). */
static inline gpx_form
gpx_form_at(const gpx_list *l, uint32_t b)
{
	if (l->version == GPX_FORMAT_V1)
		return l->codec == GPX_CODEC_PFOR ? GPX_FORM_PFOR :
			l->codec == GPX_CODEC_LRC ? GPX_FORM_LRC : GPX_FORM_QS1;
	if (l->dir == NULL)
		return gpx_kind_form(l->codec, l->kind0);
	return gpx_kind_form(l->codec, gpx_dir_loc_at(l, b) & 3u);
}

/* Locate block b of a list gpx_open accepted. */
static inline void
gpx_blk_at(const gpx_list *l, uint32_t b, gpx_blk *k)
{
	uint64_t	pbits = (uint64_t) l->payload_bytes * 8;

	k->p = l->payload;
	k->plen = l->payload_bytes;
	k->first = gpx_dir_first_at(l, b);
	k->cnt = gpx_block_count_at(l, b);
	k->form = (uint8_t) gpx_form_at(l, b);
	if (l->version == GPX_FORMAT_V1)
	{
		/* pfor, lrc: word offsets; qs blocks are read through the list */
		k->bit = (uint64_t) gpx_dir_loc_at(l, b) * 32;
		k->end = b + 1 < l->nblocks ? (uint64_t) gpx_dir_loc_at(l, b + 1) * 32 : pbits;
	}
	else if (l->dir == NULL)
	{
		k->bit = 0;
		k->end = pbits;
	}
	else
	{
		k->bit = (uint64_t) (gpx_dir_loc_at(l, b) >> 2) * 8;
		k->end = b + 1 < l->nblocks ? (uint64_t) (gpx_dir_loc_at(l, b + 1) >> 2) * 8 : pbits;
	}
}

/*
 * Last block b >= from with dir_first(b) <= x, or from if there is none:
 * gallop forward through the directory, then binary search.
 */
static inline uint32_t
gpx_dir_gallop(const gpx_list *l, uint32_t from, uint32_t x)
{
	uint32_t	nb = l->nblocks,
				lo,
				hi,
				step = 1;

	if (from + 1 >= nb || gpx_dir_first_at(l, from + 1) > x)
		return from;
	lo = from + 1;
	for (;;)
	{
		uint64_t	p = (uint64_t) lo + step;

		if (p >= nb)
		{
			hi = nb;
			break;
		}
		if (gpx_dir_first_at(l, (uint32_t) p) > x)
		{
			hi = (uint32_t) p;
			break;
		}
		lo = (uint32_t) p;
		step <<= 1;
	}
	while (hi - lo > 1)
	{
		uint32_t	mid = lo + (hi - lo) / 2;

		if (gpx_dir_first_at(l, mid) <= x)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The version 2 writer's parts for gpx_append (gpx_encode.c): the header
 * of a list with a directory (written at out with its padding; returns
 * the directory's offset), and the default encoder's blocks k0, k0 + 1, ...
 * of such a list: docs[0..n) from block k0's first docID on, block k0
 * starting at byte *off of the payload (zeroed from there on, room bytes
 * writable), entries written at dir + 8 k; *off becomes the payload's end
 * padded to a word.  gpx_enc_v2_tail_bound: the room that always suffices
 * for n docIDs ending at last.  With the blocks before k0 as gpx_encode
 * wrote them, the blob is byte for byte what gpx_encode writes.
 */
size_t		gpx_enc_v2_dir_header(uint8_t *out, int codec, uint32_t n,
								  uint32_t first, uint32_t last);
gpx_status	gpx_enc_v2_tail(int codec, const uint32_t *docs, uint32_t n,
							uint32_t k0, uint8_t *dir, uint8_t *payload,
							size_t room, uint64_t *off);
uint64_t	gpx_enc_v2_tail_bound(int codec, uint32_t n, uint32_t last);

/* Write the 32-byte v1 header at out. */
void		gpx_write_header(uint8_t *out, int codec, uint32_t log2_block,
							 uint32_t param, uint32_t n, uint32_t first,
							 uint32_t last, uint32_t nblocks,
							 uint32_t payload_bytes);

/* Write directory entry k of a v1 blob whose header is at out. */
void		gpx_write_dir(uint8_t *out, uint32_t k, uint32_t first,
						  uint32_t offset);

/*
 * Check a decoded block: cnt values strictly increasing, vals[0] ==
 * dir_first(blk), below dir_first(blk+1) or equal to last at the end.
 */
gpx_status	gpx_check_block(const gpx_list *l, uint32_t blk,
							const uint32_t *vals, uint32_t cnt);

/* Decode block blk of l into out (GPX_MAX_BLOCK slots); its count. */
static inline uint32_t gpx_blk_decode_at(const gpx_list *l, uint32_t blk,
										 uint32_t *out);

/* Index in block blk of the first element >= x (dir_first(blk) <= x). */
static inline uint32_t gpx_blk_lower_bound_at(const gpx_list *l, uint32_t blk,
											  uint32_t x, uint32_t *val);

/* Decode a located block. */
static inline uint32_t
gpx_blk_decode(const gpx_list *l, uint32_t blk, const gpx_blk *k, uint32_t *out)
{
	switch (k->form)
	{
		case GPX_FORM_PFOR:
			return gpx_pfor_blk_decode(k, out);
		case GPX_FORM_LRC:
			return gpx_lrc_blk_decode(k, out);
		case GPX_FORM_EF:
			return gpx_ef_blk_decode(k, out);
		case GPX_FORM_BITMAP:
			return gpx_bm_blk_decode(k, out);
		default:
			return gpx_qs1_decode_block(l, blk, out);
	}
}

static inline uint32_t
gpx_blk_decode_at(const gpx_list *l, uint32_t blk, uint32_t *out)
{
	gpx_blk		k;

	gpx_blk_at(l, blk, &k);
	return gpx_blk_decode(l, blk, &k, out);
}

static inline uint32_t
gpx_blk_lower_bound_at(const gpx_list *l, uint32_t blk, uint32_t x,
					   uint32_t *val)
{
	gpx_blk		k;

	gpx_blk_at(l, blk, &k);
	switch (k.form)
	{
		case GPX_FORM_PFOR:
			return gpx_pfor_blk_lower_bound(&k, x, val);
		case GPX_FORM_LRC:
			return gpx_lrc_blk_lower_bound(&k, x, val);
		case GPX_FORM_EF:
			return gpx_ef_blk_lower_bound(&k, x, val);
		case GPX_FORM_BITMAP:
			return gpx_bm_blk_lower_bound(&k, x, val);
		default:
			return gpx_qs1_block_lower_bound(l, blk, x, val);
	}
}

#endif							/* GPX_INTERNAL_H */
