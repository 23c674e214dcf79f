/*
 * test_qs.c - unit tests of the qs codec (Elias-Fano with samples every 256
 * elements): round trips, random access and lower_bound against naive
 * references, an independent reference encoder (byte-exact comparison),
 * targeted corruptions of every validate branch, random bit-flip fuzzing,
 * and the size table on uniform lists in [0, 2^24).
 *
 * No postgres needed; uses the shared harness (unit.h, test/unit/unit.c):
 *   cc -O2 -Wall -Wextra -Isrc/codec -Itest/ref -Itest/unit test/unit/test_qs.c \
 *      src/codec/gpx_*.c test/ref/gpx_ref.c test/unit/unit.c -lm -lpthread
 * Exits non-zero on any failure; the last line is "N passed, N failed".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* ---- helpers ---------------------------------------------------------- */

/* splitmix64 state (the shared unit_rng). */
static unit_rng qt_rng = {0x5EED0003ull};

/* Uniform in [0, bound), bound > 0. */
static uint32_t
qt_below(uint64_t bound)
{
	return unit_below(&qt_rng, bound);
}

/* The canonical b of the spec, computed independently (floating free). */
static uint32_t
qt_ref_b(uint32_t n, uint32_t last)
{
	uint64_t	q = ((uint64_t) last + 1) / n;
	uint32_t	b = 0;

	while ((q >> (b + 1)) != 0)
		b++;
	return b;
}

/* Set bit p of a byte array (LSB-first, equal to LE uint32 word packing). */
static void
qt_setbit(uint8_t *a, uint64_t p)
{
	a[p >> 3] |= (uint8_t) (1u << (p & 7));
}

/* Clear bit p. */
static void
qt_clrbit(uint8_t *a, uint64_t p)
{
	a[p >> 3] &= (uint8_t) ~(1u << (p & 7));
}

/* Bit p. */
static int
qt_getbit(const uint8_t *a, uint64_t p)
{
	return (a[p >> 3] >> (p & 7)) & 1;
}

/* Little-endian 32-bit store/load on bytes. */
static void
qt_put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t) v;
	p[1] = (uint8_t) (v >> 8);
	p[2] = (uint8_t) (v >> 16);
	p[3] = (uint8_t) (v >> 24);
}

/* Load a little-endian uint32. */
static uint32_t
qt_get32(const uint8_t *p)
{
	return p[0] | (uint32_t) p[1] << 8 | (uint32_t) p[2] << 16 |
		(uint32_t) p[3] << 24;
}

/* Layout of a qs blob as the test understands the spec. */
typedef struct qt_layout
{
	uint32_t	n,
				b,
				nblocks;
	uint64_t	low_words,
				L,
				upper_words;
	size_t		payload_off;	/* byte offset of the payload */
	size_t		upper_off;		/* byte offset of the upper-bits array */
	size_t		len;			/* total blob length */
} qt_layout;

/* Compute the layout for n elements ending at last with b low bits. */
static void
qt_layout_for(qt_layout *y, uint32_t n, uint32_t last, uint32_t b)
{
	y->n = n;
	y->b = b;
	y->nblocks = (n + 255) / 256;
	y->low_words = ((uint64_t) n * b + 31) / 32;
	y->L = (uint64_t) (last >> b) + n;
	y->upper_words = (y->L + 31) / 32;
	y->payload_off = 32 + (size_t) 8 * y->nblocks;
	y->upper_off = y->payload_off + 4 * y->low_words;
	y->len = y->upper_off + 4 * y->upper_words;
}

/*
 * Independent reference encoder following the format comment bit by bit,
 * with any b (so non-canonical blobs can be built).  Returns a malloc'd
 * blob of *len bytes.
 */
static uint8_t *
qt_ref_encode(const uint32_t *d, uint32_t n, uint32_t b, size_t *len)
{
	qt_layout	y;
	uint8_t    *o;
	uint32_t	i,
				t;

	qt_layout_for(&y, n, d[n - 1], b);
	o = unit_xmalloc(y.len);
	memset(o, 0, y.len);
	o[0] = GPX_FORMAT_V1;
	o[1] = GPX_CODEC_QS;
	o[2] = 8;
	o[3] = (uint8_t) b;
	qt_put32(o + 4, n);
	qt_put32(o + 8, d[0]);
	qt_put32(o + 12, d[n - 1]);
	qt_put32(o + 16, y.nblocks);
	qt_put32(o + 20, (uint32_t) (y.len - y.payload_off));
	for (i = 0; i < n; i++)
	{
		uint64_t	pos = (uint64_t) (d[i] >> b) + i;

		for (t = 0; t < b; t++)
			if ((d[i] >> t) & 1)
				qt_setbit(o + y.payload_off, (uint64_t) i * b + t);
		qt_setbit(o + y.upper_off, pos);
		if (i % 256 == 0)
		{
			qt_put32(o + 32 + 8 * (i / 256), d[i]);
			qt_put32(o + 32 + 8 * (i / 256) + 4, (uint32_t) pos);
		}
	}
	*len = y.len;
	return o;
}

