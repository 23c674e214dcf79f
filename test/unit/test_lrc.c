/*
 * test_lrc.c - standalone unit test of the SegLRC codec (gpx_lrc.c):
 * round trips, random access and LR-contracted search against naive
 * references, codec-specific corruptions, a fuzz pass, and size
 * measurements (bits/docID against the VLDB 2011 Table 5 LRC figures,
 * slope choices, and the HS-LRC bucket alternative).
 *
 *   cc -O2 -Wall -Wextra -Isrc/codec -Itest/ref -Itest/unit test/unit/test_lrc.c \
 *      src/codec/gpx_*.c test/ref/gpx_ref.c test/unit/unit.c -lm -lpthread
 *
 * Exits non-zero on any failure; the last line is "N passed, N failed".
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpx_internal.h"
#include "unit.h"

/*
 * This file tests the version 1 format (values written by gpuidx 0.1, read
 * forever): main() makes unit_encode_exact write version 1.  Version 2 has
 * test_format2.c; the codec-independent suites run on both.
 */

#define SEG 256
#define HDR_WORDS 3

/* ---------------------------------------------------------------- rng */

static unit_rng rng = {0x123456789ABCDEFull};

/* splitmix64 step (the shared unit_rng). */
static uint64_t
rnd(void)
{
	return unit_next(&rng);
}

/* Uniform in [0, bound). */
static uint32_t
below(uint64_t bound)
{
	return unit_below(&rng, bound);
}

/* ---------------------------------------------------------- generators */

/* qsort comparator for uint32. */
static int
cmp_u32(const void *a, const void *b)
{
	uint32_t	x = *(const uint32_t *) a,
				y = *(const uint32_t *) b;

	return x < y ? -1 : x > y;
}

/* n distinct uniform values in [0, u), sorted (n <= u <= 2^31). */
static void
gen_uniform(uint32_t *d, uint32_t n, uint64_t u)
{
	uint32_t	m = 0;
	uint64_t	v;

	if (u > (1ull << 31))
		u = 1ull << 31;
	if (u <= 4ull * n || (u <= (1ull << 25) && n >= 65536))
	{
		/* dense: a bitmap of the universe */
		uint8_t    *bm = calloc(u, 1);

		if (bm == NULL)
			exit(2);
		while (m < n)
		{
			v = rnd() % u;
			if (!bm[v])
			{
				bm[v] = 1;
				m++;
			}
		}
		m = 0;
		for (v = 0; v < u; v++)
			if (bm[v])
				d[m++] = (uint32_t) v;
		free(bm);
		return;
	}
	/* sparse: draw, sort, de-duplicate, top up */
	while (m < n)
	{
		uint32_t	i,
					k = 0;

		while (m < n)
			d[m++] = (uint32_t) (rnd() % u);
		qsort(d, n, 4, cmp_u32);
		for (i = 0; i < n; i++)
			if (k == 0 || d[i] != d[k - 1])
				d[k++] = d[i];
		m = k;
	}
}

/*
 * Clustered: alternating dense runs (gaps 1..3) and sparse stretches
 * (gaps up to `sparse`), run lengths geometric-ish; stays below 2^31.
 */
static uint32_t
gen_clustered(uint32_t *d, uint32_t n, uint32_t sparse)
{
	uint64_t	x = below(1000);
	uint32_t	m = 0;

	while (m < n)
	{
		uint32_t	run = 1 + below(2000);
		uint32_t	dense = (below(2) == 0);
		uint32_t	k;

		for (k = 0; k < run && m < n; k++)
		{
			if (x > GPX_MAX_DOCID)
				return m;
			d[m++] = (uint32_t) x;
			x += dense ? 1 + below(3) : 1 + below(sparse);
		}
		x += below(1u << 20);	/* a jump between clusters */
	}
	return m;
}

/* ----------------------------------------------------------- reference */

/* Naive lower bound over a sorted array. */
static uint32_t
ref_lb(const uint32_t *a, uint32_t n, uint64_t x)
{
	uint32_t	i;

	for (i = 0; i < n; i++)
		if (a[i] >= x)
			return i;
	return n;
}

/* ---------------------------------------------------------- round trip */

/* Probe lower_bound / contains / block_lower_bound at x against d. */
static void
probe(const gpx_list *l, const uint32_t *d, uint32_t n, uint32_t x)
{
	uint32_t	v = 0xDEADBEEF;
	uint32_t	want = ref_lower_bound(d, n, x);
	uint32_t	got = gpx_lower_bound(l, x, &v);

	CHECKF(got == want, "lower_bound(%u) = %u, want %u (n=%u)", x, got, want, n);
	if (got == want && want < n)
		CHECKF(v == d[want], "lower_bound(%u) val %u, want %u", x, v, d[want]);
	CHECK(gpx_contains(l, x) == (want < n && d[want] == x));

	/* the codec's in-block search directly, for dir_first(blk) <= x */
	if (x >= d[0])
	{
		uint32_t	blk = gpx_find_block(l, x);
		uint32_t	base = blk * SEG;
		uint32_t	cnt = gpx_block_count(l, blk);
		uint32_t	bw = ref_lb(d + base, cnt, x);
		uint32_t	bv = 0xDEADBEEF;
		uint32_t	bg = gpx_blk_lower_bound_at(l, blk, x, &bv);

		CHECKF(bg == bw, "block_lower_bound(blk %u, %u) = %u want %u", blk, x, bg, bw);
		if (bg == bw && bw < cnt)
			CHECK(bv == d[base + bw]);
		/* also probe the preceding block (all elements below x) */
		if (blk > 0)
		{
			bg = gpx_blk_lower_bound_at(l, blk - 1, x, NULL);
			CHECK(bg == SEG);
		}
	}
}

