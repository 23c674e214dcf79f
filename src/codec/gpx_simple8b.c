/*
 * gpx_simple8b.c - Simple-8b encoding (left-greedy and optimal packing),
 * validation and decoding of term-frequency blocks; the format is
 * described in gpx_simple8b.h.
 *
 * Optimal packing (Trotman, Albert, Burgess, ICTIR 2015, Section 3.2):
 * cost[i] is the fewest words that hold values i..count-1 of the block,
 * cost[count] = 0 and cost[i] = 1 + min over the selectors s that fit at
 * i of cost[i + count(s)], computed right to left; then the words are
 * written left to right following the recorded choices.  A selector fits
 * at i when its count does not run past the block's end and every one of
 * its values has at most its width in bits.  Ties go to the selector with
 * more values (the same word count either way).  Left-greedy takes the
 * fitting selector with the most values at each step.  Both are O(count)
 * with at most 60 width checks per position: counts above 60 are the
 * zero-width runs, decided by the run length of zero fields starting at i.
 */
#include <string.h>

#include "gpx_simple8b.h"

/* Bits 0..59 of a word (the payload). */
#define S8B_PAYLOAD_MASK ((1ull << 60) - 1)

/* Check the encoder's arguments that do not depend on the values. */
static gpx_status
s8b_check_args(uint32_t base, gpx_s8b_packing pack)
{
	if (base > GPX_S8B_MAX_VALUE)
		return GPX_E_ARG;
	if (pack != GPX_S8B_GREEDY && pack != GPX_S8B_OPTIMAL)
		return GPX_E_ARG;
	return GPX_OK;
}

/*
 * The selectors that fit at position i of a block of `count` fields whose
 * bit widths are wid[] and zero-run lengths zrun[], as a bit mask (bit s
 * for selector s).  Never empty: selector 15 holds any one value.
 */
static uint32_t
s8b_fit_mask(const uint8_t *wid, const uint16_t *zrun, uint32_t i,
			 uint32_t count)
{
	uint32_t	mask = 0,
				runmax = 0,
				len = 0;

	if (zrun[i] >= 240)
		mask |= 1u << 0;
	if (zrun[i] >= 120)
		mask |= 1u << 1;
	/* selectors 15 down to 2: counts 1..60 rising, widths 60..1 falling */
	for (uint32_t s = 15; s >= 2; s--)
	{
		uint32_t	c = gpx_s8b_count(s);

		if (i + c > count)
			break;
		while (len < c)
		{
			if (wid[i + len] > runmax)
				runmax = wid[i + len];
			len++;
		}
		if (runmax > gpx_s8b_width(s))
			break;				/* the wider counts have narrower fields */
		mask |= 1u << s;
	}
	return mask;
}

/* Write the word of selector s holding vals[0..count(s)) - base at out. */
static void
s8b_put_word(uint8_t *out, uint32_t s, const uint32_t *vals, uint32_t base)
{
	uint64_t	w = (uint64_t) s << 60;
	uint32_t	wd = gpx_s8b_width(s),
				c = gpx_s8b_count(s);

	if (wd > 0)
		for (uint32_t j = 0; j < c; j++)
			w |= (uint64_t) (vals[j] - base) << (j * wd);
	memcpy(out, &w, 8);
}

/* Encode one block (see gpx_s8b_encode_block); arguments already checked. */
static gpx_status
s8b_encode_block(const uint32_t *vals, uint32_t count, uint32_t base,
				 gpx_s8b_packing pack, uint8_t *out, size_t cap, size_t *outlen)
{
	uint8_t		wid[GPX_S8B_MAX_BLOCK];
	uint16_t	zrun[GPX_S8B_MAX_BLOCK + 1];
	uint16_t	cost[GPX_S8B_MAX_BLOCK + 1];
	uint8_t		choice[GPX_S8B_MAX_BLOCK];
	size_t		pos = 0;

	*outlen = 0;
	for (uint32_t i = 0; i < count; i++)
	{
		if (vals[i] < base || vals[i] > GPX_S8B_MAX_VALUE)
			return GPX_E_RANGE;
		wid[i] = (uint8_t) gpx_bitwidth(vals[i] - base);
	}
	zrun[count] = 0;
	for (uint32_t i = count; i-- > 0;)
		zrun[i] = wid[i] == 0 ? (uint16_t) (zrun[i + 1] + 1) : 0;

	if (pack == GPX_S8B_OPTIMAL)
	{
		cost[count] = 0;
		for (uint32_t i = count; i-- > 0;)
		{
			uint32_t	mask = s8b_fit_mask(wid, zrun, i, count),
						best = UINT32_MAX,
						bs = 15;

			for (uint32_t s = 0; s < 16; s++)
				if ((mask >> s) & 1)
				{
					uint32_t	c = 1u + cost[i + gpx_s8b_count(s)];

					if (c < best)
					{
						best = c;
						bs = s;
					}
				}
			cost[i] = (uint16_t) best;
			choice[i] = (uint8_t) bs;
		}
	}
	for (uint32_t i = 0; i < count;)
	{
		uint32_t	s;

		if (pack == GPX_S8B_OPTIMAL)
			s = choice[i];
		else
			s = (uint32_t) __builtin_ctz(s8b_fit_mask(wid, zrun, i, count));
		if (cap - pos < 8)
			return GPX_E_NOSPACE;
		s8b_put_word(out + pos, s, vals + i, base);
		pos += 8;
		i += gpx_s8b_count(s);
	}
	*outlen = pos;
	return GPX_OK;
}

