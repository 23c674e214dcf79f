/*
 * gpx_cuda.cu - the pipeline of the CUDA back end and its extern "C" API
 * (cuda/gpx_cuda.h): a gpx_batch runs through the kernels of gpx_isect.cu
 * in chunks, over the devices that gpx_cuda_setup.cu opened, with lists
 * kept in each device's cache (gpx_cuda_cache.cuh).
 *
 * A batch is planned on the host (gpx_cuda_plan.h: lists ordered shortest
 * first, the source block range restricted to [max first, min last]
 * through the directory, empty answers settled at once), its queries are
 * spread over the devices by longest-processing-time on candidates x
 * lists, and each device's queries are cut into chunks that fit a slot (a
 * query larger than a slot is split by source blocks).  Chunks alternate
 * between the two slots of a device, so the host builds chunk i+1 and its
 * copy runs on the copy stream while chunk i computes; there is one event
 * wait per chunk, none per query.  The kernels write results straight into
 * pinned mapped memory: the slot's result area, or the caller's output
 * when that lies in memory registered by gpx_cuda_pin().
 *
 * Nothing here throws across the C boundary, prints, or calls PostgreSQL;
 * errors are gpx_cuda_status values with a message in the context.  Not
 * thread-safe: one thread (the executor's) uses a context at a time.
 */
#include "gpx_cuda_host.cuh"
#include "gpx_cuda_plan.h"

#include <algorithm>
#include <new>
#include <vector>
#include <stdio.h>
#include <string.h>
#include <time.h>

