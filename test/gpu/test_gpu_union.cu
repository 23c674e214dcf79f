/*
 * test_gpu_union.cu - batched union on the GPU (gpx_cuda_union_run,
 * kernels in cuda/gpx_union.cu) against the CPU batch back end
 * (gpx_batch_pool_run, gpx_union_many) and a naive union of the raw
 * arrays (sort, deduplicate), bit for bit: every query's status, count
 * and docIDs.
 *
 *   random   per collection a pool of lists: empty, one docID, 0 and
 *            2^31-1, dense runs, sparse, clustered, one list stored twice
 *            (two codecs), in all three codecs and both format versions
 *            (v1; v2 with the encoder's choice of blocks, or Elias-Fano
 *            only, or bitmap where it can), some with term frequencies;
 *            batches of 1 to 40-list queries (repeated and identical
 *            lists, all lists empty), a quarter counting only
 *            (GPX_BQ_COUNT), rooms exact, one word short (GPX_E_NOSPACE)
 *            or generous, bad descriptors (GPX_E_ARG); half the lists keyed
 *            (the device cache), run twice (the second finds them cached);
 *            every third collection in chunks of a few thousand slots,
 *            every other into pinned mapped memory (results written there
 *            by the kernels);
 *   large    lists of 10^7 docIDs (2 * 10^4 with --quick: the emulator),
 *            2 to 8 of them, overlapping, identical or disjoint;
 *   api      an empty batch, a batch that is not a union (GPX_CUDA_BAD_INPUT),
 *            an intersection batch in flight when a union runs (it is
 *            finished first, its answers right), an intersection on lists
 *            a union cached, stats.
 *
 *   test_gpu_union [--quick] [--seed N]
 *
 * Counts with the unit-test harness (test/unit/unit.h): closing lines
 * "assertions: ..." then "N passed, N failed"; exits 1 on any failure, 77
 * (skip) when no usable GPU is present.  Built by nvcc (make -f
 * cuda/cuda.mk gpucheck) or, with -DGPX_EMU, against the host emulation
 * (emucheck).
 */
#include <algorithm>
#include <vector>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpx_codec.h"
#include "gpx_batch.h"
#include "gpx_cuda.h"
#include "gpx_cuda_union.h"
#include "gpx_cuda_port.cuh"
#include "gpu_rng.h"
#include "gpu_test.h"
#include "unit.h"

/* One encoded list and its docIDs. */
struct tlist
{
	std::vector<uint32_t> docs;
	std::vector<uint8_t> blob;
	gpx_batch_list bl;
};

/* A pool of lists, a batch over them, and its expected answers. */
struct tcase
{
	std::vector<tlist> pool;
	std::vector<gpx_batch_list> lists;	/* the batch's list references */
	std::vector<gpx_batch_query> q;
	std::vector<std::vector<uint32_t>> want;	/* naive unions */
	uint64_t	out_words = 0;
};

static uint64_t next_key = 1;

/* Encode l.docs with codec in format version (v2: kinds) and open it. */
static void
encode_list(tlist &l, int codec, int version, unsigned kinds, bool tfs, rng &r)
{
	uint32_t	n = (uint32_t) l.docs.size();
	uint32_t	last = n ? l.docs.back() : 0;
	gpx_encode_opts o;
	size_t		len = 0,
				cap;
	uint32_t	scratch[GPX_MAX_BLOCK];

	memset(&o, 0, sizeof(o));
	o.version = version;
	o.kinds = version == 2 ? kinds : 0;
	if (tfs && version == 2 && n > 0)
	{
		std::vector<uint32_t> tf(n);

		for (uint32_t i = 0; i < n; i++)
			tf[i] = 1 + (uint32_t) r.below(r.below(10) == 0 ? 100000 : 4);
		cap = gpx_encode_bound_tf_ex(codec, n, last, &o);
		l.blob.resize(cap);
		CHECK(gpx_encode_tf_ex(codec, l.docs.data(), tf.data(), n, &o, l.blob.data(), cap,
							   &len) == GPX_OK);
	}
	else
	{
		cap = gpx_encode_bound_ex(codec, n, last, &o);
		l.blob.resize(cap);
		CHECK(gpx_encode_ex(codec, l.docs.data(), n, &o, l.blob.data(), cap, &len) == GPX_OK);
	}
	l.blob.resize(len);
	CHECK(gpx_open(&l.bl.list, l.blob.data(), len) == GPX_OK);
	CHECK(gpx_validate(l.blob.data(), len, scratch) == GPX_OK);
	memset(&l.bl.key, 0, sizeof(l.bl.key));
}

