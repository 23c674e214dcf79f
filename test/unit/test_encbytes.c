/*
 * test_encbytes.c - the encoders' output stays byte for byte what it was.
 *
 * The encoding of a list is a function of its docIDs (gpx_equal, the
 * executor's caches and gpx_append rely on it), so a faster encoder must
 * write the very same bytes.  A battery of deterministic lists (uniform
 * gaps at many scales, heavy tails, clusters, exact progressions, curves
 * that bend the LRC line, rare huge jumps, lists near the top of the docID
 * range, every block-size edge) is encoded with every codec, every format
 * version and set of block kinds, with and without term frequencies; a
 * 64-bit FNV-1a of each family's bytes must equal the value recorded when
 * the encoders were last changed on purpose (GOLDEN below, written by the
 * encoders of commit 06c28fb).  A mismatch names the codec and family;
 * comparing the two encoders' blobs list by list then finds the list.
 *
 * The incremental encoder (gpx_encstream) must write gpx_encode's bytes
 * for every list of the battery however it is cut into pieces.
 *
 *   test_encbytes            check
 *   test_encbytes --print    print the hashes (to record new ones, only
 *                            for a deliberate format change)
 */
#include <string.h>

#include "unit.h"

/* splitmix64 of the battery (independent of the reference generator). */
static uint64_t eb_state;

