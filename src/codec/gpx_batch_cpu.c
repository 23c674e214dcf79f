/*
 * gpx_batch_cpu.c - the CPU back end of batched intersection: a
 * persistent pthread pool that runs every query of a gpx_batch through
 * the SvS core (gpx_intersect.c).
 *
 * Pure C: no postgres.h, nothing printed, no signal handling.  The worker
 * threads see only the gpx_batch descriptor they are handed; the thread
 * that calls gpx_batch_pool_run() takes part in the work and returns only
 * when every query of the batch has its status, so the caller may reuse or
 * free anything the batch pointed to as soon as the call returns.
 *
 * Scheduling: queries are handed out dynamically (an atomic cursor over a
 * longest-first order, estimated from the shortest list's length times the
 * number of other lists), so one long query does not end up last on an
 * otherwise idle pool.
 */
#include "gpx_batch.h"
#include "gpx_intersect.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------------ pool -- */

struct gpx_batch_pool
{
	pthread_mutex_t mu;
	pthread_cond_t work_cv;		/* workers wait here for a new job */
	pthread_cond_t done_cv;		/* the caller waits here for the end */
	int			nthreads;		/* helper threads (the caller is one more) */
	int			started;		/* helper threads actually created */
	pthread_t  *threads;
	uint64_t	job_seq;		/* incremented for every job */
	int			busy;			/* helpers still working on the job */
	int			shutdown;

	/* the current job */
	gpx_batch  *b;
	const uint32_t *order;		/* query indices, longest first, or NULL */
	uint32_t	next;			/* next position in order to hand out */

	/* stats accumulated by the threads of the current job (under mu) */
	uint64_t	candidates;
	uint64_t	results;
	uint64_t	bytes_in;
};

/* Estimated work of query q: shortest list's n times the other lists. */
static uint64_t
pool_query_work(const gpx_batch *b, const gpx_batch_query *q)
{
	uint32_t	nmin = UINT32_MAX;

	if (q->nlists == 0 || (uint64_t) q->first_list + q->nlists > b->nlists)
		return 0;
	for (uint32_t i = 0; i < q->nlists; i++)
	{
		uint32_t	n = b->lists[q->first_list + i].list.n;

		if (n < nmin)
			nmin = n;
	}
	return (uint64_t) nmin * (q->nlists > 1 ? q->nlists - 1 : 1);
}

/* Run one query of the batch; sets its status and out_count. */
static void
pool_run_query(gpx_batch *b, gpx_batch_query *q, uint64_t *cand,
			   uint64_t *res, uint64_t *bytes)
{
	const gpx_list *lists[64];
	const gpx_list **lp = lists;
	gpx_isect_stats st;
	uint32_t	outn = 0;
	gpx_status	s;

	q->out_count = 0;
	if (q->nlists == 0 || (uint64_t) q->first_list + q->nlists > b->nlists ||
		q->out_offset > b->out_words ||
		q->out_capacity > b->out_words - q->out_offset)
	{
		q->status = GPX_E_ARG;
		return;
	}
	if (q->nlists > 64)
	{
		lp = malloc(sizeof(*lp) * q->nlists);
		if (lp == NULL)
		{
			q->status = GPX_E_TOOBIG;
			return;
		}
	}
	for (uint32_t i = 0; i < q->nlists; i++)
	{
		lp[i] = &b->lists[q->first_list + i].list;
		*bytes += lp[i]->len;
	}
	s = gpx_intersect_ex(lp, (int) q->nlists, NULL, b->out + q->out_offset,
						 q->out_capacity, &outn, &st);
	if (lp != lists)
		free(lp);
	q->status = s;
	q->out_count = s == GPX_OK ? outn : 0;
	*cand += st.candidates;
	*res += q->out_count;
}

/* Take queries from the current job until none is left; add up stats. */
static void
pool_drain(gpx_batch_pool *p)
{
	gpx_batch  *b = p->b;
	uint64_t	cand = 0,
				res = 0,
				bytes = 0;

	for (;;)
	{
		uint32_t	i = __atomic_fetch_add(&p->next, 1, __ATOMIC_RELAXED);

		if (i >= b->nqueries)
			break;
		if (p->order != NULL)
			i = p->order[i];
		pool_run_query(b, &b->queries[i], &cand, &res, &bytes);
	}
	pthread_mutex_lock(&p->mu);
	p->candidates += cand;
	p->results += res;
	p->bytes_in += bytes;
	pthread_mutex_unlock(&p->mu);
}

