/*
 * exec_client.h - how SQL functions hand intersections to the executor.
 *
 * Entry points for the intersection aggregate and the batch function:
 *
 *   gpuidx_exec_intersect()      one query; true when the executor
 *                                computed it, false when the caller
 *                                must compute it in the backend
 *   gpuidx_exec_intersect_many() many queries as one batch of requests
 *   gpuidx_exec_intersect_all()  many queries, every one answered: the
 *                                executor where it is routed, the
 *                                backend for the rest (and for every
 *                                fallback); errors are raised here
 *
 * The lists are parsed views (gpx_open) of blobs in the backend's memory;
 * the executor receives copies (or only a content hash when it already
 * caches the list), never pointers.  Without shared_preload_libraries =
 * 'gpuidx', with gpuidx.use_executor = off, or when gpuidx.device = auto
 * estimates the backend to be faster, nothing leaves the backend.
 */
#ifndef EXEC_CLIENT_H
#define EXEC_CLIENT_H

#include "postgres.h"

#include "gpx_codec.h"

/* Register the executor's GUCs, shared memory and worker (from _PG_init). */
extern void gpuidx_exec_init(void);

/* One intersection query. */
typedef struct GpxExecQuery
{
	const gpx_list *const *lists;	/* k >= 1 parsed lists */
	int			k;
	uint32	   *out;			/* room for the shortest list's n values */
	uint32		outn;			/* result count, once computed */
	bool		done;			/* computed (by the executor or _all) */
} GpxExecQuery;

/* Run one query on the executor; false: compute it in the backend. */
extern bool gpuidx_exec_intersect(const gpx_list *const *lists, int k,
								  uint32 *out, uint32 *outn);

/* Send queries to the executor as one batch; returns how many it computed. */
extern int	gpuidx_exec_intersect_many(GpxExecQuery *qs, int nq);

/* Whether the executor takes requests now (worth gathering queries for). */
extern bool gpuidx_exec_can_batch(void);

/* Answer every query: executor where routed, backend for the rest. */
extern void gpuidx_exec_intersect_all(GpxExecQuery *qs, int nq);

#endif							/* EXEC_CLIENT_H */
