/*
 * test_simple8b.c - unit tests of the Simple-8b frequency codec
 * (src/codec/gpx_simple8b.c): round trips of both packings on random and
 * edge blocks (all ones, runs of 240 / 120 ones and their neighbours,
 * values at every selector width boundary, 2^31-1, empty and one-value
 * blocks), the words checked against a reference decoder written here from
 * the selector table; the optimal packing never larger than left-greedy and
 * equal to an exhaustive search on short blocks, strictly smaller on
 * Trotman et al.'s kind of counterexample; hostile words (run selectors
 * with payload bits, words running past the block's end, unused bits set,
 * values above 2^31-1, truncated and trailing sections) rejected; random
 * corruption validated on exact-size buffers (run under ASan to catch
 * over-reads), whatever passes decoding to in-range values.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpx_simple8b.h"
#include "unit.h"

/* Simple-8b's selector table (Trotman et al., Table 2), written out again. */
static const uint32_t ref_count[16] = {240, 120, 60, 30, 20, 15, 12, 10, 8, 7, 6, 5, 4, 3, 2, 1};
static const uint32_t ref_width[16] = {0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 15, 20, 30, 60};

static unit_rng rng = {0x5138B};

#define MAXN 20000

/* Reference decoder: n values from the words of buf[0..len); -1 on a bad word. */
static long
ref_decode(const uint8_t *buf, size_t len, uint32_t n, uint32_t base, uint32_t *out)
{
	uint32_t	got = 0;
	size_t		pos = 0;

	while (got < n)
	{
		uint64_t	w = 0;
		uint32_t	s;

		if (pos + 8 > len)
			return -1;
		for (int b = 0; b < 8; b++)
			w |= (uint64_t) buf[pos + b] << (8 * b);
		s = (uint32_t) (w >> 60);
		if (got + ref_count[s] > n)
			return -1;
		for (uint32_t j = 0; j < ref_count[s]; j++)
		{
			uint64_t	f = ref_width[s] == 0 ? 0 :
				(w >> (j * ref_width[s])) & (((uint64_t) 1 << ref_width[s]) - 1);

			out[got++] = (uint32_t) (f + base);
		}
		pos += 8;
	}
	return (long) pos;
}

/* Whether selector s fits values v[i..) of an n-value block (stored v - base). */
static int
ref_fits(const uint32_t *v, uint32_t i, uint32_t n, uint32_t s, uint32_t base)
{
	if (i + ref_count[s] > n)
		return 0;
	for (uint32_t j = 0; j < ref_count[s]; j++)
	{
		uint64_t	f = v[i + j] - base;

		if (ref_width[s] == 0 ? f != 0 : (f >> ref_width[s]) != 0)
			return 0;
	}
	return 1;
}

/* Fewest words for v[i..n) by exhaustive search (short blocks only). */
static uint32_t
ref_min_words(const uint32_t *v, uint32_t i, uint32_t n, uint32_t base)
{
	uint32_t	best = UINT32_MAX;

	if (i == n)
		return 0;
	for (uint32_t s = 0; s < 16; s++)
		if (ref_fits(v, i, n, s, base))
		{
			uint32_t	c = 1 + ref_min_words(v, i + ref_count[s], n, base);

			if (c < best)
				best = c;
		}
	return best;
}

/* Words left-greedy packing must produce, by the definition. */
static uint32_t
ref_greedy_words(const uint32_t *v, uint32_t n, uint32_t base)
{
	uint32_t	words = 0;

	for (uint32_t i = 0; i < n; words++)
		for (uint32_t s = 0; s < 16; s++)
			if (ref_fits(v, i, n, s, base))
			{
				i += ref_count[s];
				break;
			}
	return words;
}

/* Copy into an exact-size heap buffer, so ASan sees any over-read. */
static uint8_t *
exact_copy(const uint8_t *src, size_t len)
{
	uint8_t    *p = unit_xmalloc(len);

	if (len)
		memcpy(p, src, len);
	return p;
}

static uint8_t enc[2][MAXN * 8];
static uint32_t dec[MAXN + 256];
static uint32_t ref[MAXN + 256];

/*
 * gpx_s8b_select_block on the valid block at buf of cnt values (v): every
 * position, a random subset of them, the last one alone, none.
 */
