/*
 * exec_sql.c - SQL functions that look into the executor:
 *
 *   gpuidx_stats()          counters since the last reset (the view
 *                           gpuidx_stats selects from it)
 *   gpuidx_stats_reset()    zero the counters
 *   gpuidx_executor_profile()   the executor loop's time by phase since
 *                           the last reset (exec_prof.h)
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

#include "catalog/pg_type.h"
#include "funcapi.h"
#include "utils/tuplestore.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"

#include "exec_cache.h"
#include "exec_cost.h"
#include "exec_shmem.h"

/*
 * The columns these functions can return, by name.  The row is built for
 * the row type the installed SQL declares (get_call_result_type), not for
 * the newest layout: a database whose extension is still at an older
 * version (0.1's gpuidx_stats has no gpu_unavailable) keeps working with
 * a newer library, and gets the columns its version declares.
 */
typedef struct SqlCol
{
	const char *name;
	Oid			type;
	Datum		value;
	bool		isnull;
} SqlCol;

/* Append a column to cols[*n]. */
static inline void
sql_col(SqlCol *cols, int *n, const char *name, Oid type, Datum value, bool isnull)
{
	cols[*n].name = name;
	cols[*n].type = type;
	cols[*n].value = value;
	cols[*n].isnull = isnull;
	(*n)++;
}

/*
 * The row of function fn for the row type its SQL declares: each declared
 * column by name from cols[0..ncols).  A declared column this library does
 * not know, or knows with another type, is an error: the SQL is newer than
 * the library, or was changed by hand.
 */
static Datum
sql_row_by_name(FunctionCallInfo fcinfo, const char *fn, const SqlCol *cols, int ncols)
{
	TupleDesc	tupdesc;
	Datum	   *v;
	bool	   *nulls;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "%s: return type must be a row type", fn);
	v = palloc(sizeof(Datum) * Max(tupdesc->natts, 1));
	nulls = palloc(sizeof(bool) * Max(tupdesc->natts, 1));
	for (int a = 0; a < tupdesc->natts; a++)
	{
		Form_pg_attribute att = TupleDescAttr(tupdesc, a);
		const char *name = NameStr(att->attname);
		int			c;

		v[a] = (Datum) 0;
		nulls[a] = true;
		if (att->attisdropped)
			continue;
		for (c = 0; c < ncols; c++)
			if (strcmp(cols[c].name, name) == 0)
				break;
		if (c == ncols || cols[c].type != att->atttypid)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("%s: column \"%s\" of the installed SQL is not one this gpuidx library returns",
							fn, name),
					 c == ncols ?
					 errdetail("The library returns no column of that name.") :
					 errdetail("The library returns it as type %s, the SQL declares %s.",
							   format_type_be(cols[c].type), format_type_be(att->atttypid)),
					 errhint("Install the gpuidx library that matches the extension version (see pg_extension.extversion).")));
		v[a] = cols[c].value;
		nulls[a] = cols[c].isnull;
	}
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, v, nulls)));
}

/* Read a counter. */
static inline int64
stat_read(pg_atomic_uint64 *c)
{
	return (int64) pg_atomic_read_u64(c);
}

/*
 * gpuidx_stats(): one row of counters (zeros and no reset time without
 * shared memory), for the columns the installed SQL declares.
 */
