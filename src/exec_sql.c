/*
 * exec_sql.c - SQL functions that look into the executor:
 *
 *   gpuidx_stats()          counters since the last reset (the view
 *                           gpuidx_stats selects from it)
 *   gpuidx_stats_reset()    zero the counters
 *   gpuidx_info()           executor state, device, arena and cache use,
 *                           batching settings and the auto cost model
 *   gpuidx_inject_fault()   make the executor fail or pause on purpose,
 *                           or its GPU run out of memory (tests;
 *                           superuser only)
 *
 * Without shared_preload_libraries = 'gpuidx' they answer with zeros and
 * "not preloaded" rather than erroring, so monitoring queries keep working.
 */
#include "postgres.h"

#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"

#include "exec_cost.h"
#include "exec_shmem.h"

#define STATS_COLS 26
#define INFO_COLS 24

/* Read a counter (0 without shared memory). */
static inline int64
stat_read(pg_atomic_uint64 *c)
{
	return (int64) pg_atomic_read_u64(c);
}

/* gpuidx_stats(): one row of counters. */
PG_FUNCTION_INFO_V1(gpuidx_stats);
Datum
gpuidx_stats(PG_FUNCTION_ARGS)
{
	TupleDesc	tupdesc;
	Datum		v[STATS_COLS];
	bool		nulls[STATS_COLS];
	int			i = 0;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	if (tupdesc->natts != STATS_COLS)
		elog(ERROR, "gpuidx_stats: the installed SQL declares %d columns, the library %d",
			 tupdesc->natts, STATS_COLS);
	memset(nulls, 0, sizeof(nulls));
	if (gpuidx_exec_shm == NULL)
	{
		for (int c = 0; c < STATS_COLS; c++)
			v[c] = Int64GetDatum(0);
		/* the float8 columns: the batch means, executor time, round trip */
		v[3] = v[4] = v[5] = v[8] = v[12] = Float8GetDatum(0.0);
		nulls[STATS_COLS - 1] = true;
	}
	else
	{
		GpxExecStats *s = &gpuidx_exec_shm->ctl->stats;
		int64		requests = stat_read(&s->requests),
					batches = stat_read(&s->batches),
					fb_down = stat_read(&s->fb_executor_down),
					fb_full = stat_read(&s->fb_arena_full),
					fb_large = stat_read(&s->fb_too_large),
					fb_timeout = stat_read(&s->fb_timeout),
					fb_failed = stat_read(&s->fb_failed);

		v[i++] = Int64GetDatum(requests);
		v[i++] = Int64GetDatum(stat_read(&s->queries));
		v[i++] = Int64GetDatum(batches);
		v[i++] = Float8GetDatum(batches ? (double) stat_read(&s->batch_postings) / batches : 0.0);
		v[i++] = Float8GetDatum(batches ? (double) stat_read(&s->batch_requests) / batches : 0.0);
		v[i++] = Float8GetDatum(batches ? (double) stat_read(&s->queries) / batches : 0.0);
		v[i++] = Int64GetDatum(stat_read(&s->multi_backend_batches));
		v[i++] = Int64GetDatum(stat_read(&s->max_batch_backends));
		v[i++] = Float8GetDatum(stat_read(&s->executor_us) / 1000.0);
		v[i++] = Int64GetDatum(stat_read(&s->gpu_batches));
		v[i++] = Int64GetDatum(stat_read(&s->gpu_failures));
		v[i++] = Int64GetDatum(stat_read(&s->gpu_unavailable));
		v[i++] = Float8GetDatum(requests ? stat_read(&s->roundtrip_us) / 1000.0 / requests : 0.0);
		v[i++] = Int64GetDatum(stat_read(&s->backend_queries));
		v[i++] = Int64GetDatum(fb_down + fb_full + fb_large + fb_timeout + fb_failed);
		v[i++] = Int64GetDatum(fb_down);
		v[i++] = Int64GetDatum(fb_full);
		v[i++] = Int64GetDatum(fb_large);
		v[i++] = Int64GetDatum(fb_timeout);
		v[i++] = Int64GetDatum(fb_failed);
		v[i++] = Int64GetDatum(stat_read(&s->cache_hits));
		v[i++] = Int64GetDatum(stat_read(&s->cache_misses));
		v[i++] = Int64GetDatum(stat_read(&s->lists_not_read));
		v[i++] = Int64GetDatum(stat_read(&s->cache_evictions));
		v[i++] = Int64GetDatum(stat_read(&s->bytes_copied));
		v[i++] = TimestampTzGetDatum((TimestampTz) stat_read(&s->reset_time));
		Assert(i == STATS_COLS);
	}
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, v, nulls)));
}

/* gpuidx_stats_reset(): zero every counter. */
PG_FUNCTION_INFO_V1(gpuidx_stats_reset);
Datum
gpuidx_stats_reset(PG_FUNCTION_ARGS)
{
	if (gpuidx_exec_shm == NULL)
		PG_RETURN_VOID();
	gpuidx_exec_stats_reset(&gpuidx_exec_shm->ctl->stats, false);
	PG_RETURN_VOID();
}

/* Name of an executor state. */
static const char *
exec_state_name(uint32 st)
{
	switch (st)
	{
		case GPX_EXEC_STOPPED:
			return "stopped";
		case GPX_EXEC_STARTING:
			return "starting";
		case GPX_EXEC_RUNNING:
			return "running";
	}
	return "unknown";
}