static int
select_matches(const uint8_t *buf, uint32_t cnt, uint32_t base, const uint32_t *v)
{
	static uint32_t sel[MAXN],
				got[MAXN];
	uint32_t	ns = 0;
	int			ok = 1;

	for (uint32_t j = 0; j < cnt; j++)
		sel[j] = j;
	gpx_s8b_select_block(buf, base, sel, cnt, got);
	ok &= memcmp(got, v, sizeof(uint32_t) * cnt) == 0;
	for (uint32_t j = 0; j < cnt; j++)
		if (unit_below(&rng, 5) == 0)
			sel[ns++] = j;
	got[ns] = 0xEEEEEEEE;
	gpx_s8b_select_block(buf, base, sel, ns, got);
	for (uint32_t r = 0; r < ns; r++)
		ok &= got[r] == v[sel[r]];
	ok &= got[ns] == 0xEEEEEEEE;	/* nothing written past n */
	sel[0] = cnt - 1;
	gpx_s8b_select_block(buf, base, sel, 1, got);
	ok &= got[0] == v[cnt - 1];
	gpx_s8b_select_block(buf, base, sel, 0, got);
	return ok;
}

/*
 * Encode v[0..n) in blocks of `block` with both packings and check: the
 * words decode (reference decoder and the codec, whole and block by block)
 * to v, selected values of each block are v's, validate, optimal <= greedy
 * words, greedy = the reference greedy per block.  Returns the optimal encoding's byte length.
 */
static size_t
roundtrip(const char *what, const uint32_t *v, uint32_t n, uint32_t block, uint32_t base)
{
	size_t		len[2] = {0, 0};

	for (int p = 0; p < 2; p++)
	{
		gpx_status	st = gpx_s8b_encode(v, n, block, base, (gpx_s8b_packing) p,
										enc[p], sizeof(enc[p]), &len[p]);
		uint8_t    *copy;
		size_t		pos = 0;
		int			ok = 1;

		CHECKF(st == GPX_OK, "%s: encode (packing %d): %s", what, p, gpx_status_str(st));
		if (st != GPX_OK)
			return 0;
		CHECKF(len[p] % 8 == 0 && len[p] <= gpx_s8b_encode_bound(n), "%s: length %zu", what, len[p]);
		copy = exact_copy(enc[p], len[p]);
		st = gpx_s8b_validate(copy, len[p], n, block, base);
		CHECKF(st == GPX_OK, "%s: validate (packing %d): %s", what, p, gpx_status_str(st));
		CHECKF(ref_decode(copy, len[p], n, base, ref) == (long) len[p] &&
			   memcmp(ref, v, sizeof(uint32_t) * n) == 0,
			   "%s: reference decode (packing %d)", what, p);
		memset(dec, 0xEE, sizeof(uint32_t) * n);
		CHECKF(gpx_s8b_decode(copy, n, base, dec) == len[p] &&
			   memcmp(dec, v, sizeof(uint32_t) * n) == 0, "%s: decode (packing %d)", what, p);
		/* block by block: skip, validate, decode */
		memset(dec, 0xEE, sizeof(uint32_t) * n);
		for (uint32_t i = 0; i < n; i += block)
		{
			uint32_t	cnt = n - i < block ? n - i : block;
			size_t		used = 0,
						bytes = gpx_s8b_block_bytes(copy + pos, cnt);

			ok &= gpx_s8b_validate_block(copy + pos, len[p] - pos, cnt, base, &used) == GPX_OK;
			ok &= used == bytes;
			ok &= gpx_s8b_decode_block(copy + pos, cnt, base, dec + i) == bytes;
			ok &= select_matches(copy + pos, cnt, base, v + i);
			if (p == GPX_S8B_GREEDY)
				ok &= bytes / 8 == ref_greedy_words(v + i, cnt, base);
			pos += bytes;
		}
		CHECKF(ok && pos == len[p] && memcmp(dec, v, sizeof(uint32_t) * n) == 0,
			   "%s: block by block (packing %d)", what, p);
		free(copy);
	}
	CHECKF(len[GPX_S8B_OPTIMAL] <= len[GPX_S8B_GREEDY], "%s: optimal %zu > greedy %zu bytes",
		   what, len[GPX_S8B_OPTIMAL], len[GPX_S8B_GREEDY]);
	return len[GPX_S8B_OPTIMAL];
}

