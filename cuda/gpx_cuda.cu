/*
 * gpx_cuda.cu - the host side of the CUDA back end (cuda/gpx_cuda.h):
 * devices, streams, staging buffers, the device-resident list cache, and
 * the pipeline that runs a gpx_batch through the kernels of gpx_isect.cu.
 *
 * Per device: a copy stream and a compute stream; a cache pool (one
 * cudaMalloc of the cache budget, sub-allocated best-fit with coalescing)
 * holding blobs keyed by content hash with LRU eviction, each with a
 * hash-segmentation table built on the GPU when it enters; two chunk slots,
 * each with a pinned staging buffer (lists to upload plus the chunk's
 * descriptors, one host-to-device copy), candidate/flag/scan arrays, and
 * pinned *mapped* result and count areas that the kernels write directly
 * (so no copy back is issued; results also go straight into the caller's
 * output when that lies in memory registered by gpx_cuda_pin()).
 *
 * A batch is planned on the host (lists ordered shortest first, the source
 * block range restricted to [max first, min last] through the directory,
 * empty answers settled at once), its queries are spread over the devices
 * by longest-processing-time on candidates x lists, and each device's
 * queries are cut into chunks that fit a slot (a query larger than a slot is
 * split by source blocks).  Chunks alternate between the two slots, so the
 * host builds chunk i+1 and its copy runs on the copy stream while chunk i
 * computes; there is one event wait per chunk, none per query.
 *
 * Nothing here throws across the C boundary, prints, or calls PostgreSQL;
 * errors are gpx_cuda_status values with a message in the context.  Not
 * thread-safe: one thread (the executor's) uses a context at a time.
 */
#include "gpx_cuda_dev.cuh"
#include "gpx_cuda.h"

#include <algorithm>
#include <list>
#include <map>
#include <new>
#include <unordered_map>
#include <vector>
#include <stdio.h>
#include <string.h>
#include <time.h>

namespace
{

constexpr size_t GPX_MIB = (size_t) 1 << 20;
constexpr uint32_t GPX_NONE = 0xFFFFFFFFu;
/* lists in pinned memory at least this long are copied without staging */
#ifndef GPX_DIRECT_MIN_BYTES
#define GPX_DIRECT_MIN_BYTES (256 << 10)
#endif
constexpr size_t GPX_DIRECT_MIN = GPX_DIRECT_MIN_BYTES;
/* candidates per chunk slot: at most, at least */
constexpr uint32_t GPX_CAND_MAX = 8u << 20;
constexpr uint32_t GPX_CAND_MIN = 4096;

/* x rounded up to a multiple of a. */
inline size_t
gpx_al(size_t x, size_t a)
{
	return (x + a - 1) / a * a;
}

/* Best-fit allocator over [0, cap) with coalescing of freed ranges. */
struct gpx_pool
{
	size_t		cap = 0;
	std::map<size_t, size_t> by_off;	/* free ranges: offset -> length */
	std::multimap<size_t, size_t> by_size;	/* length -> offset */

	/* Start with everything free. */
	void init(size_t c)
	{
		cap = c;
		by_off.clear();
		by_size.clear();
		if (c > 0)
			add(0, c);
	}

	/* Record a free range. */
	void add(size_t off, size_t len)
	{
		by_off[off] = len;
		by_size.emplace(len, off);
	}

	/* Forget the size index entry of a free range. */
	void drop_size(size_t len, size_t off)
	{
		auto		r = by_size.equal_range(len);

		for (auto it = r.first; it != r.second; ++it)
			if (it->second == off)
			{
				by_size.erase(it);
				return;
			}
	}

	/* Take len bytes (best fit); false when no free range is long enough. */
	bool alloc(size_t len, size_t *off)
	{
		auto		it = by_size.lower_bound(len);
		size_t		blen,
					boff;

		if (it == by_size.end())
			return false;
		blen = it->first;
		boff = it->second;
		by_size.erase(it);
		by_off.erase(boff);
		if (blen > len)
			add(boff + len, blen - len);
		*off = boff;
		return true;
	}

