/*
 * gpx_rank.c - ranked AND and ranked OR with dynamic pruning (gpx_rank.h).
 *
 * Every algorithm visits documents in increasing docID order and offers a
 * document to the top-k heap only after scoring it exactly: each term's
 * weight lands in contrib[] at the term's query position (0.0 for a term
 * the document lacks; adding +0.0 to a non-negative sum changes nothing),
 * and rank_sum() adds them up in query order.  Since documents arrive in
 * docID order, a newcomer enters a full heap only with a score above the
 * threshold; pruning rules compare bounds with it through rank_can_win().
 */
#include <string.h>

#include "gpx_rank.h"
#include "gpx_intersect.h"

/* Postings ahead of a cursor whose document length is prefetched. */
#define RANK_PREFETCH 8

/* One term of an OR query (a cursor over a non-empty list). */
typedef struct rank_term
{
	gpx_pcursor cur;
	double		idf;
	double		ub;				/* list bound with the shortest length */
	double		blo;			/* bound of block lo_blk, shortest length */
	uint32_t	lo_blk;			/* shallow block blo belongs to, or ~0 */
	uint32_t	pos;			/* query position */
	uint32_t	max_tf;
} rank_term;

/* Round a workspace offset up to 8 bytes. */
static inline size_t
rank_align(size_t x)
{
	return (x + 7) & ~(size_t) 7;
}

/* True when a document bounded by `bound` could still enter above thr. */
static inline bool
rank_can_win(double bound, double thr)
{
	return bound * GPX_RANK_SLACK > thr;
}

/* Sum of contrib[0..n) in query order. */
static inline double
rank_sum(const double *contrib, int n)
{
	double		s = 0.0;

	for (int p = 0; p < n; p++)
		s += contrib[p];
	return s;
}

/* Check a query's arguments. */
gpx_status
gpx_rank_check(const gpx_rank_query *q)
{
	if (q == NULL || q->terms == NULL || q->nterms < 1 ||
		q->nterms > GPX_RANK_MAX_TERMS || q->doclen == NULL ||
		q->k < 1 || q->k > GPX_RANK_MAX_K)
		return GPX_E_ARG;
	if (!(q->k1 >= 0.0 && q->k1 <= 1e300) || !(q->b >= 0.0 && q->b <= 1.0))
		return GPX_E_ARG;
	if (q->doclen->ndocs < 1 || q->doclen->total < 1)
		return GPX_E_ARG;
	for (int i = 0; i < q->nterms; i++)
		if (q->terms[i] != NULL && q->terms[i]->n > q->doclen->ndocs)
			return GPX_E_ARG;
	return GPX_OK;
}

/* Workspace of an OR query. */
size_t
gpx_rank_or_work_size(int nterms)
{
	size_t		m = nterms > 0 ? (size_t) nterms : 1;

	return rank_align(m * sizeof(rank_term)) +	/* terms */
		rank_align(m * sizeof(rank_term *)) +	/* order */
		4 * rank_align(m * sizeof(double));	/* contrib, prefix, nb, npre */
}

/* Workspace pointers of an OR query. */
typedef struct rank_ws
{
	rank_term  *terms;
	rank_term **ord;
	double	   *contrib;
	double	   *prefix;
	double	   *nb;
	double	   *npre;
} rank_ws;

/* Carve the OR workspace. */
static void
rank_ws_carve(rank_ws *ws, void *work, int nterms)
{
	uint8_t    *p = (uint8_t *) work;
	size_t		m = (size_t) nterms;

	ws->terms = (rank_term *) p;
	p += rank_align(m * sizeof(rank_term));
	ws->ord = (rank_term **) p;
	p += rank_align(m * sizeof(rank_term *));
	ws->contrib = (double *) p;
	p += rank_align(m * sizeof(double));
	ws->prefix = (double *) p;
	p += rank_align(m * sizeof(double));
	ws->nb = (double *) p;
	p += rank_align(m * sizeof(double));
	ws->npre = (double *) p;
}

