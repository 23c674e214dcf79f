/*
 * exec_cost.c - the cost model of gpuidx.device = auto (after Ding et al.,
 * WWW 2009: send each query to the processor that suits it, estimated
 * from list lengths), for an executor that keeps several batches in
 * flight.  For a set of nq queries (one statement's) with work W = sum
 * over queries of (shortest n) * (k - 1):
 *
 *   backend  T_b = W * c_b
 *   executor T_e = o + d + F + (W + Q) * c_e / p + B * c_copy
 *
 * c_b: measured cost of one probe in the backend (running median over
 * in-backend intersections; wall-clock time, so it grows when the
 * backends contend for the CPUs).  The executor's batch time is fitted,
 * per batch, as run = F + c_e * W_batch / p_batch (an exponentially
 * weighted least-squares line): F is what a batch costs whatever its size
 * (on a GPU: planning, the launches, collecting; and, with batches in
 * flight, the time it waits behind the one before it on the device), c_e
 * the cost per probe (per thread on CPU threads, the whole device on a
 * GPU).  Without a GPU the executor's threads run the backend's code, so
 * c_e = c_b there.  p: the threads the batch can use (min(executor
 * threads, queries in it); 1 on a GPU).  Q: the work already queued,
 * which joins the same batch.  d: the wait to be taken into a batch, 0
 * when the set starts one at once (the queue plus the set reach
 * gpuidx.batch_threshold, or no other backend has a request in flight),
 * else the median wait of recent requests (under load it includes
 * waiting for a free place among the batches in flight, so it is what
 * tells a busy executor from an idle one).  o: the measured round trip
 * besides waiting and computing (copying, wake-ups).  B: bytes to copy
 * into the arena (each distinct list once), c_copy = 0.15 ns per byte.
 * The set goes to the executor when T_e < T_b, except that with a GPU
 * one close decision in 16 on a set of at most 4 queries explores (below).  Every estimate is a running median,
 * and a batch counts in the fit at most 2x the line plus 20 us, so that
 * a process that waited for a core under load does not move the model.
 * gpuidx_info() shows the current coefficients.
 *
 * So, under load: a query whose work costs less in the backend than the
 * executor's round trip plus its wait and a batch's fixed cost stays in
 * the backend, the rest goes to the executor; more clients make the
 * backends slower per probe (c_b rises with contention) and the executor's
 * queue longer (d rises), and the split moves accordingly.
 *
 * Ranked batches (exec_rank.c) have a model of their own, since ranking
 * a candidate costs another time than a probe, and differently for AND
 * and OR.  Per mode m (AND: a query's candidates are its shortest list;
 * OR: all its lists), for a batch of C[m] candidates:
 *
 *   backend  T_b = sum over m of C[m] * r_b[m]
 *   executor T_e = o + d + F_r[m*] + C * r_e[m*] + B * c_copy
 *
 * r_b[m]: measured ranking time per candidate in the backend (running
 * median of in-backend ranked batches of >= 10^4 candidates, charged to
 * the mode holding most of them, m*); F_r, r_e: the line fitted, per mode,
 * to the executor's GPU runs of ranked batches (run time against
 * candidates), as F and c_e above; o and d are the intersections'.  An
 * executor without a GPU keeps ranked batches in the backend (its threads
 * would run the backend's code after a round trip).  Both models explore:
 * a model fed only by the path it chooses cannot see the other get
 * faster, so when the two estimates are within 2x of each other one such
 * close decision in 16 takes the other path; a path estimated 2x slower
 * or worse is never taken to explore.
 *
 * The coefficients live in shared memory (atomics: running medians, the
 * fit's sums as doubles in 64-bit words), so every backend
 * and the executor feed and read one model; only the executor writes the
 * fits and d.
 */
#include "postgres.h"

#include <math.h>
#include <time.h>

#include "exec_cost.h"
#include "gpuidx.h"

/* Copy (and key) cost per byte, in picoseconds. */
#define COST_COPY_PS_PER_BYTE 150

/*
 * First guesses until batches measure: 10 ns per probe on one core; on a
 * GPU 0.3 ns per probe and 40 us per batch (one client on an H200, the
 * fits of 2026-12-04: 0.18-0.19 ns and 36-38 us on the acceptance
 * queries, 0.20-0.42 ns and 44-48 us on routing_bench's mixed log,
 * docs/gpu-runs/h200-auto/); a CPU batch costs next to nothing besides
 * its probes.  The GPU's are calibrated on a GPU machine
 * (docs/EXECUTOR.md, "Calibrating on a GPU").
 */
