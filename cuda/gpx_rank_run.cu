/*
 * gpx_rank_run.cu - the host driver of ranked retrieval on the GPU
 * (gpx_cuda_rank.h): uploads the lists the batch's terms use and the
 * document lengths, decodes the lists, then runs the queries in chunks
 * whose candidate slots fit gpx_rk_cand_cap (a chunk holds at least one
 * query): score, cut (a query of many candidates), select, copy the
 * results back and put each query's where the batch wants them.
 *
 * A small batch (one backend's query) must cost little besides its
 * kernels, so nothing is allocated per call: the device keeps a scratch
 * of device memory and one of pinned host memory (gpx_dev.d_rk, h_rk;
 * grown as batches need, given back above GPX_RK_KEEP_BYTES and
 * GPX_RK_KEEP_HOST_BYTES), everything
 * that goes in (blobs, descriptors) travels in one copy from the pinned
 * scratch, and each chunk's counts, docIDs and scores come back in one.
 * A blob of 16 KiB or more that already lies in pinned memory (the
 * executor's arena, gpx_cuda_pin) is copied from there instead, skipping
 * the host's copy into the scratch.
 * The document lengths of a batch whose statistics have an id (doclen_id)
 * stay on the device until a batch with other statistics comes, so that a
 * stream of batches over one collection uploads them once.
 *
 * Up to gpx_cuda_rank_streams batches of one round each run side by side
 * (gpx_cuda_rank_start): each on a stream of its own with scratch of its
 * own, ended later by gpx_cuda_rank_progress.  A run reads a list that a
 * run before it copies into the device list cache only after that copy
 * (an event), the list cache evicts nothing a run in flight uses (its
 * sequence number), and the kept document lengths are replaced only once
 * no run is in flight.  Every other entry point of the back end first
 * ends the runs in flight (gpx_rk_drain).
 */
#include <algorithm>
#include <memory>
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

/*
 * Blobs in pinned memory (gpx_cuda_pin: the executor's arena) of at least
 * this many bytes are copied to the device from where they lie instead of
 * through the pinned scratch (gpx_cuda_rank_direct_min).
 */
#define GPX_RK_DIRECT_MIN ((uint64_t) 16 << 10)
static uint64_t gpx_rk_direct_min = GPX_RK_DIRECT_MIN;

/* Set the direct copies' threshold (0: the default). */
extern "C" void
gpx_cuda_rank_direct_min(uint64_t bytes)
{
	gpx_rk_direct_min = bytes > 0 ? bytes : GPX_RK_DIRECT_MIN;
}

/* Queries of more candidate slots than this are cut (gpx_cuda_rank_cut_min). */
static uint64_t gpx_rk_cut_min = GPX_RK_CUT_MIN;

/* Set the cut's threshold (0: the default). */
extern "C" void
gpx_cuda_rank_cut_min(uint64_t slots)
{
	gpx_rk_cut_min = slots > 0 ? slots : GPX_RK_CUT_MIN;
}

/*
 * The scratch a device keeps between calls: up to this many bytes of
 * device and of pinned host memory (a larger batch's is given back after
 * it).  What a few backends' queries need stays; pinned memory is the
 * server's, so less of it is kept.
 */
#define GPX_RK_KEEP_BYTES ((size_t) 256 << 20)
#define GPX_RK_KEEP_HOST_BYTES ((size_t) 64 << 20)

/* Offsets of one call's buffers inside the scratch: 256-byte aligned. */
struct gpx_rk_lay
{
	size_t		at = 0;

	/* Room for n bytes; its offset. */
	size_t		take(size_t n)
	{
		size_t		o = at;

		at = gpx_al(at + (n > 0 ? n : 1), 256);
		return o;
	}
};

/* One round of the driver: queries [first, end) and what they need. */
struct gpx_rk_chunk
{
	uint32_t	first,
				end;
	uint64_t	ncand,			/* candidate slots */
				nres;			/* result slots */
	uint32_t	ntiles;			/* tiles of the cut */
	uint32_t	ncut;			/* queries cut */
	uint64_t	nkeep;			/* their candidate slots (room for the kept) */
};

/*
 * One rank stream of a device: its scratch, and the run in flight on it
 * (busy) until gpx_rk_end.  Stream 0 is the device's s_comp, the others
 * are made at first use.
 */
struct gpx_rk_slot
{
	cudaStream_t st = nullptr;
	bool		own_stream = false;
	cudaEvent_t ev_in = nullptr;	/* the run's copies into the list cache done */
	cudaEvent_t ev_done = nullptr;	/* the run's answers in the pinned scratch */
	uint8_t    *d = nullptr;	/* device scratch */
	size_t		dcap = 0;
	uint8_t    *h = nullptr;	/* pinned host scratch */
	size_t		hcap = 0;
	/* the run in flight */
	bool		busy = false;
	uint64_t	order = 0;		/* start order among the device's runs */
	uint64_t	seq = 0;		/* its list-cache use (0: none) */
	gpx_rank_batch *b = nullptr;
	gpx_cuda_rank_stats *stats = nullptr;
	gpx_cuda_rank_ticket *tk = nullptr;
	std::vector<gpx_rk_query> qs;
	gpx_rk_chunk c = {0, 0, 0, 0, 0, 0, 0};
	size_t		o_out = 0;
	gpx_call_events<5> *evs = nullptr;	/* timing, when stats */
};

/* What the ranked driver keeps on a device (gpx_dev.rk). */
struct gpx_rk_state
{
	gpx_rk_slot slot[GPX_CUDA_RANK_MAX_STREAMS];
	uint64_t	started = 0;	/* runs started (orders them) */
	bool		flush = false;	/* a run failed: drop the list cache once none runs */
};

