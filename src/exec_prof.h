/*
 * exec_prof.h - where the executor's main thread spends its time: every
 * moment of its loop is charged to one phase (taking requests, building a
 * batch, handing it to a device, polling the device, finishing a batch,
 * waiting), kept in shared memory so that gpuidx_executor_profile() shows
 * it.  Always on: a switch costs two clock reads and no lock.  Internal to
 * the exec_*.c files.
 */
#ifndef EXEC_PROF_H
#define EXEC_PROF_H

#include "postgres.h"

#include "port/atomics.h"

/* The phases of the executor's loop (time is exclusive: nested calls
 * charge their own phase). */
typedef enum GpxExecPhase
{
	GPX_PHASE_OTHER = 0,		/* the loop itself, reloads, orphan checks */
	GPX_PHASE_TAKE,				/* taking queued requests (under the lock) */
	GPX_PHASE_BUILD,			/* building a batch's descriptors */
	GPX_PHASE_SUBMIT,			/* handing a batch to the GPU or the pool
								 * (planning, staging, issuing copies and
								 * kernels; a lone query with nothing else
								 * in flight runs here on the CPU) */
	GPX_PHASE_RANK,				/* a ranked batch: read and grouped, then
								 * posted to the GPU thread (or run here) */
	GPX_PHASE_UNION,			/* a union batch (on the GPU synchronously) */
	GPX_PHASE_POLL,				/* asking the devices whether a batch is done
								 * (and issuing its queued chunks) */
	GPX_PHASE_FINISH,			/* handing results back, waking backends */
	GPX_PHASE_CPU,				/* running queries of a batch on the CPU
								 * threads' behalf */
	GPX_PHASE_WAIT,				/* spinning or sleeping for work to come or
								 * a batch to finish */
	GPX_PHASE_COUNT
} GpxExecPhase;

/* The counters of one phase, in the shared statistics. */
typedef struct GpxExecPhaseStat
{
	pg_atomic_uint64 ns;		/* time charged, nanoseconds */
	pg_atomic_uint64 calls;		/* times entered */
} GpxExecPhaseStat;

/* A phase's name as gpuidx_executor_profile() shows it. */
extern const char *gpuidx_exec_phase_name(int phase);

/*
 * Executor side: charge the time since the last switch to the current
 * phase, count an entry into phase and make it current; returns the phase
 * to give back to gpuidx_exec_prof_end.
 */
extern int	gpuidx_exec_prof_begin(int phase);

/* Charge the time since the last switch and make prev current again. */
extern void gpuidx_exec_prof_end(int prev);

/* Start the clock (executor start-up). */
extern void gpuidx_exec_prof_start(void);

#endif							/* EXEC_PROF_H */