/* Random sorted docIDs of one of several shapes, up to maxn of them. */
static void
make_docs(std::vector<uint32_t> &v, rng &r, uint32_t maxn)
{
	uint32_t	shape = (uint32_t) r.below(9);
	uint32_t	n = 1 + (uint32_t) r.below(maxn);

	v.clear();
	switch (shape)
	{
		case 0:
			break;				/* empty */
		case 1:
			v.push_back((uint32_t) r.below(GPX_MAX_DOCID + 1ull));
			break;
		case 2:
			/* the extremes */
			v.push_back(0);
			for (uint32_t i = 1; i < n && i < 50; i++)
				v.push_back(GPX_MAX_DOCID - 50 + i);
			v.push_back(GPX_MAX_DOCID);
			break;
		case 3:
			{
				/* a dense run (bitmap blocks) */
				uint32_t	s = (uint32_t) r.below(1u << 20);

				for (uint32_t i = 0; i < n; i++)
					if (r.below(4) != 0)
						v.push_back(s + i);
				break;
			}
		case 4:
			{
				/* clustered */
				uint64_t	x = r.below(1u << 24);

				for (uint32_t i = 0; i < n && x <= GPX_MAX_DOCID; i++)
				{
					v.push_back((uint32_t) x);
					x += r.below(8) == 0 ? 1 + r.below(100000) : 1 + r.below(3);
				}
				break;
			}
		case 5:
			{
				/* sparse over the whole range */
				for (uint32_t i = 0; i < n; i++)
					v.push_back((uint32_t) r.below(GPX_MAX_DOCID + 1ull));
				break;
			}
		default:
			{
				/* uniform over a shared range, so that lists overlap */
				uint32_t	span = 4 * maxn + 100;

				for (uint32_t i = 0; i < n; i++)
					v.push_back((uint32_t) r.below(span));
				break;
			}
	}
	std::sort(v.begin(), v.end());
	v.erase(std::unique(v.begin(), v.end()), v.end());
}

/* Fill C's pool with npool random lists (half keyed). */
static void
make_pool(tcase &C, rng &r, uint32_t npool, uint32_t maxn)
{
	C.pool.resize(npool);
	for (uint32_t i = 0; i < npool; i++)
	{
		tlist	   &l = C.pool[i];
		int			codec = GPX_CODEC_MIN + (int) r.below(GPX_CODEC_MAX - GPX_CODEC_MIN + 1);
		int			version = r.below(3) == 0 ? 1 : 2;
		unsigned	kinds = 0;

		if (i > 0 && r.below(8) == 0)
			l.docs = C.pool[i - 1].docs;	/* the same docIDs again */
		else
			make_docs(l.docs, r, maxn);
		if (version == 2 && r.below(3) == 0)
			kinds = r.below(2) ? (1u << GPX_KIND_EF) : (1u << GPX_KIND_BITMAP) | (1u << GPX_KIND_EF);
		encode_list(l, codec, version, kinds, r.below(3) == 0, r);
		if (r.below(2) == 0)
		{
			l.bl.key.lo = next_key++;
			l.bl.key.hi = 0x5EED;
		}
	}
}