/* A frequency-like value: 1 + geometric with mean m, sometimes a large one. */
static uint32_t
rnd_tf(double m)
{
	uint32_t	v = 1;

	if (unit_below(&rng, 1000) == 0)
		return 1 + unit_below(&rng, GPX_S8B_MAX_VALUE);
	while (v < 100000 && unit_below(&rng, 1000000) < (uint32_t) (1000000.0 * m / (m + 1)))
		v++;
	return v;
}

/* Round trips on edge inputs. */
static void
test_edges(void)
{
	static uint32_t v[MAXN];
	char		what[128];
	static const uint32_t runs[] = {1, 59, 60, 61, 119, 120, 121, 239, 240, 241, 359, 360, 361, 480, 4096};
	static const uint32_t blocks[] = {128, 256, 1, 7, 240, 4096};

	for (uint32_t base = 0; base <= 1; base++)
	{
		/* empty and one-value sections */
		CHECK(roundtrip("empty", v, 0, 128, base) == 0);
		v[0] = base;
		CHECK(roundtrip("one value = base", v, 1, 128, base) == 8);
		v[0] = GPX_S8B_MAX_VALUE;
		CHECK(roundtrip("one value 2^31-1", v, 1, 256, base) == 8);

		/* runs of the base value (zero fields): 240-runs use selector 0 */
		for (size_t r = 0; r < sizeof(runs) / sizeof(runs[0]); r++)
			for (size_t b = 0; b < sizeof(blocks) / sizeof(blocks[0]); b++)
			{
				size_t		len;

				for (uint32_t i = 0; i < runs[r]; i++)
					v[i] = base;
				snprintf(what, sizeof(what), "run of %u (base %u, block %u)", runs[r], base, blocks[b]);
				len = roundtrip(what, v, runs[r], blocks[b], base);
				if (blocks[b] == 4096 && runs[r] % 240 == 0)
					CHECKF(len == 8 * (runs[r] / 240), "%s: %zu bytes", what, len);
				if (blocks[b] == 4096 && runs[r] == 120)
					CHECKF(len == 8, "%s: %zu bytes", what, len);
			}

		/* a run of 240 then one larger value; 120 then one */
		for (uint32_t i = 0; i < 241; i++)
			v[i] = base;
		v[240] = base + 5;
		CHECK(roundtrip("240 base values then one", v, 241, 256, base) == 16);
		v[120] = base + 5;
		CHECK(roundtrip("120 base values then one", v, 121, 256, base) == 16);

		/* values at every selector width boundary: 2^w - 1 and 2^w (+ base) */
		for (uint32_t s = 2; s < 16; s++)
		{
			uint32_t	w = ref_width[s] > 31 ? 31 : ref_width[s];

			for (int d = -1; d <= 0; d++)
			{
				uint64_t	x = ((uint64_t) 1 << w) + d + base;
				uint32_t	n = ref_count[s];

				if (x > GPX_S8B_MAX_VALUE)
					x = GPX_S8B_MAX_VALUE;
				for (uint32_t i = 0; i < 3 * n; i++)
					v[i] = (uint32_t) x;
				snprintf(what, sizeof(what), "%u x %llu (selector %u boundary, base %u)",
						 3 * n, (unsigned long long) x, s, base);
				roundtrip(what, v, 3 * n, 256, base);
				/* exactly filling words of selector s when the value fits */
				if (d == -1 && 3 * n <= 256)
				{
					size_t		len = roundtrip(what, v, 3 * n, 256, base);

					CHECKF(len == 24, "%s: %zu bytes (3 words expected)", what, len);
				}
			}
		}

		/* every width in one block, mixed with 2^31-1 */
		for (uint32_t i = 0; i < 512; i++)
		{
			uint32_t	w = unit_below(&rng, 32);

			v[i] = w == 31 ? GPX_S8B_MAX_VALUE : base + unit_below(&rng, (uint64_t) 1 << w);
		}
		roundtrip("mixed widths and 2^31-1", v, 512, 128, base);
		roundtrip("mixed widths and 2^31-1", v, 512, 256, base);
	}
}