/* Upper bound of the encoding of n values (one word per value). */
size_t
gpx_s8b_encode_bound(uint32_t n)
{
	return (size_t) n * GPX_S8B_WORD_BYTES;
}

/* Encode one block of count values (see gpx_simple8b.h). */
gpx_status
gpx_s8b_encode_block(const uint32_t *vals, uint32_t count, uint32_t base,
					 gpx_s8b_packing pack, uint8_t *out, size_t cap,
					 size_t *outlen)
{
	gpx_status	st;

	if (outlen == NULL)
		return GPX_E_ARG;
	*outlen = 0;
	if ((st = s8b_check_args(base, pack)) != GPX_OK)
		return st;
	if (count > GPX_S8B_MAX_BLOCK || (count > 0 && (vals == NULL || out == NULL)))
		return GPX_E_ARG;
	return s8b_encode_block(vals, count, base, pack, out, cap, outlen);
}

/* Encode n values in blocks of `block` (see gpx_simple8b.h). */
gpx_status
gpx_s8b_encode(const uint32_t *vals, uint32_t n, uint32_t block,
			   uint32_t base, gpx_s8b_packing pack,
			   uint8_t *out, size_t cap, size_t *outlen)
{
	gpx_status	st;
	size_t		pos = 0;

	if (outlen == NULL)
		return GPX_E_ARG;
	*outlen = 0;
	if ((st = s8b_check_args(base, pack)) != GPX_OK)
		return st;
	if (block == 0 || block > GPX_S8B_MAX_BLOCK || (n > 0 && (vals == NULL || out == NULL)))
		return GPX_E_ARG;
	for (uint32_t i = 0; i < n; i += block)
	{
		uint32_t	cnt = n - i < block ? n - i : block;
		size_t		len;

		st = s8b_encode_block(vals + i, cnt, base, pack, out + pos, cap - pos, &len);
		if (st != GPX_OK)
			return st;
		pos += len;
		if (n - i <= block)
			break;				/* i + block could wrap at n near 2^32 */
	}
	*outlen = pos;
	return GPX_OK;
}

/* Check one block (see gpx_simple8b.h); base already checked. */
static gpx_status
s8b_validate_block(const uint8_t *buf, size_t len, uint32_t count,
				   uint32_t base, size_t *used)
{
	uint64_t	maxfield = GPX_S8B_MAX_VALUE - base;
	size_t		pos = 0;
	uint32_t	got = 0;

	*used = 0;
	while (got < count)
	{
		uint64_t	w;
		uint32_t	s,
					c,
					wd;

		if (len - pos < 8)
			return GPX_E_TRUNCATED;
		w = gpx_s8b_load(buf + pos);
		s = gpx_s8b_selector(w);
		c = gpx_s8b_count(s);
		wd = gpx_s8b_width(s);
		if (c > count - got)
			return GPX_E_PAYLOAD;	/* the word runs past the block's end */
		if (wd == 0)
		{
			if ((w & S8B_PAYLOAD_MASK) != 0)
				return GPX_E_PAYLOAD;	/* a run with payload bits */
		}
		else
		{
			uint32_t	bits = c * wd;

			if (bits < 60 && ((w & S8B_PAYLOAD_MASK) >> bits) != 0)
				return GPX_E_PAYLOAD;	/* bits above the fields */
			if (((1ull << wd) - 1) > maxfield)
				for (uint32_t j = 0; j < c; j++)
					if (gpx_s8b_field(w, s, j) > maxfield)
						return GPX_E_PAYLOAD;	/* value above the maximum */
		}
		got += c;
		pos += 8;
	}
	*used = pos;
	return GPX_OK;
}

/* Check one block of count values (see gpx_simple8b.h). */
gpx_status
gpx_s8b_validate_block(const uint8_t *buf, size_t len, uint32_t count,
					   uint32_t base, size_t *used)
{
	if (used == NULL)
		return GPX_E_ARG;
	*used = 0;
	if (base > GPX_S8B_MAX_VALUE || (len > 0 && buf == NULL))
		return GPX_E_ARG;
	return s8b_validate_block(buf, len, count, base, used);
}