/* The naive union of the given pool lists. */
static std::vector<uint32_t>
naive_union(const tcase &C, const std::vector<uint32_t> &ids)
{
	std::vector<uint32_t> u;

	for (uint32_t id : ids)
		u.insert(u.end(), C.pool[id].docs.begin(), C.pool[id].docs.end());
	std::sort(u.begin(), u.end());
	u.erase(std::unique(u.begin(), u.end()), u.end());
	return u;
}

/* A random batch of nq queries over C's pool. */
static void
make_queries(tcase &C, rng &r, uint32_t nq, uint32_t kmax)
{
	uint32_t	np = (uint32_t) C.pool.size();

	for (uint32_t i = 0; i < nq; i++)
	{
		gpx_batch_query q;
		std::vector<uint32_t> ids;
		uint32_t	k = 1 + (uint32_t) r.below(r.below(4) == 0 ? kmax : 4);
		uint32_t	room;

		memset(&q, 0, sizeof(q));
		for (uint32_t j = 0; j < k; j++)
		{
			if (j > 0 && r.below(6) == 0)
				ids.push_back(ids[r.below(j)]);	/* a repeat */
			else
				ids.push_back((uint32_t) r.below(np));
		}
		q.first_list = (uint32_t) C.lists.size();
		q.nlists = k;
		for (uint32_t id : ids)
			C.lists.push_back(C.pool[id].bl);
		C.want.push_back(naive_union(C, ids));
		room = (uint32_t) C.want.back().size();
		if (r.below(8) == 0 && room > 0)
			room--;				/* no space */
		else if (r.below(4) == 0)
			room += (uint32_t) r.below(20);
		if (r.below(4) == 0)
		{
			q.flags = GPX_BQ_COUNT;
			q.out_offset = r.below(2) ? 0 : 0xFFFFFFFFFFFull;	/* never read */
			q.out_capacity = (uint32_t) r.below(3);
		}
		else
		{
			q.out_offset = C.out_words + r.below(3);
			q.out_capacity = room;
			C.out_words = q.out_offset + room;
		}
		q.status = -7;
		q.out_count = 0xDEAD;
		if (r.below(40) == 0)
			q.nlists = 0;		/* bad: no lists */
		else if (r.below(40) == 0)
			q.first_list = 1u << 30;	/* bad: lists out of range */
		C.q.push_back(q);
	}
	C.out_words += 8;
}

/* Whether query i of C is well formed (as the back ends decide). */
static bool
query_ok(const tcase &C, uint32_t i)
{
	const gpx_batch_query &q = C.q[i];

	if (q.nlists == 0 || (uint64_t) q.first_list + q.nlists > C.lists.size())
		return false;
	return (q.flags & GPX_BQ_COUNT) ||
		(q.out_offset <= C.out_words && q.out_capacity <= C.out_words - q.out_offset);
}

/*
 * Run C on the CPU pool and on the GPU (out: the GPU's result area, at
 * least C.out_words words; NULL: a vector of its own) and compare both
 * with the naive answers.
 */
