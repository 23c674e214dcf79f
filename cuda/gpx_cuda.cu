/*
 * gpx_cuda.cu - the pipeline of the CUDA back end and its extern "C" API
 * (cuda/gpx_cuda.h): batches run through the kernels of gpx_isect.cu in
 * chunks, over the devices that gpx_cuda_setup.cu opened, with lists kept
 * in each device's cache (gpx_cuda_cache.cuh).
 *
 * A batch (a "run") is planned on the host when it is submitted
 * (gpx_cuda_plan.h: lists ordered shortest first, the source block range
 * restricted to [max first, min last] through the directory, empty answers
 * settled at once), its queries are spread over the devices by
 * longest-processing-time on candidates x lists, and each device's
 * queries are cut into chunks that fit a slot (a query larger than a slot
 * is split by source blocks).  Runs are issued in submission order; each
 * device has a ring of chunk slots, each with its own stream, so while
 * one chunk computes the host builds and issues the next ones, of the same
 * batch or of the batches submitted after it (the executor keeps several
 * in flight).  A chunk runs on its slot's stream: staging copy, uploads,
 * side tables, kernels; a chunk that uses a list another chunk still
 * uploads waits for that chunk's uploads (an event), nothing else orders
 * the slots, so small chunks share the GPU.  There is one event per chunk
 * to collect it, none per query.  The kernels write results straight into
 * pinned mapped memory: the slot's result area, or the caller's output
 * when that lies in memory registered by gpx_cuda_pin().  With
 * gpx_cuda_options.graphs a chunk's copies and kernels are captured as a
 * CUDA graph, kept per slot and shape, updated in place for the next chunk
 * of that shape and launched as one.
 *
 * Chunks are collected in the order they were issued (a device's ring), so
 * "every chunk up to seq_done is complete" holds and the cache evicts only
 * lists no pending chunk uses.  A run is done when all its chunks are
 * collected; runs may be done in any order.  A failure that concerns one
 * run (a query the chunks cannot take, a list larger than the cache) fails
 * that run only, once its chunks in flight are collected; a CUDA error
 * fails every run in flight (the devices are drained, their caches
 * dropped).
 *
 * Nothing here throws across the C boundary, prints, or calls PostgreSQL;
 * errors are gpx_cuda_status values with a message in the context.  Not
 * thread-safe: one thread (the executor's) uses a context at a time.
 */
#include "gpx_cuda_host.cuh"
#include "gpx_cuda_plan.h"

#include <algorithm>
#include <cassert>
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

/* instantiated graphs a slot keeps (one per chunk shape) */
constexpr size_t GPX_GRAPHS_PER_SLOT = 4;

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

/* Monotonic clock in milliseconds. */
double
gpx_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

/* Result of trying to place a list for a chunk. */
enum gpx_place
{
	GPX_PLACED,
	GPX_NOROOM,					/* pool, staging or slot limits full now */
	GPX_NEVER					/* cannot fit even in an empty cache pool */
};

/* The slot of device d holding chunk seq in flight, or nullptr. */
gpx_slot *
gpx_slot_of_seq(gpx_dev *d, uint64_t seq)
{
	for (gpx_slot &s : d->slot)
		if (s.busy && s.seq == seq)
			return &s;
	return nullptr;
}

/*
 * Make list bl resident for chunk s (found in the cache, or given a cache
 * entry and queued for upload with this chunk); *slot gets its list slot
 * in the chunk.  A cached list that a chunk still in flight uploads makes
 * s wait for that chunk's uploads (s->deps).
 */