#define COST_FIRST_PROBE_PS 10000
#define COST_GPU_FIRST_PROBE_PS 300
#define COST_GPU_FIRST_BATCH_NS 40000
#define COST_CPU_FIRST_BATCH_NS 2000

/*
 * A host with no free core.  A woken backend that waits longer than this
 * for a core, as the median, says the cores are all busy (a wake-up onto
 * an idle core takes 5-20 us); the round trip is charged at most the
 * second figure for waking up.  First guesses of the CPU regime: a query
 * sent costs its backend 20 us and the executor 40 us of CPU (an H200
 * host with 16 clients, 2026-12-04: 30-33 us above the floor, 35 us).
 */
#define COST_BUSY_WAKE_NS 50000
#define COST_WAKE_MAX_NS 20000
#define COST_FIRST_REQ_CPU_NS 20000
#define COST_FIRST_EXEC_CPU_NS 40000
/* The executor's CPU counts over intervals of this many queries and more. */
#define COST_EXEC_CPU_MIN_QUERIES 100

/*
 * Ranked batches' first guesses, per candidate (AND, OR) and per batch:
 * an H100 host ranked AND at about 30 ns a candidate in the backend, OR
 * top-10 at 7 and top-1000 at 40; its GPU ran one query in 0.17-0.22 ms
 * with 0.2-1 ns a candidate (docs/BENCHMARKS.md, 2026-11-28).
 */
#define COST_RANK_FIRST_PS_AND 30000
#define COST_RANK_FIRST_PS_OR 20000
#define COST_RANK_GPU_FIRST_PS 500
#define COST_RANK_GPU_FIRST_BATCH_NS 150000
/* In-backend ranked batches of fewer candidates say little: not sampled. */
#define COST_RANK_MIN_SAMPLE 10000
/* Exploring: close (within this factor) decisions, one in COST_EXPLORE. */
#define COST_CLOSE 2.0
#define COST_EXPLORE 16
/* Sets of intersections of more queries never explore. */
#define COST_EXPLORE_MAX_QUERIES 4

/* Step of the running medians (1/16 of the estimate a sample) and the fit's weight. */
#define COST_MED_STEP_DIV 16
#define COST_FIT_WEIGHT (1.0 / 16)
/* A batch's time folded into the fit at most this times the line's, plus 20 us. */
#define COST_FIT_CAP 2.0
#define COST_FIT_CAP_NS 20000.0

/* A double in an atomic word (bit pattern). */
static inline double
cost_getd(pg_atomic_uint64 *w)
{
	uint64		u = pg_atomic_read_u64(w);
	double		d;

	memcpy(&d, &u, sizeof(d));
	return d;
}

/* Store a double in an atomic word. */
static inline void
cost_setd(pg_atomic_uint64 *w, double d)
{
	uint64		u;

	memcpy(&u, &d, sizeof(u));
	pg_atomic_write_u64(w, u);
}

/*
 * Fold a sample into a running median: the estimate steps 1/16 of itself
 * towards the sample (at least 1 up).  A mean moved by 1/8 of each sample
 * took a backend's scheduling delays into the estimates: with 16 clients
 * on a saturated host one round trip in a few hundred waited milliseconds
 * for its backend to run again, the mean overhead went from 15 us to
 * 770 us, auto sent nothing more to the GPU and so never measured it
 * again (docs/BENCHMARKS.md, 2026-12-04).  The median ignores such
 * outliers and still follows a lasting change in tens of samples.
 */
static void
cost_update(pg_atomic_uint64 *est, uint64 sample)
{
	uint64		cur = pg_atomic_read_u64(est);

	if (sample > cur)
		pg_atomic_write_u64(est, cur + cur / COST_MED_STEP_DIV + 1);
	else if (sample < cur)
		pg_atomic_write_u64(est, cur - cur / COST_MED_STEP_DIV);
}

/*
 * Whether to take the other path than the model's choice go, to measure
 * it: one close decision (estimates t_b, t_e within 2x) in 16.  A model
 * fed only by the path it chooses cannot see the other get faster; a path
 * estimated 2x slower or worse is never taken to explore.
 */