static void
run_case(gpx_cuda_ctx *ctx, gpx_batch_pool *pool, const tcase &C, uint32_t *out,
		 gpx_cuda_union_stats *gst, const char *what)
{
	std::vector<gpx_batch_query> qc = C.q,
				qg = C.q;
	std::vector<uint32_t> oc(C.out_words + 1, 0xA5A5A5A5u),
				og;
	gpx_batch	bc,
				bg;
	gpx_cuda_status st;

	if (out == NULL)
	{
		og.assign(C.out_words + 1, 0x5A5A5A5Au);
		out = og.data();
	}
	memset(&bc, 0, sizeof(bc));
	bc.op = GPX_BATCH_UNION;
	bc.nqueries = (uint32_t) C.q.size();
	bc.nlists = (uint32_t) C.lists.size();
	bc.queries = qc.data();
	bc.lists = C.lists.data();
	bc.out = oc.data();
	bc.out_words = C.out_words;
	bg = bc;
	bg.queries = qg.data();
	bg.out = out;
	CHECK(gpx_batch_pool_run(pool, &bc, NULL) == GPX_OK);
	st = gpx_cuda_union_run(ctx, &bg, gst);
	CHECKF(st == GPX_CUDA_OK, "%s: gpx_cuda_union_run: %s: %s", what, gpx_cuda_status_str(st),
		   gpx_cuda_last_error(ctx));
	if (st != GPX_CUDA_OK)
		return;
	for (uint32_t i = 0; i < bc.nqueries; i++)
	{
		const gpx_batch_query &c = qc[i],
					&g = qg[i];
		const std::vector<uint32_t> &w = C.want[i];
		bool		counts = (C.q[i].flags & GPX_BQ_COUNT) != 0;
		int			want_st = !query_ok(C, i) ? GPX_E_ARG :
			(!counts && w.size() > C.q[i].out_capacity) ? GPX_E_NOSPACE : GPX_OK;
		uint32_t	want_n = want_st == GPX_OK ? (uint32_t) w.size() : 0;

		CHECKF(c.status == want_st && c.out_count == want_n,
			   "%s: query %u (%u lists%s): cpu status %d count %u, want %d %u", what, i,
			   C.q[i].nlists, counts ? ", count" : "", c.status, c.out_count, want_st, want_n);
		CHECKF(g.status == want_st && g.out_count == want_n,
			   "%s: query %u (%u lists%s): gpu status %d count %u, want %d %u", what, i,
			   C.q[i].nlists, counts ? ", count" : "", g.status, g.out_count, want_st, want_n);
		if (want_st != GPX_OK || counts || want_n == 0)
			continue;
		{
			const uint32_t *gd = out + g.out_offset,
					   *cd = oc.data() + c.out_offset;
			uint32_t	bad = UINT32_MAX;

			for (uint32_t j = 0; j < want_n && bad == UINT32_MAX; j++)
				if (gd[j] != w[j] || cd[j] != w[j])
					bad = j;
			CHECKF(bad == UINT32_MAX, "%s: query %u (%u lists): docID %u: gpu %u cpu %u want %u",
				   what, i, C.q[i].nlists, bad, bad == UINT32_MAX ? 0 : gd[bad],
				   bad == UINT32_MAX ? 0 : cd[bad], bad == UINT32_MAX ? 0 : w[bad]);
		}
	}
}

/* Random collections: pools, batches, cached and chunked runs. */
static void
suite_random(gpx_cuda_ctx *ctx, gpx_batch_pool *pool, rng &r, bool quick, uint32_t *pinned,
			 size_t pinned_words)
{
	int			ncoll = quick ? 10 : 40;

	for (int c = 0; c < ncoll; c++)
	{
		tcase		C;
		uint32_t	maxn = c % 5 == 4 ? (quick ? 6000 : 60000) : (quick ? 1000 : 2000);
		uint32_t	npool = 2 + (uint32_t) r.below(30);
		uint32_t	nq = 1 + (uint32_t) r.below(quick ? 40 : 150);
		uint32_t	kmax = c % 4 == 3 ? 40 : 10;
		bool		chunked = c % 3 == 2;
		bool		into_pinned = c % 2 == 1;
		gpx_cuda_union_stats s1,
					s2;
		char		what[64];

		unit_case_begin("union collection %d: %u lists of up to %u docIDs, %u queries of up to %u "
						"lists%s%s", c, npool, maxn, nq, kmax, chunked ? ", small chunks" : "",
						into_pinned ? ", into pinned memory" : "");
		make_pool(C, r, npool, maxn);
		make_queries(C, r, nq, kmax);
		if (into_pinned && C.out_words > pinned_words)
			into_pinned = false;
		gpx_cuda_union_chunk_slots(chunked ? 1000 + r.below(4000) : 0);
		snprintf(what, sizeof(what), "collection %d, cold", c);
		run_case(ctx, pool, C, into_pinned ? pinned : NULL, &s1, what);
		snprintf(what, sizeof(what), "collection %d, warm", c);
		run_case(ctx, pool, C, into_pinned ? pinned : NULL, &s2, what);
		CHECKF(s2.postings == s1.postings && s2.queries == s1.queries,
			   "the same work twice: %llu / %llu postings",
			   (unsigned long long) s1.postings, (unsigned long long) s2.postings);
		/* keyed lists are cached by the first run (unless evicted by a huge pool) */
		if (s2.lists > 0)
			CHECKF(s2.cache_hits >= s1.cache_hits, "cache hits %llu then %llu",
				   (unsigned long long) s1.cache_hits, (unsigned long long) s2.cache_hits);
		if (chunked && s1.postings > 6000)
			CHECKF(s1.chunks > 1, "%u chunks for %llu postings", s1.chunks,
				   (unsigned long long) s1.postings);
		if (into_pinned && s1.results > 0)
			CHECKF(s1.bytes_out == 0 || s1.bytes_out < s1.results * 4,
				   "results into mapped memory came back by copy (%llu bytes)",
				   (unsigned long long) s1.bytes_out);
	}
	gpx_cuda_union_chunk_slots(0);
}

