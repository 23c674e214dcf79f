/*
 * gpx_rank_run.cu - the host driver of ranked retrieval on the GPU
 * (gpx_cuda_rank.h): uploads the lists the batch's terms use and the
 * document lengths, decodes the lists, then runs the queries in chunks whose candidate
 * slots fit gpx_rk_cand_cap (a chunk holds at least one query): score,
 * select, copy the results back and put each query's where the batch
 * wants them.  Device memory is taken for the call and given back, except
 * the document lengths of a batch whose statistics have an id
 * (doclen_id): the device keeps those until a batch with other statistics
 * comes, so that a stream of batches over one collection uploads them once.
 */
#include <vector>

#include "gpx_cuda_host.cuh"
#include "gpx_cuda_plan.h"
#include "gpx_cuda_rank.h"
#include "gpx_rank_dev.cuh"

/* Candidate slots (12 bytes each) one chunk may use, unless one query needs more. */
#define GPX_RK_CAND_CAP ((uint64_t) 1 << 26)

/* The chunk size in candidate slots (gpx_cuda_rank_chunk_slots). */
static uint64_t gpx_rk_cand_cap = GPX_RK_CAND_CAP;

/* Set the chunk size (0: the default). */
extern "C" void
gpx_cuda_rank_chunk_slots(uint64_t slots)
{
	gpx_rk_cand_cap = slots > 0 ? slots : GPX_RK_CAND_CAP;
}

/* Device buffers of one call, freed when it returns. */
struct gpx_rk_mem
{
	std::vector<void *> p;

	/* Allocate n bytes (at least 16) into *out. */
	template <typename T> cudaError_t get(T **out, size_t n)
	{
		void	   *x = nullptr;
		cudaError_t e = cudaMalloc(&x, n < 16 ? 16 : n);

		if (e == cudaSuccess)
			p.push_back(x);
		*out = (T *) x;
		return e;
	}
	/* Free everything. */
	~gpx_rk_mem()
	{
		for (void *x : p)
			(void) cudaFree(x);
	}
};

/* Candidate slots of query bq, and (AND) the position of its shortest list. */
static uint64_t
gpx_rk_cands(const gpx_rank_batch *b, const gpx_rank_bquery *bq, uint32_t *drv)
{
	uint64_t	c = 0;
	uint32_t	shortest = UINT32_MAX;

	*drv = 0;
	for (uint32_t j = 0; j < bq->nterms; j++)
	{
		const gpx_rank_bterm *bt = &b->terms[bq->first_term + j];
		uint32_t	n = bt->list >= 0 ? b->lists[bt->list].n : 0;

		if (bq->mode == GPX_RANK_MODE_OR)
			c += n;
		else if (n < shortest)
		{
			shortest = n;
			*drv = j;
		}
	}
	return bq->mode == GPX_RANK_MODE_OR ? c : shortest;
}

