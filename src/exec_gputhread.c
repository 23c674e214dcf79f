/*
 * exec_gputhread.c - the executor's GPU thread (exec_gputhread.h).
 *
 * Two single-producer single-consumer rings of job pointers: "in" (the
 * main thread submits, the GPU thread takes) and "out" (the GPU thread
 * hands back, the main thread reaps), each index written by one side
 * only, with release/acquire ordering so that a job's contents travel
 * with its pointer.  A call (gpuidx_exec_gt_call) is one more mailbox.
 * The GPU thread loops: take submissions and send them to the back end
 * (gpx_cuda_submit) or, a posted task, run it (with the tasks of the same
 * fn_many queued right behind it, in one call) or start it (an
 * asynchronous task); run a call; collect finished jobs (gpx_cuda_reap
 * without waiting) and started tasks that ended; while it has work, or
 * for idle_spin_us after the last, it polls, then it sleeps on a
 * condition variable that the main thread signals when it gives it
 * something.
 *
 * Nothing here calls PostgreSQL: the thread may not, and the main
 * thread's side only touches the rings.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "exec_gputhread.h"

/* A ring of job pointers, one producer and one consumer. */
typedef struct GtRing
{
	gpx_cuda_job **jobs;
	uint32_t	cap;			/* a power of two */
	_Atomic uint32_t head;		/* next to take (consumer) */
	_Atomic uint32_t tail;		/* next to fill (producer) */
} GtRing;

struct GpxGpuThread
{
	gpx_cuda_ctx *ctx;
	pthread_t	thread;
	int			idle_spin_us;
	GtRing		in;
	GtRing		out;
	int			pending;		/* main thread: submitted, not reaped */
	GpxGtTask **started;		/* GPU thread: asynchronous tasks started,
								 * not handed back, in start order */
	int			nstarted;

	/* a call: set by the main thread, answered by the GPU thread */
	int			(*call_fn) (gpx_cuda_ctx *ctx, void *arg);
	void	   *call_arg;
	int			call_result;
	_Atomic int call_state;		/* 0 none, 1 asked, 2 answered */

	_Atomic int stop;			/* asked to stop */

	/* sleeping */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	_Atomic int sleeping;		/* the GPU thread waits on cv */
};

/* Put j into r (the producer's side); false when full. */
static bool
gt_ring_put(GtRing *r, gpx_cuda_job *j)
{
	uint32_t	t = atomic_load_explicit(&r->tail, memory_order_relaxed);
	uint32_t	h = atomic_load_explicit(&r->head, memory_order_acquire);

	if (t - h >= r->cap)
		return false;
	r->jobs[t & (r->cap - 1)] = j;
	atomic_store_explicit(&r->tail, t + 1, memory_order_release);
	return true;
}

/* Take the oldest job of r (the consumer's side), or NULL. */
static gpx_cuda_job *
gt_ring_take(GtRing *r)
{
	uint32_t	h = atomic_load_explicit(&r->head, memory_order_relaxed);
	uint32_t	t = atomic_load_explicit(&r->tail, memory_order_acquire);
	gpx_cuda_job *j;

	if (h == t)
		return NULL;
	j = r->jobs[h & (r->cap - 1)];
	atomic_store_explicit(&r->head, h + 1, memory_order_release);
	return j;
}

/* The oldest job of r without taking it (the consumer's side), or NULL. */
static gpx_cuda_job *
gt_ring_peek(GtRing *r)
{
	uint32_t	h = atomic_load_explicit(&r->head, memory_order_relaxed);
	uint32_t	t = atomic_load_explicit(&r->tail, memory_order_acquire);

	return h == t ? NULL : r->jobs[h & (r->cap - 1)];
}

/* Whether r holds a job (either side may ask). */
static bool
gt_ring_any(GtRing *r)
{
	return atomic_load_explicit(&r->head, memory_order_acquire) !=
		atomic_load_explicit(&r->tail, memory_order_acquire);
}

/* Monotonic clock in microseconds. */
static int64_t
gt_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t) ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* A short pause in a polling loop. */
static inline void
gt_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#else
	atomic_signal_fence(memory_order_seq_cst);
#endif
}