	/* Give a range back, merging it with free neighbours. */
	void release(size_t off, size_t len)
	{
		auto		next = by_off.lower_bound(off);

		if (next != by_off.end() && next->first == off + len)
		{
			len += next->second;
			drop_size(next->second, next->first);
			next = by_off.erase(next);
		}
		if (next != by_off.begin())
		{
			auto		prev = std::prev(next);

			if (prev->first + prev->second == off)
			{
				off = prev->first;
				len += prev->second;
				drop_size(prev->second, prev->first);
				by_off.erase(prev);
			}
		}
		add(off, len);
	}
};

/* A list resident in a device's cache pool. */
struct gpx_centry
{
	uint64_t	hash;
	size_t		len;
	uint32_t	n,
				first,
				last;
	uint8_t		codec;
	size_t		off;			/* pool offset */
	size_t		bytes;			/* pool bytes (blob + table) */
	gpx_dl		dl;				/* device view */
	uint64_t	last_seq;		/* last chunk that uses it */
	bool		in_map;			/* false: transient (freed with its chunk) */
	std::list<gpx_centry *>::iterator lru;
	uint64_t	memo_seq;		/* chunk whose list slot memo_slot it has */
	uint32_t	memo_slot;
};

/* Host bookkeeping of one piece of a chunk. */
struct gpx_hpiece
{
	uint32_t	plan;			/* index in the run's plan */
	uint32_t	res_off;		/* staging offset (GPX_NONE: written direct) */
	bool		last;			/* the query's last piece */
};

/* A host-to-device copy that bypasses the staging buffer. */
struct gpx_direct
{
	const void *src;
	void	   *dst;
	size_t		len;
};

/* One of the two chunk slots of a device. */
struct gpx_slot
{
	uint8_t    *h_stage = nullptr;	/* pinned, write-combined */
	uint8_t    *d_stage = nullptr;
	size_t		stage_cap = 0;
	size_t		blob_cap = 0;	/* staging bytes usable for blobs */
	uint32_t   *d_cand = nullptr,
			   *d_cpiece = nullptr,
			   *d_flag = nullptr,
			   *d_pos = nullptr;
	void	   *d_tmp = nullptr;
	size_t		tmp_bytes = 0;
	uint32_t   *h_res = nullptr,
			   *d_res = nullptr;	/* mapped: results of staged pieces */
	uint32_t   *h_cnt = nullptr,
			   *d_cnt = nullptr;	/* mapped: match count per piece */
	cudaEvent_t ev_t0 = nullptr,
				ev_in = nullptr,
				ev_c0 = nullptr,
				ev_done = nullptr;
	bool		busy = false;
	uint64_t	seq = 0;

	/* the chunk being built or in flight */
	std::vector<gpx_dl> dls;
	std::vector<gpx_centry *> dl_ent;
	std::vector<gpx_dpiece> pieces;
	std::vector<gpx_hpiece> hp;
	std::vector<uint32_t> olist;
	uint32_t	nwork = 0;		/* source blocks (one warp each) */
	std::vector<gpx_dupload> ups;
	std::vector<gpx_dl> tbls;
	std::vector<gpx_direct> directs;
	std::vector<gpx_centry *> transients;
	std::vector<gpx_centry *> fresh;	/* entries created for this chunk */
	uint32_t	tbl_max = 0;
	uint32_t	skip_max = 0;	/* largest nblocks among the skip builds */
	size_t		blob_used = 0;
	uint32_t	ncand = 0;
	uint32_t	res_used = 0;
	uint64_t	bytes_in = 0;
};

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

/* One query of the running batch, as planned. */
struct gpx_qplan
{
	uint32_t	q;
	uint32_t	src;			/* batch list index of the shortest list */
	uint32_t	obeg,
				ocount;			/* others: run olist[obeg .. +ocount) */
	uint32_t	lo,
				hi;
	uint32_t	b0,
				b1;				/* source blocks to decode */
	uint64_t	ncand;
	uint64_t	total;			/* matches found so far */
	uint32_t	written;		/* results copied so far (staged pieces) */
};

}								/* namespace */