/* Weight of the current posting of t for a document of norm `norm`. */
static inline double
rank_weight(const gpx_bm25 *bm, rank_term *t, double norm,
			gpx_rank_stats *st)
{
	st->postings++;
	return gpx_bm25_weight(bm, t->idf, gpx_pcursor_tf(&t->cur), norm);
}

/* norm of docID d. */
static inline double
rank_norm(const gpx_rank_query *q, const gpx_bm25 *bm, uint32_t d)
{
	return gpx_bm25_norm(bm, gpx_rank_dl(q->doclen, bm, d));
}

/* Exhaustive document-at-a-time OR over m cursors. */
static void
rank_or_exhaustive(const gpx_rank_query *q, const gpx_bm25 *bm, rank_ws *ws,
				   int m, gpx_topk *top, gpx_rank_stats *st)
{
	for (;;)
	{
		uint32_t	d = GPX_PLIST_END;
		double		norm;

		for (int i = 0; i < m; i++)
			if (ws->terms[i].cur.doc < d)
				d = ws->terms[i].cur.doc;
		if (d == GPX_PLIST_END)
			return;
		norm = rank_norm(q, bm, d);
		for (int i = 0; i < m; i++)
		{
			rank_term  *t = &ws->terms[i];

			if (t->cur.doc == d)
			{
				ws->contrib[t->pos] = rank_weight(bm, t, norm, st);
				gpx_pcursor_next(&t->cur);
				if (t->cur.pos + RANK_PREFETCH < t->cur.cnt)
					gpx_doclen_prefetch(q->doclen, t->cur.docs[t->cur.pos + RANK_PREFETCH]);
			}
			else
				ws->contrib[t->pos] = 0.0;
		}
		st->scored++;
		gpx_topk_push(top, d, rank_sum(ws->contrib, q->nterms));
	}
}

/*
 * MaxScore, with block-max bounds on the non-essential lists when
 * blockmax.  ord[0..m) sorted by ub ascending; prefix[i] = their sum up to
 * i; lists [0, ess) are non-essential.
 */
