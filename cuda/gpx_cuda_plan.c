/*
 * gpx_cuda_plan.c - the host-only planning of the CUDA back end (see
 * gpx_cuda_plan.h).  No CUDA, no allocation, no output.
 */
#include <string.h>

#include "gpx_bits.h"
#include "gpx_cuda_plan.h"

/* x rounded up to a multiple of a. */
static size_t
plan_align(size_t x, size_t a)
{
	return (x + a - 1) / a * a;
}

/* Whether query q's list range and output slot lie inside the batch. */
static bool
plan_args_ok(const gpx_batch *b, const gpx_batch_query *q)
{
	return q->nlists > 0 && (uint64_t) q->first_list + q->nlists <= b->nlists &&
		q->out_offset <= b->out_words &&
		q->out_capacity <= b->out_words - q->out_offset;
}

/* Whether scratch key a sorts before b: ascending by (k1, k2, idx). */
static inline bool
plan_skey_less(const gpx_cuda_skey *a, const gpx_cuda_skey *b)
{
	if (a->k1 != b->k1)
		return a->k1 < b->k1;
	if (a->k2 != b->k2)
		return a->k2 < b->k2;
	return a->idx < b->idx;
}

/* Sift keys[i] down the max-heap keys[0..n). */
static void
plan_sift(gpx_cuda_skey *keys, size_t i, size_t n)
{
	gpx_cuda_skey k = keys[i];

	for (;;)
	{
		size_t		c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && plan_skey_less(&keys[c], &keys[c + 1]))
			c++;
		if (!plan_skey_less(&k, &keys[c]))
			break;
		keys[i] = keys[c];
		i = c;
	}
	keys[i] = k;
}

/*
 * Sort keys[0..n) in place: by insertion for the few lists of a typical
 * query, by heapsort beyond PLAN_FEW (the keys are distinct: no need for
 * a stable sort).
 */
#define PLAN_FEW 16
static void
plan_sort(gpx_cuda_skey *keys, size_t n)
{
	if (n > PLAN_FEW)
	{
		for (size_t i = n / 2; i-- > 0;)
			plan_sift(keys, i, n);
		for (size_t m = n - 1; m > 0; m--)
		{
			gpx_cuda_skey t = keys[0];

			keys[0] = keys[m];
			keys[m] = t;
			plan_sift(keys, 0, m);
		}
		return;
	}
	for (size_t i = 1; i < n; i++)
	{
		gpx_cuda_skey k = keys[i];
		size_t		j = i;

		for (; j > 0 && plan_skey_less(&k, &keys[j - 1]); j--)
			keys[j] = keys[j - 1];
		keys[j] = k;
	}
}

/*
 * Whether the kernels can take a list's view (codec, geometry, the
 * format's layout: gpx_dev_view in the codec library decides).
 */
bool
gpx_cuda_list_ok(const gpx_list *l)
{
	gpx_devview v;

	return gpx_dev_view(l, &v) == GPX_OK;
}

/* Room gpx_cuda_plan_batch needs: *olist words and *keys scratch keys. */
void
gpx_cuda_plan_room(const gpx_batch *b, size_t *olist, size_t *keys)
{
	*olist = 0;
	*keys = 0;
	for (uint32_t qi = 0; qi < b->nqueries; qi++)
	{
		const gpx_batch_query *q = &b->queries[qi];

		if (!plan_args_ok(b, q))
			continue;
		*olist += q->nlists - 1;
		if (q->nlists > *keys)
			*keys = q->nlists;
	}
}

/* Plan every query of b (see gpx_cuda_plan.h). */
uint32_t
gpx_cuda_plan_batch(gpx_batch *b, gpx_cuda_qplan *plan, uint32_t *olist,
					size_t *nolist, gpx_cuda_skey *keys)
{
	uint32_t	nplan = 0;
	size_t		no = 0;

	for (uint32_t qi = 0; qi < b->nqueries; qi++)
	{
		gpx_batch_query *q = &b->queries[qi];
		gpx_cuda_qplan *qp;
		bool		empty = false,
					bad = false;
		uint32_t	lo = 0,
					hi = GPX_MAX_DOCID;
		const gpx_list *src;

		q->out_count = 0;
		if (!plan_args_ok(b, q))
		{
			q->status = GPX_E_ARG;
			continue;
		}
		for (uint32_t j = 0; j < q->nlists; j++)
		{
			const gpx_list *l = &b->lists[q->first_list + j].list;

			if (!gpx_cuda_list_ok(l))
				bad = true;
			if (l->n == 0)
				empty = true;
			else
			{
				lo = l->first > lo ? l->first : lo;
				hi = l->last < hi ? l->last : hi;
			}
			/* probe order: shorter first, then narrower span, then index */
			keys[j].k1 = l->n;
			keys[j].k2 = l->last - l->first;
			keys[j].idx = q->first_list + j;
		}
		if (bad)
		{
			q->status = GPX_E_CODEC;
			continue;
		}
		q->status = GPX_OK;
		if (empty || lo > hi)
			continue;
		plan_sort(keys, q->nlists);
		qp = &plan[nplan++];
		memset(qp, 0, sizeof(*qp));
		qp->q = qi;
		qp->src = keys[0].idx;
		qp->obeg = (uint32_t) no;
		qp->ocount = q->nlists - 1;
		for (uint32_t j = 1; j < q->nlists; j++)
			olist[no++] = keys[j].idx;
		src = &b->lists[qp->src].list;
		qp->lo = lo;
		qp->hi = hi;
		qp->b0 = gpx_find_block(src, lo);
		qp->b1 = gpx_find_block(src, hi) + 1;
		qp->ncand = ((uint64_t) qp->b1 << src->log2_block < src->n ?
					 (uint64_t) qp->b1 << src->log2_block : src->n) -
			((uint64_t) qp->b0 << src->log2_block);
	}
	*nolist = no;
	return nplan;
}

