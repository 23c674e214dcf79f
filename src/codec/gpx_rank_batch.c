/*
 * gpx_rank_batch.c - preparing and running a batch of ranked queries on
 * the CPU (gpx_rank_batch.h).  A query's lists become gpx_plist views in
 * the workspace; the algorithms are gpx_rank.c's.
 */
#include <string.h>

#include "gpx_rank_batch.h"

/* Round a workspace offset up to 8 bytes. */
static inline size_t
rb_align(size_t x)
{
	return (x + 7) & ~(size_t) 7;
}

/* Check the shape of a batch and fill df and idf of every term. */
gpx_status
gpx_rank_batch_prepare(gpx_rank_batch *b)
{
	if (b == NULL || (b->nqueries > 0 && b->queries == NULL) ||
		(b->nterms > 0 && b->terms == NULL) ||
		(b->nlists > 0 && b->lists == NULL) || b->doclen == NULL ||
		b->doclen->ndocs < 1 || b->doclen->total < 1 ||
		!(b->k1 >= 0.0 && b->k1 <= 1e300) || !(b->b >= 0.0 && b->b <= 1.0))
		return GPX_E_ARG;
	for (uint32_t t = 0; t < b->nterms; t++)
	{
		gpx_rank_bterm *bt = &b->terms[t];

		if (bt->list < -1 || (bt->list >= 0 && (uint32_t) bt->list >= b->nlists))
			return GPX_E_ARG;
		bt->df = bt->list >= 0 ? b->lists[bt->list].n : 0;
		if (bt->df > b->doclen->ndocs)
			return GPX_E_ARG;
		bt->idf = bt->list >= 0 ? gpx_bm25_idf(b->doclen->ndocs, bt->df) : 0.0;
	}
	for (uint32_t q = 0; q < b->nqueries; q++)
	{
		const gpx_rank_bquery *bq = &b->queries[q];

		if (bq->nterms < 1 || bq->nterms > GPX_RANK_MAX_TERMS ||
			bq->first_term > b->nterms || bq->nterms > b->nterms - bq->first_term ||
			bq->k < 1 || bq->k > GPX_RANK_MAX_K ||
			(bq->mode != GPX_RANK_MODE_AND && bq->mode != GPX_RANK_MODE_OR) ||
			bq->out_offset > b->out_slots || bq->k > b->out_slots - bq->out_offset)
			return GPX_E_ARG;
	}
	if (b->nqueries > 0 && (b->out_docs == NULL || b->out_scores == NULL))
		return GPX_E_ARG;
	return GPX_OK;
}

/* Workspace of one query: its plists and pointers, then the algorithm's. */
static size_t
rb_query_work(const gpx_rank_batch *b, const gpx_rank_bquery *bq)
{
	size_t		views = rb_align(bq->nterms * sizeof(gpx_plist)) +
		rb_align(bq->nterms * sizeof(gpx_plist *));

	if (bq->mode == GPX_RANK_MODE_OR)
		return views + gpx_rank_or_work_size((int) bq->nterms);
	else
	{
		/* gpx_rank_and_work_size from the lengths, without views */
		uint32_t	shortest = UINT32_MAX;

		for (uint32_t i = 0; i < bq->nterms; i++)
		{
			const gpx_rank_bterm *bt = &b->terms[bq->first_term + i];
			uint32_t	n = bt->list >= 0 ? b->lists[bt->list].n : 0;

			if (n < shortest)
				shortest = n;
		}
		return views + gpx_rank_and_work_size_n((int) bq->nterms, shortest);
	}
}

/* The largest workspace of a range of queries. */
size_t
gpx_rank_batch_work_size(const gpx_rank_batch *b, uint32_t first, uint32_t count)
{
	size_t		w = 8;

	for (uint32_t q = first; q < first + count && q < b->nqueries; q++)
	{
		size_t		x = rb_query_work(b, &b->queries[q]);

		if (x > w)
			w = x;
	}
	return w;
}

/* Accumulate a query's counters into the range's. */
static void
rb_add_stats(gpx_rank_stats *to, const gpx_rank_stats *s)
{
	to->candidates += s->candidates;
	to->scored += s->scored;
	to->postings += s->postings;
	to->pruned += s->pruned;
	to->block_skips += s->block_skips;
	to->lists.blocks_decoded += s->lists.blocks_decoded;
	to->lists.tf_blocks += s->lists.tf_blocks;
	to->lists.shallow_moves += s->lists.shallow_moves;
}

/* Run a range of queries one after the other. */
gpx_status
gpx_rank_batch_run(gpx_rank_batch *b, uint32_t first, uint32_t count,
				   void *work, size_t worklen, gpx_rank_stats *stats)
{
	if (b == NULL || work == NULL || ((uintptr_t) work & 7) != 0 ||
		first > b->nqueries || count > b->nqueries - first)
		return GPX_E_ARG;
	if (stats)
		memset(stats, 0, sizeof(*stats));
	for (uint32_t q = first; q < first + count; q++)
	{
		gpx_rank_bquery *bq = &b->queries[q];
		size_t		need = rb_query_work(b, bq);
		uint8_t    *p = (uint8_t *) work;
		gpx_plist  *pls;
		const gpx_plist **terms;
		gpx_rank_query rq;
		gpx_rank_stats st;
		gpx_status	s = GPX_OK;

		bq->out_count = 0;
		if (need > worklen)
		{
			bq->status = GPX_E_NOSPACE;
			continue;
		}
		pls = (gpx_plist *) p;
		p += rb_align(bq->nterms * sizeof(gpx_plist));
		terms = (const gpx_plist **) p;
		p += rb_align(bq->nterms * sizeof(gpx_plist *));
		for (uint32_t i = 0; i < bq->nterms && s == GPX_OK; i++)
		{
			const gpx_rank_bterm *bt = &b->terms[bq->first_term + i];

			terms[i] = NULL;
			if (bt->list >= 0)
			{
				s = gpx_plist_blob(&pls[i], &b->lists[bt->list]);
				terms[i] = &pls[i];
			}
		}
		if (s == GPX_OK)
		{
			rq.terms = terms;
			rq.nterms = (int) bq->nterms;
			rq.doclen = b->doclen;
			rq.k1 = b->k1;
			rq.b = b->b;
			rq.k = bq->k;
			if (bq->mode == GPX_RANK_MODE_OR)
				s = gpx_rank_or(&rq, b->or_algo, p, worklen - (size_t) (p - (uint8_t *) work),
								b->out_docs + bq->out_offset,
								b->out_scores + bq->out_offset, &bq->out_count, &st);
			else
				s = gpx_rank_and(&rq, p, worklen - (size_t) (p - (uint8_t *) work),
								 b->out_docs + bq->out_offset,
								 b->out_scores + bq->out_offset, &bq->out_count, &st);
			if (stats)
				rb_add_stats(stats, &st);
		}
		bq->status = s;
	}
	return GPX_OK;
}
