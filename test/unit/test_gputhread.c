/*
 * test_gputhread.c - the executor's GPU thread (src/exec_gputhread.c) on
 * its own: posted tasks run in order, and tasks of one fn_many queued
 * right behind each other run in one call; asynchronous tasks (start,
 * poll, ready) are started in order while ready, polled until they end,
 * hold back the tasks behind one not ready, and end when the thread
 * stops.  The thread is built here with
 * the back end of builds without nvcc (cuda/gpx_cuda_none.c), whose calls
 * never touch the context, so a dummy one serves.
 */
#include <sched.h>
#include <stdatomic.h>
#include <time.h>
#include <string.h>

#include "../../src/exec_gputhread.c"
#include "../../cuda/gpx_cuda_none.c"
#include "unit.h"

/* What the tasks saw, in the order they ran. */
static int log_calls[64];		/* per call: how many tasks it took */
static int log_ids[64];			/* per task run: its id */
static _Atomic int nlog_calls;
static _Atomic int nlog_ids;
static _Atomic int gate;		/* the blocking task waits until it is set */

/* A task of its own (fn): blocks while gate is 0 when asked to, logs its id. */
static int
task_one(gpx_cuda_ctx *ctx, void *arg)
{
	int			id = (int) (intptr_t) arg;

	(void) ctx;
	if (id == 0)
		while (!atomic_load(&gate))
			;
	log_calls[atomic_fetch_add(&nlog_calls, 1)] = 1;
	log_ids[atomic_fetch_add(&nlog_ids, 1)] = id;
	return id == 4 ? GPX_CUDA_OOM : GPX_CUDA_OK;
}

/* fn_many: logs how many tasks the call took and their ids. */
static int
task_many(gpx_cuda_ctx *ctx, void **args, int n)
{
	(void) ctx;
	log_calls[atomic_fetch_add(&nlog_calls, 1)] = n;
	for (int i = 0; i < n; i++)
		log_ids[atomic_fetch_add(&nlog_ids, 1)] = (int) (intptr_t) args[i];
	return GPX_CUDA_OK;
}

/*
 * A blocking task, then tasks 1-3 (fn_many), 4 (fn only: failing), 5-6
 * (fn_many) and 30 more (fn_many) posted behind it: once it is released
 * the thread runs 1-3 in one call, 4 alone, then 5.. in calls of at most
 * GPX_GT_MERGE_MAX; every task comes back once, with its call's status.
 */
static void
test_merge_queued(void)
{
	static int	dummy;
	GpxGpuThread *gt = gpuidx_exec_gt_start((gpx_cuda_ctx *) &dummy, 64, 0);
	GpxGtTask	t[37];
	int			back[37] = {0};
	int			nback = 0,
				spins = 0;
	bool		ok = true;

	CHECK(gt != NULL);
	if (gt == NULL)
		return;
	memset(t, 0, sizeof(t));
	for (int i = 0; i < 37; i++)
	{
		t[i].fn = task_one;
		t[i].fn_many = i == 0 || i == 4 ? NULL : task_many;
		t[i].arg = (void *) (intptr_t) i;
		t[i].job.user = &t[i];
	}
	gpuidx_exec_gt_post(gt, &t[0]);
	while (atomic_load(&nlog_ids) == 0 && gt_ring_any(&gt->in) && spins++ < 100000000)
		;						/* the thread took task 0 and blocks in it */
	for (int i = 1; i < 37; i++)
		gpuidx_exec_gt_post(gt, &t[i]);
	atomic_store(&gate, 1);
	while (nback < 37 && spins++ < 400000000)
	{
		gpx_cuda_job *j = gpuidx_exec_gt_reap(gt);

		if (j == NULL)
			continue;
		back[(GpxGtTask *) j->user - t]++;
		if (j->status != (j->user == &t[4] ? GPX_CUDA_OOM : GPX_CUDA_OK))
			ok = false;
		nback++;
	}
	CHECKF(nback == 37, "%d of 37 tasks came back", nback);
	for (int i = 0; i < 37; i++)
		if (back[i] != 1)
			ok = false;
	CHECKF(ok, "a task came back twice, never, or with another's status");
	CHECK(gpuidx_exec_gt_pending(gt) == 0);
	for (int i = 0; i < 37; i++)
		if (log_ids[i] != i)
			ok = false;
	CHECKF(ok, "tasks ran out of order");
	/* 0 alone, 1-3 in one call, 4 alone, then 5..36 in calls of at most 16 */
	CHECK(atomic_load(&nlog_calls) == 3 + (32 + GPX_GT_MERGE_MAX - 1) / GPX_GT_MERGE_MAX);
	CHECK(log_calls[0] == 1 && log_calls[1] == 3 && log_calls[2] == 1);
	CHECK(log_calls[3] == GPX_GT_MERGE_MAX && log_calls[4] == GPX_GT_MERGE_MAX);
	gpuidx_exec_gt_stop(gt, NULL, NULL);
}

/* Asynchronous tasks: two "streams", and each task's state. */
static _Atomic int a_free = 2;
static _Atomic int a_started[8];	/* start order (1-based), 0: not started */
static _Atomic int a_nstarted;
static _Atomic int a_end[8];		/* set by the test: the task's work ended */
static _Atomic int a_polls_stopping;
static _Atomic int a_sync_ran;		/* when the plain task ran: a_nstarted then */

/* start: takes a stream (task 5 fails to start) and notes its order. */
static int
atask_start(gpx_cuda_ctx *ctx, void *arg)
{
	int			id = (int) (intptr_t) arg;

	(void) ctx;
	if (id == 5)
		return GPX_CUDA_OOM;
	atomic_fetch_sub(&a_free, 1);
	a_started[id] = atomic_fetch_add(&a_nstarted, 1) + 1;
	return GPX_CUDA_OK;
}

