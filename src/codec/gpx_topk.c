/*
 * gpx_topk.c - a bounded min-heap of (docID, score) pairs (gpx_topk.h).
 */
#include <math.h>

#include "gpx_topk.h"

/* True when slot i ranks after slot j (the heap keeps the worst on top). */
static inline bool
topk_worse(const gpx_topk *t, uint32_t i, uint32_t j)
{
	return gpx_topk_better(t->scores[j], t->docs[j], t->scores[i], t->docs[i]);
}

/* Swap slots i and j. */
static inline void
topk_swap(gpx_topk *t, uint32_t i, uint32_t j)
{
	uint32_t	d = t->docs[i];
	double		s = t->scores[i];

	t->docs[i] = t->docs[j];
	t->scores[i] = t->scores[j];
	t->docs[j] = d;
	t->scores[j] = s;
}

/* Restore the heap below slot i among the first n slots. */
static void
topk_sift_down(gpx_topk *t, uint32_t i, uint32_t n)
{
	for (;;)
	{
		uint32_t	l = 2 * i + 1,
					w = i;

		if (l < n && topk_worse(t, l, w))
			w = l;
		if (l + 1 < n && topk_worse(t, l + 1, w))
			w = l + 1;
		if (w == i)
			return;
		topk_swap(t, i, w);
		i = w;
	}
}

/* Start an empty heap. */
void
gpx_topk_init(gpx_topk *t, uint32_t k, uint32_t *docs, double *scores)
{
	t->k = k;
	t->n = 0;
	t->docs = docs;
	t->scores = scores;
}

/* Offer a pair; true when it entered. */
bool
gpx_topk_push(gpx_topk *t, uint32_t doc, double score)
{
	uint32_t	i;

	if (t->n < t->k)
	{
		i = t->n++;
		t->docs[i] = doc;
		t->scores[i] = score;
		/* sift up: the worst goes to the root */
		while (i > 0)
		{
			uint32_t	p = (i - 1) / 2;

			if (!topk_worse(t, i, p))
				break;
			topk_swap(t, i, p);
			i = p;
		}
		return true;
	}
	if (!gpx_topk_better(score, doc, t->scores[0], t->docs[0]))
		return false;
	t->docs[0] = doc;
	t->scores[0] = score;
	topk_sift_down(t, 0, t->n);
	return true;
}

/* Heap sort: repeatedly move the worst to the end, so the best ends first. */
void
gpx_topk_finish(gpx_topk *t)
{
	for (uint32_t m = t->n; m > 1; m--)
	{
		topk_swap(t, 0, m - 1);
		topk_sift_down(t, 0, m - 1);
	}
}
