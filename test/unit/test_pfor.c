/*
 * test_pfor.c - posting_pfor specific unit tests: round trips that exercise
 * b = 0 blocks, exceptions and 31-bit gaps, optimality of the chosen bit
 * width, every codec-specific rejection branch of the validator on
 * hand-crafted blocks, random corruption (run under ASan to catch
 * over-reads), and the bits/docID of a uniform random list.
 *
 * Needs the codec core sources and the shared harness (unit.h):
 *   cc -O2 -Wall -Wextra -Isrc/codec -Itest/ref -Itest/unit test/unit/test_pfor.c \
 *      src/codec/gpx_*.c test/ref/gpx_ref.c test/unit/unit.c -lm -lpthread
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "gpx_internal.h"
#include "unit.h"

/*
 * This file tests the version 1 format (values written by gpuidx 0.1, read
 * forever): every encode here writes version 1.  Version 2 has
 * test_format2.c; the codec-independent suites run on both.
 */
static const gpx_encode_opts v1_opts = {GPX_FORMAT_V1, 0};
#define gpx_encode(c, d, n, o, cap, len) gpx_encode_ex(c, d, n, &v1_opts, o, cap, len)
#define gpx_encode_bound(c, n, last) gpx_encode_bound_ex(c, n, last, &v1_opts)

static uint32_t scratch[GPX_MAX_BLOCK];

/* Payload layout constants, as documented in gpx_pfor.c. */
#define HDR_BITS 19
#define POS_BITS 7

/* Deterministic generator (splitmix64, the shared unit_rng). */
static unit_rng rng = {12345};

/* Next 64 random bits. */
static uint64_t
rnd(void)
{
	return unit_next(&rng);
}

/* Uniform value in [0, bound). */
static uint32_t
rnd_below(uint64_t bound)
{
	return unit_below(&rng, bound);
}

/* Copy len bytes into an exact-size heap buffer (ASan sees over-reads). */
static uint8_t *
exact_copy(const uint8_t *src, size_t len)
{
	uint8_t    *p = unit_xmalloc(len);

	memcpy(p, src, len);
	return p;
}

/* Smallest block size in words over all b, by brute force from the gaps. */
static uint64_t
best_words(const uint32_t *g, uint32_t m)
{
	uint32_t	mx = 0,
				i,
				b;
	uint64_t	best = UINT64_MAX;

	for (i = 0; i < m; i++)
		if (gpx_bitwidth(g[i]) > mx)
			mx = gpx_bitwidth(g[i]);
	for (b = 0; b <= 32; b++)
	{
		uint64_t	e = 0,
					bits,
					w;

		for (i = 0; i < m; i++)
			if (b < 32 && (g[i] >> b) != 0)
				e++;
		bits = HDR_BITS + (uint64_t) m * b + (e ? e * (POS_BITS + mx - b) : 0);
		w = (bits + 31) / 32;
		if (w < best)
			best = w;
	}
	return best;
}

/* Totals of the block headers of a blob, for checks on the chosen widths. */
typedef struct blkstats
{
	uint32_t	nb_b0;			/* blocks with b == 0 */
	uint32_t	nb_exc;			/* blocks with exceptions */
	uint32_t	max_b;			/* largest b */
	uint32_t	max_hb;			/* largest hb */
} blkstats;

/*
 * Round trip docs[0..n): validate, decode, nth, lower_bound, contains,
 * cursor; check each block's size is the minimum over b.  Fills *bs.
 */
