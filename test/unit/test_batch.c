/*
 * test_batch.c - unit tests of the CPU batch back end (gpx_batch_cpu.c):
 * random batches run by gpx_batch_run_cpu and by a persistent pool with 1..8
 * threads, every query compared with gpx_intersect run alone; then bad
 * queries (out of range list index, output outside the area, too small a
 * capacity), an empty batch and pool reuse; then several jobs in flight at
 * once (submit, help, the notify descriptor) and cancelling them.  Union
 * batches (GPX_BATCH_UNION): random queries (1..12 lists, empty and
 * repeated lists, docIDs 0 and 2^31-1), with and without GPX_BQ_COUNT,
 * against a naive union (decode, sort, deduplicate); too little room,
 * bad descriptors, and unions and intersections as jobs side by side.
 */
#include <pthread.h>
#include <poll.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>
#include "gpx_batch.h"
#include "gpx_intersect.h"
#include "gpx_setops.h"
#include "gpx_ref.h"
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
		gpx_batch	b = {NQ, nl, q, lists, NULL, out_words, GPX_BATCH_INTERSECT};
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
	gpx_batch	b = {5, 2, q, lists, out, 16, GPX_BATCH_INTERSECT};

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

/* A random batch with its blobs, for the asynchronous tests. */
typedef struct tbatch
{
	gpx_batch	b;
	gpx_batch_query q[24];
	gpx_batch_list lists[24 * 4];
	uint8_t    *blobs[24 * 4];
	uint32_t	nl;
} tbatch;

/* Fill t with nq (<= 24) random queries; statuses -1, counts 12345. */
static void
tbatch_make(unit_rng *r, tbatch *t, uint32_t nq, uint32_t *docs)
{
	uint64_t	out_words = 0;

	memset(t, 0, sizeof(*t));
	for (uint32_t i = 0; i < nq; i++)
	{
		uint32_t	k = 2 + unit_below(r, 3);
		uint32_t	nmin = UINT32_MAX;

		t->q[i].first_list = t->nl;
		t->q[i].nlists = k;
		for (uint32_t j = 0; j < k; j++)
		{
			uint32_t	n = unit_make_list(r, unit_below(r, 3),
										   1 + unit_below(r, j == 0 ? 3000 : 60000),
										   200000 + unit_below(r, 1000000), docs);

			t->blobs[t->nl] = make_blob(codecs[unit_below(r, 3)], docs, n, &t->lists[t->nl]);
			nmin = n < nmin ? n : nmin;
			t->nl++;
		}
		t->q[i].out_offset = out_words;
		t->q[i].out_capacity = nmin;
		t->q[i].out_count = 12345;
		t->q[i].status = -1;
		out_words += nmin + 1;
	}
	t->b.nqueries = nq;
	t->b.nlists = t->nl;
	t->b.queries = t->q;
	t->b.lists = t->lists;
	t->b.out = malloc(sizeof(uint32_t) * (out_words + 1));
	t->b.out_words = out_words;
}

/* Whether query i of t has its right answer (docs: scratch). */
static bool
tbatch_right(const tbatch *t, uint32_t i, uint32_t *docs)
{
	const gpx_list *lp[4];
	uint32_t	cnt = 0;

	for (uint32_t j = 0; j < t->q[i].nlists; j++)
		lp[j] = &t->lists[t->q[i].first_list + j].list;
	if (gpx_intersect(lp, (int) t->q[i].nlists, docs, &cnt, NULL) != GPX_OK)
		return false;
	return t->q[i].status == GPX_OK && t->q[i].out_count == cnt &&
		memcmp(t->b.out + t->q[i].out_offset, docs, sizeof(uint32_t) * cnt) == 0;
}

/* Free a batch's blobs and output. */
static void
tbatch_free(tbatch *t)
{
	for (uint32_t i = 0; i < t->nl; i++)
		free(t->blobs[i]);
	free(t->b.out);
}

