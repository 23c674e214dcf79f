/*
 * gpx_batch_cpu.c - the CPU back end of batched queries: a persistent
 * pthread pool that runs every query of a gpx_batch, intersections
 * through the SvS core (gpx_intersect.c), unions through the k-way merge
 * (gpx_union_many, gpx_setops.c), one batch at a time or several jobs in
 * flight (gpx_batch_pool_submit).
 *
 * Pure C: no postgres.h, nothing printed, no signal handling.  The worker
 * threads see only the gpx_batch descriptor they are handed; the thread
 * that calls gpx_batch_pool_run() takes part in the work and returns only
 * when every query of the batch has its status, so the caller may reuse or
 * free anything the batch pointed to as soon as the call returns; a
 * submitted job's batch is the caller's again once the job is done (or
 * after gpx_batch_pool_cancel).
 *
 * Scheduling: queries are handed out one at a time under the pool's mutex,
 * each job's in longest-first order (estimated from the shortest list's
 * length times the number of other lists; for a union, the sum of its
 * lists' lengths), so one long query does not end
 * up last on an otherwise idle pool; jobs are served in submission order,
 * so a new job's queries start on the threads that the tail of an older
 * one leaves idle (the executor keeps several batches in flight).
 */
#include "gpx_batch.h"
#include "gpx_intersect.h"
#include "gpx_setops.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------------ pool -- */

struct gpx_batch_pool
{
	pthread_mutex_t mu;
	pthread_cond_t work_cv;		/* helpers wait here for queries */
	pthread_cond_t done_cv;		/* waiters: a job finished, or a query */
	int			nthreads;		/* helper threads (the caller is one more) */
	int			started;		/* helper threads actually created */
	pthread_t  *threads;
	int			shutdown;
	int			running;		/* queries being run right now */
	gpx_batch_job *head;		/* jobs with queries to hand out, oldest */
	gpx_batch_job *tail;		/* first (submission order) */
	int			notify[2];		/* pipe: a byte per finished job */
};

/* Monotonic time in milliseconds. */
static double
pool_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/*
 * Estimated work of query q: an intersection's shortest list's n times
 * the other lists, a union's sum of n.
 */
static uint64_t
pool_query_work(const gpx_batch *b, const gpx_batch_query *q)
{
	uint32_t	nmin = UINT32_MAX;
	uint64_t	sum = 0;

	if (q->nlists == 0 || (uint64_t) q->first_list + q->nlists > b->nlists)
		return 0;
	for (uint32_t i = 0; i < q->nlists; i++)
	{
		uint32_t	n = b->lists[q->first_list + i].list.n;

		sum += n;
		if (n < nmin)
			nmin = n;
	}
	if (b->op == GPX_BATCH_UNION)
		return sum;
	return (uint64_t) nmin * (q->nlists > 1 ? q->nlists - 1 : 1);
}

/*
 * Whether q's descriptor is usable in b: lists in range, and (unless it
 * only counts) its room inside the result area.
 */
static bool
pool_query_ok(const gpx_batch *b, const gpx_batch_query *q)
{
	bool		counts = b->op == GPX_BATCH_UNION && (q->flags & GPX_BQ_COUNT);

	if (q->nlists == 0 || (uint64_t) q->first_list + q->nlists > b->nlists)
		return false;
	return counts || (q->out_offset <= b->out_words &&
					  q->out_capacity <= b->out_words - q->out_offset);
}

/*
 * The union of lp[0..k) into q's room (or, flagged GPX_BQ_COUNT, only its
 * size into *outn): gpx_union_many with a work area of its own.
 */