/* ---- list generators --------------------------------------------------- */

/* qsort comparator. */
static int
qt_cmp(const void *a, const void *b)
{
	uint32_t	x = *(const uint32_t *) a,
				y = *(const uint32_t *) b;

	return x < y ? -1 : x > y;
}

/* n distinct uniform values in [0, universe), sorted (n <= universe). */
static void
qt_uniform(uint32_t *d, uint32_t n, uint64_t universe)
{
	uint32_t	m = 0,
				i;

	while (m < n)
	{
		for (i = m; i < n; i++)
			d[i] = qt_below(universe);
		qsort(d, n, sizeof(uint32_t), qt_cmp);
		/* de-duplicate; refill the tail */
		m = 0;
		for (i = 0; i < n; i++)
			if (m == 0 || d[i] != d[m - 1])
				d[m++] = d[i];
	}
}

/* 0, 1, ..., n-1 (b = 0). */
static void
qt_dense(uint32_t *d, uint32_t n)
{
	uint32_t	i;

	for (i = 0; i < n; i++)
		d[i] = i;
}

/* n values spread evenly over [0, 2^31-1], ending at 2^31-1. */
static void
qt_spread(uint32_t *d, uint32_t n)
{
	uint32_t	i;

	if (n == 1)
	{
		d[0] = GPX_MAX_DOCID;
		return;
	}
	for (i = 0; i < n; i++)
		d[i] = (uint32_t) ((uint64_t) i * GPX_MAX_DOCID / (n - 1));
}

/* Dense runs (gaps 1..3) separated by huge random jumps. */
static void
qt_clustered(uint32_t *d, uint32_t n)
{
	uint64_t	v = qt_below(1000);
	uint32_t	i;
	uint64_t	room;

	for (i = 0; i < n; i++)
	{
		if (i > 0 && qt_below(64) == 0)
		{
			room = GPX_MAX_DOCID - v - 4ull * (n - i);
			v += 1 + (room > 1 ? qt_below(room / 4 + 1) : 0);
		}
		else if (i > 0)
			v += 1 + qt_below(3);
		d[i] = (uint32_t) v;
	}
}

/* ---- round trips -------------------------------------------------------- */

/*
 * Encode, compare with the reference encoder byte for byte, validate,
 * decode (whole and per block), nth, block_lower_bound, lower_bound,
 * contains and the cursor against naive references.
 */