static void
roundtrip(const char *name, const uint32_t *docs, uint32_t n, blkstats *bs)
{
	size_t		len;
	uint8_t    *blob = unit_encode_exact(GPX_CODEC_PFOR, docs, n, &len);
	uint32_t   *out;
	gpx_list	l;
	gpx_status	st;
	uint32_t	i,
				k,
				bad = 0;
	blkstats	dummy;

	if (bs == NULL)
		bs = &dummy;
	memset(bs, 0, sizeof(*bs));
	if (blob == NULL)
		return;
	st = unit_validate_exact(blob, len);
	CHECKF(st == GPX_OK, "%s: validate: %s", name, gpx_status_str(st));
	CHECK(gpx_open(&l, blob, len) == GPX_OK);
	CHECKF(l.n == n && l.codec == GPX_CODEC_PFOR && l.log2_block == 7 &&
		   l.param == 0, "%s: header", name);
	if (n == 0)
	{
		free(blob);
		return;
	}
	CHECK(l.first == docs[0] && l.last == docs[n - 1]);

	out = unit_xmalloc(sizeof(uint32_t) * (n + GPX_MAX_BLOCK));
	gpx_decode(&l, out);
	for (i = 0; i < n; i++)
		bad += out[i] != docs[i];
	CHECKF(bad == 0, "%s: decode: %u wrong", name, bad);

	/* nth: every element for small lists, a sample otherwise */
	bad = 0;
	for (i = 0; i < n; i += (n <= 20000 ? 1 : 1 + rnd_below(97)))
		bad += gpx_nth(&l, i) != docs[i];
	bad += gpx_nth(&l, n - 1) != docs[n - 1];
	CHECKF(bad == 0, "%s: nth: %u wrong", name, bad);

	/* lower_bound / contains on members, their neighbours and randoms */
	bad = 0;
	for (i = 0; i < n; i += (n <= 20000 ? 1 : 1 + rnd_below(97)))
	{
		uint32_t	v = 0;

		if (gpx_lower_bound(&l, docs[i], &v) != i || v != docs[i])
			bad++;
		if (!gpx_contains(&l, docs[i]))
			bad++;
		if (docs[i] > 0 && (i == 0 || docs[i - 1] != docs[i] - 1))
		{
			if (gpx_contains(&l, docs[i] - 1))
				bad++;
			if (gpx_lower_bound(&l, docs[i] - 1, &v) != i || v != docs[i])
				bad++;
		}
	}
	if (docs[n - 1] < GPX_MAX_DOCID)
		bad += gpx_lower_bound(&l, docs[n - 1] + 1, NULL) != n;
	CHECKF(bad == 0, "%s: lower_bound: %u wrong", name, bad);

	/* cursor over increasing random probes */
	{
		gpx_cursor *c = unit_xmalloc(sizeof(gpx_cursor));
		uint64_t	x = 0;
		uint64_t	step = (uint64_t) (docs[n - 1] - docs[0]) / (n < 5000 ? n : 5000) + 1;

		bad = 0;
		gpx_cursor_init(c, &l);
		while (x <= GPX_MAX_DOCID)
		{
			uint32_t	v = 0;
			bool		found = gpx_cursor_next_geq(c, (uint32_t) x, &v);
			uint32_t	j = ref_lower_bound(docs, n, (uint32_t) x);

			if (found != (j < n) || (found && v != docs[j]))
				bad++;
			if (!found)
				break;
			x += 1 + rnd_below(2 * step);
			if (x < docs[0])	/* skip the empty range below the list */
				x = docs[0] - 1;
		}
		CHECKF(bad == 0, "%s: cursor: %u wrong", name, bad);
		free(c);
	}

	/* each block's size is optimal; collect stats of the header words */
	bad = 0;
	for (k = 0; k < l.nblocks; k++)
	{
		uint32_t	off = gpx_dir_offset(&l, k);
		uint32_t	end = k + 1 < l.nblocks ? gpx_dir_offset(&l, k + 1) :
			l.payload_bytes / 4;
		uint32_t	h = gpx_load32(l.payload + 4 * (size_t) off);
		uint32_t	cnt = gpx_block_count(&l, k);
		uint32_t	g[128];
		uint32_t	b = h & 63,
					e = (h >> 6) & 127,
					hb = (h >> 13) & 63;

		for (i = 0; i + 1 < cnt; i++)
			g[i] = docs[(k << 7) + i + 1] - docs[(k << 7) + i] - 1;
		if (end - off != best_words(g, cnt - 1))
			bad++;
		bs->nb_b0 += b == 0;
		bs->nb_exc += e > 0;
		if (b > bs->max_b)
			bs->max_b = b;
		if (hb > bs->max_hb)
			bs->max_hb = hb;
	}
	CHECKF(bad == 0, "%s: %u blocks not of minimal size", name, bad);
	free(out);
	free(blob);
}

/* ---- hand-crafted single-block blobs ---------------------------------- */

/* A bit writer for crafted payloads. */
typedef struct bitw
{
	uint8_t		buf[4 * 600];
	uint64_t	pos;
} bitw;

/* Append `width` bits of v (width <= 32; v is masked). */
static void
bw_put(bitw *w, uint32_t width, uint64_t v)
{
	gpx_put_bits(w->buf, w->pos, width, (uint32_t) v & gpx_mask(width));
	w->pos += width;
}

/*
 * Write one block: header fields, m LOW fields of b bits (b may be > 32 in
 * a corrupt block: then zero-filled), e positions, e highs of hb bits.
 * Returns the block size in words; the writer is advanced to the next word.
 */
static uint32_t
craft_block(bitw *w, uint32_t b, uint32_t e, uint32_t hb, uint32_t m,
			const uint32_t *low, const uint32_t *pos, const uint32_t *high)
{
	uint64_t	start = w->pos;
	uint32_t	i;

	bw_put(w, 6, b);
	bw_put(w, 7, e);
	bw_put(w, 6, hb);
	for (i = 0; i < m; i++)
	{
		if (b <= 32)
			bw_put(w, b, low ? low[i] : 0);
		else
			w->pos += b;
	}
	for (i = 0; i < e; i++)
		bw_put(w, POS_BITS, pos[i]);
	for (i = 0; i < e; i++)
		bw_put(w, hb > 32 ? 32 : hb, high[i]);
	w->pos = (w->pos + 31) & ~(uint64_t) 31;
	return (uint32_t) ((w->pos - start) / 32);
}

