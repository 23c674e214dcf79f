/*
 * gpx_rank_batch.h - a batch of ranked queries in flat arrays, as a
 * statement hands it over (posting_rank_and_batch / posting_rank_or_batch)
 * and as the executor, its CPU threads or a GPU back end would take it.
 *
 * Everything is an array of plain structs indexed by position, with no
 * pointer inside an element: queries[q] names its terms as a range of
 * terms[], each term names its list as an index into lists[] (-1: a term
 * no document holds) and carries its idf, computed on the host by
 * gpx_rank_batch_prepare (a device never evaluates log; gpx_bm25.h).  One
 * collection (doclen) and one (k1, b) serve the whole batch.  Query q's
 * answer goes to out_docs / out_scores [out_offset, out_offset + k), best
 * first, with out_count and status set by the back end.
 *
 * What a GPU back end reads per list is the blob itself (header,
 * directory, docID payload, frequency section: gpx_codec.h), per query the
 * range of terms, and once per batch the statistics blob (a dense array of
 * document lengths, gpx_doclen.h).  Its answers must equal
 * gpx_rank_batch_run's bit for bit: same docIDs, order and scores.
 *
 * Nothing is allocated: the caller passes a workspace of
 * gpx_rank_batch_work_size bytes.
 */
#ifndef GPX_RANK_BATCH_H
#define GPX_RANK_BATCH_H

#include "gpx_batch.h"
#include "gpx_rank.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a query asks for. */
#define GPX_RANK_MODE_AND 1		/* documents holding every term */
#define GPX_RANK_MODE_OR 2		/* documents holding any term */

/* One query of a batch. */
typedef struct gpx_rank_bquery
{
	uint32_t	first_term;		/* its terms: terms[first_term ..] */
	uint32_t	nterms;			/* 1 .. GPX_RANK_MAX_TERMS */
	uint32_t	k;				/* 1 .. GPX_RANK_MAX_K */
	uint32_t	mode;			/* GPX_RANK_MODE_AND or _OR */
	uint64_t	out_offset;		/* its k result slots */
	uint32_t	out_count;		/* set by the back end */
	int32_t		status;			/* gpx_status, set by the back end */
} gpx_rank_bquery;

/* One term of a query, in query order. */
typedef struct gpx_rank_bterm
{
	int32_t		list;			/* index into lists[], or -1 */
	uint32_t	df;				/* its list's length (0 for -1) */
	double		idf;			/* set by gpx_rank_batch_prepare */
} gpx_rank_bterm;

/* A batch. */
typedef struct gpx_rank_batch
{
	uint32_t	nqueries;
	uint32_t	nterms;
	uint32_t	nlists;
	gpx_rank_bquery *queries;
	gpx_rank_bterm *terms;
	const gpx_list *lists;		/* opened, valid blobs */
	const gpx_key *list_keys;	/* NULL, or each list's identity key
								 * (gpx_key_content or gpx_key_name; none:
								 * not to be kept): a device may keep a
								 * keyed list between calls and find it by
								 * key (same key and header: same bytes) */
	const gpx_doclen *doclen;	/* ndocs >= 1, total >= 1 */
	uint64_t	doclen_id;		/* identity of doclen's content that a
								 * device may keep it by between calls
								 * (the same id: the same bytes), or 0 */
	double		k1;
	double		b;
	gpx_rank_algo or_algo;		/* GPX_RANK_AUTO unless testing */
	uint32_t   *out_docs;
	double	   *out_scores;
	uint64_t	out_slots;		/* size of both result arrays */
} gpx_rank_batch;

/*
 * Check the batch's shape (ranges inside their arrays, parameters, every
 * list no longer than N, results within out_slots) and fill each term's
 * df and idf.  GPX_E_ARG names nothing more: callers check their inputs
 * first for good error messages.
 */
gpx_status	gpx_rank_batch_prepare(gpx_rank_batch *b);

/* Workspace bytes gpx_rank_batch_run needs for queries [first, first+count). */
size_t		gpx_rank_batch_work_size(const gpx_rank_batch *b, uint32_t first,
									 uint32_t count);

/*
 * Run queries [first, first + count) of a prepared batch on this thread,
 * one after the other; each query's status says how it went.  Threads may
 * run disjoint ranges at once, each with its own workspace.  stats (may be
 * NULL) accumulates over the range.
 */
gpx_status	gpx_rank_batch_run(gpx_rank_batch *b, uint32_t first, uint32_t count,
							   void *work, size_t worklen, gpx_rank_stats *stats);

#ifdef __cplusplus
}
#endif

#endif							/* GPX_RANK_BATCH_H */