/* Full round trip of d[0..n) with every accessor; returns the blob size. */
static size_t
roundtrip(const char *name, const uint32_t *d, uint32_t n, uint32_t nprobe)
{
	size_t		len = 0;
	uint8_t    *b = unit_encode_exact(GPX_CODEC_LRC, d, n, &len);
	gpx_list	l;
	gpx_status	st;
	uint32_t   *out;
	uint32_t	i,
				blk;
	uint32_t	buf[GPX_MAX_BLOCK];
	long		f0 = unit_failed;

	if (b == NULL)
		return 0;
	st = unit_validate_exact(b, len);
	CHECKF(st == GPX_OK, "%s: validate: %s", name, gpx_status_str(st));
	st = gpx_open(&l, b, len);
	CHECK(st == GPX_OK);
	if (st != GPX_OK)
	{
		free(b);
		return len;
	}
	CHECK(l.n == n && l.codec == GPX_CODEC_LRC && l.log2_block == 8 && l.param == 0);
	if (n == 0)
	{
		free(b);
		return len;
	}
	CHECK(l.first == d[0] && l.last == d[n - 1]);

	out = unit_xmalloc((size_t) n * 4 + 4);
	gpx_decode(&l, out);
	CHECKF(memcmp(out, d, (size_t) n * 4) == 0, "%s: decode mismatch", name);
	for (blk = 0; blk < l.nblocks; blk++)
	{
		uint32_t	c = gpx_decode_block(&l, blk, buf);

		CHECK(c == gpx_block_count(&l, blk));
		CHECK(memcmp(buf, d + (size_t) blk * SEG, (size_t) c * 4) == 0);
		CHECK(gpx_dir_first(&l, blk) == d[(size_t) blk * SEG]);
	}
	/* nth: every index for small lists, a sample for big ones */
	if (n <= 70000)
	{
		for (i = 0; i < n; i++)
			CHECKF(gpx_nth(&l, i) == d[i], "%s: nth(%u)", name, i);
	}
	else
	{
		for (i = 0; i < 70000; i++)
		{
			uint32_t	k = below(n);

			CHECKF(gpx_nth(&l, k) == d[k], "%s: nth(%u)", name, k);
		}
	}
	/* lower_bound: edges, each element and its neighbours, random x */
	probe(&l, d, n, 0);
	probe(&l, d, n, 0xFFFFFFFFu);
	probe(&l, d, n, GPX_MAX_DOCID);
	probe(&l, d, n, d[n - 1] + 1);
	for (i = 0; i < nprobe; i++)
	{
		uint32_t	k = below(n);

		probe(&l, d, n, d[k]);
		if (d[k] > 0)
			probe(&l, d, n, d[k] - 1);
		probe(&l, d, n, d[k] + 1);
		probe(&l, d, n, below((uint64_t) d[n - 1] + 2));
		probe(&l, d, n, d[k] + below(1000));
	}
	/* cursor with non-decreasing probes */
	{
		gpx_cursor	c;
		uint64_t	x = 0;
		uint32_t	v;

		gpx_cursor_init(&c, &l);
		for (i = 0; i < nprobe && x <= 0xFFFFFFFFu; i++)
		{
			uint32_t	want = ref_lower_bound(d, n, (uint32_t) x);
			bool		ok = gpx_cursor_next_geq(&c, (uint32_t) x, &v);

			CHECK(ok == (want < n));
			if (ok && want < n)
				CHECK(v == d[want]);
			x += 1 + below(((uint64_t) d[n - 1] + 1) / (nprobe / 4 + 1) + 1);
		}
	}
	if (unit_failed != f0)
		fprintf(stderr, "  (in round trip '%s', n=%u)\n", name, n);
	free(out);
	free(b);
	return len;
}

/* Round trips of the required shapes. */
static void
test_roundtrips(void)
{
	static const uint32_t sizes[] = {1, 2, 3, 255, 256, 257, 511, 512, 513, 1000, 5000};
	uint32_t   *d = unit_xmalloc(4u * 300000);
	uint32_t	si,
				i,
				n;

	for (si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++)
	{
		n = sizes[si];
		/* uniform over several universes */
		gen_uniform(d, n, (uint64_t) n + below(n) + 1);
		roundtrip("uniform-tight", d, n, 300);
		gen_uniform(d, n, 1ull << 24);
		roundtrip("uniform-2^24", d, n, 300);
		gen_uniform(d, n, 1ull << 31);
		roundtrip("uniform-2^31", d, n, 300);
		/* dense runs */
		for (i = 0; i < n; i++)
			d[i] = i;
		roundtrip("dense-0", d, n, 300);
		for (i = 0; i < n; i++)
			d[i] = GPX_MAX_DOCID - (n - 1) + i;
		roundtrip("dense-top", d, n, 300);
		for (i = 0; i < n; i++)
			d[i] = 1000000 + 7 * i;
		roundtrip("arith-7", d, n, 300);
		/* clustered */
		n = gen_clustered(d, n, 5000);
		roundtrip("clustered", d, n, 300);
		n = sizes[si];
		/* huge gaps: 0, then spread, then 2^31-1 */
		if (n >= 2)
		{
			d[0] = 0;
			for (i = 1; i + 1 < n; i++)
				d[i] = i;
			d[n - 1] = GPX_MAX_DOCID;
			roundtrip("0..run..max", d, n, 300);
			for (i = 0; i + 1 < n; i++)
				d[i] = (uint32_t) ((uint64_t) GPX_MAX_DOCID * i / (n - 1));
			d[n - 1] = GPX_MAX_DOCID;
			roundtrip("spread-0-max", d, n, 300);
			d[0] = 0;
			for (i = 1; i < n; i++)
				d[i] = GPX_MAX_DOCID - (n - 1) + i;
			roundtrip("0-then-top", d, n, 300);
			/* alternating tiny and huge gaps */
			{
				uint64_t	x = 0;
				uint64_t	big = GPX_MAX_DOCID / n;

				for (i = 0; i < n; i++)
				{
					d[i] = (uint32_t) x;
					x += (i & 1) ? big : 1;
				}
				roundtrip("alternating", d, n, 300);
			}
		}
		else
		{
			d[0] = GPX_MAX_DOCID;
			roundtrip("single-max", d, 1, 10);
			d[0] = 0;
			roundtrip("single-0", d, 1, 10);
		}
	}
	/* segment shapes that push the slope and base to their limits */
	for (i = 0; i < 255; i++)
		d[i] = i;
	d[255] = GPX_MAX_DOCID;
	roundtrip("255-run-then-max", d, 256, 300);
	for (i = 0; i < 256; i++)
		d[i] = (i < 128) ? i : GPX_MAX_DOCID - 255 + i;
	roundtrip("step", d, 256, 300);
	for (i = 0; i < 256; i++)
		d[i] = (uint32_t) ((uint64_t) i * i * 32767);
	roundtrip("parabola", d, 256, 300);
	for (i = 0; i < 256; i++)
		d[i] = (uint32_t) (GPX_MAX_DOCID - (uint64_t) (255 - i) * (255 - i) * 32767);
	roundtrip("parabola-down", d, 256, 300);
	d[0] = 0;
	d[1] = GPX_MAX_DOCID;
	roundtrip("two-extremes", d, 2, 50);
	d[0] = 0;
	d[1] = 1;
	d[2] = GPX_MAX_DOCID;
	roundtrip("0-1-max", d, 3, 50);
	/* random small shapes, many times */
	for (i = 0; i < 300; i++)
	{
		uint32_t	kind = below(3);

		n = 1 + below(800);
		if (kind == 0)
			gen_uniform(d, n, (uint64_t) n + below(1u << (1 + below(31))));
		else if (kind == 1)
			n = gen_clustered(d, n, 1 + below(100000));
		else
		{
			uint64_t	x = below(1000);
			uint32_t	k;

			for (k = 0; k < n; k++)
			{
				d[k] = (uint32_t) x;
				x += 1 + (below(10) == 0 ? below(1u << below(28)) : below(4));
				if (x > GPX_MAX_DOCID)
				{
					n = k + 1;
					break;
				}
			}
		}
		roundtrip("random-shape", d, n, 40);
	}
	/* a big clustered list */
	n = gen_clustered(d, 300000, 20000);
	roundtrip("clustered-300k", d, n, 3000);
	free(d);
}