/* Random frequency-like blocks, against exhaustive optimal on short ones. */
static void
test_random(void)
{
	static uint32_t v[MAXN];
	char		what[128];
	long		smaller = 0;

	for (int it = 0; it < 400; it++)
	{
		uint32_t	n = it < 200 ? 1 + unit_below(&rng, 600) : 1 + unit_below(&rng, MAXN);
		uint32_t	block = (it & 1) ? 128 : 256;
		uint32_t	base = it % 3 == 0 ? 0 : 1;
		double		m = (double) (1 + unit_below(&rng, 60)) / 10.0;

		for (uint32_t i = 0; i < n; i++)
		{
			v[i] = rnd_tf(m);
			if (base == 0 && unit_below(&rng, 4) == 0)
				v[i] = 0;
		}
		if (it % 5 == 0)		/* long runs of ones */
			for (uint32_t i = 0; i < n; i++)
				if (unit_below(&rng, 50) != 0)
					v[i] = base;
		snprintf(what, sizeof(what), "random #%d (n %u, block %u, base %u)", it, n, block, base);
		roundtrip(what, v, n, block, base);
	}

	/* optimal = exhaustive search on short blocks; count strictly smaller */
	for (int it = 0; it < 3000; it++)
	{
		uint32_t	n = 1 + unit_below(&rng, 14);
		size_t		lo,
					lg;
		gpx_status	s1,
					s2;

		for (uint32_t i = 0; i < n; i++)
		{
			uint32_t	k = unit_below(&rng, 4);

			v[i] = k == 0 ? 1 : k == 1 ? 1 + unit_below(&rng, 8) :
				k == 2 ? 1 + unit_below(&rng, 300) : 1u << unit_below(&rng, 31);
		}
		s1 = gpx_s8b_encode_block(v, n, 1, GPX_S8B_OPTIMAL, enc[0], sizeof(enc[0]), &lo);
		s2 = gpx_s8b_encode_block(v, n, 1, GPX_S8B_GREEDY, enc[1], sizeof(enc[1]), &lg);
		CHECKF(s1 == GPX_OK && s2 == GPX_OK && lo / 8 == ref_min_words(v, 0, n, 1),
			   "exhaustive #%d (n %u): optimal %zu words, exhaustive %u", it, n, lo / 8,
			   ref_min_words(v, 0, n, 1));
		CHECK(ref_decode(enc[0], lo, n, 1, ref) == (long) lo && memcmp(ref, v, 4 * n) == 0);
		smaller += lo < lg;
	}
	printf("optimal packing smaller than greedy on %ld of 3000 short random blocks\n", smaller);

	/*
	 * Left-greedy is not optimal (Trotman et al., Section 3.1): one 30-bit
	 * field, then ten small ones.  Greedy packs 2 x 30 bits and is left
	 * with nine values (no selector holds 9): 3 words; optimal 1 x 60 then
	 * 10 x 6: 2 words.
	 */
	{
		uint32_t	cx[11] = {1u << 30, 1, 1, 7, 2, 2, 1, 2, 2, 1, 2};
		size_t		lo,
					lg;

		gpx_s8b_encode_block(cx, 11, 1, GPX_S8B_OPTIMAL, enc[0], sizeof(enc[0]), &lo);
		gpx_s8b_encode_block(cx, 11, 1, GPX_S8B_GREEDY, enc[1], sizeof(enc[1]), &lg);
		CHECKF(lo == 16 && lg == 24, "counterexample: optimal %zu, greedy %zu bytes", lo, lg);
		roundtrip("counterexample", cx, 11, 128, 1);
	}
}

/* Put word w (little-endian) at p. */
static void
put_word(uint8_t *p, uint64_t w)
{
	for (int b = 0; b < 8; b++)
		p[b] = (uint8_t) (w >> (8 * b));
}

/* gpx_s8b_validate on an exact-size copy. */
static gpx_status
validate_exact(const uint8_t *buf, size_t len, uint32_t n, uint32_t block, uint32_t base)
{
	uint8_t    *c = exact_copy(buf, len);
	gpx_status	st = gpx_s8b_validate(c, len, n, block, base);

	free(c);
	return st;
}