namespace
{

/* lists in pinned memory at least this long are copied without staging */
#ifndef GPX_DIRECT_MIN_BYTES
#define GPX_DIRECT_MIN_BYTES (256 << 10)
#endif
constexpr size_t GPX_DIRECT_MIN = GPX_DIRECT_MIN_BYTES;

/* Where a chunk under construction stood before a query was added. */
struct gpx_mark
{
	size_t		dls,
				olist,
				ups,
				tbls,
				directs,
				transients,
				fresh,
				blob_used;
};

/* The state of one gpx_cuda_run_batch call. */
struct gpx_run
{
	gpx_batch  *b = nullptr;
	std::vector<gpx_cuda_qplan> plan;
	std::vector<uint32_t> olist;	/* batch list indices */
	std::vector<gpx_cuda_skey> keys;	/* planner scratch */
	uint64_t	candidates = 0,
				results = 0,
				bytes_in = 0;
	double		transfer_ms = 0,
				compute_ms = 0;
};

/* Monotonic clock in milliseconds. */
double
gpx_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

/* The pinned range holding [p, p + len), or NULL. */
const gpx_pin *
gpx_find_pin(const gpx_cuda_ctx *ctx, const void *p, size_t len)
{
	const uint8_t *a = (const uint8_t *) p;

	for (const gpx_pin &pin : ctx->pins)
		if (a >= pin.p && len <= pin.len && (size_t) (a - pin.p) <= pin.len - len)
			return &pin;
	return nullptr;
}

/* Result of trying to place a list for a chunk. */
enum gpx_place
{
	GPX_PLACED,
	GPX_NOROOM,					/* pool, staging or slot limits full now */
	GPX_NEVER					/* cannot fit even in an empty cache pool */
};

/*
 * Make list bl resident for chunk s (found in the cache, or given a cache
 * entry and queued for upload with this chunk); *slot gets its list slot
 * in the chunk.
 */
gpx_place
gpx_place_list(gpx_cuda_ctx *ctx, gpx_dev *d, gpx_slot *s,
			   const gpx_batch_list *bl, gpx_run *run, uint32_t *slot)
{
	const gpx_list *l = &bl->list;
	gpx_centry *e = gpx_cache_lookup(&d->cache, bl);

	if (e != nullptr)
		gpx_cache_hit(&d->cache, e, s->seq);
	else
	{
		gpx_cuda_footprint fp;
		size_t		len16 = gpx_al(l->len, 16);
		const gpx_pin *pin = gpx_find_pin(ctx, l->base, l->len);
		bool		direct = (pin != nullptr && l->len >= GPX_DIRECT_MIN) ||
			len16 > s->blob_cap / 2;

		gpx_cuda_plan_footprint(l, &fp);
		if (fp.bytes > d->cache.pool.cap)
			return GPX_NEVER;
		if (!direct && s->blob_used + len16 > s->blob_cap)
		{
			/* staging full: close the chunk, unless this is its first query */
			if (!s->pieces.empty())
				return GPX_NOROOM;
			direct = true;
		}
		if (s->ups.size() >= d->max_ups || s->tbls.size() >= d->max_lists)
			return GPX_NOROOM;
		e = gpx_cache_add(&d->cache, bl, &fp, s->seq, d->seq_done);
		if (e == nullptr)
			return GPX_NOROOM;
		if (fp.tbl_nb != 0)
			s->tbl_max = std::max(s->tbl_max, fp.tbl_nb + 1);
		if (fp.skip_bytes != 0)
			s->skip_max = std::max(s->skip_max, l->nblocks);
		if (fp.tbl_nb != 0 || fp.skip_bytes != 0)
			s->tbls.push_back(e->dl);
		if (direct)
		{
			s->directs.push_back({l->base, d->cache.d_pool + e->off, l->len});
			d->directs++;
		}
		else
		{
			gpx_dupload u;

			memcpy(s->h_stage + s->blob_used, l->base, l->len);
			if (len16 > l->len)
				memset(s->h_stage + s->blob_used + l->len, 0, len16 - l->len);
			u.src_off = s->blob_used;
			u.dst = (uint4 *) (d->cache.d_pool + e->off);
			u.units = len16 / 16;
			s->ups.push_back(u);
			s->blob_used += len16;
		}
		run->bytes_in += l->len;
		if (!e->in_map)
			s->transients.push_back(e);
		s->fresh.push_back(e);
	}
	if (e->memo_seq == s->seq && e->memo_slot < s->dls.size() && s->dl_ent[e->memo_slot] == e)
	{
		*slot = e->memo_slot;
		return GPX_PLACED;
	}
	if (s->dls.size() >= d->max_lists)
		return GPX_NOROOM;
	*slot = (uint32_t) s->dls.size();
	s->dls.push_back(e->dl);
	s->dl_ent.push_back(e);
	e->memo_seq = s->seq;
	e->memo_slot = *slot;
	return GPX_PLACED;
}

/* Where the chunk under construction stands. */
gpx_mark
gpx_mark_of(const gpx_slot *s)
{
	gpx_mark	m;

	m.dls = s->dls.size();
	m.olist = s->olist.size();
	m.ups = s->ups.size();
	m.tbls = s->tbls.size();
	m.directs = s->directs.size();
	m.transients = s->transients.size();
	m.fresh = s->fresh.size();
	m.blob_used = s->blob_used;
	return m;
}

/* Undo what a query added to the chunk since mark m. */
void
gpx_rollback(gpx_dev *d, gpx_slot *s, const gpx_mark &m, gpx_run *run)
{
	for (size_t j = m.dls; j < s->dl_ent.size(); j++)
		s->dl_ent[j]->memo_seq = 0;
	while (s->fresh.size() > m.fresh)
	{
		gpx_centry *e = s->fresh.back();

		s->fresh.pop_back();
		run->bytes_in -= e->len;
		gpx_cache_unadd(&d->cache, e);
	}
	s->dls.resize(m.dls);
	s->dl_ent.resize(m.dls);
	s->olist.resize(m.olist);
	s->ups.resize(m.ups);
	s->tbls.resize(m.tbls);
	s->directs.resize(m.directs);
	s->transients.resize(m.transients);
	s->blob_used = m.blob_used;
}

/* Reset a slot for building chunk seq. */
void
gpx_slot_reset(gpx_slot *s, uint64_t seq)
{
	s->seq = seq;
	s->dls.clear();
	s->dl_ent.clear();
	s->pieces.clear();
	s->hp.clear();
	s->olist.clear();
	s->nwork = 0;
	s->ups.clear();
	s->tbls.clear();
	s->directs.clear();
	s->transients.clear();
	s->fresh.clear();
	s->tbl_max = 0;
	s->skip_max = 0;
	s->blob_used = 0;
	s->ncand = 0;
	s->res_used = 0;
	s->bytes_in = 0;
}

/* Wait for a busy slot's chunk, then hand its results to the queries. */
gpx_cuda_status
gpx_collect(gpx_cuda_ctx *ctx, gpx_dev *d, gpx_slot *s, gpx_run *run)
{
	gpx_batch  *b = run->b;
	float		ms;

	double		t0 = gpx_ms(),
				t1;

	if (!s->busy)
		return GPX_CUDA_OK;
	GPX_TRY(cudaSetDevice(d->ord));
	GPX_TRY(cudaEventSynchronize(s->ev_done));
	t1 = gpx_ms();
	ctx->prof[3] += t1 - t0;
	s->busy = false;
	if (ctx->timing)
	{
		if (cudaEventElapsedTime(&ms, s->ev_t0, s->ev_in) == cudaSuccess)
			run->transfer_ms += ms;
		if (cudaEventElapsedTime(&ms, s->ev_c0, s->ev_done) == cudaSuccess)
			run->compute_ms += ms;
		(void) cudaGetLastError();
	}
	for (size_t p = 0; p < s->hp.size(); p++)
	{
		const gpx_hpiece &h = s->hp[p];
		gpx_cuda_qplan &qp = run->plan[h.plan];
		gpx_batch_query *q = &b->queries[qp.q];
		uint32_t	c = s->h_cnt[p];

		qp.total += c;
		if (h.res_off != GPX_NONE)
		{
			uint32_t	room = q->out_capacity > qp.written ? q->out_capacity - qp.written : 0;
			uint32_t	ncopy = c < room ? c : room;

			if (ncopy > 0)
				memcpy(b->out + q->out_offset + qp.written, s->h_res + h.res_off,
					   (size_t) ncopy * 4);
			qp.written += ncopy;
		}
		if (h.last)
		{
			if (qp.total > q->out_capacity)
			{
				q->status = GPX_E_NOSPACE;
				q->out_count = 0;
			}
			else
			{
				q->status = GPX_OK;
				q->out_count = (uint32_t) qp.total;
				run->results += qp.total;
			}
		}
	}
	for (gpx_centry *e : s->transients)
		gpx_cache_drop(&d->cache, e);
	s->transients.clear();
	if (s->seq > d->seq_done)
		d->seq_done = s->seq;
	ctx->prof[4] += gpx_ms() - t1;
	return GPX_CUDA_OK;
}

/* Copy a vector into the staging buffer at *at (256-aligned); returns its offset. */
template <typename T>
size_t
gpx_stage_put(gpx_slot *s, size_t *at, const std::vector<T> &v)
{
	size_t		off = gpx_al(*at, 256);

	if (!v.empty())
		memcpy(s->h_stage + off, v.data(), v.size() * sizeof(T));
	*at = off + v.size() * sizeof(T);
	return off;
}

/*
 * Send a built chunk: staging copy, uploads, tables, then the kernels.
 * The copies go on the copy stream, so that they overlap the other slot's
 * kernels, and the compute stream waits for them; a chunk with nothing to
 * overlap (the other slot idle, no query left for this device: a small
 * batch) puts everything on the compute stream and skips that hand-over.
 */
gpx_cuda_status
gpx_issue(gpx_cuda_ctx *ctx, gpx_dev *d, gpx_slot *s, gpx_run *run)
{
	size_t		at = s->blob_used;
	size_t		o_dl = gpx_stage_put(s, &at, s->dls);
	size_t		o_pc = gpx_stage_put(s, &at, s->pieces);
	size_t		o_ol = gpx_stage_put(s, &at, s->olist);
	size_t		o_up = gpx_stage_put(s, &at, s->ups);
	size_t		o_tb = gpx_stage_put(s, &at, s->tbls);
	uint8_t    *ds = s->d_stage;
	bool		solo = !d->slot[0].busy && !d->slot[1].busy &&
		d->qpos >= d->assigned.size();
	cudaStream_t cs = solo ? d->s_comp : d->s_copy;
	cudaError_t e;

	GPX_TRY(cudaSetDevice(d->ord));
	if (ctx->timing)
		GPX_TRY(cudaEventRecord(s->ev_t0, cs));
	GPX_TRY(cudaMemcpyAsync(ds, s->h_stage, at, cudaMemcpyHostToDevice, cs));
	run->bytes_in += at - s->blob_used;
	for (const gpx_direct &c : s->directs)
		GPX_TRY(cudaMemcpyAsync(c.dst, c.src, c.len, cudaMemcpyHostToDevice, cs));
	GPX_TRY(gpx_cuda_k_upload((const gpx_dupload *) (ds + o_up), (uint32_t) s->ups.size(),
							  ds, cs));
	for (size_t i = 0; i < s->tbls.size(); i += 65535)
	{
		uint32_t	nt = (uint32_t) std::min<size_t>(65535, s->tbls.size() - i);

		GPX_TRY(gpx_cuda_k_tables((const gpx_dl *) (ds + o_tb) + i, nt, s->tbl_max,
								  s->skip_max, cs));
	}
	if (ctx->timing || !solo)
		GPX_TRY(cudaEventRecord(s->ev_in, cs));
	if (!solo)
		GPX_TRY(cudaStreamWaitEvent(d->s_comp, s->ev_in, 0));
	if (ctx->timing)
		GPX_TRY(cudaEventRecord(s->ev_c0, d->s_comp));
	e = gpx_cuda_k_chunk((const gpx_dl *) (ds + o_dl), s->nwork,
						 (const gpx_dpiece *) (ds + o_pc), (uint32_t) s->pieces.size(),
						 (const uint32_t *) (ds + o_ol), s->d_cand, s->d_cpiece,
						 s->d_flag, s->d_pos, s->ncand, s->d_tmp, s->tmp_bytes,
						 s->d_cnt, d->s_comp);
	if (e != cudaSuccess)
		return gpx_fail(ctx, e, "gpx_cuda_k_chunk");
	GPX_TRY(cudaEventRecord(s->ev_done, d->s_comp));
	s->busy = true;
	d->seq_issued = s->seq;
	d->chunks++;
	run->candidates += s->ncand;
	return GPX_CUDA_OK;
}

/*
 * Fill slot s with the next queries of device d (as many as fit), waiting
 * for the other slot when the cache pool has no room; *any is false when
 * nothing was left to add.
 */
gpx_cuda_status
gpx_build(gpx_cuda_ctx *ctx, gpx_dev *d, gpx_slot *s, gpx_run *run, bool *any)
{
	gpx_batch  *b = run->b;

	*any = false;
	gpx_slot_reset(s, d->seq_issued + 1);
	while (d->qpos < d->assigned.size())
	{
		gpx_cuda_qplan &qp = run->plan[d->assigned[d->qpos]];
		gpx_batch_query *q = &b->queries[qp.q];
		const gpx_list *src = &b->lists[qp.src].list;
		uint32_t	start = d->qblk == GPX_NONE ? qp.b0 : d->qblk;
		uint32_t	end;
		uint32_t	cands;
		uint32_t	sslot;
		gpx_mark	m;
		gpx_place	pl = GPX_PLACED;
		gpx_dpiece	pc;
		gpx_hpiece	h;

		if (s->pieces.size() >= d->max_pieces ||
			s->olist.size() + qp.ocount > d->max_olist)
		{
			if (s->pieces.empty())
				return gpx_msg(ctx, GPX_CUDA_BAD_INPUT,
							   "a query has more lists than a gpu chunk takes");
			break;
		}
		if (!gpx_cuda_plan_piece(&qp, src, start, d->cand_cap - s->ncand,
								 d->max_work - s->nwork, &end, &cands))
			break;

		/* the lists: source first, then the others in probe order */
		m = gpx_mark_of(s);
		pl = gpx_place_list(ctx, d, s, &b->lists[qp.src], run, &sslot);
		pc.obeg = (uint32_t) s->olist.size();
		for (uint32_t j = 0; pl == GPX_PLACED && j < qp.ocount; j++)
		{
			uint32_t	os;

			pl = gpx_place_list(ctx, d, s, &b->lists[run->olist[qp.obeg + j]], run, &os);
			if (pl == GPX_PLACED)
				s->olist.push_back(os);
		}
		if (pl != GPX_PLACED)
		{
			gpx_rollback(d, s, m, run);
			if (pl == GPX_NEVER)
				return gpx_msg(ctx, GPX_CUDA_OOM,
							   "a list is larger than the device list cache");
			if (!s->pieces.empty())
				break;			/* send what we have; retry in the next chunk */
			if (d->slot[0].busy || d->slot[1].busy)
			{
				gpx_slot   *o = d->slot[0].busy ? &d->slot[0] : &d->slot[1];
				gpx_cuda_status st = gpx_collect(ctx, d, o, run);

				if (st != GPX_CUDA_OK)
					return st;
				continue;		/* retry with the other chunk's lists evictable */
			}
			return gpx_msg(ctx, GPX_CUDA_OOM,
						   "the lists of one query do not fit in the device list cache");
		}

		/* the piece */
		pc.cbeg = s->ncand;
		pc.ccount = cands;
		pc.ocount = qp.ocount;
		pc.lo = qp.lo;
		pc.hi = qp.hi;
		pc.src = sslot;
		pc.blk0 = start;
		pc.wbeg = s->nwork;
		h.plan = d->assigned[d->qpos];
		h.last = end == qp.b1;
		if (start != qp.b0 || !h.last)
			d->splits++;
		{
			bool		whole = start == qp.b0 && end == qp.b1;
			const gpx_pin *pin = whole && q->out_capacity > 0 ?
				gpx_find_pin(ctx, b->out + q->out_offset, (size_t) q->out_capacity * 4) :
				nullptr;

			if (pin != nullptr && pin->mapped)
			{
				pc.dst = (uint32_t *) (pin->dev + ((uint8_t *) (b->out + q->out_offset) - pin->p));
				pc.cap = q->out_capacity;
				h.res_off = GPX_NONE;
			}
			else
			{
				pc.dst = s->d_res + s->res_used;
				pc.cap = cands;
				h.res_off = s->res_used;
				s->res_used += cands;
			}
		}
		s->nwork += end - start;
		s->pieces.push_back(pc);
		s->hp.push_back(h);
		s->ncand += cands;
		*any = true;
		if (end == qp.b1)
		{
			d->qpos++;
			d->qblk = GPX_NONE;
		}
		else
		{
			d->qblk = end;
			break;
		}
	}
	return GPX_CUDA_OK;
}

/* Plan the batch's queries and spread them over the devices. */
void
gpx_plan(gpx_cuda_ctx *ctx, gpx_run *run)
{
	gpx_batch  *b = run->b;
	size_t		no,
				nk;
	uint32_t	np;
	std::vector<uint64_t> load(ctx->devs.size());
	std::vector<uint32_t> dev_of;

	gpx_cuda_plan_room(b, &no, &nk);
	run->plan.resize(b->nqueries);
	run->olist.resize(no);
	run->keys.resize(nk);
	np = gpx_cuda_plan_batch(b, run->plan.data(), run->olist.data(), &no, run->keys.data());
	run->plan.resize(np);
	run->olist.resize(no);
	run->keys.resize(np);
	dev_of.resize(np);
	gpx_cuda_plan_assign(run->plan.data(), np, (uint32_t) ctx->devs.size(),
						 run->keys.data(), load.data(), dev_of.data());
	for (gpx_dev *d : ctx->devs)
	{
		d->assigned.clear();
		d->qpos = 0;
		d->qblk = GPX_NONE;
	}
	for (uint32_t i = 0; i < np; i++)
		ctx->devs[dev_of[i]]->assigned.push_back(i);
}

/* After a failure: wait for what was sent, drop the caches, maybe mark broken. */
void
gpx_abort_run(gpx_cuda_ctx *ctx)
{
	for (gpx_dev *d : ctx->devs)
	{
		if (cudaSetDevice(d->ord) != cudaSuccess)
		{
			ctx->broken = true;
			continue;
		}
		if (cudaDeviceSynchronize() != cudaSuccess)
			ctx->broken = true;
		(void) cudaGetLastError();
		for (gpx_slot &s : d->slot)
		{
			s.busy = false;
			s.transients.clear();
		}
		gpx_cache_flush(&d->cache);
		d->seq_done = d->seq_issued;
	}
}

/* Run a batch over every device of ctx (see the file comment). */
gpx_cuda_status
gpx_run_batch(gpx_cuda_ctx *ctx, gpx_batch *b, gpx_batch_stats *stats)
{
	gpx_run		run;
	uint64_t	h0 = 0,
				m0 = 0,
				h1 = 0,
				m1 = 0;
	bool		more = true;
	gpx_cuda_status st = GPX_CUDA_OK;

	double		t0 = gpx_ms();

	run.b = b;
	gpx_plan(ctx, &run);
	ctx->prof[0] += gpx_ms() - t0;
	for (gpx_dev *d : ctx->devs)
	{
		h0 += d->cache.hits;
		m0 += d->cache.misses;
	}
	while (more && st == GPX_CUDA_OK)
	{
		more = false;
		for (gpx_dev *d : ctx->devs)
		{
			gpx_slot   *s;
			bool		any;

			if (d->qpos >= d->assigned.size())
				continue;
			s = &d->slot[d->next];
			if (s->busy && (st = gpx_collect(ctx, d, s, &run)) != GPX_CUDA_OK)
				break;
			t0 = gpx_ms();
			st = gpx_build(ctx, d, s, &run, &any);
			ctx->prof[1] += gpx_ms() - t0;
			if (st != GPX_CUDA_OK)
				break;
			if (any)
			{
				t0 = gpx_ms();
				st = gpx_issue(ctx, d, s, &run);
				ctx->prof[2] += gpx_ms() - t0;
				if (st != GPX_CUDA_OK)
					break;
				d->next ^= 1;
			}
			if (d->qpos < d->assigned.size())
				more = true;
		}
	}
	/* the remaining chunks, oldest first */
	for (gpx_dev *d : ctx->devs)
		for (int k = 0; k < 2 && st == GPX_CUDA_OK; k++)
			st = gpx_collect(ctx, d, &d->slot[(d->next + k) & 1], &run);
	if (st != GPX_CUDA_OK)
	{
		gpx_abort_run(ctx);
		return st;
	}
	for (gpx_dev *d : ctx->devs)
	{
		h1 += d->cache.hits;
		m1 += d->cache.misses;
	}
	ctx->batches++;
	if (stats != nullptr)
	{
		stats->candidates = run.candidates;
		stats->results = run.results;
		stats->bytes_in = run.bytes_in;
		stats->cache_hits = h1 - h0;
		stats->cache_misses = m1 - m0;
		stats->compute_ms = run.compute_ms;
		stats->transfer_ms = run.transfer_ms;
	}
	return GPX_CUDA_OK;
}

/* Make sure a device scratch buffer holds bytes (grows, never shrinks). */
gpx_cuda_status
gpx_scratch(gpx_cuda_ctx *ctx, void **buf, size_t *cap, size_t bytes)
{
	if (*cap >= bytes)
		return GPX_CUDA_OK;
	cudaFree(*buf);
	*buf = nullptr;
	*cap = 0;
	GPX_TRY(cudaMalloc(buf, bytes));
	*cap = bytes;
	return GPX_CUDA_OK;
}

}								/* namespace */