/* ------------------------------------------------------ hand-made blobs */

typedef struct hseg
{
	uint32_t	base;
	uint32_t	slope;
	uint32_t	maxdev;
	uint32_t	cnt;
	const uint32_t *dev;
} hseg;

/*
 * Build a blob by hand: segments given by their raw header words and
 * deviations (packed at bitwidth(maxdev)); dir firsts and header first/last
 * are the ones passed.  Returns the blob length; buf must be big enough.
 */
static size_t
build_blob(uint8_t *buf, const hseg *segs, uint32_t nseg, const uint32_t *firsts,
		   uint32_t n, uint32_t first, uint32_t last)
{
	uint8_t    *payload = buf + gpx_payload_offset(nseg);
	uint32_t	pos = 0,
				k,
				j;

	memset(buf, 0, 32 + nseg * 8 + 4096);
	for (k = 0; k < nseg; k++)
	{
		uint32_t	w = gpx_bitwidth(segs[k].maxdev);
		uint8_t    *p = payload + 4 * pos;

		gpx_write_dir(buf, k, firsts[k], pos);
		gpx_store32(p, segs[k].base);
		gpx_store32(p + 4, segs[k].slope);
		gpx_store32(p + 8, segs[k].maxdev);
		for (j = 0; j < segs[k].cnt; j++)
			gpx_put_bits(p + 12, (uint64_t) j * w, w,
						 (uint32_t) (segs[k].dev[j] & gpx_mask(w)));
		pos += HDR_WORDS + (uint32_t) gpx_words_for_bits((uint64_t) segs[k].cnt * w);
	}
	gpx_write_header(buf, GPX_CODEC_LRC, 8, 0, n, first, last, nseg, pos * 4);
	return gpx_payload_offset(nseg) + (size_t) pos * 4;
}

/* Payload word index of segment k's header word f in blob b. */
static size_t
seg_word(const uint8_t *b, uint32_t nblocks, uint32_t k, uint32_t f)
{
	uint32_t	off = gpx_load32(b + 32 + 8 * k + 4);

	return gpx_payload_offset(nblocks) + 4 * ((size_t) off + f);
}

/* Expect a status from validating a (mutated) blob. */
static void
expect_status(const char *what, const uint8_t *b, size_t len, gpx_status want)
{
	gpx_status	st = unit_validate_exact(b, len);

	CHECKF(st == want, "%s: got '%s', want '%s'", what, gpx_status_str(st),
		   gpx_status_str(want));
}