/* Hand-crafted hostile words and sections. */
static void
test_hostile(void)
{
	uint8_t		b[64];
	uint32_t	v[256];
	size_t		len,
				used;

	/* selector 0 and 1 runs: payload bits must be zero */
	put_word(b, 0);
	CHECK(validate_exact(b, 8, 240, 256, 1) == GPX_OK);
	put_word(b, 1);
	CHECK(validate_exact(b, 8, 240, 256, 1) == GPX_E_PAYLOAD);
	put_word(b, (1ull << 59));
	CHECK(validate_exact(b, 8, 240, 256, 1) == GPX_E_PAYLOAD);
	put_word(b, (1ull << 60) | (1ull << 33));
	CHECK(validate_exact(b, 8, 120, 256, 1) == GPX_E_PAYLOAD);
	put_word(b, 1ull << 60);
	CHECK(validate_exact(b, 8, 120, 128, 1) == GPX_OK);

	/* counts that overrun: a 240-run in a block of 128 or 239 */
	put_word(b, 0);
	CHECK(validate_exact(b, 8, 128, 128, 1) == GPX_E_PAYLOAD);
	CHECK(validate_exact(b, 8, 239, 256, 1) == GPX_E_PAYLOAD);
	/* ... and across a block boundary: 120 + 120 in blocks of 128 */
	put_word(b, 1ull << 60);
	put_word(b + 8, 1ull << 60);
	CHECK(validate_exact(b, 16, 240, 240, 1) == GPX_OK);
	CHECK(validate_exact(b, 16, 240, 128, 1) == GPX_E_PAYLOAD);
	/* a 60 x 1-bit word for the last 10 values */
	put_word(b, 2ull << 60);
	CHECK(validate_exact(b, 8, 10, 128, 1) == GPX_E_PAYLOAD);

	/* unused bits of selectors 8 (8 x 7) and 9 (7 x 8) */
	put_word(b, (8ull << 60) | (1ull << 55));
	CHECK(validate_exact(b, 8, 8, 128, 1) == GPX_OK);
	put_word(b, (8ull << 60) | (1ull << 56));
	CHECK(validate_exact(b, 8, 8, 128, 1) == GPX_E_PAYLOAD);
	put_word(b, (9ull << 60) | (1ull << 59));
	CHECK(validate_exact(b, 8, 7, 128, 1) == GPX_E_PAYLOAD);

	/* values out of range: selector 15 above 2^31-1 after adding base */
	put_word(b, (15ull << 60) | 0x7FFFFFFEull);
	CHECK(validate_exact(b, 8, 1, 128, 1) == GPX_OK);
	CHECK(gpx_s8b_decode(b, 1, 1, v) == 8 && v[0] == GPX_S8B_MAX_VALUE);
	put_word(b, (15ull << 60) | 0x7FFFFFFFull);
	CHECK(validate_exact(b, 8, 1, 128, 1) == GPX_E_PAYLOAD);
	CHECK(validate_exact(b, 8, 1, 128, 0) == GPX_OK);
	put_word(b, (15ull << 60) | 0x80000000ull);
	CHECK(validate_exact(b, 8, 1, 128, 0) == GPX_E_PAYLOAD);
	put_word(b, (15ull << 60) | (1ull << 59));
	CHECK(validate_exact(b, 8, 1, 128, 0) == GPX_E_PAYLOAD);

	/* truncation and trailing bytes */
	v[0] = 3;
	v[1] = 4;
	CHECK(gpx_s8b_encode(v, 2, 128, 1, GPX_S8B_OPTIMAL, b, sizeof(b), &len) == GPX_OK && len == 8);
	CHECK(validate_exact(b, 8, 2, 128, 1) == GPX_OK);
	for (size_t l = 0; l < 8; l++)
		CHECKF(validate_exact(b, l, 2, 128, 1) == GPX_E_TRUNCATED, "truncated at %zu", l);
	CHECK(validate_exact(b, 8, 3, 128, 1) == GPX_E_TRUNCATED);
	memset(b + 8, 0, 8);
	CHECK(validate_exact(b, 9, 2, 128, 1) == GPX_E_TRAILING);
	CHECK(validate_exact(b, 16, 2, 128, 1) == GPX_E_TRAILING);
	CHECK(validate_exact(b, 8, 0, 128, 1) == GPX_E_TRAILING);
	CHECK(validate_exact(b, 0, 0, 128, 1) == GPX_OK);
	CHECK(gpx_s8b_validate_block(b, 16, 2, 1, &used) == GPX_OK && used == 8);
	CHECK(gpx_s8b_validate_block(b, 7, 2, 1, &used) == GPX_E_TRUNCATED && used == 0);

	/* arguments */
	CHECK(gpx_s8b_validate(b, 8, 2, 0, 1) == GPX_E_ARG);
	CHECK(gpx_s8b_validate(b, 8, 2, 128, 0x80000000u) == GPX_E_ARG);
	CHECK(gpx_s8b_validate(NULL, 8, 2, 128, 1) == GPX_E_ARG);
	CHECK(gpx_s8b_validate_block(b, 8, 2, 1, NULL) == GPX_E_ARG);
}

