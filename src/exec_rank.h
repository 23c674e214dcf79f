/*
 * exec_rank.h - ranked batches (src/codec/gpx_rank_batch.h) through the
 * executor: the backend side (routing, packing, waiting, fallback) and
 * the executor side (reading a request, running it on the GPU or the
 * CPU, writing the answers back).  Internal to the exec_*.c files and
 * posting_rank.c.
 *
 * A ranked request is one slot of kind GPX_REQ_KIND_RANK holding a whole
 * prepared batch.  The executor takes ranked requests into batches of
 * their own (never mixed with intersections), merges those that share
 * statistics and (k1, b) into one gpx_rank_batch, and answers it with
 * gpx_cuda_rank_run when it has a GPU, else with gpx_rank_batch_run on
 * its CPU threads.  A GPU failure reruns it on the CPU.  Statistics the
 * executor ran once are kept by it and named by later requests instead of
 * copied (exec_rank.c).  Every way the executor cannot answer (down,
 * arena full or too small, timeout, failure, killed) leaves the backend
 * to compute the batch itself, unless gpuidx.executor_fallback is off, as
 * for intersections (docs/EXECUTOR.md).
 */
#ifndef EXEC_RANK_H
#define EXEC_RANK_H

#include "postgres.h"

#include "exec_client.h"
#include "gpx_batch.h"
#include "gpx_rank_batch.h"

/*
 * Run b, a batch gpx_rank_batch_prepare accepted (b->doclen opened on its
 * blob), on the executor.  True: every query's results, out_count and
 * status (GPX_OK) are in b.  False: the caller computes b itself (not
 * routed, or the executor could not; an ERROR instead when
 * gpuidx.executor_fallback is off).
 */
extern bool gpuidx_exec_rank(gpx_rank_batch *b);

/*
 * The two halves of gpuidx_exec_rank, for a caller with stored lists it
 * has not read (posting_rankagg.c): whether b goes to the executor
 * (header fields of the lists suffice), then the sending, stored[l] (or
 * NULL) the stored list behind b->lists[l]: sent by key where the
 * executor's cache holds it, else read and copied.
 */
extern bool gpuidx_exec_rank_routed(const gpx_rank_batch *b);
extern bool gpuidx_exec_rank_send(gpx_rank_batch *b, GpxExecStored *const *stored);

/* The backend ranked b itself in seconds: a sample for gpuidx.device = auto. */
extern void gpuidx_exec_rank_note_backend(const gpx_rank_batch *b, double seconds);

/*
 * Candidate slots of a batch (each AND query's shortest list, each OR
 * query's lists): pure, so the GPU thread may ask too.
 */
extern uint64 gpuidx_exec_rank_candidates(const gpx_rank_batch *b);

/* The executor's GPU ran b in run_us, its requests having waited wait_us. */
extern void gpuidx_exec_rank_note_gpu(const gpx_rank_batch *b, int64 run_us,
									  int64 wait_us);

/* The executor's view of a ranked request it runs. */
typedef struct GpxRankRun
{
	gpx_rank_batch b;			/* queries, terms, lists: private copies;
								 * results: straight into the chunk */
	gpx_doclen	dl;				/* in the chunk, or the executor's copy */
	int			slot;
	uint64		candidates;		/* AND: shortest lists; OR: all postings */
	uint64		queries_off;	/* the queries in the chunk (checked) */
	uint64		scope;			/* the statistics' identity: scope, */
	uint64		dl_len;			/* length and header */
	uint8		dl_head[40];
	uint64		dl_id;			/* the held copy's id, or 0 (inline) */
} GpxRankRun;

/*
 * Read slot's request into rr (current memory context); a GpxReqStatus
 * (GPX_REQ_CACHE_MISS: it names statistics this executor does not hold).
 */
extern int	gpuidx_exec_rank_build(int slot, GpxRankRun *rr);

/* Whether two built requests may run as one batch. */
extern bool gpuidx_exec_rank_compatible(const GpxRankRun *a, const GpxRankRun *b);

/* Merge compatible requests into one batch m; false if it is refused. */
extern bool gpuidx_exec_rank_merge(GpxRankRun *const *rrs, int n, gpx_rank_batch *m);

/* Copy merged batch m's answers into the requests it was made of. */
extern void gpuidx_exec_rank_scatter(const gpx_rank_batch *m, GpxRankRun *const *rrs,
									 int n);

/*
 * One run of a ranked batch: several compatible requests merged into one
 * gpx_rank_batch (merged), or one request alone; how its GPU run went.
 */
typedef struct GpxRankGroup
{
	gpx_rank_batch *b;			/* what runs: the merged batch, or the
								 * request's own */
	GpxRankRun **members;
	int			nmembers;
	bool		merged;
	int			gpu_status;		/* gpx_cuda_status of its GPU run */
	int64		gpu_us;			/* its time there */
	char		gpu_err[256];	/* the back end's message of a failure */
} GpxRankGroup;

/* A ranked batch's requests, read, and their runs. */
typedef struct GpxRankPlan
{
	GpxRankRun *rr;				/* one per request */
	int			nrr;
	GpxRankGroup *g;			/* the runs, over the requests read well */
	int			ng;
	uint64		nqueries;		/* queries of the requests read well */
	uint64		candidates;
} GpxRankPlan;

/*
 * Read the requests of slots[0..n) (current memory context), each
 * status[i] a GpxReqStatus and nq[i] its queries (0 unless read well),
 * and group those read well: requests sharing statistics and (k1, b)
 * merged into one batch, each other request a run of its own.
 */
extern void gpuidx_exec_rank_plan(const int *slots, int n, int *status, uint32 *nq,
								  GpxRankPlan *p);

/*
 * After every run of p (its queries' answers in its batches): merged
 * runs' answers copied into their requests, each query's count and
 * status into its slot's request, and the statistics that came inline
 * kept for later requests.
 */
extern void gpuidx_exec_rank_complete(GpxRankPlan *p);

/* Run b on the CPU, over pool's threads (NULL: this thread alone). */
extern void gpuidx_exec_rank_cpu(gpx_rank_batch *b, gpx_batch_pool *pool);

/* Copy each query's out_count and status back into slot's request. */
extern void gpuidx_exec_rank_finish(int slot, const GpxRankRun *rr);

/* Keep the statistics rr brought inline, for later requests to name. */
extern void gpuidx_exec_rank_keep(const GpxRankRun *rr);

/* Release a slot's reference to held statistics (lock held). */
extern void gpuidx_exec_rank_dl_unref(int slot);

/* Forget every held statistics value (executor start and exit; lock held). */
extern void gpuidx_exec_rank_dl_clear(void);

#endif							/* EXEC_RANK_H */