/* Hand a job back to the main thread (the out ring never fills: it holds
 * at most the jobs submitted and not reaped). */
static void
gt_hand_back(GpxGpuThread *gt, gpx_cuda_job *j)
{
	while (!gt_ring_put(&gt->out, j))
		gt_pause();
}

/*
 * Hand back a job now with status st (the back end's message when it is
 * a failure): a task that ran, or a batch the back end refused.
 */
static void
gt_hand_back_status(GpxGpuThread *gt, gpx_cuda_job *j, gpx_cuda_status st)
{
	j->status = st;
	j->err[0] = '\0';
	if (st != GPX_CUDA_OK)
	{
		const char *e = gpx_cuda_last_error(gt->ctx);

		strncpy(j->err, e != NULL && e[0] ? e : gpx_cuda_status_str(st), sizeof(j->err) - 1);
		j->err[sizeof(j->err) - 1] = '\0';
	}
	gt_hand_back(gt, j);
}

/*
 * Run task t together with the tasks queued right behind it that have its
 * fn_many (one call), and hand each back with the call's result.
 */
static void
gt_run_many(GpxGpuThread *gt, GpxGtTask *t)
{
	GpxGtTask  *tasks[GPX_GT_MERGE_MAX];
	void	   *args[GPX_GT_MERGE_MAX];
	int			n = 0;
	gpx_cuda_status st;

	tasks[n] = t;
	args[n] = t->arg;
	n++;
	while (n < GPX_GT_MERGE_MAX)
	{
		gpx_cuda_job *nx = gt_ring_peek(&gt->in);

		if (nx == NULL || nx->b != NULL || ((GpxGtTask *) nx)->fn_many != t->fn_many)
			break;
		(void) gt_ring_take(&gt->in);
		tasks[n] = (GpxGtTask *) nx;
		args[n] = tasks[n]->arg;
		n++;
	}
	st = t->fn_many(gt->ctx, args, n);
	for (int i = 0; i < n; i++)
		gt_hand_back_status(gt, &tasks[i]->job, st);
}

/*
 * Send every submitted batch to the back end, and run or start every
 * posted task, in their order (stopping before an asynchronous task not
 * ready while others run); true when there was one.
 */
static bool
gt_take_submissions(GpxGpuThread *gt)
{
	gpx_cuda_job *j;
	bool		any = false;

	while ((j = gt_ring_peek(&gt->in)) != NULL)
	{
		gpx_cuda_status st;

		if (j->b == NULL && ((GpxGtTask *) j)->start != NULL)
		{
			/* an asynchronous task: started, then polled (gt_poll_started) */
			GpxGtTask  *t = (GpxGtTask *) j;

			if (t->ready != NULL && gt->nstarted > 0 && !t->ready(gt->ctx))
				break;
			(void) gt_ring_take(&gt->in);
			any = true;
			st = t->start(gt->ctx, t->arg);
			if (st != GPX_CUDA_OK)
				gt_hand_back_status(gt, j, st);
			else
				gt->started[gt->nstarted++] = t;
			continue;
		}
		(void) gt_ring_take(&gt->in);
		any = true;
		if (j->b == NULL)
		{
			/* a task (gpuidx_exec_gt_post): run now, in submission order */
			GpxGtTask  *t = (GpxGtTask *) j;

			if (t->fn_many != NULL)
				gt_run_many(gt, t);
			else
				gt_hand_back_status(gt, j, t->fn(gt->ctx, t->arg));
			continue;
		}
		st = gpx_cuda_submit(gt->ctx, j->b, j);
		if (st != GPX_CUDA_OK)
			gt_hand_back_status(gt, j, st);	/* refused: back at once */
	}
	return any;
}

/*
 * Hand back every started task whose work ended (stopping: every one,
 * ended by its poll); true when there was one.
 */
static bool
gt_poll_started(GpxGpuThread *gt, bool stopping)
{
	bool		any = false;
	int			kept = 0;

	for (int i = 0; i < gt->nstarted; i++)
	{
		GpxGtTask  *t = gt->started[i];

		if (t->poll(gt->ctx, t->arg, stopping ? 1 : 0))
		{
			gt_hand_back_status(gt, &t->job, GPX_CUDA_OK);
			any = true;
		}
		else
			gt->started[kept++] = t;
	}
	gt->nstarted = kept;
	return any;
}

