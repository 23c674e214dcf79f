/*
 * exec_worker.c - the executor: a background worker that gathers
 * intersection and union requests from every backend into batches (the PARA
 * framework of Ao et al., VLDB 2011: run a batch once the shortest lists
 * of its queries add up to gpuidx.batch_threshold postings, or once the
 * oldest request has waited gpuidx.batch_max_wait microseconds), runs them
 * on a GPU or on a persistent pool of CPU threads, and hands results back
 * through the shared arena.  A batch holds requests of one kind: the
 * oldest queued request's, and the other queued requests of that kind;
 * a ranked request is a batch of its own (exec_rank.c).  Union batches
 * run on the GPU synchronously (gpx_cuda_union_run, after the batches in
 * flight there), on the CPU threads like intersections.
 *
 * Threads: only this process's main thread calls PostgreSQL (latches,
 * locks, elog).  The pool's helper threads see nothing but the gpx_batch
 * descriptor, and they are idle whenever the main thread can raise an
 * error or exit, so no thread ever writes into the arena after the
 * executor has let go of a request.
 *
 * Life cycle: on start the executor takes over from any previous
 * incarnation (requests it left RUNNING are queued again, ABANDONED ones
 * freed), opens its device, then loops.  On exit (SIGTERM, an error, the
 * postmaster going away) its before_shmem_exit callback requeues what it
 * was running, marks itself STOPPED and wakes every waiting backend, which
 * then computes its answer itself.  It exits with status 1, so the
 * postmaster starts it again after a second.
 */
#include "postgres.h"

#include <unistd.h>

#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/proc.h"
#include "tcop/tcopprot.h"
#include "utils/guc.h"
#include "utils/memutils.h"

#include "exec_cache.h"
#include "exec_cost.h"
#include "exec_gputhread.h"
#include "exec_prof.h"
#include "exec_rank.h"
#include "gpx_rank_merge.h"
#include "exec_shmem.h"
#include "gpuidx.h"
#include "gpx_cuda.h"
#include "gpx_cuda_rank.h"
#include "gpx_cuda_union.h"

/*
 * One request taken into a batch, indexed by its slot (a slot belongs to
 * at most one batch in flight); a batch's requests are linked through
 * next in the order they were taken.
 */
typedef struct ExecTaken
{
	uint64		generation;
	uint64		batch_id;		/* the batch that holds it */
	uint32		first_query;	/* its queries in the batch arrays */
	uint32		first_list;
	uint32		nqueries;		/* copied: the owner may free the slot */
	int32		status;			/* GpxReqStatus */
	int32		next;			/* next request of the batch, or -1 */
} ExecTaken;

/* Where a batch in flight runs. */
typedef enum ExecWhere
{
	EXEC_ON_CPU = 0,			/* the CPU pool (fl->cpu_job) */
	EXEC_ON_GPU					/* the CUDA back end (fl->gpu_job) */
} ExecWhere;

/*
 * A batch in flight: taken, built, handed to a device, not finished yet
 * (its requests RUNNING or ABANDONED, its results not handed back).  Up
 * to gpuidx.pipeline_depth are in flight at once, so that the next
 * batch's host work (take, build, plan, issue) overlaps the kernels and
 * copies of the ones before it.
 */
typedef struct ExecFlight
{
	bool		used;
	uint64		id;				/* batch id (ctl->batches_total) */
	int32		head;			/* its first request (ex.tk), -1: none */
	int			ntaken;
	uint64		postings;		/* shortest-list postings of its requests */
	uint64		work;			/* the cost model's work W */
	uint64		nqueries;
	int64		wait_us;		/* its requests' waits to be taken, summed */
	ExecWhere	where;
	bool		rerun;			/* on the CPU threads after the GPU failed */
	uint32		kind;			/* its requests' GPX_REQ_KIND_* */
	bool		rank;			/* ranked requests (exec_rank.c) */
	instr_time	t0;				/* handed to the device */
	MemoryContext cxt;			/* its descriptors */
	gpx_batch	b;
	gpx_batch_job cpu_job;
	gpx_cuda_job gpu_job;
	GpxRankPlan rank_plan;		/* a ranked batch's runs (fl->rank) */
	GpxGtTask	rank_task;		/* their GPU runs, posted to the GPU thread
								 * (while a ranked flight is EXEC_ON_GPU) */
	struct ExecRankTk *rank_tk; /* [rank_plan.ng]: the runs started side by
								 * side (gpuidx.rank_streams > 1), or NULL */
} ExecFlight;

/*
 * A ranked run started on one of the GPU's rank streams (written by the
 * GPU thread only, from the start of its flight's task until its end).
 */
typedef struct ExecRankTk
{
	gpx_cuda_rank_ticket tk;
	bool		started;
	bool		noted;			/* its end noted in its group */
	instr_time	t0;				/* started */
} ExecRankTk;

/* Private state of the executor process. */
static struct
{
	uint64		gen;			/* this incarnation */
	gpx_batch_pool *pool;
	int			pool_threads;
	gpx_cuda_ctx *cuda;
	GpxGpuThread *gt;			/* the GPU thread (gpuidx.gpu_thread), or
								 * NULL: this thread calls the back end */
	int			device;			/* gpuidx.device the device was opened for */
	int			depth;			/* gpuidx.pipeline_depth it was opened for */
	bool		graphs;			/* gpuidx.gpu_graphs it was opened for */
	bool		gpu_thread;		/* gpuidx.gpu_thread it was opened for */
	int			rank_streams;	/* gpuidx.rank_streams it was opened for */
	ExecTaken  *tk;				/* [nslots], by slot */
	ExecFlight	flights[GPX_EXEC_MAX_DEPTH];
	int			nflight;		/* batches in flight */
	WaitEventSet *wes;			/* latch, postmaster death, pool's notify */
	int			wes_fd;			/* the notify descriptor in wes */
	int			cost_dev;		/* the cost model's device: 1 GPU, 0 CPU,
								 * -1 none yet */
	TimestampTz hold_until;		/* fault 'hold': take no batch before */
	TimestampTz last_reap;
	TimestampTz last_oid_sample;	/* gpuidx_exec_oid_position's last call */
	TimestampTz cpu_sampled;	/* exec_sample_cpu's last interval's start */
	int64		cpu_ns;			/* this process's CPU time then */
	uint64		cpu_queries;	/* queries finished since */
	int			fault;			/* fault error or stall for the next batch */
	int			fault_ms;
} ex;

/* --------------------------------------------------------- device -- */

/* Number of CPU threads for the pool. */
static int
exec_thread_count(void)
{
	long		n = gpuidx_exec_threads;

	if (n <= 0)
		n = sysconf(_SC_NPROCESSORS_ONLN);
	if (n < 1)
		n = 1;
	if (n > GPX_BATCH_MAX_THREADS)
		n = GPX_BATCH_MAX_THREADS;
	return (int) n;
}

/*
 * The CUDA back end is called either here or, with gpuidx.gpu_thread on,
 * only by the GPU thread (exec_gputhread.c) while it runs: the helpers
 * below hide which.
 */

/* Start the GPU thread for ex.cuda if the setting asks for one. */
static void
exec_gpu_thread_start(void)
{
	Assert(ex.gt == NULL);
	if (ex.cuda == NULL || !ex.gpu_thread)
		return;
	/* it polls for gpuidx.spin_wait after its last work, at least 1 ms, so
	 * that a client's next query (a few hundred us later) finds it awake */
	ex.gt = gpuidx_exec_gt_start(ex.cuda, GPX_EXEC_MAX_DEPTH,
								 Max(gpuidx_exec_spin_us, 1000));
	if (ex.gt == NULL)
		ereport(LOG,
				(errmsg("gpuidx executor could not start its gpu thread"),
				 errdetail("Its main thread calls the gpu back end itself.")));
}

/*
 * Stop the GPU thread: what it runs is cancelled and handed back (with no
 * batch in flight, nothing is); the back end is this thread's again.
 */
static void
exec_gpu_thread_stop(void)
{
	gpuidx_exec_gt_stop(ex.gt, NULL, NULL);
	ex.gt = NULL;
}

/* Queue fl's batch on the GPU; false (rc says why) when it was refused. */
static bool
exec_gpu_submit(ExecFlight *fl, gpx_cuda_status *rc)
{
	fl->gpu_job.user = fl;
	if (ex.gt != NULL)
	{
		fl->gpu_job.b = &fl->b;
		gpuidx_exec_gt_submit(ex.gt, &fl->gpu_job);
		*rc = GPX_CUDA_OK;		/* a refusal comes back as a failed job */
		return true;
	}
	*rc = gpx_cuda_submit(ex.cuda, &fl->b, &fl->gpu_job);
	return *rc == GPX_CUDA_OK;
}

/* A GPU job that finished, or NULL; wait: until one does (one must be
 * pending). */
static gpx_cuda_job *
exec_gpu_reap(bool wait)
{
	gpx_cuda_job *job;

	if (ex.gt == NULL)
		return gpx_cuda_reap(ex.cuda, wait);
	while ((job = gpuidx_exec_gt_reap(ex.gt)) == NULL && wait)
		pg_spin_delay();
	return job;
}

/* A synchronous call into the back end, on the GPU thread when there is one. */
typedef struct ExecGpuCall
{
	int			(*fn) (gpx_cuda_ctx *ctx, void *arg);
	void	   *arg;
	char		err[256];		/* the back end's message of a failure */
} ExecGpuCall;

/* Run an ExecGpuCall on the context it is given; keeps its message. */
static int
exec_gpu_call_run(gpx_cuda_ctx *ctx, void *arg)
{
	ExecGpuCall *c = arg;
	int			rc = c->fn(ctx, c->arg);

	if (rc != GPX_CUDA_OK)
		strlcpy(c->err, gpx_cuda_last_error(ctx), sizeof(c->err));
	return rc;
}

/*
 * fn(ex.cuda, arg), here or on the GPU thread (after what was submitted
 * before it); err, when given, receives the message of a failure.
 */
static int
exec_gpu_call(int (*fn) (gpx_cuda_ctx *ctx, void *arg), void *arg,
			  char *err, size_t errlen)
{
	ExecGpuCall c;
	int			rc;

	c.fn = fn;
	c.arg = arg;
	c.err[0] = '\0';
	rc = ex.gt != NULL ? gpuidx_exec_gt_call(ex.gt, exec_gpu_call_run, &c)
		: exec_gpu_call_run(ex.cuda, &c);
	if (err != NULL)
		strlcpy(err, c.err, errlen);
	return rc;
}

/* What exec_gpu_describe asks of the back end. */
typedef struct ExecDescribe
{
	char	   *buf;
	size_t		len;
} ExecDescribe;