static void
rank_or_maxscore(const gpx_rank_query *q, const gpx_bm25 *bm, double norm_lo,
				 rank_ws *ws, int m, bool blockmax, gpx_topk *top,
				 gpx_rank_stats *st)
{
	rank_term **ord = ws->ord;
	double		thr = gpx_topk_threshold(top);
	int			ess = 0;

	for (int i = 0; i < m; i++)
		ord[i] = &ws->terms[i];
	/* insertion sort by (ub, position) */
	for (int i = 1; i < m; i++)
	{
		rank_term  *t = ord[i];
		int			j = i;

		while (j > 0 && (ord[j - 1]->ub > t->ub ||
						 (ord[j - 1]->ub == t->ub && ord[j - 1]->pos > t->pos)))
		{
			ord[j] = ord[j - 1];
			j--;
		}
		ord[j] = t;
	}
	for (int i = 0; i < m; i++)
		ws->prefix[i] = (i > 0 ? ws->prefix[i - 1] : 0.0) + ord[i]->ub;

	while (ess < m)
	{
		uint32_t	d = GPX_PLIST_END;
		double		norm,
					part = 0.0;
		bool		pruned = false;

		for (int i = ess; i < m; i++)
			if (ord[i]->cur.doc < d)
				d = ord[i]->cur.doc;
		if (d == GPX_PLIST_END)
			return;
		norm = rank_norm(q, bm, d);
		for (int i = ess; i < m; i++)
		{
			rank_term  *t = ord[i];

			if (t->cur.doc == d)
			{
				double		w = rank_weight(bm, t, norm, st);

				ws->contrib[t->pos] = w;
				part += w;
				gpx_pcursor_next(&t->cur);
				/* a later candidate's length, while this one goes on */
				if (t->cur.pos + RANK_PREFETCH < t->cur.cnt)
					gpx_doclen_prefetch(q->doclen, t->cur.docs[t->cur.pos + RANK_PREFETCH]);
			}
			else
				ws->contrib[t->pos] = 0.0;
		}
		if (ess > 0)
		{
			/*
			 * Can the candidate still win?  First by the lists' bounds,
			 * then (block-max) by the bounds of the blocks that would
			 * hold it, both at the shortest length (cached per block),
			 * then by those bounds at the candidate's own length.
			 */
			bool		gone = !rank_can_win(part + ws->prefix[ess - 1], thr);

			if (!gone && blockmax)
			{
				double		bsum = part;

				for (int i = 0; i < ess; i++)
				{
					rank_term  *t = ord[i];

					if (!gpx_pcursor_shallow(&t->cur, d))
					{
						ws->nb[i] = 0.0;	/* no block: past the list's end */
						continue;
					}
					if (t->lo_blk != t->cur.sblk)
					{
						t->lo_blk = t->cur.sblk;
						t->blo = gpx_bm25_weight(bm, t->idf, t->cur.smax_tf, norm_lo);
					}
					ws->nb[i] = 1.0;
					bsum += t->blo;
				}
				gone = !rank_can_win(bsum, thr);
			}
			if (!gone)
			{
				for (int i = 0; i < ess; i++)
				{
					rank_term  *t = ord[i];
					uint32_t	mt = t->max_tf;

					if (blockmax)
						mt = ws->nb[i] > 0.0 ? t->cur.smax_tf : 0;
					ws->nb[i] = mt > 0 ? gpx_bm25_weight(bm, t->idf, mt, norm) : 0.0;
					ws->npre[i] = (i > 0 ? ws->npre[i - 1] : 0.0) + ws->nb[i];
				}
			}
			if (gone)
			{
				st->pruned++;
				continue;
			}
			for (int i = ess - 1; i >= 0; i--)
			{
				rank_term  *t = ord[i];

				if (!rank_can_win(part + ws->npre[i], thr))
				{
					pruned = true;
					break;
				}
				gpx_pcursor_next_geq(&t->cur, d);
				if (t->cur.doc == d)
				{
					double		w = rank_weight(bm, t, norm, st);

					ws->contrib[t->pos] = w;
					part += w;
				}
				else
					ws->contrib[t->pos] = 0.0;
			}
		}
		if (pruned)
		{
			st->pruned++;
			continue;
		}
		st->scored++;
		if (gpx_topk_push(top, d, rank_sum(ws->contrib, q->nterms)))
		{
			thr = gpx_topk_threshold(top);
			while (ess < m && !rank_can_win(ws->prefix[ess], thr))
				ess++;
		}
	}
}

/* Sort ord[0..m) by current docID (insertion sort: nearly sorted). */
static void
rank_sort_by_doc(rank_term **ord, int m)
{
	for (int i = 1; i < m; i++)
	{
		rank_term  *t = ord[i];
		int			j = i;

		while (j > 0 && ord[j - 1]->cur.doc > t->cur.doc)
		{
			ord[j] = ord[j - 1];
			j--;
		}
		ord[j] = t;
	}
}