/*
 * Build a one-block blob of n elements (header first/last given) whose
 * payload is the writer's words; returns an exact-size heap copy.
 */
static uint8_t *
craft_blob(uint32_t n, uint32_t first, uint32_t last, const bitw *w,
		   size_t *len)
{
	uint32_t	words = (uint32_t) (w->pos / 32);
	size_t		sz = gpx_payload_offset(1) + 4 * (size_t) words;
	uint8_t    *p = calloc(1, sz);

	gpx_write_header(p, GPX_CODEC_PFOR, 7, 0, n, first, last, 1, words * 4);
	gpx_write_dir(p, 0, first, 0);
	memcpy(p + gpx_payload_offset(1), w->buf, 4 * (size_t) words);
	*len = sz;
	return p;
}

/* Expect a crafted block to validate with status `want`. */
static void
expect_block(const char *name, gpx_status want, uint32_t n, uint32_t first,
			 uint32_t last, uint32_t b, uint32_t e, uint32_t hb,
			 const uint32_t *low, const uint32_t *pos, const uint32_t *high)
{
	bitw	   *w = calloc(1, sizeof(bitw));
	size_t		len;
	uint8_t    *blob;
	gpx_status	st;

	craft_block(w, b, e, hb, n - 1, low, pos, high);
	blob = craft_blob(n, first, last, w, &len);
	st = gpx_validate(blob, len, scratch);
	CHECKF(st == want, "%s: got %s, want %s", name, gpx_status_str(st),
		   gpx_status_str(want));
	free(blob);
	free(w);
}