/* gpx_cuda_describe as an ExecGpuCall function. */
static int
exec_gpu_describe_fn(gpx_cuda_ctx *ctx, void *arg)
{
	ExecDescribe *d = arg;

	gpx_cuda_describe(ctx, d->buf, d->len);
	return GPX_CUDA_OK;
}

/* The back end's one-line description into buf. */
static void
exec_gpu_describe(char *buf, size_t len)
{
	ExecDescribe d = {buf, len};

	(void) exec_gpu_call(exec_gpu_describe_fn, &d, NULL, 0);
}

/* Publish what runs batches (and why not a GPU) in shared memory. */
static void
exec_publish_device(const char *desc, const char *note)
{
	GpxExecShared *ctl = gpuidx_exec_shm->ctl;

	LWLockAcquire(ctl->lock, LW_EXCLUSIVE);
	strlcpy(ctl->device_desc, desc, sizeof(ctl->device_desc));
	strlcpy(ctl->device_note, note, sizeof(ctl->device_note));
	ctl->exec_threads = ex.pool_threads;
	ctl->exec_gpu = ex.cuda != NULL;
	LWLockRelease(ctl->lock);
}

/*
 * Refresh the published GPU description (cache use, hit rate, batch
 * counts), at most once a second, so gpuidx_info() shows current figures.
 */
static void
exec_refresh_gpu_desc(void)
{
	static TimestampTz last = 0;
	TimestampTz now = GetCurrentTimestamp();
	GpxExecShared *ctl = gpuidx_exec_shm->ctl;
	char		d[GPX_DEVICE_DESC_LEN - 8];
	char		desc[GPX_DEVICE_DESC_LEN];

	if (ex.cuda == NULL || !TimestampDifferenceExceeds(last, now, 1000))
		return;
	last = now;
	exec_gpu_describe(d, sizeof(d));
	snprintf(desc, sizeof(desc), "gpu: %s", d);
	LWLockAcquire(ctl->lock, LW_EXCLUSIVE);
	strlcpy(ctl->device_desc, desc, sizeof(ctl->device_desc));
	LWLockRelease(ctl->lock);
}

/*
 * Open what gpuidx.device asks for: the CPU pool always (it is also the
 * fallback), a GPU for auto and gpu, with a chunk slot per batch that
 * gpuidx.pipeline_depth lets be in flight plus one.  Only this process
 * ever initialises CUDA.  Called at start and after a configuration
 * reload, with no batch in flight.
 */
static void
exec_open_device(void)
{
	char		desc[GPX_DEVICE_DESC_LEN],
				note[256] = "";
	int			want = exec_thread_count();

	Assert(ex.nflight == 0);
	if (ex.pool == NULL || ex.pool_threads != want)
	{
		gpx_batch_pool *p = NULL;

		if (gpx_batch_pool_create(want, &p) != GPX_OK)
		{
			/* fewer threads are better than none */
			want = 1;
			if (gpx_batch_pool_create(1, &p) != GPX_OK)
				ereport(ERROR,
						(errcode(ERRCODE_OUT_OF_MEMORY),
						 errmsg("gpuidx executor could not start its cpu threads")));
		}
		gpx_batch_pool_destroy(ex.pool);
		ex.pool = p;
		ex.pool_threads = want;
	}

	/* the GPU's slots and graphs follow the pipeline's settings; its
	 * thread is started anew with the context */
	exec_gpu_thread_stop();
	if (ex.cuda != NULL &&
		(gpuidx_exec_device == GPX_DEVICE_CPU ||
		 ex.depth != gpuidx_exec_pipeline_depth ||
		 ex.graphs != gpuidx_exec_gpu_graphs))
	{
		gpx_cuda_close(ex.cuda);
		ex.cuda = NULL;
	}
	ex.depth = gpuidx_exec_pipeline_depth;
	ex.graphs = gpuidx_exec_gpu_graphs;
	ex.gpu_thread = gpuidx_exec_gpu_thread;
	ex.rank_streams = gpuidx_exec_rank_streams;
	if (gpuidx_exec_device == GPX_DEVICE_CPU)
		strlcpy(note, "gpuidx.device is cpu", sizeof(note));
	else if (ex.cuda == NULL)
	{
		gpx_cuda_options opt;
		char		err[200] = "";
		gpx_cuda_status st;
		int			gpus[GPX_EXEC_MAX_GPUS];
		int			ngpus = gpuidx_exec_parse_gpus(gpuidx_exec_gpus ? gpuidx_exec_gpus : "0",
												   gpus, GPX_EXEC_MAX_GPUS);

		memset(&opt, 0, sizeof(opt));
		if (ngpus > 0)
		{
			opt.devices = gpus;
			opt.ndevices = ngpus;
		}
		opt.cache_bytes = gpuidx_exec_shm->ctl->cache_budget;
		opt.batch_bytes = gpuidx_exec_shm->ctl->arena_size;
		opt.no_timing = true;	/* nothing here reads the GPU's own timings */
		/* a slot per batch in flight, and one to build the next in */
		opt.slots = Min(ex.depth + 1, GPX_CUDA_MAX_SLOTS);
		opt.graphs = ex.graphs;
		st = gpx_cuda_open(&opt, &ex.cuda, err, sizeof(err));
		if (st != GPX_CUDA_OK)
		{
			ex.cuda = NULL;
			snprintf(note, sizeof(note), "no gpu: %s",
					 err[0] ? err : gpx_cuda_status_str(st));
			if (gpuidx_exec_device == GPX_DEVICE_GPU)
				ereport(LOG,
						(errmsg("gpuidx executor runs batches on cpu threads"),
						 errdetail("gpuidx.device is gpu, but %s.", note)));
		}
		else
		{
			(void) gpx_cuda_pin(ex.cuda, gpuidx_exec_shm->arena,
								gpuidx_exec_shm->ctl->arena_size);
		}
	}
	ex.device = gpuidx_exec_device;

	if (ex.cuda != NULL)
	{
		char		d[GPX_DEVICE_DESC_LEN - 8];

		gpx_cuda_describe(ex.cuda, d, sizeof(d));
		snprintf(desc, sizeof(desc), "gpu: %s", d);
		gpx_cuda_rank_streams(ex.cuda, ex.rank_streams);
		exec_gpu_thread_start();
	}
	else
		snprintf(desc, sizeof(desc), "cpu: %d thread%s", ex.pool_threads,
				 ex.pool_threads == 1 ? "" : "s");
	exec_publish_device(desc, note);
	/* the batch-time fit is per device: a new one starts from its guesses */
	if (ex.cost_dev != (ex.cuda != NULL))
	{
		ex.cost_dev = ex.cuda != NULL;
		gpuidx_exec_cost_device_opened(ex.cuda != NULL);
	}
}

/* Release the device and the threads (exit path). */
static void
exec_close_device(void)
{
	exec_gpu_thread_stop();
	if (ex.cuda != NULL)
		gpx_cuda_close(ex.cuda);
	ex.cuda = NULL;
	gpx_batch_pool_destroy(ex.pool);
	ex.pool = NULL;
}

/* ------------------------------------------------------- takeover -- */

/*
 * Take over the shared state: requeue what an earlier incarnation left
 * RUNNING, free what it left ABANDONED, drop its cache.  Lock held.
 */
static void
exec_recover_slots(uint64 older_than_or_mine, bool exiting)
{
	GpxExecShared *ctl = gpuidx_exec_shm->ctl;

	for (int i = 0; i < ctl->nslots; i++)
	{
		GpxExecSlot *sl = &gpuidx_exec_shm->slots[i];

		if (exiting ? sl->exec_gen != older_than_or_mine
			: sl->exec_gen >= older_than_or_mine)
			continue;
		/*
		 * Stable under the lock: only this process takes, finishes or
		 * frees slots of its batches, and an owner gives one up (RUNNING
		 * to ABANDONED) only under the lock.
		 */
		if (sl->state == GPX_SLOT_ABANDONED)
			gpuidx_exec_slot_free(i);
		else if (sl->state == GPX_SLOT_RUNNING)
		{
			gpuidx_exec_qlock();
			if (sl->requeues >= 1)
			{
				/* it failed the executor twice: give it back */
				sl->status = GPX_REQ_FAILED;
				gpuidx_exec_slot_set_state(i, GPX_SLOT_DONE);
			}
			else
			{
				sl->requeues++;
				gpuidx_exec_queue_push_front(i);
			}
			gpuidx_exec_qunlock();
			gpuidx_exec_wake_proc(sl->owner_procno);
		}
	}
}

/*
 * Stop every batch in flight where it runs: the CPU pool hands out no
 * more queries and finishes the running ones, the GPUs finish what they
 * run and issue nothing more.  Afterwards no thread and no device writes
 * into the arena, so the requests can be handed back (exit path).
 */
static void
exec_quiesce(void)
{
	gpx_batch_pool_cancel(ex.pool);
	exec_gpu_thread_stop();		/* it cancels what it runs, and ends */
	gpx_cuda_cancel(ex.cuda);
}

/* Wake the owners of every queued request. */
static void
exec_wake_queued(void)
{
	int			nslots = gpuidx_exec_shm->ctl->nslots;
	int		   *procs = MemoryContextAlloc(TopMemoryContext, sizeof(int) * Max(nslots, 1));
	int			n = gpuidx_exec_queue_owners(procs, nslots);

	for (int k = 0; k < n; k++)
		gpuidx_exec_wake_proc(procs[k]);
	pfree(procs);
}

/*
 * before_shmem_exit callback: stop the batches in flight, hand every
 * request back (RUNNING ones requeued once), wake the waiters.
 */
static void
exec_on_exit(int code, Datum arg)
{
	GpxExecShared *ctl = gpuidx_exec_shm->ctl;

	LWLockReleaseAll();
	exec_quiesce();
	LWLockAcquire(ctl->lock, LW_EXCLUSIVE);
	exec_recover_slots(ex.gen, true);
	if (ctl->exec_pid == MyProcPid)
	{
		/* under the queue lock too: a backend queues only while RUNNING */
		gpuidx_exec_qlock();
		ctl->exec_state = GPX_EXEC_STOPPED;
		gpuidx_exec_qunlock();
		ctl->exec_pid = 0;
		ctl->exec_procno = -1;
		ctl->exec_gpu = false;
		ctl->exec_in_flight = 0;
		strlcpy(ctl->device_desc, "none", sizeof(ctl->device_desc));
	}
	gpuidx_exec_cache_clear();
	gpuidx_exec_rank_dl_clear();
	LWLockRelease(ctl->lock);
	/* queued requests are now the backends' to compute */
	exec_wake_queued();
	exec_close_device();
}