/* Hand back every job the back end finished; true when there was one. */
static bool
gt_collect(GpxGpuThread *gt)
{
	gpx_cuda_job *j;
	bool		any = false;

	while ((j = gpx_cuda_reap(gt->ctx, false)) != NULL)
	{
		gt_hand_back(gt, j);
		any = true;
	}
	return any;
}

/* Answer a pending call; true when there was one. */
static bool
gt_answer_call(GpxGpuThread *gt)
{
	if (atomic_load_explicit(&gt->call_state, memory_order_acquire) != 1)
		return false;
	gt->call_result = gt->call_fn(gt->ctx, gt->call_arg);
	atomic_store_explicit(&gt->call_state, 2, memory_order_release);
	return true;
}

/* Whether the main thread gave the GPU thread something to do. */
static bool
gt_has_input(GpxGpuThread *gt)
{
	return gt_ring_any(&gt->in) ||
		atomic_load_explicit(&gt->call_state, memory_order_acquire) == 1 ||
		atomic_load_explicit(&gt->stop, memory_order_acquire);
}

/* The GPU thread. */
static void *
gt_main(void *arg)
{
	GpxGpuThread *gt = arg;
	int64_t		last_work = gt_now_us();

	while (!atomic_load_explicit(&gt->stop, memory_order_acquire))
	{
		bool		worked = false;

		worked |= gt_take_submissions(gt);
		worked |= gt_answer_call(gt);
		if (gt->nstarted > 0)
		{
			worked |= gt_poll_started(gt, false);
			last_work = gt_now_us();	/* in flight: keep polling */
		}
		if (gpx_cuda_pending(gt->ctx) > 0)
		{
			worked |= gt_collect(gt);
			last_work = gt_now_us();	/* in flight: keep polling */
		}
		if (worked)
		{
			last_work = gt_now_us();
			continue;
		}
		if (gt_now_us() - last_work < gt->idle_spin_us)
		{
			gt_pause();
			continue;
		}
		/* idle: sleep until the main thread gives us something */
		pthread_mutex_lock(&gt->mu);
		atomic_store_explicit(&gt->sleeping, 1, memory_order_seq_cst);
		atomic_thread_fence(memory_order_seq_cst);	/* pairs with gt_wake's */
		while (!gt_has_input(gt))
			pthread_cond_wait(&gt->cv, &gt->mu);
		atomic_store_explicit(&gt->sleeping, 0, memory_order_relaxed);
		pthread_mutex_unlock(&gt->mu);
		last_work = gt_now_us();
	}

	/* stop: what is queued is not sent; what runs is cancelled */
	{
		gpx_cuda_job *j;

		(void) gt_poll_started(gt, true);
		while ((j = gt_ring_take(&gt->in)) != NULL)
		{
			j->status = GPX_CUDA_ERROR;
			strncpy(j->err, "cancelled", sizeof(j->err) - 1);
			gt_hand_back(gt, j);
		}
		gpx_cuda_cancel(gt->ctx);
		(void) gt_collect(gt);
	}
	return NULL;
}

/* Wake the GPU thread if it sleeps (main thread, after giving it work). */
static void
gt_wake(GpxGpuThread *gt)
{
	/* the work stored before is visible to a thread that reads sleeping
	 * as set after us, or it sees sleeping set and we signal it */
	atomic_thread_fence(memory_order_seq_cst);
	if (!atomic_load_explicit(&gt->sleeping, memory_order_seq_cst))
		return;
	pthread_mutex_lock(&gt->mu);
	pthread_cond_signal(&gt->cv);
	pthread_mutex_unlock(&gt->mu);
}