/* Every codec-specific rejection branch, on crafted single blocks. */
static void
test_crafted(void)
{
	/* valid: first 10, gaps {1, 40, 2, 0}, b = 2, one exception at 1 */
	uint32_t	low[4] = {1, 40 & 3, 2, 0};
	uint32_t	pos1[1] = {1};
	uint32_t	high1[1] = {40 >> 2};
	uint32_t	zero[4] = {0, 0, 0, 0};
	uint32_t	pos_all[4] = {0, 1, 2, 3};
	uint32_t	high_ones[4] = {1, 1, 1, 1};
	uint32_t	pos_unsorted[2] = {3, 1};
	uint32_t	pos_dup[2] = {1, 1};
	uint32_t	pos_sorted[2] = {1, 3};
	uint32_t	pos_m[1] = {4};
	uint32_t	pos_127[1] = {127};
	uint32_t	high_zero[1] = {0};
	uint32_t	lowmax[1];

	/* positive controls: the crafting matches the codec's format */
	expect_block("control exception", GPX_OK, 5, 10, 57, 2, 1, 4,
				 low, pos1, high1);
	expect_block("control all-exceptions", GPX_OK, 5, 10, 18, 0, 4, 1,
				 zero, pos_all, high_ones);
	expect_block("control b=0", GPX_OK, 5, 10, 14, 0, 0, 0, zero, NULL, NULL);
	expect_block("control two exceptions", GPX_OK, 5, 10, 20, 0, 2, 3,
				 zero, pos_sorted, (uint32_t[]) {5, 1});
	expect_block("control b=32", GPX_OK, 2, 0, 0x7FFFFFFF, 32, 0, 0,
				 (uint32_t[]) {0x7FFFFFFE}, NULL, NULL);
	expect_block("control cnt=1", GPX_OK, 1, 77, 77, 0, 0, 0, NULL, NULL, NULL);

	/*
	 * Corruptions.  The zero-gap ones would decode to the valid list
	 * 10..14 if the field check were missing, so only that check rejects.
	 */
	expect_block("b = 33", GPX_E_PAYLOAD, 5, 10, 14, 33, 0, 0, NULL, NULL, NULL);
	expect_block("b = 63", GPX_E_PAYLOAD, 5, 10, 14, 63, 0, 0, NULL, NULL, NULL);
	expect_block("b = 33, cnt = 1", GPX_E_PAYLOAD, 1, 10, 10, 33, 0, 0,
				 NULL, NULL, NULL);
	expect_block("e > cnt - 1", GPX_E_PAYLOAD, 5, 10, 18, 0, 5, 1,
				 zero, (uint32_t[]) {0, 1, 2, 3, 3}, (uint32_t[]) {1, 1, 1, 1, 1});
	expect_block("e = 1 with cnt = 1", GPX_E_PAYLOAD, 1, 10, 10, 0, 1, 1,
				 NULL, (uint32_t[]) {0}, (uint32_t[]) {1});
	expect_block("e = 127 with cnt = 5", GPX_E_PAYLOAD, 5, 10, 14, 0, 127, 1,
				 zero, (uint32_t[127]) {0}, (uint32_t[127]) {0});
	expect_block("hb = 0 with exceptions", GPX_E_PAYLOAD, 5, 10, 14, 0, 1, 0,
				 zero, pos1, high_zero);
	expect_block("hb > 0 without exceptions", GPX_E_PAYLOAD, 5, 10, 14, 0, 0, 1,
				 zero, NULL, NULL);
	expect_block("b + hb > 32", GPX_E_PAYLOAD, 5, 10, 15, 30, 1, 3,
				 zero, pos1, (uint32_t[]) {0});
	/* a real high part, so only the b + hb check can reject it */
	expect_block("control b + hb = 32", GPX_OK, 2, 0, (1u << 30) + 1, 30, 1, 2,
				 (uint32_t[]) {0}, (uint32_t[]) {0}, (uint32_t[]) {1});
	expect_block("b + hb = 33, high 1", GPX_E_PAYLOAD, 2, 0, (1u << 30) + 1, 30, 1, 3,
				 (uint32_t[]) {0}, (uint32_t[]) {0}, (uint32_t[]) {1});
	expect_block("hb = 33", GPX_E_PAYLOAD, 5, 10, 14, 0, 1, 33,
				 zero, pos1, high_zero);
	expect_block("positions unsorted", GPX_E_PAYLOAD, 5, 10, 22, 2, 2, 1,
				 zero, pos_unsorted, high_ones);
	expect_block("positions duplicate", GPX_E_PAYLOAD, 5, 10, 18, 2, 2, 1,
				 zero, pos_dup, high_ones);
	expect_block("position == m", GPX_E_PAYLOAD, 5, 10, 14, 0, 1, 1,
				 zero, pos_m, high_ones);
	expect_block("position 127 in small block", GPX_E_PAYLOAD, 5, 10, 14, 0, 1, 1,
				 zero, pos_127, high_ones);
	expect_block("exception high part 0", GPX_E_PAYLOAD, 5, 10, 14, 2, 1, 1,
				 zero, pos1, high_zero);

	/* gap overflow past 2^31-1 (64-bit sums) */
	lowmax[0] = 0x7FFFFFFF;		/* {0, 2^31} */
	expect_block("gap to 2^31", GPX_E_PAYLOAD, 2, 0, 0x7FFFFFFF, 31, 0, 0,
				 lowmax, NULL, NULL);
	lowmax[0] = 0xFFFFFFFF;		/* 5 + 2^32 wraps to 5 in 32 bits */
	expect_block("gap 2^32-1", GPX_E_PAYLOAD, 2, 5, 0x7FFFFFFF, 32, 0, 0,
				 lowmax, NULL, NULL);
	/* two gaps whose 32-bit sum wraps back to a small increasing value */
	expect_block("gap sum wraps", GPX_E_PAYLOAD, 3, 0, 20, 32, 0, 0,
				 (uint32_t[]) {0x9FFFFFFF, 0x60000010}, NULL, NULL);
	/* the same via an exception: low 0, high 2^31 >> 1 at b = 1 */
	expect_block("exception overflow", GPX_E_PAYLOAD, 2, 1, 0x7FFFFFFF, 1, 1, 31,
				 (uint32_t[]) {0}, (uint32_t[]) {0}, (uint32_t[]) {0x40000000});

	/* non-zero padding bits after the block's data */
	{
		bitw	   *w = calloc(1, sizeof(bitw));
		size_t		len;
		uint8_t    *blob;

		craft_block(w, 0, 0, 0, 4, zero, NULL, NULL);
		w->buf[3] |= 0x80;		/* bit 31 of word 0 */
		blob = craft_blob(5, 10, 14, w, &len);
		CHECK(gpx_validate(blob, len, scratch) == GPX_E_PAYLOAD);
		free(blob);
		free(w);
	}

	/* block size mismatch: one word more or less than its fields need */
	{
		bitw	   *w = calloc(1, sizeof(bitw));
		size_t		len;
		uint8_t    *blob;

		craft_block(w, 2, 1, 4, 4, low, pos1, high1);
		w->pos += 32;			/* an extra zero word */
		blob = craft_blob(5, 10, 57, w, &len);
		CHECK(gpx_validate(blob, len, scratch) == GPX_E_DIRECTORY);
		free(blob);
		memset(w, 0, sizeof(*w));
		craft_block(w, 8, 0, 0, 4, (uint32_t[]) {1, 2, 3, 4}, NULL, NULL);
		CHECK(w->pos == 64);	/* 19 + 32 bits = 2 words */
		w->pos -= 32;			/* payload truncated to 1 word */
		blob = craft_blob(5, 10, 24, w, &len);
		CHECK(gpx_validate(blob, len, scratch) == GPX_E_DIRECTORY);
		free(blob);
		/* a header claiming b = 32 for 127 gaps in a 1-word payload */
		memset(w, 0, sizeof(*w));
		bw_put(w, 6, 32);
		w->pos = 32;
		blob = craft_blob(128, 0, 1000000, w, &len);
		CHECK(gpx_validate(blob, len, scratch) == GPX_E_DIRECTORY);
		free(blob);
		free(w);
	}

	/* an empty payload: the directory's offset 0 is outside it */
	{
		bitw	   *w = calloc(1, sizeof(bitw));
		size_t		len;
		uint8_t    *blob;

		blob = craft_blob(5, 10, 14, w, &len);
		CHECK(len == gpx_payload_offset(1));
		CHECK(gpx_validate(blob, len, scratch) == GPX_E_DIRECTORY);
		free(blob);
		free(w);
	}

	/* param != 0 */
	{
		bitw	   *w = calloc(1, sizeof(bitw));
		size_t		len;
		uint8_t    *blob;

		craft_block(w, 0, 0, 0, 4, zero, NULL, NULL);
		blob = craft_blob(5, 10, 14, w, &len);
		CHECK(gpx_validate(blob, len, scratch) == GPX_OK);
		blob[3] = 1;
		CHECK(gpx_validate(blob, len, scratch) == GPX_E_HEADER);
		free(blob);
		free(w);
	}
}