/* Become the executor: incarnation number, takeover, state STARTING. */
static void
exec_startup(void)
{
	GpxExecShared *ctl = gpuidx_exec_shm->ctl;

	LWLockAcquire(ctl->lock, LW_EXCLUSIVE);
	ex.gen = ++ctl->exec_gen;
	exec_recover_slots(ex.gen, false);
	gpuidx_exec_cache_clear();
	gpuidx_exec_rank_dl_clear();
	ctl->exec_pid = MyProcPid;
	ctl->exec_procno = MyProc->pgprocno;
	ctl->exec_state = GPX_EXEC_STARTING;
	ctl->exec_starts++;
	ctl->exec_started = GetCurrentTimestamp();
	ctl->fault = GPX_FAULT_NONE;
	LWLockRelease(ctl->lock);

	ex.tk = MemoryContextAllocZero(TopMemoryContext, sizeof(ExecTaken) * ctl->nslots);
	for (int f = 0; f < GPX_EXEC_MAX_DEPTH; f++)
		ex.flights[f].cxt = AllocSetContextCreate(TopMemoryContext, "gpuidx executor batch",
												  ALLOCSET_DEFAULT_SIZES);
	ex.wes_fd = -1;
	ex.cost_dev = -1;
}

/*
 * Free the slots of backends that exited without doing so, and release
 * their read pins of cached lists (backstop).
 */
static void
exec_reap_orphans(void)
{
	GpxExecShared *ctl = gpuidx_exec_shm->ctl;

	LWLockAcquire(ctl->lock, LW_EXCLUSIVE);
	for (int i = 0; i < ctl->nslots; i++)
	{
		GpxExecSlot *sl = &gpuidx_exec_shm->slots[i];
		int			procno = sl->owner_procno;

		if (sl->state != GPX_SLOT_FILLING && sl->state != GPX_SLOT_QUEUED &&
			sl->state != GPX_SLOT_DONE)
			continue;
		if (procno < 0 || (uint32) procno >= ProcGlobal->allProcCount ||
			ProcGlobal->allProcs[procno].pid != sl->owner_pid)
			gpuidx_exec_slot_free(i);
	}
	gpuidx_exec_cache_reap_readers();
	LWLockRelease(ctl->lock);
}

/* ---------------------------------------------------------- batch -- */

/*
 * Whether every backend with a request in flight is blocked waiting for
 * it: then no request can join the batch, and waiting longer only adds
 * latency (one client, or all clients of a moment served).
 */
static bool
exec_nothing_more_comes(void)
{
	GpxExecShared *ctl = gpuidx_exec_shm->ctl;
	uint32		inflight = pg_atomic_read_u32(&ctl->clients_inflight);

	return inflight > 0 && pg_atomic_read_u32(&ctl->clients_waiting) >= inflight;
}

/* A free flight (one always is when ex.nflight < depth). */
static ExecFlight *
exec_flight_free(void)
{
	for (int f = 0; f < GPX_EXEC_MAX_DEPTH; f++)
		if (!ex.flights[f].used)
			return &ex.flights[f];
	elog(ERROR, "gpuidx executor: no free batch in flight");
	return NULL;				/* keep the compiler quiet */
}

static bool exec_rank_async(void);
static bool exec_rank_side_by_side(void);

/*
 * Whether the queue's head is a ranked request (lock held, or an unlocked
 * peek whose stale answer costs a batch taken early or late).
 */
static bool
exec_head_ranked(void)
{
	volatile GpxExecShared *ctl = gpuidx_exec_shm->ctl;
	int32		head = ctl->queue_head;

	return head >= 0 && head < (int32) ctl->nslots &&
		gpuidx_exec_shm->slots[head].kind == GPX_REQ_KIND_RANK;
}

/*
 * Whether the queue's head is a ranked request that is due at once: the
 * GPU thread runs the ranked batches queued behind a running one merged
 * (gpuidx.rank_merge), so a ranked request waits there for the GPU, not
 * here for its batch to fill.
 */
static bool
exec_rank_due_now(void)
{
	return gpuidx_exec_rank_merge_on && exec_rank_async() && exec_head_ranked();
}

/*
 * Keep the count of OID wraparounds (gpuidx_exec_oid_position): a sample
 * every 100 ms at most, so that samples stay far less than
 * GPX_EXEC_OID_MAX_GAP_US apart while the executor runs (it comes here at
 * least once a second) without a spinlock round every batch.
 */
static void
exec_sample_oids(TimestampTz now)
{
	uint32		epoch;

	if (now >= ex.last_oid_sample && now - ex.last_oid_sample < 100 * 1000)
		return;
	(void) gpuidx_exec_oid_position(&epoch);
	ex.last_oid_sample = now;
}

/*
 * At most every 100 ms: the executor's CPU time over the last interval,
 * per query finished in it, for auto's model of a host with no free core.
 */
static void
exec_sample_cpu(TimestampTz now)
{
	int64		cpu;

	if (now >= ex.cpu_sampled && now - ex.cpu_sampled < 100 * 1000)
		return;
	cpu = gpuidx_exec_process_cpu_ns();
	if (ex.cpu_sampled != 0)
		gpuidx_exec_cost_note_exec_cpu(ex.cpu_queries, cpu - ex.cpu_ns);
	ex.cpu_sampled = now;
	ex.cpu_ns = cpu;
	ex.cpu_queries = 0;
}

/*
 * Take a batch into fl if one is due: the queued shortest lists reach the
 * threshold, the oldest request has waited long enough, or nothing more
 * can come (every backend with a request in flight waits for it; those
 * whose requests are in a batch in flight count as waiting, so while the
 * device works on one batch the next is taken as soon as every other
 * backend has queued).  Returns the number of requests taken (marked
 * RUNNING, linked from fl->head); otherwise *sleep_us says how long the
 * oldest may still wait (-1: queue empty).
 */
static int
exec_take_batch(ExecFlight *fl, int64 *sleep_us, int *fault, int *fault_ms)
{
	GpxExecShared *ctl = gpuidx_exec_shm->ctl;
	uint64		threshold = (uint64) gpuidx_exec_batch_threshold;
	TimestampTz now = GetCurrentTimestamp();
	uint64		work = 0;
	int64		waited;
	int			ntaken = 0;
	int32		tail = -1;
	bool		rank;

	*sleep_us = -1;
	exec_sample_oids(now);
	exec_sample_cpu(now);
	if (((volatile GpxExecShared *) ctl)->fault == GPX_FAULT_ERROR ||
		((volatile GpxExecShared *) ctl)->fault == GPX_FAULT_STALL)
	{
		/* tests: the fault strikes at the next batch */
		LWLockAcquire(ctl->lock, LW_EXCLUSIVE);
		if (ctl->fault == GPX_FAULT_ERROR || ctl->fault == GPX_FAULT_STALL)
		{
			ex.fault = ctl->fault;
			ex.fault_ms = ctl->fault_ms;
			ctl->fault = GPX_FAULT_NONE;
		}
		LWLockRelease(ctl->lock);
	}

	/* the queue lock alone: the backends' LWLock traffic never holds us up */
	gpuidx_exec_qlock();
	if (ctl->queue_head < 0)
	{
		gpuidx_exec_qunlock();
		return 0;
	}
	waited = now - gpuidx_exec_shm->slots[ctl->queue_head].queued_at;
	if (ctl->queued_work < threshold && waited < gpuidx_exec_batch_max_wait &&
		!exec_nothing_more_comes() && !exec_rank_due_now())
	{
		*sleep_us = gpuidx_exec_batch_max_wait - waited;
		gpuidx_exec_qunlock();
		return 0;
	}
	fl->id = ++ctl->batches_total;
	fl->head = -1;
	fl->wait_us = 0;
	fl->kind = gpuidx_exec_shm->slots[ctl->queue_head].kind;
	rank = fl->kind == GPX_REQ_KIND_RANK;
	/* ranked requests: every one queued, up to a bound */
	for (int i = ctl->queue_head, next;
		 i >= 0 && (ntaken == 0 || (rank ? ntaken < GPX_EXEC_RANK_TAKE : work < threshold));
		 i = next)
	{
		GpxExecSlot *sl = &gpuidx_exec_shm->slots[i];
		ExecTaken  *t = &ex.tk[i];

		/* one kind a batch: the others stay queued, in their order */
		next = sl->next;
		if (sl->kind != fl->kind)
			continue;
		gpuidx_exec_queue_remove(i);
		sl->batch_id = fl->id;
		gpuidx_exec_slot_set_state(i, GPX_SLOT_RUNNING);
		sl->exec_gen = ex.gen;
		sl->wait_us = now - sl->queued_at;
		fl->wait_us += sl->wait_us;
		t->generation = sl->generation;
		t->batch_id = fl->id;
		t->status = GPX_REQ_OK;
		t->nqueries = 0;
		t->next = -1;
		if (tail >= 0)
			ex.tk[tail].next = i;
		else
			fl->head = i;
		tail = i;
		ntaken++;
		work += sl->work;
	}
	gpuidx_exec_qunlock();
	if (ex.fault != GPX_FAULT_NONE)
	{
		*fault = ex.fault;
		*fault_ms = ex.fault_ms;
		ex.fault = GPX_FAULT_NONE;
	}
	fl->ntaken = ntaken;
	return ntaken;
}

/* Whether a request's geometry fits its chunk (owner-written data). */
static bool
exec_request_sane(const GpxExecSlot *sl)
{
	uint64		qbytes = (uint64) sl->nqueries * sizeof(gpx_batch_query);
	uint64		lbytes = (uint64) sl->nlists * sizeof(GpxReqList);

	return sl->nqueries > 0 && sl->nlists > 0 &&
		sl->lists_off >= qbytes && sl->lists_off % 8 == 0 &&
		sl->out_off >= sl->lists_off + lbytes && sl->out_off % 4 == 0 &&
		sl->out_off + sl->out_words * 4 <= sl->chunk_len &&
		sl->chunk_off + sl->chunk_len <= gpuidx_exec_shm->ctl->arena_size;
}

/*
 * Build fl's gpx_batch from its requests, in fl->cxt: queries with
 * absolute output offsets into the arena, lists opened in place (inline)
 * or found in the cache (by key); a union batch (op GPX_BATCH_UNION)
 * keeps each query's GPX_BQ_COUNT flag.  Malformed queries get nlists = 0
 * (the back end then reports GPX_E_ARG for them).  Sets fl->work (W for
 * the model: a union's is its postings), fl->postings and fl->nqueries.
 */