/*
 * Whether the pool's notify pipe holds a byte, waiting up to wait_ms for
 * one: a job is marked done just before its byte is written (so that a
 * caller woken by the byte always finds the job done), so a caller that
 * saw the job done may look a moment before the byte is there.
 */
static int
notify_pending(gpx_batch_pool *p, int wait_ms)
{
	struct pollfd pfd = {gpx_batch_pool_notify_fd(p), POLLIN, 0};

	return poll(&pfd, 1, wait_ms) == 1 && (pfd.revents & POLLIN);
}

/*
 * Several jobs in flight at once (as the executor keeps them): each done
 * with every answer right, the notify descriptor readable after each end,
 * the caller helping or not; jobs submitted while others run.
 */
static void
test_async_jobs(unit_rng *r, int nt)
{
	enum
	{
		NJ = 6
	};
	gpx_batch_pool *p = NULL;
	tbatch	   *t = malloc(sizeof(tbatch) * NJ);
	gpx_batch_job job[NJ];
	uint32_t   *docs = malloc(sizeof(uint32_t) * 200000);
	int			ndone = 0;
	bool		seen[NJ] = {false};

	CHECK(gpx_batch_pool_create(nt, &p) == GPX_OK);
	CHECK(gpx_batch_pool_notify_fd(p) >= 0);
	CHECK(!notify_pending(p, 0));
	for (int j = 0; j < NJ; j++)
		tbatch_make(r, &t[j], 1 + unit_below(r, 24), docs);
	/* half now, the rest as the first ones finish */
	for (int j = 0; j < NJ / 2; j++)
		CHECK(gpx_batch_pool_submit(p, &t[j].b, &job[j]) == GPX_OK);
	if (nt == 1)
	{
		/* no helpers: nothing runs until the caller helps */
		CHECK(!gpx_batch_pool_done(&job[0]));
	}
	for (int sub = NJ / 2; ndone < NJ;)
	{
		/* alternate: help a little, or wait on the descriptor */
		if (unit_below(r, 2) == 0 || nt == 1)
			(void) gpx_batch_pool_help(p);
		else
		{
			struct pollfd pfd = {gpx_batch_pool_notify_fd(p), POLLIN, 0};

			(void) poll(&pfd, 1, 5);
		}
		gpx_batch_pool_notify_clear(p);
		for (int j = 0; j < sub; j++)
		{
			if (seen[j] || !gpx_batch_pool_done(&job[j]))
				continue;
			seen[j] = true;
			ndone++;
			for (uint32_t i = 0; i < t[j].b.nqueries; i++)
				CHECKF(tbatch_right(&t[j], i, docs), "threads %d job %d query %u", nt, j, i);
			CHECK(job[j].stats.compute_ms >= 0);
			if (sub < NJ)
			{
				CHECK(gpx_batch_pool_submit(p, &t[sub].b, &job[sub]) == GPX_OK);
				sub++;
			}
		}
	}
	/* a finished job leaves the descriptor readable until cleared */
	CHECK(gpx_batch_pool_submit(p, &t[0].b, &job[0]) == GPX_OK);
	gpx_batch_pool_wait(p, &job[0]);
	/* its byte follows under the pool's lock: help (nothing to run) takes it */
	(void) gpx_batch_pool_help(p);
	CHECK(notify_pending(p, 5000));
	gpx_batch_pool_notify_clear(p);
	CHECK(!notify_pending(p, 0));
	/* an empty batch is done at once */
	{
		gpx_batch	e;
		gpx_batch_job ej;

		memset(&e, 0, sizeof(e));
		CHECK(gpx_batch_pool_submit(p, &e, &ej) == GPX_OK && gpx_batch_pool_done(&ej));
		CHECK(gpx_batch_pool_submit(NULL, &e, &ej) == GPX_E_ARG);
	}
	gpx_batch_pool_destroy(p);
	for (int j = 0; j < NJ; j++)
		tbatch_free(&t[j]);
	free(t);
	free(docs);
}

