/*
 * gpuidx.h - the module's settings: the gpuidx.* GUC variables, defined
 * and registered by _PG_init (gpuidx.c) with the executor's background
 * worker, and read by the executor's files (exec_*.c).
 */
#ifndef GPUIDX_H
#define GPUIDX_H

#include "postgres.h"

/* gpuidx.device */
typedef enum GpxDevice
{
	GPX_DEVICE_AUTO = 0,		/* route by cost; executor uses a GPU if any */
	GPX_DEVICE_GPU,				/* everything to the executor, on a GPU */
	GPX_DEVICE_CPU,				/* everything to the executor, CPU threads */
	GPX_DEVICE_BACKEND			/* nothing to the executor: the backend
								 * computes, reading in place the lists the
								 * shared cache holds; for the executor
								 * itself the same as auto */
} GpxDevice;

extern int	gpuidx_exec_arena_kb;		/* gpuidx.arena_size (kB) */
extern int	gpuidx_exec_max_requests;	/* gpuidx.max_requests */
extern int	gpuidx_exec_cache_kb;		/* gpuidx.cache_size (kB) */
extern int	gpuidx_exec_batch_threshold;	/* gpuidx.batch_threshold */
extern int	gpuidx_exec_batch_max_wait;	/* gpuidx.batch_max_wait (us) */
extern int	gpuidx_exec_device;			/* gpuidx.device (GpxDevice) */
extern int	gpuidx_exec_threads;		/* gpuidx.executor_threads */
extern bool gpuidx_exec_use;			/* gpuidx.use_executor */
extern bool gpuidx_exec_fallback;		/* gpuidx.executor_fallback */
extern int	gpuidx_exec_timeout_ms;		/* gpuidx.executor_timeout (ms) */
extern char *gpuidx_exec_gpus;			/* gpuidx.gpus: "0" or "0,1,..." */
extern int	gpuidx_exec_spin_us;		/* gpuidx.spin_wait (us) */
extern int	gpuidx_exec_pipeline_depth;	/* gpuidx.pipeline_depth */
extern bool gpuidx_exec_gpu_graphs;		/* gpuidx.gpu_graphs */
extern bool gpuidx_exec_gpu_thread;		/* gpuidx.gpu_thread */
extern bool gpuidx_exec_rank_merge_on;	/* gpuidx.rank_merge */
extern int	gpuidx_exec_rank_streams;	/* gpuidx.rank_streams (at most
										 * GPX_CUDA_RANK_MAX_STREAMS) */

/* Most batches the executor keeps in flight (gpuidx.pipeline_depth). */
#define GPX_EXEC_MAX_DEPTH 8

/* Most GPUs gpuidx.gpus may name. */
#define GPX_EXEC_MAX_GPUS 16

/* Parse a gpuidx.gpus value into ordinals; returns the count or -1. */
extern int	gpuidx_exec_parse_gpus(const char *s, int *out, int max);

#endif							/* GPUIDX_H */