/* Codec-specific corruptions: each validate branch must reject. */
static void
test_corruptions(void)
{
	uint32_t	d[1000];
	uint8_t    *good,
			   *b;
	size_t		len;
	uint32_t	i,
				n = 700,
				nb = 3,
				k;
	uint8_t		hb[8192];
	static const uint32_t dv_ok[] = {0, 1, 2};
	static const uint32_t dv_eq[] = {0, 2, 2};

	/* a list whose segments all have w > 1 and maxdev not a power of 2 */
	for (;;)
	{
		gen_uniform(d, n, 1u << 20);
		good = unit_encode_exact(GPX_CODEC_LRC, d, n, &len);
		if (good == NULL)
			return;
		for (k = 0; k < nb; k++)
		{
			uint32_t	md = gpx_load32(good + seg_word(good, nb, k, 2));

			if (md < 4 || (md & (md - 1)) == 0 || ((md - 1) & md) == 0)
				break;
		}
		if (k == nb)
			break;
		free(good);
	}
	expect_status("pristine", good, len, GPX_OK);
	b = unit_xmalloc(len + 64);

	/* param != 0 */
	memcpy(b, good, len);
	b[3] = 1;
	expect_status("param=1", b, len, GPX_E_HEADER);

	/* directory offsets: segment 0 not at 0, segment 1 off by one */
	memcpy(b, good, len);
	gpx_store32(b + 32 + 4, 1);
	expect_status("dir[0].offset=1", b, len, GPX_E_DIRECTORY);
	for (i = 0; i < 2; i++)
	{
		memcpy(b, good, len);
		gpx_store32(b + 32 + 8 + 4, gpx_load32(good + 32 + 8 + 4) + (i ? 1 : -1));
		expect_status("dir[1].offset+-1", b, len, GPX_E_DIRECTORY);
	}
	memcpy(b, good, len);
	gpx_store32(b + 32 + 16 + 4, 0xFFFFFFF0u);
	expect_status("dir[2].offset huge", b, len, GPX_E_DIRECTORY);
	memcpy(b, good, len);
	gpx_store32(b + 32 + 16 + 4, gpx_load32(good + 32 + 8 + 4));
	expect_status("dir[2].offset = dir[1].offset", b, len, GPX_E_DIRECTORY);

	/* maxdev below the real max deviation (same width) */
	for (k = 0; k < nb; k++)
	{
		size_t		o = seg_word(good, nb, k, 2);

		memcpy(b, good, len);
		gpx_store32(b + o, gpx_load32(good + o) - 1);
		expect_status("maxdev-1", b, len, GPX_E_PAYLOAD);
	}
	/* maxdev changing the width: the sizes no longer fit */
	for (k = 0; k < nb; k++)
	{
		size_t		o = seg_word(good, nb, k, 2);
		uint32_t	md = gpx_load32(good + o);

		memcpy(b, good, len);
		gpx_store32(b + o, 0xFFFFFFFFu);	/* w = 32 */
		CHECK(unit_validate_exact(b, len) != GPX_OK);
		memcpy(b, good, len);
		gpx_store32(b + o, 1u << gpx_bitwidth(md));	/* w + 1 */
		CHECK(unit_validate_exact(b, len) != GPX_OK);
		memcpy(b, good, len);
		gpx_store32(b + o, md >> 1);	/* w - 1 */
		CHECK(unit_validate_exact(b, len) != GPX_OK);
		memcpy(b, good, len);
		gpx_store32(b + o, 0);	/* w = 0 */
		CHECK(unit_validate_exact(b, len) != GPX_OK);
	}
	/* maxdev larger but same width: allowed (still a safe bound) */
	{
		size_t		o = seg_word(good, nb, 1, 2);
		uint32_t	md = gpx_load32(good + o);
		uint32_t	big = gpx_mask(gpx_bitwidth(md));
		gpx_list	l;

		memcpy(b, good, len);
		gpx_store32(b + o, big);
		expect_status("maxdev=2^w-1", b, len, GPX_OK);
		if (gpx_open(&l, b, len) == GPX_OK)
			for (i = 0; i < 2000; i++)
			{
				uint32_t	x = below(d[n - 1] + 2);
				uint32_t	v;

				CHECK(gpx_lower_bound(&l, x, &v) == ref_lower_bound(d, n, x));
			}
	}
	/* base / slope making a value leave [0, 2^31-1] */
	for (k = 0; k < nb; k++)
	{
		memcpy(b, good, len);
		gpx_store32(b + seg_word(good, nb, k, 0), 0x7FFFFFFFu);
		expect_status("base=2^31-1", b, len, GPX_E_PAYLOAD);
		memcpy(b, good, len);
		gpx_store32(b + seg_word(good, nb, k, 0), 0x80000000u);
		expect_status("base=-2^31", b, len, GPX_E_PAYLOAD);
		memcpy(b, good, len);
		gpx_store32(b + seg_word(good, nb, k, 1), 0xFFFFFFFFu);
		expect_status("slope=2^32-1", b, len, GPX_E_PAYLOAD);
		memcpy(b, good, len);
		gpx_store32(b + seg_word(good, nb, k, 1), gpx_load32(good + seg_word(good, nb, k, 1)) + 0x1000000);
		expect_status("slope+2^24", b, len, GPX_E_PAYLOAD);
		memcpy(b, good, len);
		gpx_store32(b + seg_word(good, nb, k, 0), gpx_load32(good + seg_word(good, nb, k, 0)) + 1);
		expect_status("base+1 (dir first mismatch)", b, len, GPX_E_PAYLOAD);
	}
	/* a flipped deviation bit breaks monotonicity or the directory */
	for (i = 0; i < 200; i++)
	{
		size_t		o = seg_word(good, nb, i % nb, 3) + 4 * below(4);

		memcpy(b, good, len);
		b[o + below(4)] ^= (uint8_t) (1u << below(8));
		if (unit_validate_exact(b, len) == GPX_OK)
		{
			/* accepted only if it still decodes to a consistent list */
			gpx_list	l;
			uint32_t	out[1000];

			CHECK(gpx_open(&l, b, len) == GPX_OK);
			gpx_decode(&l, out);
			CHECK(gpx_check_sorted(out, n) == GPX_OK);
		}
	}
	/* directory first disagreeing with the decoded segment */
	memcpy(b, good, len);
	gpx_store32(b + 32 + 8, gpx_load32(good + 32 + 8) + 1);
	expect_status("dir[1].first+1", b, len, GPX_E_PAYLOAD);
	/* header last disagreeing with the decoded list */
	memcpy(b, good, len);
	gpx_store32(b + 12, gpx_load32(good + 12) + 1);
	expect_status("last+1", b, len, GPX_E_PAYLOAD);

	/* truncated payload with a consistent header: last segment too short */
	memcpy(b, good, len);
	gpx_store32(b + 20, gpx_load32(good + 20) - 4);
	expect_status("payload-4 (header adjusted)", b, len - 4, GPX_E_PAYLOAD);
	memcpy(b, good, len);
	gpx_store32(b + 20, 8);
	expect_status("payload of 2 words", b, gpx_payload_offset(nb) + 8, GPX_E_PAYLOAD);
	/* truncated blob (header not adjusted): caught by gpx_open */
	expect_status("blob-1", good, len - 1, GPX_E_TRUNCATED);
	expect_status("blob-4", good, len - 4, GPX_E_TRUNCATED);
	/* an extra payload word after the last segment */
	memcpy(b, good, len);
	gpx_store32(b + len, 0);
	gpx_store32(b + 20, gpx_load32(good + 20) + 4);
	expect_status("payload+4", b, len + 4, GPX_E_PAYLOAD);
	/* trailing blob bytes (header not adjusted): caught by gpx_open */
	memcpy(b, good, len);
	expect_status("blob+4", b, len + 4, GPX_E_TRAILING);
	free(good);
	free(b);

	/* hand-made: a valid 3-element segment, then non-increasing values */
	{
		hseg		s = {10, 0, 3, 3, dv_ok};
		uint32_t	f = 10;

		len = build_blob(hb, &s, 1, &f, 3, 10, 12);
		expect_status("hand ok", hb, len, GPX_OK);
		s.dev = dv_eq;
		len = build_blob(hb, &s, 1, &f, 3, 10, 12);
		expect_status("hand equal values", hb, len, GPX_E_PAYLOAD);
	}
	/* hand-made: decoded value above 2^31-1 through the deviation */
	{
		static const uint32_t dv[] = {0, 3, 7};
		hseg		s = {GPX_MAX_DOCID - 5, 0, 7, 3, dv};
		uint32_t	f = GPX_MAX_DOCID - 5;

		len = build_blob(hb, &s, 1, &f, 3, f, GPX_MAX_DOCID);
		expect_status("hand value > 2^31-1", hb, len, GPX_E_PAYLOAD);
	}
	/* hand-made: extreme but valid arithmetic (base -2^31, slope max, w 32) */
	{
		static const uint32_t dv[] = {0x80000000u, 0x80000000u};
		static const uint32_t dv_over[] = {0x80000000u, 0xFFFFFFFFu};
		static const uint32_t dv_neg[] = {0x7FFFFFFFu, 0x80000000u};
		hseg		s = {0x80000000u, 0xFFFFFFFFu, 0xFFFFFFFFu, 2, dv};
		uint32_t	f = 0;
		gpx_list	l;

		len = build_blob(hb, &s, 1, &f, 2, 0, 0xFFFFFF);
		expect_status("hand extreme valid", hb, len, GPX_OK);
		if (gpx_open(&l, hb, len) == GPX_OK)
		{
			uint32_t	v;

			CHECK(gpx_nth(&l, 0) == 0 && gpx_nth(&l, 1) == 0xFFFFFF);
			CHECK(gpx_lower_bound(&l, 1, &v) == 1 && v == 0xFFFFFF);
			CHECK(gpx_lower_bound(&l, 0xFFFFFF, &v) == 1 && v == 0xFFFFFF);
			CHECK(gpx_lower_bound(&l, 0x1000000, &v) == 2);
		}
		s.dev = dv_over;
		len = build_blob(hb, &s, 1, &f, 2, 0, GPX_MAX_DOCID);
		expect_status("hand extreme overflow", hb, len, GPX_E_PAYLOAD);
		s.dev = dv_neg;
		len = build_blob(hb, &s, 1, &f, 2, 0, 0xFFFFFF);
		expect_status("hand extreme negative", hb, len, GPX_E_PAYLOAD);
	}
	/* hand-made: exact values 2^32, 2^32+1 that wrap to a plausible 0, 1 */
	{
		static const uint32_t dv[] = {0x80000001u, 0x80000002u};
		hseg		s = {0x7FFFFFFFu, 0, 0xFFFFFFFFu, 2, dv};
		uint32_t	f = 0;

		len = build_blob(hb, &s, 1, &f, 2, 0, 1);
		expect_status("hand wrap to 0,1", hb, len, GPX_E_PAYLOAD);
	}
	/* hand-made: segment header itself cut off (1 and 2 words of 3) */
	{
		hseg		s = {10, 0, 3, 3, dv_ok};
		uint32_t	f = 10;

		len = build_blob(hb, &s, 1, &f, 3, 10, 12);
		for (k = 1; k <= 3; k++)
		{
			uint8_t    *t = unit_xmalloc(len);

			memcpy(t, hb, len);
			gpx_store32(t + 20, gpx_load32(hb + 20) - 4 * k);
			expect_status("hand cut", t, len - 4 * k, GPX_E_PAYLOAD);
			free(t);
		}
	}
	/* hand-made: two segments, second offset past the end of the payload */
	{
		static uint32_t dv256[256];
		hseg		s[2] = {{0, 256, 0, 256, dv256}, {256, 256, 0, 1, dv256}};
		uint32_t	f[2] = {0, 256};

		len = build_blob(hb, s, 2, f, 257, 0, 256);
		expect_status("hand 2 segs", hb, len, GPX_OK);
		gpx_store32(hb + 32 + 8 + 4, 4);
		expect_status("hand seg1 offset past end", hb, len, GPX_E_DIRECTORY);
	}
}

