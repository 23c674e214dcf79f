/*
 * exec_cost.h - the cost model of gpuidx.device = auto: whether a set of
 * queries goes to the executor or stays in the backend, and the measured
 * coefficients it rests on (kept in shared memory, exec_shmem.h).
 * Internal to the exec_*.c files.
 */
#ifndef EXEC_COST_H
#define EXEC_COST_H

#include "exec_shmem.h"

/* First guesses of a fresh region, until measured. */
extern void gpuidx_exec_cost_init(GpxExecShared *ctl);

/*
 * Whether gpuidx.device sends a set of nq queries (work W, bytes to copy,
 * postings of shortest lists) to the executor.
 */
extern bool gpuidx_exec_cost_route(int nq, uint64 work, uint64 bytes,
								   uint64 postings);

/* A backend computed work units in seconds (sizeable samples only). */
extern void gpuidx_exec_cost_note_backend(uint64 work, double seconds);

/* A round trip took ns besides its batching wait and compute time. */
extern void gpuidx_exec_cost_note_overhead(int64 ns);

/* A round trip's share of the model: its wake-up delay and the backend's CPU. */
extern void gpuidx_exec_cost_note_wake(int64 ns);
extern void gpuidx_exec_cost_note_req_cpu(int nq, int64 cpu_ns);

/* The in-backend intersections' CPU time, beside their wall time. */
extern void gpuidx_exec_cost_note_backend_cpu(uint64 work, int64 cpu_ns);

/* The executor's CPU time over an interval in which it ran nq queries. */
extern void gpuidx_exec_cost_note_exec_cpu(uint64 nq, int64 cpu_ns);

/* This thread's CPU time, and a monotonic clock shared by all processes, in ns. */
extern int64 gpuidx_exec_thread_cpu_ns(void);
extern int64 gpuidx_exec_process_cpu_ns(void);
extern int64 gpuidx_exec_now_ns(void);

/*
 * The executor ran a batch of work units on par threads (1: a GPU) in
 * run_us, its requests having waited wait_us on average to be taken.
 */
extern void gpuidx_exec_cost_note_executor(uint64 work, int64 run_us,
										   uint64 par, int64 wait_us);

/*
 * Ranked batches (candidates per mode: [0] AND, [1] OR, exec_rank.c):
 * whether auto sends one to the executor's GPU (the caller checks that
 * there is one), what the backend's ranking took, and what a GPU run of
 * the executor took.
 */
extern bool gpuidx_exec_cost_route_rank(const uint64 cand[2], uint64 bytes);
extern void gpuidx_exec_cost_note_rank_backend(const uint64 cand[2], double seconds);
extern void gpuidx_exec_cost_note_rank_gpu(const uint64 cand[2], int64 run_us,
										   int64 wait_us);

/* The executor opened a GPU (gpu) or its CPU threads: the fit starts over. */
extern void gpuidx_exec_cost_device_opened(bool gpu);

/* The model's current coefficients, for gpuidx_info(). */
typedef struct GpxCostShow
{
	double		backend_ns;		/* c_b: backend cost per probe */
	double		exec_ns;		/* c_e: executor cost per probe and thread */
	double		overhead_us;	/* o: round trip besides waiting, computing */
	double		batch_us;		/* F: fixed cost of a batch */
	double		wait_us;		/* d: mean wait to be taken into a batch */
	double		rank_backend_ns[2]; /* ranked {AND, OR}: r_b, backend per candidate */
	double		rank_gpu_ns[2];	/* r_e: the GPU's per candidate */
	double		rank_gpu_batch_us[2];	/* F_r: the GPU's per batch */
} GpxCostShow;

extern void gpuidx_exec_cost_show(GpxCostShow *c);

#endif							/* EXEC_COST_H */
