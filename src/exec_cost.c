/*
 * exec_cost.c - the cost model of gpuidx.device = auto (after Ding et al.,
 * WWW 2009: send each query to the processor that suits it, estimated
 * from list lengths).  For a set of queries with work W = sum over
 * queries of (shortest n) * (k - 1):
 *
 *   backend  T_b = W * c_b
 *   executor T_e = o + d + W * c_e / p + B * c_copy
 *
 * c_b: measured cost of one probe in the backend (moving average over
 * in-backend intersections); c_e: the executor's cost per probe and
 * thread (its CPU threads run the same code, so c_e = c_b; on a GPU the
 * executor measures it per batch); p: threads the set can use
 * (min(executor threads, queries); 1 on a GPU); o: measured round-trip
 * overhead; d: the batching delay still to come (0 when the queue plus
 * this set reaches gpuidx.batch_threshold or when no other backend has a
 * request in flight, since the executor then runs it at once; else
 * gpuidx.batch_max_wait); B: bytes to copy into the arena (each distinct
 * list once), c_copy = 0.15 ns per byte.  The set goes to the executor
 * when T_e < T_b.  gpuidx_info() shows the current coefficients.
 *
 * The coefficients live in shared memory as picoseconds per unit of work
 * (atomics, exponential moving averages with weight 1/8), so every
 * backend and the executor feed and read one model.
 */
#include "postgres.h"

#include "exec_cost.h"
#include "gpuidx.h"

/* Copy (and key) cost per byte, in picoseconds. */
#define COST_COPY_PS_PER_BYTE 150

/* Fold a sample into a moving average (weight 1/8). */
static void
cost_update(pg_atomic_uint64 *avg, uint64 sample)
{
	uint64		cur = pg_atomic_read_u64(avg);

	pg_atomic_write_u64(avg, (cur * 7 + sample) / 8);
}

/* First guesses of a fresh region: 10 ns per probe on one core. */
void
gpuidx_exec_cost_init(GpxExecShared *ctl)
{
	pg_atomic_init_u64(&ctl->cost_backend_ps, 10000);
	pg_atomic_init_u64(&ctl->cost_exec_ps, 10000);
	pg_atomic_init_u64(&ctl->cost_overhead_ns, 50000);
}

/* Whether gpuidx.device sends a set of queries to the executor (model above). */
bool
gpuidx_exec_cost_route(int nq, uint64 work, uint64 bytes, uint64 postings)
{
	GpxExecShared *ctl = gpuidx_exec_shm->ctl;
	double		c_b,
				c_e,
				t_b,
				t_e,
				par;

	if (gpuidx_exec_device != GPX_DEVICE_AUTO)
		return true;
	c_b = pg_atomic_read_u64(&ctl->cost_backend_ps) / 1000.0;
	c_e = ctl->exec_gpu ? pg_atomic_read_u64(&ctl->cost_exec_ps) / 1000.0 : c_b;
	par = ctl->exec_gpu ? 1 : Max(1, Min(ctl->exec_threads, nq));
	t_b = work * c_b;
	t_e = pg_atomic_read_u64(&ctl->cost_overhead_ns) +
		(ctl->queued_work + postings >= (uint64) gpuidx_exec_batch_threshold ||
		 pg_atomic_read_u32(&ctl->clients_inflight) == 0
		 ? 0.0 : gpuidx_exec_batch_max_wait * 1000.0) +
		work * c_e / par + bytes * (COST_COPY_PS_PER_BYTE / 1000.0);
	return t_e < t_b;
}

/* The backend side of the model, from sizeable samples only. */
void
gpuidx_exec_cost_note_backend(uint64 work, double seconds)
{
	if (gpuidx_exec_shm == NULL || work < 100000)
		return;
	cost_update(&gpuidx_exec_shm->ctl->cost_backend_ps,
				(uint64) (seconds * 1e12 / work));
}

/* The model's overhead: what of a round trip is neither wait nor compute. */
void
gpuidx_exec_cost_note_overhead(int64 ns)
{
	if (ns > 0)
		cost_update(&gpuidx_exec_shm->ctl->cost_overhead_ns, (uint64) ns);
}

/* The executor's per-thread cost, from sizeable batches only. */
void
gpuidx_exec_cost_note_executor(uint64 work, int64 run_us, uint64 par)
{
	if (work < 10000 || run_us <= 0)
		return;
	cost_update(&gpuidx_exec_shm->ctl->cost_exec_ps,
				(uint64) run_us * 1000000 * Max(par, 1) / work);
}

/* A GPU opened: an optimistic 1 ns per probe until the first batches measure. */
void
gpuidx_exec_cost_gpu_opened(void)
{
	pg_atomic_write_u64(&gpuidx_exec_shm->ctl->cost_exec_ps, 1000);
}

/* Current coefficients (the executor's is the backend's without a GPU). */
void
gpuidx_exec_cost_show(double *backend_ns, double *exec_ns, double *overhead_us)
{
	GpxExecShared *ctl = gpuidx_exec_shm->ctl;

	*backend_ns = pg_atomic_read_u64(&ctl->cost_backend_ps) / 1000.0;
	*exec_ns = ctl->exec_gpu ?
		pg_atomic_read_u64(&ctl->cost_exec_ps) / 1000.0 : *backend_ns;
	*overhead_us = pg_atomic_read_u64(&ctl->cost_overhead_ns) / 1000.0;
}