static uint64_t
eb_rnd(void)
{
	uint64_t	z = (eb_state += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* FNV-1a 64 over bytes, continuing from h. */
static uint64_t
eb_fnv(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

#define EB_FNV0 0xcbf29ce484222325ull
#define EB_SHAPES 16

/*
 * List `shape` of n docIDs into d (n may shrink where the range ends);
 * returns the count.
 */
static uint32_t
eb_list(int shape, uint32_t n, uint32_t *d)
{
	uint64_t	v,
				step = 0;
	uint32_t	k = 0;
	uint32_t	g = 0;

	switch (shape)
	{
		case 0:					/* consecutive */
		case 1:					/* uniform gaps [1, 3] */
		case 2:					/* uniform [1, 31] */
		case 3:					/* uniform [1, 599] */
		case 4:					/* uniform [1, 2^17) */
		case 5:					/* uniform [1, 2^21) */
			{
				static const uint32_t avg[] = {1, 2, 16, 300, 65536, 1u << 20};

				g = avg[shape];
			}
			break;
		default:
			break;
	}
	v = eb_rnd() % 1000;
	if (shape == 10)
		v = GPX_MAX_DOCID - (uint64_t) n * 40;	/* near the top */
	if (shape == 8)
		step = 1 + eb_rnd() % 5000;
	for (uint32_t i = 0; i < n; i++)
	{
		uint64_t	gap;

		if (v > GPX_MAX_DOCID)
			break;
		d[k++] = (uint32_t) v;
		switch (shape)
		{
			case 6:				/* heavy tail: 1 + a random number of random bits */
				{
					uint64_t	x = eb_rnd();
					uint32_t	sh = 64 - (uint32_t) (eb_rnd() % 24);

					/* a shift by 64 is x itself (as when the hashes were taken) */
					gap = 1 + (sh == 64 ? x : x >> sh);
				}
				break;
			case 7:				/* clusters: runs of ones, jumps between */
				gap = eb_rnd() % 16 == 0 ? 1 + eb_rnd() % 100000 : 1;
				break;
			case 8:				/* exact progression */
				gap = step;
				break;
			case 9:				/* mostly small, rare jumps of about 2^24 */
				gap = eb_rnd() % 97 == 0 ? (1u << 24) + eb_rnd() % 1000 : 1 + eb_rnd() % 7;
				break;
			case 10:			/* near GPX_MAX_DOCID, gaps [1, 39] */
				gap = 1 + eb_rnd() % 39;
				break;
			case 11:			/* convex: gaps growing with i */
				gap = 1 + (uint64_t) (i % 256) * (i % 256) / 8;
				break;
			case 12:			/* alternating 1 and large */
				gap = (i & 1) ? 1 : 1 + eb_rnd() % 1000000;
				break;
			case 13:			/* sawtooth of the LRC line: bursts per 64 */
				gap = (i % 64) < 60 ? 1 + eb_rnd() % 3 : 5000 + eb_rnd() % 50;
				break;
			case 14:			/* whole range: gaps about 2^31 / n */
				gap = 1 + eb_rnd() % (2 * (uint64_t) GPX_MAX_DOCID / (n + 1) + 1);
				break;
			case 15:			/* concave: big gaps first in each 256 */
				gap = 1 + (uint64_t) (255 - i % 256) * (255 - i % 256) * 3 + eb_rnd() % 9;
				break;
			default:
				gap = g == 1 ? 1 : 1 + eb_rnd() % (2 * (uint64_t) g - 1);
				break;
		}
		v += gap;
	}
	return k;
}

/* The encodings of a family. */
enum
{
	EB_DEFAULT,					/* gpx_encode */
	EB_V1,						/* format version 1 */
	EB_EF,						/* v2, Elias-Fano blocks only */
	EB_BITMAP,					/* v2, bitmaps only */
	EB_OWN,						/* v2, the codec's own form only */
	EB_ALL,						/* v2, every kind */
	EB_TF,						/* gpx_encode_tf */
	EB_FAMILIES
};

static const char *const eb_family_name[EB_FAMILIES] = {
	"default", "v1", "ef", "bitmap", "own", "all kinds", "tf"
};

/* Encode d[0..n) in family f of codec into a fresh blob; NULL: not applicable. */
static uint8_t *
eb_encode(int codec, int f, const uint32_t *d, const uint32_t *tf, uint32_t n,
		  size_t *len)
{
	gpx_encode_opts o = {0, 0};
	size_t		cap;
	uint8_t    *b;
	gpx_status	st;

	*len = 0;
	switch (f)
	{
		case EB_V1:
			o.version = 1;
			break;
		case EB_EF:
			o.kinds = 1u << GPX_KIND_EF;
			break;
		case EB_BITMAP:
			o.kinds = 1u << GPX_KIND_BITMAP;
			break;
		case EB_OWN:
			o.kinds = 1u << GPX_KIND_OWN;
			break;
		case EB_ALL:
			o.kinds = (1u << GPX_KIND_EF) | (1u << GPX_KIND_BITMAP) | (1u << GPX_KIND_OWN);
			break;
		default:
			break;
	}
	if (f == EB_BITMAP && n > 0 && d[n - 1] > 32000000u)
		return NULL;			/* its bound (a bitmap up to last) is too big to bother */
	cap = f == EB_TF ? gpx_encode_bound_tf(codec, n, n ? d[n - 1] : 0) :
		gpx_encode_bound_ex(codec, n, n ? d[n - 1] : 0, &o);
	b = unit_xmalloc(cap + 1);
	/* no byte of the output may come from what the buffer held */
	memset(b, 0xA5, cap + 1);
	st = f == EB_TF ? gpx_encode_tf(codec, d, tf, n, b, cap, len) :
		gpx_encode_ex(codec, d, n, &o, b, cap, len);
	CHECKF(st == GPX_OK, "codec %d family %s n %u: %s", codec, eb_family_name[f],
		   n, gpx_status_str(st));
	if (st != GPX_OK)
	{
		free(b);
		return NULL;
	}
	CHECKF(unit_validate_exact(b, *len) == GPX_OK, "codec %d family %s n %u: invalid",
		   codec, eb_family_name[f], n);
	return b;
}

/* Sizes of the battery (every block-size edge, a few long lists). */
static const uint32_t eb_sizes[] = {
	1, 2, 3, 5, 64, 127, 128, 129, 200, 255, 256, 257, 383, 384, 385, 511,
	512, 513, 1000, 4097, 30000, 100000
};

#define EB_NSIZES (sizeof(eb_sizes) / sizeof(eb_sizes[0]))

/* Hash of each family of codec over the battery into h[]. */
static void
eb_battery(int codec, uint64_t h[EB_FAMILIES])
{
	uint32_t   *d = unit_xmalloc(100000 * sizeof(uint32_t));
	uint32_t   *tf = unit_xmalloc(100000 * sizeof(uint32_t));

	for (int f = 0; f < EB_FAMILIES; f++)
		h[f] = EB_FNV0;
	eb_state = 0x5eedull * 1000003u + (uint64_t) codec;
	for (int shape = 0; shape < EB_SHAPES; shape++)
		for (size_t si = 0; si < EB_NSIZES; si++)
		{
			uint32_t	n = eb_list(shape, eb_sizes[si], d);

			for (uint32_t i = 0; i < n; i++)
				tf[i] = 1 + (uint32_t) (eb_rnd() % (i % 7 == 0 ? 100000 : 4));
			for (int f = 0; f < EB_FAMILIES; f++)
			{
				size_t		len;
				uint8_t    *b = eb_encode(codec, f, d, tf, n, &len);

				if (b == NULL)
					continue;
				h[f] = eb_fnv(h[f], &len, sizeof(len));
				h[f] = eb_fnv(h[f], b, len);
				free(b);
			}
		}
	free(d);
	free(tf);
}

/*
 * The hashes written by the encoders of commit 06c28fb, by codec (pfor,
 * lrc, qs) and family (the enum's order).
 */
static const uint64_t GOLDEN[3][EB_FAMILIES] = {
	{0x23dc873c7b4daa75ull, 0x80210936b7c7c721ull, 0xb0461c9b9cbff926ull, 0xf7bb98dd96da38dcull, 0x6b775188b7ff7bc8ull, 0x1a92dd62d45f47c4ull, 0x9ea1d8d96a4681d6ull},
	{0x7b2f7cc8884e16c6ull, 0x228c8c79d02f64c0ull, 0x2649f32bd1cad154ull, 0xebee2b529402c59bull, 0x80b4fe864482a919ull, 0x817fe385009bf5e8ull, 0xe21a18efe5fa096bull},
	{0x7f82fe95b46cc36dull, 0x12d106565a6e636bull, 0xf8e173af04dcd270ull, 0x3cae1ef6faa195a0ull, 0xf8e173af04dcd270ull, 0x7f82fe95b46cc36dull, 0x895e7170702affbbull},
};

/*
 * The incremental encoder (gpx_encstream) against gpx_encode: every list
 * of the battery, given in pieces of random sizes (single docIDs, whole
 * blocks and more, block edges), into a buffer of exactly its bound,
 * poisoned, must come out as the same bytes; plus its errors.
 */
static void
test_encstream(void)
{
	uint32_t   *d = unit_xmalloc(100000 * sizeof(uint32_t));
	uint32_t	lastmax;
	gpx_encstream es;
	size_t		len;
	uint8_t		small[64];

	eb_state = 0xE5ull;
	for (int codec = GPX_CODEC_MIN; codec <= GPX_CODEC_MAX; codec++)
		for (int shape = 0; shape < EB_SHAPES; shape++)
			for (size_t si = 0; si < EB_NSIZES; si++)
			{
				uint32_t	n = eb_list(shape, eb_sizes[si], d),
							nmax = n + (uint32_t) (eb_rnd() % 3) * (eb_rnd() % 600);
				size_t		wlen,
							cap;
				uint8_t    *want = eb_encode(codec, EB_DEFAULT, d, NULL, n, &wlen),
						   *got;
				uint32_t	i = 0;

				if (want == NULL)
					continue;
				lastmax = n == 0 ? 0 : d[n - 1] + (uint32_t) (eb_rnd() % 2) *
					(uint32_t) ((GPX_MAX_DOCID - d[n - 1]) / 2);
				cap = gpx_encstream_bound(codec, nmax, lastmax);
				CHECK(cap >= wlen);
				got = unit_xmalloc(cap);
				memset(got, 0xC3, cap);
				CHECK(gpx_encstream_init(&es, codec, nmax, lastmax, got, cap) == GPX_OK);
				while (i < n)
				{
					uint32_t	r = (uint32_t) (eb_rnd() % 8),
								m = r == 0 ? 1 : r == 1 ? 128 : r == 2 ? 256 :
						r == 3 ? 300 : r == 4 ? n - i : (uint32_t) (1 + eb_rnd() % 200);

					m = m > n - i ? n - i : m;
					CHECK(gpx_encstream_push(&es, d + i, m) == GPX_OK);
					i += m;
				}
				CHECK(gpx_encstream_push(&es, d, 0) == GPX_OK);
				len = 0;
				CHECKF(gpx_encstream_finish(&es, &len) == GPX_OK && len == wlen &&
					   memcmp(got, want, wlen) == 0,
					   "%s shape %d n %u (nmax %u): %zu bytes, gpx_encode %zu, %s",
					   gpx_codec_name(codec), shape, n, nmax, len, wlen,
					   len == wlen ? "content differs" : "length differs");
				free(got);
				free(want);
			}

	/* errors stick: unsorted across pieces, out of range, beyond nmax */
	d[0] = 5;
	d[1] = 9;
	d[2] = 9;
	d[3] = 50;
	CHECK(gpx_encstream_init(&es, GPX_CODEC_PFOR, 10, 100, small, sizeof(small)) == GPX_E_NOSPACE);
	{
		size_t		cap = gpx_encstream_bound(GPX_CODEC_PFOR, 10, 100);
		uint8_t    *b = unit_xmalloc(cap);
		uint32_t	big = GPX_MAX_DOCID + 1u;

		CHECK(gpx_encstream_init(&es, GPX_CODEC_PFOR, 10, 100, b, cap) == GPX_OK);
		CHECK(gpx_encstream_push(&es, d, 2) == GPX_OK);
		CHECK(gpx_encstream_push(&es, d + 2, 1) == GPX_E_UNSORTED);
		CHECK(gpx_encstream_push(&es, d, 0) == GPX_E_UNSORTED);
		CHECK(gpx_encstream_finish(&es, &len) == GPX_E_UNSORTED);
		CHECK(gpx_encstream_init(&es, GPX_CODEC_LRC, 10, 100, b, cap) == GPX_OK);
		CHECK(gpx_encstream_push(&es, &big, 1) == GPX_E_RANGE);
		CHECK(gpx_encstream_init(&es, GPX_CODEC_QS, 2, 100, b, cap) == GPX_OK);
		CHECK(gpx_encstream_push(&es, d, 2) == GPX_OK);
		CHECK(gpx_encstream_push(&es, d + 3, 1) == GPX_E_NOSPACE);
		CHECK(gpx_encstream_init(&es, 99, 10, 100, b, cap) == GPX_E_CODEC);
		/* nothing given: the empty list */
		CHECK(gpx_encstream_init(&es, GPX_CODEC_QS, 10, 100, b, cap) == GPX_OK);
		CHECK(gpx_encstream_finish(&es, &len) == GPX_OK && len == 2);
		free(b);
	}
	free(d);
}

int
main(int argc, char **argv)
{
	bool		print = argc > 1 && strcmp(argv[1], "--print") == 0;

	for (int codec = GPX_CODEC_MIN; codec <= GPX_CODEC_MAX; codec++)
	{
		uint64_t	h[EB_FAMILIES];

		unit_case_begin("the %s encodings are the recorded bytes", gpx_codec_name(codec));
		eb_battery(codec, h);
		if (print)
			printf("\t{");
		for (int f = 0; f < EB_FAMILIES; f++)
		{
			if (print)
				printf("0x%016llxull%s", (unsigned long long) h[f],
					   f + 1 < EB_FAMILIES ? ", " : "},\n");
			else
				CHECKF(h[f] == GOLDEN[codec - GPX_CODEC_MIN][f],
					   "%s, %s: 0x%016llx, recorded 0x%016llx", gpx_codec_name(codec),
					   eb_family_name[f], (unsigned long long) h[f],
					   (unsigned long long) GOLDEN[codec - GPX_CODEC_MIN][f]);
		}
		unit_case_end();
	}
	if (!print)
		UNIT_RUN(test_encstream());
	return unit_finish();
}