/*
 * Cancel with jobs queued: every job done on return, each query either
 * never run (status -1, count 12345 as the caller left them) or right;
 * the pool keeps working afterwards; destroy cancels too.
 */
static void
test_async_cancel(unit_rng *r, int nt)
{
	gpx_batch_pool *p = NULL;
	tbatch	   *t = malloc(sizeof(tbatch) * 3);
	gpx_batch_job job[3];
	uint32_t   *docs = malloc(sizeof(uint32_t) * 200000);
	uint32_t	ran = 0,
				skipped = 0;

	CHECK(gpx_batch_pool_create(nt, &p) == GPX_OK);
	for (int j = 0; j < 3; j++)
	{
		tbatch_make(r, &t[j], 24, docs);
		CHECK(gpx_batch_pool_submit(p, &t[j].b, &job[j]) == GPX_OK);
	}
	gpx_batch_pool_cancel(p);
	for (int j = 0; j < 3; j++)
	{
		CHECK(gpx_batch_pool_done(&job[j]));
		for (uint32_t i = 0; i < 24; i++)
		{
			if (t[j].q[i].status == -1 && t[j].q[i].out_count == 12345)
				skipped++;
			else
			{
				CHECKF(tbatch_right(&t[j], i, docs), "cancel: threads %d job %d query %u", nt, j, i);
				ran++;
			}
		}
	}
	CHECK(ran + skipped == 72);
	if (nt == 1)
		CHECK(ran == 0);		/* nobody helped */
	/* still usable */
	for (uint32_t i = 0; i < 24; i++)
		t[0].q[i].status = -1;
	CHECK(gpx_batch_pool_submit(p, &t[0].b, &job[0]) == GPX_OK);
	gpx_batch_pool_wait(p, &job[0]);
	for (uint32_t i = 0; i < 24; i++)
		CHECK(tbatch_right(&t[0], i, docs));
	/* destroy with a job queued: cancelled, then joined */
	CHECK(gpx_batch_pool_submit(p, &t[1].b, &job[1]) == GPX_OK);
	gpx_batch_pool_destroy(p);
	CHECK(gpx_batch_pool_done(&job[1]));
	for (int j = 0; j < 3; j++)
		tbatch_free(&t[j]);
	free(t);
	free(docs);
}

/*
 * The naive union of lists[0..k) into out (decode each, concatenate, sort,
 * deduplicate); returns its size.
 */
static uint32_t
naive_union(const gpx_batch_list *lists, uint32_t k, uint32_t *out)
{
	uint32_t	n = 0;

	for (uint32_t j = 0; j < k; j++)
	{
		gpx_decode(&lists[j].list, out + n);
		n += lists[j].list.n;
	}
	return ref_sort_unique(out, n);
}

/*
 * Random union batches on the pool (and on run_cpu): every query's docIDs
 * or count equal to the naive union; queries with an exact room, with one
 * word too few (GPX_E_NOSPACE), count queries with no room at all.
 */