/* Random byte mutations: validate must never crash or over-read (ASan). */
static void
test_fuzz(void)
{
	uint32_t   *d = unit_xmalloc(4 * 3000);
	uint32_t   *out = unit_xmalloc(4 * 3000);
	uint32_t	iter,
				accepted = 0;

	for (iter = 0; iter < 30000; iter++)
	{
		uint32_t	n = 1 + below(1200);
		size_t		len;
		uint8_t    *b;
		uint32_t	m,
					k;
		uint32_t	scratch[GPX_MAX_BLOCK];
		gpx_list	l;

		if (iter % 3 == 0)
			n = gen_clustered(d, n, 1 + below(5000));
		else
			gen_uniform(d, n, (uint64_t) n + below(1u << below(30)) + 1);
		b = unit_encode_exact(GPX_CODEC_LRC, d, n, &len);
		if (b == NULL)
			break;
		/* truncations of the pristine blob at random lengths */
		{
			size_t		cut = below(len);
			uint8_t    *t = unit_xmalloc(cut);

			memcpy(t, b, cut);
			CHECK(gpx_validate(t, cut, scratch) != GPX_OK);
			free(t);
		}
		m = 1 + below(4);
		for (k = 0; k < m; k++)
		{
			size_t		pos = (below(4) == 0) ? below(len) :
				32 + below(len - 32);

			if (below(2))
				b[pos] ^= (uint8_t) (1u << below(8));
			else
				b[pos] = (uint8_t) rnd();
		}
		if (gpx_validate(b, len, scratch) == GPX_OK)
		{
			uint32_t	i;

			accepted++;
			CHECK(gpx_open(&l, b, len) == GPX_OK);
			gpx_decode(&l, out);
			CHECK(gpx_check_sorted(out, l.n) == GPX_OK);
			CHECK(l.n == 0 || (out[0] == l.first && out[l.n - 1] == l.last));
			for (i = 0; i < 50 && l.n > 0; i++)
			{
				uint32_t	x = below((uint64_t) l.last + 2);
				uint32_t	v,
							want = ref_lower_bound(out, l.n, x);
				uint32_t	j = below(l.n);

				CHECK(gpx_lower_bound(&l, x, &v) == want);
				CHECK(gpx_nth(&l, j) == out[j]);
			}
		}
		free(b);
	}
	printf("fuzz: %u mutated blobs, %u still valid (all checked consistent)\n",
		   iter, accepted);
	free(d);
	free(out);
}

/* ------------------------------------------------------ size modelling */