/* The driver proper (gpx_cuda_rank_run checks ctx first). */
static gpx_cuda_status
gpx_rk_run(gpx_cuda_ctx *ctx, gpx_rank_batch *b, gpx_cuda_rank_stats *stats)
{
	gpx_dev    *d = ctx->devs[0];
	cudaStream_t st = d->s_comp;
	uint32_t	nl = b->nlists;
	std::vector<uint64_t> offs(nl + 1), boff(nl + 1);
	std::vector<uint32_t> blk_start(nl + 1);
	std::vector<uint8_t> used(nl, 0);
	std::vector<gpx_dl> dls(nl);
	std::vector<uint8_t> stage;
	std::vector<gpx_rk_term> terms(b->nterms);
	std::vector<gpx_rk_query> qs(b->nqueries);
	std::vector<uint32_t> chunk_end;
	gpx_rk_mem	mem;
	gpx_call_events<5> evs;
	uint8_t    *d_blobs,
			   *d_dl;
	gpx_dl	   *d_dls;
	uint64_t   *d_offs;
	uint32_t   *d_blk,
			   *d_docs,
			   *d_tfs;
	gpx_rk_query *d_q;
	gpx_rk_term *d_t;
	uint64_t	max_cand = 0,
				max_res = 0,
				max_scr = 0;
	uint32_t	max_nq = 0;
	size_t		dl_bytes = (size_t) b->doclen->span * b->doclen->width;
	bool		dl_kept;
	gpx_rk_args a;
	cudaError_t e;

	/* the lists some term uses: blobs packed 16-aligned, decoded 4-aligned */
	for (uint32_t t = 0; t < b->nterms; t++)
		if (b->terms[t].list >= 0 && (uint32_t) b->terms[t].list < nl)
			used[b->terms[t].list] = 1;
	offs[0] = boff[0] = 0;
	blk_start[0] = 0;
	for (uint32_t i = 0; i < nl; i++)
	{
		const gpx_list *l = &b->lists[i];
		bool		live = used[i] && l->n > 0;

		if (used[i] && !gpx_cuda_list_ok(l))
			return gpx_msg(ctx, GPX_CUDA_BAD_INPUT, "list not supported by the gpu kernels");
		offs[i + 1] = offs[i] + (live ? gpx_al(l->n, 4) : 0);
		/* each blob with its zero padding (GPX_BLOB_PAD): stage is zero-filled */
		boff[i + 1] = boff[i] + (live ? gpx_blob_span(l->len) : 0);
		if ((uint64_t) blk_start[i] + (live ? l->nblocks : 0) > UINT32_MAX)
			return gpx_msg(ctx, GPX_CUDA_BAD_INPUT, "too many list blocks in one batch");
		blk_start[i + 1] = blk_start[i] + (live ? l->nblocks : 0);
		if (stats && live)
		{
			stats->lists++;
			stats->postings += l->n;
		}
	}
	stage.resize(boff[nl]);
	for (uint32_t i = 0; i < nl; i++)
		if (used[i] && b->lists[i].n > 0)
			memcpy(stage.data() + boff[i], b->lists[i].base, b->lists[i].len);
	GPX_TRY(cudaSetDevice(d->ord));
	GPX_TRY(mem.get(&d_blobs, stage.size()));
	GPX_TRY(mem.get(&d_dls, nl * sizeof(gpx_dl)));
	GPX_TRY(mem.get(&d_offs, (nl + 1) * sizeof(uint64_t)));
	GPX_TRY(mem.get(&d_blk, (nl + 1) * sizeof(uint32_t)));
	GPX_TRY(mem.get(&d_docs, offs[nl] * sizeof(uint32_t)));
	GPX_TRY(mem.get(&d_tfs, offs[nl] * sizeof(uint32_t)));
	dl_kept = b->doclen_id != 0 && d->d_rk_dl != nullptr && d->rk_dl_id == b->doclen_id &&
		d->rk_dl_bytes == dl_bytes;
	if (dl_kept)
		d_dl = d->d_rk_dl;
	else if (b->doclen_id != 0)
	{
		/* the new statistics replace the kept ones (synchronous: none in use) */
		GPX_TRY(cudaStreamSynchronize(st));
		(void) cudaFree(d->d_rk_dl);
		d->d_rk_dl = nullptr;
		d->rk_dl_id = 0;
		d->rk_dl_bytes = 0;
		GPX_TRY(cudaMalloc(&d->d_rk_dl, dl_bytes < 16 ? 16 : dl_bytes));
		d_dl = d->d_rk_dl;
	}
	else
		GPX_TRY(mem.get(&d_dl, dl_bytes));
	GPX_TRY(mem.get(&d_t, b->nterms * sizeof(gpx_rk_term)));
	GPX_TRY(mem.get(&d_q, b->nqueries * sizeof(gpx_rk_query)));
	for (uint32_t i = 0; i < nl; i++)
		if (used[i])
			gpx_make_dl(&b->lists[i], d_blobs + boff[i], &dls[i]);
		else
			memset(&dls[i], 0, sizeof(gpx_dl));	/* no blocks: never read */
	for (uint32_t t = 0; t < b->nterms; t++)
	{
		const gpx_rank_bterm *bt = &b->terms[t];

		terms[t].off = bt->list >= 0 ? offs[bt->list] : 0;
		terms[t].n = bt->list >= 0 ? b->lists[bt->list].n : 0;
		terms[t].pad = 0;
		terms[t].idf = bt->idf;
	}

	/* the queries, in chunks of at most gpx_rk_cand_cap slots */
	{
		uint64_t	cand = 0,
					res = 0,
					scr = 0;
		uint32_t	first = 0,
					p2;

		for (uint32_t q = 0; q < b->nqueries; q++)
		{
			const gpx_rank_bquery *bq = &b->queries[q];
			gpx_rk_query *Q = &qs[q];
			uint64_t	c = gpx_rk_cands(b, bq, &Q->drv);

			if (q > first && cand + c > gpx_rk_cand_cap)
			{
				chunk_end.push_back(q);
				first = q;
				cand = res = scr = 0;
			}
			Q->cand_off = cand;
			Q->cand_n = (uint32_t) c;
			if (c > UINT32_MAX)
				return gpx_msg(ctx, GPX_CUDA_BAD_INPUT, "too many candidates in one query");
			Q->first_term = bq->first_term;
			Q->nterms = bq->nterms;
			Q->k = bq->k;
			Q->mode = bq->mode;
			Q->res_off = res;
			Q->scr_off = scr;
			cand += c;
			res += bq->k;
			for (p2 = 1; p2 < bq->k; p2 <<= 1)
				;
			scr += p2;
			max_cand = cand > max_cand ? cand : max_cand;
			max_res = res > max_res ? res : max_res;
			max_scr = scr > max_scr ? scr : max_scr;
			max_nq = q + 1 - first > max_nq ? q + 1 - first : max_nq;
		}
		if (b->nqueries > 0)
			chunk_end.push_back(b->nqueries);
	}

	memset(&a, 0, sizeof(a));
	GPX_TRY(mem.get(&a.cdoc, max_cand * sizeof(uint32_t)));
	GPX_TRY(mem.get(&a.csc, max_cand * sizeof(double)));
	GPX_TRY(mem.get(&a.sdoc, max_scr * sizeof(uint32_t)));
	GPX_TRY(mem.get(&a.ssc, max_scr * sizeof(double)));
	GPX_TRY(mem.get(&a.odoc, max_res * sizeof(uint32_t)));
	GPX_TRY(mem.get(&a.osc, max_res * sizeof(double)));
	GPX_TRY(mem.get(&a.ocount, (size_t) max_nq * sizeof(uint32_t)));

	if (stats && !evs.create())
		(void) cudaGetLastError();	/* no timing, nothing else changes */
	GPX_TRY(evs.record(0, st));
	GPX_TRY(cudaMemcpyAsync(d_blobs, stage.data(), stage.size(), cudaMemcpyHostToDevice, st));
	GPX_TRY(cudaMemcpyAsync(d_dls, dls.data(), nl * sizeof(gpx_dl), cudaMemcpyHostToDevice, st));
	GPX_TRY(cudaMemcpyAsync(d_offs, offs.data(), (nl + 1) * sizeof(uint64_t), cudaMemcpyHostToDevice, st));
	GPX_TRY(cudaMemcpyAsync(d_blk, blk_start.data(), (nl + 1) * sizeof(uint32_t), cudaMemcpyHostToDevice, st));
	if (!dl_kept)
	{
		GPX_TRY(cudaMemcpyAsync(d_dl, b->doclen->entries, dl_bytes, cudaMemcpyHostToDevice, st));
		if (b->doclen_id != 0)
		{
			/* kept once the copy is done (a failure before leaves id 0) */
			GPX_TRY(cudaStreamSynchronize(st));
			d->rk_dl_id = b->doclen_id;
			d->rk_dl_bytes = dl_bytes;
		}
	}
	GPX_TRY(cudaMemcpyAsync(d_t, terms.data(), b->nterms * sizeof(gpx_rk_term), cudaMemcpyHostToDevice, st));
	GPX_TRY(cudaMemcpyAsync(d_q, qs.data(), b->nqueries * sizeof(gpx_rk_query), cudaMemcpyHostToDevice, st));
	if (stats)
		stats->bytes_in += stage.size() + (dl_kept ? 0 : dl_bytes) + nl * sizeof(gpx_dl) +
			b->nterms * sizeof(gpx_rk_term) + b->nqueries * sizeof(gpx_rk_query);
	e = gpx_cuda_k_rank_decode(d_dls, d_offs, d_blk, nl, blk_start[nl], d_docs, d_tfs, st);
	if (e == cudaSuccess)
		e = evs.record(1, st);
	if (e != cudaSuccess)
	{
		ctx->broken = true;
		return gpx_fail(ctx, e, "rank decode kernel");
	}

	a.nq = 0;
	a.dl_width = b->doclen->width;
	a.dl_span = b->doclen->span;
	a.dl_entries = d_dl;
	a.t = d_t;
	a.docs = d_docs;
	a.tfs = d_tfs;
	gpx_bm25_init(&a.bm, b->k1, b->b, b->doclen->ndocs, b->doclen->total);
	{
		std::vector<uint32_t> hdoc(max_res), hcnt(max_nq);
		std::vector<double> hsc(max_res);
		uint32_t	first = 0;

		for (uint32_t end : chunk_end)
		{
			uint64_t	ncand = qs[end - 1].cand_off + qs[end - 1].cand_n;
			uint64_t	nres = qs[end - 1].res_off + qs[end - 1].k;

			a.q = d_q + first;
			a.nq = end - first;
			e = evs.record(2, st);
			if (e == cudaSuccess)
				e = gpx_cuda_k_rank_score(&a, ncand, st);
			if (e == cudaSuccess)
				e = evs.record(3, st);
			if (e == cudaSuccess)
				e = gpx_cuda_k_rank_topk(&a, st);
			if (e == cudaSuccess)
				e = evs.record(4, st);
			if (e == cudaSuccess)
				e = cudaMemcpyAsync(hdoc.data(), a.odoc, nres * sizeof(uint32_t),
									cudaMemcpyDeviceToHost, st);
			if (e == cudaSuccess)
				e = cudaMemcpyAsync(hsc.data(), a.osc, nres * sizeof(double),
									cudaMemcpyDeviceToHost, st);
			if (e == cudaSuccess)
				e = cudaMemcpyAsync(hcnt.data(), a.ocount, a.nq * sizeof(uint32_t),
									cudaMemcpyDeviceToHost, st);
			if (e == cudaSuccess)
				e = cudaStreamSynchronize(st);
			if (e != cudaSuccess)
			{
				ctx->broken = true;
				return gpx_fail(ctx, e, "rank kernels");
			}
			for (uint32_t q = first; q < end; q++)
			{
				gpx_rank_bquery *bq = &b->queries[q];
				uint32_t	cnt = hcnt[q - first];

				if (cnt > bq->k)
				{
					ctx->broken = true;
					return gpx_msg(ctx, GPX_CUDA_ERROR, "rank kernels returned more than k results");
				}
				memcpy(b->out_docs + bq->out_offset, hdoc.data() + qs[q].res_off,
					   cnt * sizeof(uint32_t));
				memcpy(b->out_scores + bq->out_offset, hsc.data() + qs[q].res_off,
					   cnt * sizeof(double));
				bq->out_count = cnt;
				bq->status = GPX_OK;
				if (stats)
					stats->results += cnt;
			}
			if (stats)
			{
				stats->candidates += ncand;
				stats->chunks++;
				if (first == 0)
					stats->upload_ms = evs.ms(0, 1);
				stats->score_ms += evs.ms(2, 3);
				stats->select_ms += evs.ms(3, 4);
			}
			first = end;
		}
	}
	return GPX_CUDA_OK;
}

/* Run a prepared batch of ranked queries on the first device. */
extern "C" gpx_cuda_status
gpx_cuda_rank_run(gpx_cuda_ctx *ctx, gpx_rank_batch *b, gpx_cuda_rank_stats *stats)
{
	if (stats)
		memset(stats, 0, sizeof(*stats));
	if (ctx == nullptr)
		return GPX_CUDA_BAD_INPUT;
	if (b == nullptr || b->doclen == nullptr || (b->nlists > 0 && b->lists == nullptr) ||
		(b->nterms > 0 && b->terms == nullptr) || (b->nqueries > 0 && b->queries == nullptr))
		return gpx_msg(ctx, GPX_CUDA_BAD_INPUT, "malformed rank batch");
	if (ctx->broken)
		return gpx_msg(ctx, GPX_CUDA_ERROR, "the gpu context failed earlier");
	if (ctx->devs.empty())
		return gpx_msg(ctx, GPX_CUDA_NO_DEVICE, "no gpu");
	try
	{
		return gpx_rk_run(ctx, b, stats);
	}
	catch (...)
	{
		return gpx_msg(ctx, GPX_CUDA_OOM, "out of host memory in the rank driver");
	}
}