static void
qt_roundtrip(const char *name, const uint32_t *d, uint32_t n)
{
	size_t		len,
				rlen;
	uint8_t    *blob = unit_encode_exact(GPX_CODEC_QS, d, n, &len);
	uint8_t    *ref = qt_ref_encode(d, n, qt_ref_b(n, d[n - 1]), &rlen);
	uint32_t   *out = unit_xmalloc((size_t) n * sizeof(uint32_t));
	uint32_t	buf[GPX_MAX_BLOCK];
	gpx_list	l;
	gpx_status	st;
	uint32_t	i,
				k,
				t;
	long		bad;
	gpx_cursor *cur;

	CHECKF(len == rlen && memcmp(blob, ref, len) == 0,
			 "%s n=%u: blob differs from the reference encoding", name, n);
	CHECKF(len == gpx_encode_bound(GPX_CODEC_QS, n, d[n - 1]),
			 "%s n=%u: encode_bound is not exact", name, n);
	st = unit_validate_exact(blob, len);
	CHECKF(st == GPX_OK, "%s n=%u: validate: %s", name, n, gpx_status_str(st));
	st = gpx_open(&l, blob, len);
	CHECKF(st == GPX_OK, "%s n=%u: open: %s", name, n, gpx_status_str(st));
	if (st != GPX_OK)
		goto done;
	CHECKF(l.param == qt_ref_b(n, d[n - 1]) && l.n == n &&
			 l.first == d[0] && l.last == d[n - 1],
			 "%s n=%u: header fields", name, n);

	/* whole decode */
	memset(out, 0xFF, (size_t) n * sizeof(uint32_t));
	gpx_decode(&l, out);
	CHECKF(memcmp(out, d, (size_t) n * sizeof(uint32_t)) == 0,
			 "%s n=%u: decode differs", name, n);

	/* per block decode */
	bad = 0;
	for (k = 0; k < l.nblocks; k++)
	{
		uint32_t	cnt = gpx_decode_block(&l, k, buf);

		if (cnt != gpx_block_count(&l, k) ||
			memcmp(buf, d + k * 256, cnt * sizeof(uint32_t)) != 0)
			bad++;
	}
	CHECKF(bad == 0, "%s n=%u: %ld blocks decode wrong", name, n, bad);

	/* nth: every element */
	bad = 0;
	for (i = 0; i < n; i++)
		if (gpx_nth(&l, i) != d[i])
			bad++;
	CHECKF(bad == 0, "%s n=%u: %ld nth wrong", name, n, bad);

	/* block_lower_bound straight on the ops, against a linear scan */
	bad = 0;
	for (t = 0; t < 4000; t++)
	{
		uint32_t	blk = qt_below(l.nblocks);
		uint32_t	cnt = gpx_block_count(&l, blk);
		const uint32_t *bd = d + (size_t) blk * 256;
		uint32_t	lo = bd[0];
		uint64_t	hi = (blk + 1 < l.nblocks) ? d[(blk + 1) * 256] :
			(uint64_t) d[n - 1] + 2;
		uint32_t	x,
					v = 0xDEADBEEF,
					got,
					want = 0;

		switch (t % 4)
		{
			case 0:				/* anywhere in the block's range */
				x = lo + qt_below(hi - lo + 1 > 0x80000000ull ? 0x80000000ull : hi - lo + 1);
				break;
			case 1:				/* an element */
				x = bd[qt_below(cnt)];
				break;
			case 2:				/* just above an element */
				x = bd[qt_below(cnt)] + 1;
				break;
			default:			/* beyond the block, up to 2^31 */
				x = bd[cnt - 1] + qt_below((uint64_t) 0x80000000u - bd[cnt - 1]);
				break;
		}
		if (x < lo)
			x = lo;
		while (want < cnt && bd[want] < x)
			want++;
		got = gpx_blk_lower_bound_at(&l, blk, x, &v);
		if (got != want || (got < cnt && v != bd[got]))
		{
			if (bad < 3)
				fprintf(stderr, "  %s n=%u blk=%u x=%u: got %u (v=%u) want %u\n",
						name, n, blk, x, got, v, want);
			bad++;
		}
		/* NULL val must be accepted */
		if (gpx_blk_lower_bound_at(&l, blk, x, NULL) != want)
			bad++;
	}
	CHECKF(bad == 0, "%s n=%u: %ld block_lower_bound wrong", name, n, bad);

	/* public lower_bound / contains against binary search on d */
	bad = 0;
	for (t = 0; t < 4000; t++)
	{
		uint32_t	x,
					v = 0xDEADBEEF,
					got,
					want;

		switch (t % 3)
		{
			case 0:
				x = qt_below((uint64_t) d[n - 1] + 3);
				break;
			case 1:
				x = d[qt_below(n)];
				break;
			default:
				x = d[qt_below(n)] + 1;
				break;
		}
		want = ref_lower_bound(d, n, x);
		got = gpx_lower_bound(&l, x, &v);
		if (got != want || (got < n && v != d[got]))
			bad++;
		if (gpx_contains(&l, x) != (want < n && d[want] == x))
			bad++;
	}
	CHECKF(bad == 0, "%s n=%u: %ld lower_bound/contains wrong", name, n, bad);

	/* cursor with non-decreasing probes */
	cur = unit_xmalloc(sizeof(gpx_cursor));
	bad = 0;
	for (t = 0; t < 3; t++)
	{
		uint64_t	x = 0;
		uint64_t	gap = (uint64_t) d[n - 1] / n;
		uint64_t	step = t == 0 ? gap / 4 + 1 :
			(t == 1 ? gap * 3 + 1 : (uint64_t) d[n - 1] / 50 + 1);

		gpx_cursor_init(cur, &l);
		for (;;)
		{
			uint32_t	v = 0,
						want = ref_lower_bound(d, n, (uint32_t) x);
			bool		found = gpx_cursor_next_geq(cur, (uint32_t) x, &v);

			if (found != (want < n) || (found && v != d[want]))
			{
				bad++;
				break;
			}
			if (!found)
				break;
			x += qt_below(2 * step + 1);
			if (x > (uint64_t) d[n - 1] + 1)
				x = (uint64_t) d[n - 1] + 1;
		}
	}
	CHECKF(bad == 0, "%s n=%u: cursor wrong", name, n);
	free(cur);
done:
	free(out);
	free(ref);
	free(blob);
}