/* d's ranked state, made at first use. */
static gpx_rk_state *
gpx_rk_of(gpx_dev *d)
{
	if (d->rk == nullptr)
	{
		d->rk = new gpx_rk_state;
		d->rk->slot[0].st = d->s_comp;
	}
	return d->rk;
}

/* Release what the ranked driver holds on d (its runs ended). */
void
gpx_rk_free(gpx_dev *d)
{
	if (d->rk == nullptr)
		return;
	for (gpx_rk_slot &s : d->rk->slot)
	{
		(void) cudaFree(s.d);
		(void) cudaFreeHost(s.h);
		if (s.ev_in)
			(void) cudaEventDestroy(s.ev_in);
		if (s.ev_done)
			(void) cudaEventDestroy(s.ev_done);
		if (s.own_stream && s.st)
			(void) cudaStreamDestroy(s.st);
		delete s.evs;
	}
	delete d->rk;
	d->rk = nullptr;
}

/*
 * Make slot s's scratch hold dev bytes of device memory and host bytes
 * of pinned host memory (grown by half again at least, so that batches
 * growing slowly reallocate seldom), and its stream and events exist.
 * Nothing of s may be in flight.
 */
static gpx_cuda_status
gpx_rk_reserve(gpx_cuda_ctx *ctx, gpx_rk_slot *s, size_t dev, size_t host)
{
	if (s->st == nullptr)
	{
		GPX_TRY(cudaStreamCreateWithFlags(&s->st, cudaStreamNonBlocking));
		s->own_stream = true;
	}
	if (s->ev_in == nullptr)
		GPX_TRY(cudaEventCreateWithFlags(&s->ev_in, cudaEventDisableTiming));
	if (s->ev_done == nullptr)
		GPX_TRY(cudaEventCreateWithFlags(&s->ev_done, cudaEventDisableTiming));
	if (s->dcap < dev)
	{
		size_t		n = gpx_al(std::max(dev, s->dcap + s->dcap / 2), (size_t) 1 << 20);

		(void) cudaFree(s->d);
		s->d = nullptr;
		s->dcap = 0;
		GPX_TRY(cudaMalloc((void **) &s->d, n));
		s->dcap = n;
	}
	if (s->hcap < host)
	{
		size_t		n = gpx_al(std::max(host, s->hcap + s->hcap / 2), (size_t) 1 << 20);

		(void) cudaFreeHost(s->h);
		s->h = nullptr;
		s->hcap = 0;
		GPX_TRY(cudaHostAlloc((void **) &s->h, n, cudaHostAllocPortable));
		s->hcap = n;
	}
	return GPX_CUDA_OK;
}

/* Give back s's scratch above the GPX_RK_KEEP_* sizes (its run ended). */
static void
gpx_rk_trim(gpx_rk_slot *s)
{
	if (s->dcap > GPX_RK_KEEP_BYTES)
	{
		(void) cudaFree(s->d);
		s->d = nullptr;
		s->dcap = 0;
	}
	if (s->hcap > GPX_RK_KEEP_HOST_BYTES)
	{
		(void) cudaFreeHost(s->h);
		s->h = nullptr;
		s->hcap = 0;
	}
}

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

/*
 * Where a round of nq queries and nres result slots puts its counts (at
 * 0), docIDs (*o_doc) and scores (*o_sc) in the out area; its bytes.
 */
static size_t
gpx_rk_out_lay(size_t nq, size_t nres, size_t *o_doc, size_t *o_sc)
{
	*o_doc = gpx_al(nq * sizeof(uint32_t), 256);
	*o_sc = *o_doc + gpx_al(nres * sizeof(uint32_t), 256);
	return *o_sc + nres * sizeof(double);
}

/*
 * Keyed list i of b in the device list cache: found (*ent, used as it
 * is), or given an entry there (*ent and *fresh: this call copies the
 * blob in and builds the side tables, tbls, as the pipeline does, so
 * that later calls -- ranked, union or intersection -- find it complete),
 * or neither (no key, no room, or its key names another list's entry).
 */
static void
gpx_rk_place(gpx_dev *d, const gpx_rank_batch *b, uint32_t i, uint64_t seq,
			 gpx_centry **ent, uint8_t *fresh, std::vector<gpx_dl> &tbls,
			 uint32_t *tbl_max, uint32_t *skip_max, gpx_cuda_rank_stats *stats)
{
	gpx_batch_list bl;
	gpx_cuda_footprint fp;
	gpx_centry *e;

	bl.list = b->lists[i];
	bl.key = b->list_keys[i];
	if (!gpx_ckey_valid(bl.key))
		return;
	if ((e = gpx_cache_lookup(&d->cache, &bl)) != nullptr)
	{
		gpx_cache_hit(&d->cache, e, seq);
		*ent = e;
		if (stats)
			stats->cache_hits++;
		return;
	}
	gpx_cuda_plan_footprint(&bl.list, &fp);
	if (fp.bytes > d->cache.pool.cap ||
		(e = gpx_cache_add(&d->cache, &bl, &fp, seq, d->seq_done)) == nullptr)
		return;
	if (!e->in_map)
	{
		gpx_cache_unadd(&d->cache, e);
		return;
	}
	*ent = e;
	*fresh = 1;
	gpx_cache_note_tables(e, &bl.list, &fp, tbls, tbl_max, skip_max);
	if (stats)
		stats->cache_misses++;
}

