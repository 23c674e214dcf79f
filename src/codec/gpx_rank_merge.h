/*
 * gpx_rank_merge.h - several ranked batches (gpx_rank_batch.h) run as one:
 * their queries, terms and lists laid end to end in one batch, then each
 * query's answer copied back where its own batch wants it.
 *
 * What it is for: a GPU runs a batch of a few queries in about the time
 * of one (the kernels' chain of launches sets it), so batches queued for
 * the GPU go faster merged than one after the other.  Batches merge only
 * when they share everything that is batch-wide: the statistics (a
 * non-zero doclen_id, the same on each), k1, b and the OR algorithm.
 *
 * The merged batch points into the batches' own lists, keys and
 * statistics (they must outlive it) and into a workspace of the caller's
 * (gpx_rank_merge_size bytes, 8-byte aligned) for its arrays and answers.
 * Pure C, no allocation, no global state.
 */
#ifndef GPX_RANK_MERGE_H
#define GPX_RANK_MERGE_H

#include "gpx_rank_batch.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Whether batches a and b may run merged (the batch-wide fields agree). */
bool		gpx_rank_merge_compatible(const gpx_rank_batch *a, const gpx_rank_batch *b);

/* Workspace bytes that merging bs[0 .. n) takes. */
size_t		gpx_rank_merge_size(gpx_rank_batch *const *bs, uint32_t n);

/*
 * Merge bs[0 .. n) (n >= 1, counts that fit uint32; whether they may run
 * as one is the caller's to judge) into *out, its arrays in work (worklen
 * >= gpx_rank_merge_size): GPX_E_ARG when they do not fit.  Query j of
 * batch i becomes query (sum of the earlier batches' nqueries) + j, not
 * run yet (status -1), its terms and lists renumbered alike and its
 * results placed after the earlier batches' out_slots; a batch without
 * keys gives its lists none (the zero key); the batch-wide fields are
 * bs[0]'s.
 */
gpx_status	gpx_rank_merge(gpx_rank_batch *const *bs, uint32_t n, void *work, size_t worklen,
						   gpx_rank_batch *out);

/*
 * After the merged batch ran: each query's status, out_count (at most its
 * k) and answers (out_count docIDs and scores) back into its own batch's
 * query and result arrays.
 */
void		gpx_rank_merge_scatter(const gpx_rank_batch *merged, gpx_rank_batch *const *bs,
								   uint32_t n);

#ifdef __cplusplus
}
#endif

#endif							/* GPX_RANK_MERGE_H */