/* Round trips over all lengths and distributions. */
static void
qt_test_roundtrips(void)
{
	static const uint32_t lens[] = {1, 2, 3, 255, 256, 257, 511, 512, 513,
	1000, 10000, 1000000};
	uint32_t   *d = unit_xmalloc(sizeof(uint32_t) * 1000000);
	size_t		li;
	uint32_t	two[2] = {0, GPX_MAX_DOCID};
	uint32_t	one0[1] = {0};
	uint32_t	i;

	qt_roundtrip("gap{0,max}", two, 2);
	qt_roundtrip("single0", one0, 1);
	for (li = 0; li < sizeof(lens) / sizeof(lens[0]); li++)
	{
		uint32_t	n = lens[li];

		qt_dense(d, n);
		qt_roundtrip("dense", d, n);
		CHECKF(qt_ref_b(n, d[n - 1]) == 0, "dense b");
		qt_spread(d, n);
		qt_roundtrip("spread", d, n);
		qt_clustered(d, n);
		qt_roundtrip("clustered", d, n);
		qt_uniform(d, n, 1u << 24 > n ? 1u << 24 : 2ull * n);
		qt_roundtrip("uniform24", d, n);
		qt_uniform(d, n, 0x80000000ull);
		qt_roundtrip("uniform31", d, n);
		/* u/n exactly a power of two, and one below */
		for (i = 0; i < n; i++)
			d[i] = i * 64 + 63;	/* u = 64 n: b = 6 */
		qt_roundtrip("pow2", d, n);
		CHECKF(qt_ref_b(n, d[n - 1]) == 6, "pow2 b");
		d[n - 1] -= 1;			/* u = 64 n - 1: b = 5 */
		if (n == 1 || d[n - 1] > d[n - 2])
			qt_roundtrip("pow2-1", d, n);
	}
	/* the top of the range: n elements ending at 2^31-1, dense */
	for (i = 0; i < 1000; i++)
		d[i] = GPX_MAX_DOCID - 999 + i;
	qt_roundtrip("top-dense", d, 1000);
	free(d);
}

/* ---- corruptions -------------------------------------------------------- */

/* Expect a rejection; want is the expected status or GPX_OK for "any". */
static void
qt_expect_reject(const char *what, const uint8_t *buf, size_t len,
				 gpx_status want)
{
	gpx_status	st = unit_validate_exact(buf, len);

	if (want == GPX_OK)
		CHECKF(st != GPX_OK, "%s: accepted", what);
	else
		CHECKF(st == want, "%s: got \"%s\", want \"%s\"", what,
				 gpx_status_str(st), gpx_status_str(want));
}

/* Copy of a blob for mutation (same length). */
static uint8_t *
qt_dup(const uint8_t *b, size_t len)
{
	uint8_t    *c = unit_xmalloc(len);

	memcpy(c, b, len);
	return c;
}