/*
 * Issue chunk c of a's batch on st: the cut's counters zeroed, score,
 * cut, top-k, then its counts, docIDs and scores copied from the device
 * scratch D's out area (at o_out) into the pinned scratch at hout.
 */
static cudaError_t
gpx_rk_launch(gpx_rk_args *a, const gpx_rk_chunk &c, uint8_t *D, uint8_t *hout, size_t o_out,
			  size_t o_hk, int sms, gpx_call_events<5> *evs, cudaStream_t st)
{
	uint32_t	nq = c.end - c.first;
	size_t		o_odoc,
				o_osc,
				out_bytes = gpx_rk_out_lay(nq, c.nres, &o_odoc, &o_osc);
	cudaError_t e;

	a->nq = nq;
	a->ntiles = c.ntiles;
	a->ocount = (uint32_t *) (D + o_out);
	a->odoc = (uint32_t *) (D + o_out + o_odoc);
	a->osc = (double *) (D + o_out + o_osc);
	a->hist = (uint32_t *) (D + o_hk);
	a->kcount = a->hist + (size_t) c.ncut * 2 * GPX_RK_CUT_BINS;
	e = evs->record(2, st);
	if (e == cudaSuccess && c.ntiles > 0)
		e = cudaMemsetAsync(a->hist, 0, (size_t) c.ncut * (2 * GPX_RK_CUT_BINS + 1) * sizeof(uint32_t), st);
	if (e == cudaSuccess)
		e = gpx_cuda_k_rank_score(a, c.ncand, sms, st);
	if (e == cudaSuccess)
		e = evs->record(3, st);
	if (e == cudaSuccess)
		e = gpx_cuda_k_rank_cut(a, st);
	if (e == cudaSuccess)
		e = gpx_cuda_k_rank_topk(a, st);
	if (e == cudaSuccess)
		e = evs->record(4, st);
	if (e == cudaSuccess)
		e = cudaMemcpyAsync(hout, a->ocount, out_bytes, cudaMemcpyDeviceToHost, st);
	return e;
}

/*
 * Put chunk c's answers, come back into the pinned scratch at hout, where
 * b wants them; its statistics into stats (NULL: none).
 */
static gpx_cuda_status
gpx_rk_collect(gpx_cuda_ctx *ctx, gpx_rank_batch *b, const std::vector<gpx_rk_query> &qs,
			   const gpx_rk_chunk &c, const uint8_t *hout, gpx_call_events<5> *evs,
			   gpx_cuda_rank_stats *stats)
{
	size_t		o_odoc,
				o_osc;
	const uint32_t *hcnt = (const uint32_t *) hout;
	const uint32_t *hdoc;
	const double *hsc;

	(void) gpx_rk_out_lay(c.end - c.first, c.nres, &o_odoc, &o_osc);
	hdoc = (const uint32_t *) (hout + o_odoc);
	hsc = (const double *) (hout + o_osc);
	for (uint32_t q = c.first; q < c.end; q++)
	{
		gpx_rank_bquery *bq = &b->queries[q];
		uint32_t	cnt = hcnt[q - c.first];

		if (cnt > bq->k)
		{
			ctx->broken = true;
			return gpx_msg(ctx, GPX_CUDA_ERROR, "rank kernels returned more than k results");
		}
		memcpy(b->out_docs + bq->out_offset, hdoc + qs[q].res_off, cnt * sizeof(uint32_t));
		memcpy(b->out_scores + bq->out_offset, hsc + qs[q].res_off, cnt * sizeof(double));
		bq->out_count = cnt;
		bq->status = GPX_OK;
		if (stats)
			stats->results += cnt;
	}
	if (stats)
	{
		stats->candidates += c.ncand;
		stats->chunks++;
		stats->cut_tiles += c.ntiles;
		for (uint32_t q = c.first; q < c.end; q++)
			stats->cut_queries += qs[q].ntiles > 0;
		if (c.first == 0)
			stats->upload_ms = evs->ms(0, 1);
		stats->score_ms += evs->ms(2, 3);
		stats->select_ms += evs->ms(3, 4);
	}
	return GPX_CUDA_OK;
}

/*
 * The list-cache sequence up to which every use has ended: the oldest
 * ranked run in flight's less one, or all that was issued.
 */
static void
gpx_rk_seq_done(gpx_dev *d)
{
	uint64_t	lo = d->seq_issued;

	for (const gpx_rk_slot &s : d->rk->slot)
		if (s.busy && s.seq != 0)
			lo = std::min(lo, s.seq - 1);
	d->seq_done = std::max(d->seq_done, lo);
}

/* Mark tk done with st (the context's message on a failure). */
static void
gpx_rk_ticket(gpx_cuda_ctx *ctx, gpx_cuda_rank_ticket *tk, gpx_cuda_status st)
{
	tk->status = st;
	tk->err[0] = '\0';
	if (st != GPX_CUDA_OK)
		snprintf(tk->err, sizeof(tk->err), "%.255s", ctx->err);
	tk->done = 1;
}

/*
 * The bookkeeping of a run of b that ended with st, in flight or not:
 * the list-cache uses that ended, the device's counts, the list cache to
 * drop after a failure (gpx_rk_after_failure), tk done.
 */
static void
gpx_rk_ended(gpx_cuda_ctx *ctx, gpx_dev *d, const gpx_rank_batch *b, gpx_cuda_rank_ticket *tk,
			 gpx_cuda_status st)
{
	gpx_rk_seq_done(d);
	if (st == GPX_CUDA_OK)
	{
		ctx->rank_runs++;
		ctx->rank_queries += b->nqueries;
	}
	else
		d->rk->flush = true;
	gpx_rk_ticket(ctx, tk, st);
}

