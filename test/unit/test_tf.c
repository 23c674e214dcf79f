/*
 * test_tf.c - unit tests of the term-frequency section of format version
 * 2 (gpx_codec.h, GPX_F_TF): round trips in every codec and block kind at
 * the block boundaries (0, 1, 2, 15, 16, 127 .. 257, thousands), with tf = 1
 * everywhere, tf = 2^31-1, random and skewed frequencies; the per-block
 * largest tf from the directory or header; docID readers unchanged; the
 * GPU view's tf offset; lists without frequencies reading as tf = 1; and
 * rejection of hostile values: every truncation and extension, offsets,
 * largest-tf fields, selectors, tf padding, flags.
 */
#include <string.h>
#include "gpx_codec.h"
#include "gpx_simple8b.h"
#include "unit.h"

static const int codecs[] = {GPX_CODEC_PFOR, GPX_CODEC_LRC, GPX_CODEC_QS};

/* Encode docs with tfs (kinds 0: default) into an exact-size blob. */
static uint8_t *
enc_tf(int codec, const uint32_t *d, const uint32_t *tf, uint32_t n,
	   unsigned kinds, size_t *len)
{
	gpx_encode_opts o;
	size_t		cap;
	uint8_t    *buf,
			   *out;
	gpx_status	st;

	memset(&o, 0, sizeof(o));
	o.version = 2;
	o.kinds = kinds;
	cap = gpx_encode_bound_tf_ex(codec, n, n ? d[n - 1] : 0, &o);
	CHECK(kinds != 0 || cap == gpx_encode_bound_tf(codec, n, n ? d[n - 1] : 0));
	buf = unit_xmalloc(cap);
	st = gpx_encode_tf_ex(codec, d, tf, n, &o, buf, cap, len);
	CHECKF(st == GPX_OK, "%s n=%u kinds %x: encode %s", gpx_codec_name(codec),
		   n, kinds, gpx_status_str(st));
	if (st != GPX_OK)
	{
		free(buf);
		*len = 0;
		return NULL;
	}
	out = unit_xmalloc(*len ? *len : 1);
	memcpy(out, buf, *len);
	free(buf);
	return out;
}

/* Whether blob reads back as docs d and frequencies tf every way. */
static bool
reads_back_tf(const uint8_t *blob, size_t len, const uint32_t *d,
			  const uint32_t *tf, uint32_t n)
{
	gpx_list	l;
	gpx_devview v;
	uint32_t   *out,
			   *tout,
				blk[GPX_MAX_BLOCK],
				done = 0;
	bool		ok = true;

	if (unit_validate_exact(blob, len) != GPX_OK ||
		gpx_open(&l, blob, len) != GPX_OK || l.n != n ||
		gpx_has_tfs(&l) != (n > 0))
		return false;
	out = unit_xmalloc(sizeof(uint32_t) * (n + 1));
	tout = unit_xmalloc(sizeof(uint32_t) * (n + 1));
	gpx_decode(&l, out);
	gpx_decode_tfs(&l, tout);
	ok = memcmp(out, d, sizeof(uint32_t) * n) == 0 &&
		memcmp(tout, tf, sizeof(uint32_t) * n) == 0;
	for (uint32_t b = 0; ok && b < l.nblocks; b++)
	{
		uint32_t	c = gpx_decode_block_tfs(&l, b, blk),
					mx = 0;

		for (uint32_t i = 0; i < c; i++)
			mx = blk[i] > mx ? blk[i] : mx;
		ok = c == gpx_block_count(&l, b) &&
			memcmp(blk, tf + done, sizeof(uint32_t) * c) == 0 &&
			gpx_block_tf_max(&l, b) == mx;
		done += c;
	}
	for (uint32_t i = 0; ok && i < n; i += 1 + i / 3)
		ok = gpx_nth(&l, i) == d[i] && gpx_contains(&l, d[i]);
	if (ok)
		ok = gpx_dev_view(&l, &v) == GPX_OK &&
			(n == 0 || (v.tf_off % 4 == 0 && v.tf_off + v.tf_bytes == len &&
						blob + v.tf_off == l.tf &&
						v.payload_off + 4ull * v.payload_words <= v.tf_off + 3ull));
	free(out);
	free(tout);
	return ok;
}