/* Corrupt a valid blob of d (with b >= 2 and L % 32 != 0) in every way. */
static void
qt_corrupt_list(const char *name, const uint32_t *d, uint32_t n)
{
	size_t		len,
				rlen;
	uint8_t    *blob = unit_encode_exact(GPX_CODEC_QS, d, n, &len);
	uint8_t    *c;
	qt_layout	y;
	uint32_t	b = qt_ref_b(n, d[n - 1]);
	uint64_t	p;
	uint32_t	i,
				k;
	char		what[160];
	bool		done;

	qt_layout_for(&y, n, d[n - 1], b);
	CHECKF(unit_validate_exact(blob, len) == GPX_OK && len == y.len, "%s: base", name);

	/* wrong b (header param only) */
	c = qt_dup(blob, len);
	c[3] = (uint8_t) (b + 1);
	snprintf(what, sizeof(what), "%s: param b+1", name);
	qt_expect_reject(what, c, len, GPX_E_HEADER);
	c[3] = (uint8_t) (b - 1);
	snprintf(what, sizeof(what), "%s: param b-1", name);
	qt_expect_reject(what, c, len, GPX_E_HEADER);
	c[3] = 0;
	snprintf(what, sizeof(what), "%s: param 0", name);
	qt_expect_reject(what, c, len, GPX_E_HEADER);
	c[3] = 200;
	snprintf(what, sizeof(what), "%s: param 200", name);
	qt_expect_reject(what, c, len, GPX_E_HEADER);
	free(c);

	/* a fully consistent blob with a non-canonical b (b-1 and b+1) */
	for (k = 0; k < 2; k++)
	{
		uint32_t	bb = k == 0 ? b - 1 : b + 1;

		c = qt_ref_encode(d, n, bb, &rlen);
		snprintf(what, sizeof(what), "%s: consistent blob with b=%u", name, bb);
		qt_expect_reject(what, c, rlen, GPX_E_HEADER);
		free(c);
	}

	/* extra one bit inside [0, L): a zero in the middle, and bit 0 */
	for (k = 0; k < 2; k++)
	{
		c = qt_dup(blob, len);
		p = k == 0 ? y.L / 2 : 0;
		while (qt_getbit(c + y.upper_off, p))
			p++;
		qt_setbit(c + y.upper_off, p);
		snprintf(what, sizeof(what), "%s: extra one bit at %llu", name,
				 (unsigned long long) p);
		qt_expect_reject(what, c, len, GPX_OK);
		free(c);
	}

	/* missing one bit: a non-sample one, a sample one, the last one */
	for (k = 0; k < 3; k++)
	{
		uint32_t	e = k == 0 ? n / 2 + 1 : (k == 1 ? 256 : n - 1);

		c = qt_dup(blob, len);
		qt_clrbit(c + y.upper_off, (uint64_t) (d[e] >> b) + e);
		snprintf(what, sizeof(what), "%s: missing one bit of element %u", name, e);
		qt_expect_reject(what, c, len, GPX_OK);
		free(c);
	}

	/* bits at or beyond L (padding of the last upper word) */
	c = qt_dup(blob, len);
	qt_setbit(c + y.upper_off, y.L);
	snprintf(what, sizeof(what), "%s: extra bit at L", name);
	qt_expect_reject(what, c, len, GPX_E_PAYLOAD);
	free(c);
	c = qt_dup(blob, len);
	qt_setbit(c + y.upper_off, y.upper_words * 32 - 1);
	snprintf(what, sizeof(what), "%s: extra bit at the last padding bit", name);
	qt_expect_reject(what, c, len, GPX_E_PAYLOAD);
	free(c);
	/* the last one moved to L: count still n */
	c = qt_dup(blob, len);
	qt_clrbit(c + y.upper_off, y.L - 1);
	qt_setbit(c + y.upper_off, y.L);
	snprintf(what, sizeof(what), "%s: last one bit moved to L", name);
	qt_expect_reject(what, c, len, GPX_E_PAYLOAD);
	free(c);
	/* a one of the last block (not its sample, not the last) moved to L */
	c = qt_dup(blob, len);
	i = (y.nblocks - 1) * 256 + 1;
	qt_clrbit(c + y.upper_off, (uint64_t) (d[i] >> b) + i);
	qt_setbit(c + y.upper_off, y.L);
	snprintf(what, sizeof(what), "%s: one of element %u moved to L", name, i);
	qt_expect_reject(what, c, len, GPX_E_PAYLOAD);
	free(c);
	/* the last one moved down into a zero: count still n, last wrong */
	c = qt_dup(blob, len);
	p = y.L - 2;
	while (qt_getbit(c + y.upper_off, p))
		p--;
	qt_clrbit(c + y.upper_off, y.L - 1);
	qt_setbit(c + y.upper_off, p);
	snprintf(what, sizeof(what), "%s: last one bit moved below L-1", name);
	qt_expect_reject(what, c, len, GPX_OK);
	free(c);

	/* low-bits padding not zero */
	if (((uint64_t) n * b) % 32 != 0)
	{
		c = qt_dup(blob, len);
		qt_setbit(c + y.payload_off, y.low_words * 32 - 1);
		snprintf(what, sizeof(what), "%s: low padding bit set", name);
		qt_expect_reject(what, c, len, GPX_E_PAYLOAD);
		free(c);
	}

	/* wrong sample offsets: blocks 0, 1 and the last, +-1 and far */
	for (k = 0; k < 3; k++)
	{
		uint32_t	blk = k == 0 ? 0 : (k == 1 ? 1 : y.nblocks - 1);
		static const int64_t deltas[] = {1, -1, 1000000, -7};
		size_t		di;

		for (di = 0; di < 4; di++)
		{
			uint8_t    *f;
			int64_t		v;

			c = qt_dup(blob, len);
			f = c + 32 + 8 * blk + 4;
			v = (int64_t) qt_get32(f) + deltas[di];
			qt_put32(f, (uint32_t) v);
			snprintf(what, sizeof(what), "%s: sample offset of block %u %+lld",
					 name, blk, (long long) deltas[di]);
			qt_expect_reject(what, c, len, GPX_OK);
			free(c);
		}
	}
	/* a sample offset pointing at a zero bit / at the neighbour's one bit */
	c = qt_dup(blob, len);
	qt_put32(c + 32 + 8 + 4, (uint32_t) ((d[257] >> b) + 257));
	snprintf(what, sizeof(what), "%s: sample offset of block 1 -> element 257", name);
	qt_expect_reject(what, c, len, GPX_E_DIRECTORY);
	free(c);

	/* wrong dir first (offset right): block 1 +-1, the last block +1 */
	for (k = 0; k < 3; k++)
	{
		uint32_t	blk = k < 2 ? 1 : y.nblocks - 1;
		uint8_t    *f;

		c = qt_dup(blob, len);
		f = c + 32 + 8 * blk;
		qt_put32(f, qt_get32(f) + (k == 1 ? (uint32_t) -1 : 1u));
		snprintf(what, sizeof(what), "%s: dir first of block %u %s", name, blk,
				 k == 1 ? "-1" : "+1");
		qt_expect_reject(what, c, len, GPX_OK);
		free(c);
	}
	/* header first and dir[0].first both +1: only decoding can tell */
	c = qt_dup(blob, len);
	qt_put32(c + 8, d[0] + 1);
	qt_put32(c + 32, d[0] + 1);
	snprintf(what, sizeof(what), "%s: first and dir[0].first +1", name);
	qt_expect_reject(what, c, len, GPX_E_PAYLOAD);
	free(c);
	/* header last +1 (b may stay the same: then only decoding can tell) */
	c = qt_dup(blob, len);
	qt_put32(c + 12, d[n - 1] + 1);
	snprintf(what, sizeof(what), "%s: last +1", name);
	qt_expect_reject(what, c, len, GPX_OK);
	free(c);

	/* equal consecutive values through the low bits (same high part) */
	done = false;
	for (i = 1; i + 1 < n && !done; i++)
	{
		uint32_t	t;

		if ((d[i] >> b) != (d[i + 1] >> b) || (i + 1) % 256 == 0)
			continue;
		/* element i+1's low bits := element i's (equal), then one less */
		for (k = 0; k < 2; k++)
		{
			uint32_t	lowv = (d[i] & ((1u << b) - 1)) - k;

			if (k == 1 && (d[i] & ((1u << b) - 1)) == 0)
				break;
			c = qt_dup(blob, len);
			for (t = 0; t < b; t++)
			{
				uint64_t	bp = (uint64_t) (i + 1) * b + t;

				if ((lowv >> t) & 1)
					qt_setbit(c + y.payload_off, bp);
				else
					qt_clrbit(c + y.payload_off, bp);
			}
			snprintf(what, sizeof(what), "%s: element %u %s element %u via low bits",
					 name, i + 1, k == 0 ? "equal to" : "below", i);
			qt_expect_reject(what, c, len, GPX_E_PAYLOAD);
			free(c);
		}
		done = true;
	}
	CHECKF(done, "%s: no equal-high pair found", name);

	/* truncations and size mismatches */
	snprintf(what, sizeof(what), "%s: truncated by 4", name);
	qt_expect_reject(what, blob, len - 4, GPX_E_TRUNCATED);
	snprintf(what, sizeof(what), "%s: truncated by 1", name);
	qt_expect_reject(what, blob, len - 1, GPX_OK);
	c = qt_dup(blob, len);
	qt_put32(c + 20, qt_get32(c + 20) - 4);
	snprintf(what, sizeof(what), "%s: payload_bytes -4, blob -4", name);
	qt_expect_reject(what, c, len - 4, GPX_E_HEADER);
	free(c);
	c = unit_xmalloc(len + 4);
	memcpy(c, blob, len);
	memset(c + len, 0, 4);
	qt_put32(c + 20, qt_get32(c + 20) + 4);
	snprintf(what, sizeof(what), "%s: payload_bytes +4, blob +4", name);
	qt_expect_reject(what, c, len + 4, GPX_E_HEADER);
	free(c);
	c = qt_dup(blob, len);
	qt_put32(c + 20, 0xFFFFFFFCu);
	snprintf(what, sizeof(what), "%s: payload_bytes huge", name);
	qt_expect_reject(what, c, len, GPX_OK);
	free(c);

	free(blob);
}