/* Few long lists: overlapping, identical, disjoint. */
static void
suite_large(gpx_cuda_ctx *ctx, gpx_batch_pool *pool, rng &r, bool quick)
{
	uint32_t	n = quick ? 20000 : 10000000;

	for (int shape = 0; shape < 3; shape++)
	{
		tcase		C;
		uint32_t	k = shape == 1 ? 2 : 2 + (uint32_t) r.below(7);
		gpx_batch_query q;
		std::vector<uint32_t> ids;
		gpx_cuda_union_stats s;

		unit_case_begin("large: %u lists of %u docIDs, %s", k, n,
						shape == 0 ? "overlapping" : shape == 1 ? "identical" : "disjoint");
		C.pool.resize(k);
		for (uint32_t i = 0; i < k; i++)
		{
			tlist	   &l = C.pool[i];
			uint64_t	x = shape == 2 ? (uint64_t) i * (GPX_MAX_DOCID / k) : r.below(100);

			if (shape == 1 && i > 0)
				l.docs = C.pool[0].docs;
			else
			{
				l.docs.resize(n);
				for (uint32_t j = 0; j < n; j++)
				{
					l.docs[j] = (uint32_t) x;
					x += 1 + r.below(12);
				}
			}
			if (i == k - 1 && shape != 1)
				l.docs.back() = std::max(l.docs.back(), GPX_MAX_DOCID - 1);
			encode_list(l, GPX_CODEC_MIN + (int) (i % 3), i % 2 ? 1 : 2, 0, i == 0, r);
			l.bl.key.lo = next_key++;
			l.bl.key.hi = 0xB16;
			ids.push_back(i);
		}
		memset(&q, 0, sizeof(q));
		q.first_list = 0;
		q.nlists = k;
		for (uint32_t id : ids)
			C.lists.push_back(C.pool[id].bl);
		C.want.push_back(naive_union(C, ids));
		q.out_offset = 0;
		q.out_capacity = (uint32_t) C.want[0].size();
		q.status = -7;
		C.q.push_back(q);
		q.flags = GPX_BQ_COUNT;
		C.q.push_back(q);
		C.want.push_back(C.want[0]);
		C.out_words = C.want[0].size() + 4;
		run_case(ctx, pool, C, NULL, &s, "large");
		CHECK(s.merge_rounds == (k <= 2 ? 1u : k <= 4 ? 2u : 3u));
	}
}

/* An intersection batch of one query over lists[0..k), with room for the shortest. */
struct ibatch
{
	gpx_batch	b;
	gpx_batch_query q;
	std::vector<uint32_t> out;
	gpx_cuda_job job;
};