static bool
cost_explore(double t_b, double t_e)
{
	GpxExecShared *ctl = gpuidx_exec_shm->ctl;

	return Max(t_b, t_e) < COST_CLOSE * Min(t_b, t_e) &&
		pg_atomic_fetch_add_u32(&ctl->cost_close, 1) % COST_EXPLORE == COST_EXPLORE - 1;
}

/*
 * Start a batch-time fit (sums s[4], its slope ps and intercept ns) over
 * with a line through (x0, F + c * x0) that moves as batches come: the
 * sums of a few virtual batches of that line.
 */
static void
cost_line_reset(pg_atomic_uint64 *s, pg_atomic_uint64 *ps, pg_atomic_uint64 *ns,
				double x0, double batch_ns, double probe_ns)
{
	cost_setd(&s[0], x0);
	cost_setd(&s[1], batch_ns + probe_ns * x0);
	cost_setd(&s[2], x0 * x0 * 1.5);	/* some spread: a slope */
	cost_setd(&s[3], x0 * (batch_ns + probe_ns * x0) + 0.5 * x0 * x0 * probe_ns);
	pg_atomic_write_u64(ps, (uint64) (probe_ns * 1000));
	pg_atomic_write_u64(ns, (uint64) batch_ns);
}

/*
 * Fold a batch of x units run in y ns into the fit (sums s[4], slope ps,
 * intercept ns): a weighted least-squares line, weight COST_FIT_WEIGHT.
 * y counts at most COST_FIT_CAP times the line's time plus 20 us: a
 * batch whose thread waited for a core says little about the device.
 */
static void
cost_line_add(pg_atomic_uint64 *s4, pg_atomic_uint64 *ps, pg_atomic_uint64 *ns,
			  double x, double y)
{
	double		w = COST_FIT_WEIGHT,
				s[4],
				var,
				slope,
				icpt;

	y = Min(y, COST_FIT_CAP * (pg_atomic_read_u64(ns) + x * pg_atomic_read_u64(ps) / 1000.0) +
			COST_FIT_CAP_NS);
	s[0] = cost_getd(&s4[0]) * (1 - w) + w * x;
	s[1] = cost_getd(&s4[1]) * (1 - w) + w * y;
	s[2] = cost_getd(&s4[2]) * (1 - w) + w * x * x;
	s[3] = cost_getd(&s4[3]) * (1 - w) + w * x * y;
	for (int i = 0; i < 4; i++)
		cost_setd(&s4[i], s[i]);
	var = s[2] - s[0] * s[0];
	slope = pg_atomic_read_u64(ps) / 1000.0;
	/* batches of about one size say little about the slope: keep it */
	if (var > 0.01 * s[0] * s[0] && isfinite(var))
		slope = (s[3] - s[0] * s[1]) / var;
	slope = Max(slope, 0.0);
	icpt = s[1] - slope * s[0];
	if (icpt < 0)
	{
		/* a line through the origin fits better than a negative F */
		icpt = 0;
		slope = s[0] > 0 ? s[1] / s[0] : slope;
	}
	if (!isfinite(slope) || !isfinite(icpt))
		return;
	pg_atomic_write_u64(ps, (uint64) (slope * 1000.0));
	pg_atomic_write_u64(ns, (uint64) icpt);
}

/* Fold a batch's mean wait to be taken (us; < 0: none) into d. */
static void
cost_note_wait(GpxExecShared *ctl, int64 wait_us)
{
	if (wait_us >= 0)
		cost_update(&ctl->cost_wait_ns, (uint64) wait_us * 1000);
}

/* Start the intersections' batch-time fit over (x0: a typical batch). */
static void
cost_fit_reset(GpxExecShared *ctl, double batch_ns, double probe_ns)
{
	cost_line_reset(ctl->cost_fit, &ctl->cost_exec_ps, &ctl->cost_batch_ns, 100000,
					batch_ns, probe_ns);
}

/* Start the ranked batches' GPU fits over (x0: a query of 50,000 candidates). */
static void
cost_rank_fit_reset(GpxExecShared *ctl)
{
	for (int m = 0; m < 2; m++)
		cost_line_reset(ctl->rank_fit[m], &ctl->rank_exec_ps[m], &ctl->rank_batch_ns[m],
						50000, COST_RANK_GPU_FIRST_BATCH_NS, COST_RANK_GPU_FIRST_PS / 1000.0);
}