/* Frequencies of pattern p for n postings. */
static void
make_tfs(unit_rng *r, int p, uint32_t n, uint32_t *tf)
{
	for (uint32_t i = 0; i < n; i++)
		switch (p)
		{
			case 0:
				tf[i] = 1;
				break;
			case 1:
				tf[i] = GPX_S8B_MAX_VALUE;
				break;
			case 2:				/* skewed: mostly 1..3, now and then large */
				tf[i] = unit_below(r, 10) < 7 ? 1 + unit_below(r, 3) :
					unit_below(r, 50) == 0 ? 1 + unit_below(r, GPX_S8B_MAX_VALUE) :
					1 + unit_below(r, 1000);
				break;
			default:			/* runs of 1 with single outliers */
				tf[i] = i % 97 == 13 ? GPX_S8B_MAX_VALUE - i : 1;
				break;
		}
}

/* Round trips: every codec, kind set, size and pattern. */
static void
test_roundtrips(void)
{
	static const uint32_t ns[] = {1, 2, 3, 15, 16, 17, 127, 128, 129, 255,
	256, 257, 383, 384, 385, 1000, 5000};
	static const unsigned kindsets[] = {0, 1u << GPX_KIND_EF,
		1u << GPX_KIND_BITMAP, 1u << GPX_KIND_OWN};
	unit_rng	r = {1919};
	uint32_t   *d = unit_xmalloc(sizeof(uint32_t) * 5000);
	uint32_t   *tf = unit_xmalloc(sizeof(uint32_t) * 5000);

	for (int c = 0; c < 3; c++)
		for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
			for (int p = 0; p < 4; p++)
				for (size_t k = 0; k < sizeof(kindsets) / sizeof(kindsets[0]); k++)
				{
					/* dense lists make bitmaps; sparse ones the other kinds */
					uint32_t	span = (k == 2 || p == 3) ? ns[i] * 2 + 5 : 1u << 30;
					uint32_t	n = unit_make_list(&r, (unit_dist) ((i + p) % 3), ns[i],
												   span, d);
					size_t		len;
					uint8_t    *b;

					make_tfs(&r, p, n, tf);
					b = enc_tf(codecs[c], d, tf, n, kindsets[k], &len);
					if (b == NULL)
						continue;
					CHECKF(reads_back_tf(b, len, d, tf, n),
						   "%s n=%u pattern %d kinds %x", gpx_codec_name(codecs[c]),
						   n, p, kindsets[k]);
					free(b);
				}
	free(d);
	free(tf);
}

/* The empty list carries no section; lists without one read tf = 1. */
static void
test_without(void)
{
	uint32_t	d[300],
				tf[300],
				blk[GPX_MAX_BLOCK];
	uint8_t		buf[4096];
	size_t		len;
	gpx_list	l;

	CHECK(gpx_encode_tf(GPX_CODEC_PFOR, NULL, NULL, 0, buf, sizeof buf, &len) == GPX_OK);
	CHECK(len == 2 && gpx_open(&l, buf, len) == GPX_OK && !gpx_has_tfs(&l));
	for (int i = 0; i < 300; i++)
		d[i] = 3 * i + 1;
	for (int c = 0; c < 3; c++)
	{
		CHECK(gpx_encode(codecs[c], d, 300, buf, sizeof buf, &len) == GPX_OK);
		CHECK(gpx_open(&l, buf, len) == GPX_OK && !gpx_has_tfs(&l));
		gpx_decode_tfs(&l, tf);
		for (int i = 0; i < 300; i++)
			CHECK(tf[i] == 1);
		CHECK(gpx_decode_block_tfs(&l, 1, blk) == gpx_block_count(&l, 1) &&
			  blk[0] == 1 && gpx_block_tf_max(&l, 1) == 1);
	}
}