/* Check a whole section of n values in blocks of `block` (see gpx_simple8b.h). */
gpx_status
gpx_s8b_validate(const uint8_t *buf, size_t len, uint32_t n, uint32_t block,
				 uint32_t base)
{
	size_t		pos = 0;

	if (block == 0 || base > GPX_S8B_MAX_VALUE || (len > 0 && buf == NULL))
		return GPX_E_ARG;
	for (uint32_t i = 0; i < n; i += block)
	{
		uint32_t	cnt = n - i < block ? n - i : block;
		size_t		used;
		gpx_status	st = s8b_validate_block(buf + pos, len - pos, cnt, base, &used);

		if (st != GPX_OK)
			return st;
		pos += used;
		if (n - i <= block)
			break;
	}
	return pos == len ? GPX_OK : GPX_E_TRAILING;
}

/*
 * Unpack the n fields of width wd of word w, plus base, into out; fully
 * unrolled (constant shifts: 1.2x the decode speed of the rolled loop in
 * test/bench/bench_tf.c).
 */
#define S8B_UNPACK(n, wd) \
	do { \
		_Pragma("GCC unroll 64") \
		for (uint32_t j = 0; j < (n); j++) \
			out[j] = (uint32_t) ((w >> (j * (wd))) & ((1ull << (wd)) - 1)) + base; \
	} while (0)

/*
 * Decode one word into out (count(selector) values); returns the count.
 * One case per selector, so that counts, shifts and masks are constants.
 */
static inline uint32_t
s8b_decode_word(uint64_t w, uint32_t base, uint32_t *out)
{
	switch (gpx_s8b_selector(w))
	{
		case 0:
			for (uint32_t j = 0; j < 240; j++)
				out[j] = base;
			return 240;
		case 1:
			for (uint32_t j = 0; j < 120; j++)
				out[j] = base;
			return 120;
		case 2:
			S8B_UNPACK(60, 1);
			return 60;
		case 3:
			S8B_UNPACK(30, 2);
			return 30;
		case 4:
			S8B_UNPACK(20, 3);
			return 20;
		case 5:
			S8B_UNPACK(15, 4);
			return 15;
		case 6:
			S8B_UNPACK(12, 5);
			return 12;
		case 7:
			S8B_UNPACK(10, 6);
			return 10;
		case 8:
			S8B_UNPACK(8, 7);
			return 8;
		case 9:
			S8B_UNPACK(7, 8);
			return 7;
		case 10:
			S8B_UNPACK(6, 10);
			return 6;
		case 11:
			S8B_UNPACK(5, 12);
			return 5;
		case 12:
			S8B_UNPACK(4, 15);
			return 4;
		case 13:
			S8B_UNPACK(3, 20);
			return 3;
		case 14:
			S8B_UNPACK(2, 30);
			return 2;
		default:
			out[0] = (uint32_t) (w & S8B_PAYLOAD_MASK) + base;
			return 1;
	}
}

/* Decode the block of count values at buf into out (see gpx_simple8b.h). */
size_t
gpx_s8b_decode_block(const uint8_t *buf, uint32_t count, uint32_t base,
					 uint32_t *out)
{
	size_t		pos = 0;
	uint32_t	got = 0;

	while (got < count)
	{
		got += s8b_decode_word(gpx_s8b_load(buf + pos), base, out + got);
		pos += 8;
	}
	return pos;
}

/* Values at sorted positions of a block (see gpx_simple8b.h). */
void
gpx_s8b_select_block(const uint8_t *buf, uint32_t base, const uint32_t *pos,
					 uint32_t n, uint32_t *out)
{
	uint64_t	w;
	uint32_t	s,
				start = 0,		/* position of the word's first value */
				end;			/* one past its last */

	if (n == 0)
		return;
	w = gpx_s8b_load(buf);
	s = gpx_s8b_selector(w);
	end = gpx_s8b_count(s);
	for (uint32_t i = 0; i < n; i++)
	{
		while (pos[i] >= end)
		{
			buf += GPX_S8B_WORD_BYTES;
			w = gpx_s8b_load(buf);
			s = gpx_s8b_selector(w);
			start = end;
			end += gpx_s8b_count(s);
		}
		out[i] = (uint32_t) gpx_s8b_field(w, s, pos[i] - start) + base;
	}
}

/* Decode a whole section: its blocks are consecutive whole words. */
size_t
gpx_s8b_decode(const uint8_t *buf, uint32_t n, uint32_t base, uint32_t *out)
{
	return gpx_s8b_decode_block(buf, n, base, out);
}

/* Byte length of the block of count values at buf (see gpx_simple8b.h). */
size_t
gpx_s8b_block_bytes(const uint8_t *buf, uint32_t count)
{
	size_t		pos = 0;
	uint32_t	got = 0;

	while (got < count)
	{
		got += gpx_s8b_count(gpx_s8b_selector(gpx_s8b_load(buf + pos)));
		pos += 8;
	}
	return pos;
}