static void
exec_build_batch(ExecFlight *fl)
{
	uint32		nq = 0,
				nl = 0;
	gpx_batch_query *bq;
	gpx_batch_list *bl;
	bool	   *bad;
	uint64		work = 0;

	fl->postings = 0;
	fl->nqueries = 0;
	for (int i = fl->head; i >= 0; i = ex.tk[i].next)
	{
		GpxExecSlot *sl = &gpuidx_exec_shm->slots[i];
		ExecTaken  *t = &ex.tk[i];

		Assert(t->batch_id == fl->id && sl->batch_id == fl->id);
		if (!exec_request_sane(sl))
		{
			t->status = GPX_REQ_BAD;
			continue;
		}
		t->first_query = nq;
		t->first_list = nl;
		t->nqueries = sl->nqueries;
		nq += sl->nqueries;
		nl += sl->nlists;
		fl->postings += sl->work;
	}
	bq = palloc0(sizeof(gpx_batch_query) * Max(nq, 1));
	bl = palloc0(sizeof(gpx_batch_list) * Max(nl, 1));
	bad = palloc0(sizeof(bool) * Max(nl, 1));

	/*
	 * lists, without the lock: a list sent by key lies where the
	 * request's pin holds it (gpuidx_exec_cache_pinned), checked like an
	 * inline one
	 */
	for (int i = fl->head; i >= 0; i = ex.tk[i].next)
	{
		GpxExecSlot *sl = &gpuidx_exec_shm->slots[i];
		ExecTaken  *t = &ex.tk[i];
		char	   *chunk = gpuidx_exec_chunk(i);
		GpxReqList *rl = (GpxReqList *) (chunk + sl->lists_off);

		if (t->status != GPX_REQ_OK)
			continue;
		for (uint32 j = 0; j < sl->nlists; j++)
		{
			uint32		L = t->first_list + j;
			const uint8 *blob = NULL;

			if (rl[j].flags & GPX_REQ_INLINE)
			{
				if (rl[j].off >= sl->lists_off + sizeof(GpxReqList) * sl->nlists &&
					rl[j].off + rl[j].len <= sl->out_off)
					blob = (const uint8 *) chunk + rl[j].off;
			}
			else if (rl[j].flags & GPX_REQ_BY_KEY)
			{
				/* the request's pin keeps the copy until the slot is freed */
				blob = gpuidx_exec_cache_pinned(&rl[j], sl->cache_epoch);
				if (blob == NULL)
					t->status = GPX_REQ_CACHE_MISS;
			}

			if (blob == NULL ||
				gpx_open(&bl[L].list, blob, rl[j].len) != GPX_OK ||
				bl[L].list.n != rl[j].n || bl[L].list.first != rl[j].first ||
				bl[L].list.last != rl[j].last)
			{
				bad[L] = true;
				memset(&bl[L].list, 0, sizeof(gpx_list));
			}
			bl[L].key = rl[j].key;
		}
	}

	/* queries */
	for (int i = fl->head; i >= 0; i = ex.tk[i].next)
	{
		GpxExecSlot *sl = &gpuidx_exec_shm->slots[i];
		ExecTaken  *t = &ex.tk[i];
		gpx_batch_query *rq = (gpx_batch_query *) gpuidx_exec_chunk(i);
		uint64		out_base = (sl->chunk_off + sl->out_off) / 4;

		if (t->status != GPX_REQ_OK)
			continue;
		fl->nqueries += t->nqueries;
		for (uint32 q = 0; q < sl->nqueries; q++)
		{
			gpx_batch_query *d = &bq[t->first_query + q];
			bool		ok = rq[q].nlists > 0 &&
				(uint64) rq[q].first_list + rq[q].nlists <= sl->nlists &&
				rq[q].out_offset <= sl->out_words &&
				rq[q].out_capacity <= sl->out_words - rq[q].out_offset;
			uint32		nmin = UINT32_MAX;
			uint64		total = 0;

			d->first_list = t->first_list + rq[q].first_list;
			d->nlists = rq[q].nlists;
			d->out_offset = out_base + rq[q].out_offset;
			d->out_capacity = rq[q].out_capacity;
			d->status = -1;
			d->flags = fl->kind == GPX_REQ_KIND_UNION ? (rq[q].flags & GPX_BQ_COUNT) : 0;
			for (uint32 j = 0; ok && j < d->nlists; j++)
			{
				ok = !bad[d->first_list + j];
				nmin = Min(nmin, bl[d->first_list + j].list.n);
				total += bl[d->first_list + j].list.n;
			}
			if (!ok)
			{
				d->nlists = 0;	/* reported as GPX_E_ARG */
				d->first_list = 0;
				d->out_capacity = 0;
				d->out_offset = 0;
			}
			else if (fl->kind == GPX_REQ_KIND_UNION)
				work += total;
			else
				work += gpuidx_exec_query_work(nmin, (int) d->nlists);
		}
	}

	fl->b.op = fl->kind == GPX_REQ_KIND_UNION ? GPX_BATCH_UNION : GPX_BATCH_INTERSECT;
	fl->b.nqueries = nq;
	fl->b.nlists = nl;
	fl->b.queries = bq;
	fl->b.lists = bl;
	fl->b.out = (uint32 *) gpuidx_exec_shm->arena;
	fl->b.out_words = gpuidx_exec_shm->ctl->arena_size / 4;
	fl->work = work;
}

/* Keep copies of the cacheable lists that came inline in fl's requests. */
static void
exec_cache_batch_lists(ExecFlight *fl)
{
	for (int i = fl->head; i >= 0; i = ex.tk[i].next)
		if (ex.tk[i].status == GPX_REQ_OK)
			gpuidx_exec_cache_keep(i);
}

/*
 * Count a finished batch served to nowners distinct backends in the
 * executor's statistics.
 */
static void
exec_count_batch(const ExecFlight *fl, int64 run_us, int nowners)
{
	GpxExecShared *ctl = gpuidx_exec_shm->ctl;

	gpuidx_exec_count(&ctl->stats.requests, fl->ntaken);
	gpuidx_exec_count(&ctl->stats.queries, fl->nqueries);
	if (fl->kind == GPX_REQ_KIND_UNION)
		gpuidx_exec_count(&ctl->stats.union_queries, fl->nqueries);
	gpuidx_exec_count(&ctl->stats.batches, 1);
	gpuidx_exec_count(&ctl->stats.batch_postings, fl->postings);
	gpuidx_exec_count(&ctl->stats.batch_requests, fl->ntaken);
	gpuidx_exec_count(&ctl->stats.executor_us, run_us);
	if (nowners >= 2)
		gpuidx_exec_count(&ctl->stats.multi_backend_batches, 1);
	gpuidx_exec_count_max(&ctl->stats.max_batch_backends, nowners);
}

/*
 * Hand fl's results back: copy each query's count and status into its
 * request, count the batch (before any owner can see its answer, so that
 * a session reading gpuidx_stats after its statement finds it there),
 * mark the requests DONE and wake their owners; requests whose owner gave
 * up are freed here.  DONE is set under the queue lock alone (the lock
 * only when some request was given up), so that a batch's end never
 * waits behind the backends' LWLock traffic.
 */
static void
exec_finish_batch(ExecFlight *fl, int64 run_us)
{
	GpxExecShared *ctl = gpuidx_exec_shm->ctl;
	int			nowners = 0,
				nabandoned = 0;
	int		   *owners = palloc(sizeof(int) * Max(fl->ntaken, 1));
	int		   *abandoned = palloc(sizeof(int) * Max(fl->ntaken, 1));
	int64		done_ns = gpuidx_exec_now_ns();

	for (int i = fl->head; i >= 0; i = ex.tk[i].next)
	{
		GpxExecSlot *sl = &gpuidx_exec_shm->slots[i];
		ExecTaken  *t = &ex.tk[i];
		gpx_batch_query *rq = (gpx_batch_query *) gpuidx_exec_chunk(i);
		bool		seen = false;

		/* we own RUNNING slots: nobody reused this one meanwhile */
		Assert(sl->generation == t->generation && sl->batch_id == fl->id);

		/*
		 * The distinct owners (an unlocked look: a request given up now
		 * costs its owner a needless wake-up).  The slot is RUNNING or
		 * ABANDONED: only we may touch its chunk; a ranked request's
		 * answers are written by exec_run_rank.
		 */
		for (int o = 0; o < nowners; o++)
			seen |= owners[o] == sl->owner_procno;
		if (!seen && ((volatile GpxExecSlot *) sl)->state == GPX_SLOT_RUNNING)
			owners[nowners++] = sl->owner_procno;
		if (t->status != GPX_REQ_OK || sl->kind == GPX_REQ_KIND_RANK)
			continue;
		for (uint32 q = 0; q < sl->nqueries; q++)
		{
			const gpx_batch_query *d = &fl->b.queries[t->first_query + q];

			rq[q].out_count = d->out_count;
			rq[q].status = d->status;
		}
	}
	exec_count_batch(fl, run_us, nowners);

	gpuidx_exec_qlock();
	for (int i = fl->head; i >= 0; i = ex.tk[i].next)
	{
		GpxExecSlot *sl = &gpuidx_exec_shm->slots[i];
		ExecTaken  *t = &ex.tk[i];

		Assert(sl->state == GPX_SLOT_RUNNING || sl->state == GPX_SLOT_ABANDONED);
		if (sl->generation != t->generation)
			continue;
		if (sl->state == GPX_SLOT_ABANDONED)
		{
			abandoned[nabandoned++] = i;
			continue;
		}
		if (sl->state != GPX_SLOT_RUNNING)
			continue;
		sl->status = t->status;
		sl->run_us = run_us;
		sl->batch_backends = nowners;
		sl->done_ns = done_ns;
		gpuidx_exec_slot_set_state(i, GPX_SLOT_DONE);
	}
	gpuidx_exec_qunlock();

	/* wake the owners outside the locks: each may cost a signal */
	for (int o = 0; o < nowners; o++)
		gpuidx_exec_wake_proc(owners[o]);

	/* ABANDONED stays so until we free it: nobody else moves it on */
	if (nabandoned > 0)
	{
		LWLockAcquire(ctl->lock, LW_EXCLUSIVE);
		for (int a = 0; a < nabandoned; a++)
			gpuidx_exec_slot_free(abandoned[a]);
		LWLockRelease(ctl->lock);
	}
	pfree(owners);
	pfree(abandoned);
}

/* Sleep ms milliseconds in small steps, leaving early on shutdown. */
static void
exec_stall(int ms)
{
	for (int i = 0; i < ms && !ShutdownRequestPending; i += 10)
		pg_usleep(10 * 1000L);
}

/* The message a batch failed by fault gpu_oom is logged with. */
#define EXEC_GPU_OOM_MSG "injected fault gpu_oom: out of gpu or pinned memory"

/*
 * Fault gpu_oom (tests): whether this GPU batch is to fail as if CUDA had
 * run out of memory.  Uses up the one-batch form of the fault.
 */
