/*
 * gpx_topk.h - the k best (docID, score) pairs of a ranked query.
 *
 * Order: a higher score is better; between equal scores the smaller docID
 * is better.  That is a strict total order on distinct docIDs, so the top
 * k of a set is unique and every path (CPU algorithms, GPU) must return
 * exactly it, best first.
 *
 * The structure is a binary min-heap on that order (its root is the worst
 * of the best k so far) over two caller-owned arrays of k slots, docs and
 * scores: flat arrays that a GPU kernel can fill or merge too.
 * gpx_topk_finish sorts them in place, best first.  Nothing is allocated.
 */
#ifndef GPX_TOPK_H
#define GPX_TOPK_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "gpx_bits.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A heap of at most k pairs over the caller's arrays. */
typedef struct gpx_topk
{
	uint32_t	k;				/* capacity (>= 1) */
	uint32_t	n;				/* pairs held */
	uint32_t   *docs;			/* k slots */
	double	   *scores;			/* k slots */
} gpx_topk;

/* True when (s1, d1) ranks before (s2, d2). */
GPX_HD bool
gpx_topk_better(double s1, uint32_t d1, double s2, uint32_t d2)
{
	return s1 > s2 || (s1 == s2 && d1 < d2);
}

/* Start an empty heap of capacity k (>= 1) over docs[k] and scores[k]. */
void		gpx_topk_init(gpx_topk *t, uint32_t k, uint32_t *docs, double *scores);

/*
 * The score a new pair must exceed to enter when its docID is larger than
 * every docID offered so far (document-at-a-time order): -infinity while
 * fewer than k pairs are held, else the worst held score.
 */
static inline double
gpx_topk_threshold(const gpx_topk *t)
{
	return t->n < t->k ? -INFINITY : t->scores[0];
}

/*
 * Offer (doc, score); true when it entered (displacing the worst pair when
 * full).  Any order of offers gives the same final set; a docID must not
 * be offered twice.
 */
bool		gpx_topk_push(gpx_topk *t, uint32_t doc, double score);

/* Sort the held pairs best first (the heap is unusable afterwards). */
void		gpx_topk_finish(gpx_topk *t);

/*
 * Offer docs[0..n) (strictly increasing docIDs) with scores[0..n) to an
 * empty t and finish it: the same pairs in the same order as pushing them
 * one by one and gpx_topk_finish give, by a stable sort of the scores
 * when n is not much above k.  tmp: 2 n slots of scratch.
 */
void		gpx_topk_all(gpx_topk *t, const uint32_t *docs, const double *scores,
						 uint32_t n, uint32_t *tmp);

#ifdef __cplusplus
}
#endif

#endif							/* GPX_TOPK_H */