/* First guesses of a fresh region. */
void
gpuidx_exec_cost_init(GpxExecShared *ctl)
{
	pg_atomic_init_u64(&ctl->cost_backend_ps, COST_FIRST_PROBE_PS);
	pg_atomic_init_u64(&ctl->cost_exec_ps, COST_FIRST_PROBE_PS);
	pg_atomic_init_u64(&ctl->cost_overhead_ns, 50000);
	pg_atomic_init_u64(&ctl->cost_batch_ns, COST_CPU_FIRST_BATCH_NS);
	pg_atomic_init_u64(&ctl->cost_wait_ns, 0);
	pg_atomic_init_u64(&ctl->cost_wake_ns, 0);
	pg_atomic_init_u64(&ctl->cost_backend_cpu_ps, COST_FIRST_PROBE_PS);
	pg_atomic_init_u64(&ctl->cost_req_cpu_ns, COST_FIRST_REQ_CPU_NS);
	pg_atomic_init_u64(&ctl->cost_exec_cpu_ns, COST_FIRST_EXEC_CPU_NS);
	for (int i = 0; i < 4; i++)
		pg_atomic_init_u64(&ctl->cost_fit[i], 0);
	cost_fit_reset(ctl, COST_CPU_FIRST_BATCH_NS, COST_FIRST_PROBE_PS / 1000.0);
	pg_atomic_init_u64(&ctl->rank_backend_ps[0], COST_RANK_FIRST_PS_AND);
	pg_atomic_init_u64(&ctl->rank_backend_ps[1], COST_RANK_FIRST_PS_OR);
	for (int m = 0; m < 2; m++)
	{
		pg_atomic_init_u64(&ctl->rank_exec_ps[m], 0);
		pg_atomic_init_u64(&ctl->rank_batch_ns[m], 0);
		for (int i = 0; i < 4; i++)
			pg_atomic_init_u64(&ctl->rank_fit[m][i], 0);
	}
	pg_atomic_init_u32(&ctl->cost_close, 0);
	cost_rank_fit_reset(ctl);
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
				par,
				wait;
	uint64		queued = ctl->queued_work;

	if (gpuidx_exec_device != GPX_DEVICE_AUTO)
		return gpuidx_exec_device != GPX_DEVICE_BACKEND;
	if (ctl->exec_gpu && pg_atomic_read_u64(&ctl->cost_wake_ns) > COST_BUSY_WAKE_NS)
	{
		/*
		 * No free core: every path waits for one, and what a query costs
		 * the others is its CPU time.  The GPU path's is its backend's
		 * share of the round trip and the executor's; the backend's, the
		 * intersection itself.
		 */
		t_b = work * (pg_atomic_read_u64(&ctl->cost_backend_cpu_ps) / 1000.0);
		t_e = nq * (double) (pg_atomic_read_u64(&ctl->cost_req_cpu_ns) +
							 pg_atomic_read_u64(&ctl->cost_exec_cpu_ns)) +
			bytes * (COST_COPY_PS_PER_BYTE / 1000.0);
		if (nq <= COST_EXPLORE_MAX_QUERIES && cost_explore(t_b, t_e))
			return t_e >= t_b;
		return t_e < t_b;
	}
	c_b = pg_atomic_read_u64(&ctl->cost_backend_ps) / 1000.0;
	c_e = ctl->exec_gpu ? pg_atomic_read_u64(&ctl->cost_exec_ps) / 1000.0 : c_b;
	par = ctl->exec_gpu ? 1 : Max(1, Min(ctl->exec_threads, nq + ctl->nqueued));
	wait = queued + postings >= (uint64) gpuidx_exec_batch_threshold ||
		pg_atomic_read_u32(&ctl->clients_inflight) == 0 ? 0.0 :
		(double) pg_atomic_read_u64(&ctl->cost_wait_ns);
	t_b = work * c_b;
	t_e = pg_atomic_read_u64(&ctl->cost_overhead_ns) + wait +
		Min(pg_atomic_read_u64(&ctl->cost_wake_ns), COST_WAKE_MAX_NS) +
		pg_atomic_read_u64(&ctl->cost_batch_ns) +
		(work + queued) * c_e / par + bytes * (COST_COPY_PS_PER_BYTE / 1000.0);
	/*
	 * a close decision now and then takes the other path, to measure it:
	 * only with a GPU (without one c_e is c_b, nothing to learn) and only
	 * for a few queries (a set of many would cost too much)
	 */
	if (ctl->exec_gpu && nq <= COST_EXPLORE_MAX_QUERIES && cost_explore(t_b, t_e))
		return t_e >= t_b;
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

/*
 * The model's overhead: what of a round trip is neither wait nor compute
 * nor the wake-up after it (noted apart: gpuidx_exec_cost_note_wake).
 */
void
gpuidx_exec_cost_note_overhead(int64 ns)
{
	if (ns > 0)
		cost_update(&gpuidx_exec_shm->ctl->cost_overhead_ns, (uint64) ns);
}

/* A request was DONE ns before its backend ran again to collect it. */
void
gpuidx_exec_cost_note_wake(int64 ns)
{
	cost_update(&gpuidx_exec_shm->ctl->cost_wake_ns, (uint64) Max(ns, 0));
}

/* A backend spent cpu_ns of CPU sending nq queries and collecting them. */
void
gpuidx_exec_cost_note_req_cpu(int nq, int64 cpu_ns)
{
	if (nq > 0 && cpu_ns > 0)
		cost_update(&gpuidx_exec_shm->ctl->cost_req_cpu_ns, (uint64) (cpu_ns / nq));
}

/* The in-backend intersections of work units took cpu_ns of CPU (sizeable only). */
void
gpuidx_exec_cost_note_backend_cpu(uint64 work, int64 cpu_ns)
{
	if (gpuidx_exec_shm == NULL || work < 100000 || cpu_ns <= 0)
		return;
	cost_update(&gpuidx_exec_shm->ctl->cost_backend_cpu_ps,
				(uint64) ((double) cpu_ns * 1000.0 / work));
}

/*
 * The executor's threads spent cpu_ns over an interval in which it ran nq
 * queries; an interval of few queries (an idle executor polls) is not
 * counted.
 */
void
gpuidx_exec_cost_note_exec_cpu(uint64 nq, int64 cpu_ns)
{
	if (nq < COST_EXEC_CPU_MIN_QUERIES || cpu_ns <= 0)
		return;
	cost_update(&gpuidx_exec_shm->ctl->cost_exec_cpu_ns, (uint64) cpu_ns / nq);
}

/* A clock's reading in ns. */
static int64
cost_clock_ns(clockid_t id)
{
	struct timespec ts;

	if (clock_gettime(id, &ts) != 0)
		return 0;
	return (int64) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* This thread's CPU time in ns. */
int64
gpuidx_exec_thread_cpu_ns(void)
{
	return cost_clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

/* This process's CPU time (all its threads) in ns. */
int64
gpuidx_exec_process_cpu_ns(void)
{
	return cost_clock_ns(CLOCK_PROCESS_CPUTIME_ID);
}

/* A monotonic clock in ns, the same for every process of the host. */
int64
gpuidx_exec_now_ns(void)
{
	return cost_clock_ns(CLOCK_MONOTONIC);
}

/*
 * A batch of work W ran on par threads (1: a GPU) in run_us, its requests
 * having waited wait_us on average to be taken: fold it into the fit of
 * batch time against work per thread (F, c_e) and into the mean wait d.
 */
void
gpuidx_exec_cost_note_executor(uint64 work, int64 run_us, uint64 par, int64 wait_us)
{
	GpxExecShared *ctl = gpuidx_exec_shm->ctl;

	cost_note_wait(ctl, wait_us);
	if (run_us <= 0)
		return;
	cost_line_add(ctl->cost_fit, &ctl->cost_exec_ps, &ctl->cost_batch_ns,
				  (double) work / Max(par, 1), (double) run_us * 1000.0);
}

/* The mode holding most of a ranked batch's candidates (0 AND, 1 OR). */
static inline int
cost_rank_mode(const uint64 cand[2])
{
	return cand[1] > cand[0] ? 1 : 0;
}

/*
 * Whether auto sends a ranked batch to the executor's GPU (model above;
 * the caller has checked that the executor has one).
 */
bool
gpuidx_exec_cost_route_rank(const uint64 cand[2], uint64 bytes)
{
	GpxExecShared *ctl = gpuidx_exec_shm->ctl;
	int			m = cost_rank_mode(cand);
	double		t_b,
				t_e,
				wait;
	bool		go;

	wait = pg_atomic_read_u32(&ctl->clients_inflight) == 0 ? 0.0 :
		(double) pg_atomic_read_u64(&ctl->cost_wait_ns);
	t_b = (cand[0] * (double) pg_atomic_read_u64(&ctl->rank_backend_ps[0]) +
		   cand[1] * (double) pg_atomic_read_u64(&ctl->rank_backend_ps[1])) / 1000.0;
	t_e = pg_atomic_read_u64(&ctl->cost_overhead_ns) + wait +
		pg_atomic_read_u64(&ctl->rank_batch_ns[m]) +
		(cand[0] + cand[1]) * (pg_atomic_read_u64(&ctl->rank_exec_ps[m]) / 1000.0) +
		bytes * (COST_COPY_PS_PER_BYTE / 1000.0);
	go = t_e < t_b;
	/* a close decision now and then takes the other path, to measure it */
	return cost_explore(t_b, t_e) ? !go : go;
}

/* The backend ranked a batch of cand candidates in seconds (sizeable only). */
void
gpuidx_exec_cost_note_rank_backend(const uint64 cand[2], double seconds)
{
	uint64		n = cand[0] + cand[1];

	if (gpuidx_exec_shm == NULL || n < COST_RANK_MIN_SAMPLE)
		return;
	cost_update(&gpuidx_exec_shm->ctl->rank_backend_ps[cost_rank_mode(cand)],
				(uint64) (seconds * 1e12 / n));
}

/*
 * The executor's GPU ran a ranked batch of cand candidates in run_us, its
 * requests having waited wait_us on average to be taken.
 */
void
gpuidx_exec_cost_note_rank_gpu(const uint64 cand[2], int64 run_us, int64 wait_us)
{
	GpxExecShared *ctl = gpuidx_exec_shm->ctl;
	int			m = cost_rank_mode(cand);

	cost_note_wait(ctl, wait_us);
	if (run_us <= 0)
		return;
	cost_line_add(ctl->rank_fit[m], &ctl->rank_exec_ps[m], &ctl->rank_batch_ns[m],
				  (double) (cand[0] + cand[1]), (double) run_us * 1000.0);
}

/*
 * The executor opened a GPU, or went back to CPU threads: the fit starts
 * over from that device's first guesses.
 */
void
gpuidx_exec_cost_device_opened(bool gpu)
{
	GpxExecShared *ctl = gpuidx_exec_shm->ctl;

	if (gpu)
		cost_fit_reset(ctl, COST_GPU_FIRST_BATCH_NS, COST_GPU_FIRST_PROBE_PS / 1000.0);
	else
		cost_fit_reset(ctl, COST_CPU_FIRST_BATCH_NS,
					   pg_atomic_read_u64(&ctl->cost_backend_ps) / 1000.0);
	cost_rank_fit_reset(ctl);
}

/* Current coefficients (the executor's probe is the backend's without a GPU). */
void
gpuidx_exec_cost_show(GpxCostShow *c)
{
	GpxExecShared *ctl = gpuidx_exec_shm->ctl;

	c->backend_ns = pg_atomic_read_u64(&ctl->cost_backend_ps) / 1000.0;
	c->exec_ns = ctl->exec_gpu ?
		pg_atomic_read_u64(&ctl->cost_exec_ps) / 1000.0 : c->backend_ns;
	c->overhead_us = pg_atomic_read_u64(&ctl->cost_overhead_ns) / 1000.0;
	c->batch_us = pg_atomic_read_u64(&ctl->cost_batch_ns) / 1000.0;
	c->wait_us = pg_atomic_read_u64(&ctl->cost_wait_ns) / 1000.0;
	for (int m = 0; m < 2; m++)
	{
		c->rank_backend_ns[m] = pg_atomic_read_u64(&ctl->rank_backend_ps[m]) / 1000.0;
		c->rank_gpu_ns[m] = pg_atomic_read_u64(&ctl->rank_exec_ps[m]) / 1000.0;
		c->rank_gpu_batch_us[m] = pg_atomic_read_u64(&ctl->rank_batch_ns[m]) / 1000.0;
	}
}