/* BlockMax-WAND. */
static void
rank_or_bmw(const gpx_rank_query *q, const gpx_bm25 *bm, double norm_lo,
			rank_ws *ws, int m, gpx_topk *top, gpx_rank_stats *st)
{
	rank_term **ord = ws->ord;
	double		thr = gpx_topk_threshold(top);

	for (int i = 0; i < m; i++)
		ord[i] = &ws->terms[i];
	for (;;)
	{
		double		acc = 0.0,
					bacc = 0.0;
		int			piv = -1,
					piv0;
		uint32_t	pd;

		rank_sort_by_doc(ord, m);
		for (int i = 0; i < m && ord[i]->cur.doc != GPX_PLIST_END; i++)
		{
			acc += ord[i]->ub;
			if (rank_can_win(acc, thr))
			{
				piv = i;
				break;
			}
		}
		if (piv < 0)
			return;
		piv0 = piv;
		pd = ord[piv]->cur.doc;
		while (piv + 1 < m && ord[piv + 1]->cur.doc == pd)
			piv++;
		/* block bounds at pd, valid for every docID the blocks cover */
		for (int i = 0; i <= piv; i++)
			if (gpx_pcursor_shallow(&ord[i]->cur, pd))
				bacc += gpx_bm25_weight(bm, ord[i]->idf, ord[i]->cur.smax_tf, norm_lo);
		if (!rank_can_win(bacc, thr))
		{
			/* no document in [pd, nd) can win: move one list to nd */
			uint32_t	nd = GPX_PLIST_END;
			int			best = 0;

			for (int i = 0; i <= piv; i++)
			{
				rank_term  *t = ord[i];

				if (pd <= t->cur.send && t->cur.send + 1 < nd)
					nd = t->cur.send + 1;
				if (t->ub > ord[best]->ub)
					best = i;
			}
			if (piv + 1 < m && ord[piv + 1]->cur.doc < nd)
				nd = ord[piv + 1]->cur.doc;
			st->block_skips++;
			if (nd == GPX_PLIST_END)
				return;
			gpx_pcursor_next_geq(&ord[best]->cur, nd);
			continue;
		}
		if (ord[0]->cur.doc == pd)
		{
			/* every list up to the pivot is on pd: score it */
			double		norm = rank_norm(q, bm, pd);
			double		dacc = 0.0;

			for (int i = 0; i <= piv; i++)
				dacc += gpx_bm25_weight(bm, ord[i]->idf, ord[i]->cur.smax_tf, norm);
			if (!rank_can_win(dacc, thr))
			{
				st->pruned++;
				for (int i = 0; i <= piv; i++)
					gpx_pcursor_next(&ord[i]->cur);
				continue;
			}
			for (int i = 0; i < m; i++)
			{
				rank_term  *t = ord[i];

				if (i <= piv)
				{
					ws->contrib[t->pos] = rank_weight(bm, t, norm, st);
					gpx_pcursor_next(&t->cur);
				}
				else
					ws->contrib[t->pos] = 0.0;
			}
			st->scored++;
			if (gpx_topk_push(top, pd, rank_sum(ws->contrib, q->nterms)))
				thr = gpx_topk_threshold(top);
		}
		else
		{
			/* move the strongest list still before pd up to pd */
			int			best = -1;

			for (int i = 0; i < piv0; i++)
				if (ord[i]->cur.doc < pd && (best < 0 || ord[i]->ub > ord[best]->ub))
					best = i;
			gpx_pcursor_next_geq(&ord[best]->cur, pd);
		}
	}
}

/* Ranked OR. */
gpx_status
gpx_rank_or(const gpx_rank_query *q, gpx_rank_algo algo, void *work,
			size_t worklen, uint32_t *docs, double *scores, uint32_t *outn,
			gpx_rank_stats *stats)
{
	gpx_rank_stats local;
	gpx_rank_stats *st = stats ? stats : &local;
	gpx_status	s = gpx_rank_check(q);
	gpx_bm25	bm;
	gpx_topk	top;
	rank_ws		ws;
	double		norm_lo;
	int			m = 0;

	memset(st, 0, sizeof(*st));
	if (s != GPX_OK)
		return s;
	if (work == NULL || docs == NULL || scores == NULL || outn == NULL ||
		((uintptr_t) work & 7) != 0)
		return GPX_E_ARG;
	if (worklen < gpx_rank_or_work_size(q->nterms))
		return GPX_E_NOSPACE;
	rank_ws_carve(&ws, work, q->nterms);
	gpx_bm25_init(&bm, q->k1, q->b, q->doclen->ndocs, q->doclen->total);
	norm_lo = gpx_bm25_norm(&bm, (double) q->doclen->min_len);
	for (int p = 0; p < q->nterms; p++)
	{
		const gpx_plist *pl = q->terms[p];
		rank_term  *t;

		ws.contrib[p] = 0.0;
		if (pl == NULL || pl->n == 0)
			continue;
		t = &ws.terms[m++];
		gpx_pcursor_init(&t->cur, pl, &st->lists);
		t->pos = (uint32_t) p;
		t->idf = gpx_bm25_idf(q->doclen->ndocs, pl->n);
		t->max_tf = gpx_plist_max_tf(pl);
		t->lo_blk = ~0u;
		t->blo = 0.0;
		t->ub = gpx_bm25_weight(&bm, t->idf, t->max_tf, norm_lo);
	}
	gpx_topk_init(&top, q->k, docs, scores);
	if (m > 0)
	{
		switch (algo)
		{
			case GPX_RANK_EXHAUSTIVE:
				rank_or_exhaustive(q, &bm, &ws, m, &top, st);
				break;
			case GPX_RANK_MAXSCORE:
				rank_or_maxscore(q, &bm, norm_lo, &ws, m, false, &top, st);
				break;
			case GPX_RANK_BMW:
				rank_or_bmw(q, &bm, norm_lo, &ws, m, &top, st);
				break;
			case GPX_RANK_AUTO:
			case GPX_RANK_BMM:
				rank_or_maxscore(q, &bm, norm_lo, &ws, m, true, &top, st);
				break;
			default:
				return GPX_E_ARG;
		}
	}
	gpx_topk_finish(&top);
	*outn = top.n;
	return GPX_OK;
}