/* Helper thread body: wait for a job, drain it, report, repeat. */
static void *
pool_thread_main(void *arg)
{
	gpx_batch_pool *p = arg;
	uint64_t	seen = 0;

	pthread_mutex_lock(&p->mu);
	for (;;)
	{
		while (!p->shutdown && p->job_seq == seen)
			pthread_cond_wait(&p->work_cv, &p->mu);
		if (p->shutdown)
			break;
		seen = p->job_seq;
		pthread_mutex_unlock(&p->mu);
		pool_drain(p);
		pthread_mutex_lock(&p->mu);
		if (--p->busy == 0)
			pthread_cond_signal(&p->done_cv);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

/* Create a pool of nthreads threads in all (the caller of run counts as one). */
gpx_status
gpx_batch_pool_create(int nthreads, gpx_batch_pool **pool)
{
	gpx_batch_pool *p;
	sigset_t	all,
				old;

	*pool = NULL;
	if (nthreads < 1 || nthreads > GPX_BATCH_MAX_THREADS)
		return GPX_E_ARG;
	p = calloc(1, sizeof(*p));
	if (p == NULL)
		return GPX_E_TOOBIG;
	p->nthreads = nthreads - 1;
	if (p->nthreads > 0)
	{
		p->threads = calloc(p->nthreads, sizeof(pthread_t));
		if (p->threads == NULL)
		{
			free(p);
			return GPX_E_TOOBIG;
		}
	}
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->work_cv, NULL);
	pthread_cond_init(&p->done_cv, NULL);

	/* helpers must never run a signal handler: block everything in them */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (int i = 0; i < p->nthreads; i++)
	{
		if (pthread_create(&p->threads[i], NULL, pool_thread_main, p) != 0)
			break;
		p->started++;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (p->started < p->nthreads)
	{
		gpx_batch_pool_destroy(p);
		return GPX_E_TOOBIG;
	}
	*pool = p;
	return GPX_OK;
}

/* Stop and join every helper thread, then free the pool. */
void
gpx_batch_pool_destroy(gpx_batch_pool *p)
{
	if (p == NULL)
		return;
	pthread_mutex_lock(&p->mu);
	p->shutdown = 1;
	pthread_cond_broadcast(&p->work_cv);
	pthread_mutex_unlock(&p->mu);
	for (int i = 0; i < p->started; i++)
		pthread_join(p->threads[i], NULL);
	pthread_cond_destroy(&p->work_cv);
	pthread_cond_destroy(&p->done_cv);
	pthread_mutex_destroy(&p->mu);
	free(p->threads);
	free(p);
}

/* Number of threads that run a batch (helpers plus the caller). */
int
gpx_batch_pool_threads(const gpx_batch_pool *p)
{
	return p ? p->nthreads + 1 : 0;
}

/* Work estimate of a query for sorting (index + work). */
typedef struct pool_order_item
{
	uint64_t	work;
	uint32_t	idx;
} pool_order_item;

/* qsort comparator: larger work first, then lower index. */
static int
pool_order_cmp(const void *a, const void *b)
{
	const pool_order_item *x = a,
			   *y = b;

	if (x->work != y->work)
		return x->work > y->work ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Longest-first order of the batch's queries (malloc'd), or NULL. */
static uint32_t *
pool_make_order(const gpx_batch *b)
{
	pool_order_item *items;
	uint32_t   *order;

	items = malloc(sizeof(*items) * b->nqueries);
	order = malloc(sizeof(*order) * b->nqueries);
	if (items == NULL || order == NULL)
	{
		free(items);
		free(order);
		return NULL;			/* plain order works too */
	}
	for (uint32_t i = 0; i < b->nqueries; i++)
	{
		items[i].work = pool_query_work(b, &b->queries[i]);
		items[i].idx = i;
	}
	qsort(items, b->nqueries, sizeof(*items), pool_order_cmp);
	for (uint32_t i = 0; i < b->nqueries; i++)
		order[i] = items[i].idx;
	free(items);
	return order;
}

/* Monotonic time in milliseconds. */
static double
pool_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Run every query of b on the pool; the calling thread works too. */
gpx_status
gpx_batch_pool_run(gpx_batch_pool *p, gpx_batch *b, gpx_batch_stats *stats)
{
	double		t0 = pool_now_ms();
	uint32_t   *order = NULL;
	int			helpers;

	if (p == NULL || b == NULL || (b->nqueries > 0 &&
								   (b->queries == NULL || b->lists == NULL)))
		return GPX_E_ARG;
	if (stats != NULL)
		memset(stats, 0, sizeof(*stats));
	if (b->nqueries == 0)
		return GPX_OK;

	/* helpers only pay off with more than one query */
	helpers = b->nqueries > 1 ? p->nthreads : 0;
	if ((uint32_t) helpers >= b->nqueries)
		helpers = (int) b->nqueries - 1;
	if (helpers > 0)
		order = pool_make_order(b);

	pthread_mutex_lock(&p->mu);
	p->b = b;
	p->order = order;
	p->next = 0;
	p->candidates = p->results = p->bytes_in = 0;
	if (helpers > 0)
	{
		/* every helper wakes; those with nothing left return at once */
		p->busy = p->nthreads;
		p->job_seq++;
		pthread_cond_broadcast(&p->work_cv);
	}
	pthread_mutex_unlock(&p->mu);

	pool_drain(p);

	pthread_mutex_lock(&p->mu);
	while (helpers > 0 && p->busy > 0)
		pthread_cond_wait(&p->done_cv, &p->mu);
	if (stats != NULL)
	{
		stats->candidates = p->candidates;
		stats->results = p->results;
		stats->bytes_in = p->bytes_in;
	}
	p->b = NULL;
	p->order = NULL;
	pthread_mutex_unlock(&p->mu);
	free(order);
	if (stats != NULL)
		stats->compute_ms = pool_now_ms() - t0;
	return GPX_OK;
}

/* Run a batch on a temporary pool of nthreads threads. */
gpx_status
gpx_batch_run_cpu(gpx_batch *b, int nthreads, gpx_batch_stats *stats)
{
	gpx_batch_pool *p;
	gpx_status	s;

	if (nthreads < 1)
		nthreads = 1;
	if (b != NULL && nthreads > 1 && (uint32_t) nthreads > b->nqueries)
		nthreads = b->nqueries > 0 ? (int) b->nqueries : 1;
	s = gpx_batch_pool_create(nthreads, &p);
	if (s != GPX_OK)
		return s;
	s = gpx_batch_pool_run(p, b, stats);
	gpx_batch_pool_destroy(p);
	return s;
}
