/*
 * exec_rank.h - ranked batches (src/codec/gpx_rank_batch.h) through the
 * executor: the backend side (routing, packing, waiting, fallback) and
 * the executor side (reading a request, running it on the GPU or the
 * CPU, writing the answers back).  Internal to the exec_*.c files and
 * posting_rank.c.
 *
 * A ranked request is one slot of kind GPX_REQ_KIND_RANK holding a whole
 * prepared batch; the executor takes it into a batch of its own (never
 * mixed with intersections) and answers it with gpx_cuda_rank_run when it
 * has a GPU, else with gpx_rank_batch_run, on its main thread.  A GPU
 * failure reruns it on the CPU.  Every way the executor cannot answer
 * (down, arena full or too small, timeout, failure, killed) leaves the
 * backend to compute the batch itself, unless gpuidx.executor_fallback is
 * off, as for intersections (docs/EXECUTOR.md).
 */
#ifndef EXEC_RANK_H
#define EXEC_RANK_H

#include "postgres.h"

#include "gpx_rank_batch.h"

/*
 * Run b, a batch gpx_rank_batch_prepare accepted (b->doclen opened on its
 * blob), on the executor.  True: every query's results, out_count and
 * status (GPX_OK) are in b.  False: the caller computes b itself (not
 * routed, or the executor could not; an ERROR instead when
 * gpuidx.executor_fallback is off).
 */
extern bool gpuidx_exec_rank(gpx_rank_batch *b);

/* The executor's view of a ranked request it runs. */
typedef struct GpxRankRun
{
	gpx_rank_batch b;			/* queries, terms, lists: private copies;
								 * results: straight into the chunk */
	gpx_doclen	dl;
	uint64		candidates;		/* AND: shortest lists; OR: all postings */
	uint64		queries_off;	/* the queries in the chunk (checked) */
} GpxRankRun;

/* Read slot's request into rr (current memory context); a GpxReqStatus. */
extern int	gpuidx_exec_rank_build(int slot, GpxRankRun *rr);

/* Run rr on this thread with gpx_rank_batch_run (each query's status set). */
extern void gpuidx_exec_rank_cpu(GpxRankRun *rr);

/* Copy each query's out_count and status back into slot's request. */
extern void gpuidx_exec_rank_finish(int slot, const GpxRankRun *rr);

#endif							/* EXEC_RANK_H */
