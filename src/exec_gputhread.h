/*
 * exec_gputhread.h - the executor's GPU thread: one thread of the executor
 * process that makes every call into the CUDA back end (gpx_cuda.h) while
 * it runs, so that the executor's main thread, which does the PostgreSQL
 * side of a batch (taking requests under the lock, building the batch,
 * handing results back, waking backends), never waits for planning,
 * staging, issuing or polling on the GPU: the two halves of consecutive
 * batches overlap.
 *
 * The main thread hands it batches (gpuidx_exec_gt_submit) and work of
 * its own (gpuidx_exec_gt_post: ranked batches) and takes back finished
 * jobs (gpuidx_exec_gt_reap), all without blocking; anything else that
 * needs the back end (a union batch, a description) runs on the thread
 * through gpuidx_exec_gt_call, which waits for it.  The thread
 * calls nothing of PostgreSQL (no elog, no palloc), blocks every signal,
 * and spins while it has work or for a short while after, then sleeps
 * until woken.
 *
 * Ownership: a submitted job, its batch and everything they point to stay
 * the caller's, untouched by the caller until the job comes back from
 * gpuidx_exec_gt_reap (its status and err then say how it went, as
 * gpx_cuda_reap's would).  Pure C (pthreads and C11 atomics): one main
 * thread, one GPU thread, single-producer single-consumer rings.
 */
#ifndef EXEC_GPUTHREAD_H
#define EXEC_GPUTHREAD_H

#include <stdbool.h>

#include "gpx_cuda.h"

typedef struct GpxGpuThread GpxGpuThread;

/*
 * Start the thread for ctx, which from now on only it may call until
 * gpuidx_exec_gt_stop; at most max_jobs jobs are ever submitted and not
 * yet reaped.  idle_spin_us: how long it polls for work before sleeping.
 * NULL when the thread could not be started (the caller then calls the
 * back end itself).
 */
extern GpxGpuThread *gpuidx_exec_gt_start(gpx_cuda_ctx *ctx, int max_jobs,
										  int idle_spin_us);

/* Hand job (job->b filled, job->user set) to the thread; never blocks. */
extern void gpuidx_exec_gt_submit(GpxGpuThread *gt, gpx_cuda_job *job);

/*
 * Work of the caller's own that the thread runs in turn with the batches
 * (gpuidx_exec_gt_post): fn(ctx, arg) when the thread takes it, after the
 * batches submitted before it went to the back end.  Its job (job.user
 * set by the caller, job.b NULL) comes back through gpuidx_exec_gt_reap
 * like a batch's: status fn's result (err the back end's last message
 * when not GPX_CUDA_OK), or a failure ("cancelled") when the thread
 * stopped before running it.  fn runs on the GPU thread: it may call
 * nothing of PostgreSQL.
 */
typedef struct GpxGtTask
{
	gpx_cuda_job job;			/* first: what the rings carry */
	int			(*fn) (gpx_cuda_ctx *ctx, void *arg);
	void	   *arg;

	/*
	 * NULL, or a function that runs several such tasks at once: when the
	 * thread takes this task and the ones queued right behind it have the
	 * same fn_many, it calls fn_many(ctx, args, n) once with their args
	 * in order (at most GPX_GT_MERGE_MAX) instead of fn for each, and
	 * every one of them comes back with its result.
	 */
	int			(*fn_many) (gpx_cuda_ctx *ctx, void **args, int n);

	/*
	 * NULL, or the task runs asynchronously (fn and fn_many unused): when
	 * the thread takes it, start(ctx, arg) issues its work and returns a
	 * status (other than GPX_CUDA_OK: the task comes back at once with
	 * it); then, as the thread polls, poll(ctx, arg, 0) until it returns
	 * nonzero, and the task comes back with GPX_CUDA_OK.  When the thread
	 * stops it calls poll(ctx, arg, 1), which ends the task (waits for
	 * what runs, cancels the rest) and returns nonzero.  ready (NULL:
	 * always) says whether a start now would run without waiting; while
	 * it says no and started tasks are in flight, the thread takes
	 * nothing more (the order of submissions is kept).
	 */
	int			(*start) (gpx_cuda_ctx *ctx, void *arg);
	int			(*poll) (gpx_cuda_ctx *ctx, void *arg, int stopping);
	int			(*ready) (gpx_cuda_ctx *ctx);
} GpxGtTask;

/* The most tasks one fn_many call takes. */
#define GPX_GT_MERGE_MAX 16

/* Hand task (fn, arg, job.user set) to the thread; never blocks. */
extern void gpuidx_exec_gt_post(GpxGpuThread *gt, GpxGtTask *task);

/* A job the thread is done with (finished, failed or refused), or NULL. */
extern gpx_cuda_job *gpuidx_exec_gt_reap(GpxGpuThread *gt);

/* Jobs submitted and not yet handed back by gpuidx_exec_gt_reap. */
extern int	gpuidx_exec_gt_pending(const GpxGpuThread *gt);

/*
 * Run fn(ctx, arg) on the thread, after the submissions before it were
 * handed to the back end, and return its result; waits (spinning).
 */
extern int	gpuidx_exec_gt_call(GpxGpuThread *gt,
								int (*fn) (gpx_cuda_ctx *ctx, void *arg),
								void *arg);

/*
 * Stop the thread: what it has in flight is cancelled (gpx_cuda_cancel:
 * the devices finish what they run and issue nothing more), every job
 * comes back through gpuidx_exec_gt_reap (those not done failed,
 * "cancelled"), and the thread is joined; the back end is the caller's
 * again.  Frees gt; NULL is a no-op.  Afterwards no thread writes into
 * any batch.
 */
extern void gpuidx_exec_gt_stop(GpxGpuThread *gt, gpx_cuda_job **left,
								int *nleft);

#endif							/* EXEC_GPUTHREAD_H */