static bool
exec_gpu_oom_injected(void)
{
	GpxExecShared *ctl = gpuidx_exec_shm->ctl;
	TimestampTz now;
	bool		oom;

	if (ctl->gpu_oom_until == 0 && !ctl->gpu_oom_next)
		return false;			/* not armed (unlocked peek; armed rarely) */
	now = GetCurrentTimestamp();
	LWLockAcquire(ctl->lock, LW_EXCLUSIVE);
	oom = ctl->gpu_oom_next || now < ctl->gpu_oom_until;
	ctl->gpu_oom_next = false;
	if (ctl->gpu_oom_until <= now)
		ctl->gpu_oom_until = 0;
	LWLockRelease(ctl->lock);
	return oom;
}

/* A GPU batch failed: count and log it (its batch then runs on the CPU). */
static void
exec_gpu_failed(gpx_cuda_status rc, const char *why)
{
	gpuidx_exec_count(&gpuidx_exec_shm->ctl->stats.gpu_failures, 1);
	ereport(LOG,
			(errcode(rc == GPX_CUDA_OOM ? ERRCODE_OUT_OF_MEMORY :
					 ERRCODE_EXTERNAL_ROUTINE_EXCEPTION),
			 errmsg("gpuidx executor: gpu batch failed, running it on cpu threads"),
			 errdetail("%s", why)));
}

/*
 * Hand fl to the CPU pool (its queries start as threads come free).  A
 * lone query with nothing else in flight runs here at once, as before
 * batches were kept in flight: waking a helper and being woken by it would
 * only add to its round trip.
 */
static void
exec_submit_cpu(ExecFlight *fl)
{
	gpx_status	st;

	fl->where = EXEC_ON_CPU;
	if (ex.nflight == 1 && fl->b.nqueries <= 1)
		st = gpx_batch_pool_submit_wait(ex.pool, &fl->b, &fl->cpu_job);
	else
		st = gpx_batch_pool_submit(ex.pool, &fl->b, &fl->cpu_job);
	if (st != GPX_OK)
		elog(ERROR, "gpuidx executor: could not queue a batch on its cpu threads");
}

/*
 * Hand fl to the GPU when one is open, else (or when the GPU refuses it)
 * to the CPU pool.  With fault gpu_oom armed the GPU fails with
 * GPX_CUDA_OOM without being called; on a machine without a GPU, a batch
 * of an executor with gpuidx.device = gpu then counts as a GPU attempt
 * that ran out of memory, so the fallback is exercised there too.
 */
static void
exec_submit(ExecFlight *fl)
{
	INSTR_TIME_SET_CURRENT(fl->t0);
	if (ex.cuda != NULL || ex.device == GPX_DEVICE_GPU)
	{
		bool		injected = exec_gpu_oom_injected();

		if (injected)
		{
			exec_gpu_failed(GPX_CUDA_OOM, EXEC_GPU_OOM_MSG);
			fl->rerun = true;
		}
		else if (ex.cuda != NULL)
		{
			gpx_cuda_status rc;

			if (exec_gpu_submit(fl, &rc))
			{
				fl->where = EXEC_ON_GPU;
				return;
			}
			exec_gpu_failed(rc, gpx_cuda_last_error(ex.cuda));
			fl->rerun = true;
		}
	}
	exec_submit_cpu(fl);
}

static void exec_drain(void);
static void exec_run_rank(ExecFlight *fl);
static void exec_rank_post(ExecFlight *fl);
static void exec_rank_reaped(ExecFlight *fl);
static void exec_flight_done(ExecFlight *fl);

/*
 * Whether ranked batches go to the GPU thread without waiting for them
 * (exec_rank_post): a GPU and its thread.
 */
static bool
exec_rank_async(void)
{
	return ex.cuda != NULL && ex.gt != NULL;
}

/*
 * Whether the GPU thread starts ranked batches side by side on the GPU's
 * rank streams (exec_rank_post): gpuidx.rank_streams above 1, and not
 * merged (gpuidx.rank_merge runs them one merged run at a time).
 */
static bool
exec_rank_side_by_side(void)
{
	return exec_rank_async() && ex.rank_streams > 1 && !gpuidx_exec_rank_merge_on;
}

/*
 * Run fn(ex.cuda, arg), a batch that runs synchronously on the GPU (ranked,
 * union), when the executor has one or is asked for one; true when it ran
 * there.  False: the caller runs it on the CPU -- no GPU, or the GPU
 * failed (logged and counted as every GPU failure, fl marked as a rerun;
 * the fault gpu_oom fails it without calling the GPU).
 */
static bool
exec_gpu_sync_run(ExecFlight *fl, int (*fn) (gpx_cuda_ctx *ctx, void *arg), void *arg)
{
	char		err[256];
	gpx_cuda_status rc;

	if (ex.cuda == NULL && ex.device != GPX_DEVICE_GPU)
		return false;
	if (exec_gpu_oom_injected())
	{
		exec_gpu_failed(GPX_CUDA_OOM, EXEC_GPU_OOM_MSG);
		fl->rerun = true;
		return false;
	}
	if (ex.cuda == NULL)
		return false;
	rc = exec_gpu_call(fn, arg, err, sizeof(err));
	if (rc == GPX_CUDA_OK)
		return true;
	exec_gpu_failed(rc, err);
	fl->rerun = true;
	return false;
}

/* gpx_cuda_union_run as an ExecGpuCall function. */
static int
exec_gpu_union_fn(gpx_cuda_ctx *ctx, void *arg)
{
	return gpx_cuda_union_run(ctx, (gpx_batch *) arg, NULL);
}

/*
 * Run fl, a union batch: on the GPU when one is open (gpx_cuda_union_run,
 * synchronous: the batch ends here), else, or when the GPU fails (logged,
 * counted in gpu_failures; fault gpu_oom included), on the CPU threads
 * like an intersection batch.
 */
static void
exec_submit_union(ExecFlight *fl)
{
	INSTR_TIME_SET_CURRENT(fl->t0);
	if (exec_gpu_sync_run(fl, exec_gpu_union_fn, &fl->b))
	{
		fl->where = EXEC_ON_GPU;
		fl->gpu_job.status = GPX_CUDA_OK;
		exec_flight_done(fl);
		return;
	}
	exec_submit_cpu(fl);
}

/*
 * Take, build and send one batch into a free flight; false when none was
 * due (*sleep_us then says how long the oldest request may still wait).
 * The faults error and stall strike here, while the other batches in
 * flight go on (an error then exits with them in flight).
 */
static bool
exec_launch_batch(int64 *sleep_us)
{
	GpxExecShared *ctl = gpuidx_exec_shm->ctl;
	ExecFlight *fl = exec_flight_free();
	int			fault = GPX_FAULT_NONE,
				fault_ms = 0;
	MemoryContext old;
	int			ph = gpuidx_exec_prof_begin(GPX_PHASE_TAKE);
	int			ntaken = exec_take_batch(fl, sleep_us, &fault, &fault_ms);
	bool		rank_async;

	gpuidx_exec_prof_end(ph);
	if (ntaken == 0)
		return false;
	/*
	 * a union batch, and a ranked batch without the GPU thread, run alone
	 * on the GPU, synchronously: finish what is on it (and on the CPU
	 * threads) first.  With the GPU thread a ranked batch runs there, in
	 * turn with the batches before it (exec_rank_post).
	 */
	fl->rank = fl->kind == GPX_REQ_KIND_RANK;
	rank_async = fl->rank && exec_rank_async();
	if (((fl->rank && !rank_async) || fl->kind == GPX_REQ_KIND_UNION) && ex.cuda != NULL)
		exec_drain();
	fl->used = true;
	fl->rerun = false;
	ctl->exec_in_flight = ex.nflight + 1;
	if (ex.nflight++ == 0)
		pgstat_report_activity(STATE_RUNNING, "gpuidx batch");
	else
		gpuidx_exec_count(&ctl->stats.overlapped_batches, 1);
	gpuidx_exec_count_max(&ctl->stats.max_in_flight, ex.nflight);

	if (!fl->rank)
	{
		ph = gpuidx_exec_prof_begin(GPX_PHASE_BUILD);
		old = MemoryContextSwitchTo(fl->cxt);
		exec_build_batch(fl);
		MemoryContextSwitchTo(old);
		gpuidx_exec_prof_end(ph);
	}

	if (fault == GPX_FAULT_ERROR)
		elog(ERROR, "gpuidx executor: injected fault");
	if (fault == GPX_FAULT_STALL)
		exec_stall(fault_ms);
	if (fl->rank)
	{
		ph = gpuidx_exec_prof_begin(GPX_PHASE_RANK);
		if (rank_async)
			exec_rank_post(fl);
		else
			exec_run_rank(fl);
	}
	else if (fl->kind == GPX_REQ_KIND_UNION)
	{
		ph = gpuidx_exec_prof_begin(GPX_PHASE_UNION);
		exec_submit_union(fl);
	}
	else
	{
		ph = gpuidx_exec_prof_begin(GPX_PHASE_SUBMIT);
		exec_submit(fl);
	}
	gpuidx_exec_prof_end(ph);
	return true;
}

/*
 * The end of a batch in flight: a GPU batch that failed runs again on the
 * CPU threads (logged, counted in gpu_failures; the backends see nothing);
 * otherwise its lists are kept, its results handed back, its owners woken,
 * the statistics and the cost model fed, and the flight freed.
 */
static void
exec_flight_done(ExecFlight *fl)
{
	GpxExecShared *ctl = gpuidx_exec_shm->ctl;
	instr_time	t1;
	int64		run_us;
	bool		on_gpu = fl->where == EXEC_ON_GPU;

	if (on_gpu && fl->gpu_job.status != GPX_CUDA_OK)
	{
		exec_gpu_failed(fl->gpu_job.status, fl->gpu_job.err);
		fl->rerun = true;
		exec_submit_cpu(fl);
		return;
	}
	if (on_gpu)
		gpuidx_exec_count(&ctl->stats.gpu_batches, 1);
	INSTR_TIME_SET_CURRENT(t1);
	INSTR_TIME_SUBTRACT(t1, fl->t0);
	run_us = INSTR_TIME_GET_MICROSEC(t1);

	exec_cache_batch_lists(fl);
	exec_finish_batch(fl, run_us);
	ex.cpu_queries += fl->nqueries;
	/* per-thread cost: the pool spreads queries over its threads (a rerun
	 * after a GPU failure says nothing about either device; rankings and
	 * unions are not probes) */
	if (!fl->rerun && fl->kind == GPX_REQ_KIND_ISECT)
		gpuidx_exec_cost_note_executor(fl->work, run_us, on_gpu ? 1 :
									   Min((uint64) ex.pool_threads, fl->nqueries),
									   fl->wait_us / Max(fl->ntaken, 1));

	MemoryContextReset(fl->cxt);
	fl->used = false;
	fl->head = -1;
	ctl->exec_in_flight = ex.nflight - 1;
	if (--ex.nflight == 0)
		pgstat_report_activity(STATE_IDLE, NULL);
}