/* Encoder arguments: tf out of range, version 1, missing array. */
static void
test_bad_args(void)
{
	uint32_t	d[3] = {1, 5, 9},
				tf[3] = {1, 0, 2};
	uint8_t		buf[1024];
	size_t		len;
	gpx_encode_opts o;

	CHECK(gpx_encode_tf(GPX_CODEC_QS, d, tf, 3, buf, sizeof buf, &len) == GPX_E_RANGE);
	tf[1] = 0x80000000u;
	CHECK(gpx_encode_tf(GPX_CODEC_QS, d, tf, 3, buf, sizeof buf, &len) == GPX_E_RANGE);
	tf[1] = 7;
	CHECK(gpx_encode_tf(GPX_CODEC_QS, d, NULL, 3, buf, sizeof buf, &len) == GPX_E_ARG);
	CHECK(gpx_encode_tf(GPX_CODEC_QS, d, tf, 3, buf, 4, &len) == GPX_E_NOSPACE);
	memset(&o, 0, sizeof(o));
	o.version = GPX_FORMAT_V1;
	CHECK(gpx_encode_tf_ex(GPX_CODEC_QS, d, tf, 3, &o, buf, sizeof buf, &len) == GPX_E_VERSION);
	d[2] = 2;
	CHECK(gpx_encode_tf(GPX_CODEC_QS, d, tf, 3, buf, sizeof buf, &len) == GPX_E_UNSORTED);
}

/* Exact bytes of a small list with frequencies, against the spec. */
static void
test_spec_bytes(void)
{
	uint32_t	d[2] = {5, 7},
				tf[2] = {1, 3};
	uint8_t		buf[256];
	size_t		len;
	gpx_list	l;

	/*
	 * tag 0xE0 (qs, extended); info 0x11 (shape 1, Elias-Fano, F_TF);
	 * n 2; first 5; t 8; m 3; the EF block of {7} after 5; zero padding
	 * to a multiple of 4; one Simple-8b word holding tf - 1 = {0, 2}
	 */
	CHECK(gpx_encode_tf(GPX_CODEC_QS, d, tf, 2, buf, sizeof buf, &len) == GPX_OK);
	CHECK(buf[0] == 0xE0 && buf[1] == 0x11 && buf[2] == 2 && buf[3] == 5 &&
		  buf[4] == 8 && buf[5] == 3);
	CHECK(len % 4 == 0 && len >= 8 + 8);
	CHECK(gpx_open(&l, buf, len) == GPX_OK && l.tf == buf + len - 8 &&
		  l.tf_bytes == 8 && l.tf_max0 == 3 && l.last == 7);
	CHECK(buf[len - 1] >> 4 != 0);	/* a selector > 0: the word holds a 2 */
	/* n = 1: no block bytes, padding up to the section */
	CHECK(gpx_encode_tf(GPX_CODEC_PFOR, d, tf + 1, 1, buf, sizeof buf, &len) == GPX_OK);
	CHECK(buf[0] == 0xA0 && buf[1] == 0x11 && buf[2] == 1 && buf[3] == 5 &&
		  buf[4] == 8 && buf[5] == 3 && buf[6] == 0 && buf[7] == 0 && len == 16);
	CHECK(gpx_open(&l, buf, len) == GPX_OK && l.payload_bytes == 0 && l.last == 5);
	CHECK(unit_validate_exact(buf, len) == GPX_OK);
}

/* Whether a changed copy of blob is rejected (or still reads back sanely). */
static gpx_status
mutated(const uint8_t *blob, size_t len, size_t at, uint8_t x)
{
	uint8_t    *c = unit_xmalloc(len);
	gpx_status	st;

	memcpy(c, blob, len);
	c[at] ^= x;
	st = unit_validate_exact(c, len);
	if (st == GPX_OK)
	{
		gpx_list	l;
		uint32_t   *tf;
		bool		sane = true;

		/* a still-valid value decodes without trouble */
		CHECK(gpx_open(&l, c, len) == GPX_OK);
		tf = unit_xmalloc(sizeof(uint32_t) * (l.n + 1));
		gpx_decode_tfs(&l, tf);
		for (uint32_t i = 0; i < l.n; i++)
			sane &= tf[i] >= 1 && tf[i] <= GPX_S8B_MAX_VALUE;
		CHECK(sane);
		free(tf);
	}
	free(c);
	return st;
}