/* ---- corruptions of encoded multi-block blobs ------------------------- */

/* Set directory offset k of a blob. */
static void
set_off(uint8_t *blob, uint32_t k, uint32_t off)
{
	gpx_store32(blob + GPX_V1_HEADER_SIZE + (size_t) k * 8 + 4, off);
}

/* Directory offset k of a blob. */
static uint32_t
get_off(const uint8_t *blob, uint32_t k)
{
	return gpx_load32(blob + GPX_V1_HEADER_SIZE + (size_t) k * 8 + 4);
}

/* Directory / payload size corruptions of a 3-block blob. */
static void
test_directory(void)
{
	uint32_t	docs[300];
	uint32_t	i,
				nb = 3;
	size_t		len;
	uint8_t    *blob,
			   *c;
	gpx_status	st;

	for (i = 0; i < 300; i++)
		docs[i] = 1000 + 37 * i + (i % 7 == 3 ? 5000 * i : 0) + (i > 0 ? 0 : 0);
	for (i = 1; i < 300; i++)
		if (docs[i] <= docs[i - 1])
			docs[i] = docs[i - 1] + 1;
	blob = unit_encode_exact(GPX_CODEC_PFOR, docs, 300, &len);
	if (blob == NULL)
		return;
	CHECK(unit_validate_exact(blob, len) == GPX_OK);
	CHECK(get_off(blob, 0) == 0 && get_off(blob, 1) > 0 &&
		  get_off(blob, 2) > get_off(blob, 1));

	/* block 0 not at 0 */
	c = exact_copy(blob, len);
	set_off(c, 0, 1);
	CHECK(gpx_validate(c, len, scratch) == GPX_E_DIRECTORY);
	free(c);
	/* offsets not increasing */
	c = exact_copy(blob, len);
	set_off(c, 2, get_off(blob, 1));
	CHECK(gpx_validate(c, len, scratch) == GPX_E_DIRECTORY);
	free(c);
	c = exact_copy(blob, len);
	set_off(c, 1, get_off(blob, 2));
	set_off(c, 2, get_off(blob, 1));
	CHECK(gpx_validate(c, len, scratch) == GPX_E_DIRECTORY);
	free(c);
	/* offset past the payload */
	c = exact_copy(blob, len);
	set_off(c, 2, (uint32_t) ((len - gpx_payload_offset(nb)) / 4));
	CHECK(gpx_validate(c, len, scratch) == GPX_E_DIRECTORY);
	free(c);
	c = exact_copy(blob, len);
	set_off(c, 2, 0xFFFFFFFFu);
	CHECK(gpx_validate(c, len, scratch) == GPX_E_DIRECTORY);
	free(c);
	/* each inner offset shifted by +-1: block sizes no longer match */
	for (i = 1; i < nb; i++)
	{
		c = exact_copy(blob, len);
		set_off(c, i, get_off(blob, i) + 1);
		st = gpx_validate(c, len, scratch);
		CHECKF(st == GPX_E_DIRECTORY, "offset %u + 1: %s", i, gpx_status_str(st));
		free(c);
		c = exact_copy(blob, len);
		set_off(c, i, get_off(blob, i) - 1);
		st = gpx_validate(c, len, scratch);
		CHECKF(st == GPX_E_DIRECTORY, "offset %u - 1: %s", i, gpx_status_str(st));
		free(c);
	}
	/* truncated blob (header says more): the common code rejects it */
	CHECK(unit_validate_exact(blob, len - 4) == GPX_E_TRUNCATED);
	CHECK(unit_validate_exact(blob, len - 1) == GPX_E_TRUNCATED);
	/* truncated payload with a consistent header: last block too short */
	c = exact_copy(blob, len - 4);
	gpx_store32(c + 20, gpx_load32(c + 20) - 4);
	CHECK(gpx_validate(c, len - 4, scratch) == GPX_E_DIRECTORY);
	free(c);
	/* an extra payload word declared in the header */
	c = calloc(1, len + 4);
	memcpy(c, blob, len);
	gpx_store32(c + 20, gpx_load32(c + 20) + 4);
	CHECK(gpx_validate(c, len + 4, scratch) == GPX_E_DIRECTORY);
	free(c);
	free(blob);
}