/* ------------------------------------------------------------ the API -- */

/* True: this build has CUDA. */
extern "C" int
gpx_cuda_compiled(void)
{
	return 1;
}

/* Open the devices of opt (default: device 0). */
extern "C" gpx_cuda_status
gpx_cuda_open(const gpx_cuda_options *opt, gpx_cuda_ctx **ctxp, char *err,
			  size_t errlen)
{
	gpx_cuda_ctx *ctx = nullptr;
	gpx_cuda_status st = GPX_CUDA_OK;

	if (ctxp == nullptr)
		return GPX_CUDA_BAD_INPUT;
	*ctxp = nullptr;
	try
	{
		ctx = new gpx_cuda_ctx;
		ctx->timing = opt == nullptr || !opt->no_timing;
		st = gpx_setup_open(ctx, opt);
	}
	catch (const std::bad_alloc &)
	{
		st = GPX_CUDA_OOM;
		if (ctx != nullptr)
			snprintf(ctx->err, sizeof(ctx->err), "out of host memory");
	}
	catch (...)
	{
		st = GPX_CUDA_ERROR;
		if (ctx != nullptr)
			snprintf(ctx->err, sizeof(ctx->err), "unexpected host error");
	}
	if (st != GPX_CUDA_OK)
	{
		if (err != nullptr && errlen > 0)
			snprintf(err, errlen, "%s", ctx != nullptr ? ctx->err : "out of host memory");
		gpx_cuda_close(ctx);
		return st;
	}
	*ctxp = ctx;
	if (err != nullptr && errlen > 0)
		err[0] = '\0';
	return GPX_CUDA_OK;
}