gpx_place
gpx_place_list(gpx_cuda_ctx *ctx, gpx_dev *d, gpx_slot *s,
			   const gpx_batch_list *bl, gpx_run *run, uint32_t *slot)
{
	const gpx_list *l = &bl->list;
	gpx_centry *e = gpx_cache_lookup(&d->cache, bl);

	if (e != nullptr)
	{
		gpx_cache_hit(&d->cache, e, s->seq);
		if (e->up_seq > d->seq_done && e->up_seq != s->seq)
		{
			gpx_slot   *u = gpx_slot_of_seq(d, e->up_seq);

			if (u != nullptr &&
				std::find(s->deps.begin(), s->deps.end(), u) == s->deps.end())
				s->deps.push_back(u);
		}
	}
	else
	{
		gpx_cuda_footprint fp;
		size_t		len16 = gpx_blob_span(l->len);
		const gpx_pin *pin = gpx_find_pin(ctx, l->base, l->len);
		bool		direct = (pin != nullptr && l->len >= GPX_DIRECT_MIN) ||
			len16 > s->blob_cap / 2;

		gpx_cuda_plan_footprint(l, &fp);
		/* the blob's padding (GPX_BLOB_PAD) lies in its cache slot */
		assert(l->len > 0 && fp.tbl_off >= len16);
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
		gpx_cache_note_tables(e, l, &fp, s->tbls, &s->tbl_max, &s->skip_max);
		if (direct)
		{
			s->directs.push_back({l->base, d->cache.d_pool + e->off, l->len, pin != nullptr});
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

/*
 * Undo what a query added to the chunk since mark m (the cache entries it
 * made are taken back; a dependency it added stays: harmless).
 */
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

/* Reset a slot for building chunk seq of run. */
void
gpx_slot_reset(gpx_slot *s, uint64_t seq, gpx_run *run)
{
	s->seq = seq;
	s->run = run;
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
	s->deps.clear();
	s->tbl_max = 0;
	s->skip_max = 0;
	s->blob_used = 0;
	s->ncand = 0;
	s->res_used = 0;
	s->bytes_in = 0;
}

/* Fail run (once) with status st and message msg: nothing more is issued. */
void
gpx_run_fail(gpx_run *run, gpx_cuda_status st, const char *msg)
{
	if (run->failed)
		return;
	run->failed = true;
	run->status = st;
	snprintf(run->err, sizeof(run->err), "%.*s", (int) sizeof(run->err) - 1, msg);
	for (gpx_rdev &rd : run->dv)
		rd.qpos = rd.assigned.size();
}

/*
 * A run's chunks are all collected and nothing of it is left to issue:
 * fill its job and move it to the done list.
 */
void
gpx_run_check_done(gpx_cuda_ctx *ctx, gpx_run *run)
{
	gpx_cuda_job *job = run->job;
	uint64_t	hits = 0,
				misses = 0;

	if (run->done || run->inflight > 0)
		return;
	for (const gpx_rdev &rd : run->dv)
		if (rd.qpos < rd.assigned.size())
			return;
	run->done = true;
	for (gpx_dev *d : ctx->devs)
	{
		hits += d->cache.hits;
		misses += d->cache.misses;
	}
	memset(&job->stats, 0, sizeof(job->stats));
	job->status = run->status;
	snprintf(job->err, sizeof(job->err), "%s", run->err);
	if (!run->failed)
	{
		job->stats.candidates = run->candidates;
		job->stats.results = run->results;
		job->stats.bytes_in = run->bytes_in;
		/* the devices' counters moved by this run and any beside it */
		job->stats.cache_hits = hits >= run->hits0 ? hits - run->hits0 : 0;
		job->stats.cache_misses = misses >= run->misses0 ? misses - run->misses0 : 0;
		job->stats.compute_ms = run->compute_ms;
		job->stats.transfer_ms = run->transfer_ms;
		ctx->batches++;
	}
	ctx->runs.erase(std::find(ctx->runs.begin(), ctx->runs.end(), run));
	ctx->done.push_back(run);
}

/*
 * Wait for the oldest chunk in flight on device d (block: until it is
 * done; else only if it is done already), then hand its results to its
 * run's queries.  *got says whether one was collected.
 */
gpx_cuda_status
gpx_collect(gpx_cuda_ctx *ctx, gpx_dev *d, bool block, bool *got)
{
	gpx_slot   *s;
	gpx_run    *run;
	gpx_batch  *b;
	float		ms;
	double		t0 = gpx_ms(),
				t1;

	*got = false;
	if (d->nbusy == 0)
		return GPX_CUDA_OK;
	s = &d->slot[d->tail];
	GPX_TRY(cudaSetDevice(d->ord));
	if (block)
		GPX_TRY(cudaEventSynchronize(s->ev_done));
	else
	{
		cudaError_t e = cudaEventQuery(s->ev_done);

		if (e == cudaErrorNotReady)
		{
			(void) cudaGetLastError();
			return GPX_CUDA_OK;
		}
		if (e != cudaSuccess)
			return gpx_fail(ctx, e, "cudaEventQuery");
	}
	t1 = gpx_ms();
	ctx->prof[3] += t1 - t0;
	*got = true;
	run = s->run;
	b = run->b;
	s->busy = false;
	d->tail = (d->tail + 1) % (int) d->slot.size();
	d->nbusy--;
	if (ctx->timing && !ctx->graphs)
	{
		if (cudaEventElapsedTime(&ms, s->ev_t0, s->ev_in) == cudaSuccess)
			run->transfer_ms += ms;
		if (cudaEventElapsedTime(&ms, s->ev_c0, s->ev_done) == cudaSuccess)
			run->compute_ms += ms;
		(void) cudaGetLastError();
	}
	else if (ctx->timing)
	{
		if (cudaEventElapsedTime(&ms, s->ev_t0, s->ev_done) == cudaSuccess)
			run->compute_ms += ms;
		(void) cudaGetLastError();
	}
	for (size_t p = 0; !run->failed && p < s->hp.size(); p++)
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
	s->run = nullptr;
	if (s->seq > d->seq_done)
		d->seq_done = s->seq;
	run->inflight--;
	gpx_run_check_done(ctx, run);
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

/* The inputs of chunk s on stream cs: staging copy, direct copies, uploads, tables. */
gpx_cuda_status
gpx_issue_inputs(gpx_cuda_ctx *ctx, gpx_slot *s, cudaStream_t cs, size_t at,
				 size_t o_up, size_t o_tb)
{
	uint8_t    *ds = s->d_stage;

	GPX_TRY(cudaMemcpyAsync(ds, s->h_stage, at, cudaMemcpyHostToDevice, cs));
	for (const gpx_direct &c : s->directs)
	{
		/* the unit holding the blob's end zeroed first: its padding */
		GPX_TRY(cudaMemsetAsync((uint8_t *) c.dst + gpx_blob_pad_unit(c.len), 0,
								GPX_BLOB_PAD, cs));
		GPX_TRY(cudaMemcpyAsync(c.dst, c.src, c.len, cudaMemcpyHostToDevice, cs));
	}
	GPX_TRY(gpx_cuda_k_upload((const gpx_dupload *) (ds + o_up), (uint32_t) s->ups.size(),
							  ds, cs));
	for (size_t i = 0; i < s->tbls.size(); i += 65535)
	{
		uint32_t	nt = (uint32_t) std::min<size_t>(65535, s->tbls.size() - i);

		GPX_TRY(gpx_cuda_k_tables((const gpx_dl *) (ds + o_tb) + i, nt, s->tbl_max,
								  s->skip_max, cs));
	}
	return GPX_CUDA_OK;
}

/* The kernels of chunk s on stream cs. */
gpx_cuda_status
gpx_issue_kernels(gpx_cuda_ctx *ctx, gpx_slot *s, cudaStream_t cs, size_t o_dl,
				  size_t o_pc, size_t o_ol)
{
	uint8_t    *ds = s->d_stage;
	cudaError_t e;

	e = gpx_cuda_k_chunk((const gpx_dl *) (ds + o_dl), s->nwork,
						 (const gpx_dpiece *) (ds + o_pc), (uint32_t) s->pieces.size(),
						 (const uint32_t *) (ds + o_ol), s->d_cand, s->d_cpiece,
						 s->d_flag, s->d_pos, s->ncand, s->d_tmp, s->tmp_bytes,
						 s->d_cnt, cs);
	if (e != cudaSuccess)
		return gpx_fail(ctx, e, "gpx_cuda_k_chunk");
	return GPX_CUDA_OK;
}

/*
 * The copies and kernels of chunk s on stream cs: its inputs, ev_in when
 * given (chunks of other slots that use lists it uploads wait for it),
 * ev_c0 when given (timing), then the kernels.  In the host emulator
 * (test/gpu/gpx_emu.h, whose scan kernel is a host loop) the inputs and
 * the kernels are each one queued operation of cs, so that they run when
 * the stream gets there, as on a GPU; shape tags them in a captured graph.
 */
gpx_cuda_status
gpx_issue_ops(gpx_cuda_ctx *ctx, gpx_slot *s, cudaStream_t cs, size_t at, size_t o_dl,
			  size_t o_pc, size_t o_ol, size_t o_up, size_t o_tb, cudaEvent_t ev_in,
			  cudaEvent_t ev_c0, uint64_t shape)
{
#ifdef GPX_EMU
	GPX_TRY(gpx_emu_task(cs, (uintptr_t) shape, [=]() {
		(void) gpx_issue_inputs(ctx, s, cs, at, o_up, o_tb);
	}));
#else
	gpx_cuda_status st = gpx_issue_inputs(ctx, s, cs, at, o_up, o_tb);

	(void) shape;
	if (st != GPX_CUDA_OK)
		return st;
#endif
	if (ev_in != nullptr)
		GPX_TRY(cudaEventRecord(ev_in, cs));
	if (ev_c0 != nullptr)
		GPX_TRY(cudaEventRecord(ev_c0, cs));
#ifdef GPX_EMU
	GPX_TRY(gpx_emu_task(cs, (uintptr_t) shape + 1, [=]() {
		(void) gpx_issue_kernels(ctx, s, cs, o_dl, o_pc, o_ol);
	}));
	return GPX_CUDA_OK;
#else
	return gpx_issue_kernels(ctx, s, cs, o_dl, o_pc, o_ol);
#endif
}

/*
 * What a chunk issues, as far as a graph's topology goes: how many direct
 * copies, whether it uploads, how many table launches, whether it has
 * source blocks and candidates.  Chunks of one shape share a graph.
 */
uint64_t
gpx_chunk_shape(const gpx_slot *s)
{
	uint64_t	ntb = (s->tbls.size() + 65534) / 65535;

	return (uint64_t) std::min<size_t>(s->directs.size(), 0xFFFFF) |
		(uint64_t) (!s->ups.empty()) << 20 |
		(uint64_t) std::min<uint64_t>(ntb, 0xFF) << 21 |
		(uint64_t) (s->tbl_max != 0) << 29 |
		(uint64_t) (s->skip_max != 0) << 30 |
		(uint64_t) (s->nwork > 0) << 31 |
		(uint64_t) (s->ncand > 0 || !s->pieces.empty()) << 32;
}

/*
 * Issue chunk s as one graph launch: capture its copies and kernels on
 * its stream, update the slot's graph of the same shape in place (or
 * instantiate one, replacing the least recently used), launch it.
 */
gpx_cuda_status
gpx_issue_graph(gpx_cuda_ctx *ctx, gpx_dev *d, gpx_slot *s, size_t at, size_t o_dl,
				size_t o_pc, size_t o_ol, size_t o_up, size_t o_tb)
{
	uint64_t	shape = gpx_chunk_shape(s);
	cudaGraph_t g = nullptr;
	gpx_gexec  *x = nullptr;
	gpx_cuda_status st;
	cudaError_t e;

	GPX_TRY(cudaStreamBeginCapture(s->st, cudaStreamCaptureModeThreadLocal));
	st = gpx_issue_ops(ctx, s, s->st, at, o_dl, o_pc, o_ol, o_up, o_tb, nullptr, nullptr,
					   shape);
	e = cudaStreamEndCapture(s->st, &g);
	if (st != GPX_CUDA_OK || e != cudaSuccess)
	{
		if (g != nullptr)
			cudaGraphDestroy(g);
		return st != GPX_CUDA_OK ? st : gpx_fail(ctx, e, "cudaStreamEndCapture");
	}
	for (gpx_gexec *c : s->graphs)
		if (c->shape == shape)
			x = c;
	if (x != nullptr)
	{
		cudaGraphExecUpdateResultInfo info;

		if (cudaGraphExecUpdate(x->exec, g, &info) != cudaSuccess)
		{
			/* not updatable after all (another kernel inside cub, say) */
			(void) cudaGetLastError();
			cudaGraphExecDestroy(x->exec);
			x->exec = nullptr;
		}
	}
	else
	{
		if (s->graphs.size() >= GPX_GRAPHS_PER_SLOT)
		{
			auto		lru = std::min_element(s->graphs.begin(), s->graphs.end(),
											   [](const gpx_gexec *a, const gpx_gexec *b)
											   { return a->used < b->used; });

			x = *lru;
			cudaGraphExecDestroy(x->exec);
			x->exec = nullptr;
		}
		else
		{
			x = new gpx_gexec;
			x->exec = nullptr;
			s->graphs.push_back(x);
		}
		x->shape = shape;
	}
	if (x->exec == nullptr)
	{
		e = cudaGraphInstantiate(&x->exec, g, 0);
		if (e != cudaSuccess)
		{
			x->exec = nullptr;
			x->shape = ~(uint64_t) 0;
			cudaGraphDestroy(g);
			return gpx_fail(ctx, e, "cudaGraphInstantiate");
		}
		d->graph_builds++;
	}
	cudaGraphDestroy(g);
	x->used = s->seq;
	GPX_TRY(cudaGraphLaunch(x->exec, s->st));
	d->graph_launches++;
	return GPX_CUDA_OK;
}

/*
 * Send a built chunk on its slot's stream: first the waits for chunks of
 * other slots that upload lists it uses, then its copies and kernels (one
 * by one, or as a graph), then the event it is collected by.
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
	/* a graph may not copy from pageable memory: such chunks go one by one */
	bool		graph = ctx->graphs &&
		std::all_of(s->directs.begin(), s->directs.end(),
					[](const gpx_direct &c) { return c.pinned; });
	gpx_cuda_status st;

	GPX_TRY(cudaSetDevice(d->ord));
	for (gpx_slot *u : s->deps)
	{
		/* still in flight? (collected since: its uploads are done) */
		if (!u->busy || u->seq > s->seq)
			continue;
		GPX_TRY(cudaStreamWaitEvent(s->st, ctx->graphs ? u->ev_done : u->ev_in, 0));
		d->waits++;
	}
	if (ctx->timing)
		GPX_TRY(cudaEventRecord(s->ev_t0, s->st));
	if (graph)
		st = gpx_issue_graph(ctx, d, s, at, o_dl, o_pc, o_ol, o_up, o_tb);
	else
	{
		/* only a chunk that uploads can have dependents (or timings) */
		bool		uploads = !s->ups.empty() || !s->directs.empty() || !s->tbls.empty();

		st = gpx_issue_ops(ctx, s, s->st, at, o_dl, o_pc, o_ol, o_up, o_tb,
						   uploads || ctx->timing ? s->ev_in : nullptr,
						   ctx->timing ? s->ev_c0 : nullptr, gpx_chunk_shape(s));
	}
	if (st != GPX_CUDA_OK)
		return st;
	run->bytes_in += at - s->blob_used;
	GPX_TRY(cudaEventRecord(s->ev_done, s->st));
	s->busy = true;
	d->seq_issued = s->seq;
	d->head = (d->head + 1) % (int) d->slot.size();
	d->nbusy++;
	d->chunks++;
	run->inflight++;
	run->candidates += s->ncand;
	return GPX_CUDA_OK;
}

/*
 * Fill slot s with the next queries of run on device d (index di), as
 * many as fit, waiting for the device's oldest chunk when the cache pool
 * has no room; *any is false when nothing was added.  A query the chunks
 * cannot take fails the run: the chunk is undone (the caller sees *any
 * false and issues nothing).
 */
gpx_cuda_status
gpx_build(gpx_cuda_ctx *ctx, gpx_dev *d, uint32_t di, gpx_slot *s, gpx_run *run, bool *any)
{
	gpx_batch  *b = run->b;
	gpx_rdev   &rd = run->dv[di];
	gpx_mark	m0;

	*any = false;
	gpx_slot_reset(s, d->seq_issued + 1, run);
	m0 = gpx_mark_of(s);
	while (rd.qpos < rd.assigned.size())
	{
		gpx_cuda_qplan &qp = run->plan[rd.assigned[rd.qpos]];
		gpx_batch_query *q = &b->queries[qp.q];
		const gpx_list *src = &b->lists[qp.src].list;
		uint32_t	start = rd.qblk == GPX_NONE ? qp.b0 : rd.qblk;
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
			{
				gpx_rollback(d, s, m0, run);
				gpx_run_fail(run, GPX_CUDA_BAD_INPUT,
							 "a query has more lists than a gpu chunk takes");
				return GPX_CUDA_OK;
			}
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
			{
				gpx_rollback(d, s, m0, run);
				gpx_run_fail(run, GPX_CUDA_OOM, "a list is larger than the device list cache");
				return GPX_CUDA_OK;
			}
			if (!s->pieces.empty())
				break;			/* send what we have; retry in the next chunk */
			if (d->nbusy > 0)
			{
				bool		got;
				gpx_cuda_status st = gpx_collect(ctx, d, true, &got);

				if (st != GPX_CUDA_OK)
					return st;
				continue;		/* retry with that chunk's lists evictable */
			}
			gpx_rollback(d, s, m0, run);
			gpx_run_fail(run, GPX_CUDA_OOM,
						 "the lists of one query do not fit in the device list cache");
			return GPX_CUDA_OK;
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
		h.plan = rd.assigned[rd.qpos];
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
			rd.qpos++;
			rd.qblk = GPX_NONE;
		}
		else
		{
			rd.qblk = end;
			break;
		}
	}
	return GPX_CUDA_OK;
}

/* Plan a run's queries and spread them over the devices. */
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
	run->dv.assign(ctx->devs.size(), gpx_rdev());
	for (uint32_t i = 0; i < np; i++)
		run->dv[dev_of[i]].assigned.push_back(i);
}

/*
 * After a CUDA error: wait for what was sent, drop the caches, free the
 * slots, fail every run in flight with the context's message (maybe mark
 * the context broken).
 */
void
gpx_abort_all(gpx_cuda_ctx *ctx, gpx_cuda_status st)
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
			if (s.busy && s.run != nullptr)
				s.run->inflight--;
			s.busy = false;
			s.run = nullptr;
			s.transients.clear();
		}
		d->nbusy = 0;
		d->tail = d->head;
		gpx_cache_flush(&d->cache);
		d->seq_done = d->seq_issued;
	}
	std::vector<gpx_run *> runs = ctx->runs;

	for (gpx_run *run : runs)
	{
		run->inflight = 0;
		gpx_run_fail(run, st, ctx->err);
		gpx_run_check_done(ctx, run);
	}
}

