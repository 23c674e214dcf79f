/*
 * test_format2.c - unit tests of format version 2 (gpx_codec.h): exact
 * bytes of small values against the specification, the shapes at the
 * block-size boundaries (0, 1, 2, 15, 16 docIDs, 127 .. 257), the choice
 * of the block form by size at the dense / bitmap boundary, every block
 * kind in every codec, the last docID read from a one-block list's end,
 * header peeks from a prefix, rejection of truncated, padded and
 * corrupted values (header fields, varints, flags, kinds, offsets), the
 * 1-byte varlena reach of short lists, the GPU view, and version 1 blobs
 * written by gpuidx 0.1 (fixture_v1.h) decoding as before.
 */
#include <string.h>
#include "gpx_codec.h"
#include "gpx_intersect.h"
#include "unit.h"
#include "fixture_v1.h"

static const int codecs[] = {GPX_CODEC_PFOR, GPX_CODEC_LRC, GPX_CODEC_QS};
static uint32_t scratch[GPX_MAX_BLOCK];

#define KIND_EF		(1u << GPX_KIND_EF)
#define KIND_BM		(1u << GPX_KIND_BITMAP)
#define KIND_OWN	(1u << GPX_KIND_OWN)

/* Encode v2 with the given kinds (0: default) into an exact-size blob. */
static uint8_t *
enc(int codec, const uint32_t *d, uint32_t n, unsigned kinds, size_t *len)
{
	gpx_encode_opts o = {2, kinds};
	size_t		cap = gpx_encode_bound_ex(codec, n, n ? d[n - 1] : 0, &o);
	uint8_t    *buf = unit_xmalloc(cap);
	uint8_t    *out;
	gpx_status	st = gpx_encode_ex(codec, d, n, &o, buf, cap, len);

	CHECKF(st == GPX_OK, "%s n=%u kinds %x: encode %s", gpx_codec_name(codec),
		   n, kinds, gpx_status_str(st));
	if (st != GPX_OK)
	{
		free(buf);
		*len = 0;
		return NULL;
	}
	out = unit_xmalloc(*len);
	memcpy(out, buf, *len);
	free(buf);
	return out;
}

/* Whether blob[0..len) validates and reads back as d[0..n) every way. */
static bool
reads_back(const uint8_t *blob, size_t len, const uint32_t *d, uint32_t n)
{
	gpx_list	l;
	uint32_t   *out;
	bool		ok;
	uint32_t	i;

	if (unit_validate_exact(blob, len) != GPX_OK ||
		gpx_open(&l, blob, len) != GPX_OK || l.n != n)
		return false;
	if (n > 0 && (l.first != d[0] || l.last != d[n - 1]))
		return false;
	out = unit_xmalloc(sizeof(uint32_t) * (n + 1));
	gpx_decode(&l, out);
	ok = n == 0 || memcmp(out, d, sizeof(uint32_t) * n) == 0;
	for (i = 0; ok && i < n; i++)
	{
		uint32_t	v = 0;

		ok = gpx_nth(&l, i) == d[i] &&
			gpx_lower_bound(&l, d[i], &v) == i && v == d[i] &&
			gpx_contains(&l, d[i]) &&
			(d[i] == 0 || (i > 0 && d[i - 1] == d[i] - 1) ||
			 gpx_lower_bound(&l, d[i] - 1, &v) == i);
	}
	free(out);
	return ok;
}

/* Check that blob is exactly the expected bytes. */
static void
expect_bytes(const char *what, int codec, const uint32_t *d, uint32_t n,
			 const uint8_t *want, size_t wlen)
{
	size_t		len;
	uint8_t    *b = enc(codec, d, n, 0, &len);

	if (b == NULL)
		return;
	CHECKF(len == wlen && memcmp(b, want, wlen) == 0, "%s: %zu bytes", what, len);
	CHECKF(reads_back(b, len, d, n), "%s: reads back", what);
	free(b);
}

