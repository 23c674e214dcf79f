/*
 * gpx_rank_merge.c - ranked batches run as one (gpx_rank_merge.h).
 */
#include "gpx_rank_merge.h"

#include <string.h>

/* Round x up to a multiple of 8. */
static size_t
rm_align(size_t x)
{
	return (x + 7) & ~(size_t) 7;
}

/* Whether batches a and b may run merged (see the header). */
bool
gpx_rank_merge_compatible(const gpx_rank_batch *a, const gpx_rank_batch *b)
{
	return a->doclen_id != 0 && a->doclen_id == b->doclen_id && a->doclen != NULL &&
		b->doclen != NULL && a->k1 == b->k1 && a->b == b->b && a->or_algo == b->or_algo;
}

/* The merged batch's sizes; false when they overflow its fields. */
static bool
rm_totals(gpx_rank_batch *const *bs, uint32_t n, uint64_t *nq, uint64_t *nt, uint64_t *nl,
		  uint64_t *slots)
{
	*nq = *nt = *nl = *slots = 0;
	for (uint32_t i = 0; i < n; i++)
	{
		*nq += bs[i]->nqueries;
		*nt += bs[i]->nterms;
		*nl += bs[i]->nlists;
		*slots += bs[i]->out_slots;
	}
	return *nq <= UINT32_MAX && *nt <= UINT32_MAX && *nl <= INT32_MAX;
}

/* Workspace bytes that merging bs[0 .. n) takes (see the header). */
size_t
gpx_rank_merge_size(gpx_rank_batch *const *bs, uint32_t n)
{
	uint64_t	nq,
				nt,
				nl,
				slots;

	(void) rm_totals(bs, n, &nq, &nt, &nl, &slots);
	return rm_align(nq * sizeof(gpx_rank_bquery)) + rm_align(nt * sizeof(gpx_rank_bterm)) +
		rm_align(nl * sizeof(gpx_list)) + rm_align(nl * sizeof(gpx_key)) +
		rm_align(slots * sizeof(uint32_t)) + slots * sizeof(double);
}

/* Merge bs[0 .. n) into *out (see the header). */
gpx_status
gpx_rank_merge(gpx_rank_batch *const *bs, uint32_t n, void *work, size_t worklen,
			   gpx_rank_batch *out)
{
	uint64_t	nq,
				nt,
				nl,
				slots;
	uint8_t    *w = work;
	gpx_rank_bquery *q;
	gpx_rank_bterm *t;
	gpx_list   *l;
	gpx_key    *k;
	bool		keyed = false;
	uint32_t	oq = 0,
				ot = 0,
				ol = 0;
	uint64_t	os = 0;

	if (n == 0 || work == NULL || !rm_totals(bs, n, &nq, &nt, &nl, &slots) ||
		worklen < gpx_rank_merge_size(bs, n))
		return GPX_E_ARG;
	q = (gpx_rank_bquery *) w;
	w += rm_align(nq * sizeof(*q));
	t = (gpx_rank_bterm *) w;
	w += rm_align(nt * sizeof(*t));
	l = (gpx_list *) w;
	w += rm_align(nl * sizeof(*l));
	k = (gpx_key *) w;
	w += rm_align(nl * sizeof(*k));
	*out = *bs[0];
	out->queries = q;
	out->terms = t;
	out->lists = l;
	out->out_docs = (uint32_t *) w;
	w += rm_align(slots * sizeof(uint32_t));
	out->out_scores = (double *) w;
	out->nqueries = (uint32_t) nq;
	out->nterms = (uint32_t) nt;
	out->nlists = (uint32_t) nl;
	out->out_slots = slots;
	for (uint32_t i = 0; i < n; i++)
	{
		const gpx_rank_batch *b = bs[i];

		for (uint32_t j = 0; j < b->nqueries; j++)
		{
			q[oq + j] = b->queries[j];
			q[oq + j].first_term += ot;
			q[oq + j].out_offset += os;
			q[oq + j].out_count = 0;
			q[oq + j].status = -1;	/* not run yet */
		}
		for (uint32_t j = 0; j < b->nterms; j++)
		{
			t[ot + j] = b->terms[j];
			if (t[ot + j].list >= 0)
				t[ot + j].list += (int32_t) ol;
		}
		if (b->nlists > 0)
			memcpy(l + ol, b->lists, b->nlists * sizeof(gpx_list));
		if (b->list_keys != NULL && b->nlists > 0)
		{
			memcpy(k + ol, b->list_keys, b->nlists * sizeof(gpx_key));
			keyed = true;
		}
		else if (b->nlists > 0)
			memset(k + ol, 0, b->nlists * sizeof(gpx_key));	/* no key: not kept */
		oq += b->nqueries;
		ot += b->nterms;
		ol += b->nlists;
		os += b->out_slots;
	}
	out->list_keys = keyed ? k : NULL;
	return GPX_OK;
}

/* Each query's answer back into its own batch (see the header). */
void
gpx_rank_merge_scatter(const gpx_rank_batch *merged, gpx_rank_batch *const *bs, uint32_t n)
{
	uint32_t	oq = 0;

	for (uint32_t i = 0; i < n; i++)
	{
		gpx_rank_batch *b = bs[i];

		for (uint32_t j = 0; j < b->nqueries; j++)
		{
			const gpx_rank_bquery *mq = &merged->queries[oq + j];
			gpx_rank_bquery *bq = &b->queries[j];
			uint32_t	cnt = mq->status == GPX_OK ? mq->out_count : 0;

			if (cnt > bq->k)
				cnt = bq->k;

			bq->status = mq->status;
			bq->out_count = cnt;
			if (cnt > 0)
			{
				memcpy(b->out_docs + bq->out_offset, merged->out_docs + mq->out_offset,
					   cnt * sizeof(uint32_t));
				memcpy(b->out_scores + bq->out_offset, merged->out_scores + mq->out_offset,
					   cnt * sizeof(double));
			}
		}
		oq += b->nqueries;
	}
}