/*
 * End the run in flight on s (wait: once the device finished it; else
 * only if it has): its answers into its batch, its ticket done, s free.
 * True when s has no run in flight afterwards.
 */
static bool
gpx_rk_end(gpx_cuda_ctx *ctx, gpx_dev *d, gpx_rk_slot *s, bool wait)
{
	gpx_cuda_status st;
	cudaError_t e;

	if (!s->busy)
		return true;
	e = wait ? cudaEventSynchronize(s->ev_done) : cudaEventQuery(s->ev_done);
	if (!wait && e == cudaErrorNotReady)
		return false;
	if (e != cudaSuccess)
	{
		ctx->broken = true;
		st = gpx_fail(ctx, e, "rank kernels");
	}
	else
		st = gpx_rk_collect(ctx, s->b, s->qs, s->c, s->h + s->o_out, s->evs, s->stats);
	s->busy = false;
	delete s->evs;
	s->evs = nullptr;
	gpx_rk_trim(s);
	gpx_rk_ended(ctx, d, s->b, s->tk, st);
	return true;
}

/*
 * After a run that failed: once no run is in flight, the device list
 * cache is dropped (entries a failed run made may have no data), as the
 * union driver drops it.
 */
static void
gpx_rk_after_failure(gpx_dev *d)
{
	if (!d->rk->flush)
		return;
	for (const gpx_rk_slot &s : d->rk->slot)
		if (s.busy)
			return;
	gpx_cache_flush(&d->cache);
	d->seq_done = d->seq_issued;
	d->rk->flush = false;
}

/* End the runs in flight on d, oldest first (wait: all; see gpx_cuda_rank_progress). */
static int
gpx_rk_progress(gpx_cuda_ctx *ctx, gpx_dev *d, bool wait)
{
	gpx_rk_state *rs = d->rk;
	int			left = 0;

	if (rs == nullptr)
		return 0;
	for (;;)
	{
		gpx_rk_slot *o = nullptr;

		/* the oldest run not looked at yet */
		for (gpx_rk_slot &s : rs->slot)
			if (s.busy && (o == nullptr || s.order < o->order))
				o = &s;
		if (o == nullptr)
			break;
		if (!gpx_rk_end(ctx, d, o, wait || rs->flush))
		{
			/* still running: the later ones may have ended */
			for (gpx_rk_slot &s : rs->slot)
				if (s.busy && &s != o)
					(void) gpx_rk_end(ctx, d, &s, false);
			break;
		}
	}
	gpx_rk_after_failure(d);
	for (const gpx_rk_slot &s : rs->slot)
		left += s.busy;
	return left;
}

/* Wait for and end every ranked run in flight (gpx_cuda_host.cuh). */
void
gpx_rk_drain(gpx_cuda_ctx *ctx)
{
	if (ctx == nullptr)
		return;
	for (gpx_dev *d : ctx->devs)
		(void) gpx_rk_progress(ctx, d, true);
}

/*
 * Run b on rank stream s of d (gpx_rk_start sees to the list cache and
 * the ticket around it).  With async and one device round, the call
 * returns once everything is issued, s busy with the run; otherwise the
 * run has ended when it returns.
 */