static void
test_union_batches(unit_rng *r, gpx_batch_pool *pool, int nthreads)
{
	enum
	{
		NQ = 30, MAXL = 12, NPOOL = 20
	};
	gpx_batch_list plist[NPOOL];
	uint8_t    *pblob[NPOOL];
	gpx_batch_list lists[NQ * MAXL];
	gpx_batch_query q[NQ];
	uint32_t	want_n[NQ];
	uint32_t   *docs = malloc(sizeof(uint32_t) * 300000);
	uint32_t   *ref = malloc(sizeof(uint32_t) * NQ * MAXL * 20000);
	uint64_t	ref_off[NQ];
	uint64_t	out_words = 0,
				roff = 0;
	uint32_t	nl = 0;

	/* a pool of lists: empty, one docID, 0 and 2^31-1, dense, sparse */
	for (int i = 0; i < NPOOL; i++)
	{
		uint32_t	n;

		if (i == 0)
			n = 0;
		else if (i == 1)
		{
			docs[0] = 0;
			docs[1] = GPX_MAX_DOCID;
			n = 2;
		}
		else if (i == 2)
		{
			docs[0] = GPX_MAX_DOCID;
			n = 1;
		}
		else
			n = unit_make_list(r, unit_below(r, 3), 1 + unit_below(r, i % 4 == 0 ? 20000 : 3000),
							   i % 3 == 0 ? 30000 : 3000000, docs);
		pblob[i] = make_blob(codecs[unit_below(r, 3)], docs, n, &plist[i]);
	}
	for (int i = 0; i < NQ; i++)
	{
		uint32_t	k = 1 + unit_below(r, unit_below(r, 4) == 0 ? MAXL : 4);
		uint32_t	room;

		q[i].first_list = nl;
		q[i].nlists = k;
		for (uint32_t j = 0; j < k; j++)
		{
			/* a repeat of the query's list before now and then */
			if (j > 0 && unit_below(r, 5) == 0)
				lists[nl] = lists[nl - 1 - unit_below(r, j)];
			else
				lists[nl] = plist[unit_below(r, NPOOL)];
			nl++;
		}
		ref_off[i] = roff;
		want_n[i] = naive_union(&lists[q[i].first_list], k, ref + roff);
		roff += want_n[i];
		q[i].flags = unit_below(r, 4) == 0 ? GPX_BQ_COUNT : 0;
		/* exact room, one word short (when there is a result), or generous */
		room = want_n[i];
		if (i % 7 == 3 && room > 0)
			room--;
		else if (i % 5 == 1)
			room += 10;
		q[i].out_offset = q[i].flags & GPX_BQ_COUNT ? 0xFFFFFFFFFFull : out_words;
		q[i].out_capacity = q[i].flags & GPX_BQ_COUNT ? 0xFFFFFFFFu : room;
		q[i].out_count = 12345;
		q[i].status = -1;
		if (!(q[i].flags & GPX_BQ_COUNT))
			out_words += room + unit_below(r, 3);
	}

	for (int pass = 0; pass < 2; pass++)
	{
		gpx_batch	b = {NQ, nl, q, lists, NULL, out_words, GPX_BATCH_UNION};
		gpx_batch_stats st;
		uint64_t	want_results = 0;
		gpx_status	s;

		b.out = malloc(sizeof(uint32_t) * (out_words + 1));
		s = pass == 0 ? gpx_batch_pool_run(pool, &b, &st)
			: gpx_batch_run_cpu(&b, nthreads, &st);
		CHECK(s == GPX_OK);
		for (int i = 0; i < NQ; i++)
		{
			bool		counts = (q[i].flags & GPX_BQ_COUNT) != 0;

			if (!counts && q[i].out_capacity < want_n[i])
			{
				CHECKF(q[i].status == GPX_E_NOSPACE && q[i].out_count == 0,
					   "union query %d: status %d count %u, want no space", i,
					   q[i].status, q[i].out_count);
			}
			else
			{
				CHECKF(q[i].status == GPX_OK && q[i].out_count == want_n[i],
					   "union query %d (%u lists%s): status %d, %u docIDs, want %u", i,
					   q[i].nlists, counts ? ", count" : "", q[i].status,
					   q[i].out_count, want_n[i]);
				if (!counts)
				{
					CHECKF(memcmp(b.out + q[i].out_offset, ref + ref_off[i],
								  sizeof(uint32_t) * want_n[i]) == 0,
						   "union query %d: docIDs differ", i);
					want_results += want_n[i];
				}
			}
			q[i].status = -1;
			q[i].out_count = 12345;
		}
		CHECK(st.results == want_results);
		free(b.out);
	}
	for (int i = 0; i < NPOOL; i++)
		free(pblob[i]);
	free(docs);
	free(ref);
}