static gpx_status
pool_union(gpx_batch *b, gpx_batch_query *q, const gpx_list **lp, int k,
		   uint32_t *outn)
{
	size_t		wb = k > 2 ? gpx_union_many_work(k) : 0;
	void	   *work = NULL;
	gpx_status	s;

	if (wb > 0 && (work = malloc(wb)) == NULL)
		return GPX_E_TOOBIG;
	if (q->flags & GPX_BQ_COUNT)
		s = gpx_union_many(lp, k, work, wb, NULL, 0, outn);
	else
		s = gpx_union_many(lp, k, work, wb, b->out + q->out_offset,
						   q->out_capacity, outn);
	free(work);
	return s;
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
	if (!pool_query_ok(b, q))
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
	if (b->op == GPX_BATCH_UNION)
	{
		s = pool_union(b, q, lp, (int) q->nlists, &outn);
		for (uint32_t i = 0; i < q->nlists; i++)
			*cand += lp[i]->n;
		q->status = s;
		q->out_count = s == GPX_OK ? outn : 0;
		if (!(q->flags & GPX_BQ_COUNT))
			*res += q->out_count;
	}
	else
	{
		s = gpx_intersect_ex(lp, (int) q->nlists, NULL, b->out + q->out_offset,
							 q->out_capacity, &outn, &st);
		q->status = s;
		q->out_count = s == GPX_OK ? outn : 0;
		*cand += st.candidates;
		*res += q->out_count;
	}
	if (lp != lists)
		free(lp);
}

/* Tell the notify descriptor that a job finished (never blocks). */
static void
pool_notify(gpx_batch_pool *p)
{
	char		c = 1;
	ssize_t		r;

	if (p->notify[1] < 0)
		return;
	do
		r = write(p->notify[1], &c, 1);
	while (r < 0 && errno == EINTR);
	/* EAGAIN: the pipe is full, so it is readable already */
}

/* Mark job done: stats final, order freed, waiters told; lock held. */
static void
pool_job_done(gpx_batch_pool *p, gpx_batch_job *job)
{
	job->stats.compute_ms = pool_now_ms() - job->t0;
	free(job->order);
	job->order = NULL;
	__atomic_store_n(&job->done, 1, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&p->done_cv);
	pool_notify(p);
}

/* Unlink the oldest job from the hand-out queue; lock held. */
static void
pool_pop(gpx_batch_pool *p)
{
	gpx_batch_job *job = p->head;

	p->head = job->link;
	if (p->head == NULL)
		p->tail = NULL;
	job->link = NULL;
}

/*
 * Hand out the next query: the oldest job's next one in its order.
 * Returns the job (its query index in *qi), or NULL when none is left.
 * Lock held.
 */
static gpx_batch_job *
pool_claim(gpx_batch_pool *p, uint32_t *qi)
{
	gpx_batch_job *job = p->head;
	uint32_t	i;

	if (job == NULL)
		return NULL;
	i = job->next++;
	*qi = job->order != NULL ? job->order[i] : i;
	if (job->next >= job->limit)
		pool_pop(p);
	p->running++;
	return job;
}

/* A claimed query of job ran: add up, and finish the job; lock held. */
static void
pool_finished(gpx_batch_pool *p, gpx_batch_job *job, uint64_t cand,
			  uint64_t res, uint64_t bytes)
{
	job->stats.candidates += cand;
	job->stats.results += res;
	job->stats.bytes_in += bytes;
	p->running--;
	if (++job->finished == job->limit)
		pool_job_done(p, job);
	else if (p->running == 0)
		pthread_cond_broadcast(&p->done_cv);	/* gpx_batch_pool_cancel */
}

/* Run one claimed query outside the lock, then account for it. */
static void
pool_run_claimed(gpx_batch_pool *p, gpx_batch_job *job, uint32_t qi)
{
	uint64_t	cand = 0,
				res = 0,
				bytes = 0;

	pthread_mutex_unlock(&p->mu);
	if (job->fn != NULL)
		job->fn(job->arg, qi);
	else
		pool_run_query(job->b, &job->b->queries[qi], &cand, &res, &bytes);
	pthread_mutex_lock(&p->mu);
	pool_finished(p, job, cand, res, bytes);
}

