/*
 * test_codec.c - codec-independent unit tests run against every codec:
 * randomized round trips for the lengths and distributions the issue names,
 * random access, lower_bound and cursor skipping against the naive
 * reference, and rejection of every corrupted-header and truncated blob.
 */
#include <string.h>
#include "gpx_codec.h"
#include "unit.h"

static const int codecs[] = {GPX_CODEC_PFOR, GPX_CODEC_LRC, GPX_CODEC_QS};
static uint32_t scratch[GPX_MAX_BLOCK];

/* Round trip one list with one codec and probe it. */
static void
roundtrip(int codec, const uint32_t *docs, uint32_t n, unit_rng *r)
{
	size_t		len;
	uint8_t    *copy = unit_encode_exact(codec, docs, n, &len);
	uint32_t   *out;
	gpx_list	l;
	gpx_cursor	cur;
	uint32_t	i,
				probes,
				x,
				v,
				ok = 1;

	/* the blob is exact-size, so over-reads show under ASan */
	if (copy == NULL)
		return;
	CHECKF(gpx_validate(copy, len, scratch) == GPX_OK, "%s validate n=%u: %s",
		   gpx_codec_name(codec), n, gpx_status_str(gpx_validate(copy, len, scratch)));
	CHECK(gpx_open(&l, copy, len) == GPX_OK);
	CHECK(l.n == n && l.codec == codec);
	CHECK(n == 0 || (l.first == docs[0] && l.last == docs[n - 1]));

	out = malloc(sizeof(uint32_t) * (n + 1));
	gpx_decode(&l, out);
	for (i = 0; i < n; i++)
		if (out[i] != docs[i])
		{
			ok = 0;
			break;
		}
	CHECKF(ok, "%s decode n=%u mismatch at %u", gpx_codec_name(codec), n, i);

	/* random access */
	probes = n < 2000 ? n : 2000;
	ok = 1;
	for (i = 0; i < probes; i++)
	{
		uint32_t	k = n <= 2000 ? i : unit_below(r, n);

		if (gpx_nth(&l, k) != docs[k])
			ok = 0;
	}
	CHECKF(ok, "%s nth n=%u", gpx_codec_name(codec), n);

	/* lower_bound / contains at members, neighbours and random points */
	ok = 1;
	for (i = 0; i < 3000 && n > 0; i++)
	{
		uint32_t	e,
					got,
					gv = 0;

		switch (i % 4)
		{
			case 0:
				x = docs[unit_below(r, n)];
				break;
			case 1:
				x = docs[unit_below(r, n)] + 1;
				break;
			case 2:
				x = docs[unit_below(r, n)] - 1;
				break;
			default:
				x = unit_below(r, (uint64_t) GPX_MAX_DOCID + 2);
		}
		e = ref_lower_bound(docs, n, x);
		got = gpx_lower_bound(&l, x, &gv);
		if (got != e || (e < n && gv != docs[e]) ||
			gpx_contains(&l, x) != (e < n && docs[e] == x))
		{
			ok = 0;
			fprintf(stderr, "  %s n=%u x=%u: lower_bound %u (val %u) want %u\n",
					gpx_codec_name(codec), n, x, got, gv, e);
			break;
		}
	}
	CHECKF(ok, "%s lower_bound n=%u", gpx_codec_name(codec), n);
	CHECK(gpx_lower_bound(&l, 0, NULL) == 0);
	CHECK(gpx_lower_bound(&l, GPX_MAX_DOCID, NULL) ==
		  (n && docs[n - 1] == GPX_MAX_DOCID ? n - 1 : n));

	/* cursor with increasing targets of several stride scales */
	for (probes = 0; probes < 3; probes++)
	{
		uint64_t	stride = probes == 0 ? 1 : probes == 1 ? 977 : 1u << 22;

		ok = 1;
		gpx_cursor_init(&cur, &l);
		x = unit_below(r, 50);
		for (;;)
		{
			uint32_t	e = ref_lower_bound(docs, n, x);
			bool		found = gpx_cursor_next_geq(&cur, x, &v);

			if (found != (e < n) || (found && v != docs[e]))
			{
				ok = 0;
				fprintf(stderr, "  %s cursor n=%u x=%u: found=%d v=%u want idx %u\n",
						gpx_codec_name(codec), n, x, found, v, e);
				break;
			}
			if (!found)
				break;
			/* next target: just past the value found, plus a random stride */
			{
				uint64_t	nx = (uint64_t) v + unit_below(r, stride) +
					(unit_below(r, 2) ? 1 : 0);

				if (nx < x)
					nx = x;
				if (nx > GPX_MAX_DOCID)
					break;
				x = (uint32_t) nx;
			}
		}
		CHECKF(ok, "%s cursor stride %lu n=%u", gpx_codec_name(codec),
			   (unsigned long) stride, n);
	}
	free(out);
	free(copy);
}