/* gpx_cuda_rank_run as an ExecGpuCall function. */
static int
exec_gpu_rank_fn(gpx_cuda_ctx *ctx, void *arg)
{
	return gpx_cuda_rank_run(ctx, (gpx_rank_batch *) arg, NULL);
}

/*
 * Run one ranked batch (a request, or several merged) here and now: on
 * the GPU when one is open (gpx_cuda_rank_run, synchronous; the other
 * batches were drained), else, or when the GPU fails (logged, counted in
 * gpu_failures, as for intersections; fault gpu_oom included), on the CPU
 * threads.  True when it ran on the GPU.
 */
static bool
exec_rank_run_one(ExecFlight *fl, gpx_rank_batch *b)
{
	instr_time	t0,
				t1;

	INSTR_TIME_SET_CURRENT(t0);
	if (exec_gpu_sync_run(fl, exec_gpu_rank_fn, b))
	{
		/* auto's model of ranked batches learns the GPU's time (exec_cost.c) */
		INSTR_TIME_SET_CURRENT(t1);
		INSTR_TIME_SUBTRACT(t1, t0);
		gpuidx_exec_rank_note_gpu(b, INSTR_TIME_GET_MICROSEC(t1),
								  fl->wait_us / Max(fl->ntaken, 1));
		return true;
	}
	gpuidx_exec_rank_cpu(b, ex.pool);
	return false;
}

/*
 * Read fl's ranked requests and group them into runs (exec_rank.c), in
 * fl->cxt: each request's status and query count, the batch's counts.
 */
static void
exec_rank_plan(ExecFlight *fl)
{
	MemoryContext old = MemoryContextSwitchTo(fl->cxt);
	int			n = fl->ntaken,
				j = 0;
	int		   *slots = palloc(sizeof(int) * Max(n, 1));
	int		   *status = palloc(sizeof(int) * Max(n, 1));
	uint32	   *nq = palloc(sizeof(uint32) * Max(n, 1));

	for (int i = fl->head; i >= 0 && j < n; i = ex.tk[i].next)
		slots[j++] = i;
	gpuidx_exec_rank_plan(slots, j, status, nq, &fl->rank_plan);
	for (int k = 0; k < j; k++)
	{
		ex.tk[slots[k]].status = status[k];
		ex.tk[slots[k]].nqueries = nq[k];
	}
	fl->nqueries = fl->rank_plan.nqueries;
	fl->work = fl->postings = fl->rank_plan.candidates;
	MemoryContextSwitchTo(old);
}

/*
 * The end of a ranked batch whose runs all ran: answers handed to the
 * requests, inline statistics kept (exec_rank.c), and the batch ends as
 * any other (exec_flight_done), except that ranking times do not feed
 * the intersections' cost model (each GPU run feeds the ranked batches'
 * own, gpuidx_exec_rank_note_gpu).
 */
static void
exec_rank_end(ExecFlight *fl, bool any_gpu)
{
	MemoryContext old = MemoryContextSwitchTo(fl->cxt);

	gpuidx_exec_rank_complete(&fl->rank_plan);
	MemoryContextSwitchTo(old);
	fl->where = any_gpu ? EXEC_ON_GPU : EXEC_ON_CPU;
	fl->gpu_job.status = GPX_CUDA_OK;
	exec_flight_done(fl);
}

/*
 * Run fl, ranked requests, here and now: each run on the GPU when one is
 * open, else (or when it fails) on the CPU threads (exec_rank_run_one),
 * then the batch ends (exec_rank_end).  Without a GPU or its thread;
 * otherwise exec_rank_post.
 */
static void
exec_run_rank(ExecFlight *fl)
{
	bool		any_gpu = false;

	INSTR_TIME_SET_CURRENT(fl->t0);
	exec_rank_plan(fl);
	for (int g = 0; g < fl->rank_plan.ng; g++)
		any_gpu |= exec_rank_run_one(fl, fl->rank_plan.g[g].b);
	exec_rank_end(fl, any_gpu);
}

static void exec_gpu_rank_merged(gpx_cuda_ctx *ctx, GpxRankGroup **gs,
								 gpx_rank_batch **bs, int m);

/*
 * A ranked batch's runs on the GPU, one after the other (a GpxGtTask's
 * function: on the GPU thread, no PostgreSQL but instr_time's clock
 * macros): each run's status, time and message in its group.
 */
static int
exec_gpu_rank_plan_fn(gpx_cuda_ctx *ctx, void *arg)
{
	GpxRankPlan *p = arg;

	for (int g = 0; g < p->ng; g++)
	{
		GpxRankGroup *gr = &p->g[g];

		exec_gpu_rank_merged(ctx, &gr, &gr->b, 1);
	}
	return GPX_CUDA_OK;
}

/*
 * Run group gs[0] (its batch bs[0]) on the GPU, or (m > 1) merged with the
 * groups gs[1 .. m) that may run with it (gpx_rank_merge_compatible): one
 * GPU run for all of them, each group's answers copied back; each group's
 * status, message and time (merged: its share by candidates) noted.  On
 * the GPU thread: malloc, no PostgreSQL.
 */
static void
exec_gpu_rank_merged(gpx_cuda_ctx *ctx, GpxRankGroup **gs, gpx_rank_batch **bs, int m)
{
	gpx_rank_batch mb;
	void	   *work = NULL;
	size_t		ws = 0;
	instr_time	t0,
				t1;
	gpx_cuda_status rc;
	uint64		all = 0;

	if (m > 1)
	{
		ws = gpx_rank_merge_size(bs, (uint32) m);
		work = malloc(Max(ws, 8));
	}
	if (m > 1 && (work == NULL || gpx_rank_merge(bs, (uint32) m, work, ws, &mb) != GPX_OK))
	{
		/* not merged after all: one run each */
		free(work);
		for (int i = 0; i < m; i++)
			exec_gpu_rank_merged(ctx, &gs[i], &bs[i], 1);
		return;
	}
	INSTR_TIME_SET_CURRENT(t0);
	rc = gpx_cuda_rank_run(ctx, m > 1 ? &mb : bs[0], NULL);
	INSTR_TIME_SET_CURRENT(t1);
	INSTR_TIME_SUBTRACT(t1, t0);
	if (m > 1 && rc == GPX_CUDA_OK)
		gpx_rank_merge_scatter(&mb, bs, (uint32) m);
	if (m > 1)
		for (int i = 0; i < m; i++)
			all += gpuidx_exec_rank_candidates(bs[i]);
	for (int i = 0; i < m; i++)
	{
		gs[i]->gpu_status = rc;
		gs[i]->gpu_us = all == 0 ? INSTR_TIME_GET_MICROSEC(t1) :
			(int64) ((double) INSTR_TIME_GET_MICROSEC(t1) *
					 (double) gpuidx_exec_rank_candidates(bs[i]) / (double) all);
		gs[i]->gpu_err[0] = '\0';
		if (rc != GPX_CUDA_OK)
			strlcpy(gs[i]->gpu_err, gpx_cuda_last_error(ctx), sizeof(gs[i]->gpu_err));
	}
	free(work);
}

/*
 * Several posted ranked batches' runs at once (the GpxGtTask fn_many of
 * exec_rank_post, on the GPU thread: no PostgreSQL but malloc and
 * instr_time's clock macros): the batches queued behind a running one
 * meet here, and their groups that share statistics and parameters run
 * as one GPU run (exec_gpu_rank_merged), the others one by one; a GPU
 * runs a batch of a few queries in about the time of one.
 */
static int
exec_gpu_rank_plans_fn(gpx_cuda_ctx *ctx, void **args, int n)
{
	int			total = 0,
				k = 0;
	GpxRankGroup **g;
	GpxRankGroup **gs;
	gpx_rank_batch **bs;
	bool	   *taken;

	for (int i = 0; i < n; i++)
		total += ((GpxRankPlan *) args[i])->ng;
	g = malloc(sizeof(*g) * Max(total, 1));
	gs = malloc(sizeof(*gs) * Max(total, 1));
	bs = malloc(sizeof(*bs) * Max(total, 1));
	taken = calloc(Max(total, 1), sizeof(bool));
	if (g == NULL || gs == NULL || bs == NULL || taken == NULL)
	{
		/* no memory to merge: each batch as it came */
		free(g);
		free(gs);
		free(bs);
		free(taken);
		for (int i = 0; i < n; i++)
			(void) exec_gpu_rank_plan_fn(ctx, args[i]);
		return GPX_CUDA_OK;
	}
	for (int i = 0; i < n; i++)
		for (int j = 0; j < ((GpxRankPlan *) args[i])->ng; j++)
			g[k++] = &((GpxRankPlan *) args[i])->g[j];
	for (int a = 0; a < total; a++)
	{
		int			m = 0;

		if (taken[a])
			continue;
		for (int c = a; c < total; c++)
			if (!taken[c] && (c == a || gpx_rank_merge_compatible(g[a]->b, g[c]->b)))
			{
				taken[c] = true;
				gs[m] = g[c];
				bs[m] = g[c]->b;
				m++;
			}
		exec_gpu_rank_merged(ctx, gs, bs, m);
	}
	free(g);
	free(gs);
	free(bs);
	free(taken);
	return GPX_CUDA_OK;
}

/*
 * Start fl's runs not started yet while a rank stream is free (none is
 * free only while runs are in flight, whose ends a later poll sees); on
 * the GPU thread, no PostgreSQL but instr_time's clock macros.
 */
static void
exec_gpu_rank_issue(gpx_cuda_ctx *ctx, ExecFlight *fl)
{
	for (int g = 0; g < fl->rank_plan.ng; g++)
	{
		ExecRankTk *t = &fl->rank_tk[g];

		if (t->started)
			continue;
		if (gpx_cuda_rank_free(ctx) == 0)
			break;
		t->started = true;
		INSTR_TIME_SET_CURRENT(t->t0);
		(void) gpx_cuda_rank_start(ctx, fl->rank_plan.g[g].b, NULL, &t->tk);
	}
}

/*
 * Note in each group of fl the end of its run, once its ticket is done:
 * status, message, time from its start.  True when every run ended.
 */
static bool
exec_gpu_rank_note(ExecFlight *fl)
{
	bool		all = true;

	for (int g = 0; g < fl->rank_plan.ng; g++)
	{
		ExecRankTk *t = &fl->rank_tk[g];
		GpxRankGroup *gr = &fl->rank_plan.g[g];
		instr_time	t1;

		if (!t->tk.done)
		{
			all = false;
			continue;
		}
		if (t->noted)
			continue;
		INSTR_TIME_SET_CURRENT(t1);
		INSTR_TIME_SUBTRACT(t1, t->t0);
		gr->gpu_status = t->tk.status;
		gr->gpu_us = INSTR_TIME_GET_MICROSEC(t1);
		strlcpy(gr->gpu_err, t->tk.err, sizeof(gr->gpu_err));
		t->noted = true;
	}
	return all;
}

