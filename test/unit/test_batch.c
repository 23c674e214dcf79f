/*
 * test_batch.c - unit tests of the CPU batch back end (gpx_batch_cpu.c):
 * random batches run by gpx_batch_run_cpu and by a persistent pool with 1..8
 * threads, every query compared with gpx_intersect run alone; then bad
 * queries (out of range list index, output outside the area, too small a
 * capacity), an empty batch and pool reuse.
 */
#include <string.h>
#include "gpx_batch.h"
#include "gpx_intersect.h"
#include "unit.h"

static const int codecs[] = {GPX_CODEC_PFOR, GPX_CODEC_LRC, GPX_CODEC_QS};

/* Encode docs into a malloc'd exact blob and fill bl (list, no key). */
static uint8_t *
make_blob(int codec, const uint32_t *docs, uint32_t n, gpx_batch_list *bl)
{
	size_t		len = 0;
	uint8_t    *buf = unit_encode_exact(codec, docs, n, &len);

	CHECK(gpx_open(&bl->list, buf, len) == GPX_OK);
	memset(&bl->key, 0, sizeof(bl->key));	/* the CPU back end keeps nothing */
	return buf;
}

/* Random batches on a pool of nthreads and on run_cpu, against gpx_intersect. */
static void
test_random_batches(unit_rng *r, gpx_batch_pool *pool, int nthreads)
{
	enum
	{
		NQ = 40, MAXL = 6
	};
	gpx_batch_list lists[NQ * MAXL];
	uint8_t    *blobs[NQ * MAXL];
	gpx_batch_query q[NQ];
	uint32_t   *docs = malloc(sizeof(uint32_t) * 200000);
	uint64_t	out_words = 0;
	uint32_t	nl = 0;

	for (int i = 0; i < NQ; i++)
	{
		uint32_t	k = 1 + unit_below(r, MAXL);
		uint32_t	nmin = UINT32_MAX;

		q[i].first_list = nl;
		q[i].nlists = k;
		for (uint32_t j = 0; j < k; j++)
		{
			uint32_t	n = 1 + unit_below(r, j == 0 ? 2000 : 100000);
			uint64_t	universe = 50000 + unit_below(r, 2000000);

			if (unit_below(r, 20) == 0)
				n = 0;
			n = unit_make_list(r, unit_below(r, 3), n, universe, docs);
			blobs[nl] = make_blob(codecs[unit_below(r, 3)], docs, n, &lists[nl]);
			if (n < nmin)
				nmin = n;
			nl++;
		}
		q[i].out_offset = out_words;
		q[i].out_capacity = nmin;
		q[i].out_count = 12345;
		q[i].status = -1;
		out_words += nmin + unit_below(r, 3);
	}

	for (int pass = 0; pass < 2; pass++)
	{
		gpx_batch	b = {NQ, nl, q, lists, NULL, out_words};
		gpx_batch_stats st;
		uint64_t	want_results = 0;
		gpx_status	s;

		b.out = malloc(sizeof(uint32_t) * (out_words + 1));
		s = pass == 0 ? gpx_batch_pool_run(pool, &b, &st)
			: gpx_batch_run_cpu(&b, nthreads, &st);
		CHECK(s == GPX_OK);
		for (int i = 0; i < NQ; i++)
		{
			const gpx_list *lp[MAXL];
			uint32_t	cnt = 0;

			for (uint32_t j = 0; j < q[i].nlists; j++)
				lp[j] = &lists[q[i].first_list + j].list;
			CHECK(gpx_intersect(lp, (int) q[i].nlists, docs, &cnt, NULL) == GPX_OK);
			CHECKF(q[i].status == GPX_OK, "query %d status %d", i, q[i].status);
			CHECKF(q[i].out_count == cnt, "query %d: %u results, want %u",
				   i, q[i].out_count, cnt);
			CHECK(memcmp(b.out + q[i].out_offset, docs, sizeof(uint32_t) * cnt) == 0);
			want_results += cnt;
			q[i].status = -1;
			q[i].out_count = 12345;
		}
		CHECK(st.results == want_results);
		CHECK(st.compute_ms >= 0);
		free(b.out);
	}
	for (uint32_t i = 0; i < nl; i++)
		free(blobs[i]);
	free(docs);
}

/* Malformed query descriptors get an error status, never a crash. */
static void
test_bad_queries(gpx_batch_pool *pool)
{
	uint32_t	a[] = {1, 5, 9, 12, 40},
				bb[] = {5, 12, 13};
	gpx_batch_list lists[2];
	uint8_t    *b1 = make_blob(GPX_CODEC_PFOR, a, 5, &lists[0]);
	uint8_t    *b2 = make_blob(GPX_CODEC_QS, bb, 3, &lists[1]);
	uint32_t	out[16];
	gpx_batch_query q[5] = {
		{0, 2, 0, 3, 0, -1, 0},	/* fine: {5, 12} */
		{1, 5, 3, 3, 0, -1, 0},	/* lists out of range */
		{0, 2, 15, 3, 0, -1, 0},	/* output beyond the area */
		{0, 2, 6, 1, 0, -1, 0},	/* capacity 1 < 2 results */
		{0, 0, 8, 3, 0, -1, 0},	/* no lists */
	};
	gpx_batch	b = {5, 2, q, lists, out, 16};

	CHECK(gpx_batch_pool_run(pool, &b, NULL) == GPX_OK);
	CHECK(q[0].status == GPX_OK && q[0].out_count == 2 && out[0] == 5 && out[1] == 12);
	CHECK(q[1].status == GPX_E_ARG && q[1].out_count == 0);
	CHECK(q[2].status == GPX_E_ARG);
	CHECK(q[3].status == GPX_E_NOSPACE && q[3].out_count == 0);
	CHECK(q[4].status == GPX_E_ARG);

	b.nqueries = 0;
	CHECK(gpx_batch_pool_run(pool, &b, NULL) == GPX_OK);
	CHECK(gpx_batch_pool_run(NULL, &b, NULL) == GPX_E_ARG);
	free(b1);
	free(b2);
}

int
main(void)
{
	unit_rng	r = {20240601};
	gpx_batch_pool *p = NULL;

	unit_case_begin("pool arguments");
	CHECK(gpx_batch_pool_create(0, &p) == GPX_E_ARG && p == NULL);
	CHECK(gpx_batch_pool_threads(NULL) == 0);
	for (int nt = 1; nt <= 8; nt *= 2)
	{
		unit_case_begin("random and bad batches on a pool of %d threads", nt);
		CHECK(gpx_batch_pool_create(nt, &p) == GPX_OK);
		CHECK(gpx_batch_pool_threads(p) == nt);
		/* the same pool runs several batches in a row */
		for (int rep = 0; rep < 3; rep++)
			test_random_batches(&r, p, nt);
		test_bad_queries(p);
		gpx_batch_pool_destroy(p);
	}
	gpx_batch_pool_destroy(NULL);
	return unit_finish();
}