/* An accepted blob decodes to a strictly increasing list matching its header. */
static bool
decodes_sanely(const uint8_t *buf, size_t len)
{
	gpx_list	l;
	uint32_t   *out;
	bool		ok;

	if (gpx_open(&l, buf, len) != GPX_OK)
		return false;
	out = malloc(sizeof(uint32_t) * (l.n + 1));
	gpx_decode(&l, out);
	ok = gpx_check_sorted(out, l.n) == GPX_OK &&
		(l.n == 0 || (out[0] == l.first && out[l.n - 1] == l.last));
	free(out);
	return ok;
}

/*
 * Every truncation and header corruption of a valid version 1 blob is
 * rejected (test_format2.c does the same for version 2).
 */
static void
corruptions(int codec, const uint32_t *docs, uint32_t n)
{
	size_t		len,
				cut;
	uint8_t    *blob = unit_encode_exact(codec, docs, n, &len);
	uint8_t    *bad;
	int			field;
	bool		all = true;

	if (blob == NULL)
		return;
	/* every truncated prefix, in an exact-size buffer */
	for (cut = 0; cut < len; cut++)
	{
		bad = malloc(cut ? cut : 1);
		memcpy(bad, blob, cut);
		if (gpx_validate(bad, cut, scratch) == GPX_OK)
			all = false;
		free(bad);
	}
	CHECKF(all, "%s n=%u: some truncation accepted", gpx_codec_name(codec), n);

	/* trailing garbage */
	bad = malloc(len + 4);
	memcpy(bad, blob, len);
	memset(bad + len, 0, 4);
	CHECK(gpx_validate(bad, len + 4, scratch) == GPX_E_TRAILING);
	free(bad);

	/* header fields: each changed value must be rejected */
	bad = malloc(len);
	for (field = 0; field < 11; field++)
	{
		static const int off[] = {0, 1, 2, 3, 4, 8, 12, 16, 20, 24, 28};
		uint32_t	deltas[] = {1, 0xFFFFFFFFu, 0x80};
		int			d;

		for (d = 0; d < 3; d++)
		{
			gpx_status	st;

			memcpy(bad, blob, len);
			if (off[field] < 4)
				bad[off[field]] = (uint8_t) (bad[off[field]] + deltas[d]);
			else
			{
				uint32_t	v;

				memcpy(&v, bad + off[field], 4);
				v += deltas[d];
				memcpy(bad + off[field], &v, 4);
			}
			/*
			 * param is codec-defined: a changed lrc/pfor param is an error
			 * too.  A changed codec byte may turn an empty list into a valid
			 * empty list of another codec with the same block size; the SQL
			 * layer rejects that by type, so here it must just not validate
			 * as the original codec.
			 */
			st = gpx_validate(bad, len, scratch);
			if (off[field] == 1 && st == GPX_OK && n == 0 && bad[1] != codec)
				st = GPX_E_CODEC;
			CHECKF(st != GPX_OK, "%s n=%u: header byte %d +%u accepted",
				   gpx_codec_name(codec), n, off[field], deltas[d]);
		}
	}
	free(bad);

	/* every directory entry's first docID, off by one either way */
	if (n > 0)
	{
		gpx_list	l;
		uint32_t	k;

		gpx_open(&l, blob, len);
		all = true;
		for (k = 0; k < l.nblocks; k++)
		{
			int			d;

			for (d = -1; d <= 1; d += 2)
			{
				uint32_t	v;
				size_t		at = GPX_V1_HEADER_SIZE + (size_t) k * GPX_DIR_ENTRY_SIZE;

				bad = malloc(len);
				memcpy(bad, blob, len);
				memcpy(&v, bad + at, 4);
				v += d;
				memcpy(bad + at, &v, 4);
				/*
				 * PFor blocks are delta-coded from the directory's first
				 * docID, so shifting one may give another valid list; that
				 * is acceptable only if it really decodes to one.  LRC and
				 * QS store their values independently of it: never valid.
				 */
				if (gpx_validate(bad, len, scratch) == GPX_OK &&
					(codec != GPX_CODEC_PFOR || !decodes_sanely(bad, len)))
				{
					fprintf(stderr, "  first of block %u %+d accepted\n", k, d);
					all = false;
				}
				memcpy(bad, blob, len);
				memcpy(&v, bad + at + 4, 4);
				v += d;
				memcpy(bad + at + 4, &v, 4);
				if (k > 0 && gpx_validate(bad, len, scratch) == GPX_OK)
				{
					fprintf(stderr, "  offset of block %u %+d accepted\n", k, d);
					all = false;
				}
				free(bad);
			}
		}
		CHECKF(all, "%s n=%u: a corrupted directory entry was accepted",
			   gpx_codec_name(codec), n);
	}
	free(blob);
}

