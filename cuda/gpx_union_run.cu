/*
 * gpx_union_run.cu - the host driver of batched union on the GPU
 * (gpx_cuda_union.h; kernels in gpx_union.cu, layout in
 * gpx_union_dev.cuh).
 *
 * The batch's queries are checked as the CPU pool checks them (a bad
 * descriptor is GPX_E_ARG; a query whose lists are all empty is settled
 * at once), then cut, in order, into chunks of at most gpx_un_cap slots
 * (one per docID of each of a query's lists; a query larger than that is
 * a chunk of its own).  A chunk, on the first device's compute stream:
 *
 *   1. its distinct lists placed: found in the device list cache by key
 *      (gpx_cuda_cache.cuh), or given an entry there and copied in, or,
 *      without a key or room, copied for the chunk alone; the new cache
 *      entries get their side tables built, as the pipeline's do, so that
 *      intersections find them complete;
 *   2. one copy of everything the host prepared (blobs, descriptors),
 *      the uploads into the cache, the decode into the slots;
 *   3. ceil(log2 k) merge rounds (k: the most lists of a query), then
 *      duplicates out and the results written: into the caller's out area
 *      directly when it lies in mapped pinned memory (gpx_cuda_pin), else
 *      into the chunk's result area;
 *   4. the sizes copied back (the one wait of a chunk), each query's
 *      status set, the results of the area copied back in one piece and
 *      handed to their queries.
 *
 * The chunk's device memory is one buffer (blobs and descriptors, three
 * slot arrays, the sizes, the scan's scratch) kept on the device between
 * calls up to GPX_UN_KEEP bytes.  A CUDA error marks the context broken
 * (the executor then reruns the batch on the CPU); any failure drops the
 * device list cache, whose new entries may be incomplete.
 */
#include <algorithm>
#include <new>
#include <vector>

#include "gpx_cuda_host.cuh"
#include "gpx_cuda_plan.h"
#include "gpx_cuda_union.h"
#include "gpx_union_dev.cuh"

/* Slots one chunk may hold, unless one query needs more. */
#define GPX_UN_CAP ((uint64_t) 1 << 26)
/* The chunk buffer a device keeps between calls, at most. */
#define GPX_UN_KEEP ((size_t) 768 << 20)
/* Most slots of one query: positions are 32-bit, with one past the end. */
#define GPX_UN_MAX_SLOTS ((uint64_t) UINT32_MAX - 1)

/* The chunk size in slots (gpx_cuda_union_chunk_slots). */
static uint64_t gpx_un_cap = GPX_UN_CAP;

/* Set the chunk size (0: the default; at most GPX_UN_MAX_SLOTS). */
extern "C" void
gpx_cuda_union_chunk_slots(uint64_t slots)
{
	gpx_un_cap = slots == 0 ? GPX_UN_CAP : std::min<uint64_t>(slots, GPX_UN_MAX_SLOTS);
}