/* Per-device state. */
struct gpx_dev
{
	int			ord = 0;
	char		name[256] = "";
	size_t		total_mem = 0;
	int			sms = 0;
	cudaStream_t s_copy = nullptr,
				s_comp = nullptr;
	uint8_t    *d_pool = nullptr;
	gpx_pool	pool;
	std::unordered_map<uint64_t, gpx_centry *> map;
	std::list<gpx_centry *> lru;	/* front: most recently used */
	size_t		cached_bytes = 0;
	gpx_slot	slot[2];
	int			next = 0;
	uint64_t	seq_issued = 0,
				seq_done = 0;
	uint32_t	cand_cap = 0,
				max_pieces = 0,
				max_lists = 0,
				max_olist = 0,
				max_work = 0,
				max_ups = 0;
	uint64_t	hits = 0,
				misses = 0,
				chunks = 0,
				evictions = 0,
				directs = 0,
				splits = 0;
	uint8_t    *d_scr_in = nullptr;
	size_t		scr_in_cap = 0;
	uint32_t   *d_scr_out = nullptr;
	size_t		scr_out_cap = 0;
	/* the running batch */
	std::vector<uint32_t> assigned;
	size_t		qpos = 0;
	uint32_t	qblk = GPX_NONE;
	uint64_t	load = 0;
};

/* A range registered with gpx_cuda_pin(). */
struct gpx_pin
{
	uint8_t    *p;
	size_t		len;
	bool		mapped;
	bool		owned;			/* registered by us: unregister at close */
	uint8_t    *dev;			/* device address of p when mapped */
};

/* The context: devices, pinned ranges, the last error. */
struct gpx_cuda_ctx
{
	std::vector<gpx_dev *> devs;
	std::vector<gpx_pin> pins;
	char		err[512] = "";
	bool		broken = false;
	bool		timing = true;	/* record timing events (gpx_cuda_options) */
	uint64_t	batches = 0;
	double		prof[5] = {0, 0, 0, 0, 0};	/* host ms: plan, build, issue, wait, collect */
};