/* Hostile bytes: truncations, extensions, the tf fields, every byte. */
static void
test_hostile(void)
{
	unit_rng	r = {4711};
	uint32_t   *d = unit_xmalloc(sizeof(uint32_t) * 2000);
	uint32_t   *tf = unit_xmalloc(sizeof(uint32_t) * 2000);
	static const uint32_t ns[] = {1, 2, 14, 200, 700, 2000};

	for (int c = 0; c < 3; c++)
		for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
		{
			uint32_t	n = unit_make_list(&r, UNIT_UNIFORM, ns[i], 1u << 24, d);
			size_t		len,
						cut;
			uint8_t    *b,
					   *w;
			gpx_list	l;

			make_tfs(&r, 2, n, tf);
			b = enc_tf(codecs[c], d, tf, n, 0, &len);
			if (b == NULL)
				continue;
			CHECK(gpx_open(&l, b, len) == GPX_OK);
			/* every cut and every extension is rejected */
			for (cut = 0; cut < len; cut++)
				CHECKF(unit_validate_exact(b, cut) != GPX_OK, "%s n=%u cut %zu",
					   gpx_codec_name(codecs[c]), n, cut);
			w = unit_xmalloc(len + 16);
			memcpy(w, b, len);
			for (size_t e = 1; e <= 16; e++)
			{
				memset(w + len, e == 3 ? 0 : 0x41, e);
				CHECKF(unit_validate_exact(w, len + e) != GPX_OK, "%s n=%u +%zu",
					   gpx_codec_name(codecs[c]), n, e);
			}
			free(w);
			if (l.dir != NULL)
			{
				size_t		dir0 = (size_t) (l.dir - b);
				size_t		last = dir0 + (size_t) (l.nblocks - 1) * l.dir_stride;

				/* offsets: block 1's moved, block 0's not 0 */
				CHECK(mutated(b, len, dir0 + l.dir_stride + 8, 8) == GPX_E_DIRECTORY);
				CHECK(mutated(b, len, dir0 + 8, 8) == GPX_E_DIRECTORY);
				/* largest tf: one more, one less, zero */
				CHECK(mutated(b, len, dir0 + 12, 1) == GPX_E_DIRECTORY);
				CHECK(mutated(b, len, last + 12, 1) == GPX_E_DIRECTORY);
				CHECK(mutated(b, len, last + 15, 0x80) == GPX_E_DIRECTORY);
				/* the flags: tf without the extra bytes, extra without tf */
				CHECK(mutated(b, len, 1, GPX_F_TF) == GPX_E_HEADER);
				CHECK(mutated(b, len, 1, GPX_F_DIREXTRA) == GPX_E_HEADER);
			}
			else
			{
				/* the header's largest tf is the last header varint */
				CHECK(mutated(b, len, 1, GPX_F_TF) != GPX_OK);
				CHECK(mutated(b, len, l.hdr_bytes - 1, 1) != GPX_OK);
			}
			/* a selector of the section: any other is rejected or sane */
			for (uint32_t s = 1; s < 16; s++)
				(void) mutated(b, len, len - 1, (uint8_t) (s << 4));
			/* every byte, one bit each: never a crash, always a sane list */
			for (size_t at = 0; at < len; at++)
				(void) mutated(b, len, at, (uint8_t) (1u << unit_below(&r, 8)));
			free(b);
		}
	free(d);
	free(tf);
}

int
main(void)
{
	UNIT_RUN(test_roundtrips());
	UNIT_RUN(test_without());
	UNIT_RUN(test_bad_args());
	UNIT_RUN(test_spec_bytes());
	UNIT_RUN(test_hostile());
	return unit_finish();
}