namespace
{

/* One query of the batch that goes to the device. */
struct gpx_unq
{
	uint32_t	q;				/* index in b->queries */
	uint32_t	k;				/* non-empty lists */
	uint64_t	slots;			/* their docIDs */
};

/* Where a chunk's parts lie: byte offsets in the host stage / device buffer. */
struct gpx_un_geom
{
	size_t		blobs,
				ups,
				tbls,
				dls,
				pairs,
				blk,
				qs,
				bnd,
				stage_end,		/* what the one host-to-device copy covers */
				a,
				b,
				pos,
				cnt,
				tmp,
				total;
	size_t		tmp_bytes;
};

/* The call's state: the batch, its device, scratch reused by every chunk. */
struct gpx_un_call
{
	gpx_cuda_ctx *ctx;
	gpx_batch  *b;
	gpx_dev    *d;
	gpx_cuda_union_stats *stats;
	gpx_call_events<3> evs;
	std::vector<uint32_t> stamp;	/* per batch list: the chunk that placed it + 1 */
	std::vector<uint32_t> slot_of;	/* per batch list: its chunk list */
	/* the chunk being built */
	std::vector<uint8_t> hs;	/* host stage */
	std::vector<gpx_dl> dls;
	std::vector<uint32_t> dl_list;	/* chunk list -> batch list */
	std::vector<int64_t> dl_stage;	/* chunk list -> stage offset of its
									 * blob, or -1 (cached) */
	std::vector<gpx_dupload> ups;
	std::vector<gpx_dl> tbls;
	std::vector<gpx_centry *> transients;
	uint32_t	tbl_max = 0,
				skip_max = 0;
	std::vector<gpx_un_pair> pairs;
	std::vector<uint32_t> blk;
	std::vector<gpx_un_query> qs;
	std::vector<uint32_t> bnd;
	std::vector<uint32_t> hcnt;
	std::vector<uint32_t> hres;
};

/* Whether q's descriptor is usable (as the CPU pool decides). */
bool
gpx_un_query_ok(const gpx_batch *b, const gpx_batch_query *q)
{
	if (q->nlists == 0 || (uint64_t) q->first_list + q->nlists > b->nlists)
		return false;
	return (q->flags & GPX_BQ_COUNT) ||
		(q->out_offset <= b->out_words && q->out_capacity <= b->out_words - q->out_offset);
}

/* Make sure the device's chunk buffer holds bytes (grows, never shrinks here). */
gpx_cuda_status
gpx_un_reserve(gpx_cuda_ctx *ctx, gpx_dev *d, size_t bytes)
{
	if (d->un_cap >= bytes)
		return GPX_CUDA_OK;
	(void) cudaFree(d->d_un);
	d->d_un = nullptr;
	d->un_cap = 0;
	GPX_TRY(cudaMalloc((void **) &d->d_un, bytes));
	d->un_cap = bytes;
	return GPX_CUDA_OK;
}

/* Append n bytes of src (16-aligned, zero padded to GPX_BLOB_PAD) to the stage. */
size_t
gpx_un_stage_blob(std::vector<uint8_t> &hs, const uint8_t *src, size_t n)
{
	size_t		off = gpx_al(hs.size(), 16);

	hs.resize(off + gpx_blob_span(n), 0);
	memcpy(hs.data() + off, src, n);
	return off;
}

/* Append a vector to the stage at a 256-aligned offset; returns it. */
template <typename T>
size_t
gpx_un_stage_vec(std::vector<uint8_t> &hs, const std::vector<T> &v)
{
	size_t		off = gpx_al(hs.size(), 256);

	hs.resize(off + v.size() * sizeof(T) + 16, 0);
	if (!v.empty())
		memcpy(hs.data() + off, v.data(), v.size() * sizeof(T));
	return off;
}

/*
 * Place batch list L for chunk seq: its chunk list index (a list the chunk
 * placed before keeps its first).  A cached copy is used as it is; else
 * the list gets a cache entry and an upload, or, without a key or room,
 * a place in the stage for the chunk alone.
 */
uint32_t
gpx_un_place(gpx_un_call &c, uint32_t L, uint32_t chunk, uint64_t seq)
{
	gpx_dev    *d = c.d;
	const gpx_batch_list *bl = &c.b->lists[L];
	const gpx_list *l = &bl->list;
	uint32_t	i = (uint32_t) c.dls.size();
	gpx_centry *e = nullptr;
	gpx_dl		dl;

	if (c.stamp[L] == chunk + 1)
		return c.slot_of[L];
	c.stamp[L] = chunk + 1;
	c.slot_of[L] = i;
	memset(&dl, 0, sizeof(dl));
	c.dl_list.push_back(L);
	if (c.stats)
		c.stats->lists++;
	if (gpx_ckey_valid(bl->key) && (e = gpx_cache_lookup(&d->cache, bl)) != nullptr)
	{
		gpx_cache_hit(&d->cache, e, seq);
		if (c.stats)
			c.stats->cache_hits++;
		c.dls.push_back(e->dl);
		c.dl_stage.push_back(-1);
		return i;
	}
	if (c.stats)
		c.stats->cache_misses++;
	if (gpx_ckey_valid(bl->key))
	{
		gpx_cuda_footprint fp;

		gpx_cuda_plan_footprint(l, &fp);
		if (fp.bytes <= d->cache.pool.cap)
			e = gpx_cache_add(&d->cache, bl, &fp, seq, d->seq_done);
		if (e != nullptr)
		{
			gpx_dupload u;

			u.src_off = gpx_un_stage_blob(c.hs, l->base, l->len);
			u.dst = (uint4 *) (d->cache.d_pool + e->off);
			u.units = gpx_blob_span(l->len) / 16;
			c.ups.push_back(u);
			gpx_cache_note_tables(e, l, &fp, c.tbls, &c.tbl_max, &c.skip_max);
			if (!e->in_map)
				c.transients.push_back(e);
			c.dls.push_back(e->dl);
			c.dl_stage.push_back(-1);
			return i;
		}
	}
	/* for this chunk alone: its device view once the buffer is known */
	c.dls.push_back(dl);
	c.dl_stage.push_back((int64_t) gpx_un_stage_blob(c.hs, l->base, l->len));
	return i;
}

/* Reset the chunk being built. */
void
gpx_un_chunk_reset(gpx_un_call &c)
{
	c.hs.clear();
	c.dls.clear();
	c.dl_list.clear();
	c.dl_stage.clear();
	c.ups.clear();
	c.tbls.clear();
	c.transients.clear();
	c.tbl_max = c.skip_max = 0;
	c.pairs.clear();
	c.blk.clear();
	c.qs.clear();
	c.bnd.clear();
}

/*
 * After a failure: drop the device list cache (entries this chunk added
 * may have no data) and let every entry be evicted; a CUDA error (not a
 * failed allocation) marks the context broken.
 */
gpx_cuda_status
gpx_un_fail(gpx_un_call &c, cudaError_t e, const char *what)
{
	gpx_cuda_status st = gpx_fail(c.ctx, e, what);

	(void) cudaGetLastError();
	if (e != cudaErrorMemoryAllocation)
	{
		c.ctx->broken = true;
		(void) cudaDeviceSynchronize();
		(void) cudaGetLastError();
	}
	gpx_cache_flush(&c.d->cache);
	c.d->seq_done = c.d->seq_issued;
	c.transients.clear();
	return st;
}

/* Return from the calling chunk function with gpx_un_fail's status if expr fails. */
#define GPX_UN_TRY(expr) \
	do { \
		cudaError_t e_ = (expr); \
		if (e_ != cudaSuccess) \
			return gpx_un_fail(c, e_, #expr); \
	} while (0)

/*
 * Run the queries uq[a .. z) (slots: their sum) as chunk number chunk:
 * build, issue, wait, hand the results out.
 */
gpx_cuda_status
gpx_un_chunk(gpx_un_call &c, const std::vector<gpx_unq> &uq, size_t a, size_t z,
			 uint64_t slots, uint32_t chunk)
{
	gpx_batch  *b = c.b;
	gpx_dev    *d = c.d;
	gpx_cuda_ctx *ctx = c.ctx;
	cudaStream_t st = d->s_comp;
	uint64_t	seq = ++d->seq_issued;	/* marks the cache entries it uses */
	uint32_t	nslots = (uint32_t) slots,
				nwork = 0,
				kmax = 1,
				rounds = 0;
	bool		write = false,
				direct = false;
	gpx_un_geom g;
	uint8_t    *D;
	uint32_t   *in,
			   *out;

	gpx_un_chunk_reset(c);

	/* queries, pairs and lists */
	for (size_t i = a; i < z; i++)
	{
		gpx_batch_query *q = &b->queries[uq[i].q];
		gpx_un_query Q;
		uint32_t	off = c.qs.empty() ? 0 : c.qs.back().off + c.qs.back().n;

		memset(&Q, 0, sizeof(Q));
		Q.off = off;
		Q.n = (uint32_t) uq[i].slots;
		Q.bnd = (uint32_t) c.bnd.size();
		Q.k = uq[i].k;
		Q.mode = (q->flags & GPX_BQ_COUNT) ? GPX_UN_COUNT : GPX_UN_STAGE;
		if (Q.mode == GPX_UN_STAGE)
		{
			const gpx_pin *pin = q->out_capacity > 0 ?
				gpx_find_pin(ctx, b->out + q->out_offset, (size_t) q->out_capacity * 4) :
				nullptr;

			write = true;
			if (pin != nullptr && pin->mapped)
			{
				Q.mode = GPX_UN_DIRECT;
				Q.cap = q->out_capacity;
				Q.dst = (uint32_t *) (pin->dev + ((uint8_t *) (b->out + q->out_offset) - pin->p));
				direct = true;
			}
		}
		kmax = std::max(kmax, Q.k);
		for (uint32_t j = 0; j < q->nlists; j++)
		{
			uint32_t	L = q->first_list + j;
			const gpx_list *l = &b->lists[L].list;
			gpx_un_pair p;

			if (l->n == 0)
				continue;
			c.bnd.push_back(off);
			p.dl = gpx_un_place(c, L, chunk, seq);
			p.off = off;
			c.pairs.push_back(p);
			c.blk.push_back(nwork);
			nwork += l->nblocks;
			off += l->n;
		}
		c.bnd.push_back(off);
		c.qs.push_back(Q);
	}
	while (((uint64_t) 1 << rounds) < kmax)
		rounds++;

	/* the stage and the device buffer's geometry */
	g.blobs = 0;
	g.ups = gpx_un_stage_vec(c.hs, c.ups);
	g.tbls = gpx_un_stage_vec(c.hs, c.tbls);
	g.dls = gpx_un_stage_vec(c.hs, c.dls);	/* rewritten below */
	g.pairs = gpx_un_stage_vec(c.hs, c.pairs);
	g.blk = gpx_un_stage_vec(c.hs, c.blk);
	g.qs = gpx_un_stage_vec(c.hs, c.qs);
	g.bnd = gpx_un_stage_vec(c.hs, c.bnd);
	g.stage_end = c.hs.size();
	g.a = gpx_al(g.stage_end, 256);
	g.b = gpx_al(g.a + ((size_t) nslots + 1) * 4, 256);
	g.pos = gpx_al(g.b + ((size_t) nslots + 1) * 4, 256);
	g.cnt = gpx_al(g.pos + ((size_t) nslots + 1) * 4, 256);
	g.tmp = gpx_al(g.cnt + c.qs.size() * 8, 256);
	{
		cudaError_t e = gpx_cuda_k_un_scan_bytes(nslots, &g.tmp_bytes);

		if (e != cudaSuccess)
			return gpx_un_fail(c, e, "union scan storage");
	}
	g.total = gpx_al(g.tmp + g.tmp_bytes, 256);
	{
		gpx_cuda_status s = gpx_un_reserve(ctx, d, g.total);

		if (s != GPX_CUDA_OK)
		{
			gpx_cache_flush(&d->cache);
			d->seq_done = d->seq_issued;
			return s;
		}
	}
	D = d->d_un;

	/* device views of the lists staged for this chunk alone */
	for (size_t i = 0; i < c.dls.size(); i++)
		if (c.dl_stage[i] >= 0)
			gpx_make_dl(&b->lists[c.dl_list[i]].list, D + c.dl_stage[i], &c.dls[i]);
	if (!c.dls.empty())
		memcpy(c.hs.data() + g.dls, c.dls.data(), c.dls.size() * sizeof(gpx_dl));

	/* in: copies, uploads, tables, decode */
	GPX_UN_TRY(c.evs.record(0, st));
	GPX_UN_TRY(cudaMemcpyAsync(D, c.hs.data(), g.stage_end, cudaMemcpyHostToDevice, st));
	if (c.stats)
		c.stats->bytes_in += g.stage_end;
	GPX_UN_TRY(gpx_cuda_k_upload((const gpx_dupload *) (D + g.ups), (uint32_t) c.ups.size(),
								 D + g.blobs, st));
	for (size_t i = 0; i < c.tbls.size(); i += 65535)
	{
		uint32_t	nt = (uint32_t) std::min<size_t>(65535, c.tbls.size() - i);

		GPX_UN_TRY(gpx_cuda_k_tables((const gpx_dl *) (D + g.tbls) + i, nt, c.tbl_max,
									 c.skip_max, st));
	}
	GPX_UN_TRY(gpx_cuda_k_un_decode((const gpx_dl *) (D + g.dls),
									(const gpx_un_pair *) (D + g.pairs),
									(const uint32_t *) (D + g.blk), (uint32_t) c.pairs.size(),
									nwork, (uint32_t *) (D + g.a), st));
	GPX_UN_TRY(c.evs.record(1, st));

	/* merge rounds, duplicates out, results */
	in = (uint32_t *) (D + g.a);
	out = (uint32_t *) (D + g.b);
	for (uint32_t r = 0; r < rounds; r++)
	{
		GPX_UN_TRY(gpx_cuda_k_un_merge((const gpx_un_query *) (D + g.qs), (uint32_t) c.qs.size(),
									   (const uint32_t *) (D + g.bnd), in, out, nslots, r, st));
		std::swap(in, out);
	}
	GPX_UN_TRY(gpx_cuda_k_un_finish((const gpx_un_query *) (D + g.qs), (uint32_t) c.qs.size(),
									in, out, (uint32_t *) (D + g.pos), nslots, D + g.tmp,
									g.tmp_bytes, write, direct, (uint32_t *) (D + g.cnt), st));
	GPX_UN_TRY(c.evs.record(2, st));
	c.hcnt.resize(2 * c.qs.size());
	GPX_UN_TRY(cudaMemcpyAsync(c.hcnt.data(), D + g.cnt, c.hcnt.size() * 4,
							   cudaMemcpyDeviceToHost, st));
	GPX_UN_TRY(cudaStreamSynchronize(st));

	/* statuses, and the results of the area in one copy */
	{
		uint64_t	lo = UINT64_MAX,
					hi = 0;

		for (size_t i = 0; i < c.qs.size(); i++)
		{
			gpx_batch_query *q = &b->queries[uq[a + i].q];
			uint32_t	cnt = c.hcnt[2 * i],
						at = c.hcnt[2 * i + 1];

			if (cnt > c.qs[i].n || at > nslots || cnt > nslots - at)
			{
				ctx->broken = true;
				return gpx_un_fail(c, cudaErrorUnknown, "union kernels returned a bad size");
			}
			if (c.stats)
				c.stats->results += cnt;
			if (c.qs[i].mode == GPX_UN_COUNT)
			{
				q->out_count = cnt;
				q->status = GPX_OK;
				continue;
			}
			if (cnt > q->out_capacity)
			{
				q->out_count = 0;
				q->status = GPX_E_NOSPACE;
				continue;
			}
			q->out_count = cnt;
			q->status = GPX_OK;
			if (c.qs[i].mode == GPX_UN_STAGE && cnt > 0)
			{
				lo = std::min<uint64_t>(lo, at);
				hi = std::max<uint64_t>(hi, (uint64_t) at + cnt);
			}
		}
		if (hi > lo)
		{
			c.hres.resize(hi - lo);
			GPX_UN_TRY(cudaMemcpy(c.hres.data(), out + lo, (hi - lo) * 4,
								  cudaMemcpyDeviceToHost));
			if (c.stats)
				c.stats->bytes_out += (hi - lo) * 4;
			for (size_t i = 0; i < c.qs.size(); i++)
			{
				gpx_batch_query *q = &b->queries[uq[a + i].q];

				if (c.qs[i].mode == GPX_UN_STAGE && q->status == GPX_OK && q->out_count > 0)
					memcpy(b->out + q->out_offset, c.hres.data() + (c.hcnt[2 * i + 1] - lo),
						   (size_t) q->out_count * 4);
			}
		}
	}

	/* the chunk is done: its lists may go */
	for (gpx_centry *e : c.transients)
		gpx_cache_drop(&d->cache, e);
	c.transients.clear();
	d->seq_done = seq;
	d->un_chunks++;
	d->un_queries += z - a;
	if (c.stats)
	{
		c.stats->queries += z - a;
		c.stats->postings += slots;
		c.stats->chunks++;
		c.stats->merge_rounds = std::max(c.stats->merge_rounds, rounds);
		c.stats->decode_ms += c.evs.ms(0, 1);
		c.stats->merge_ms += c.evs.ms(1, 2);
	}
	return GPX_CUDA_OK;
}

/* The driver proper (gpx_cuda_union_run checks its arguments first). */
gpx_cuda_status
gpx_un_run(gpx_cuda_ctx *ctx, gpx_batch *b, gpx_cuda_union_stats *stats)
{
	gpx_un_call c;
	std::vector<gpx_unq> uq;
	gpx_cuda_status st;
	uint32_t	chunk = 0;

	c.ctx = ctx;
	c.b = b;
	c.d = ctx->devs[0];
	c.stats = stats;

	/* the queries: settled here (bad, empty) or to the device */
	for (uint32_t i = 0; i < b->nqueries; i++)
	{
		gpx_batch_query *q = &b->queries[i];
		gpx_unq		u;

		q->out_count = 0;
		if (!gpx_un_query_ok(b, q))
		{
			q->status = GPX_E_ARG;
			continue;
		}
		u.q = i;
		u.k = 0;
		u.slots = 0;
		for (uint32_t j = 0; j < q->nlists; j++)
		{
			const gpx_list *l = &b->lists[q->first_list + j].list;

			if (l->n == 0)
				continue;
			if (!gpx_cuda_list_ok(l))
				return gpx_msg(ctx, GPX_CUDA_BAD_INPUT, "list not supported by the gpu kernels");
			u.k++;
			u.slots += l->n;
		}
		if (u.slots == 0)
		{
			q->status = GPX_OK;
			continue;
		}
		if (u.slots > GPX_UN_MAX_SLOTS)
			return gpx_msg(ctx, GPX_CUDA_BAD_INPUT,
						   "a union query of more than 2^32 - 2 docIDs in its lists");
		q->status = -1;
		uq.push_back(u);
	}
	if (uq.empty())
		return GPX_CUDA_OK;

	GPX_TRY(cudaSetDevice(c.d->ord));
	if ((st = gpx_pipeline_finish(ctx)) != GPX_CUDA_OK)
		return st;
	if (stats && !c.evs.create())
		(void) cudaGetLastError();	/* no timing, nothing else changes */
	c.stamp.assign(b->nlists, 0);
	c.slot_of.assign(b->nlists, 0);

	/* chunks of consecutive queries, at most gpx_un_cap slots (or one query) */
	for (size_t a = 0; a < uq.size();)
	{
		size_t		z = a;
		uint64_t	slots = 0;

		while (z < uq.size() && (z == a || slots + uq[z].slots <= gpx_un_cap))
			slots += uq[z++].slots;
		st = gpx_un_chunk(c, uq, a, z, slots, chunk++);
		if (st != GPX_CUDA_OK)
			return st;
		a = z;
	}
	if (c.d->un_cap > GPX_UN_KEEP)
	{
		(void) cudaFree(c.d->d_un);
		c.d->d_un = nullptr;
		c.d->un_cap = 0;
	}
	return GPX_CUDA_OK;
}

}								/* namespace */

/* Run a batch of unions on the first device. */
extern "C" gpx_cuda_status
gpx_cuda_union_run(gpx_cuda_ctx *ctx, gpx_batch *b, gpx_cuda_union_stats *stats)
{
	if (stats)
		memset(stats, 0, sizeof(*stats));
	if (ctx == nullptr)
		return GPX_CUDA_BAD_INPUT;
	if (b == nullptr || b->op != GPX_BATCH_UNION ||
		(b->nqueries > 0 && b->queries == nullptr) || (b->nlists > 0 && b->lists == nullptr))
		return gpx_msg(ctx, GPX_CUDA_BAD_INPUT, "malformed union batch");
	if (ctx->broken)
		return gpx_msg(ctx, GPX_CUDA_ERROR, "the gpu context failed earlier");
	if (ctx->devs.empty())
		return gpx_msg(ctx, GPX_CUDA_NO_DEVICE, "no gpu");
	gpx_rk_drain(ctx);
	try
	{
		return gpx_un_run(ctx, b, stats);
	}
	catch (const std::bad_alloc &)
	{
		return gpx_msg(ctx, GPX_CUDA_OOM, "out of host memory in the union driver");
	}
	catch (...)
	{
		return gpx_msg(ctx, GPX_CUDA_ERROR, "unexpected host error in the union driver");
	}
}