/* Exact bytes of small values, worked out by hand from the spec. */
static void
test_spec_bytes(void)
{
	static const uint32_t one[] = {5};
	static const uint32_t ext[] = {0, GPX_MAX_DOCID};
	static const uint32_t four[] = {7, 9, 100, 1000};
	uint32_t	dense[16];
	uint8_t		b_empty[] = {0xA0, 0x00};
	uint8_t		b_one[] = {0xE1, 0x05};
	/* lrc, n 2, EF: b = 31, LOW 2^31 - 2, the one at U + 0 */
	uint8_t		b_ext[] = {0xC2, 0x00, 0xDF, 0xFF, 0xFF, 0xFF, 0x1F};
	/* pfor, n 4, EF: b = 7 */
	uint8_t		b_four[] = {0xA4, 0x07, 0x28, 0x80, 0x0B, 0x7C, 0x04};
	/* qs, n 16, extended header, one bitmap block of 15 bits */
	uint8_t		b_dense[] = {0xE0, 0x05, 0x10, 0x0A, 0xFF, 0x7F};

	for (int i = 0; i < 16; i++)
		dense[i] = 10 + i;
	expect_bytes("empty pfor", GPX_CODEC_PFOR, NULL, 0, b_empty, sizeof b_empty);
	expect_bytes("qs {5}", GPX_CODEC_QS, one, 1, b_one, sizeof b_one);
	expect_bytes("lrc {0, 2^31-1}", GPX_CODEC_LRC, ext, 2, b_ext, sizeof b_ext);
	expect_bytes("pfor {7, 9, 100, 1000}", GPX_CODEC_PFOR, four, 4, b_four,
				 sizeof b_four);
	expect_bytes("qs 10..25", GPX_CODEC_QS, dense, 16, b_dense, sizeof b_dense);
	CHECK(gpx_blob_version(b_four, sizeof b_four) == 2 &&
		  gpx_blob_codec(b_four, sizeof b_four) == GPX_CODEC_PFOR &&
		  gpx_blob_codec(b_dense, sizeof b_dense) == GPX_CODEC_QS);
}

/* Shapes at n = 0, 1, 2, 15, 16 and around every block size. */
static void
test_shapes(void)
{
	static const uint32_t ns[] = {0, 1, 2, 3, 14, 15, 16, 17, 127, 128, 129,
	255, 256, 257, 511, 512, 513};
	unit_rng	r = {4242};
	uint32_t   *d = unit_xmalloc(sizeof(uint32_t) * 1024);

	for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
		for (int c = 0; c < 3; c++)
			for (int dist = 0; dist < 3; dist++)
			{
				uint32_t	n = unit_make_list(&r, (unit_dist) dist, ns[i],
											   dist == 1 ? 1u << 20 : (uint64_t) GPX_MAX_DOCID + 1, d);
				uint32_t	bs = codecs[c] == GPX_CODEC_PFOR ? 128 : 256;
				size_t		len;
				uint8_t    *b = enc(codecs[c], d, n, 0, &len);
				gpx_list	l;

				if (b == NULL)
					continue;
				CHECKF(reads_back(b, len, d, n), "%s n=%u dist %d", gpx_codec_name(codecs[c]), n, dist);
				gpx_open(&l, b, len);
				CHECK(l.version == 2 && l.codec == codecs[c]);
				/* tag: small lists carry n; a directory only past one block */
				if (n >= 1 && n <= 15)
					CHECKF((b[0] & 15) == n, "n=%u in the tag", n);
				else
					CHECK((b[0] & 15) == 0);
				CHECKF((l.dir != NULL) == (n > bs), "%s n=%u dir", gpx_codec_name(codecs[c]), n);
				if (l.dir != NULL)
					CHECK(((l.dir - b) & 3) == 0 && ((l.payload - b) & 3) == 0 &&
						  (l.payload_bytes & 3) == 0);
				else if (n > 1)
					CHECK(b[len - 1] != 0);	/* the last element's bit */
				free(b);
			}
	free(d);
}

/*
 * The form is chosen by size: a block is a bitmap exactly when that is
 * smaller than the alternatives (ties: own, Elias-Fano, bitmap).  Lists
 * from very sparse to full, one block and many, through every codec.
 */
