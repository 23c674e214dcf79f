/*
 * exec_prof.c - the executor's phase clock (exec_prof.h): exclusive time
 * per phase of the main loop, in the shared statistics (GpxExecStats.
 * phases), read by gpuidx_executor_profile() and zeroed with the other
 * counters by gpuidx_stats_reset().
 *
 * Only the executor's main thread writes the counters, so an update is a
 * read and a write of its own counter (no locked instruction); a reset by
 * a backend racing with it may lose one interval, which is harmless.
 */
#include "postgres.h"

#include <time.h>

#include "exec_prof.h"
#include "exec_shmem.h"

static const char *const phase_names[GPX_PHASE_COUNT] = {
	[GPX_PHASE_OTHER] = "other",
	[GPX_PHASE_TAKE] = "take",
	[GPX_PHASE_BUILD] = "build",
	[GPX_PHASE_SUBMIT] = "submit",
	[GPX_PHASE_RANK] = "rank",
	[GPX_PHASE_UNION] = "union",
	[GPX_PHASE_POLL] = "poll",
	[GPX_PHASE_FINISH] = "finish",
	[GPX_PHASE_CPU] = "cpu",
	[GPX_PHASE_WAIT] = "wait",
};

/* The current phase and when it was last charged (executor process). */
static int	prof_cur = GPX_PHASE_OTHER;
static uint64 prof_last;

/* A monotonic clock in nanoseconds. */
static inline uint64
prof_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64) ts.tv_sec * 1000000000 + (uint64) ts.tv_nsec;
}

/* A phase's name (NULL for none). */
const char *
gpuidx_exec_phase_name(int phase)
{
	return phase >= 0 && phase < GPX_PHASE_COUNT ? phase_names[phase] : NULL;
}

/* Add v to a counter only this process writes. */
static inline void
prof_add(pg_atomic_uint64 *c, uint64 v)
{
	pg_atomic_write_u64(c, pg_atomic_read_u64(c) + v);
}

/* Charge the time since the last switch to the current phase. */
static inline void
prof_charge(void)
{
	uint64		now = prof_now();

	prof_add(&gpuidx_exec_shm->ctl->stats.phases[prof_cur].ns, now - prof_last);
	prof_last = now;
}

/* Start the clock: the time from here on is charged. */
void
gpuidx_exec_prof_start(void)
{
	prof_last = prof_now();
	prof_cur = GPX_PHASE_OTHER;
}

/* Enter phase (counted); returns the phase left. */
int
gpuidx_exec_prof_begin(int phase)
{
	int			prev = prof_cur;

	Assert(phase >= 0 && phase < GPX_PHASE_COUNT);
	prof_charge();
	prof_add(&gpuidx_exec_shm->ctl->stats.phases[phase].calls, 1);
	prof_cur = phase;
	return prev;
}

/* Go back to phase prev (not counted as an entry). */
void
gpuidx_exec_prof_end(int prev)
{
	prof_charge();
	prof_cur = prev;
}