PG_FUNCTION_INFO_V1(gpuidx_stats);
Datum
gpuidx_stats(PG_FUNCTION_ARGS)
{
	SqlCol		c[40];
	int			n = 0;
	GpxExecStats *s = gpuidx_exec_shm != NULL ? &gpuidx_exec_shm->ctl->stats : NULL;
	int64		requests = 0,
				queries = 0,
				batches = 0,
				fb_down = 0,
				fb_full = 0,
				fb_large = 0,
				fb_timeout = 0,
				fb_failed = 0;

#define STAT(x) (s != NULL ? stat_read(&s->x) : 0)
#define I8(name, val) sql_col(c, &n, name, INT8OID, Int64GetDatum(val), false)
#define F8(name, val) sql_col(c, &n, name, FLOAT8OID, Float8GetDatum(val), false)
	requests = STAT(requests);
	queries = STAT(queries);
	batches = STAT(batches);
	fb_down = STAT(fb_executor_down);
	fb_full = STAT(fb_arena_full);
	fb_large = STAT(fb_too_large);
	fb_timeout = STAT(fb_timeout);
	fb_failed = STAT(fb_failed);
	I8("requests", requests);
	I8("queries", queries);
	I8("union_queries", STAT(union_queries));
	I8("batches", batches);
	F8("mean_batch_postings", batches ? (double) STAT(batch_postings) / batches : 0.0);
	F8("mean_batch_requests", batches ? (double) STAT(batch_requests) / batches : 0.0);
	F8("mean_batch_queries", batches ? (double) queries / batches : 0.0);
	I8("multi_backend_batches", STAT(multi_backend_batches));
	I8("max_batch_backends", STAT(max_batch_backends));
	I8("batches_overlapped", STAT(overlapped_batches));
	I8("max_batches_in_flight", STAT(max_in_flight));
	F8("executor_time_ms", STAT(executor_us) / 1000.0);
	I8("gpu_batches", STAT(gpu_batches));
	I8("gpu_failures", STAT(gpu_failures));
	I8("gpu_unavailable", STAT(gpu_unavailable));
	F8("mean_roundtrip_ms", requests ? STAT(roundtrip_us) / 1000.0 / requests : 0.0);
	I8("backend_queries", STAT(backend_queries));
	I8("fallbacks", fb_down + fb_full + fb_large + fb_timeout + fb_failed);
	I8("fallback_executor_down", fb_down);
	I8("fallback_arena_full", fb_full);
	I8("fallback_too_large", fb_large);
	I8("fallback_timeout", fb_timeout);
	I8("fallback_failed", fb_failed);
	I8("cache_hits", STAT(cache_hits));
	I8("cache_misses", STAT(cache_misses));
	I8("lists_not_read", STAT(lists_not_read));
	I8("lists_read_shared", STAT(lists_read_shared));
	I8("cache_evictions", STAT(cache_evictions));
	I8("bytes_copied", STAT(bytes_copied));
	sql_col(c, &n, "stats_reset", TIMESTAMPTZOID,
			TimestampTzGetDatum((TimestampTz) STAT(reset_time)), s == NULL);
#undef STAT
#undef I8
#undef F8
	Assert(n <= lengthof(c));
	return sql_row_by_name(fcinfo, "gpuidx_stats", c, n);
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

/*
 * gpuidx_executor_profile(): one row per phase of the executor's loop
 * (exec_prof.h) -- phase, times entered, milliseconds charged and that
 * time's share of all phases -- since the last reset; no rows without
 * shared memory.
 */
PG_FUNCTION_INFO_V1(gpuidx_executor_profile);
Datum
gpuidx_executor_profile(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	uint64		ns[GPX_PHASE_COUNT];
	uint64		total = 0;

	InitMaterializedSRF(fcinfo, 0);
	if (gpuidx_exec_shm == NULL)
		return (Datum) 0;
	for (int p = 0; p < GPX_PHASE_COUNT; p++)
	{
		ns[p] = pg_atomic_read_u64(&gpuidx_exec_shm->ctl->stats.phases[p].ns);
		total += ns[p];
	}
	for (int p = 0; p < GPX_PHASE_COUNT; p++)
	{
		Datum		v[4];
		bool		nulls[4] = {false, false, false, false};

		v[0] = CStringGetTextDatum(gpuidx_exec_phase_name(p));
		v[1] = Int64GetDatum((int64) pg_atomic_read_u64(&gpuidx_exec_shm->ctl->stats.phases[p].calls));
		v[2] = Float8GetDatum(ns[p] / 1e6);
		v[3] = Float8GetDatum(total > 0 ? (double) ns[p] / (double) total : 0.0);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, v, nulls);
	}
	return (Datum) 0;
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

/*
 * gpuidx_info(): one row describing the executor, for the columns the
 * installed SQL declares; without shared memory only preloaded (false)
 * and executor_state ("not preloaded") are set.
 */
PG_FUNCTION_INFO_V1(gpuidx_info);
Datum
gpuidx_info(PG_FUNCTION_ARGS)
{
	static const char *const dev_names[] = {"auto", "gpu", "cpu", "backend"};
	SqlCol		c[40];
	int			n = 0;
	GpxExecShared *ctl = gpuidx_exec_shm != NULL ? gpuidx_exec_shm->ctl : NULL;
	bool		no = ctl == NULL;
	GpxCostShow cs;

#define COL(name, type, val, isnull) sql_col(c, &n, name, type, (val), (isnull))
	memset(&cs, 0, sizeof(cs));
	if (ctl != NULL)
	{
		LWLockAcquire(ctl->lock, LW_SHARED);
		gpuidx_exec_cost_show(&cs);
	}
	COL("preloaded", BOOLOID, BoolGetDatum(!no), false);
	COL("executor_state", TEXTOID,
		CStringGetTextDatum(no ? "not preloaded" : exec_state_name(ctl->exec_state)), false);
	COL("executor_pid", INT4OID, Int32GetDatum(no ? 0 : ctl->exec_pid), no || ctl->exec_pid == 0);
	COL("executor_starts", INT4OID, Int32GetDatum(no ? 0 : ctl->exec_starts), no);
	COL("executor_started", TIMESTAMPTZOID, TimestampTzGetDatum(no ? 0 : ctl->exec_started),
		no || ctl->exec_started == 0);
	COL("device", TEXTOID, CStringGetTextDatum(dev_names[gpuidx_exec_device]), no);
	COL("device_active", TEXTOID, CStringGetTextDatum(no ? "" : ctl->device_desc), no);
	COL("device_note", TEXTOID, CStringGetTextDatum(no ? "" : ctl->device_note),
		no || ctl->device_note[0] == '\0');
	COL("cpu_threads", INT4OID, Int32GetDatum(no ? 0 : ctl->exec_threads), no);
	COL("arena_size", INT8OID, Int64GetDatum(no ? 0 : (int64) ctl->arena_size), no);
	COL("arena_used", INT8OID, Int64GetDatum(no ? 0 : (int64) ctl->arena.used), no);
	COL("arena_peak", INT8OID, Int64GetDatum(no ? 0 : (int64) ctl->arena.peak), no);
	COL("slots", INT4OID, Int32GetDatum(no ? 0 : ctl->nslots), no);
	COL("slots_used", INT4OID, Int32GetDatum(no ? 0 : ctl->nused), no);
	COL("queued", INT4OID, Int32GetDatum(no ? 0 : ctl->nqueued), no);
	COL("queued_postings", INT8OID, Int64GetDatum(no ? 0 : (int64) ctl->queued_work), no);
	COL("cache_entries", INT4OID, Int32GetDatum(no ? 0 : ctl->cache_count), no);
	COL("cache_bytes", INT8OID, Int64GetDatum(no ? 0 : (int64) ctl->cache_bytes), no);
	COL("cache_size", INT8OID, Int64GetDatum(no ? 0 : (int64) ctl->cache_budget), no);
	COL("cache_read_pins", INT4OID, Int32GetDatum(no ? 0 : gpuidx_exec_cache_read_pins()), no);
	COL("batch_threshold", INT4OID, Int32GetDatum(gpuidx_exec_batch_threshold), no);
	COL("batch_max_wait_us", INT4OID, Int32GetDatum(gpuidx_exec_batch_max_wait), no);
	COL("cost_backend_ns", FLOAT8OID, Float8GetDatum(cs.backend_ns), no);
	COL("cost_executor_ns", FLOAT8OID, Float8GetDatum(cs.exec_ns), no);
	COL("overhead_us", FLOAT8OID, Float8GetDatum(cs.overhead_us), no);
	COL("cost_batch_us", FLOAT8OID, Float8GetDatum(cs.batch_us), no);
	COL("wait_us", FLOAT8OID, Float8GetDatum(cs.wait_us), no);
	COL("pipeline_depth", INT4OID, Int32GetDatum(gpuidx_exec_pipeline_depth), no);
	COL("batches_in_flight", INT4OID, Int32GetDatum(no ? 0 : ctl->exec_in_flight), no);
	COL("rank_and_backend_ns", FLOAT8OID, Float8GetDatum(cs.rank_backend_ns[0]), no);
	COL("rank_and_gpu_ns", FLOAT8OID, Float8GetDatum(cs.rank_gpu_ns[0]), no);
	COL("rank_and_gpu_batch_us", FLOAT8OID, Float8GetDatum(cs.rank_gpu_batch_us[0]), no);
	COL("rank_or_backend_ns", FLOAT8OID, Float8GetDatum(cs.rank_backend_ns[1]), no);
	COL("rank_or_gpu_ns", FLOAT8OID, Float8GetDatum(cs.rank_gpu_ns[1]), no);
	COL("rank_or_gpu_batch_us", FLOAT8OID, Float8GetDatum(cs.rank_gpu_batch_us[1]), no);
#undef COL
	if (ctl != NULL)
		LWLockRelease(ctl->lock);
	Assert(n <= lengthof(c));
	return sql_row_by_name(fcinfo, "gpuidx_info", c, n);
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
		SpinLockAcquire(&gpuidx_exec_shm->ctl->oidlock);
		gpuidx_exec_shm->ctl->oid_sampled_us = PG_INT64_MAX;
		SpinLockRelease(&gpuidx_exec_shm->ctl->oidlock);
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