static void
test_form_choice(void)
{
	unit_rng	r = {77};
	uint32_t   *d = unit_xmalloc(sizeof(uint32_t) * 4096);
	long		bitmaps = 0,
				efs = 0,
				owns = 0;

	for (int c = 0; c < 3; c++)
		for (uint32_t n = 2; n <= 1500; n += n < 40 ? 1 : 37)
			for (uint32_t span = n; span <= 12 * n + 8; span += 1 + span / 7)
			{
				uint32_t	m = unit_make_list(&r, UNIT_UNIFORM, n, span, d);
				size_t		len,
							lef = 0,
							lbm = 0;
				uint8_t    *b = enc(codecs[c], d, m, 0, &len);
				gpx_list	l;

				if (b == NULL)
					continue;
				CHECKF(reads_back(b, len, d, m), "%s n=%u span %u", gpx_codec_name(codecs[c]), m, span);
				gpx_open(&l, b, len);
				if (l.dir == NULL && m > 1)
				{
					/* one block: compare with both forms forced */
					uint8_t    *e = enc(codecs[c], d, m, KIND_EF, &lef);
					uint8_t    *t = enc(codecs[c], d, m, KIND_BM, &lbm);
					gpx_form	f = gpx_block_form(&l, 0);

					CHECKF(len == (lef < lbm ? lef : lbm) &&
						   f == (lbm < lef ? GPX_FORM_BITMAP : GPX_FORM_EF),
						   "%s n=%u span %u: %zu ef %zu bm %zu form %d",
						   gpx_codec_name(codecs[c]), m, span, len, lef, lbm, f);
					CHECK(e && t && reads_back(e, lef, d, m) && reads_back(t, lbm, d, m));
					free(e);
					free(t);
				}
				for (uint32_t k = 0; k < l.nblocks; k++)
				{
					gpx_form	f = gpx_block_form(&l, k);

					bitmaps += f == GPX_FORM_BITMAP;
					efs += f == GPX_FORM_EF;
					owns += f == GPX_FORM_PFOR || f == GPX_FORM_LRC;
				}
				free(b);
			}
	CHECKF(bitmaps > 100 && efs > 100 && owns > 100,
		   "forms seen: %ld bitmap, %ld ef, %ld own", bitmaps, efs, owns);
	free(d);
}

/* Every kind forced in every codec, including EF blocks in pfor and lrc. */
static void
test_forced_kinds(void)
{
	static const unsigned kinds[] = {KIND_EF, KIND_BM, KIND_OWN, KIND_EF | KIND_BM,
	KIND_OWN | KIND_BM, KIND_EF | KIND_OWN};
	unit_rng	r = {99};
	uint32_t   *d = unit_xmalloc(sizeof(uint32_t) * 20000);

	for (int c = 0; c < 3; c++)
		for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
			for (int t = 0; t < 12; t++)
			{
				uint32_t	n = 1 + unit_below(&r, t < 6 ? 300 : 20000);
				/*
				 * without Elias-Fano a one-block list (or all of a qs list)
				 * is a bitmap: keep the span bounded then
				 */
				uint64_t	span = !(kinds[k] & KIND_EF) ? (uint64_t) n * (1 + t % 5) :
					(t % 3 == 0 ? (uint64_t) GPX_MAX_DOCID + 1 : (uint64_t) n * (2 + t));
				uint32_t	m = unit_make_list(&r, (unit_dist) (t % 2), n, span, d);
				size_t		len;
				uint8_t    *b = enc(codecs[c], d, m, kinds[k], &len);
				gpx_list	l;
				bool		ok = true;

				if (b == NULL)
					continue;
				CHECKF(reads_back(b, len, d, m), "%s kinds %x n=%u",
					   gpx_codec_name(codecs[c]), kinds[k], m);
				gpx_open(&l, b, len);
				for (uint32_t i = 0; i < l.nblocks; i++)
				{
					gpx_form	f = gpx_block_form(&l, i);
					unsigned	kb = f == GPX_FORM_EF ? KIND_EF : f == GPX_FORM_BITMAP ? KIND_BM : KIND_OWN;

					/* one-block lists and qs have no own kind: EF stands in */
					if (!(kb & kinds[k]) &&
						!(kb == KIND_EF && (kinds[k] & KIND_OWN) &&
						  (l.dir == NULL || codecs[c] == GPX_CODEC_QS)))
						ok = false;
				}
				CHECKF(ok, "%s kinds %x n=%u: a block of another kind",
					   gpx_codec_name(codecs[c]), kinds[k], m);
				free(b);
			}
	free(d);
}