/* Release every device resource and unregister pinned ranges. */
extern "C" void
gpx_cuda_close(gpx_cuda_ctx *ctx)
{
	if (ctx == nullptr)
		return;
	try
	{
		bool		opened = !ctx->devs.empty();

		gpx_setup_close(ctx);
		if (opened)
			for (const gpx_pin &p : ctx->pins)
				if (p.owned)
					cudaHostUnregister(p.p);
		(void) cudaGetLastError();
		delete ctx;
	}
	catch (...)
	{
	}
}

/* Register a host range for DMA (mapped when possible); harmless on failure. */
extern "C" gpx_cuda_status
gpx_cuda_pin(gpx_cuda_ctx *ctx, void *ptr, size_t len)
{
	gpx_pin		pin;
	cudaError_t e;

	if (ctx == nullptr || ptr == nullptr || len == 0 || ctx->devs.empty())
		return GPX_CUDA_BAD_INPUT;
	try
	{
		if (gpx_find_pin(ctx, ptr, len) != nullptr)
			return GPX_CUDA_OK;
		if ((e = cudaSetDevice(ctx->devs[0]->ord)) != cudaSuccess)
			return gpx_fail(ctx, e, "cudaSetDevice");
		pin.p = (uint8_t *) ptr;
		pin.len = len;
		pin.mapped = true;
		pin.dev = nullptr;
		{
			/* registered already (by someone else)?  ask before trying */
			cudaPointerAttributes a0,
						a1;

			if (cudaPointerGetAttributes(&a0, ptr) == cudaSuccess &&
				cudaPointerGetAttributes(&a1, (uint8_t *) ptr + len - 1) == cudaSuccess &&
				(a0.type == cudaMemoryTypeHost || a1.type == cudaMemoryTypeHost))
				e = cudaErrorHostMemoryAlreadyRegistered;
			else
			{
				(void) cudaGetLastError();
				e = cudaHostRegister(ptr, len, cudaHostRegisterPortable | cudaHostRegisterMapped);
			}
		}
		pin.owned = true;
		if (e == cudaErrorHostMemoryAlreadyRegistered)
		{
			/*
			 * registered by someone else (perhaps only in part): use it for
			 * copies, which work either way, but never write into it from a
			 * kernel, and never unregister it
			 */
			(void) cudaGetLastError();
			pin.owned = false;
			pin.mapped = false;
			ctx->pins.push_back(pin);
			return GPX_CUDA_OK;
		}
		if (e != cudaSuccess)
		{
			(void) cudaGetLastError();
			pin.mapped = false;
			e = cudaHostRegister(ptr, len, cudaHostRegisterPortable);
			if (e != cudaSuccess)
			{
				(void) cudaGetLastError();
				return gpx_fail(ctx, e, "cudaHostRegister");
			}
		}
		if (pin.mapped &&
			cudaHostGetDevicePointer((void **) &pin.dev, ptr, 0) != cudaSuccess)
		{
			(void) cudaGetLastError();
			pin.mapped = false;
		}
		ctx->pins.push_back(pin);
		return GPX_CUDA_OK;
	}
	catch (...)
	{
		return gpx_msg(ctx, GPX_CUDA_OOM, "out of host memory");
	}
}