static gpx_cuda_status
gpx_rk_body(gpx_cuda_ctx *ctx, gpx_dev *d, gpx_rk_slot *s, gpx_rank_batch *b,
			gpx_cuda_rank_stats *stats, gpx_cuda_rank_ticket *tk, bool async)
{
	uint32_t	nl = b->nlists;
	std::vector<uint64_t> offs(nl + 1), boff(nl + 1);
	std::vector<uint32_t> blk_start(nl + 1);
	std::vector<uint8_t> used(nl, 0),
				direct(nl, 0);
	std::vector<gpx_centry *> ent(nl, nullptr);	/* in the device list cache */
	std::vector<uint8_t> fresh(nl, 0);	/* ent[i] is new: copy the blob in */
	std::vector<gpx_dl> tbls;	/* new entries whose side tables to build */
	std::vector<gpx_dupload> ups;	/* new entries' blobs: scratch -> cache */
	uint32_t	tbl_max = 0,
				skip_max = 0;
	uint64_t	seq = 0;
	bool		use_cache = b->list_keys != nullptr && d->cache.pool.cap > 0;
	std::vector<gpx_rk_query> qs(b->nqueries);
	std::vector<gpx_rk_chunk> chunks;
	std::unique_ptr<gpx_call_events<5>> evs(new gpx_call_events<5>);
	gpx_rk_lay	lay;
	size_t		o_blobs,
				o_dls,
				o_offs,
				o_blk,
				o_terms,
				o_q,
				o_out,
				o_docs,
				o_tfs,
				o_cdoc,
				o_csc,
				o_kdoc,
				o_ksc,
				o_sdoc,
				o_ssc,
				o_hk,
				o_up,
				o_tb,
				o_dl = 0,
				in_bytes,
				host_bytes;
	uint8_t    *D,
			   *H,
			   *d_dl;
	gpx_dl	   *dls;
	gpx_rk_term *terms;
	uint64_t	max_cand = 0,
				max_res = 0,
				max_scr = 0,
				max_keep = 0;
	uint32_t	max_nq = 0,
				max_cut = 0;
	size_t		dl_bytes = (size_t) b->doclen->span * b->doclen->width;
	bool		dl_kept;
	cudaStream_t st;
	gpx_rk_args a;
	gpx_cuda_status rs;
	cudaError_t e;

	/* the lists some term uses: blobs packed 16-aligned, decoded 4-aligned */
	for (uint32_t t = 0; t < b->nterms; t++)
		if (b->terms[t].list >= 0 && (uint32_t) b->terms[t].list < nl)
			used[b->terms[t].list] = 1;
	for (uint32_t i = 0; i < nl; i++)
		if (used[i] && !gpx_cuda_list_ok(&b->lists[i]))
			return gpx_msg(ctx, GPX_CUDA_BAD_INPUT, "list not supported by the gpu kernels");
	GPX_TRY(cudaSetDevice(d->ord));
	dl_kept = b->doclen_id != 0 && d->d_rk_dl != nullptr && d->rk_dl_id == b->doclen_id &&
		d->rk_dl_bytes == dl_bytes;
	if (!dl_kept && b->doclen_id != 0)
	{
		/*
		 * the new statistics will replace the kept ones, which the runs in
		 * flight may read: they end first (before this run's use of the
		 * list cache, which their ends would otherwise count as done)
		 */
		for (gpx_rk_slot &o : d->rk->slot)
			(void) gpx_rk_end(ctx, d, &o, true);
		if (ctx->broken)
			return gpx_msg(ctx, GPX_CUDA_ERROR, "the gpu context failed earlier");
	}
	if (use_cache)
	{
		/* the cache's entries are complete and evictable once nothing of the
		 * pipeline is in flight; this run's seq marks the ones it uses, and
		 * the ranked runs in flight keep theirs (gpx_rk_seq_done) */
		gpx_cuda_status fs;

		if ((fs = gpx_pipeline_finish(ctx)) != GPX_CUDA_OK)
			return fs;
		seq = ++d->seq_issued;
	}
	offs[0] = boff[0] = 0;
	blk_start[0] = 0;
	for (uint32_t i = 0; i < nl; i++)
	{
		const gpx_list *l = &b->lists[i];
		bool		live = used[i] && l->n > 0;

		offs[i + 1] = offs[i] + (live ? gpx_al(l->n, 4) : 0);
		/* a long blob already in pinned memory goes to the device from there */
		direct[i] = live && l->len >= gpx_rk_direct_min && gpx_find_pin(ctx, l->base, l->len);
		if (live && use_cache)
			gpx_rk_place(d, b, i, seq, &ent[i], &fresh[i], tbls, &tbl_max, &skip_max, stats);
		/*
		 * each blob with its zero padding (GPX_BLOB_PAD), in the scratch
		 * unless the device holds it (cached) or it goes straight from
		 * pinned memory into its new cache entry
		 */
		boff[i + 1] = boff[i] +
			(live && (ent[i] == nullptr || (fresh[i] && !direct[i])) ? gpx_blob_span(l->len) : 0);
		if ((uint64_t) blk_start[i] + (live ? l->nblocks : 0) > UINT32_MAX)
			return gpx_msg(ctx, GPX_CUDA_BAD_INPUT, "too many list blocks in one batch");
		blk_start[i + 1] = blk_start[i] + (live ? l->nblocks : 0);
		if (stats && live)
		{
			stats->lists++;
			stats->postings += l->n;
		}
		if (stats && direct[i] && (ent[i] == nullptr || fresh[i]))
			stats->direct_lists++;
		if (fresh[i] && !direct[i])
			ups.push_back({0, (uint4 *) (d->cache.d_pool + ent[i]->off),
						   gpx_blob_span(l->len) / 16});
	}

	/*
	 * The queries, in chunks of at most gpx_rk_cand_cap slots; within a
	 * chunk, each query's candidates, results, selection scratch and
	 * tiles of the cut follow the ones before
	 */
	{
		gpx_rk_chunk c = {0, 0, 0, 0, 0, 0, 0};
		uint64_t	scr = 0;

		for (uint32_t q = 0; q < b->nqueries; q++)
		{
			const gpx_rank_bquery *bq = &b->queries[q];
			gpx_rk_query *Q = &qs[q];
			uint64_t	n = gpx_rk_cands(b, bq, &Q->drv);
			uint32_t	p2;

			if (q > c.first && c.ncand + n > gpx_rk_cand_cap)
			{
				c.end = q;
				chunks.push_back(c);
				c = {q, 0, 0, 0, 0, 0, 0};
				scr = 0;
			}
			if (n > UINT32_MAX)
				return gpx_msg(ctx, GPX_CUDA_BAD_INPUT, "too many candidates in one query");
			Q->cand_off = c.ncand;
			Q->cand_n = (uint32_t) n;
			Q->first_term = bq->first_term;
			Q->nterms = bq->nterms;
			Q->k = bq->k;
			Q->mode = bq->mode;
			Q->res_off = c.nres;
			Q->scr_off = scr;
			Q->tile_off = c.ntiles;
			Q->ntiles = n > gpx_rk_cut_min ? (uint32_t) ((n + GPX_RK_TILE - 1) / GPX_RK_TILE) : 0;
			c.ncand += n;
			c.nres += bq->k;
			c.ntiles += Q->ntiles;
			Q->cut_row = Q->ntiles > 0 ? c.ncut++ : 0;
			Q->keep_off = c.nkeep;
			c.nkeep += Q->ntiles > 0 ? n : 0;
			max_cut = std::max(max_cut, c.ncut);
			max_keep = std::max(max_keep, c.nkeep);
			for (p2 = 1; p2 < bq->k; p2 <<= 1)
				;
			scr += p2;
			max_cand = std::max(max_cand, c.ncand);
			max_res = std::max(max_res, c.nres);
			max_scr = std::max(max_scr, scr);
			max_nq = std::max(max_nq, q + 1 - c.first);
		}
		if (b->nqueries > 0)
		{
			c.end = b->nqueries;
			chunks.push_back(c);
		}
	}

	/*
	 * The scratch: what goes in (blobs, descriptors) and comes out (per
	 * chunk: counts, docIDs, scores) at the same offsets in pinned host
	 * and device memory, then the device's working buffers
	 */
	o_blobs = lay.take(boff[nl]);
	o_dls = lay.take(nl * sizeof(gpx_dl));
	o_offs = lay.take((nl + 1) * sizeof(uint64_t));
	o_blk = lay.take((nl + 1) * sizeof(uint32_t));
	o_terms = lay.take(b->nterms * sizeof(gpx_rk_term));
	o_q = lay.take(b->nqueries * sizeof(gpx_rk_query));
	o_up = lay.take(ups.size() * sizeof(gpx_dupload));
	o_tb = lay.take(tbls.size() * sizeof(gpx_dl));
	in_bytes = lay.at;
	{
		size_t		o_doc,
					o_sc;

		o_out = lay.take(gpx_rk_out_lay(max_nq, max_res, &o_doc, &o_sc));
	}
	host_bytes = lay.at;
	o_docs = lay.take(offs[nl] * sizeof(uint32_t));
	o_tfs = lay.take(offs[nl] * sizeof(uint32_t));
	o_cdoc = lay.take(max_cand * sizeof(uint32_t));
	o_csc = lay.take(max_cand * sizeof(double));
	o_kdoc = lay.take(max_keep * sizeof(uint32_t));
	o_ksc = lay.take(max_keep * sizeof(double));
	o_sdoc = lay.take(max_scr * sizeof(uint32_t));
	o_ssc = lay.take(max_scr * sizeof(double));
	o_hk = lay.take((size_t) max_cut * (2 * GPX_RK_CUT_BINS + 1) * sizeof(uint32_t));
	if (b->doclen_id == 0)
		o_dl = lay.take(dl_bytes);

	rs = gpx_rk_reserve(ctx, s, lay.at, host_bytes);
	if (rs != GPX_CUDA_OK)
		return rs;
	st = s->st;
	/* nothing of an earlier call that failed half-way may still use the scratch */
	GPX_TRY(cudaStreamSynchronize(st));
	D = s->d;
	H = s->h;
	if (dl_kept)
		d_dl = d->d_rk_dl;
	else if (b->doclen_id != 0)
	{
		/* the new statistics replace the kept ones (no run in flight: above) */
		(void) cudaFree(d->d_rk_dl);
		d->d_rk_dl = nullptr;
		d->rk_dl_id = 0;
		d->rk_dl_bytes = 0;
		GPX_TRY(cudaMalloc(&d->d_rk_dl, dl_bytes < 16 ? 16 : dl_bytes));
		d_dl = d->d_rk_dl;
	}
	else
		d_dl = D + o_dl;

	/* what goes in, in pinned memory: one copy */
	dls = (gpx_dl *) (H + o_dls);
	terms = (gpx_rk_term *) (H + o_terms);
	for (uint32_t i = 0, u = 0; i < nl; i++)
		if (boff[i + 1] > boff[i])
		{
			/* a direct blob's place is overwritten by its own copy, after */
			if (!direct[i])
				memcpy(H + o_blobs + boff[i], b->lists[i].base, b->lists[i].len);
			memset(H + o_blobs + boff[i] + b->lists[i].len, 0,
				   boff[i + 1] - boff[i] - b->lists[i].len);
			if (fresh[i])
				ups[u++].src_off = o_blobs + boff[i];	/* then into the cache */
		}
	for (uint32_t i = 0; i < nl; i++)
		if (ent[i] != nullptr)
			dls[i] = ent[i]->dl;
		else if (used[i])
			gpx_make_dl(&b->lists[i], D + o_blobs + boff[i], &dls[i]);
		else
			memset(&dls[i], 0, sizeof(gpx_dl));	/* no blocks: never read */
	if (!ups.empty())
		memcpy(H + o_up, ups.data(), ups.size() * sizeof(gpx_dupload));
	if (!tbls.empty())
		memcpy(H + o_tb, tbls.data(), tbls.size() * sizeof(gpx_dl));
	memcpy(H + o_offs, offs.data(), (nl + 1) * sizeof(uint64_t));
	memcpy(H + o_blk, blk_start.data(), (nl + 1) * sizeof(uint32_t));
	for (uint32_t t = 0; t < b->nterms; t++)
	{
		const gpx_rank_bterm *bt = &b->terms[t];

		terms[t].off = bt->list >= 0 ? offs[bt->list] : 0;
		terms[t].n = bt->list >= 0 ? b->lists[bt->list].n : 0;
		terms[t].pad = 0;
		terms[t].idf = bt->idf;
	}
	memcpy(H + o_q, qs.data(), b->nqueries * sizeof(gpx_rk_query));

	if (stats && !evs->create())
		(void) cudaGetLastError();	/* no timing, nothing else changes */
	GPX_TRY(evs->record(0, st));
	GPX_TRY(cudaMemcpyAsync(D, H, in_bytes, cudaMemcpyHostToDevice, st));
	for (uint32_t i = 0; i < nl; i++)
		if (direct[i] && ent[i] == nullptr)
			GPX_TRY(cudaMemcpyAsync(D + o_blobs + boff[i], b->lists[i].base, b->lists[i].len,
									cudaMemcpyHostToDevice, st));
		else if (direct[i] && fresh[i])
		{
			uint8_t    *dst = d->cache.d_pool + ent[i]->off;

			/* the unit holding the blob's end zeroed first: its padding */
			GPX_TRY(cudaMemsetAsync(dst + gpx_blob_pad_unit(b->lists[i].len), 0, GPX_BLOB_PAD, st));
			GPX_TRY(cudaMemcpyAsync(dst, b->lists[i].base, b->lists[i].len,
									cudaMemcpyHostToDevice, st));
		}
	if (!ups.empty())
		GPX_TRY(gpx_cuda_k_upload((const gpx_dupload *) (D + o_up), (uint32_t) ups.size(), D, st));
	for (size_t i = 0; i < tbls.size(); i += 65535)
	{
		uint32_t	nt = (uint32_t) std::min<size_t>(65535, tbls.size() - i);

		GPX_TRY(gpx_cuda_k_tables((const gpx_dl *) (D + o_tb) + i, nt, tbl_max, skip_max, st));
	}
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
	if (stats)
		stats->bytes_in += in_bytes + (dl_kept ? 0 : dl_bytes);
	/*
	 * this run's copies into the list cache are done at ev_in; a cached
	 * list that a run in flight on another stream copies in is read after
	 * that run's ev_in
	 */
	GPX_TRY(cudaEventRecord(s->ev_in, st));
	for (gpx_rk_slot &o : d->rk->slot)
		if (o.busy && &o != s)
			GPX_TRY(cudaStreamWaitEvent(st, o.ev_in, 0));
	e = gpx_cuda_k_rank_decode((const gpx_dl *) (D + o_dls), (const uint64_t *) (D + o_offs),
							   (const uint32_t *) (D + o_blk), nl, blk_start[nl],
							   (uint32_t *) (D + o_docs), (uint32_t *) (D + o_tfs), st);
	if (e == cudaSuccess)
		e = evs->record(1, st);
	if (e != cudaSuccess)
	{
		ctx->broken = true;
		return gpx_fail(ctx, e, "rank decode kernel");
	}

	memset(&a, 0, sizeof(a));
	a.dl_width = b->doclen->width;
	a.dl_span = b->doclen->span;
	a.dl_entries = d_dl;
	a.t = (const gpx_rk_term *) (D + o_terms);
	a.docs = (const uint32_t *) (D + o_docs);
	a.tfs = (const uint32_t *) (D + o_tfs);
	a.cdoc = (uint32_t *) (D + o_cdoc);
	a.csc = (double *) (D + o_csc);
	a.kdoc = (uint32_t *) (D + o_kdoc);
	a.ksc = (double *) (D + o_ksc);
	a.sdoc = (uint32_t *) (D + o_sdoc);
	a.ssc = (double *) (D + o_ssc);
	gpx_bm25_init(&a.bm, b->k1, b->b, b->doclen->ndocs, b->doclen->total);
	if (async && chunks.size() == 1)
	{
		/* one round: issued, and ended later (gpx_rk_end) */
		a.q = (const gpx_rk_query *) (D + o_q);
		e = gpx_rk_launch(&a, chunks[0], D, H + o_out, o_out, o_hk, d->sms, evs.get(), st);
		if (e == cudaSuccess)
			e = cudaEventRecord(s->ev_done, st);
		if (e != cudaSuccess)
		{
			ctx->broken = true;
			return gpx_fail(ctx, e, "rank kernels");
		}
		s->busy = true;
		s->order = ++d->rk->started;
		s->seq = seq;
		s->b = b;
		s->stats = stats;
		s->tk = tk;
		s->qs.swap(qs);
		s->c = chunks[0];
		s->o_out = o_out;
		s->evs = evs.release();
		return GPX_CUDA_OK;
	}
	for (const gpx_rk_chunk &c : chunks)
	{
		a.q = (const gpx_rk_query *) (D + o_q) + c.first;
		e = gpx_rk_launch(&a, c, D, H + o_out, o_out, o_hk, d->sms, evs.get(), st);
		if (e == cudaSuccess)
			e = cudaStreamSynchronize(st);
		if (e != cudaSuccess)
		{
			ctx->broken = true;
			return gpx_fail(ctx, e, "rank kernels");
		}
		rs = gpx_rk_collect(ctx, b, qs, c, H + o_out, evs.get(), stats);
		if (rs != GPX_CUDA_OK)
			return rs;
	}
	gpx_rk_trim(s);
	return GPX_CUDA_OK;
}