/* Bit width of v. */
static uint32_t
bw64(uint64_t v)
{
	uint32_t	b = 0;

	while (v)
	{
		b++;
		v >>= 1;
	}
	return b;
}

/* Floored deviation range of slope_q (F = 8) over d[0..c); UINT64_MAX if base < -2^31. */
static uint64_t
model_range(const uint32_t *d, uint32_t c, uint64_t sq)
{
	int64_t		lo = INT64_MAX,
				hi = INT64_MIN;
	uint32_t	j;

	for (j = 0; j < c; j++)
	{
		int64_t		v = (int64_t) d[j] - (int64_t) ((sq * j) >> 8);

		if (v < lo)
			lo = v;
		if (v > hi)
			hi = v;
	}
	return lo < INT32_MIN ? UINT64_MAX : (uint64_t) (hi - lo);
}

/* Exact (unfloored) range of 256 d[j] - sq j. */
static int64_t
model_exact(const uint32_t *d, uint32_t c, uint64_t sq)
{
	int64_t		lo = INT64_MAX,
				hi = INT64_MIN;
	uint32_t	j;

	for (j = 0; j < c; j++)
	{
		int64_t		v = ((int64_t) d[j] << 8) - (int64_t) (sq * j);

		if (v < lo)
			lo = v;
		if (v > hi)
			hi = v;
	}
	return hi - lo;
}

typedef enum
{
	SL_LS,						/* least squares (double), rounded */
	SL_EP,						/* (last - first) / (cnt - 1) */
	SL_LS_EP,					/* better of LS, EP and 0 */
	SL_MINIMAX,					/* the encoder's choice */
	SL_NSTRAT
} slope_strat;

static const char *const strat_name[SL_NSTRAT] = {"LS", "endpt", "LS|endpt|0", "minimax"};

/*
 * The encoder's minimax slope search the slow way: the first slope s in
 * [min gap, max gap] (x 256, capped at 2^32-1) with range(s + 1) >=
 * range(s), every range over all points (model_exact).
 */