/*
 * Issue what the slots allow: on each device, while the next slot of its
 * ring is free, the next chunk of the oldest run with queries left there.
 */
gpx_cuda_status
gpx_pump(gpx_cuda_ctx *ctx)
{
	for (uint32_t di = 0; di < ctx->devs.size(); di++)
	{
		gpx_dev    *d = ctx->devs[di];

		for (;;)
		{
			gpx_slot   *s = &d->slot[d->head];
			gpx_run    *run = nullptr;
			gpx_cuda_status st;
			bool		any = false;
			double		t0;

			if (s->busy)
				break;
			for (gpx_run *r : ctx->runs)
				if (!r->failed && r->dv[di].qpos < r->dv[di].assigned.size())
				{
					run = r;
					break;
				}
			if (run == nullptr)
				break;
			t0 = gpx_ms();
			st = gpx_build(ctx, d, di, s, run, &any);
			ctx->prof[1] += gpx_ms() - t0;
			if (st != GPX_CUDA_OK)
				return st;
			if (!any)
			{
				/* it failed; an empty chunk takes a block of any query */
				if (!run->failed)
					gpx_run_fail(run, GPX_CUDA_ERROR, "a query piece does not fit an empty chunk");
				gpx_run_check_done(ctx, run);
				continue;
			}
			t0 = gpx_ms();
			st = gpx_issue(ctx, d, s, run);
			ctx->prof[2] += gpx_ms() - t0;
			if (st != GPX_CUDA_OK)
				return st;
		}
	}
	return GPX_CUDA_OK;
}