/* Random bit flips and garbage: never crash, never accept a bad list. */
static void
test_fuzz(void)
{
	uint32_t	docs[1000];
	uint32_t	out[1000 + GPX_MAX_BLOCK];
	uint32_t	it,
				i,
				n = 700,
				accepted = 0,
				bad = 0;
	size_t		len;
	uint8_t    *blob;

	docs[0] = rnd_below(100);
	for (i = 1; i < n; i++)
		docs[i] = docs[i - 1] + 1 + (rnd_below(10) == 0 ? rnd_below(100000) : rnd_below(30));
	blob = unit_encode_exact(GPX_CODEC_PFOR, docs, n, &len);
	if (blob == NULL)
		return;
	for (it = 0; it < 20000; it++)
	{
		uint8_t    *c = exact_copy(blob, len);
		uint32_t	flips = 1 + rnd_below(3),
					f;
		gpx_status	st;

		for (f = 0; f < flips; f++)
		{
			/* mostly the directory offsets and payload */
			size_t		at = GPX_V1_HEADER_SIZE + rnd_below(len - GPX_V1_HEADER_SIZE);

			c[at] ^= (uint8_t) (1u << rnd_below(8));
		}
		st = gpx_validate(c, len, scratch);
		if (st == GPX_OK)
		{
			gpx_list	l;

			accepted++;
			gpx_open(&l, c, len);
			gpx_decode(&l, out);
			for (i = 1; i < l.n; i++)
				if (out[i] <= out[i - 1])
					bad++;
			if (out[0] != l.first || out[l.n - 1] != l.last)
				bad++;
			for (i = 0; i < l.n; i += 13)
				if (gpx_nth(&l, i) != out[i])
					bad++;
		}
		free(c);
	}
	CHECKF(bad == 0, "fuzz: %u inconsistencies in %u accepted", bad, accepted);

	/* valid header and directory, random payload words */
	for (it = 0; it < 2000; it++)
	{
		uint8_t    *c = exact_copy(blob, len);

		for (i = (uint32_t) gpx_payload_offset(6); i < len; i++)
			c[i] = (uint8_t) rnd();
		(void) gpx_validate(c, len, scratch);
		free(c);
	}
	CHECK(1);
	free(blob);
}

/* ---- round trips ------------------------------------------------------ */