/*
 * n, first, last from the header; a one-block list's last from its end:
 * a prefix peek says GPX_E_TRUNCATED for it, GPX_PEEK_BYTES suffice for
 * the rest.
 */
static void
test_peek(void)
{
	unit_rng	r = {5};
	uint32_t   *d = unit_xmalloc(sizeof(uint32_t) * 5000);

	for (int c = 0; c < 3; c++)
		for (uint32_t n = 0; n < 5000; n = n < 20 ? n + 1 : n * 3)
		{
			uint32_t	m = unit_make_list(&r, UNIT_UNIFORM, n, 1u << 30, d);
			size_t		len;
			uint8_t    *b = enc(codecs[c], d, m, 0, &len);
			gpx_list	l,
						f;
			size_t		pre = len < GPX_PEEK_BYTES ? len : GPX_PEEK_BYTES;
			gpx_status	st;

			if (b == NULL)
				continue;
			gpx_open(&f, b, len);
			st = gpx_peek_header(&l, b, len, len);
			CHECK(st == GPX_OK && l.n == m && l.first == f.first && l.last == f.last &&
				  l.dir == NULL && l.payload == NULL);
			st = gpx_peek_header(&l, b, pre, len);
			if (f.nblocks == 1 && m >= 2 && pre < len)
				CHECKF(st == GPX_E_TRUNCATED, "%s n=%u: one-block peek %s",
					   gpx_codec_name(codecs[c]), m, gpx_status_str(st));
			else
				CHECKF(st == GPX_OK && l.n == m && l.first == f.first && l.last == f.last,
					   "%s n=%u: peek of %zu bytes: %s", gpx_codec_name(codecs[c]), m,
					   pre, gpx_status_str(st));
			CHECK(gpx_peek_header(&l, b, len, len - 1) == GPX_E_ARG);
			free(b);
		}
	free(d);
}

/* Whether an accepted blob reads as a sane list (validate already said OK). */
static bool
sane(const uint8_t *blob, size_t len)
{
	gpx_list	l;
	uint32_t   *out;
	bool		ok;

	if (gpx_open(&l, blob, len) != GPX_OK)
		return false;
	out = unit_xmalloc(sizeof(uint32_t) * ((size_t) l.n + 1));
	gpx_decode(&l, out);
	ok = gpx_check_sorted(out, l.n) == GPX_OK &&
		(l.n == 0 || (out[0] == l.first && out[l.n - 1] == l.last));
	free(out);
	return ok;
}

/* Validate a modified copy: rejected, or accepted and sane. */
static bool
rejected_or_sane(const uint8_t *bad, size_t len)
{
	gpx_status	st = unit_validate_exact(bad, len);

	return st != GPX_OK || sane(bad, len);
}

/*
 * Truncations, trailing bytes, every header byte changed, the directory's
 * firsts and locs changed, random flips: never accepted as garbage.
 */