/* Union batches with bad descriptors, and a union beside an intersection. */
static void
test_union_bad_and_mixed(gpx_batch_pool *pool)
{
	uint32_t	a[] = {1, 5, 9, 12, 40},
				bb[] = {5, 12, 13};
	gpx_batch_list lists[2];
	uint8_t    *b1 = make_blob(GPX_CODEC_PFOR, a, 5, &lists[0]);
	uint8_t    *b2 = make_blob(GPX_CODEC_LRC, bb, 3, &lists[1]);
	uint32_t	out[16],
				out2[16];
	gpx_batch_query q[5] = {
		{0, 2, 0, 6, 0, -1, 0},	/* fine: {1, 5, 9, 12, 13, 40} */
		{1, 5, 6, 3, 0, -1, 0},	/* lists out of range */
		{0, 2, 15, 6, 0, -1, 0},	/* output beyond the area */
		{0, 0, 8, 3, 0, -1, GPX_BQ_COUNT},	/* no lists, counting or not */
		{0, 2, 99, 0, 0, -1, GPX_BQ_COUNT},	/* counting: no room needed */
	};
	gpx_batch	b = {5, 2, q, lists, out, 16, GPX_BATCH_UNION};
	gpx_batch_query qi = {0, 2, 0, 3, 0, -1, GPX_BQ_COUNT};	/* flags ignored */
	gpx_batch	bi = {1, 2, &qi, lists, out2, 16, GPX_BATCH_INTERSECT};
	gpx_batch_job ju,
				ji;

	CHECK(gpx_batch_pool_run(pool, &b, NULL) == GPX_OK);
	CHECK(q[0].status == GPX_OK && q[0].out_count == 6 && out[0] == 1 && out[3] == 12 &&
		  out[4] == 13 && out[5] == 40);
	CHECK(q[1].status == GPX_E_ARG && q[1].out_count == 0);
	CHECK(q[2].status == GPX_E_ARG);
	CHECK(q[3].status == GPX_E_ARG);
	CHECK(q[4].status == GPX_OK && q[4].out_count == 6);

	/* a union job and an intersection job in flight together */
	memset(out, 0, sizeof(out));
	q[0].status = -1;
	CHECK(gpx_batch_pool_submit(pool, &b, &ju) == GPX_OK);
	CHECK(gpx_batch_pool_submit(pool, &bi, &ji) == GPX_OK);
	gpx_batch_pool_wait(pool, &ji);
	gpx_batch_pool_wait(pool, &ju);
	CHECK(q[0].status == GPX_OK && q[0].out_count == 6 && out[1] == 5 && out[2] == 9);
	CHECK(qi.status == GPX_OK && qi.out_count == 2 && out2[0] == 5 && out2[1] == 12);
	CHECK(ju.stats.candidates > 0 && ji.stats.results == 2);
	free(b1);
	free(b2);
}

/* gpx_batch_pool_for's work in the tests: count the calls of each index. */
typedef struct for_state
{
	uint32_t   *calls;			/* per index */
	uint32_t	n;
	int			threads_seen;	/* distinct threads that ran calls */
	bool		wait_other;		/* call 0 waits (up to 5 s) for a second thread */
	pthread_t	tid[16];
	pthread_mutex_t mu;
} for_state;

/* One call: count it (atomically) and note the thread, spinning a little. */
static void
for_fn(void *arg, uint32_t i)
{
	for_state  *fs = arg;
	pthread_t	me = pthread_self();
	bool		seen = false;
	volatile uint64_t x = 0;

	__atomic_add_fetch(&fs->calls[i], 1, __ATOMIC_RELAXED);
	pthread_mutex_lock(&fs->mu);
	for (int t = 0; t < fs->threads_seen; t++)
		seen |= pthread_equal(fs->tid[t], me) != 0;
	if (!seen && fs->threads_seen < 16)
		fs->tid[fs->threads_seen++] = me;
	pthread_mutex_unlock(&fs->mu);
	for (int k = 0; k < 20000; k++)
		x += (uint64_t) k * i;
	if (i == 0 && fs->wait_other)
	{
		/* whoever runs call 0 waits here: the others need another thread */
		for (int w = 0; w < 5000 && __atomic_load_n(&fs->threads_seen, __ATOMIC_ACQUIRE) < 2; w++)
			usleep(1000);
	}
}