static uint64_t
model_minimax_slope(const uint32_t *d, uint32_t c)
{
	uint64_t	lo = UINT64_MAX,
				hi = 0;

	for (uint32_t j = 1; j < c; j++)
	{
		uint64_t	g = (uint64_t) (d[j] - d[j - 1]) << 8;

		lo = g < lo ? g : lo;
		hi = g > hi ? g : hi;
	}
	if (hi > UINT32_MAX)
		hi = UINT32_MAX;
	if (lo > hi)
		lo = hi;
	while (lo < hi)
	{
		uint64_t	mid = lo + (hi - lo) / 2;

		if (model_exact(d, c, mid + 1) < model_exact(d, c, mid))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Max deviation of a segment (any length) under a slope strategy. */
static uint64_t
model_maxdev(const uint32_t *d, uint32_t c, slope_strat st)
{
	uint64_t	zero = model_range(d, c, 0);
	uint64_t	r,
				best = zero;
	int			k;

	if (c < 2)
		return zero;
	if (st == SL_LS || st == SL_LS_EP)
	{
		double		sj = 0,
					sd = 0,
					sjj = 0,
					sjd = 0,
					den,
					sl;
		uint32_t	j;
		uint64_t	q;

		for (j = 0; j < c; j++)
		{
			double		dd = (double) d[j] - d[0];

			sj += j;
			sd += dd;
			sjj += (double) j * j;
			sjd += j * dd;
		}
		den = c * sjj - sj * sj;
		sl = den > 0 ? (c * sjd - sj * sd) / den : 0;
		if (sl < 0)
			sl = 0;
		q = (uint64_t) llround(sl * 256);
		if (q > UINT32_MAX)
			q = UINT32_MAX;
		r = model_range(d, c, q);
		if (st == SL_LS)
			return r == UINT64_MAX ? zero : r;
		if (r < best)
			best = r;
	}
	if (st == SL_EP || st == SL_LS_EP)
	{
		uint64_t	q = ((uint64_t) (d[c - 1] - d[0]) << 8) / (c - 1);

		if (q > UINT32_MAX)
			q = UINT32_MAX;
		r = model_range(d, c, q);
		if (st == SL_EP)
			return r == UINT64_MAX ? zero : r;
		if (r < best)
			best = r;
		return best;
	}
	/* minimax, as the encoder does it */
	{
		uint64_t	lo = model_minimax_slope(d, c);

		for (k = -1; k <= 1; k++)
		{
			if ((k < 0 && lo == 0) || lo + k > UINT32_MAX)
				continue;
			r = model_range(d, c, lo + k);
			if (r < best)
				best = r;
		}
	}
	return best;
}

/* Payload bits of one segment of c elements under a strategy. */
static uint64_t
model_seg_bits(const uint32_t *d, uint32_t c, slope_strat st)
{
	return 32 * (HDR_WORDS + gpx_words_for_bits((uint64_t) c * bw64(model_maxdev(d, c, st))));
}

/* Blob bits of SegLRC under a slope strategy (header + dir + segments). */
static uint64_t
model_seglrc_bits(const uint32_t *d, uint32_t n, slope_strat st)
{
	uint64_t	bits = 8 * 32;
	uint32_t	s;

	for (s = 0; s < n; s += SEG)
	{
		uint32_t	c = n - s < SEG ? n - s : SEG;

		bits += 64 + model_seg_bits(d + s, c, st);
	}
	return bits;
}

/*
 * HS-LRC model (paper section 4.4/5.3): bucket h holds the docIDs x with
 * x >> (k - m) == h, k = bitwidth(last), m the smallest with n/256 <= 2^m
 * (HS256) plus `dm`.  Each bucket: a directory entry (element index +
 * word offset, 8 bytes) for every h up to h(last) (+1 sentinel), and for
 * a non-empty bucket the same 3-word header + packed deviations (minimax).
 */
static uint64_t
model_hs_bits(const uint32_t *d, uint32_t n, int dm, uint32_t *maxbucket)
{
	uint32_t	k = bw64(d[n - 1]);
	uint32_t	m = 0;
	uint32_t	sh,
				i = 0;
	uint64_t	bits = 8 * 32,
				nb;

	while (((uint64_t) 256 << m) < n)
		m++;
	if ((int) m + dm >= 0)
		m += dm;
	if (m > k)
		m = k;
	sh = k - m;
	nb = ((uint64_t) d[n - 1] >> sh) + 1;
	bits += 64 * (nb + 1);
	*maxbucket = 0;
	while (i < n)
	{
		uint32_t	h = d[i] >> sh;
		uint32_t	j = i;

		while (j < n && (d[j] >> sh) == h)
			j++;
		bits += model_seg_bits(d + i, j - i, SL_MINIMAX);
		if (j - i > *maxbucket)
			*maxbucket = j - i;
		i = j;
	}
	return bits;
}

/*
 * Model of a possible SegLRC variant: a 256-segment may be cut once, at
 * its largest gap, into two lines (one extra word for the cut index and a
 * second 3-word header); the cheaper of the two layouts is kept.
 */
static uint64_t
model_split_bits(const uint32_t *d, uint32_t n)
{
	uint64_t	bits = 8 * 32;
	uint32_t	s;

	for (s = 0; s < n; s += SEG)
	{
		uint32_t	c = n - s < SEG ? n - s : SEG;
		const uint32_t *x = d + s;
		uint64_t	one = model_seg_bits(x, c, SL_MINIMAX);
		uint32_t	j,
					p = 0,
					g = 0;

		for (j = 1; j < c; j++)
			if (x[j] - x[j - 1] > g)
			{
				g = x[j] - x[j - 1];
				p = j;
			}
		if (p > 0)
		{
			uint64_t	two = 32 + model_seg_bits(x, p, SL_MINIMAX) +
				model_seg_bits(x + p, c - p, SL_MINIMAX);

			if (two < one)
				one = two;
		}
		bits += 64 + one;
	}
	return bits;
}

/* Bits/docID table for uniform lists in [0, 2^24), slope choices, HS-LRC. */
static void
test_sizes(void)
{
	static const uint32_t ns[] = {100000, 200000, 400000, 800000, 1000000, 2000000};
	static const int paper[] = {17, 17, 17, 16, 15, 15};
	uint32_t   *d = unit_xmalloc(4u * 2000000);
	uint32_t   *out = unit_xmalloc(4u * 2000000);
	uint32_t	t;
	int			s;

	printf("\nSegLRC size, uniform random docIDs in [0, 2^24) (whole blob: header + directory + segments)\n");
	printf("%9s %10s %9s %11s %9s %9s %9s %9s\n", "n", "bytes", "bits/doc",
		   "paper LRC", "enc ns/d", "dec ns/d", "nth ns", "lb ns");
	for (t = 0; t < 6; t++)
	{
		uint32_t	n = ns[t];
		size_t		len;
		uint8_t    *b;
		double		bpd;
		clock_t		c0,
					c1,
					c2,
					c3,
					c4;
		gpx_list	l;
		uint32_t	i;
		volatile uint32_t sink = 0;

		gen_uniform(d, n, 1u << 24);
		c0 = clock();
		b = unit_encode_exact(GPX_CODEC_LRC, d, n, &len);
		c1 = clock();
		if (b == NULL)
			break;
		bpd = 8.0 * (double) len / n;
		CHECK(gpx_open(&l, b, len) == GPX_OK);
		gpx_decode(&l, out);
		c2 = clock();
		CHECK(memcmp(out, d, 4 * (size_t) n) == 0);
		for (i = 0; i < 1000000; i++)
			sink += gpx_nth(&l, (uint32_t) ((uint64_t) i * 2654435761u % n));
		c3 = clock();
		for (i = 0; i < 1000000; i++)
			sink += gpx_lower_bound(&l, (uint32_t) ((uint64_t) i * 2654435761u % (1u << 24)), NULL);
		c4 = clock();
		(void) sink;
		printf("%9u %10zu %9.3f %11d %9.1f %9.2f %9.1f %9.1f\n", n, len, bpd, paper[t],
			   1e9 * (c1 - c0) / CLOCKS_PER_SEC / n,
			   1e9 * (c2 - c1) / CLOCKS_PER_SEC / n,
			   1e9 * (c3 - c2) / CLOCKS_PER_SEC / 1e6,
			   1e9 * (c4 - c3) / CLOCKS_PER_SEC / 1e6);
		CHECKF(bpd < paper[t], "n=%u: %.3f bits/docID not below %d", n, bpd, paper[t]);
		/* the size model must reproduce the encoder exactly */
		CHECKF(model_seglrc_bits(d, n, SL_MINIMAX) == 8 * (uint64_t) len,
			   "model %llu != %zu", (unsigned long long) model_seglrc_bits(d, n, SL_MINIMAX), 8 * len);
		free(b);
	}

	printf("\nslope choice (same format, model): bits/docID, uniform [0, 2^24)\n%9s", "n");
	for (s = 0; s < SL_NSTRAT; s++)
		printf(" %11s", strat_name[s]);
	printf("\n");
	for (t = 0; t < 6; t++)
	{
		uint32_t	n = ns[t];

		gen_uniform(d, n, 1u << 24);
		printf("%9u", n);
		for (s = 0; s < SL_NSTRAT; s++)
			printf(" %11.3f", (double) model_seglrc_bits(d, n, (slope_strat) s) / n);
		printf("\n");
	}

	/* LR contraction: mean safe-range width in elements (maxdev / slope) */
	printf("\nLR contraction, uniform [0, 2^24): mean in-segment safe range (elements of 256)\n");
	for (t = 0; t < 6; t += 5)
	{
		uint32_t	n = ns[t];
		size_t		len;
		uint8_t    *b;
		gpx_list	l;
		double		sum = 0;
		uint32_t	i,
					cnt = 0;

		gen_uniform(d, n, 1u << 24);
		b = unit_encode_exact(GPX_CODEC_LRC, d, n, &len);
		if (b == NULL || gpx_open(&l, b, len) != GPX_OK)
			break;
		for (i = 0; i + 1 < l.nblocks; i++)
		{
			const uint8_t *p = l.payload + 4 * (size_t) gpx_dir_offset(&l, i);
			double		slope = gpx_load32(p + 4) / 256.0;

			if (slope > 0)
			{
				sum += gpx_load32(p + 8) / slope + 1;
				cnt++;
			}
		}
		printf("  n=%7u: %.1f elements (binary search over ~%.1f probes instead of 8)\n",
			   n, sum / cnt, log2(sum / cnt + 1));
		free(b);
	}

	printf("\nHS-LRC (hash buckets x >> (k-m)) vs SegLRC, bits/docID (whole blob)\n");
	printf("%-18s %8s %8s %8s %7s %8s %7s %9s\n", "list", "n", "SegLRC", "HS256", "maxbkt",
		   "HS256/2", "maxbkt", "Seg+split");
	for (t = 0; t < 12; t++)
	{
		uint32_t	n = ns[t % 6];
		uint32_t	mb1,
					mb2;
		uint64_t	seg,
					hs1,
					hs2;
		const char *name;

		if (t < 6)
		{
			gen_uniform(d, n, 1u << 24);
			name = "uniform [0,2^24)";
		}
		else
		{
			n = gen_clustered(d, n, 2000);
			name = "clustered";
		}
		seg = model_seglrc_bits(d, n, SL_MINIMAX);
		hs1 = model_hs_bits(d, n, 0, &mb1);
		hs2 = model_hs_bits(d, n, -1, &mb2);
		printf("%-18s %8u %8.3f %8.3f %7u %8.3f %7u %9.3f\n", name, n,
			   (double) seg / n, (double) hs1 / n, mb1, (double) hs2 / n, mb2,
			   (double) model_split_bits(d, n) / n);
	}
	free(d);
	free(out);
}

/*
 * The encoder's segment plan against a full search done the slow way, the
 * way the encoder did it before it searched over the hulls: the binary
 * search for the first s with range(s + 1) >= range(s), every range over
 * all points (model_exact), then the floored fits of s - 1, s, s + 1
 * against slope 0, the first strictly smaller deviation kept.
 */
static void
full_plan(const uint32_t *d, uint32_t c, gpx_lrc_plan *pl)
{
	uint64_t	best = (uint64_t) (d[c - 1] - d[0]);

	pl->slope_q = 0;
	pl->base = d[0];
	if (c >= 2)
	{
		uint64_t	lo = model_minimax_slope(d, c);

		for (int k = -1; k <= 1; k++)
		{
			int64_t		mn = INT64_MAX,
						mx = INT64_MIN;
			uint64_t	sq = lo + k;

			if ((k < 0 && lo == 0) || sq > UINT32_MAX)
				continue;
			for (uint32_t j = 0; j < c; j++)
			{
				int64_t		v = (int64_t) d[j] - (int64_t) ((sq * j) >> 8);

				mn = v < mn ? v : mn;
				mx = v > mx ? v : mx;
			}
			if (mn >= INT32_MIN && (uint64_t) (mx - mn) < best)
			{
				best = (uint64_t) (mx - mn);
				pl->base = mn;
				pl->slope_q = (uint32_t) sq;
			}
		}
	}
	pl->maxdev = (uint32_t) best;
	pl->words = HDR_WORDS + gpx_words_for_bits((uint64_t) c * bw64(best));
}

/*
 * One segment of c strictly increasing docIDs of a shape chosen by kind
 * into d (0 when the shape ran past GPX_MAX_DOCID).
 */
static uint32_t
plan_segment(uint32_t kind, uint32_t c, uint32_t *d)
{
	uint64_t	v = below(1000),
				big = 1 + below(1u << below(31));

	if (kind % 9 == 8)
		v = GPX_MAX_DOCID - (uint64_t) c * (1 + big % 64);
	for (uint32_t j = 0; j < c; j++)
	{
		uint64_t	g;

		if (v > GPX_MAX_DOCID)
			return 0;
		d[j] = (uint32_t) v;
		switch (kind % 9)
		{
			case 0:				/* uniform, a random scale */
				g = 1 + below(big);
				break;
			case 1:				/* heavy tail */
				g = 1 + (rnd() >> (63 - below(32)));
				break;
			case 2:				/* convex */
				g = 1 + (uint64_t) j * j * (1 + big % 7);
				break;
			case 3:				/* concave */
				g = 1 + (uint64_t) (c - j) * (c - j) * (1 + big % 5);
				break;
			case 4:				/* an exact line, a few points off it */
				g = (1 + big % 1000) + (below(16) == 0 ? below(50) : 0);
				break;
			case 5:				/* two slopes */
				g = j < c / 2 ? 1 + below(3) : 1 + below(1 + big % 5000);
				break;
			case 6:				/* rare huge jumps */
				g = below(40) == 0 ? big * 64 : 1 + below(8);
				break;
			case 7:				/* every gap huge */
				g = (1u << 23) + below(1u << 22);
				break;
			default:			/* near the top: small gaps */
				g = 1 + below(1 + big % 64);
				break;
		}
		v += g;
	}
	return c;
}

static void
test_plan_search(void)
{
	uint32_t	d[SEG];
	uint32_t	tried = 0,
				bad = 0;

	for (uint32_t it = 0; it < 200000; it++)
	{
		uint32_t	c = it % 5 == 0 ? SEG : 1 + below(SEG);
		gpx_lrc_plan got,
					want;

		if (plan_segment(it, c, d) == 0)
			continue;
		tried++;
		gpx_lrc_blk_plan(d, c, &got);
		full_plan(d, c, &want);
		if (got.slope_q != want.slope_q || got.base != want.base ||
			got.maxdev != want.maxdev || got.words != want.words)
		{
			if (bad++ < 5)
				CHECKF(false, "segment %u (shape %u, %u docIDs from %u): slope %u/%u base %lld/%lld maxdev %u/%u",
					   it, it % 9, c, d[0], got.slope_q, want.slope_q,
					   (long long) got.base, (long long) want.base, got.maxdev,
					   want.maxdev);
		}
		else
			CHECK(true);
	}
	CHECKF(bad == 0, "%u of %u segments planned differently", bad, tried);
	CHECKF(tried > 150000, "only %u segments tried", tried);
}

/* Run everything. */
int
main(void)
{
	unit_format_version = GPX_FORMAT_V1;
	UNIT_RUN(test_roundtrips());
	UNIT_RUN(test_corruptions());
	UNIT_RUN(test_fuzz());
	UNIT_RUN(test_plan_search());
	UNIT_RUN(test_sizes());
	return unit_finish();
}