static void
test_corruptions(void)
{
	unit_rng	r = {31337};
	uint32_t   *d = unit_xmalloc(sizeof(uint32_t) * 3000);

	for (int c = 0; c < 3; c++)
		for (int t = 0; t < 14; t++)
		{
			static const uint32_t ns[] = {0, 1, 2, 5, 15, 16, 40, 128, 129, 256, 257, 600, 1000, 2999};
			uint32_t	m = unit_make_list(&r, (unit_dist) (t % 3), ns[t],
										   t % 2 ? (uint64_t) ns[t] * 3 + 2 : (uint64_t) GPX_MAX_DOCID + 1, d);
			size_t		len;
			uint8_t    *b = enc(codecs[c], d, m, 0, &len);
			uint8_t    *bad;
			gpx_list	l;
			bool		all = true;
			size_t		hdr;

			if (b == NULL)
				continue;
			gpx_open(&l, b, len);
			/* every truncation */
			for (size_t cut = 0; cut < len; cut++)
			{
				bad = unit_xmalloc(cut);
				memcpy(bad, b, cut);
				if (gpx_validate(bad, cut, scratch) == GPX_OK)
					all = false;
				free(bad);
			}
			CHECKF(all, "%s n=%u: a truncation validated", gpx_codec_name(codecs[c]), m);
			/* trailing zero bytes (1..8) */
			for (size_t extra = 1; extra <= 8; extra++)
			{
				bad = unit_xmalloc(len + extra);
				memcpy(bad, b, len);
				memset(bad + len, 0, extra);
				CHECKF(gpx_validate(bad, len + extra, scratch) != GPX_OK,
					   "%s n=%u: %zu trailing zero bytes accepted",
					   gpx_codec_name(codecs[c]), m, extra);
				free(bad);
			}
			/* every byte of the header and directory, several new values */
			hdr = l.nblocks > 1 ? (size_t) (l.payload - b) : (size_t) l.hdr_bytes;
			bad = unit_xmalloc(len);
			all = true;
			for (size_t at = 0; at < hdr; at++)
				for (int v = 0; v < 6; v++)
				{
					static const uint8_t deltas[] = {1, 0xFF, 0x80, 0x40, 0x10, 0x04};

					memcpy(bad, b, len);
					bad[at] = (uint8_t) (bad[at] + deltas[v]);
					if (!rejected_or_sane(bad, len))
					{
						fprintf(stderr, "  byte %zu +%u\n", at, deltas[v]);
						all = false;
					}
				}
			/* payload flips */
			for (int f = 0; f < 400 && len > 0; f++)
			{
				memcpy(bad, b, len);
				bad[unit_below(&r, len)] ^= (uint8_t) (1u << unit_below(&r, 8));
				if (!rejected_or_sane(bad, len))
					all = false;
			}
			CHECKF(all, "%s n=%u: a corrupted value validated and reads wrongly",
				   gpx_codec_name(codecs[c]), m);
			free(bad);
			free(b);
		}
	free(d);
}