/*
 * Run b on a free rank stream of the first device (async: among the
 * ctx->rank_streams first, returning once it is issued when it can;
 * else on stream 0, alone, to its end), *tk done when it ended.  A
 * failure drops the device list cache once nothing runs (entries this
 * run made may have no data).
 */
static gpx_cuda_status
gpx_rk_start(gpx_cuda_ctx *ctx, gpx_rank_batch *b, gpx_cuda_rank_stats *stats,
			 gpx_cuda_rank_ticket *tk, bool async)
{
	gpx_dev    *d = ctx->devs[0];
	gpx_rk_state *rs;
	gpx_rk_slot *s = nullptr;
	int			n = async ? ctx->rank_streams : 1;
	uint64_t	issued = d->seq_issued;
	gpx_cuda_status st;

	tk->done = 0;
	try
	{
		rs = gpx_rk_of(d);
	}
	catch (...)
	{
		st = gpx_msg(ctx, GPX_CUDA_OOM, "out of host memory in the rank driver");
		gpx_rk_ticket(ctx, tk, st);
		return st;
	}
	if (!async)
		(void) gpx_rk_progress(ctx, d, true);
	while (s == nullptr)
	{
		gpx_rk_slot *o = nullptr;

		for (int i = 0; i < n && s == nullptr; i++)
			if (!rs->slot[i].busy)
				s = &rs->slot[i];
		if (s != nullptr)
			break;
		/* every stream busy: the oldest run ends first */
		for (int i = 0; i < n; i++)
			if (o == nullptr || rs->slot[i].order < o->order)
				o = &rs->slot[i];
		(void) gpx_rk_end(ctx, d, o, true);
	}
	try
	{
		st = ctx->broken ? gpx_msg(ctx, GPX_CUDA_ERROR, "the gpu context failed earlier") :
			gpx_rk_body(ctx, d, s, b, stats, tk, async);
	}
	catch (...)
	{
		st = gpx_msg(ctx, GPX_CUDA_OOM, "out of host memory in the rank driver");
	}
	if (st != GPX_CUDA_OK)
	{
		if (d->seq_issued != issued)
		{
			rs->flush = true;
			(void) gpx_rk_progress(ctx, d, true);
		}
		gpx_rk_ticket(ctx, tk, st);
		return st;
	}
	{
		/* the runs in flight, and this one if it ran to its end here */
		int			side = s->busy ? 0 : 1;

		for (const gpx_rk_slot &o : rs->slot)
			side += o.busy;
		ctx->rank_max_side = std::max(ctx->rank_max_side, side);
	}
	if (!s->busy)
		gpx_rk_ended(ctx, d, b, tk, GPX_CUDA_OK);
	return GPX_CUDA_OK;
}