/* Named round trips over the edge cases of the format. */
static void
test_roundtrips(void)
{
	static uint32_t docs[200000];
	uint32_t	n,
				i;
	blkstats	bs;
	char		name[64];

	docs[0] = 0;
	roundtrip("{0}", docs, 1, &bs);
	docs[0] = GPX_MAX_DOCID;
	roundtrip("{2^31-1}", docs, 1, &bs);
	docs[0] = 0;
	docs[1] = GPX_MAX_DOCID;
	roundtrip("{0, 2^31-1}", docs, 2, &bs);
	CHECKF(bs.max_b == 31 && bs.nb_exc == 0, "b %u", bs.max_b);
	docs[0] = 0;
	docs[1] = 1;
	docs[2] = GPX_MAX_DOCID;
	roundtrip("{0, 1, 2^31-1}", docs, 3, &bs);
	docs[0] = 0;
	docs[1] = GPX_MAX_DOCID - 1;
	docs[2] = GPX_MAX_DOCID;
	roundtrip("{0, 2^31-2, 2^31-1}", docs, 3, &bs);

	/* dense runs: every block is b = 0 and one word */
	for (n = 1; n <= 1000; n += (n < 260 ? 1 : 97))
	{
		size_t		len;
		uint8_t    *blob;

		for (i = 0; i < n; i++)
			docs[i] = i;
		snprintf(name, sizeof(name), "dense 0..%u", n - 1);
		roundtrip(name, docs, n, &bs);
		CHECKF(bs.nb_b0 == (n + 127) / 128 && bs.max_b == 0 && bs.nb_exc == 0,
			   "%s: b0 blocks %u", name, bs.nb_b0);
		blob = unit_encode_exact(GPX_CODEC_PFOR, docs, n, &len);
		if (blob)
			CHECKF(len == gpx_payload_offset((n + 127) / 128) + 4 * ((n + 127) / 128),
				   "%s: len %zu", name, len);
		free(blob);
	}
	n = 100000;
	for (i = 0; i < n; i++)
		docs[i] = GPX_MAX_DOCID - (n - 1) + i;
	roundtrip("dense up to 2^31-1", docs, n, &bs);
	CHECK(bs.nb_b0 == (n + 127) / 128);

	/* all-equal gaps: one width, no exceptions */
	for (i = 0; i < 1000; i++)
		docs[i] = 5 + 1000 * i;
	roundtrip("step 1000", docs, 1000, &bs);
	CHECKF(bs.max_b == 10 && bs.nb_exc == 0, "b %u exc %u", bs.max_b, bs.nb_exc);
	for (i = 0; i < 300; i++)
		docs[i] = 7000000u * i;
	roundtrip("step 7e6", docs, 300, &bs);
	CHECKF(bs.max_b == 23 && bs.nb_exc == 0, "b %u exc %u", bs.max_b, bs.nb_exc);

	/* small gaps with rare huge ones: exceptions are cheaper */
	docs[0] = 3;
	for (i = 1; i < 5000; i++)
		docs[i] = docs[i - 1] + 1 + (i % 40 == 0 ? 100000 + i : i % 3);
	roundtrip("rare outliers", docs, 5000, &bs);
	CHECKF(bs.nb_exc > 0 && bs.max_b <= 2 && bs.max_hb >= 15,
		   "exc %u b %u hb %u", bs.nb_exc, bs.max_b, bs.max_hb);
	/* outliers of up to 2^30: large hb */
	docs[0] = 0;
	for (i = 1; i < 600; i++)
		docs[i] = docs[i - 1] + 1 + (i % 100 == 50 ? (1u << 30) / 4 : 2);
	roundtrip("outliers 2^28", docs, 600, &bs);
	CHECKF(bs.nb_exc > 0 && bs.max_hb >= 26, "exc %u hb %u", bs.nb_exc, bs.max_hb);
	/* one huge gap to 2^31-1 at the end of small gaps */
	for (i = 0; i < 127; i++)
		docs[i] = i;
	docs[127] = GPX_MAX_DOCID;
	roundtrip("127 dense + 2^31-1", docs, 128, &bs);
	CHECKF(bs.nb_exc == 1 && bs.max_b == 0 && bs.max_hb == 31,
		   "exc %u b %u hb %u", bs.nb_exc, bs.max_b, bs.max_hb);
	/* exception at gap index 0 and at gap index 126 */
	for (i = 0; i < 128; i++)
		docs[i] = 2 * i + (i >= 1 ? 1000 : 0) + (i == 127 ? 5000 : 0);
	roundtrip("exceptions at both ends", docs, 128, &bs);
	CHECK(bs.nb_exc == 1);

	/* random lists of every length 1..300, mixed distributions */
	for (n = 1; n <= 300; n++)
	{
		uint32_t	kind = n % 4;

		docs[0] = rnd_below(kind == 3 ? GPX_MAX_DOCID / 2 : 1000);
		for (i = 1; i < n; i++)
		{
			uint64_t	gap;

			if (kind == 0)
				gap = 1 + rnd_below(64);
			else if (kind == 1)
				gap = 1 + (rnd_below(8) == 0 ? rnd_below(1u << 20) : rnd_below(16));
			else if (kind == 2)
				gap = 1 + (rnd_below(50) == 0 ? rnd_below(1u << 26) : 0);
			else
				gap = 1 + rnd_below((GPX_MAX_DOCID / 2) / n);
			if (docs[i - 1] + gap > GPX_MAX_DOCID)
				break;
			docs[i] = (uint32_t) (docs[i - 1] + gap);
		}
		snprintf(name, sizeof(name), "random kind %u n %u", kind, n);
		roundtrip(name, docs, i, NULL);
	}
	/* larger random lists */
	for (n = 1000; n <= 200000; n *= 7)
	{
		docs[0] = rnd_below(100);
		for (i = 1; i < n; i++)
			docs[i] = docs[i - 1] + 1 + (rnd_below(20) == 0 ? rnd_below(5000) : rnd_below(20));
		snprintf(name, sizeof(name), "random n %u", n);
		roundtrip(name, docs, n, NULL);
	}
}