/* Corruption tests on a few lists, plus small special cases. */
static void
qt_test_corruptions(void)
{
	uint32_t   *d = unit_xmalloc(sizeof(uint32_t) * 5000);
	uint32_t	n,
				tries;
	qt_layout	y;
	uint8_t    *blob,
			   *c;
	size_t		len;
	uint32_t	pair[2];
	uint32_t	one[1];

	/* uniform lists with b >= 2 and L not a multiple of 32 */
	for (tries = 0; tries < 3; tries++)
	{
		n = 1000 + 333 * tries;
		do
		{
			qt_uniform(d, n, (uint64_t) n * (16 + 50 * tries));
			qt_layout_for(&y, n, d[n - 1], qt_ref_b(n, d[n - 1]));
		} while (y.L % 32 == 0 || y.b < 2);
		qt_corrupt_list(tries == 0 ? "uniform-a" : tries == 1 ? "uniform-b" : "uniform-c",
						d, n);
	}

	/* b = 0: dense list, then a duplicated element via an extra one bit */
	qt_dense(d, 300);
	blob = unit_encode_exact(GPX_CODEC_QS, d, 300, &len);
	qt_layout_for(&y, 300, 299, 0);
	c = qt_dup(blob, len);
	/* move element 5's one bit down onto the zero-free run: swap 5 and 6 */
	qt_clrbit(c + y.upper_off, 5);
	qt_setbit(c + y.upper_off, y.L);	/* L = 599, padding bit */
	qt_expect_reject("dense: one moved beyond L", c, len, GPX_OK);
	free(c);
	c = qt_dup(blob, len);
	c[3] = 1;
	qt_expect_reject("dense: param 1", c, len, GPX_E_HEADER);
	free(c);
	free(blob);

	/* two elements with huge gap: b = 30; equal highs impossible, low corrupt */
	pair[0] = 0;
	pair[1] = GPX_MAX_DOCID;
	blob = unit_encode_exact(GPX_CODEC_QS, pair, 2, &len);
	qt_layout_for(&y, 2, GPX_MAX_DOCID, 30);
	CHECKF(blob[3] == 30 && len == y.len, "{0,max}: b=30, len %zu", len);
	c = qt_dup(blob, len);
	qt_setbit(c + y.payload_off, 0);	/* element 0 := 1: dir first mismatch */
	qt_expect_reject("{0,max}: low bit of element 0", c, len, GPX_E_PAYLOAD);
	free(c);
	c = qt_dup(blob, len);
	qt_clrbit(c + y.payload_off, 30);	/* element 1 low bit 0: last wrong */
	qt_expect_reject("{0,max}: low bit of element 1", c, len, GPX_E_PAYLOAD);
	free(c);
	free(blob);

	/*
	 * b = 31 ({2^31-1}: L = 1): the one bit moved from 0 to 2 gives h = 2,
	 * and (2 << 31) wraps to 0 in 32 bits, so the value would decode to
	 * last again (sample offset adjusted to 2); only "no bit at or beyond
	 * L" / "bit L-1 set" reject it.
	 */
	one[0] = GPX_MAX_DOCID;
	blob = unit_encode_exact(GPX_CODEC_QS, one, 1, &len);
	qt_layout_for(&y, 1, GPX_MAX_DOCID, 31);
	CHECKF(blob[3] == 31 && len == y.len && y.L == 1, "{max}: b=31, len %zu", len);
	c = qt_dup(blob, len);
	qt_clrbit(c + y.upper_off, 0);
	qt_setbit(c + y.upper_off, 2);
	qt_put32(c + 32 + 4, 2);	/* keep the sample consistent */
	qt_expect_reject("{max}: one bit moved 0 -> 2 (wraps to last)", c, len,
					 GPX_E_PAYLOAD);
	free(c);
	free(blob);

	/* empty list: valid header-only blob */
	blob = unit_xmalloc(GPX_V1_HEADER_SIZE);
	CHECKF(gpx_encode(GPX_CODEC_QS, d, 0, blob, GPX_V1_HEADER_SIZE, &len) == GPX_OK &&
			 len == GPX_V1_HEADER_SIZE, "empty encode");
	CHECKF(unit_validate_exact(blob, len) == GPX_OK, "empty validate");
	free(blob);

	/* encoder input checks */
	{
		uint8_t		o[64];
		uint32_t	bad[2] = {5, 5};
		uint32_t	big[1] = {0x80000000u};

		CHECKF(gpx_encode(GPX_CODEC_QS, bad, 2, o, sizeof(o), &len) == GPX_E_UNSORTED,
				 "unsorted input");
		CHECKF(gpx_encode(GPX_CODEC_QS, big, 1, o, sizeof(o), &len) == GPX_E_RANGE,
				 "out of range input");
		CHECKF(gpx_encode(GPX_CODEC_QS, pair, 2, o, 40, &len) == GPX_E_NOSPACE,
				 "small output");
	}
	free(d);
}