/* poll: done once the test ended it (or stopping), its stream given back. */
static int
atask_poll(gpx_cuda_ctx *ctx, void *arg, int stopping)
{
	int			id = (int) (intptr_t) arg;

	(void) ctx;
	if (stopping)
		atomic_fetch_add(&a_polls_stopping, 1);
	if (!stopping && !atomic_load(&a_end[id]))
		return 0;
	atomic_fetch_add(&a_free, 1);
	return 1;
}

/* ready: a stream is free. */
static int
atask_ready(gpx_cuda_ctx *ctx)
{
	(void) ctx;
	return atomic_load(&a_free) > 0;
}

/* The plain task posted among them: notes how many had started before it. */
static int
atask_sync(gpx_cuda_ctx *ctx, void *arg)
{
	(void) ctx;
	(void) arg;
	atomic_store(&a_sync_ran, atomic_load(&a_nstarted) + 1);
	return GPX_CUDA_OK;
}

/* Seconds on a monotonic clock. */
static double
mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Wait (yielding) until *v reaches at least want, at most 30 s; its value. */
static int
wait_at_least(_Atomic int *v, int want)
{
	double		t0 = mono_s();

	while (atomic_load(v) < want && mono_s() - t0 < 30)
		sched_yield();
	return atomic_load(v);
}

/* Reap jobs until n came back or 30 s passed; counts them in back[]. */
static int
reap_some(GpxGpuThread *gt, GpxGtTask *t, int *back, int *status, int n)
{
	int			got = 0;
	double		t0 = mono_s();

	while (got < n && mono_s() - t0 < 30)
	{
		gpx_cuda_job *j = gpuidx_exec_gt_reap(gt);

		if (j == NULL)
		{
			sched_yield();
			continue;
		}
		back[(GpxGtTask *) j->user - t]++;
		status[(GpxGtTask *) j->user - t] = j->status;
		got++;
	}
	return got;
}

/*
 * Asynchronous tasks 0-2 (two streams), a plain task 3, async 4, async 5
 * (its start fails), async 6: 0 and 1 start, 2 waits until a stream is
 * free (and the plain task behind it with it), then everything runs in
 * order; 6 is still in flight when the thread stops, and comes back.
 */
static void
test_async_tasks(void)
{
	static int	dummy;
	GpxGpuThread *gt = gpuidx_exec_gt_start((gpx_cuda_ctx *) &dummy, 64, 0);
	GpxGtTask	t[7];
	int			back[7] = {0},
				status[7] = {0};
	gpx_cuda_job *left[8];
	int			nleft = 0;

	CHECK(gt != NULL);
	if (gt == NULL)
		return;
	memset(t, 0, sizeof(t));
	for (int i = 0; i < 7; i++)
	{
		t[i].fn = atask_sync;
		if (i != 3)
		{
			t[i].start = atask_start;
			t[i].poll = atask_poll;
			t[i].ready = atask_ready;
		}
		t[i].arg = (void *) (intptr_t) i;
		t[i].job.user = &t[i];
	}
	for (int i = 0; i < 7; i++)
		gpuidx_exec_gt_post(gt, &t[i]);
	(void) wait_at_least(&a_nstarted, 2);
	{
		double		t0 = mono_s();

		while (mono_s() - t0 < 0.05)
			sched_yield();		/* the thread had time to go further */
	}
	CHECKF(atomic_load(&a_nstarted) == 2 && a_started[0] == 1 && a_started[1] == 2,
		   "%d started, 0 as %d, 1 as %d", atomic_load(&a_nstarted), a_started[0], a_started[1]);
	CHECKF(atomic_load(&a_sync_ran) == 0, "the plain task ran before the one ahead of it started");
	CHECK(gpuidx_exec_gt_reap(gt) == NULL);
	atomic_store(&a_end[1], 1);		/* the second ends first */
	CHECK(reap_some(gt, t, back, status, 1) == 1 && back[1] == 1);
	CHECK(wait_at_least(&a_nstarted, 3) >= 3 && a_started[2] == 3);
	atomic_store(&a_end[0], 1);
	atomic_store(&a_end[2], 1);
	atomic_store(&a_end[4], 1);
	/* 0, 2, 3 (plain), 4, 5 (refused) come back; 6 stays in flight */
	CHECK(reap_some(gt, t, back, status, 5) == 5);
	CHECKF(atomic_load(&a_sync_ran) == 4, "the plain task ran after %d starts, want 3",
		   atomic_load(&a_sync_ran) - 1);
	CHECK(a_started[4] == 4 && a_started[6] == 5 && a_started[5] == 0);
	CHECK(status[5] == GPX_CUDA_OOM);
	for (int i = 0; i < 5; i++)
		CHECKF(back[i] == 1 && status[i] == GPX_CUDA_OK, "task %d: back %d, status %d", i,
			   back[i], status[i]);
	CHECK(back[6] == 0);
	gpuidx_exec_gt_stop(gt, left, &nleft);
	CHECKF(nleft == 1 && left[0] == &t[6].job && left[0]->status == GPX_CUDA_OK,
		   "%d left at the stop", nleft);
	CHECK(atomic_load(&a_polls_stopping) == 1);
	CHECK(atomic_load(&a_free) == 2);
}

int
main(void)
{
	UNIT_RUN(test_merge_queued());
	UNIT_RUN(test_async_tasks());
	return unit_finish();
}
