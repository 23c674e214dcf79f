/*
 * gpx_topk.c - a bounded min-heap of (docID, score) pairs (gpx_topk.h).
 */
#include <math.h>
#include <string.h>

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

/*
 * gpx_topk_all sorts when there are at most this many documents per slot
 * (bench_rank, ranked AND top-1000 on vm: the heap's sift-downs were a
 * quarter of the query).
 */
#define TOPK_SORT_PER_SLOT 8

/* Bits of the digit that picks the documents kept before the sort. */
#define TOPK_SELECT_BITS 11

/* The sort key of a score's bits: ascending keys are descending scores. */
static inline uint64_t
topk_key(const double *scores, uint32_t i)
{
	uint64_t	bits;

	memcpy(&bits, &scores[i], sizeof(bits));
	return ~bits;
}

/*
 * Keep in a[] (in index order) the documents whose key's top digit (the
 * TOPK_SELECT_BITS below the highest bit where keys differ, diff) is at
 * most that of the m-th best: every document of the top m and the others
 * of that digit.  Updates *any / *every to the kept keys'; returns how
 * many are kept.
 */
static uint32_t
topk_select(const double *scores, uint32_t n, uint32_t m, uint64_t diff,
			uint32_t *a, uint64_t *any, uint64_t *every)
{
	uint32_t	count[1u << TOPK_SELECT_BITS] = {0},
				mask = (1u << TOPK_SELECT_BITS) - 1,
				c = 0,
				d,
				kept = 0;
	int			hb = 63 - __builtin_clzll(diff),
				shift = hb >= TOPK_SELECT_BITS - 1 ? hb - (TOPK_SELECT_BITS - 1) : 0;

	for (uint32_t i = 0; i < n; i++)
		count[(topk_key(scores, i) >> shift) & mask]++;
	/* d: the digit of the m-th best */
	for (d = 0; d <= mask; d++)
	{
		c += count[d];
		if (c >= m)
			break;
	}
	*any = 0;
	*every = ~(uint64_t) 0;
	for (uint32_t i = 0; i < n; i++)
	{
		uint64_t	key = topk_key(scores, i);

		a[kept] = i;
		if (((key >> shift) & mask) <= d)
		{
			kept++;
			*any |= key;
			*every &= key;
		}
	}
	return kept;
}

/*
 * A stable LSD radix sort by descending score, a byte of the score's bits
 * a pass (bytes every score shares skipped), into t as gpx_topk_all
 * promises; when k is below n, only the documents topk_select keeps are
 * sorted.  False (nothing written) when a score is negative or NaN, whose
 * bits do not order as the values do.
 */
static bool
topk_radix(gpx_topk *t, const uint32_t *docs, const double *scores,
		   uint32_t n, uint32_t *tmp)
{
	uint32_t   *a = tmp,
			   *b = tmp + n,
				m = n < t->k ? n : t->k;
	uint64_t	any = 0,
				every = ~(uint64_t) 0;

	for (uint32_t i = 0; i < n; i++)
	{
		uint64_t	key = topk_key(scores, i);

		if (~key > 0x7FF0000000000000ull)
			return false;		/* sign bit set, or NaN (+inf is fine) */
		any |= key;
		every &= key;
		a[i] = i;
	}
	/* the documents that can be among the best m (all when keys agree) */
	if (m < n && (any ^ every) != 0)
		n = topk_select(scores, n, m, any ^ every, a, &any, &every);
	for (int shift = 0; shift < 64; shift += 8)
	{
		uint32_t	start[256] = {0};

		if (((any ^ every) >> shift & 0xFF) == 0)
			continue;			/* one value of this byte: order unchanged */
		for (uint32_t i = 0; i < n; i++)
			start[(topk_key(scores, a[i]) >> shift) & 0xFF]++;
		for (uint32_t d = 0, sum = 0; d < 256; d++)
		{
			uint32_t	c = start[d];

			start[d] = sum;
			sum += c;
		}
		for (uint32_t i = 0; i < n; i++)
			b[start[(topk_key(scores, a[i]) >> shift) & 0xFF]++] = a[i];
		{
			uint32_t   *x = a;

			a = b;
			b = x;
		}
	}
	for (uint32_t r = 0; r < m; r++)
	{
		t->docs[r] = docs[a[r]];
		t->scores[r] = scores[a[r]];
	}
	t->n = m;
	return true;
}

/* The best of documents in docID order (see gpx_topk.h). */
void
gpx_topk_all(gpx_topk *t, const uint32_t *docs, const double *scores,
			 uint32_t n, uint32_t *tmp)
{
	if (t->n == 0 && n / TOPK_SORT_PER_SLOT <= t->k &&
		topk_radix(t, docs, scores, n, tmp))
		return;
	for (uint32_t i = 0; i < n; i++)
		gpx_topk_push(t, docs[i], scores[i]);
	gpx_topk_finish(t);
}