/* Run a whole batch of intersections on the context's devices. */
extern "C" gpx_cuda_status
gpx_cuda_run_batch(gpx_cuda_ctx *ctx, gpx_batch *b, gpx_batch_stats *stats)
{
	if (stats != nullptr)
		memset(stats, 0, sizeof(*stats));
	if (ctx == nullptr)
		return GPX_CUDA_BAD_INPUT;
	if (b == nullptr || (b->nqueries > 0 && (b->queries == nullptr ||
											 (b->nlists > 0 && b->lists == nullptr))))
		return gpx_msg(ctx, GPX_CUDA_BAD_INPUT, "invalid batch descriptor");
	if (ctx->broken)
		return gpx_msg(ctx, GPX_CUDA_ERROR, "the gpu context failed earlier");
	try
	{
		return gpx_run_batch(ctx, b, stats);
	}
	catch (const std::bad_alloc &)
	{
		gpx_abort_run(ctx);
		return gpx_msg(ctx, GPX_CUDA_OOM, "out of host memory");
	}
	catch (...)
	{
		gpx_abort_run(ctx);
		return gpx_msg(ctx, GPX_CUDA_ERROR, "unexpected host error");
	}
}

/* Decode one list on the first device into out[0..n). */
extern "C" gpx_cuda_status
gpx_cuda_decode(gpx_cuda_ctx *ctx, const gpx_list *l, uint32_t *out)
{
	gpx_dev    *d;
	gpx_dl		dl;
	gpx_cuda_status st;
	cudaError_t e;

	if (ctx == nullptr)
		return GPX_CUDA_BAD_INPUT;
	if (l == nullptr || (l->n > 0 && out == nullptr) || !gpx_cuda_list_ok(l))
		return gpx_msg(ctx, GPX_CUDA_BAD_INPUT, "list not supported by the gpu kernels");
	if (ctx->broken)
		return gpx_msg(ctx, GPX_CUDA_ERROR, "the gpu context failed earlier");
	if (l->n == 0)
		return GPX_CUDA_OK;
	d = ctx->devs[0];
	GPX_TRY(cudaSetDevice(d->ord));
	if ((st = gpx_scratch(ctx, (void **) &d->d_scr_in, &d->scr_in_cap, gpx_al(l->len, 16))) != GPX_CUDA_OK ||
		(st = gpx_scratch(ctx, (void **) &d->d_scr_out, &d->scr_out_cap,
						  (size_t) l->n * 4 + 512)) != GPX_CUDA_OK)
		return st;
	GPX_TRY(cudaMemcpy(d->d_scr_in, l->base, l->len, cudaMemcpyHostToDevice));
	gpx_make_dl(l, d->d_scr_in, &dl);
	e = gpx_cuda_k_decode_list(&dl, d->d_scr_out, d->s_comp);
	if (e == cudaSuccess)
		e = cudaStreamSynchronize(d->s_comp);
	if (e != cudaSuccess)
	{
		st = gpx_fail(ctx, e, "decode kernel");
		gpx_abort_run(ctx);
		return st;
	}
	GPX_TRY(cudaMemcpy(out, d->d_scr_out, (size_t) l->n * 4, cudaMemcpyDeviceToHost));
	return GPX_CUDA_OK;
}