/* Set up ib to intersect the lists of C. */
static void
make_isect(ibatch &ib, tcase &C)
{
	uint32_t	nmin = UINT32_MAX;

	for (const gpx_batch_list &l : C.lists)
		nmin = std::min(nmin, l.list.n);
	ib.out.assign(nmin + 4, 0);
	memset(&ib.b, 0, sizeof(ib.b));
	memset(&ib.q, 0, sizeof(ib.q));
	ib.q.first_list = 0;
	ib.q.nlists = (uint32_t) C.lists.size();
	ib.q.out_capacity = nmin;
	ib.q.status = -1;
	ib.b.op = GPX_BATCH_INTERSECT;
	ib.b.nqueries = 1;
	ib.b.nlists = (uint32_t) C.lists.size();
	ib.b.queries = &ib.q;
	ib.b.lists = C.lists.data();
	ib.b.out = ib.out.data();
	ib.b.out_words = ib.out.size();
}

/* The API's edges, and unions beside intersections. */
static void
suite_api(gpx_cuda_ctx *ctx, gpx_batch_pool *pool, rng &r, bool quick)
{
	unit_case_begin("api: empty batch, wrong op, bad arguments");
	{
		gpx_batch	b;
		gpx_cuda_union_stats s;

		memset(&b, 0, sizeof(b));
		b.op = GPX_BATCH_UNION;
		CHECK(gpx_cuda_union_run(ctx, &b, &s) == GPX_CUDA_OK && s.queries == 0);
		b.op = GPX_BATCH_INTERSECT;
		CHECK(gpx_cuda_union_run(ctx, &b, NULL) == GPX_CUDA_BAD_INPUT);
		CHECK(gpx_cuda_union_run(NULL, &b, NULL) == GPX_CUDA_BAD_INPUT);
		CHECK(gpx_cuda_union_run(ctx, NULL, NULL) == GPX_CUDA_BAD_INPUT);
		b.op = GPX_BATCH_UNION;
		b.nqueries = 3;			/* no queries array */
		CHECK(gpx_cuda_union_run(ctx, &b, NULL) == GPX_CUDA_BAD_INPUT);
		/* the intersection pipeline refuses a union batch */
		b.nqueries = 0;
		CHECK(gpx_cuda_run_batch(ctx, &b, NULL) == GPX_CUDA_BAD_INPUT);
	}

	unit_case_begin("api: a union while an intersection batch is in flight");
	{
		tcase		C;
		ibatch		ib;
		std::vector<uint32_t> want;
		gpx_cuda_job *got;

		C.pool.resize(3);
		for (int i = 0; i < 3; i++)
		{
			for (uint32_t d = 0; d < (quick ? 40000u : 300000u); d++)
				if (d % (i + 2) == 0 || r.below(50) == 0)
					C.pool[i].docs.push_back(d);
			encode_list(C.pool[i], GPX_CODEC_MIN + i, 2, 0, false, r);
			C.pool[i].bl.key.lo = next_key++;
			C.pool[i].bl.key.hi = 0x15EC;
			C.lists.push_back(C.pool[i].bl);
		}
		make_isect(ib, C);
		for (uint32_t d : C.pool[0].docs)
			if (std::binary_search(C.pool[1].docs.begin(), C.pool[1].docs.end(), d) &&
				std::binary_search(C.pool[2].docs.begin(), C.pool[2].docs.end(), d))
				want.push_back(d);
		CHECK(gpx_cuda_submit(ctx, &ib.b, &ib.job) == GPX_CUDA_OK);
		{
			gpx_batch_query q;

			memset(&q, 0, sizeof(q));
			q.nlists = 3;
			C.q.push_back(q);
			C.want.push_back(naive_union(C, {0, 1, 2}));
			C.q[0].out_capacity = (uint32_t) C.want[0].size();
			C.out_words = C.want[0].size();
			run_case(ctx, pool, C, NULL, NULL, "union beside an intersection");
		}
		got = gpx_cuda_reap(ctx, true);
		CHECK(got == &ib.job && ib.job.status == GPX_CUDA_OK);
		CHECK(ib.q.status == GPX_OK && ib.q.out_count == want.size() &&
			  std::equal(want.begin(), want.end(), ib.out.begin()));
		CHECK(gpx_cuda_pending(ctx) == 0);

		/*
		 * the same lists under new keys: a union caches them (with their
		 * side tables), then an intersection finds them there, right
		 */
		for (int i = 0; i < 3; i++)
		{
			C.pool[i].bl.key.lo = next_key++;
			C.lists[i] = C.pool[i].bl;
			CHECK(!gpx_cuda_cache_has(ctx, C.pool[i].bl.key));
		}
		run_case(ctx, pool, C, NULL, NULL, "union that caches");
		for (int i = 0; i < 3; i++)
			CHECK(gpx_cuda_cache_has(ctx, C.pool[i].bl.key));
		make_isect(ib, C);
		{
			gpx_batch_stats bs;

			CHECK(gpx_cuda_run_batch(ctx, &ib.b, &bs) == GPX_CUDA_OK);
			CHECKF(bs.cache_hits == 3 && bs.cache_misses == 0, "intersection after a union: "
				   "%llu hits, %llu misses", (unsigned long long) bs.cache_hits,
				   (unsigned long long) bs.cache_misses);
		}
		CHECK(ib.q.status == GPX_OK && ib.q.out_count == want.size() &&
			  std::equal(want.begin(), want.end(), ib.out.begin()));
	}

	unit_case_begin("api: one query, one list; every list empty; one docID twice");
	{
		tcase		C;
		gpx_cuda_union_stats s;

		C.pool.resize(4);
		C.pool[0].docs = {0, 7, GPX_MAX_DOCID};
		C.pool[2].docs = {GPX_MAX_DOCID};
		C.pool[3].docs = {GPX_MAX_DOCID};
		for (int i = 0; i < 4; i++)
			encode_list(C.pool[i], GPX_CODEC_MIN + i % 3, 2, 0, false, r);
		for (const std::vector<uint32_t> &ids : std::vector<std::vector<uint32_t>>{
				{0}, {1}, {1, 1, 1}, {2, 3}, {3, 1, 2}, {0, 0}})
		{
			gpx_batch_query q;

			memset(&q, 0, sizeof(q));
			q.first_list = (uint32_t) C.lists.size();
			q.nlists = (uint32_t) ids.size();
			for (uint32_t id : ids)
				C.lists.push_back(C.pool[id].bl);
			C.want.push_back(naive_union(C, ids));
			q.out_offset = C.out_words;
			q.out_capacity = (uint32_t) C.want.back().size();
			C.out_words += q.out_capacity;
			C.q.push_back(q);
		}
		run_case(ctx, pool, C, NULL, &s, "edges");
		CHECK(s.queries == 4);	/* the all-empty ones are settled on the host */
	}
}

