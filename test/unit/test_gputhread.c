/*
 * test_gputhread.c - the executor's GPU thread (src/exec_gputhread.c) on
 * its own: posted tasks run in order, and tasks of one fn_many queued
 * right behind each other run in one call.  The thread is built here with
 * the back end of builds without nvcc (cuda/gpx_cuda_none.c), whose calls
 * never touch the context, so a dummy one serves.
 */
#include <stdatomic.h>
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

int
main(void)
{
	UNIT_RUN(test_merge_queued());
	return unit_finish();
}