/* True if some device's cache holds a list with this key. */
extern "C" int
gpx_cuda_cache_has(gpx_cuda_ctx *ctx, gpx_key key)
{
	if (ctx == nullptr)
		return 0;
	for (gpx_dev *d : ctx->devs)
		if (gpx_cache_has(&d->cache, key))
			return 1;
	return 0;
}

/* One line: devices, cache use and hit rate. */
extern "C" void
gpx_cuda_describe(gpx_cuda_ctx *ctx, char *buf, size_t len)
{
	size_t		used = 0,
				cap = 0,
				nl = 0,
				o = 0;
	uint64_t	hits = 0,
				misses = 0,
				chunks = 0,
				ev = 0,
				dir = 0,
				spl = 0;

	if (buf == nullptr || len == 0)
		return;
	buf[0] = '\0';
	if (ctx == nullptr)
	{
		snprintf(buf, len, "no gpu context");
		return;
	}
	for (size_t i = 0; i < ctx->devs.size() && o < len; i++)
	{
		gpx_dev    *d = ctx->devs[i];
		int			w = snprintf(buf + o, len - o, "%s%d: %s (%d SMs, %.1f GiB, %llu chunks)",
								 i ? ", " : "", d->ord, d->name, d->sms,
								 d->total_mem / (double) (1 << 30),
								 (unsigned long long) d->chunks);

		o += w > 0 ? (size_t) w : 0;
		used += d->cache.cached_bytes;
		cap += d->cache.pool.cap;
		nl += d->cache.lru.size();
		hits += d->cache.hits;
		misses += d->cache.misses;
		chunks += d->chunks;
		ev += d->cache.evictions;
		dir += d->directs;
		spl += d->splits;
	}
	if (o < len)
		snprintf(buf + o, len - o,
				 "; list cache %.1f of %.1f MiB, %zu lists, %.1f%% hits, %llu evictions; "
				 "%llu batches in %llu chunks, %llu split pieces, %llu direct copies",
				 used / 1048576.0, cap / 1048576.0, nl,
				 hits + misses ? 100.0 * hits / (double) (hits + misses) : 0.0,
				 (unsigned long long) ev, (unsigned long long) ctx->batches,
				 (unsigned long long) chunks, (unsigned long long) spl,
				 (unsigned long long) dir);
}

/* The last error message of ctx. */
extern "C" const char *
gpx_cuda_last_error(gpx_cuda_ctx *ctx)
{
	if (ctx == nullptr)
		return "no gpu context";
	return ctx->err;
}

/* Cumulative host time of run_batch phases (ms): plan, build, issue, wait, collect. */
void
gpx_cuda_host_profile(gpx_cuda_ctx *ctx, double out[5], bool reset)
{
	for (int i = 0; i < 5; i++)
	{
		out[i] = ctx != nullptr ? ctx->prof[i] : 0;
		if (ctx != nullptr && reset)
			ctx->prof[i] = 0;
	}
}