/* Encode bound and error paths. */
static void
test_encode_api(void)
{
	uint32_t	docs[3] = {5, 4, 6};
	uint8_t		buf[256];
	size_t		len;

	CHECK(gpx_encode(GPX_CODEC_PFOR, docs, 3, buf, sizeof(buf), &len) == GPX_E_UNSORTED);
	docs[1] = 6;
	docs[2] = 7;
	CHECK(gpx_encode(GPX_CODEC_PFOR, docs, 3, buf, 10, &len) == GPX_E_NOSPACE);
	CHECK(gpx_encode(GPX_CODEC_PFOR, docs, 0, buf, sizeof(buf), &len) == GPX_OK &&
		  len == GPX_V1_HEADER_SIZE);
	CHECK(unit_validate_exact(buf, len) == GPX_OK);
	/* the bound covers the worst case: 127 gaps of 31 bits per block */
	CHECK(gpx_encode_bound(GPX_CODEC_PFOR, 128, GPX_MAX_DOCID) >=
		  gpx_payload_offset(1) + 4 * 124);
}

/* ---- size measurement --------------------------------------------------- */

/* n = 10^6 uniform random in [0, 2^24): bits/docID against Elias-Fano. */
static void
test_size(void)
{
	const uint32_t n = 1000000;
	const uint32_t u = 1u << 24;
	uint8_t    *bitmap = calloc(u / 8, 1);
	uint32_t   *docs = unit_xmalloc(sizeof(uint32_t) * n);
	uint32_t   *out = unit_xmalloc(sizeof(uint32_t) * (n + GPX_MAX_BLOCK));
	uint32_t	cnt = 0,
				i,
				rep;
	size_t		len,
				qlen = 0,
				cap;
	uint8_t    *blob,
			   *qblob;
	gpx_list	l;
	double		bits,
				qbits = 0;
	clock_t		t0;
	gpx_status	qst;

	while (cnt < n)
	{
		uint32_t	x = rnd_below(u);

		if (!(bitmap[x >> 3] & (1u << (x & 7))))
		{
			bitmap[x >> 3] |= (uint8_t) (1u << (x & 7));
			cnt++;
		}
	}
	for (i = 0, cnt = 0; i < u; i++)
		if (bitmap[i >> 3] & (1u << (i & 7)))
			docs[cnt++] = i;

	blob = unit_encode_exact(GPX_CODEC_PFOR, docs, n, &len);
	if (blob == NULL)
		return;
	CHECK(unit_validate_exact(blob, len) == GPX_OK);
	gpx_open(&l, blob, len);
	bits = gpx_bits_per_docid(&l);
	printf("pfor: uniform n=%u in [0, 2^24): %zu bytes, %.4f bits/docID "
		   "(directory %.3f, rest payload + header)\n", n, len, bits,
		   8.0 * (double) gpx_payload_offset(l.nblocks) / n);
	CHECKF(bits <= 6.9, "%.4f bits/docID", bits);

	t0 = clock();
	for (rep = 0; rep < 20; rep++)
		gpx_decode(&l, out);
	printf("pfor: decode %.2f ns/docID (CPU, one core)\n",
		   1e9 * (double) (clock() - t0) / CLOCKS_PER_SEC / (20.0 * n));
	CHECK(memcmp(out, docs, sizeof(uint32_t) * n) == 0);

	/* the Elias-Fano codec, if it encodes: within 12% of it */
	cap = gpx_encode_bound(GPX_CODEC_QS, n, docs[n - 1]);
	qblob = cap ? unit_xmalloc(cap) : NULL;
	qst = qblob ? gpx_encode(GPX_CODEC_QS, docs, n, qblob, cap, &qlen) : GPX_E_ARG;
	if (qst == GPX_OK && gpx_validate(qblob, qlen, scratch) == GPX_OK)
	{
		qbits = 8.0 * (double) qlen / n;
		printf("qs:   %zu bytes, %.4f bits/docID; pfor / qs = %.4f\n",
			   qlen, qbits, bits / qbits);
		CHECKF(bits <= 1.12 * qbits, "pfor %.4f > 1.12 * qs %.4f", bits, qbits);
	}
	else
		printf("qs:   not available (%s), ratio not checked\n",
			   gpx_status_str(qst));
	free(qblob);
	free(blob);
	free(out);
	free(docs);
	free(bitmap);
}

/* Run every group and print the totals. */
int
main(void)
{
	unit_format_version = GPX_FORMAT_V1;
	UNIT_RUN(test_encode_api());
	UNIT_RUN(test_crafted());
	UNIT_RUN(test_directory());
	UNIT_RUN(test_roundtrips());
	UNIT_RUN(test_fuzz());
	UNIT_RUN(test_size());
	return unit_finish();
}