namespace
{

/* The state of one gpx_cuda_run_batch call. */
struct gpx_run
{
	gpx_batch  *b = nullptr;
	std::vector<gpx_qplan> plan;
	std::vector<uint32_t> olist;	/* batch list indices */
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

/* Record a CUDA failure in ctx; returns the matching status. */
gpx_cuda_status
gpx_fail(gpx_cuda_ctx *ctx, cudaError_t e, const char *what)
{
	snprintf(ctx->err, sizeof(ctx->err), "%s: %s", what, cudaGetErrorString(e));
	return e == cudaErrorMemoryAllocation ? GPX_CUDA_OOM : GPX_CUDA_ERROR;
}

/* Record a message in ctx; returns st. */
gpx_cuda_status
gpx_msg(gpx_cuda_ctx *ctx, gpx_cuda_status st, const char *msg)
{
	snprintf(ctx->err, sizeof(ctx->err), "%s", msg);
	return st;
}

#define GPX_TRY(expr) \
	do { \
		cudaError_t e_ = (expr); \
		if (e_ != cudaSuccess) \
			return gpx_fail(ctx, e_, #expr); \
	} while (0)

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

/*
 * Whether a list's view is one the kernels can take (codec, geometry, the
 * format's layout: gpx_dev_view in the codec library decides).
 */
bool
gpx_list_ok(const gpx_list *l)
{
	gpx_devview v;

	return gpx_dev_view(l, &v) == GPX_OK;
}

/*
 * Fill the device view of a blob copied to dev_blob, a 4-byte aligned
 * address (tbl and skip set by the caller), from gpx_dev_view.
 */
void
gpx_make_dl(const gpx_list *l, const uint8_t *dev_blob, gpx_dl *dl)
{
	gpx_devview v;

	memset(dl, 0, sizeof(*dl));
	if (gpx_dev_view(l, &v) != GPX_OK)
		return;					/* gpx_list_ok said no: never used */
	dl->dir = v.dir_off != 0 ? dev_blob + v.dir_off : nullptr;
	dl->payload = dev_blob + v.payload_off;
	dl->n = l->n;
	dl->nblocks = l->nblocks;
	dl->first = l->first;
	dl->last = l->last;
	dl->payload_words = v.payload_words;
	dl->payload_bytes = v.payload_bytes;
	dl->payload_bit = v.payload_bit;
	dl->qs_low_words = v.qs_low_words;
	dl->dir_stride = v.dir_stride;
	dl->codec = l->codec;
	dl->param = l->param;
	dl->log2_block = l->log2_block;
	dl->version = v.version;
	dl->kind0 = v.kind0;
}

/* Hash-segmentation geometry of a list: shift and bucket count (0: none). */
void
gpx_tbl_geom(const gpx_list *l, uint32_t *shift, uint32_t *nb)
{
	uint32_t	s = 0;

	*shift = 0;
	*nb = 0;
	if (l->nblocks < 4)
		return;
	while (s < 31 && (uint64_t) (l->last >> s) + 1 > 2 * (uint64_t) l->nblocks)
		s++;
	*shift = s;
	*nb = (l->last >> s) + 1;
}

/* Unlink and free a cache entry (its chunk must be done). */
void
gpx_entry_free(gpx_dev *d, gpx_centry *e)
{
	if (e->in_map)
	{
		auto		it = d->map.find(e->hash);

		if (it != d->map.end() && it->second == e)
			d->map.erase(it);
	}
	d->lru.erase(e->lru);
	d->pool.release(e->off, e->bytes);
	d->cached_bytes -= e->bytes;
	delete e;
}

/* Evict the least recently used entry no pending chunk uses. */
bool
gpx_evict_one(gpx_dev *d)
{
	for (auto it = d->lru.rbegin(); it != d->lru.rend(); ++it)
	{
		gpx_centry *e = *it;

		if (e->last_seq <= d->seq_done)
		{
			gpx_entry_free(d, e);
			d->evictions++;
			return true;
		}
	}
	return false;
}

/* Drop every cache entry (after an error: contents may be incomplete). */
void
gpx_cache_flush(gpx_dev *d)
{
	while (!d->lru.empty())
		gpx_entry_free(d, d->lru.front());
	d->map.clear();
	d->pool.init(d->pool.cap);
	d->cached_bytes = 0;
}

/* Bytes the metadata of a slot's chunk takes in its staging buffer. */
size_t
gpx_meta_reserve(const gpx_dev *d)
{
	return 8 * 256 +
		(size_t) d->max_lists * sizeof(gpx_dl) * 2 +	/* dls + tbls */
		(size_t) d->max_pieces * sizeof(gpx_dpiece) +
		(size_t) d->max_olist * 4 +
		(size_t) d->max_ups * sizeof(gpx_dupload);
}

/* Result of trying to place a list for a chunk. */
enum gpx_place
{
	GPX_PLACED,
	GPX_NOROOM,					/* pool, staging or slot limits full now */
	GPX_NEVER					/* cannot fit even in an empty cache pool */
};

/*
 * Make list bl resident for chunk s (found in the cache, or allocated in
 * the pool and queued for upload with this chunk); *slot gets its list
 * slot in the chunk.
 */
gpx_place
gpx_place_list(gpx_cuda_ctx *ctx, gpx_dev *d, gpx_slot *s,
			   const gpx_batch_list *bl, gpx_run *run, uint32_t *slot)
{
	const gpx_list *l = &bl->list;
	gpx_centry *e = nullptr;

	if (bl->hash != 0)
	{
		auto		it = d->map.find(bl->hash);

		if (it != d->map.end())
		{
			gpx_centry *c = it->second;

			if (c->len == l->len && c->n == l->n && c->first == l->first &&
				c->last == l->last && c->codec == l->codec)
				e = c;
		}
	}
	if (e != nullptr)
	{
		d->hits++;
		d->lru.splice(d->lru.begin(), d->lru, e->lru);
		e->last_seq = s->seq;
	}
	else
	{
		uint32_t	shift,
					nb;
		size_t		tbl_bytes,
					skip_bytes,
					bytes,
					off,
					len16 = gpx_al(l->len, 16);
		const gpx_pin *pin = gpx_find_pin(ctx, l->base, l->len);
		bool		direct = (pin != nullptr && l->len >= GPX_DIRECT_MIN) ||
			len16 > s->blob_cap / 2;

		gpx_tbl_geom(l, &shift, &nb);
		tbl_bytes = nb ? gpx_al(4 * ((size_t) nb + 1), 256) : 0;
		skip_bytes = l->codec != GPX_CODEC_LRC ? gpx_al(16 * (size_t) l->nblocks, 256) : 0;
		bytes = gpx_al(l->len, 256) + tbl_bytes + skip_bytes;
		if (bytes > d->pool.cap)
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
		while (!d->pool.alloc(bytes, &off))
			if (!gpx_evict_one(d))
				return GPX_NOROOM;
		e = new gpx_centry;
		e->hash = bl->hash;
		e->len = l->len;
		e->n = l->n;
		e->first = l->first;
		e->last = l->last;
		e->codec = l->codec;
		e->off = off;
		e->bytes = bytes;
		e->last_seq = s->seq;
		e->memo_seq = 0;
		e->memo_slot = 0;
		gpx_make_dl(l, d->d_pool + off, &e->dl);
		if (nb != 0)
		{
			e->dl.tbl = (const uint32_t *) (d->d_pool + off + gpx_al(l->len, 256));
			e->dl.tbl_shift = shift;
			e->dl.tbl_nb = nb;
			s->tbl_max = std::max(s->tbl_max, nb + 1);
		}
		if (skip_bytes != 0)
		{
			e->dl.skip = (const uint4 *) (d->d_pool + off + gpx_al(l->len, 256) + tbl_bytes);
			s->skip_max = std::max(s->skip_max, l->nblocks);
		}
		if (nb != 0 || skip_bytes != 0)
			s->tbls.push_back(e->dl);
		if (direct)
		{
			s->directs.push_back({l->base, d->d_pool + off, l->len});
			d->directs++;
		}
		else
		{
			gpx_dupload u;

			memcpy(s->h_stage + s->blob_used, l->base, l->len);
			if (len16 > l->len)
				memset(s->h_stage + s->blob_used + l->len, 0, len16 - l->len);
			u.src_off = s->blob_used;
			u.dst = (uint4 *) (d->d_pool + off);
			u.units = len16 / 16;
			s->ups.push_back(u);
			s->blob_used += len16;
		}
		run->bytes_in += l->len;
		e->in_map = bl->hash != 0 && d->map.find(bl->hash) == d->map.end();
		if (e->in_map)
			d->map[bl->hash] = e;
		else
			s->transients.push_back(e);
		d->lru.push_front(e);
		e->lru = d->lru.begin();
		d->cached_bytes += bytes;
		d->misses++;
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
		d->misses--;
		gpx_entry_free(d, e);
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
		gpx_qplan  &qp = run->plan[h.plan];
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
		gpx_entry_free(d, e);
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
		gpx_qplan  &qp = run->plan[d->assigned[d->qpos]];
		gpx_batch_query *q = &b->queries[qp.q];
		const gpx_list *src = &b->lists[qp.src].list;
		uint32_t	lg = src->log2_block;
		uint32_t	start = d->qblk == GPX_NONE ? qp.b0 : d->qblk;
		uint64_t	room = d->cand_cap - s->ncand;
		uint64_t	end_elem = std::min<uint64_t>(src->n, (uint64_t) qp.b1 << lg);
		uint64_t	want = end_elem - ((uint64_t) start << lg);
		uint32_t	end = qp.b1;
		uint32_t	nblk;
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
		if (want > room)
		{
			/* take whole blocks (all full: only the list's last is short) */
			end = start + (uint32_t) (room >> lg);
			if (end <= start)
				break;
		}
		nblk = end - start;
		if ((uint64_t) s->nwork + nblk > d->max_work)
		{
			nblk = d->max_work - s->nwork;
			if (nblk == 0)
				break;
			end = start + nblk;
		}
		cands = (uint32_t) (std::min<uint64_t>(src->n, (uint64_t) end << lg) -
							((uint64_t) start << lg));

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

/* Order two lists for SvS: shorter first, then narrower span, then index. */
bool
gpx_list_before(const gpx_batch *b, uint32_t x, uint32_t y)
{
	const gpx_list *a = &b->lists[x].list,
			   *c = &b->lists[y].list;

	if (a->n != c->n)
		return a->n < c->n;
	if (a->last - a->first != c->last - c->first)
		return a->last - a->first < c->last - c->first;
	return x < y;
}

/* Plan every query: statuses of trivial ones, source ranges of the rest. */
void
gpx_plan(gpx_run *run)
{
	gpx_batch  *b = run->b;
	std::vector<uint32_t> idx;

	run->plan.reserve(b->nqueries);
	for (uint32_t qi = 0; qi < b->nqueries; qi++)
	{
		gpx_batch_query *q = &b->queries[qi];
		gpx_qplan	qp;
		bool		empty = false,
					bad = false;
		uint32_t	lo = 0,
					hi = GPX_MAX_DOCID;
		const gpx_list *src;

		q->out_count = 0;
		if (q->nlists == 0 || (uint64_t) q->first_list + q->nlists > b->nlists ||
			q->out_offset > b->out_words ||
			q->out_capacity > b->out_words - q->out_offset)
		{
			q->status = GPX_E_ARG;
			continue;
		}
		idx.clear();
		for (uint32_t j = 0; j < q->nlists; j++)
		{
			const gpx_list *l = &b->lists[q->first_list + j].list;

			if (!gpx_list_ok(l))
				bad = true;
			if (l->n == 0)
				empty = true;
			else
			{
				lo = std::max(lo, l->first);
				hi = std::min(hi, l->last);
			}
			idx.push_back(q->first_list + j);
		}
		if (bad)
		{
			q->status = GPX_E_CODEC;
			continue;
		}
		q->status = GPX_OK;
		if (empty || lo > hi)
			continue;
		std::sort(idx.begin(), idx.end(),
				  [b](uint32_t x, uint32_t y) { return gpx_list_before(b, x, y); });
		src = &b->lists[idx[0]].list;
		memset(&qp, 0, sizeof(qp));
		qp.q = qi;
		qp.src = idx[0];
		qp.obeg = (uint32_t) run->olist.size();
		qp.ocount = q->nlists - 1;
		run->olist.insert(run->olist.end(), idx.begin() + 1, idx.end());
		qp.lo = lo;
		qp.hi = hi;
		qp.b0 = gpx_find_block(src, lo);
		qp.b1 = gpx_find_block(src, hi) + 1;
		qp.ncand = std::min<uint64_t>(src->n, (uint64_t) qp.b1 << src->log2_block) -
			((uint64_t) qp.b0 << src->log2_block);
		run->plan.push_back(qp);
	}
}

/* Spread the planned queries over the devices (longest processing first). */
void
gpx_assign(gpx_cuda_ctx *ctx, gpx_run *run)
{
	size_t		nd = ctx->devs.size();

	for (gpx_dev *d : ctx->devs)
	{
		d->assigned.clear();
		d->qpos = 0;
		d->qblk = GPX_NONE;
		d->load = 0;
	}
	if (nd == 1)
	{
		for (uint32_t i = 0; i < run->plan.size(); i++)
			ctx->devs[0]->assigned.push_back(i);
		return;
	}
	std::vector<uint32_t> order(run->plan.size());

	for (uint32_t i = 0; i < order.size(); i++)
		order[i] = i;
	auto		cost = [run](uint32_t i)
	{
		return run->plan[i].ncand * (uint64_t) (run->plan[i].ocount + 1);
	};

	std::stable_sort(order.begin(), order.end(),
					 [&](uint32_t x, uint32_t y) { return cost(x) > cost(y); });
	for (uint32_t i : order)
	{
		gpx_dev    *best = ctx->devs[0];

		for (gpx_dev *d : ctx->devs)
			if (d->load < best->load)
				best = d;
		best->assigned.push_back(i);
		best->load += cost(i) + 1;
	}
	for (gpx_dev *d : ctx->devs)
		std::sort(d->assigned.begin(), d->assigned.end());
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
		gpx_cache_flush(d);
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
	gpx_plan(&run);
	gpx_assign(ctx, &run);
	ctx->prof[0] += gpx_ms() - t0;
	for (gpx_dev *d : ctx->devs)
	{
		h0 += d->hits;
		m0 += d->misses;
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
		h1 += d->hits;
		m1 += d->misses;
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

/* Allocate the buffers of one slot for cand candidates. */
gpx_cuda_status
gpx_slot_alloc(gpx_cuda_ctx *ctx, gpx_dev *d, gpx_slot *s, size_t stage)
{
	GPX_TRY(cudaHostAlloc((void **) &s->h_stage, stage,
						  cudaHostAllocPortable | cudaHostAllocWriteCombined));
	GPX_TRY(cudaMalloc((void **) &s->d_stage, stage));
	s->stage_cap = stage;
	s->blob_cap = stage - gpx_meta_reserve(d);
	GPX_TRY(cudaMalloc((void **) &s->d_cand, ((size_t) d->cand_cap + 1) * 4));
	GPX_TRY(cudaMalloc((void **) &s->d_cpiece, ((size_t) d->cand_cap + 1) * 4));
	GPX_TRY(cudaMalloc((void **) &s->d_flag, ((size_t) d->cand_cap + 1) * 4));
	GPX_TRY(cudaMalloc((void **) &s->d_pos, ((size_t) d->cand_cap + 1) * 4));
	GPX_TRY(gpx_cuda_k_scan_tmp_bytes(d->cand_cap, &s->tmp_bytes));
	GPX_TRY(cudaMalloc(&s->d_tmp, s->tmp_bytes > 0 ? s->tmp_bytes : 16));
	GPX_TRY(cudaHostAlloc((void **) &s->h_res, (size_t) d->cand_cap * 4,
						  cudaHostAllocMapped | cudaHostAllocPortable));
	GPX_TRY(cudaHostGetDevicePointer((void **) &s->d_res, s->h_res, 0));
	GPX_TRY(cudaHostAlloc((void **) &s->h_cnt, (size_t) d->max_pieces * 4,
						  cudaHostAllocMapped | cudaHostAllocPortable));
	GPX_TRY(cudaHostGetDevicePointer((void **) &s->d_cnt, s->h_cnt, 0));
	GPX_TRY(cudaEventCreateWithFlags(&s->ev_t0, cudaEventDefault));
	GPX_TRY(cudaEventCreateWithFlags(&s->ev_in, cudaEventDefault));
	GPX_TRY(cudaEventCreateWithFlags(&s->ev_c0, cudaEventDefault));
	GPX_TRY(cudaEventCreateWithFlags(&s->ev_done, cudaEventDefault));
	return GPX_CUDA_OK;
}

/* Free one slot's buffers (NULL-safe). */
void
gpx_slot_free(gpx_slot *s)
{
	if (s->h_stage)
		cudaFreeHost(s->h_stage);
	if (s->h_res)
		cudaFreeHost(s->h_res);
	if (s->h_cnt)
		cudaFreeHost(s->h_cnt);
	cudaFree(s->d_stage);
	cudaFree(s->d_cand);
	cudaFree(s->d_cpiece);
	cudaFree(s->d_flag);
	cudaFree(s->d_pos);
	cudaFree(s->d_tmp);
	if (s->ev_t0)
		cudaEventDestroy(s->ev_t0);
	if (s->ev_in)
		cudaEventDestroy(s->ev_in);
	if (s->ev_c0)
		cudaEventDestroy(s->ev_c0);
	if (s->ev_done)
		cudaEventDestroy(s->ev_done);
	*s = gpx_slot();
}

/* Release everything a device holds. */
void
gpx_dev_free(gpx_dev *d)
{
	if (cudaSetDevice(d->ord) == cudaSuccess)
		(void) cudaDeviceSynchronize();
	while (!d->lru.empty())
		gpx_entry_free(d, d->lru.front());
	for (gpx_slot &s : d->slot)
		gpx_slot_free(&s);
	cudaFree(d->d_pool);
	cudaFree(d->d_scr_in);
	cudaFree(d->d_scr_out);
	if (d->s_copy)
		cudaStreamDestroy(d->s_copy);
	if (d->s_comp)
		cudaStreamDestroy(d->s_comp);
	(void) cudaGetLastError();
	delete d;
}

/* Set up one device: properties, streams, cache pool, slots, a test kernel. */
gpx_cuda_status
gpx_dev_init(gpx_cuda_ctx *ctx, gpx_dev *d, const gpx_cuda_options *opt)
{
	cudaDeviceProp p;
	size_t		fr = 0,
				tot = 0,
				pool,
				stage,
				scale;
	uint32_t	ping = 0;
	gpx_cuda_status st;

	GPX_TRY(cudaGetDeviceProperties(&p, d->ord));
	if (p.major < 9)
	{
		snprintf(ctx->err, sizeof(ctx->err),
				 "device %d (%s) has compute capability %d.%d; the kernels need 9.0",
				 d->ord, p.name, p.major, p.minor);
		return GPX_CUDA_NO_DEVICE;
	}
	snprintf(d->name, sizeof(d->name), "%s", p.name);
	d->total_mem = p.totalGlobalMem;
	d->sms = p.multiProcessorCount;
	GPX_TRY(cudaSetDevice(d->ord));
	GPX_TRY(cudaStreamCreateWithFlags(&d->s_copy, cudaStreamNonBlocking));
	GPX_TRY(cudaStreamCreateWithFlags(&d->s_comp, cudaStreamNonBlocking));
	GPX_TRY(cudaMemGetInfo(&fr, &tot));

	/* the cache pool: the budget, or a quarter of free memory up to 4 GiB */
	pool = opt != nullptr && opt->cache_bytes > 0 ? opt->cache_bytes :
		std::min(fr / 4, (size_t) 4 << 30);
	pool = gpx_al(std::max(pool, GPX_MIB), 256);
	GPX_TRY(cudaMalloc((void **) &d->d_pool, pool));
	d->pool.init(pool);

	/* slots: half the batch budget each; limits scale with it */
	stage = opt != nullptr && opt->batch_bytes > 0 ? opt->batch_bytes / 2 : 32 * GPX_MIB;
	stage = std::min(std::max(stage, (size_t) 64 << 10), 128 * GPX_MIB);
	stage = gpx_al(stage, 4096);
	scale = std::min<size_t>(std::max<size_t>(stage / 2048, 64), 16384);
	d->max_lists = (uint32_t) scale;
	d->max_pieces = (uint32_t) scale;
	d->max_ups = (uint32_t) scale;
	d->max_olist = (uint32_t) (4 * scale);
	d->cand_cap = (uint32_t) std::min<size_t>(std::max<size_t>(stage / 8, GPX_CAND_MIN),
											  GPX_CAND_MAX);
	d->max_work = d->cand_cap / 128 + d->max_pieces;
	if (gpx_meta_reserve(d) + (16 << 10) > stage)
		return gpx_msg(ctx, GPX_CUDA_ERROR, "batch staging buffer too small");
	for (gpx_slot &s : d->slot)
		if ((st = gpx_slot_alloc(ctx, d, &s, stage)) != GPX_CUDA_OK)
			return st;

	/* a test kernel: catches a missing sm_90 image or a broken driver */
	GPX_TRY(gpx_cuda_k_ping(d->slot[0].d_flag, d->s_comp));
	GPX_TRY(cudaStreamSynchronize(d->s_comp));
	GPX_TRY(cudaMemcpy(&ping, d->slot[0].d_flag, 4, cudaMemcpyDeviceToHost));
	if (ping != 0x67707869u)
		return gpx_msg(ctx, GPX_CUDA_ERROR, "test kernel did not run");
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
	int			count = 0;
	cudaError_t e;

	if (ctxp == nullptr)
		return GPX_CUDA_BAD_INPUT;
	*ctxp = nullptr;
	try
	{
		ctx = new gpx_cuda_ctx;
		ctx->timing = opt == nullptr || !opt->no_timing;
		e = cudaGetDeviceCount(&count);
		if (e != cudaSuccess || count <= 0)
		{
			st = e == cudaErrorNoDevice || (e == cudaSuccess && count <= 0) ?
				GPX_CUDA_NO_DEVICE : GPX_CUDA_NO_DRIVER;
			snprintf(ctx->err, sizeof(ctx->err), "cudaGetDeviceCount: %s",
					 e == cudaSuccess ? "no device" : cudaGetErrorString(e));
			(void) cudaGetLastError();
		}
		else
		{
			int			nd = opt != nullptr && opt->devices != nullptr && opt->ndevices > 0 ?
				opt->ndevices : 1;

			for (int i = 0; i < nd && st == GPX_CUDA_OK; i++)
			{
				int			ord = opt != nullptr && opt->devices != nullptr &&
					opt->ndevices > 0 ? opt->devices[i] : 0;
				gpx_dev    *d;

				if (ord < 0 || ord >= count)
				{
					snprintf(ctx->err, sizeof(ctx->err),
							 "no gpu with ordinal %d (%d present)", ord, count);
					st = GPX_CUDA_NO_DEVICE;
					break;
				}
				d = new gpx_dev;
				d->ord = ord;
				ctx->devs.push_back(d);
				st = gpx_dev_init(ctx, d, opt);
			}
		}
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
		for (gpx_dev *d : ctx->devs)
			gpx_dev_free(d);
		if (!ctx->devs.empty())
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
	if (l == nullptr || (l->n > 0 && out == nullptr) || !gpx_list_ok(l))
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

/* True if some device's cache holds a list with this content hash. */
extern "C" int
gpx_cuda_cache_has(gpx_cuda_ctx *ctx, uint64_t hash)
{
	if (ctx == nullptr || hash == 0)
		return 0;
	for (gpx_dev *d : ctx->devs)
		if (d->map.find(hash) != d->map.end())
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
		used += d->cached_bytes;
		cap += d->pool.cap;
		nl += d->lru.size();
		hits += d->hits;
		misses += d->misses;
		chunks += d->chunks;
		ev += d->evictions;
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