/*
 * gpx_batch_pool_for: every index run exactly once, also with a batch job
 * queued beside it (both finish), on nt threads; the pool keeps working.
 */
static void
test_pool_for(unit_rng *r, int nt)
{
	gpx_batch_pool *p = NULL;
	for_state	fs;
	tbatch		t;
	gpx_batch_job job;
	uint32_t   *docs = malloc(sizeof(uint32_t) * 200000);

	memset(&fs, 0, sizeof(fs));
	pthread_mutex_init(&fs.mu, NULL);
	CHECK(gpx_batch_pool_create(nt, &p) == GPX_OK);
	CHECK(gpx_batch_pool_for(NULL, 3, for_fn, &fs) == GPX_E_ARG);
	CHECK(gpx_batch_pool_for(p, 3, NULL, &fs) == GPX_E_ARG);
	CHECK(gpx_batch_pool_for(p, 0, for_fn, &fs) == GPX_OK);
	for (uint32_t n = 1; n <= 200; n = n * 3 + 1)
	{
		fs.calls = calloc(n, sizeof(uint32_t));
		fs.n = n;
		CHECK(gpx_batch_pool_for(p, n, for_fn, &fs) == GPX_OK);
		for (uint32_t i = 0; i < n; i++)
			CHECKF(fs.calls[i] == 1, "pool_for: %d threads, n %u: index %u ran %u times", nt, n, i, fs.calls[i]);
		free(fs.calls);
	}
	CHECK(fs.threads_seen >= 1);
	if (nt > 1)
	{
		/* the helpers take part: call 0 waits until another thread ran one */
		fs.calls = calloc(8, sizeof(uint32_t));
		fs.threads_seen = 0;
		fs.wait_other = true;
		CHECK(gpx_batch_pool_for(p, 8, for_fn, &fs) == GPX_OK);
		CHECKF(fs.threads_seen > 1, "pool_for: %d threads, only %d ran calls", nt, fs.threads_seen);
		for (uint32_t i = 0; i < 8; i++)
			CHECK(fs.calls[i] == 1);
		fs.wait_other = false;
		free(fs.calls);
	}
	/* beside a batch job in flight */
	tbatch_make(r, &t, 24, docs);
	CHECK(gpx_batch_pool_submit(p, &t.b, &job) == GPX_OK);
	fs.calls = calloc(50, sizeof(uint32_t));
	CHECK(gpx_batch_pool_for(p, 50, for_fn, &fs) == GPX_OK);
	for (uint32_t i = 0; i < 50; i++)
		CHECK(fs.calls[i] == 1);
	free(fs.calls);
	gpx_batch_pool_wait(p, &job);
	for (uint32_t i = 0; i < 24; i++)
		CHECK(tbatch_right(&t, i, docs));
	tbatch_free(&t);
	gpx_batch_pool_destroy(p);
	pthread_mutex_destroy(&fs.mu);
	free(docs);
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
		for (int rep = 0; rep < 2; rep++)
			test_union_batches(&r, p, nt);
		test_union_bad_and_mixed(p);
		gpx_batch_pool_destroy(p);
	}
	gpx_batch_pool_destroy(NULL);
	for (int nt = 1; nt <= 4; nt++)
	{
		unit_case_begin("jobs in flight on a pool of %d threads", nt);
		test_async_jobs(&r, nt);
		unit_case_begin("cancel with jobs in flight on a pool of %d threads", nt);
		test_async_cancel(&r, nt);
		unit_case_begin("gpx_batch_pool_for on a pool of %d threads", nt);
		test_pool_for(&r, nt);
	}
	return unit_finish();
}