/* ------------------------------------------------------------ AND -- */

/* Shortest list's length (0 when a term is NULL or empty). */
static uint32_t
rank_and_shortest(const gpx_rank_query *q)
{
	uint32_t	s = UINT32_MAX;

	for (int p = 0; p < q->nterms; p++)
	{
		if (q->terms[p] == NULL)
			return 0;
		if (q->terms[p]->n < s)
			s = q->terms[p]->n;
	}
	return s;
}

/* Workspace of an AND query. */
size_t
gpx_rank_and_work_size(const gpx_rank_query *q)
{
	if (q == NULL || q->nterms < 1 || q->nterms > GPX_RANK_MAX_TERMS)
		return 0;
	return gpx_rank_and_work_size_n(q->nterms, rank_and_shortest(q));
}

/* Workspace of an AND query from its shape. */
size_t
gpx_rank_and_work_size_n(int nterms, uint32_t shortest)
{
	size_t		m = nterms > 0 ? (size_t) nterms : 1,
				c = shortest;

	return rank_align(m * sizeof(gpx_pcursor)) +
		rank_align(m * sizeof(gpx_list *)) +
		2 * rank_align((c > 0 ? c : 1) * sizeof(uint32_t)) +	/* cand, tf */
		2 * rank_align((c > 0 ? c : 1) * sizeof(double)) +	/* norm, score */
	/* the candidates' indexes in each list, for gpx_intersect_pos */
		(m <= GPX_ISECT_POS_LISTS ?
		 m * (rank_align(sizeof(uint32_t *)) + rank_align((c > 0 ? c : 1) * sizeof(uint32_t))) : 0);
}

/* Candidates of an AND by leapfrogging cursors; returns their count. */
static uint32_t
rank_and_leapfrog(const gpx_rank_query *q, gpx_pcursor *curs, uint32_t *cand,
				  gpx_rank_stats *st)
{
	int			m = q->nterms;
	uint32_t	nc = 0,
				x;

	for (int j = 0; j < m; j++)
		gpx_pcursor_init(&curs[j], q->terms[j], &st->lists);
	x = curs[0].doc;
	while (x != GPX_PLIST_END)
	{
		bool		match = true;

		for (int j = 0; j < m; j++)
		{
			gpx_pcursor_next_geq(&curs[j], x);
			if (curs[j].doc != x)
			{
				x = curs[j].doc;
				match = false;
				break;
			}
		}
		if (match)
		{
			cand[nc++] = x;
			gpx_pcursor_next(&curs[0]);
			x = curs[0].doc;
		}
	}
	return nc;
}