/* Hand-made values: varints, reserved bits, flags, kinds, offsets. */
static void
test_crafted(void)
{
	gpx_list	l;
	uint32_t	d[300];
	size_t		len;
	uint8_t    *b;

	/* non-canonical varints: n = 16 as 0x90 0x00, first with a 6th byte */
	{
		uint8_t		ok[] = {0xE0, 0x05, 0x10, 0x0A, 0xFF, 0x7F};
		uint8_t		long_n[] = {0xE0, 0x05, 0x90, 0x00, 0x0A, 0xFF, 0x7F};
		uint8_t		long_f[] = {0xE0, 0x05, 0x10, 0x8A, 0x80, 0x80, 0x80, 0x80, 0x00, 0xFF, 0x7F};
		uint8_t		big_f[] = {0xE1, 0x80, 0x80, 0x80, 0x80, 0x08};	/* 2^31 */
		uint8_t		max_f[] = {0xE1, 0xFF, 0xFF, 0xFF, 0xFF, 0x07};	/* 2^31-1 */

		CHECK(unit_validate_exact(ok, sizeof ok) == GPX_OK);
		CHECK(unit_validate_exact(long_n, sizeof long_n) != GPX_OK);
		CHECK(unit_validate_exact(long_f, sizeof long_f) != GPX_OK);
		CHECK(unit_validate_exact(big_f, sizeof big_f) == GPX_E_HEADER);
		CHECK(unit_validate_exact(max_f, sizeof max_f) == GPX_OK &&
			  gpx_open(&l, max_f, sizeof max_f) == GPX_OK && l.last == GPX_MAX_DOCID);
	}
	/* tags and info words */
	{
		uint8_t		codec0[] = {0x81, 0x05};	/* codec 0 */
		uint8_t		kind_ext[] = {0xB0, 0x00};	/* s = 0 with k = 1 */
		uint8_t		one_bm[] = {0xF1, 0x05};	/* n = 1 as a bitmap */
		uint8_t		shape3[] = {0xE0, 0x03};
		uint8_t		info_hi[] = {0xE0, 0x40};
		uint8_t		empty_trail[] = {0xE0, 0x00, 0x00};
		uint8_t		one_trail[] = {0xE1, 0x05, 0x00};
		uint8_t		kind2[] = {0xE0, 0x09, 0x10, 0x0A, 0xFF, 0x7F};	/* own kind, one block */
		uint8_t		tf[] = {0xE0, 0x15, 0x10, 0x0A, 0x00, 0xFF, 0x7F};	/* F_TF, t = 0 */
		uint8_t		v3[] = {0x03, 0x00};
		uint8_t		v0[] = {0x00};

		CHECK(unit_validate_exact(codec0, sizeof codec0) == GPX_E_CODEC);
		CHECK(unit_validate_exact(kind_ext, sizeof kind_ext) == GPX_E_HEADER);
		CHECK(unit_validate_exact(one_bm, sizeof one_bm) == GPX_E_HEADER);
		CHECK(unit_validate_exact(shape3, sizeof shape3) == GPX_E_HEADER);
		CHECK(unit_validate_exact(info_hi, sizeof info_hi) == GPX_E_HEADER);
		CHECK(unit_validate_exact(empty_trail, sizeof empty_trail) == GPX_E_TRAILING);
		CHECK(unit_validate_exact(one_trail, sizeof one_trail) == GPX_E_TRAILING);
		CHECK(unit_validate_exact(kind2, sizeof kind2) == GPX_E_HEADER);
		/* the tf flag with an empty section (t = 0) for 16 docIDs */
		CHECK(unit_validate_exact(tf, sizeof tf) != GPX_OK);
		CHECK(unit_validate_exact(v3, sizeof v3) == GPX_E_VERSION);
		CHECK(unit_validate_exact(v0, sizeof v0) == GPX_E_VERSION);
		CHECK(gpx_validate(v0, 0, scratch) == GPX_E_TRUNCATED);
	}
	/* directory: kinds, offsets, alignment, padding, extra entry bytes */
	for (int c = 0; c < 3; c++)
	{
		uint32_t	i;

		for (i = 0; i < 300; i++)
			d[i] = 3 * i + (i % 7 == 0);
		b = enc(codecs[c], d, 300, 0, &len);
		if (b == NULL)
			continue;
		gpx_open(&l, b, len);
		CHECK(l.nblocks >= 2 && l.dir != NULL);
		for (uint32_t k = 0; k < l.nblocks; k++)
		{
			uint8_t    *bad = unit_xmalloc(len);
			uint8_t    *e = bad + (l.dir - b) + (size_t) k * 8 + 4;
			uint32_t	loc;

			for (uint32_t kind = 0; kind < 4; kind++)
			{
				memcpy(bad, b, len);
				memcpy(&loc, e, 4);
				if ((loc & 3) == kind)
					continue;
				loc = (loc & ~3u) | kind;
				memcpy(e, &loc, 4);
				CHECKF(rejected_or_sane(bad, len), "%s block %u kind %u",
					   gpx_codec_name(codecs[c]), k, kind);
				if (kind == 3 || (kind == GPX_KIND_OWN && codecs[c] == GPX_CODEC_QS))
					CHECK(unit_validate_exact(bad, len) == GPX_E_DIRECTORY);
			}
			for (int delta = -8; delta <= 8; delta += 4)
			{
				if (delta == 0)
					continue;
				memcpy(bad, b, len);
				memcpy(&loc, e, 4);
				loc += (uint32_t) delta;
				memcpy(e, &loc, 4);
				CHECKF(unit_validate_exact(bad, len) != GPX_OK, "%s block %u loc %+d",
					   gpx_codec_name(codecs[c]), k, delta / 4);
			}
			free(bad);
		}
		/* a non-zero padding byte before the directory */
		if (l.dir - b > (ptrdiff_t) l.hdr_bytes)
		{
			b[l.hdr_bytes] = 1;
			CHECK(unit_validate_exact(b, len) == GPX_E_HEADER);
		}
		free(b);
	}
	/* the directory-extra flag parses, with wider entries, but is not valid yet */
	{
		uint32_t	i;
		uint8_t    *w;
		size_t		wl,
					hdr,
					nb;

		for (i = 0; i < 300; i++)
			d[i] = 2 * i;
		b = enc(GPX_CODEC_QS, d, 300, 0, &len);
		gpx_open(&l, b, len);
		nb = l.nblocks;
		/* rebuild: info | DIREXTRA, x = 4 after last - first */
		w = unit_xmalloc(len + 4 + 4 * nb);
		hdr = 0;
		w[hdr++] = b[0];
		w[hdr++] = (uint8_t) (b[1] | GPX_F_DIREXTRA);
		memcpy(w + hdr, b + 2, l.hdr_bytes - 2);
		hdr += l.hdr_bytes - 2;
		w[hdr++] = 4;
		while (hdr & 3)
			w[hdr++] = 0;
		for (size_t k = 0; k < nb; k++)
		{
			memcpy(w + hdr, l.dir + 8 * k, 8);
			memset(w + hdr + 8, 0xAB, 4);
			hdr += 12;
		}
		memcpy(w + hdr, l.payload, l.payload_bytes);
		wl = hdr + l.payload_bytes;
		{
			gpx_list	x;
			uint32_t   *out = unit_xmalloc(sizeof(uint32_t) * 300);

			/* extra entry bytes come only with a tf section (test_tf.c) */
			CHECK(gpx_open(&x, w, wl) == GPX_E_HEADER);
			CHECK(unit_validate_exact(w, wl) == GPX_E_HEADER);
			free(out);
		}
		free(w);
		free(b);
	}
}