/* Helper thread body: take queries of the oldest job until shutdown. */
static void *
pool_thread_main(void *arg)
{
	gpx_batch_pool *p = arg;

	pthread_mutex_lock(&p->mu);
	for (;;)
	{
		gpx_batch_job *job;
		uint32_t	qi;

		if (p->shutdown)
			break;
		job = pool_claim(p, &qi);
		if (job == NULL)
		{
			pthread_cond_wait(&p->work_cv, &p->mu);
			continue;
		}
		pool_run_claimed(p, job, qi);
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
	p->notify[0] = p->notify[1] = -1;
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
	if (pipe(p->notify) != 0)
		p->notify[0] = p->notify[1] = -1;
	else
		for (int i = 0; i < 2; i++)
		{
			fcntl(p->notify[i], F_SETFL, fcntl(p->notify[i], F_GETFL) | O_NONBLOCK);
			fcntl(p->notify[i], F_SETFD, FD_CLOEXEC);
		}

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

/* Cancel what is left, stop and join every helper, then free the pool. */
void
gpx_batch_pool_destroy(gpx_batch_pool *p)
{
	if (p == NULL)
		return;
	gpx_batch_pool_cancel(p);
	pthread_mutex_lock(&p->mu);
	p->shutdown = 1;
	pthread_cond_broadcast(&p->work_cv);
	pthread_mutex_unlock(&p->mu);
	for (int i = 0; i < p->started; i++)
		pthread_join(p->threads[i], NULL);
	pthread_cond_destroy(&p->work_cv);
	pthread_cond_destroy(&p->done_cv);
	pthread_mutex_destroy(&p->mu);
	for (int i = 0; i < 2; i++)
		if (p->notify[i] >= 0)
			close(p->notify[i]);
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

/*
 * Append job to the queue and wake up to wake helpers (all of them by one
 * broadcast when that is every thread); p->mu held.
 */
static void
pool_enqueue_locked(gpx_batch_pool *p, gpx_batch_job *job, uint32_t wake)
{
	if (p->tail != NULL)
		p->tail->link = job;
	else
		p->head = job;
	p->tail = job;
	if (wake > (uint32_t) p->nthreads)
		wake = (uint32_t) p->nthreads;
	if (wake == (uint32_t) p->nthreads)
		pthread_cond_broadcast(&p->work_cv);
	else
		for (uint32_t i = 0; i < wake; i++)
			pthread_cond_signal(&p->work_cv);
}

/*
 * Queue a job; wake at most wake helpers (the caller may run queries
 * itself).  A batch without queries is done at once.
 */
static gpx_status
pool_submit(gpx_batch_pool *p, gpx_batch *b, gpx_batch_job *job, uint32_t wake)
{
	if (p == NULL || b == NULL || job == NULL ||
		(b->nqueries > 0 && (b->queries == NULL || b->lists == NULL)))
		return GPX_E_ARG;
	memset(job, 0, sizeof(*job));
	job->b = b;
	job->limit = b->nqueries;
	job->t0 = pool_now_ms();
	/* the order pays off only when several threads share the batch */
	if (b->nqueries > 1 && p->nthreads > 0)
		job->order = pool_make_order(b);
	pthread_mutex_lock(&p->mu);
	if (b->nqueries == 0)
		pool_job_done(p, job);
	else
		pool_enqueue_locked(p, job, wake);
	pthread_mutex_unlock(&p->mu);
	return GPX_OK;
}

/* Run fn(arg, i) for i in [0, n) on the pool and this thread (gpx_batch.h). */
gpx_status
gpx_batch_pool_for(gpx_batch_pool *p, uint32_t n, void (*fn) (void *arg, uint32_t i),
				   void *arg)
{
	gpx_batch_job job;

	if (p == NULL || fn == NULL)
		return GPX_E_ARG;
	if (n == 0)
		return GPX_OK;
	memset(&job, 0, sizeof(job));
	job.fn = fn;
	job.arg = arg;
	job.limit = n;
	job.t0 = pool_now_ms();
	pthread_mutex_lock(&p->mu);
	/* the caller runs one call: helpers for the others */
	pool_enqueue_locked(p, &job, n - 1);
	pthread_mutex_unlock(&p->mu);
	gpx_batch_pool_wait(p, &job);
	return GPX_OK;
}

/* Queue b as job (see gpx_batch.h); every helper may take its queries. */
gpx_status
gpx_batch_pool_submit(gpx_batch_pool *p, gpx_batch *b, gpx_batch_job *job)
{
	return pool_submit(p, b, job, b != NULL ? b->nqueries : 0);
}

/* Whether job is done (acquire: its results are visible once it is). */
bool
gpx_batch_pool_done(const gpx_batch_job *job)
{
	return __atomic_load_n(&job->done, __ATOMIC_ACQUIRE) != 0;
}

/* Run one query of the oldest job with one left, here; false if none. */
bool
gpx_batch_pool_help(gpx_batch_pool *p)
{
	gpx_batch_job *job;
	uint32_t	qi;

	if (p == NULL)
		return false;
	pthread_mutex_lock(&p->mu);
	job = pool_claim(p, &qi);
	if (job != NULL)
		pool_run_claimed(p, job, qi);
	pthread_mutex_unlock(&p->mu);
	return job != NULL;
}

/* Wait for job, running queries meanwhile. */
void
gpx_batch_pool_wait(gpx_batch_pool *p, gpx_batch_job *job)
{
	while (!gpx_batch_pool_done(job))
	{
		if (gpx_batch_pool_help(p))
			continue;
		pthread_mutex_lock(&p->mu);
		while (!gpx_batch_pool_done(job) && p->head == NULL)
			pthread_cond_wait(&p->done_cv, &p->mu);
		pthread_mutex_unlock(&p->mu);
	}
}

/* The read end of the notify pipe, or -1. */
int
gpx_batch_pool_notify_fd(const gpx_batch_pool *p)
{
	return p != NULL ? p->notify[0] : -1;
}

/* Empty the notify pipe. */
void
gpx_batch_pool_notify_clear(gpx_batch_pool *p)
{
	char		buf[64];

	if (p == NULL || p->notify[0] < 0)
		return;
	while (read(p->notify[0], buf, sizeof(buf)) > 0)
		;
}

/* Hand out nothing more; wait for the running queries; every job done. */
void
gpx_batch_pool_cancel(gpx_batch_pool *p)
{
	if (p == NULL)
		return;
	pthread_mutex_lock(&p->mu);
	while (p->head != NULL)
	{
		gpx_batch_job *job = p->head;

		pool_pop(p);
		job->limit = job->next;
		if (job->finished == job->limit)
			pool_job_done(p, job);
		/* else the last running query of it finishes it */
	}
	while (p->running > 0)
		pthread_cond_wait(&p->done_cv, &p->mu);
	pthread_mutex_unlock(&p->mu);
}

/* Queue b as job and run it to its end, the calling thread working too. */
gpx_status
gpx_batch_pool_submit_wait(gpx_batch_pool *p, gpx_batch *b, gpx_batch_job *job)
{
	/* helpers only pay off with more than one query: the caller runs one */
	gpx_status	s = pool_submit(p, b, job, b != NULL && b->nqueries > 1 ? b->nqueries - 1 : 0);

	if (s != GPX_OK)
		return s;
	gpx_batch_pool_wait(p, job);
	return GPX_OK;
}

/* Run every query of b on the pool; the calling thread works too. */
gpx_status
gpx_batch_pool_run(gpx_batch_pool *p, gpx_batch *b, gpx_batch_stats *stats)
{
	gpx_batch_job job;
	gpx_status	s;

	if (stats != NULL)
		memset(stats, 0, sizeof(*stats));
	s = gpx_batch_pool_submit_wait(p, b, &job);
	if (s != GPX_OK)
		return s;
	if (stats != NULL)
		*stats = job.stats;
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
