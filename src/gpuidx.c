/*
 * gpuidx.c - module entry point of the gpuidx extension: _PG_init defines
 * the settings (gpuidx.* GUCs), and when the library is preloaded reserves
 * the executor's shared memory and registers its background worker.
 *
 * The SQL surface of the posting types lives in posting*.c; the executor
 * in exec_*.c (shared memory: exec_shmem.c, the worker: exec_worker.c).
 */
#include "postgres.h"

#include "fmgr.h"
#include "miscadmin.h"
#include "postmaster/bgworker.h"
#include "utils/guc.h"

#include "exec_plan.h"
#include "exec_shmem.h"
#include "gpuidx.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

/* GUC variables (gpuidx.h). */
int			gpuidx_exec_arena_kb = 64 * 1024;
int			gpuidx_exec_max_requests = 1024;
int			gpuidx_exec_cache_kb = 128 * 1024;
int			gpuidx_exec_batch_threshold = 1024 * 1024;
int			gpuidx_exec_batch_max_wait = 100;
int			gpuidx_exec_device = GPX_DEVICE_AUTO;
int			gpuidx_exec_threads = 0;
char	   *gpuidx_exec_gpus = NULL;
bool		gpuidx_exec_use = true;
bool		gpuidx_exec_fallback = true;
int			gpuidx_exec_timeout_ms = 10000;
int			gpuidx_exec_spin_us = 0;
int			gpuidx_exec_pipeline_depth = 2;
bool		gpuidx_exec_gpu_graphs = false;
bool		gpuidx_exec_gpu_thread = true;
bool		gpuidx_exec_rank_merge_on = false;
int			gpuidx_exec_rank_streams = 2;

static const struct config_enum_entry device_options[] = {
	{"auto", GPX_DEVICE_AUTO, false},
	{"gpu", GPX_DEVICE_GPU, false},
	{"cpu", GPX_DEVICE_CPU, false},
	{"backend", GPX_DEVICE_BACKEND, false},
	{NULL, 0, false}
};

/*
 * Parse "0" or "0,2,3" (GPU ordinals, no duplicates) into out[]; returns
 * how many, or -1 when the text is malformed or names too many.
 */
int
gpuidx_exec_parse_gpus(const char *s, int *out, int max)
{
	int			n = 0;

	while (*s)
	{
		long		v = 0;
		int			digits = 0;

		while (*s == ' ')
			s++;
		while (*s >= '0' && *s <= '9' && digits < 4)
		{
			v = v * 10 + (*s++ - '0');
			digits++;
		}
		while (*s == ' ')
			s++;
		if (digits == 0 || (*s != ',' && *s != '\0') || n >= max)
			return -1;
		for (int i = 0; i < n; i++)
			if (out[i] == (int) v)
				return -1;
		out[n++] = (int) v;
		if (*s == ',')
			s++;
	}
	return n;
}

/* check_hook of gpuidx.gpus: a non-empty list of distinct ordinals. */
static bool
gpuidx_check_gpus(char **newval, void **extra, GucSource source)
{
	int			ids[GPX_EXEC_MAX_GPUS];

	if (*newval == NULL || gpuidx_exec_parse_gpus(*newval, ids, GPX_EXEC_MAX_GPUS) <= 0)
	{
		GUC_check_errdetail("gpuidx.gpus must list between 1 and %d distinct GPU ordinals, such as \"0\" or \"0,1\".",
							GPX_EXEC_MAX_GPUS);
		return false;
	}
	return true;
}

/*
 * Define the gpuidx.* GUCs.  Those that size shared memory exist only
 * when the library is preloaded (PostgreSQL refuses PGC_POSTMASTER
 * variables defined after start-up).
 *
 * Contexts (reviewed for issue #7): what sizes shared memory or picks the
 * GPUs is PGC_POSTMASTER; what the executor as a whole obeys (batching,
 * threads) is PGC_SIGHUP, read by every backend too, so all agree;
 * gpuidx.device is PGC_SUSET, since gpu or cpu sends every query of a
 * session, however small, to the one shared executor.  The rest only
 * changes how a session uses the executor for itself (at all, fallback or
 * error, how long to wait; 0 waits until the statement is cancelled) and
 * is PGC_USERSET.
 */