/* Entry point. */
int
main(int argc, char **argv)
{
	bool		quick = false;
	uint64_t	seed = 18;
	gpx_cuda_ctx *ctx = NULL;
	gpx_batch_pool *pool = NULL;
	std::vector<uint32_t> pinned;

	gpu_test_args(argc, argv, &quick, &seed);
	ctx = gpu_test_open();
	if (gpx_batch_pool_create(4, &pool) != GPX_OK)
	{
		fprintf(stderr, "gpx_batch_pool_create failed\n");
		return 1;
	}
	/* one pinned output area for the whole run (never unregistered early) */
	pinned.assign((size_t) 1 << 21, 0);
	if (gpx_cuda_pin(ctx, pinned.data(), pinned.size() * 4) != GPX_CUDA_OK)
		pinned.clear();
	printf("test_gpu_union: seed %llu%s\n", (unsigned long long) seed, quick ? ", quick" : "");
	{
		rng			r = {seed};

		suite_api(ctx, pool, r, quick);
		suite_random(ctx, pool, r, quick, pinned.empty() ? NULL : pinned.data(), pinned.size());
		suite_large(ctx, pool, r, quick);
	}
	gpx_cuda_close(ctx);
	gpx_batch_pool_destroy(pool);
	return unit_finish();
}