/*
 * Collect what the devices finished (block: wait for one chunk first,
 * when one is in flight), then issue more.  A CUDA error aborts every run.
 */
void
gpx_progress(gpx_cuda_ctx *ctx, bool block)
{
	gpx_cuda_status st = GPX_CUDA_OK;
	bool		blocked = !block;

	for (gpx_dev *d : ctx->devs)
	{
		bool		got = true;

		while (st == GPX_CUDA_OK && got && d->nbusy > 0)
		{
			st = gpx_collect(ctx, d, !blocked, &got);
			blocked |= got;
		}
	}
	if (st == GPX_CUDA_OK)
		st = gpx_pump(ctx);
	if (st != GPX_CUDA_OK)
		gpx_abort_all(ctx, st);
}

/* Queue a run for batch b (see gpx_cuda_submit). */
gpx_cuda_status
gpx_submit(gpx_cuda_ctx *ctx, gpx_batch *b, gpx_cuda_job *job)
{
	gpx_run    *run = new gpx_run;
	double		t0 = gpx_ms();

	run->b = b;
	run->job = job;
	job->priv = run;
	job->status = GPX_CUDA_OK;
	job->err[0] = '\0';
	for (gpx_dev *d : ctx->devs)
	{
		run->hits0 += d->cache.hits;
		run->misses0 += d->cache.misses;
	}
	try
	{
		gpx_plan(ctx, run);
	}
	catch (...)
	{
		delete run;
		job->priv = nullptr;
		throw;
	}
	ctx->prof[0] += gpx_ms() - t0;
	ctx->runs.push_back(run);
	ctx->max_runs = std::max<uint64_t>(ctx->max_runs, ctx->runs.size());
	gpx_run_check_done(ctx, run);	/* nothing to compute at all */
	gpx_progress(ctx, false);
	return GPX_CUDA_OK;
}