/* Spread plans over ndev devices, longest processing time first. */
void
gpx_cuda_plan_assign(const gpx_cuda_qplan *plan, uint32_t nplan, uint32_t ndev,
					 gpx_cuda_skey *keys, uint64_t *load, uint32_t *dev_of)
{
	if (ndev <= 1)
	{
		memset(dev_of, 0, (size_t) nplan * sizeof(*dev_of));
		return;
	}
	for (uint32_t i = 0; i < nplan; i++)
	{
		/* costliest first: ascending order of the complement */
		keys[i].k1 = UINT64_MAX - plan[i].ncand * (uint64_t) (plan[i].ocount + 1);
		keys[i].k2 = 0;
		keys[i].idx = i;
	}
	plan_sort(keys, nplan);
	memset(load, 0, (size_t) ndev * sizeof(*load));
	for (uint32_t k = 0; k < nplan; k++)
	{
		uint32_t	best = 0;

		for (uint32_t d = 1; d < ndev; d++)
			if (load[d] < load[best])
				best = d;
		dev_of[keys[k].idx] = best;
		load[best] += UINT64_MAX - keys[k].k1 + 1;
	}
}

/* The next piece of a planned query for a chunk (see gpx_cuda_plan.h). */
bool
gpx_cuda_plan_piece(const gpx_cuda_qplan *qp, const gpx_list *src, uint32_t start,
					uint64_t room, uint32_t work_room, uint32_t *end, uint32_t *cands)
{
	uint32_t	lg = src->log2_block;
	uint64_t	b1_elem = (uint64_t) qp->b1 << lg;
	uint64_t	end_elem = b1_elem < src->n ? b1_elem : src->n;
	uint64_t	want = end_elem - ((uint64_t) start << lg);
	uint64_t	e = qp->b1;
	uint64_t	e_elem;

	if (want > room)
	{
		/* whole blocks only (all full: only the list's last one is short) */
		e = start + (room >> lg);
		if (e <= start)
			return false;
	}
	if (e - start > work_room)
	{
		if (work_room == 0)
			return false;
		e = start + (uint64_t) work_room;
	}
	e_elem = e << lg;
	*end = (uint32_t) e;
	*cands = (uint32_t) ((e_elem < src->n ? e_elem : src->n) - ((uint64_t) start << lg));
	return true;
}

/* Where list l and its side tables go in a device cache allocation. */
void
gpx_cuda_plan_footprint(const gpx_list *l, gpx_cuda_footprint *fp)
{
	size_t		blob = plan_align(l->len, GPX_CUDA_POOL_ALIGN);
	size_t		tbl_bytes = 0;

	memset(fp, 0, sizeof(*fp));
	/* hash segmentation: about two buckets per block, of the top bits */
	if (l->nblocks >= 4)
	{
		uint32_t	s = 0;

		while (s < 31 && (uint64_t) (l->last >> s) + 1 > 2 * (uint64_t) l->nblocks)
			s++;
		fp->tbl_shift = s;
		fp->tbl_nb = (l->last >> s) + 1;
		tbl_bytes = plan_align(4 * ((size_t) fp->tbl_nb + 1), GPX_CUDA_POOL_ALIGN);
	}
	/* lrc probes need no skip entries: any element decodes alone */
	if (l->codec != GPX_CODEC_LRC)
		fp->skip_bytes = plan_align((size_t) GPX_CUDA_SKIP_ENTRY * l->nblocks,
									GPX_CUDA_POOL_ALIGN);
	fp->tbl_off = blob;
	fp->skip_off = blob + tbl_bytes;
	fp->bytes = blob + tbl_bytes + fp->skip_bytes;
}
