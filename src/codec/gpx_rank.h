/*
 * gpx_rank.h - top-k BM25 retrieval over lists with frequencies (pure C,
 * no postgres.h): ranked AND and ranked OR.
 *
 * A query is its terms in the order written (a repeated term appears
 * again), each a gpx_plist or NULL for a term no document holds, the
 * collection statistics (gpx_doclen), k1, b and k.  The answer is the k
 * best documents by gpx_bm25.h's score (higher first, ties by smaller
 * docID; gpx_topk.h), each with its score, bit-identical whatever the
 * algorithm:
 *
 *   AND   documents holding every term.  The candidates come from the
 *         skipping intersection (gpx_intersect.h) when every list is a
 *         blob, from a cursor leapfrog for the array form; then one pass
 *         per term, in query order, fetches each candidate's tf through a
 *         forward cursor (decoding only blocks that hold candidates) and
 *         adds the term's weight to the candidate's score.  A NULL or
 *         empty term gives no documents.
 *   OR    documents holding any term (NULL and empty terms add nothing),
 *         with one of:
 *     EXHAUSTIVE  document at a time over every posting (the reference);
 *     MAXSCORE    Turtle and Flood's MaxScore: terms sorted by their upper
 *                 bound; the ones whose bounds together cannot beat the
 *                 k-th score are "non-essential" and only probed for
 *                 documents the others produce, while the candidate can
 *                 still win;
 *     BMM         MaxScore with block-max bounds (Chakrabarti et al., Ding
 *                 and Suel): before probing the non-essential lists, the
 *                 largest tf of the block each would hold the candidate in
 *                 (from the directory, nothing decoded) must leave the
 *                 candidate a chance;
 *     BMW         BlockMax-WAND (Ding and Suel, SIGIR 2011): pivoting on
 *                 list bounds, then block bounds, skipping whole blocks.
 *     AUTO        the default, BMM: measured fastest on the GOV2-calibrated
 *                 collection and on real text (docs/RANKING.md).
 *
 * Upper bounds.  A term's contribution grows with tf and shrinks with the
 * document length, so idf * (k1 + 1) * tf / (tf + norm(dl)) at the block's
 * (or list's) largest tf bounds every posting of the block: with the
 * collection's shortest length for document-independent bounds (MaxScore's
 * partition, WAND's pivot), and with the candidate's own length once it is
 * known (the non-essential probes).  Stored tfs keep the bounds valid for
 * any k1, b and any later statistics, which stored scores would not.
 * Bounds and partial sums are compared with the threshold only after a
 * relative margin (GPX_RANK_SLACK) that covers every rounding difference
 * between summation orders, so pruning never drops a document that exact
 * scoring in query order would keep: results equal EXHAUSTIVE's, bits and
 * all, which the unit tests check.
 *
 * Memory: the caller passes a workspace of gpx_rank_or_work_size() or
 * gpx_rank_and_work_size() bytes (8-byte aligned) and the result arrays
 * docs[k], scores[k]; nothing is allocated.  No function prints.
 */
#ifndef GPX_RANK_H
#define GPX_RANK_H

#include "gpx_bm25.h"
#include "gpx_doclen.h"
#include "gpx_plist.h"
#include "gpx_topk.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The largest k, and the most terms one query may have. */
#define GPX_RANK_MAX_K 10000
#define GPX_RANK_MAX_TERMS 1024

/*
 * Prune only when bound * GPX_RANK_SLACK <= threshold.  Summing up to
 * GPX_RANK_MAX_TERMS positive doubles in two orders differs by far less
 * than 2^-30 relatively (about terms * 2^-53), and so do a bound and the
 * weight it bounds computed with different operands.
 */
#define GPX_RANK_SLACK (1.0 + 0x1p-30)

typedef enum gpx_rank_algo
{
	GPX_RANK_AUTO = 0,
	GPX_RANK_EXHAUSTIVE,
	GPX_RANK_MAXSCORE,
	GPX_RANK_BMM,
	GPX_RANK_BMW
} gpx_rank_algo;

/* One ranked query. */
typedef struct gpx_rank_query
{
	const gpx_plist *const *terms;	/* nterms, query order; NULL: no list */
	int			nterms;			/* 1 .. GPX_RANK_MAX_TERMS */
	const gpx_doclen *doclen;	/* statistics: ndocs >= 1, total >= 1 */
	double		k1;				/* >= 0, finite */
	double		b;				/* 0 .. 1 */
	uint32_t	k;				/* 1 .. GPX_RANK_MAX_K */
} gpx_rank_query;

/* Work counters of one call (zeroed by the call). */
typedef struct gpx_rank_stats
{
	uint64_t	candidates;		/* AND: intersection size */
	uint64_t	scored;			/* documents fully scored */
	uint64_t	postings;		/* postings whose weight was computed */
	uint64_t	pruned;			/* OR: candidates dropped by a bound */
	uint64_t	block_skips;	/* BMW: skips past a whole block range */
	gpx_plist_counts lists;		/* cursor work: blocks decoded, ... */
} gpx_rank_stats;

/*
 * Check a query: term count, k, k1, b, statistics (N >= 1, L >= 1), and
 * that no list holds more documents than N.  GPX_OK or GPX_E_ARG.
 */
gpx_status	gpx_rank_check(const gpx_rank_query *q);

/* Workspace bytes gpx_rank_or needs. */
size_t		gpx_rank_or_work_size(int nterms);

/*
 * Ranked OR: the k best documents holding any term into docs[0..*outn)
 * and scores[0..*outn), best first (*outn <= k).  stats may be NULL.
 */
gpx_status	gpx_rank_or(const gpx_rank_query *q, gpx_rank_algo algo,
						void *work, size_t worklen, uint32_t *docs,
						double *scores, uint32_t *outn, gpx_rank_stats *stats);

/*
 * Workspace bytes gpx_rank_and needs: a few cursors plus 24 bytes per
 * posting of the shortest list (0 when a term is NULL or empty, or on
 * overflow: check with gpx_rank_check first).
 */
size_t		gpx_rank_and_work_size(const gpx_rank_query *q);

/* The same from the term count and the shortest list's length. */
size_t		gpx_rank_and_work_size_n(int nterms, uint32_t shortest);

/* Ranked AND, as gpx_rank_or for documents holding every term. */
gpx_status	gpx_rank_and(const gpx_rank_query *q, void *work, size_t worklen,
						 uint32_t *docs, double *scores, uint32_t *outn,
						 gpx_rank_stats *stats);

/* The document length BM25 uses for docID d: its length, or avgdl. */
static inline double
gpx_rank_dl(const gpx_doclen *dl, const gpx_bm25 *p, uint32_t d)
{
	uint32_t	e = gpx_doclen_get(dl, d);

	return e == 0 ? p->avgdl : (double) (e - 1);
}

#ifdef __cplusplus
}
#endif

#endif							/* GPX_RANK_H */