/* The inline selector helpers (shared with the CUDA decoder) = the table. */
static void
test_helpers(void)
{
	for (uint32_t sel = 0; sel < 16; sel++)
	{
		uint64_t	w = ((uint64_t) sel << 60) | 0x0123456789ABCDEull;

		CHECKF(gpx_s8b_count(sel) == ref_count[sel] && gpx_s8b_width(sel) == ref_width[sel],
			   "selector %u: count %u width %u", sel, gpx_s8b_count(sel), gpx_s8b_width(sel));
		CHECK(gpx_s8b_selector(w) == sel);
		CHECK(ref_width[sel] * ref_count[sel] <= 60);
		for (uint32_t i = 0; i < ref_count[sel]; i++)
			CHECK(gpx_s8b_field(w, sel, i) == (ref_width[sel] == 0 ? 0 :
											   (w >> (i * ref_width[sel])) & ((1ull << ref_width[sel]) - 1)));
	}
}

/* Encoder arguments and ranges. */
static void
test_encode_api(void)
{
	uint32_t	v[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	uint8_t		b[64];
	size_t		len = 99;

	v[3] = 0;
	CHECK(gpx_s8b_encode(v, 8, 128, 1, GPX_S8B_OPTIMAL, b, sizeof(b), &len) == GPX_E_RANGE && len == 0);
	CHECK(gpx_s8b_encode(v, 8, 128, 0, GPX_S8B_GREEDY, b, sizeof(b), &len) == GPX_OK && len == 8);
	v[3] = 0x80000000u;
	CHECK(gpx_s8b_encode(v, 8, 128, 0, GPX_S8B_GREEDY, b, sizeof(b), &len) == GPX_E_RANGE);
	CHECK(gpx_s8b_encode_block(v, 8, 0, GPX_S8B_OPTIMAL, b, sizeof(b), &len) == GPX_E_RANGE);
	v[3] = 4;
	CHECK(gpx_s8b_encode(v, 8, 0, 1, GPX_S8B_OPTIMAL, b, sizeof(b), &len) == GPX_E_ARG);
	CHECK(gpx_s8b_encode(v, 8, GPX_S8B_MAX_BLOCK + 1, 1, GPX_S8B_OPTIMAL, b, sizeof(b), &len) == GPX_E_ARG);
	CHECK(gpx_s8b_encode(v, 8, 128, 1, (gpx_s8b_packing) 7, b, sizeof(b), &len) == GPX_E_ARG);
	CHECK(gpx_s8b_encode(v, 8, 128, 1, GPX_S8B_OPTIMAL, b, sizeof(b), NULL) == GPX_E_ARG);
	CHECK(gpx_s8b_encode(NULL, 8, 128, 1, GPX_S8B_OPTIMAL, b, sizeof(b), &len) == GPX_E_ARG);
	CHECK(gpx_s8b_encode(v, 0, 128, 1, GPX_S8B_OPTIMAL, NULL, 0, &len) == GPX_OK && len == 0);
	CHECK(gpx_s8b_encode_block(v, GPX_S8B_MAX_BLOCK + 1, 1, GPX_S8B_OPTIMAL, b, sizeof(b), &len) == GPX_E_ARG);
	/* output space: exactly enough, one byte short */
	v[0] = 0x7FFFFFFF;			/* its own word; then 7 small values */
	CHECK(gpx_s8b_encode(v, 8, 128, 1, GPX_S8B_OPTIMAL, b, 16, &len) == GPX_OK && len == 16);
	CHECK(gpx_s8b_encode(v, 8, 128, 1, GPX_S8B_OPTIMAL, b, 15, &len) == GPX_E_NOSPACE);
	CHECK(gpx_s8b_encode(v, 8, 128, 1, GPX_S8B_GREEDY, b, 8, &len) == GPX_E_NOSPACE);
	CHECK(gpx_s8b_encode_bound(8) == 64);
}

/*
 * Random corruption: flip bits, change selectors, cut or extend the
 * section; validation on an exact-size copy must not over-read, and when
 * it accepts, the reference decoder must agree and every value be in range.
 */
static void
test_fuzz(void)
{
	static uint32_t v[2048];
	long		accepted = 0,
				rejected = 0;

	for (int it = 0; it < 20000; it++)
	{
		uint32_t	n = 1 + unit_below(&rng, 700),
					block = (it & 1) ? 128 : 256,
					base = (it % 7 == 0) ? 0 : 1;
		size_t		len;
		uint8_t    *c;
		size_t		clen;
		gpx_status	st;

		for (uint32_t i = 0; i < n; i++)
			v[i] = (it % 3 == 0 && unit_below(&rng, 40) != 0) ? base : (base + rnd_tf(1.5) - 1);
		if (gpx_s8b_encode(v, n, block, base, (gpx_s8b_packing) (it & 2 ? 1 : 0),
						   enc[0], sizeof(enc[0]), &len) != GPX_OK)
		{
			CHECK(0);
			continue;
		}
		clen = len;
		switch (unit_below(&rng, 5))
		{
			case 0:				/* flip one to three bits */
				for (int k = 1 + (int) unit_below(&rng, 3); k > 0; k--)
					enc[0][unit_below(&rng, len)] ^= (uint8_t) (1u << unit_below(&rng, 8));
				break;
			case 1:				/* a new selector */
				{
					size_t		wpos = 8 * unit_below(&rng, len / 8);

					enc[0][wpos + 7] = (uint8_t) ((enc[0][wpos + 7] & 0x0F) | (unit_below(&rng, 16) << 4));
				}
				break;
			case 2:				/* a random word */
				{
					size_t		wpos = 8 * unit_below(&rng, len / 8);

					put_word(enc[0] + wpos, unit_next(&rng));
				}
				break;
			case 3:				/* cut or extend */
				clen = unit_below(&rng, len + 16);
				if (clen > len)
					memset(enc[0] + len, (int) unit_below(&rng, 256), clen - len);
				break;
			default:			/* a different count or base */
				if (unit_below(&rng, 2))
					n = unit_below(&rng, n + 300);
				else
					base ^= 1;
				break;
		}
		c = exact_copy(enc[0], clen);
		st = gpx_s8b_validate(c, clen, n, block, base);
		if (st == GPX_OK)
		{
			long		r = ref_decode(c, clen, n, base, ref);
			int			inrange = 1;

			accepted++;
			for (uint32_t i = 0; i < n; i++)
				inrange &= ref[i] >= base && ref[i] <= GPX_S8B_MAX_VALUE;
			CHECKF(r == (long) clen && inrange, "fuzz #%d accepted a section the reference rejects", it);
			CHECK(gpx_s8b_decode(c, n, base, dec) == clen && memcmp(dec, ref, 4 * (size_t) n) == 0);
		}
		else
		{
			rejected++;
			CHECK(st == GPX_E_PAYLOAD || st == GPX_E_TRUNCATED || st == GPX_E_TRAILING);
		}
		free(c);
	}
	printf("fuzz: %ld corrupted sections accepted (still well-formed), %ld rejected\n",
		   accepted, rejected);
	CHECK(rejected > 1000);
}

/* Entry point. */
int
main(void)
{
	UNIT_RUN(test_helpers());
	UNIT_RUN(test_encode_api());
	UNIT_RUN(test_edges());
	UNIT_RUN(test_random());
	UNIT_RUN(test_hostile());
	UNIT_RUN(test_fuzz());
	return unit_finish();
}