/* Check ctx and b for the API's entry points; GPX_CUDA_OK: b may start. */
static gpx_cuda_status
gpx_rk_check(gpx_cuda_ctx *ctx, const gpx_rank_batch *b)
{
	if (b == nullptr || b->doclen == nullptr || (b->nlists > 0 && b->lists == nullptr) ||
		(b->nterms > 0 && b->terms == nullptr) || (b->nqueries > 0 && b->queries == nullptr))
		return gpx_msg(ctx, GPX_CUDA_BAD_INPUT, "malformed rank batch");
	if (ctx->broken)
		return gpx_msg(ctx, GPX_CUDA_ERROR, "the gpu context failed earlier");
	if (ctx->devs.empty())
		return gpx_msg(ctx, GPX_CUDA_NO_DEVICE, "no gpu");
	return GPX_CUDA_OK;
}

/* Run a prepared batch of ranked queries on the first device. */
extern "C" gpx_cuda_status
gpx_cuda_rank_run(gpx_cuda_ctx *ctx, gpx_rank_batch *b, gpx_cuda_rank_stats *stats)
{
	gpx_cuda_rank_ticket tk;
	gpx_cuda_status st;

	if (stats)
		memset(stats, 0, sizeof(*stats));
	if (ctx == nullptr)
		return GPX_CUDA_BAD_INPUT;
	if ((st = gpx_rk_check(ctx, b)) != GPX_CUDA_OK)
		return st;
	return gpx_rk_start(ctx, b, stats, &tk, false);
}