/* Hand back a done job (from the done list); nullptr if none. */
gpx_cuda_job *
gpx_pop_done(gpx_cuda_ctx *ctx, gpx_cuda_job *want)
{
	for (size_t i = 0; i < ctx->done.size(); i++)
	{
		gpx_run    *run = ctx->done[i];
		gpx_cuda_job *job = run->job;

		if (want != nullptr && job != want)
			continue;
		ctx->done.erase(ctx->done.begin() + (long) i);
		job->priv = nullptr;
		delete run;
		return job;
	}
	return nullptr;
}

/* Stop every run: drain the devices, fail what is not done. */
void
gpx_cancel_all(gpx_cuda_ctx *ctx)
{
	/* wait for what is in flight, then issue nothing */
	for (gpx_run *run : ctx->runs)
		gpx_run_fail(run, GPX_CUDA_ERROR, "cancelled");
	for (gpx_dev *d : ctx->devs)
	{
		bool		got = true;
		gpx_cuda_status st = GPX_CUDA_OK;

		while (st == GPX_CUDA_OK && got && d->nbusy > 0)
			st = gpx_collect(ctx, d, true, &got);
		if (st != GPX_CUDA_OK)
		{
			gpx_abort_all(ctx, st);
			break;
		}
	}
	std::vector<gpx_run *> runs = ctx->runs;

	for (gpx_run *run : runs)
		gpx_run_check_done(ctx, run);
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

/* Finish every batch in flight (see gpx_cuda_host.cuh). */
gpx_cuda_status
gpx_pipeline_finish(gpx_cuda_ctx *ctx)
{
	while (!ctx->runs.empty())
		gpx_progress(ctx, true);
	for (gpx_dev *d : ctx->devs)
		if (d->nbusy != 0)
			return gpx_msg(ctx, GPX_CUDA_ERROR, "chunks in flight after every batch finished");
	return ctx->broken ? gpx_msg(ctx, GPX_CUDA_ERROR, "the gpu context failed earlier") :
		GPX_CUDA_OK;
}

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
		ctx->graphs = opt != nullptr && opt->graphs;
		ctx->nslots = opt != nullptr && opt->slots > 0 ?
			std::min(std::max(opt->slots, 2), GPX_CUDA_MAX_SLOTS) : 2;
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

		/* nothing may run into the caller's memory once closed */
		gpx_rk_drain(ctx);
		gpx_cancel_all(ctx);
		while (gpx_pop_done(ctx, nullptr) != nullptr)
			;
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

/*
 * Whether a batch descriptor can be run at all by the intersection
 * pipeline (a union batch goes to gpx_cuda_union_run).
 */
static bool
gpx_batch_ok(const gpx_batch *b)
{
	return b != nullptr && b->op == GPX_BATCH_INTERSECT &&
		(b->nqueries == 0 || (b->queries != nullptr &&
							  (b->nlists == 0 || b->lists != nullptr)));
}

/* Run a whole batch of intersections on the context's devices, and wait. */
extern "C" gpx_cuda_status
gpx_cuda_run_batch(gpx_cuda_ctx *ctx, gpx_batch *b, gpx_batch_stats *stats)
{
	gpx_cuda_job job;

	if (stats != nullptr)
		memset(stats, 0, sizeof(*stats));
	if (ctx == nullptr)
		return GPX_CUDA_BAD_INPUT;
	if (!gpx_batch_ok(b))
		return gpx_msg(ctx, GPX_CUDA_BAD_INPUT, "invalid batch descriptor");
	if (ctx->broken)
		return gpx_msg(ctx, GPX_CUDA_ERROR, "the gpu context failed earlier");
	memset(&job, 0, sizeof(job));
	gpx_rk_drain(ctx);
	try
	{
		gpx_submit(ctx, b, &job);
		while (!((gpx_run *) job.priv)->done)
			gpx_progress(ctx, true);
		gpx_pop_done(ctx, &job);
	}
	catch (const std::bad_alloc &)
	{
		gpx_abort_all(ctx, gpx_msg(ctx, GPX_CUDA_OOM, "out of host memory"));
		if (job.priv != nullptr)
			gpx_pop_done(ctx, &job);
		return GPX_CUDA_OOM;
	}
	catch (...)
	{
		gpx_abort_all(ctx, gpx_msg(ctx, GPX_CUDA_ERROR, "unexpected host error"));
		if (job.priv != nullptr)
			gpx_pop_done(ctx, &job);
		return GPX_CUDA_ERROR;
	}
	if (job.status != GPX_CUDA_OK)
		return gpx_msg(ctx, job.status, job.err);
	if (stats != nullptr)
		*stats = job.stats;
	return GPX_CUDA_OK;
}

/* Queue batch b as job (see gpx_cuda.h). */
extern "C" gpx_cuda_status
gpx_cuda_submit(gpx_cuda_ctx *ctx, gpx_batch *b, gpx_cuda_job *job)
{
	if (ctx == nullptr || job == nullptr)
		return GPX_CUDA_BAD_INPUT;
	job->b = b;
	job->priv = nullptr;
	if (!gpx_batch_ok(b))
		return gpx_msg(ctx, GPX_CUDA_BAD_INPUT, "invalid batch descriptor");
	if (ctx->broken)
		return gpx_msg(ctx, GPX_CUDA_ERROR, "the gpu context failed earlier");
	gpx_rk_drain(ctx);
	try
	{
		return gpx_submit(ctx, b, job);
	}
	catch (const std::bad_alloc &)
	{
		if (job->priv == nullptr)
			return gpx_msg(ctx, GPX_CUDA_OOM, "out of host memory");
		gpx_abort_all(ctx, gpx_msg(ctx, GPX_CUDA_OOM, "out of host memory"));
		return GPX_CUDA_OK;		/* queued; it comes back failed */
	}
	catch (...)
	{
		if (job->priv == nullptr)
			return gpx_msg(ctx, GPX_CUDA_ERROR, "unexpected host error");
		gpx_abort_all(ctx, gpx_msg(ctx, GPX_CUDA_ERROR, "unexpected host error"));
		return GPX_CUDA_OK;
	}
}

/* A finished job, after making progress (see gpx_cuda.h). */
extern "C" gpx_cuda_job *
gpx_cuda_reap(gpx_cuda_ctx *ctx, bool wait)
{
	gpx_cuda_job *job;

	if (ctx == nullptr)
		return nullptr;
	try
	{
		if ((job = gpx_pop_done(ctx, nullptr)) != nullptr)
			return job;
		gpx_progress(ctx, false);
		if ((job = gpx_pop_done(ctx, nullptr)) != nullptr)
			return job;
		while (wait && !ctx->runs.empty())
		{
			gpx_progress(ctx, true);
			if ((job = gpx_pop_done(ctx, nullptr)) != nullptr)
				return job;
		}
	}
	catch (const std::bad_alloc &)
	{
		gpx_abort_all(ctx, gpx_msg(ctx, GPX_CUDA_OOM, "out of host memory"));
	}
	catch (...)
	{
		gpx_abort_all(ctx, gpx_msg(ctx, GPX_CUDA_ERROR, "unexpected host error"));
	}
	return gpx_pop_done(ctx, nullptr);
}

/* Jobs submitted and not handed back. */
extern "C" int
gpx_cuda_pending(const gpx_cuda_ctx *ctx)
{
	return ctx == nullptr ? 0 : (int) (ctx->runs.size() + ctx->done.size());
}

/* Stop every job (see gpx_cuda.h). */
extern "C" void
gpx_cuda_cancel(gpx_cuda_ctx *ctx)
{
	if (ctx == nullptr)
		return;
	gpx_rk_drain(ctx);
	try
	{
		gpx_cancel_all(ctx);
	}
	catch (...)
	{
		gpx_abort_all(ctx, gpx_msg(ctx, GPX_CUDA_ERROR, "unexpected host error"));
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
	gpx_rk_drain(ctx);
	d = ctx->devs[0];
	GPX_TRY(cudaSetDevice(d->ord));
	if ((st = gpx_scratch(ctx, (void **) &d->d_scr_in, &d->scr_in_cap, gpx_blob_span(l->len))) != GPX_CUDA_OK ||
		(st = gpx_scratch(ctx, (void **) &d->d_scr_out, &d->scr_out_cap,
						  (size_t) l->n * 4 + 512)) != GPX_CUDA_OK)
		return st;
	/* the blob's padding (GPX_BLOB_PAD): its last unit zeroed first */
	GPX_TRY(cudaMemset(d->d_scr_in + gpx_blob_pad_unit(l->len), 0, GPX_BLOB_PAD));
	GPX_TRY(cudaMemcpy(d->d_scr_in, l->base, l->len, cudaMemcpyHostToDevice));
	gpx_make_dl(l, d->d_scr_in, &dl);
	e = gpx_cuda_k_decode_list(&dl, d->d_scr_out, d->s_comp);
	if (e == cudaSuccess)
		e = cudaStreamSynchronize(d->s_comp);
	if (e != cudaSuccess)
	{
		st = gpx_fail(ctx, e, "decode kernel");
		gpx_abort_all(ctx, st);
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

/* One line: devices, chunk slots, cache use and hit rate, pipeline counters. */
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
				spl = 0,
				waits = 0,
				gl = 0,
				gb = 0;

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
		waits += d->waits;
		gl += d->graph_launches;
		gb += d->graph_builds;
	}
	if (o < len)
		snprintf(buf + o, len - o,
				 "; list cache %.1f of %.1f MiB, %zu lists, %.1f%% hits, %llu evictions; "
				 "%llu batches in %llu chunks, %llu split pieces, %llu direct copies; "
				 "%d chunk slots per gpu, at most %llu batches in flight, %llu upload waits; "
				 "graphs %s (%llu launches, %llu instantiated); "
				 "%llu ranked runs of %llu queries, at most %d side by side",
				 used / 1048576.0, cap / 1048576.0, nl,
				 hits + misses ? 100.0 * hits / (double) (hits + misses) : 0.0,
				 (unsigned long long) ev, (unsigned long long) ctx->batches,
				 (unsigned long long) chunks, (unsigned long long) spl,
				 (unsigned long long) dir, ctx->nslots,
				 (unsigned long long) ctx->max_runs, (unsigned long long) waits,
				 ctx->graphs ? "on" : "off", (unsigned long long) gl,
				 (unsigned long long) gb, (unsigned long long) ctx->rank_runs,
				 (unsigned long long) ctx->rank_queries, ctx->rank_max_side);
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