static void
gpuidx_define_gucs(void)
{
	if (process_shared_preload_libraries_in_progress)
	{
		DefineCustomIntVariable("gpuidx.arena_size",
								"Size of the shared arena that carries requests to the executor.",
								"Reserved at server start; a request larger than this is computed in the backend.",
								&gpuidx_exec_arena_kb, 64 * 1024, 256, INT_MAX / 2,
								PGC_POSTMASTER, GUC_UNIT_KB, NULL, NULL, NULL);
		DefineCustomIntVariable("gpuidx.max_requests",
								"Number of request slots in the executor's shared memory.",
								NULL,
								&gpuidx_exec_max_requests, 1024, 4, 1 << 20,
								PGC_POSTMASTER, 0, NULL, NULL, NULL);
		DefineCustomIntVariable("gpuidx.cache_size",
								"Memory the executor may use to keep frequently sent lists.",
								"Lists it holds are sent by key instead of copied; 0 disables the cache.",
								&gpuidx_exec_cache_kb, 128 * 1024, 0, INT_MAX / 2,
								PGC_POSTMASTER, GUC_UNIT_KB, NULL, NULL, NULL);
		DefineCustomStringVariable("gpuidx.gpus",
								   "GPUs the executor uses, as ordinals (\"0\" or \"0,1\").",
								   "Batches are spread over every GPU named; each keeps its own list cache of gpuidx.cache_size.",
								   &gpuidx_exec_gpus, "0",
								   PGC_POSTMASTER, 0, gpuidx_check_gpus, NULL, NULL);
	}
	DefineCustomIntVariable("gpuidx.batch_threshold",
							"Postings of shortest lists that make the executor run a batch at once.",
							"The computational threshold c of the PARA framework.",
							&gpuidx_exec_batch_threshold, 1024 * 1024, 1, INT_MAX,
							PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("gpuidx.batch_max_wait",
							"Longest time in microseconds a request waits for its batch to fill.",
							NULL,
							&gpuidx_exec_batch_max_wait, 100, 0, 10 * 1000 * 1000,
							PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("gpuidx.spin_wait",
							"Microseconds the executor and waiting backends poll before sleeping on their latches.",
							"Saves the wake-up of each round trip at the cost of a busy core while polling; 0 sleeps at once.",
							&gpuidx_exec_spin_us, 0, 0, 1000 * 1000,
							PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("gpuidx.pipeline_depth",
							"Batches the executor keeps in flight at once.",
							"While a batch runs on the GPU or the CPU threads the executor takes, builds and sends the next ones; 1 runs one batch at a time.",
							&gpuidx_exec_pipeline_depth, 2, 1, GPX_EXEC_MAX_DEPTH,
							PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("gpuidx.gpu_graphs",
							 "Send each GPU chunk as one CUDA graph launch.",
							 "On: the chunk's copies and kernels are captured once and updated in place, then launched together; off: issued one by one.",
							 &gpuidx_exec_gpu_graphs, false, PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("gpuidx.gpu_thread",
							 "Make the executor's calls into the GPU back end on a thread of their own.",
							 "On: planning, staging, issuing and polling batches on the GPU run on a second thread of the executor, beside the main thread's taking of requests and handing back of results; off: the main thread does both.",
							 &gpuidx_exec_gpu_thread, true, PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("gpuidx.rank_merge",
							 "Run the ranked batches queued at the executor's GPU thread as one GPU run.",
							 "On: the ranked batches posted behind the one the GPU runs (up to six) run merged the moment it is free, and a ranked request is due at once; off: one GPU run per batch, at most one batch waiting.",
							 &gpuidx_exec_rank_merge_on, false, PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("gpuidx.rank_streams",
							"Ranked batches the executor runs side by side on a GPU.",
							"Each on a CUDA stream of its own, started by the GPU thread while the others run; 1: one at a time, each run to its end before the next starts. Applies with gpuidx.gpu_thread on and gpuidx.rank_merge off.",
							&gpuidx_exec_rank_streams, 2, 1, 4, PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomEnumVariable("gpuidx.device",
							 "Where queries run: auto, gpu, cpu or backend.",
							 "auto keeps cheap queries in the backend and sends the others to the executor; gpu and cpu send every query to the executor, which runs it on a GPU or on CPU threads; backend keeps every query in the backend, which reads the lists the executor's shared cache holds in place. gpu while the executor has no usable GPU is an error, or with gpuidx.executor_fallback on a warning (once per session) and the executor's CPU threads. For the executor itself, backend is auto.",
							 &gpuidx_exec_device, GPX_DEVICE_AUTO, device_options,
							 PGC_SUSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("gpuidx.executor_threads",
							"CPU threads of the executor (0: one per CPU).",
							NULL,
							&gpuidx_exec_threads, 0, 0, GPX_BATCH_MAX_THREADS,
							PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("gpuidx.use_executor",
							 "Send intersections to the executor when it is running.",
							 "Off computes every intersection in the backend.",
							 &gpuidx_exec_use, true, PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("gpuidx.executor_fallback",
							 "Compute in the backend when the executor cannot serve a request.",
							 "Off raises an error instead (arena full, request too large, executor down), and for gpuidx.device = gpu while the executor has no usable GPU.",
							 &gpuidx_exec_fallback, true, PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("gpuidx.executor_timeout",
							"Longest wait for the executor before computing in the backend (0: no limit).",
							NULL,
							&gpuidx_exec_timeout_ms, 10000, 0, INT_MAX,
							PGC_USERSET, GUC_UNIT_MS, NULL, NULL, NULL);
}

/* Register the executor background worker. */
static void
gpuidx_register_worker(void)
{
	BackgroundWorker w;

	memset(&w, 0, sizeof(w));
	w.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	w.bgw_start_time = BgWorkerStart_ConsistentState;
	w.bgw_restart_time = 1;
	strlcpy(w.bgw_library_name, "gpuidx", BGW_MAXLEN);
	strlcpy(w.bgw_function_name, "gpuidx_exec_main", BGW_MAXLEN);
	strlcpy(w.bgw_name, GPX_EXEC_WORKER_TYPE, BGW_MAXLEN);
	strlcpy(w.bgw_type, GPX_EXEC_WORKER_TYPE, BGW_MAXLEN);
	w.bgw_main_arg = (Datum) 0;
	w.bgw_notify_pid = 0;
	RegisterBackgroundWorker(&w);
}

/*
 * Module load hook: define the settings; when preloaded, reserve the
 * executor's shared memory, register its worker and install the planner
 * hook that keeps a GROUP BY of intersections one batch (exec_plan.c).
 */
void
_PG_init(void)
{
	gpuidx_define_gucs();
	/* every gpuidx.* setting is defined by now: reject misspelt ones */
	MarkGUCPrefixReserved("gpuidx");
	if (!process_shared_preload_libraries_in_progress)
		return;
	gpuidx_exec_shmem_init();
	gpuidx_register_worker();
	gpuidx_plan_init();
}