/* Ranked AND. */
gpx_status
gpx_rank_and(const gpx_rank_query *q, void *work, size_t worklen,
			 uint32_t *docs, double *scores, uint32_t *outn,
			 gpx_rank_stats *stats)
{
	gpx_rank_stats local;
	gpx_rank_stats *st = stats ? stats : &local;
	gpx_status	s = gpx_rank_check(q);
	gpx_bm25	bm;
	gpx_topk	top;
	uint8_t    *p;
	gpx_pcursor *curs;
	const gpx_list **lists;
	uint32_t   *cand,
			   *tf,
			  **at = NULL,		/* at[j][i]: cand[i]'s index in term j */
				nc = 0,
				shortest;
	double	   *norm,
			   *score;
	bool		blobs = true;
	int			m;

	memset(st, 0, sizeof(*st));
	if (s != GPX_OK)
		return s;
	if (work == NULL || docs == NULL || scores == NULL || outn == NULL ||
		((uintptr_t) work & 7) != 0)
		return GPX_E_ARG;
	if (worklen < gpx_rank_and_work_size(q))
		return GPX_E_NOSPACE;
	m = q->nterms;
	shortest = rank_and_shortest(q);
	gpx_topk_init(&top, q->k, docs, scores);
	*outn = 0;
	if (shortest == 0)
		return GPX_OK;

	p = (uint8_t *) work;
	curs = (gpx_pcursor *) p;
	p += rank_align((size_t) m * sizeof(gpx_pcursor));
	lists = (const gpx_list **) p;
	p += rank_align((size_t) m * sizeof(gpx_list *));
	cand = (uint32_t *) p;
	p += rank_align((size_t) shortest * sizeof(uint32_t));
	tf = (uint32_t *) p;
	p += rank_align((size_t) shortest * sizeof(uint32_t));
	norm = (double *) p;
	p += rank_align((size_t) shortest * sizeof(double));
	score = (double *) p;
	p += rank_align((size_t) shortest * sizeof(double));
	if (m <= GPX_ISECT_POS_LISTS)
	{
		at = (uint32_t **) p;
		p += (size_t) m * rank_align(sizeof(uint32_t *));
		for (int j = 0; j < m; j++)
		{
			at[j] = (uint32_t *) p;
			p += rank_align((size_t) shortest * sizeof(uint32_t));
		}
	}

	for (int j = 0; j < m; j++)
	{
		lists[j] = q->terms[j]->list;
		if (lists[j] == NULL)
			blobs = false;
	}
	if (blobs)
	{
		gpx_isect_stats is;

		/* with where each candidate is in each list, when the lists are few */
		s = at != NULL ?
			gpx_intersect_pos(lists, m, NULL, cand, shortest, &nc, at, &is) :
			gpx_intersect_ex(lists, m, NULL, cand, shortest, &nc, &is);
		if (s != GPX_OK)
			return s;
		st->lists.blocks_decoded += is.source_blocks + is.blocks_decoded;
	}
	else
	{
		nc = rank_and_leapfrog(q, curs, cand, st);
		at = NULL;
	}
	st->candidates = nc;

	gpx_bm25_init(&bm, q->k1, q->b, q->doclen->ndocs, q->doclen->total);
	/*
	 * the candidates' lengths are scattered loads (a cache miss each on a
	 * large collection): all asked for now, read once the first term's
	 * frequencies are in, so that the misses overlap that work and each
	 * other (bench_rank, ranked AND on vm: the loads were 60 % of this
	 * function's own time when fetched 8 ahead as read)
	 */
	for (uint32_t i = 0; i < nc; i++)
		gpx_doclen_prefetch_far(q->doclen, cand[i]);
	/*
	 * one pass per term in query order: the candidates' frequencies in
	 * the term's list (by the indexes the intersection found, or each
	 * block holding some decoded once; only their frequencies read), then
	 * score[i] += w(term, cand[i])
	 */
	for (int j = 0; j < m && nc > 0; j++)
	{
		double		idf = gpx_bm25_idf(q->doclen->ndocs, q->terms[j]->n);

		s = at != NULL ? gpx_plist_tfs_at(q->terms[j], at[j], nc, tf, &st->lists) :
			gpx_plist_tfs_of(q->terms[j], cand, nc, tf, &st->lists);
		if (s != GPX_OK)
			return s;			/* the list lost a candidate */
		if (j == 0)
		{
			for (uint32_t i = 0; i < nc; i++)
			{
				norm[i] = rank_norm(q, &bm, cand[i]);
				score[i] = 0.0;
			}
		}
		for (uint32_t i = 0; i < nc; i++)
			score[i] += gpx_bm25_weight(&bm, idf, tf[i], norm[i]);
		st->postings += nc;
	}
	/* norm[] is free now: 2 nc uint32 slots of scratch */
	gpx_topk_all(&top, cand, score, nc, (uint32_t *) norm);
	st->scored = nc;
	*outn = top.n;
	return GPX_OK;
}