/* Start a prepared batch of ranked queries without waiting (gpx_cuda_rank.h). */
extern "C" gpx_cuda_status
gpx_cuda_rank_start(gpx_cuda_ctx *ctx, gpx_rank_batch *b, gpx_cuda_rank_stats *stats,
					gpx_cuda_rank_ticket *tk)
{
	gpx_cuda_status st;

	if (stats)
		memset(stats, 0, sizeof(*stats));
	if (tk == nullptr)
		return ctx == nullptr ? GPX_CUDA_BAD_INPUT :
			gpx_msg(ctx, GPX_CUDA_BAD_INPUT, "no ticket for a ranked run");
	tk->done = 1;
	tk->status = GPX_CUDA_BAD_INPUT;
	snprintf(tk->err, sizeof(tk->err), "no gpu context");
	if (ctx == nullptr)
		return GPX_CUDA_BAD_INPUT;
	if ((st = gpx_rk_check(ctx, b)) != GPX_CUDA_OK)
	{
		gpx_rk_ticket(ctx, tk, st);
		return st;
	}
	return gpx_rk_start(ctx, b, stats, tk, true);
}

/* End the started runs the device finished (gpx_cuda_rank.h). */
extern "C" int
gpx_cuda_rank_progress(gpx_cuda_ctx *ctx, int wait)
{
	if (ctx == nullptr || ctx->devs.empty())
		return 0;
	return gpx_rk_progress(ctx, ctx->devs[0], wait != 0);
}

/* Rank streams free to start on (gpx_cuda_rank.h). */
extern "C" int
gpx_cuda_rank_free(gpx_cuda_ctx *ctx)
{
	int			n,
				f = 0;

	if (ctx == nullptr || ctx->devs.empty())
		return 0;
	n = ctx->rank_streams;
	if (ctx->devs[0]->rk == nullptr)
		return n;
	for (int i = 0; i < n; i++)
		f += !ctx->devs[0]->rk->slot[i].busy;
	return f;
}

/* Ranked runs side by side (gpx_cuda_rank.h). */
extern "C" void
gpx_cuda_rank_streams(gpx_cuda_ctx *ctx, int n)
{
	if (ctx != nullptr)
		ctx->rank_streams = std::min(std::max(n, 1), GPX_CUDA_RANK_MAX_STREAMS);
}