/* gpuidx_info(): one row describing the executor. */
PG_FUNCTION_INFO_V1(gpuidx_info);
Datum
gpuidx_info(PG_FUNCTION_ARGS)
{
	static const char *const dev_names[] = {"auto", "gpu", "cpu"};
	TupleDesc	tupdesc;
	Datum		v[INFO_COLS];
	bool		nulls[INFO_COLS];
	int			i = 0;
	GpxExecShared *ctl;
	double		c_b,
				c_e,
				o_us;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	if (tupdesc->natts != INFO_COLS)
		elog(ERROR, "gpuidx_info: the installed SQL declares %d columns, the library %d",
			 tupdesc->natts, INFO_COLS);
	memset(nulls, 0, sizeof(nulls));
	if (gpuidx_exec_shm == NULL)
	{
		memset(nulls, true, sizeof(nulls));
		v[0] = BoolGetDatum(false);
		nulls[0] = false;
		v[1] = CStringGetTextDatum("not preloaded");
		nulls[1] = false;
		PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, v, nulls)));
	}
	ctl = gpuidx_exec_shm->ctl;
	LWLockAcquire(ctl->lock, LW_SHARED);
	v[i++] = BoolGetDatum(true);
	v[i++] = CStringGetTextDatum(exec_state_name(ctl->exec_state));
	v[i] = Int32GetDatum(ctl->exec_pid);
	nulls[i++] = ctl->exec_pid == 0;
	v[i++] = Int32GetDatum(ctl->exec_starts);
	v[i] = TimestampTzGetDatum(ctl->exec_started);
	nulls[i++] = ctl->exec_started == 0;
	v[i++] = CStringGetTextDatum(dev_names[gpuidx_exec_device]);
	v[i++] = CStringGetTextDatum(ctl->device_desc);
	v[i] = CStringGetTextDatum(ctl->device_note);
	nulls[i++] = ctl->device_note[0] == '\0';
	v[i++] = Int32GetDatum(ctl->exec_threads);
	v[i++] = Int64GetDatum((int64) ctl->arena_size);
	v[i++] = Int64GetDatum((int64) ctl->arena_used);
	v[i++] = Int64GetDatum((int64) ctl->arena_peak);
	v[i++] = Int32GetDatum(ctl->nslots);
	v[i++] = Int32GetDatum(ctl->nused);
	v[i++] = Int32GetDatum(ctl->nqueued);
	v[i++] = Int64GetDatum((int64) ctl->queued_work);
	v[i++] = Int32GetDatum(ctl->cache_count);
	v[i++] = Int64GetDatum((int64) ctl->cache_bytes);
	v[i++] = Int64GetDatum((int64) ctl->cache_budget);
	v[i++] = Int32GetDatum(gpuidx_exec_batch_threshold);
	v[i++] = Int32GetDatum(gpuidx_exec_batch_max_wait);
	gpuidx_exec_cost_show(&c_b, &c_e, &o_us);
	v[i++] = Float8GetDatum(c_b);
	v[i++] = Float8GetDatum(c_e);
	v[i++] = Float8GetDatum(o_us);
	LWLockRelease(ctl->lock);
	Assert(i == INFO_COLS);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, v, nulls)));
}

/* gpuidx_inject_fault(fault, duration_ms): arm a fault in the executor. */
PG_FUNCTION_INFO_V1(gpuidx_inject_fault);
Datum
gpuidx_inject_fault(PG_FUNCTION_ARGS)
{
	char	   *fault = text_to_cstring(PG_GETARG_TEXT_PP(0));
	int32		ms = PG_GETARG_INT32(1);
	int			f;

	if (!superuser())
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("only superusers may inject executor faults")));
	if (strcmp(fault, "none") == 0)
		f = GPX_FAULT_NONE;
	else if (strcmp(fault, "error") == 0)
		f = GPX_FAULT_ERROR;
	else if (strcmp(fault, "stall") == 0)
		f = GPX_FAULT_STALL;
	else if (strcmp(fault, "hold") == 0)
		f = GPX_FAULT_HOLD;
	else if (strcmp(fault, "gpu_oom") == 0)
		f = GPX_FAULT_GPU_OOM;
	else if (strcmp(fault, "oid_gap") == 0)
		f = GPX_FAULT_OID_GAP;
	else
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown executor fault \"%s\"", fault),
				 errhint("Use none, error, stall, hold, gpu_oom or oid_gap.")));
	if (ms < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("fault duration must not be negative")));
	if (gpuidx_exec_shm == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("the gpuidx executor is not available"),
				 errhint("Add gpuidx to shared_preload_libraries.")));
	LWLockAcquire(gpuidx_exec_shm->ctl->lock, LW_EXCLUSIVE);
	if (f == GPX_FAULT_OID_GAP)
	{
		/* the next sample finds the clock behind it: a new key epoch */
		gpuidx_exec_shm->ctl->oid_sampled_us = PG_INT64_MAX;
	}
	else if (f == GPX_FAULT_GPU_OOM)
	{
		/* read by every GPU dispatch, so it lives beside the one-shot fault */
		gpuidx_exec_shm->ctl->gpu_oom_until = ms > 0 ?
			TimestampTzPlusMilliseconds(GetCurrentTimestamp(), ms) : 0;
		gpuidx_exec_shm->ctl->gpu_oom_next = ms == 0;
	}
	else
	{
		gpuidx_exec_shm->ctl->fault = f;
		gpuidx_exec_shm->ctl->fault_ms = ms;
		if (f == GPX_FAULT_NONE)
		{
			gpuidx_exec_shm->ctl->gpu_oom_until = 0;
			gpuidx_exec_shm->ctl->gpu_oom_next = false;
		}
	}
	LWLockRelease(gpuidx_exec_shm->ctl->lock);
	gpuidx_exec_wake_proc(gpuidx_exec_shm->ctl->exec_procno);
	PG_RETURN_VOID();
}