/* Start the GPU thread for ctx (see the header). */
GpxGpuThread *
gpuidx_exec_gt_start(gpx_cuda_ctx *ctx, int max_jobs, int idle_spin_us)
{
	GpxGpuThread *gt;
	uint32_t	cap = 1;
	sigset_t	all,
				old;
	int			rc;

	if (ctx == NULL || max_jobs < 1)
		return NULL;
	while (cap < (uint32_t) max_jobs)
		cap <<= 1;
	gt = calloc(1, sizeof(*gt));
	if (gt == NULL)
		return NULL;
	gt->in.jobs = calloc(cap, sizeof(gpx_cuda_job *));
	gt->out.jobs = calloc(cap, sizeof(gpx_cuda_job *));
	gt->started = calloc(cap, sizeof(GpxGtTask *));
	if (gt->in.jobs == NULL || gt->out.jobs == NULL || gt->started == NULL)
	{
		free(gt->in.jobs);
		free(gt->out.jobs);
		free(gt->started);
		free(gt);
		return NULL;
	}
	gt->in.cap = gt->out.cap = cap;
	gt->ctx = ctx;
	gt->idle_spin_us = idle_spin_us > 0 ? idle_spin_us : 0;
	pthread_mutex_init(&gt->mu, NULL);
	pthread_cond_init(&gt->cv, NULL);

	/* the thread takes no signal: PostgreSQL's handlers run on the main one */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&gt->thread, NULL, gt_main, gt);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0)
	{
		pthread_cond_destroy(&gt->cv);
		pthread_mutex_destroy(&gt->mu);
		free(gt->in.jobs);
		free(gt->out.jobs);
		free(gt->started);
		free(gt);
		return NULL;
	}
	return gt;
}

/* Hand a job to the GPU thread (see the header). */
void
gpuidx_exec_gt_submit(GpxGpuThread *gt, gpx_cuda_job *job)
{
	job->status = GPX_CUDA_OK;
	job->err[0] = '\0';
	/* never full: at most max_jobs are submitted and not reaped */
	while (!gt_ring_put(&gt->in, job))
		gt_pause();
	gt->pending++;
	gt_wake(gt);
}

/* Hand a task to the GPU thread (see the header). */
void
gpuidx_exec_gt_post(GpxGpuThread *gt, GpxGtTask *task)
{
	task->job.b = NULL;			/* what marks it a task */
	gpuidx_exec_gt_submit(gt, &task->job);
}

/* A job the GPU thread is done with, or NULL (see the header). */
gpx_cuda_job *
gpuidx_exec_gt_reap(GpxGpuThread *gt)
{
	gpx_cuda_job *j = gt_ring_take(&gt->out);

	if (j != NULL)
		gt->pending--;
	return j;
}

/* Jobs submitted and not reaped. */
int
gpuidx_exec_gt_pending(const GpxGpuThread *gt)
{
	return gt->pending;
}

/* Run fn on the GPU thread and wait for its result (see the header). */
int
gpuidx_exec_gt_call(GpxGpuThread *gt, int (*fn) (gpx_cuda_ctx *ctx, void *arg),
					void *arg)
{
	gt->call_fn = fn;
	gt->call_arg = arg;
	atomic_store_explicit(&gt->call_state, 1, memory_order_release);
	gt_wake(gt);
	while (atomic_load_explicit(&gt->call_state, memory_order_acquire) != 2)
		gt_pause();
	atomic_store_explicit(&gt->call_state, 0, memory_order_relaxed);
	return gt->call_result;
}

/* Stop the GPU thread and hand back what it held (see the header). */
void
gpuidx_exec_gt_stop(GpxGpuThread *gt, gpx_cuda_job **left, int *nleft)
{
	gpx_cuda_job *j;
	int			n = 0;

	if (nleft != NULL)
		*nleft = 0;
	if (gt == NULL)
		return;
	atomic_store_explicit(&gt->stop, 1, memory_order_release);
	pthread_mutex_lock(&gt->mu);
	pthread_cond_signal(&gt->cv);
	pthread_mutex_unlock(&gt->mu);
	pthread_join(gt->thread, NULL);
	while ((j = gt_ring_take(&gt->out)) != NULL)
	{
		if (left != NULL)
			left[n] = j;
		n++;
	}
	if (nleft != NULL)
		*nleft = n;
	pthread_cond_destroy(&gt->cv);
	pthread_mutex_destroy(&gt->mu);
	free(gt->in.jobs);
	free(gt->out.jobs);
	free(gt->started);
	free(gt);
}