/*
 * A ranked flight's runs side by side (GpxGtTask start, on the GPU
 * thread): as many started as rank streams are free.
 */
static int
exec_gpu_rank_start_fn(gpx_cuda_ctx *ctx, void *arg)
{
	ExecFlight *fl = arg;

	exec_gpu_rank_issue(ctx, fl);
	(void) exec_gpu_rank_note(fl);
	return GPX_CUDA_OK;
}

/*
 * Poll a ranked flight's runs (GpxGtTask poll, on the GPU thread): end
 * those the GPU finished, start the next; stopping, wait for the started
 * ones and fail the others ("cancelled").  Nonzero when every run ended.
 */
static int
exec_gpu_rank_poll_fn(gpx_cuda_ctx *ctx, void *arg, int stopping)
{
	ExecFlight *fl = arg;

	if (stopping)
	{
		(void) gpx_cuda_rank_progress(ctx, 1);
		for (int g = 0; g < fl->rank_plan.ng; g++)
			if (!fl->rank_tk[g].started)
			{
				fl->rank_tk[g].tk.status = GPX_CUDA_ERROR;
				strlcpy(fl->rank_tk[g].tk.err, "cancelled", sizeof(fl->rank_tk[g].tk.err));
				fl->rank_tk[g].tk.done = 1;
			}
		(void) exec_gpu_rank_note(fl);
		return 1;
	}
	(void) gpx_cuda_rank_progress(ctx, 0);
	exec_gpu_rank_issue(ctx, fl);
	return exec_gpu_rank_note(fl) ? 1 : 0;
}

/* Whether a ranked run may start without waiting (GpxGtTask ready). */
static int
exec_gpu_rank_ready_fn(gpx_cuda_ctx *ctx)
{
	return gpx_cuda_rank_free(ctx) > 0;
}

/*
 * Send fl, ranked requests, to the GPU thread and go on: its runs go to
 * the GPU in turn with the batches before them (side by side with the
 * ranked batches before it, gpuidx.rank_streams), while this thread takes
 * and builds the next batch and hands back the last; exec_rank_reaped
 * ends it.
 */
static void
exec_rank_post(ExecFlight *fl)
{
	INSTR_TIME_SET_CURRENT(fl->t0);
	exec_rank_plan(fl);
	if (fl->rank_plan.ng == 0)
	{
		exec_rank_end(fl, false);	/* no request read well */
		return;
	}
	memset(&fl->rank_task, 0, sizeof(fl->rank_task));
	fl->rank_task.fn = exec_gpu_rank_plan_fn;
	fl->rank_task.fn_many = gpuidx_exec_rank_merge_on ? exec_gpu_rank_plans_fn : NULL;
	fl->rank_task.arg = &fl->rank_plan;
	fl->rank_task.job.user = fl;
	fl->rank_tk = NULL;
	if (exec_rank_side_by_side())
	{
		fl->rank_tk = MemoryContextAllocZero(fl->cxt, sizeof(ExecRankTk) * fl->rank_plan.ng);
		fl->rank_task.start = exec_gpu_rank_start_fn;
		fl->rank_task.poll = exec_gpu_rank_poll_fn;
		fl->rank_task.ready = exec_gpu_rank_ready_fn;
		fl->rank_task.arg = fl;
	}
	fl->where = EXEC_ON_GPU;
	if (exec_gpu_oom_injected())
	{
		/* fault gpu_oom: every run fails as if the GPU had run out of memory */
		for (int g = 0; g < fl->rank_plan.ng; g++)
		{
			fl->rank_plan.g[g].gpu_status = GPX_CUDA_OOM;
			strlcpy(fl->rank_plan.g[g].gpu_err, EXEC_GPU_OOM_MSG,
					sizeof(fl->rank_plan.g[g].gpu_err));
		}
		exec_rank_reaped(fl);
		return;
	}
	gpuidx_exec_gt_post(ex.gt, &fl->rank_task);
}

/*
 * fl's runs came back from the GPU thread: a run that failed there (or
 * was never run: the thread stopped) runs on the CPU threads (logged and
 * counted as every GPU failure); each that ran feeds auto's model of
 * ranked batches; then the batch ends (exec_rank_end).
 */
static void
exec_rank_reaped(ExecFlight *fl)
{
	bool		any_gpu = false;
	const gpx_cuda_job *job = &fl->rank_task.job;

	Assert(fl->rank && fl->where == EXEC_ON_GPU);
	for (int g = 0; g < fl->rank_plan.ng; g++)
	{
		GpxRankGroup *gr = &fl->rank_plan.g[g];
		int			st = job->status != GPX_CUDA_OK ? job->status : gr->gpu_status;

		if (st == GPX_CUDA_OK)
		{
			any_gpu = true;
			gpuidx_exec_rank_note_gpu(gr->b, gr->gpu_us, fl->wait_us / Max(fl->ntaken, 1));
			continue;
		}
		exec_gpu_failed(st, job->status != GPX_CUDA_OK ? job->err : gr->gpu_err);
		fl->rerun = true;
		gpuidx_exec_rank_cpu(gr->b, ex.pool);
	}
	exec_rank_end(fl, any_gpu);
}

/* A job the GPU (thread) handed back: its batch ends. */
static void
exec_gpu_job_done(gpx_cuda_job *job)
{
	ExecFlight *fl = (ExecFlight *) job->user;

	Assert(fl->used && fl->where == EXEC_ON_GPU);
	if (fl->rank)
		exec_rank_reaped(fl);
	else
		exec_flight_done(fl);
}

/*
 * Finish every batch in flight that is done, in whatever order they
 * finished.  Returns how many finished (a GPU batch sent to the CPU
 * threads after a failure does not count).
 */
static int
exec_reap(void)
{
	int			n = 0;
	gpx_cuda_job *job;
	int			ph;

	if (ex.nflight == 0)
		return 0;
	ph = gpuidx_exec_prof_begin(GPX_PHASE_POLL);
	while (ex.cuda != NULL && (job = exec_gpu_reap(false)) != NULL)
	{
		ExecFlight *fl = (ExecFlight *) job->user;
		int			ph2 = gpuidx_exec_prof_begin(GPX_PHASE_FINISH);

		exec_gpu_job_done(job);
		gpuidx_exec_prof_end(ph2);
		n += fl->used ? 0 : 1;
	}
	for (int f = 0; f < GPX_EXEC_MAX_DEPTH; f++)
	{
		ExecFlight *fl = &ex.flights[f];

		if (fl->used && fl->where == EXEC_ON_CPU && gpx_batch_pool_done(&fl->cpu_job))
		{
			int			ph2 = gpuidx_exec_prof_begin(GPX_PHASE_FINISH);

			exec_flight_done(fl);
			gpuidx_exec_prof_end(ph2);
			n++;
		}
	}
	gpuidx_exec_prof_end(ph);
	return n;
}

/* Whether a batch in flight runs on the GPU (where), or on CPU threads. */
static bool
exec_any_on(ExecWhere where)
{
	for (int f = 0; f < GPX_EXEC_MAX_DEPTH; f++)
		if (ex.flights[f].used && ex.flights[f].where == where)
			return true;
	return false;
}

/* Finish every batch in flight, waiting for them (before a device change). */
static void
exec_drain(void)
{
	while (ex.nflight > 0)
	{
		if (exec_reap() > 0)
			continue;
		if (exec_any_on(EXEC_ON_GPU))
		{
			gpx_cuda_job *job = exec_gpu_reap(true);

			if (job != NULL)
				exec_gpu_job_done(job);
			continue;
		}
		for (int f = 0; f < GPX_EXEC_MAX_DEPTH; f++)
			if (ex.flights[f].used && ex.flights[f].where == EXEC_ON_CPU)
			{
				gpx_batch_pool_wait(ex.pool, &ex.flights[f].cpu_job);
				break;
			}
	}
}

/* ----------------------------------------------------------- main -- */

/* Whether the queued requests make a batch due before their time. */
static bool
exec_queue_due(void)
{
	volatile GpxExecShared *ctl = gpuidx_exec_shm->ctl;

	return ctl->queue_head >= 0 &&
		(ctl->queued_work >= (uint64) gpuidx_exec_batch_threshold ||
		 exec_nothing_more_comes() || exec_rank_due_now());
}

/*
 * Poll, without the lock, for up to us microseconds: while the queue is
 * empty (idle) for a request to come (or anything else that sets our
 * latch), else for the queued batch to become due before its time (enough
 * work, or nothing more can come).  Returns early on shutdown and reload.
 * A batching wait ignores the latch: backends set it as they queue, and
 * it stays set until the next WaitLatch, so heeding it would turn the wait
 * into a loop over exec_take_batch and its lock.
 */
static void
exec_poll(int64 us, bool idle)
{
	volatile GpxExecShared *ctl = gpuidx_exec_shm->ctl;
	instr_time	start,
				now;

	INSTR_TIME_SET_CURRENT(start);
	for (uint32 iter = 0;; iter++)
	{
		if (ShutdownRequestPending || ConfigReloadPending)
			return;
		if (idle ? (ctl->queue_head >= 0 || MyLatch->is_set) : exec_queue_due())
			return;
		pg_spin_delay();
		if ((iter & 63) == 63)
		{
			INSTR_TIME_SET_CURRENT(now);
			INSTR_TIME_SUBTRACT(now, start);
			if ((int64) INSTR_TIME_GET_MICROSEC(now) >= us)
				return;
		}
	}
}

/*
 * Sleep until woken, or for at most sleep_us (-1: until woken or 1 s).
 * Waits below the latch's millisecond resolution poll; an idle executor
 * first polls for gpuidx.spin_wait microseconds.
 */
static void
exec_sleep(int64 sleep_us)
{
	long		ms;

	if (sleep_us >= 0 && sleep_us < 1000)
	{
		if (sleep_us > 0)
			exec_poll(sleep_us, false);
		return;
	}
	if (sleep_us < 0 && gpuidx_exec_spin_us > 0)
	{
		exec_poll(gpuidx_exec_spin_us, true);
		if (((volatile GpxExecShared *) gpuidx_exec_shm->ctl)->queue_head >= 0)
			return;
	}
	ms = sleep_us < 0 ? 1000 : (long) ((sleep_us + 999) / 1000);
	(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
					 ms, GPX_EXEC_WAIT_EVENT);
	ResetLatch(MyLatch);
}

