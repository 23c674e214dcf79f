/*
 * bench_cpu.h - where a timed phase's CPU time went (Linux /proc): the
 * host's busy share, and the CPU time of the phase's own backends, of the
 * gpuidx executor (all its threads), of this client process and of every
 * other process, so that a benchmark can say whether a path is bound by
 * the host's cores or by latency, and whose cycles bound it.
 *
 * Snapshot at the start and at the end of the phase (while its backends
 * are still connected: a process that exits takes its counters along) and
 * take the difference, process by process: one that starts during the
 * phase counts from zero, one that ends during it is not counted.  Zeroes
 * where /proc is missing.
 */
#ifndef BENCH_CPU_H
#define BENCH_CPU_H

#include <stdbool.h>
#include <stddef.h>

/* The classes of processes. */
enum
{
	BENCH_CPU_BACKEND,			/* the pids given */
	BENCH_CPU_EXECUTOR,			/* processes titled "gpuidx executor" */
	BENCH_CPU_SELF,				/* this process */
	BENCH_CPU_OTHER				/* every other process */
};

/* One process's CPU seconds and class. */
typedef struct bench_cpu_proc
{
	int			pid,
				cls;
	double		sec;
} bench_cpu_proc;

/* One snapshot. */
typedef struct bench_cpu_snap
{
	double		host_busy,		/* the host's non-idle CPU seconds, all cores */
				host_total;		/* its busy + idle CPU seconds */
	bench_cpu_proc *procs;		/* every process, by pid (malloc'd) */
	int			nprocs;
	bool		ok;				/* /proc could be read */
} bench_cpu_snap;

/* The difference of two snapshots, per query. */
typedef struct bench_cpu_use
{
	double		busy_pct;		/* host busy share of all cores, % */
	double		cores;			/* cores' worth of busy time over the phase */
	double		backends_us,	/* CPU microseconds a query, by class */
				executor_us,
				self_us,
				other_us;
	bool		ok;
} bench_cpu_use;

/* Take a snapshot; pids: the phase's backends (n of them). */
extern void bench_cpu_take(bench_cpu_snap *s, const int *pids, int n);

/* Free a snapshot's process table. */
extern void bench_cpu_free(bench_cpu_snap *s);

/* What happened between a and b, over nq queries. */
extern bench_cpu_use bench_cpu_diff(const bench_cpu_snap *a, const bench_cpu_snap *b,
									double nq);

#endif