/* Short lists fit a 1-byte varlena header: <= 126 bytes up to 30 docIDs. */
static void
test_short_values(void)
{
	unit_rng	r = {8};
	uint32_t	d[30];
	size_t		worst = 0;

	for (int t = 0; t < 3000; t++)
		for (int c = 0; c < 3; c++)
		{
			uint32_t	n = 1 + unit_below(&r, 30);
			uint32_t	m = unit_make_list(&r, (unit_dist) (t % 3), n,
										   (uint64_t) GPX_MAX_DOCID + 1, d);
			size_t		len;
			uint8_t    *b = enc(codecs[c], d, m, 0, &len);

			if (len > worst)
				worst = len;
			CHECK(b != NULL && len <= 126);
			free(b);
		}
	printf("short lists: <= 30 docIDs anywhere in [0, 2^31): at most %zu bytes\n", worst);
}

/*
 * Fixed overhead on small lists: stored size (blob + PostgreSQL's 1-byte
 * header) minus the Elias-Fano bound n * (2 + floor(log2(u / n))) bits, on
 * average over random lists of 1 to 8 docIDs in universes of 2^10 .. 2^24
 * docIDs: at most 4 bytes.
 */
static void
test_small_overhead(void)
{
	unit_rng	r = {1234};
	uint32_t	d[8];

	for (uint32_t lg = 10; lg <= 24; lg += 7)
		for (uint32_t n = 1; n <= 8; n++)
		{
			double		over = 0;
			int			reps = 500;
			uint32_t	fl = 0;

			while ((n << (fl + 1)) <= (1u << lg))
				fl++;
			for (int t = 0; t < reps; t++)
			{
				uint32_t	m = unit_make_list(&r, UNIT_UNIFORM, n, 1u << lg, d);
				size_t		len;
				uint8_t    *b = enc(GPX_CODEC_QS, d, m, 0, &len);

				over += (double) (len + 1) - m * (2.0 + fl) / 8.0;
				free(b);
			}
			over /= reps;
			CHECKF(over <= 4.0, "u 2^%u n=%u: overhead %.2f bytes", lg, n, over);
		}
}