/*
 * Random bit flips (1 to 3 per trial) over whole blobs: validation must
 * never crash or over-read (run under ASan), and any accepted blob must be
 * canonical: it re-encodes to the very same bytes.
 */
static void
qt_test_fuzz(void)
{
	uint32_t   *d = unit_xmalloc(sizeof(uint32_t) * 2000);
	uint32_t   *out = unit_xmalloc(sizeof(uint32_t) * 2000);
	long		accepted = 0,
				bad = 0,
				trials = 0;
	uint32_t	set;

	for (set = 0; set < 4; set++)
	{
		uint32_t	n = set == 0 ? 1 : set == 1 ? 40 : set == 2 ? 600 : 1500;
		size_t		len;
		uint8_t    *blob;
		uint32_t	t;

		if (set == 3)
			qt_dense(d, n);
		else
			qt_uniform(d, n, set == 0 ? 1000 : (uint64_t) n * 40);
		blob = unit_encode_exact(GPX_CODEC_QS, d, n, &len);
		for (t = 0; t < 20000; t++)
		{
			uint8_t    *c = qt_dup(blob, len);
			uint32_t	flips = 1 + qt_below(3),
						f;
			uint32_t	scratch[GPX_MAX_BLOCK];
			gpx_status	st;

			for (f = 0; f < flips; f++)
			{
				/* bias toward the payload and the directory */
				uint64_t	pbit = (t & 1) ? qt_below((uint64_t) len * 8) :
					(uint64_t) 32 * 8 + qt_below((uint64_t) (len - 32) * 8);

				c[pbit >> 3] ^= (uint8_t) (1u << (pbit & 7));
			}
			trials++;
			st = gpx_validate(c, len, scratch);
			if (st == GPX_OK)
			{
				gpx_list	l;
				size_t		len2;
				uint8_t    *again;

				accepted++;
				if (gpx_open(&l, c, len) != GPX_OK || l.n > 2000)
					bad++;
				else
				{
					gpx_decode(&l, out);
					again = unit_encode_exact(GPX_CODEC_QS, out, l.n, &len2);
					if (len2 != len || memcmp(again, c, len) != 0)
						bad++;
					free(again);
				}
			}
			free(c);
		}
		free(blob);
	}
	CHECKF(bad == 0, "fuzz: %ld accepted blobs not canonical", bad);
	printf("fuzz: %ld trials, %ld accepted (all canonical re-encodings)\n",
		   trials, accepted);
	free(d);
	free(out);
}