/*
 * The events the executor waits on while batches run on its CPU threads:
 * its latch, the postmaster's death, and the pool's notify descriptor (a
 * job finished).  Made again when the pool is.
 */
static WaitEventSet *
exec_wait_set(void)
{
	int			fd = gpx_batch_pool_notify_fd(ex.pool);

	if (ex.wes != NULL && ex.wes_fd == fd)
		return ex.wes;
	if (ex.wes != NULL)
		FreeWaitEventSet(ex.wes);
	ex.wes = CreateWaitEventSet(TopMemoryContext, 3);
	AddWaitEventToSet(ex.wes, WL_LATCH_SET, PGINVALID_SOCKET, MyLatch, NULL);
	AddWaitEventToSet(ex.wes, WL_EXIT_ON_PM_DEATH, PGINVALID_SOCKET, NULL, NULL);
	if (fd >= 0)
		AddWaitEventToSet(ex.wes, WL_SOCKET_READABLE, fd, NULL, NULL);
	ex.wes_fd = fd;
	return ex.wes;
}

/* Run one query of a batch on the CPU threads here (timed as such). */
static bool
exec_pool_help(void)
{
	int			ph = gpuidx_exec_prof_begin(GPX_PHASE_CPU);
	bool		ran = gpx_batch_pool_help(ex.pool);

	gpuidx_exec_prof_end(ph);
	return ran;
}

/*
 * Wait while batches are in flight, for at most sleep_us (-1: until
 * something happens): for one of them to finish, a request to make a
 * batch due, a reload or shutdown.  On a GPU the executor polls (a batch
 * takes tens of microseconds, a sleep and wake-up as long); on the CPU
 * threads it runs one of the queued queries itself when there is one,
 * else sleeps on its latch and the pool's descriptor.
 */
static void
exec_wait_flights(int64 sleep_us, bool may_take)
{
	instr_time	start,
				now;

	if (exec_any_on(EXEC_ON_GPU))
	{
		/* a batch rerun on the CPU threads beside them gets a hand too */
		if (exec_any_on(EXEC_ON_CPU) && exec_pool_help())
			return;
		INSTR_TIME_SET_CURRENT(start);
		for (uint32 iter = 0;; iter++)
		{
			if (ShutdownRequestPending || ConfigReloadPending || exec_reap() > 0 ||
				(may_take && exec_queue_due()))
				return;
			pg_spin_delay();
			if ((iter & 15) == 15)
			{
				INSTR_TIME_SET_CURRENT(now);
				INSTR_TIME_SUBTRACT(now, start);
				/* a due batch or the oldest request's time */
				if (sleep_us >= 0 && (int64) INSTR_TIME_GET_MICROSEC(now) >= sleep_us)
					return;
				/* now and then the loop's other duties (reaping orphans) */
				if ((int64) INSTR_TIME_GET_MICROSEC(now) >= 10000)
					return;
			}
		}
	}
	if (exec_pool_help())
		return;
	{
		WaitEvent	ev;
		long		ms = sleep_us < 0 ? 1000 : (long) ((sleep_us + 999) / 1000);

		/* a job may have finished just now: look before sleeping */
		gpx_batch_pool_notify_clear(ex.pool);
		if (exec_reap() > 0)
			return;
		if (sleep_us >= 0 && sleep_us < 1000)
		{
			/* below the latch's resolution: poll the jobs and the queue */
			INSTR_TIME_SET_CURRENT(start);
			for (;;)
			{
				if (ShutdownRequestPending || ConfigReloadPending || exec_reap() > 0 ||
					(may_take && exec_queue_due()) || exec_pool_help())
					return;
				pg_spin_delay();
				INSTR_TIME_SET_CURRENT(now);
				INSTR_TIME_SUBTRACT(now, start);
				if ((int64) INSTR_TIME_GET_MICROSEC(now) >= sleep_us)
					return;
			}
		}
		(void) WaitEventSetWait(exec_wait_set(), ms, &ev, 1, GPX_EXEC_WAIT_EVENT);
		ResetLatch(MyLatch);
	}
}

/*
 * Fault 'hold' (tests): take no batch until the hold ends, so requests
 * stay queued (batches already in flight go on).  Returns the
 * microseconds the hold still lasts, 0 when none is on.
 */
static int64
exec_holding(void)
{
	GpxExecShared *ctl = gpuidx_exec_shm->ctl;
	TimestampTz now = GetCurrentTimestamp();

	if (ctl->fault == GPX_FAULT_HOLD)
	{
		LWLockAcquire(ctl->lock, LW_EXCLUSIVE);
		if (ctl->fault == GPX_FAULT_HOLD)
		{
			ex.hold_until = ctl->fault_ms > 0 ?
				TimestampTzPlusMilliseconds(now, ctl->fault_ms) : 0;
			ctl->fault = GPX_FAULT_NONE;
		}
		LWLockRelease(ctl->lock);
	}
	if (ex.hold_until <= now)
		return 0;
	return Min(ex.hold_until - now, 1000 * 1000);
}

/*
 * Ranked batches the GPU thread may hold at once with gpuidx.rank_merge
 * on: one running and the ones queued behind it, which it runs merged
 * the moment it is free (exec_gpu_rank_plans_fn), so that a request
 * waits for the run in progress and its own, not for a batch formed
 * before it came.  They may pass gpuidx.pipeline_depth (ranked batches
 * cost the main thread little while they wait), up to GPX_EXEC_MAX_DEPTH
 * flights in all.
 */
#define GPX_EXEC_RANK_POSTED (GPX_EXEC_MAX_DEPTH - 2)
/*
 * With gpuidx.rank_merge off (the default): one running on each rank
 * stream (gpuidx.rank_streams), one ready to start the moment one ends;
 * left queued, the requests after them make the next batch larger.
 */
static int
exec_rank_posted_alone(void)
{
	return Min(exec_rank_side_by_side() ? ex.rank_streams + 1 : 2, GPX_EXEC_MAX_DEPTH - 1);
}

/*
 * Whether the next queued request is ranked and the GPU thread holds as
 * many ranked batches as it may (an unlocked peek: exec_take_batch looks
 * again under the lock; a stale answer costs a batch taken early or late).
 */
static bool
exec_rank_full(void)
{
	int			posted = 0;

	/* a ranked flight on the GPU is one the GPU thread holds (exec_rank_post) */
	for (int f = 0; f < GPX_EXEC_MAX_DEPTH; f++)
		posted += ex.flights[f].used && ex.flights[f].rank &&
			ex.flights[f].where == EXEC_ON_GPU;
	return posted >= (gpuidx_exec_rank_merge_on ? GPX_EXEC_RANK_POSTED : exec_rank_posted_alone()) &&
		exec_head_ranked();
}

/*
 * Whether a ranked batch may be taken beyond gpuidx.pipeline_depth: a
 * flight is free and the next queued request is a ranked one due at once
 * (exec_rank_due_now), or one that a rank stream may run side by side
 * with those before (exec_rank_full bounds them).
 */
static bool
exec_rank_room(void)
{
	return ex.nflight < GPX_EXEC_MAX_DEPTH &&
		(exec_rank_due_now() || (exec_rank_side_by_side() && exec_head_ranked()));
}

/* Background worker entry point of the executor. */
void
gpuidx_exec_main(Datum main_arg)
{
	GpxExecShared *ctl;

	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	pqsignal(SIGTERM, SignalHandlerForShutdownRequest);
	BackgroundWorkerUnblockSignals();

	if (!gpuidx_exec_attach())
		proc_exit(0);			/* not preloaded: nothing to serve */
	ctl = gpuidx_exec_shm->ctl;
	if (!ctl->keys_ok)
	{
		/* exit 0: not restarted; backends compute everything themselves */
		ereport(LOG,
				(errmsg("gpuidx executor not started: no secret for list identity"),
				 errdetail("pg_strong_random() failed at server start, so cache keys could be forged.")));
		proc_exit(0);
	}

	/* no database: this shows us in pg_stat_activity and nothing more */
	BackgroundWorkerInitializeConnection(NULL, NULL, 0);
	pgstat_report_appname(GPX_EXEC_WORKER_TYPE);

	exec_startup();
	before_shmem_exit(exec_on_exit, (Datum) 0);
	exec_open_device();

	gpuidx_exec_prof_start();
	LWLockAcquire(ctl->lock, LW_EXCLUSIVE);
	gpuidx_exec_qlock();
	ctl->exec_state = GPX_EXEC_RUNNING;
	gpuidx_exec_qunlock();
	LWLockRelease(ctl->lock);
	/* requests requeued by a predecessor: their owners may want to know */
	exec_wake_queued();
	ereport(LOG,
			(errmsg("gpuidx executor started"),
			 errdetail("Batches run on %s.", ctl->device_desc)));

	for (;;)
	{
		int64		sleep_us = -1,
					hold_us;
		bool		may_take;

		CHECK_FOR_INTERRUPTS();
		if (ConfigReloadPending)
		{
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
			if (gpuidx_exec_device != ex.device ||
				exec_thread_count() != ex.pool_threads ||
				gpuidx_exec_pipeline_depth != ex.depth ||
				gpuidx_exec_gpu_graphs != ex.graphs ||
				gpuidx_exec_gpu_thread != ex.gpu_thread ||
				gpuidx_exec_rank_streams != ex.rank_streams)
			{
				exec_drain();
				exec_open_device();
			}
		}

		/* what is in flight and queued goes back to its backends (exec_on_exit) */
		if (ShutdownRequestPending)
			break;

		/* results first: finished batches wake their backends */
		(void) exec_reap();

		/* then the next batch, while the others run */
		hold_us = exec_holding();
		may_take = hold_us == 0 && (ex.nflight < ex.depth || exec_rank_room()) &&
			!exec_rank_full();
		if (may_take && exec_launch_batch(&sleep_us))
			continue;
		if (hold_us > 0)
			sleep_us = hold_us;

		if (TimestampDifferenceExceeds(ex.last_reap, GetCurrentTimestamp(), 1000))
		{
			exec_reap_orphans();
			ex.last_reap = GetCurrentTimestamp();
			exec_sample_oids(ex.last_reap);
		}
		if (ex.nflight > 0)
		{
			int			ph = gpuidx_exec_prof_begin(GPX_PHASE_WAIT);

			exec_wait_flights(sleep_us, may_take);
			gpuidx_exec_prof_end(ph);
		}
		else
		{
			int			ph;

			exec_refresh_gpu_desc();	/* the last batches' counts, once idle */
			ph = gpuidx_exec_prof_begin(GPX_PHASE_WAIT);
			exec_sleep(sleep_us);
			gpuidx_exec_prof_end(ph);
		}
	}

	/* exit 1: the postmaster starts a new executor unless it is stopping */
	proc_exit(1);
}