/* The GPU view: word-aligned multi-block payloads, any-byte one-blocks. */
static void
test_dev_view(void)
{
	uint32_t	d[1000];
	gpx_devview v;
	gpx_list	l;

	for (uint32_t n = 1; n < 1000; n = n * 2 + 1)
		for (int c = 0; c < 3; c++)
		{
			size_t		len;
			uint8_t    *b;

			for (uint32_t i = 0; i < n; i++)
				d[i] = 1000 * i + 5;
			b = enc(codecs[c], d, n, 0, &len);
			gpx_open(&l, b, len);
			CHECK(gpx_dev_view(&l, &v) == GPX_OK && v.version == 2);
			CHECK(v.payload_bytes == l.payload_bytes);
			if (l.nblocks > 1)
				CHECK(v.dir_off == (uint32_t) (l.dir - b) && v.payload_bit == 0 &&
					  v.payload_off == (uint32_t) (l.payload - b) &&
					  v.payload_words * 4 == l.payload_bytes && (v.payload_off & 3) == 0);
			else
				CHECK(v.dir_off == 0 && v.payload_off + v.payload_bit / 8 ==
					  (uint32_t) (l.payload - b) && (v.payload_off & 3) == 0 &&
					  v.payload_words * 4 >= v.payload_bit / 8 + l.payload_bytes &&
					  v.payload_words * 4 < v.payload_bit / 8 + l.payload_bytes + 4);
			free(b);
		}
	CHECK(gpx_dev_view(NULL, &v) == GPX_E_ARG);
}

/*
 * Version 1 values written by gpuidx 0.1 (fixture_v1.h, from the 0.1
 * encoder): they validate, read back as their lists, intersect with
 * version 2 lists, and this library's version 1 writer still writes
 * them byte for byte.
 */
static void
test_v1_fixture(void)
{
	for (size_t i = 0; i < sizeof fixture_v1 / sizeof fixture_v1[0]; i++)
	{
		const fixture_v1_value *f = &fixture_v1[i];
		uint8_t    *blob = unit_xmalloc(f->len);
		gpx_encode_opts o = {GPX_FORMAT_V1, 0};
		size_t		cap = gpx_encode_bound_ex(f->codec, f->n, f->n ? f->docs[f->n - 1] : 0, &o),
					len = 0,
					l2;
		uint8_t    *again = unit_xmalloc(cap);
		uint8_t    *v2;
		gpx_list	a,
					b;
		const gpx_list *ls[2];
		uint32_t   *out = unit_xmalloc(sizeof(uint32_t) * (f->n + 1));
		uint32_t	on = 0;

		memcpy(blob, f->blob, f->len);
		CHECKF(gpx_blob_version(blob, f->len) == 1 && reads_back(blob, f->len, f->docs, f->n),
			   "fixture %s", f->name);
		CHECKF(gpx_encode_ex(f->codec, f->docs, f->n, &o, again, cap, &len) == GPX_OK &&
			   len == f->len && memcmp(again, f->blob, len) == 0,
			   "fixture %s: the v1 writer changed", f->name);
		/* v1 with v2 of the same list: the intersection is the list */
		v2 = enc(f->codec, f->docs, f->n, 0, &l2);
		if (v2 != NULL && gpx_open(&a, blob, f->len) == GPX_OK &&
			gpx_open(&b, v2, l2) == GPX_OK)
		{
			ls[0] = &a;
			ls[1] = &b;
			CHECKF(gpx_intersect(ls, 2, out, &on, NULL) == GPX_OK && on == f->n &&
				   memcmp(out, f->docs, sizeof(uint32_t) * f->n) == 0,
				   "fixture %s: v1 & v2", f->name);
		}
		free(v2);
		free(out);
		free(again);
		free(blob);
	}
}

int
main(void)
{
	UNIT_RUN(test_spec_bytes());
	UNIT_RUN(test_shapes());
	UNIT_RUN(test_form_choice());
	UNIT_RUN(test_forced_kinds());
	UNIT_RUN(test_peek());
	UNIT_RUN(test_corruptions());
	UNIT_RUN(test_crafted());
	UNIT_RUN(test_short_values());
	UNIT_RUN(test_small_overhead());
	UNIT_RUN(test_dev_view());
	UNIT_RUN(test_v1_fixture());
	return unit_finish();
}