/* Random byte flips: validate either rejects or the value decodes sanely. */
static void
flips(int codec, const uint32_t *docs, uint32_t n, unit_rng *r)
{
	size_t		len;
	uint8_t    *blob = unit_encode_exact(codec, docs, n, &len);
	uint8_t    *bad;
	int			t;
	bool		ok = true;

	if (blob == NULL || len == 0)
		return;
	bad = malloc(len);
	for (t = 0; t < 2000; t++)
	{
		memcpy(bad, blob, len);
		bad[unit_below(r, len)] ^= (uint8_t) (1u << unit_below(r, 8));
		if (t & 1)
			bad[unit_below(r, len)] = (uint8_t) unit_below(r, 256);
		if (gpx_validate(bad, len, scratch) != GPX_OK)
			continue;
		/* accepted: it must decode to a strictly increasing list of n */
		if (!decodes_sanely(bad, len))
			ok = false;
	}
	CHECKF(ok, "%s n=%u: a flipped blob validated but decodes wrongly",
		   gpx_codec_name(codec), n);
	free(bad);
	free(blob);
}

/* Encoder input checks. */
static void
encoder_input(void)
{
	uint32_t	unsorted[] = {5, 3};
	uint32_t	dup[] = {5, 5};
	uint32_t	range[] = {1, 0x80000000u};
	uint8_t		buf[4096];
	size_t		len;
	int			c;

	for (c = 0; c < 3; c++)
	{
		CHECK(gpx_encode(codecs[c], unsorted, 2, buf, sizeof buf, &len) == GPX_E_UNSORTED);
		CHECK(gpx_encode(codecs[c], dup, 2, buf, sizeof buf, &len) == GPX_E_UNSORTED);
		CHECK(gpx_encode(codecs[c], range, 2, buf, sizeof buf, &len) == GPX_E_RANGE);
		CHECK(gpx_encode(codecs[c], dup, 1, buf, 4, &len) == GPX_E_NOSPACE);
	}
	CHECK(gpx_encode(99, dup, 1, buf, sizeof buf, &len) == GPX_E_CODEC);
	CHECK(gpx_validate(buf, 0, scratch) == GPX_E_TRUNCATED);
}

/* One pass of the suites in the current unit_format_version. */
static void
run_suites(unit_rng *r, uint32_t *docs)
{
	static const uint32_t lengths[] = {0, 1, 2, 127, 128, 129, 255, 256, 257,
	10000, 1000000};
	static const char *dnames[] = {"uniform", "clustered", "extreme"};
	bool		v1 = unit_format_version == GPX_FORMAT_V1;
	size_t		li;
	int			d,
				c;

	for (li = 0; li < sizeof(lengths) / sizeof(lengths[0]); li++)
		for (d = 0; d < 3; d++)
		{
			uint64_t	universes[] = {1u << 24, (uint64_t) GPX_MAX_DOCID + 1,
			(uint64_t) lengths[li] + 3};
			int			u;

			for (u = 0; u < 3; u++)
			{
				uint32_t	n = unit_make_list(r, (unit_dist) d, lengths[li],
											   universes[u], docs);

				if (d == UNIT_EXTREME && u != 1)
					continue;
				unit_case_begin("v%d round trip, corruptions and bit flips: %s, n=%u, universe %llu",
								unit_format_version, dnames[d], lengths[li],
								(unsigned long long) universes[u]);
				for (c = 0; c < 3; c++)
				{
					roundtrip(codecs[c], docs, n, r);
					if (n <= 1000)
					{
						if (v1)
							corruptions(codecs[c], docs, n);
						flips(codecs[c], docs, n, r);
					}
				}
			}
		}
	/* dense run 0..n-1 and the two extremes alone */
	{
		uint32_t	i,
					pair[] = {0, GPX_MAX_DOCID},
					top[] = {GPX_MAX_DOCID};

		unit_case_begin("v%d a dense run and the extreme docIDs alone", unit_format_version);
		for (i = 0; i < 100000; i++)
			docs[i] = i;
		for (c = 0; c < 3; c++)
		{
			roundtrip(codecs[c], docs, 100000, r);
			roundtrip(codecs[c], pair, 2, r);
			roundtrip(codecs[c], top, 1, r);
			if (v1)
			{
				corruptions(codecs[c], pair, 2);
				corruptions(codecs[c], top, 1);
			}
		}
	}
}

int
main(int argc, char **argv)
{
	unit_rng	r = {12345};
	uint32_t   *docs = malloc(sizeof(uint32_t) * 1000001);

	(void) argc;
	(void) argv;
	UNIT_RUN(encoder_input());
	unit_format_version = GPX_FORMAT_V1;
	run_suites(&r, docs);
	unit_format_version = 2;
	run_suites(&r, docs);
	free(docs);
	return unit_finish();
}
