/*
 * posting_rank.h - what the SQL entry points of ranked retrieval share:
 * the functions over list arrays (posting_rank.c) and the aggregates over
 * list rows (posting_rankagg.c).  Checks raise errors; a batch built here
 * is prepared, then run on the executor (exec_rank.h) or in the backend.
 */
#ifndef POSTING_RANK_H
#define POSTING_RANK_H

#include "posting.h"
#include "gpx_doclen.h"
#include "gpx_rank_batch.h"

/* k in 1 .. GPX_RANK_MAX_K, k1 finite and >= 0, b in [0, 1]. */
extern void posting_rank_check_params(int32 k, double k1, double b);

/* Open collection statistics that can rank (documents, non-zero length). */
extern void posting_rank_stats(Datum d, gpx_doclen *dl);

/* A list no longer than the collection. */
extern void posting_rank_check_list(const gpx_list *l, const gpx_doclen *dl);

/* Result slots of a query: min(k, what can match), at least 1. */
extern uint32 posting_rank_result_bound(const gpx_rank_bquery *bq,
										const gpx_rank_bterm *terms,
										const gpx_list *gl, uint32 k);

/* b->out_docs and b->out_scores for b->out_slots results. */
extern void posting_rank_alloc_out(gpx_rank_batch *b);

/* gpx_rank_batch_prepare, an error if it refuses. */
extern void posting_rank_prepare(gpx_rank_batch *b);

/* Workspace for posting_rank_compute; *ws gets its size. */
extern void *posting_rank_work(const gpx_rank_batch *b, size_t *ws);

/* Rank a prepared batch in the backend without raising an error. */
extern gpx_status posting_rank_compute(gpx_rank_batch *b, void *work, size_t ws);

/* The errors of posting_rank_compute's status and of each query. */
extern void posting_rank_finish(const gpx_rank_batch *b, gpx_status st);

#endif							/* POSTING_RANK_H */