/* ---- size table --------------------------------------------------------- */

/*
 * Uniform lists in [0, 2^24): compare the blob with n * (2 + floor(log2(u/n)))
 * bits plus the directory (the brief's target), with the exact Elias-Fano
 * size n*b + (last >> b) + n bits plus the directory, and with the classic
 * upper bound n * (2 + ceil(log2(u/n))) bits plus the directory.
 */
static void
qt_test_sizes(void)
{
	static const uint32_t ns[] = {10000, 100000, 1000000};
	uint32_t   *d = unit_xmalloc(sizeof(uint32_t) * 1000000);
	size_t		i;

	printf("size table: uniform random in [0, 2^24)\n");
	printf("%8s %3s %10s %8s %9s %12s %8s %12s %8s %12s %8s\n",
		   "n", "b", "blob B", "bits/id", "dir B", "floor-tgt B", "ratio",
		   "exactEF B", "ratio", "ceil-bnd B", "ratio");
	for (i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
	{
		uint32_t	n = ns[i];
		size_t		len;
		uint8_t    *blob;
		uint32_t	b;
		double		dirb,
					floor_t,
					exact,
					ceil_b;
		uint32_t	cb;

		qt_uniform(d, n, 1u << 24);
		blob = unit_encode_exact(GPX_CODEC_QS, d, n, &len);
		b = qt_ref_b(n, d[n - 1]);
		/* ceil(log2(u / n)): the least c with n * 2^c >= u */
		for (cb = 0; ((uint64_t) n << cb) < (uint64_t) d[n - 1] + 1; cb++)
			;
		dirb = 8.0 * ((n + 255) / 256);
		floor_t = (double) n * (2 + b) / 8 + dirb;
		exact = ((double) n * b + (double) (d[n - 1] >> b) + n) / 8 + dirb;
		ceil_b = (double) n * (2 + cb) / 8 + dirb;
		printf("%8u %3u %10zu %8.3f %9.0f %12.0f %8.4f %12.0f %8.4f %12.0f %8.4f\n",
			   n, b, len, 8.0 * len / n, dirb, floor_t, len / floor_t,
			   exact, len / exact, ceil_b, len / ceil_b);
		/* achievable acceptance: within 2% of the exact EF size + samples */
		CHECKF(len <= 1.02 * exact, "n=%u: blob %zu > 1.02 * exact EF %.0f",
				 n, len, exact);
		CHECKF(len <= ceil_b + GPX_V1_HEADER_SIZE + 8,
				 "n=%u: blob above the 2+ceil(log2(u/n)) bound", n);
		free(blob);
	}
	free(d);
}

/* Run everything; exit non-zero on failure. */
int
main(void)
{
	unit_format_version = GPX_FORMAT_V1;
	UNIT_RUN(qt_test_roundtrips());
	UNIT_RUN(qt_test_corruptions());
	UNIT_RUN(qt_test_fuzz());
	UNIT_RUN(qt_test_sizes());
	return unit_finish();
}
