/*
 * test_gpu_rank.cu - ranked retrieval on the GPU (gpx_cuda_rank_run, kernels
 * in cuda/gpx_rank.cu) against the CPU (gpx_rank_batch_run), bit for bit:
 * every query's status, result count, docIDs, order and score bits.
 *
 * Random collections (document lengths from a few values, so that many
 * scores tie, or from a wide range; some docIDs of the lists unknown to
 * the statistics, scored with avgdl), lists in all three codecs (empty,
 * one posting, a few, dense, several blocks), three in four of them with
 * term frequencies (tf section: 1 to 3 mostly, some up to 5,000 and now and
 * then 2^31-1; the others tf 1), and random batches of AND
 * and OR queries: one-term queries, repeated terms, terms no document
 * holds (list -1) and empty lists, now and then 17 to 40 terms, k from
 * 1 to 10,000 (larger than the matches too), several queries sharing
 * lists; every third collection
 * with device rounds of 3,000 candidate slots (gpx_cuda_rank_chunk_slots),
 * so its batch takes several rounds; every other collection with every
 * query cut (gpx_cuda_rank_cut_min(1)), and scores tied over several
 * tiles of the cut (test_cut_ties); every fourth with its blobs in pinned
 * memory (gpx_cuda_pin, as the executor's arena), copied from there.  The CPU side runs the default OR algorithm (block-max
 * MaxScore) and the exhaustive one, which agree with each other.  Statistics
 * kept on the device between batches by id (doclen_id): kept, replaced,
 * left alone by a batch without an id, every answer the CPU's.  The score
 * kernel's warp seeks and window searches on their own (test_seek).
 * Batches started side by side on several rank streams
 * (gpx_cuda_rank_start, test_side_by_side), ended in any order.
 *
 *   test_gpu_rank [--quick] [--seed N]
 *
 * Counts with the unit-test harness (test/unit/unit.h), one case per
 * collection: closing lines "assertions: ..." then "N passed, N failed";
 * exits 1 on any failure, 77 (skip) when no usable GPU is present.  Built
 * by nvcc (make -f cuda/cuda.mk gpucheck) or, with -DGPX_EMU, against the
 * host emulation (emucheck).
 */
#include <vector>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <iterator>
#include <memory>

#include "gpx_cuda_rank.h"
#include "gpx_cuda_port.cuh"
#include "gpx_rank_dev.cuh"
#include "gpx_doclen.h"
#include "unit.h"
#include "gpu_rng.h"
#include "gpu_test.h"

/* One random collection: statistics and encoded lists. */
struct tcoll
{
	std::vector<uint8_t> dl;	/* the posting_doclen blob */
	gpx_doclen	doclen;
	std::vector<std::vector<uint8_t>> blobs;
	std::vector<gpx_list> lists;
};

/* Build a collection of span docIDs, ndocs of them documents, nl lists. */
static void
make_coll(tcoll &C, rng &r, uint32_t span, uint32_t nl, bool ties)
{
	std::vector<uint32_t> docs, lens;
	size_t		len = 0;
	uint32_t	ndocs;

	for (uint32_t d = 0; d < span; d++)
		if (r.below(10) != 0 || d == 0)
		{
			docs.push_back(d);
			lens.push_back(ties ? 3 + 2 * (uint32_t) r.below(3)
						   : 1 + (uint32_t) r.below(r.below(4) == 0 ? 100000 : 300));
		}
	ndocs = (uint32_t) docs.size();
	C.dl.resize(gpx_doclen_pairs_size(docs.data(), lens.data(), ndocs));
	CHECK(gpx_doclen_encode_pairs(docs.data(), lens.data(), ndocs, C.dl.data(),
								  C.dl.size(), &len) == GPX_OK);
	C.dl.resize(len);
	CHECK(gpx_doclen_open(&C.doclen, C.dl.data(), C.dl.size()) == GPX_OK);

	C.blobs.resize(nl);
	C.lists.resize(nl);
	for (uint32_t i = 0; i < nl; i++)
	{
		std::vector<uint32_t> v;
		uint32_t	kind = (uint32_t) r.below(8);
		uint32_t	range = span + span / 8;	/* some docIDs past the statistics */
		int			codec = GPX_CODEC_MIN + (int) r.below(GPX_CODEC_MAX - GPX_CODEC_MIN + 1);
		size_t		cap;

		if (kind == 0)
			;					/* empty */
		else if (kind == 1)
			v.push_back((uint32_t) r.below(range));
		else
		{
			uint32_t	per = kind == 2 ? 2 : kind == 3 ? 40 : kind <= 5 ? 8 : 3;

			for (uint32_t d = 0; d < range; d++)
				if (r.below(per) == 0)
					v.push_back(d);
		}
		while (v.size() > ndocs)
			v.pop_back();		/* df <= N */
		if (r.below(4) != 0)
		{
			/* with frequencies: mostly 1..3, some large, now and then 2^31-1 */
			std::vector<uint32_t> tf(v.size());

			for (size_t j = 0; j < tf.size(); j++)
				tf[j] = r.below(200) == 0 ? 0x7FFFFFFFu - (uint32_t) r.below(3) :
					r.below(8) == 0 ? 1 + (uint32_t) r.below(5000) : 1 + (uint32_t) r.below(3);
			cap = gpx_encode_bound_tf(codec, (uint32_t) v.size(), v.empty() ? 0 : v.back());
			C.blobs[i].resize(cap);
			CHECK(gpx_encode_tf(codec, v.data(), tf.data(), (uint32_t) v.size(),
								C.blobs[i].data(), cap, &len) == GPX_OK);
		}
		else
		{
			cap = gpx_encode_bound(codec, (uint32_t) v.size(), v.empty() ? 0 : v.back());
			C.blobs[i].resize(cap);
			CHECK(gpx_encode(codec, v.data(), (uint32_t) v.size(), C.blobs[i].data(), cap,
							 &len) == GPX_OK);
		}
		C.blobs[i].resize(len);
		CHECK(gpx_open(&C.lists[i], C.blobs[i].data(), len) == GPX_OK);
	}
}

/* A random batch over C: queries, terms, result slots. */
struct tbatch
{
	std::vector<gpx_rank_bquery> q;
	std::vector<gpx_rank_bterm> t;
	uint64_t	slots = 0;
};

/* Fill B with nq random queries over nl lists. */
static void
make_batch(tbatch &B, rng &r, uint32_t nl, uint32_t nq, uint32_t kmax)
{
	static const uint32_t ks[] = {1, 2, 3, 10, 17, 100, 1000, 10000};

	for (uint32_t i = 0; i < nq; i++)
	{
		gpx_rank_bquery bq;
		/* now and then more terms than the score kernel carries windows for */
		uint32_t	m = r.below(40) == 0 ? 17 + (uint32_t) r.below(24) :
			r.below(4) == 0 ? 1 : 2 + (uint32_t) r.below(r.below(5) == 0 ? 12 : 4);

		memset(&bq, 0, sizeof(bq));
		bq.first_term = (uint32_t) B.t.size();
		bq.nterms = m;
		do
			bq.k = ks[r.below(sizeof(ks) / sizeof(ks[0]))];
		while (bq.k > kmax);
		bq.mode = r.below(2) ? GPX_RANK_MODE_AND : GPX_RANK_MODE_OR;
		bq.out_offset = B.slots;
		B.slots += bq.k;
		for (uint32_t j = 0; j < m; j++)
		{
			gpx_rank_bterm bt;

			memset(&bt, 0, sizeof(bt));
			if (j > 0 && r.below(6) == 0)
				bt.list = B.t[B.t.size() - 1 - r.below(j)].list;	/* a repeat */
			else if (r.below(30) == 0)
				bt.list = -1;
			else
				bt.list = (int32_t) r.below(nl);
			B.t.push_back(bt);
		}
		B.q.push_back(bq);
	}
}

/*
 * One batch of B over C twice: bc, run on the CPU at once, and bg, for the
 * GPU, each with its own queries, terms and answers.
 */
struct tcase
{
	std::vector<gpx_rank_bquery> qc,
				qg;
	std::vector<gpx_rank_bterm> tc,
				tg;
	std::vector<uint32_t> dc,
				dg;
	std::vector<double> sc,
				sg;
	gpx_rank_batch bc,
				bg;
};

/* Fill K for B over C (the GPU's with dl_id and keys) and run the CPU's. */
static void
case_prepare(tcase &K, const tcoll &C, const tbatch &B, gpx_rank_algo algo, uint64_t dl_id,
			 const gpx_key *keys)
{
	std::vector<uint64_t> work;
	size_t		wl;

	K.qc = K.qg = B.q;
	K.tc = K.tg = B.t;
	K.dc.assign(B.slots + 1, 0);
	K.dg.assign(B.slots + 1, 0xdeadbeef);
	K.sc.assign(B.slots + 1, 0.0);
	K.sg.assign(B.slots + 1, -1.0);
	memset(&K.bc, 0, sizeof(K.bc));
	K.bc.nqueries = (uint32_t) K.qc.size();
	K.bc.nterms = (uint32_t) K.tc.size();
	K.bc.nlists = (uint32_t) C.lists.size();
	K.bc.queries = K.qc.data();
	K.bc.terms = K.tc.data();
	K.bc.lists = C.lists.data();
	K.bc.doclen = &C.doclen;
	K.bc.k1 = GPX_BM25_K1_DEFAULT;
	K.bc.b = GPX_BM25_B_DEFAULT;
	K.bc.or_algo = algo;
	K.bc.out_docs = K.dc.data();
	K.bc.out_scores = K.sc.data();
	K.bc.out_slots = B.slots;
	K.bg = K.bc;
	K.bg.doclen_id = dl_id;
	K.bg.list_keys = keys;
	K.bg.queries = K.qg.data();
	K.bg.terms = K.tg.data();
	K.bg.out_docs = K.dg.data();
	K.bg.out_scores = K.sg.data();
	CHECK(gpx_rank_batch_prepare(&K.bc) == GPX_OK);
	CHECK(gpx_rank_batch_prepare(&K.bg) == GPX_OK);
	wl = gpx_rank_batch_work_size(&K.bc, 0, K.bc.nqueries);
	work.resize(wl / 8 + 1);
	CHECK(gpx_rank_batch_run(&K.bc, 0, K.bc.nqueries, work.data(), wl, NULL) == GPX_OK);
}

/* The GPU's answers of K against the CPU's, bit for bit. */
static void
case_check(const tcase &K)
{
	for (uint32_t i = 0; i < K.bc.nqueries; i++)
	{
		const gpx_rank_bquery *a = &K.qc[i],
				   *g = &K.qg[i];
		uint32_t	bad = UINT32_MAX;

		CHECKF(a->status == GPX_OK, "cpu query %u: status %d", i, a->status);
		CHECKF(g->status == a->status && g->out_count == a->out_count,
			   "query %u (%s, %u terms, k %u): gpu %u results status %d, cpu %u status %d",
			   i, a->mode == GPX_RANK_MODE_AND ? "and" : "or", a->nterms, a->k,
			   g->out_count, g->status, a->out_count, a->status);
		if (g->out_count != a->out_count)
			continue;
		for (uint32_t j = 0; j < a->out_count && bad == UINT32_MAX; j++)
		{
			uint64_t	o = a->out_offset + j;

			if (K.dg[o] != K.dc[o] || memcmp(&K.sg[o], &K.sc[o], sizeof(double)) != 0)
				bad = j;
		}
		CHECKF(bad == UINT32_MAX,
			   "query %u (%s, %u terms, k %u): result %u: gpu (%u, %.17g) cpu (%u, %.17g)",
			   i, a->mode == GPX_RANK_MODE_AND ? "and" : "or", a->nterms, a->k, bad,
			   bad == UINT32_MAX ? 0 : K.dg[a->out_offset + bad],
			   bad == UINT32_MAX ? 0.0 : K.sg[a->out_offset + bad],
			   bad == UINT32_MAX ? 0 : K.dc[a->out_offset + bad],
			   bad == UINT32_MAX ? 0.0 : K.sc[a->out_offset + bad]);
	}
}

/*
 * Run B over C on the CPU (algo) and on the GPU (gpx_cuda_rank_run, with
 * statistics id dl_id and list keys keys), and compare every answer.
 */
static void
run_case(gpx_cuda_ctx *ctx, const tcoll &C, const tbatch &B, gpx_rank_algo algo,
		 gpx_cuda_rank_stats *gst, uint64_t dl_id = 0, const gpx_key *keys = nullptr)
{
	tcase		K;
	gpx_cuda_status st;

	case_prepare(K, C, B, algo, dl_id, keys);
	st = gpx_cuda_rank_run(ctx, &K.bg, gst);
	CHECKF(st == GPX_CUDA_OK, "gpx_cuda_rank_run: %s: %s", gpx_cuda_status_str(st),
		   gpx_cuda_last_error(ctx));
	if (st == GPX_CUDA_OK)
		case_check(K);
}

/*
 * The lists of C with other document lengths (the same documents, so the
 * same length of the statistics' blob): into D, whose lists point into C.
 */
static void
relen_coll(tcoll &D, const tcoll &C, rng &r)
{
	std::vector<uint32_t> docs, lens;
	size_t		len = 0;

	for (uint32_t d = 0; d < C.doclen.span; d++)
		if (gpx_doclen_get(&C.doclen, d) != 0)
		{
			docs.push_back(d);
			lens.push_back(1 + (uint32_t) r.below(C.doclen.max_len > 2 ? C.doclen.max_len - 1 : 2));
		}
	/* the same width: the longest length unchanged */
	lens[0] = C.doclen.max_len;
	D.dl.resize(gpx_doclen_pairs_size(docs.data(), lens.data(), (uint32_t) docs.size()));
	CHECK(gpx_doclen_encode_pairs(docs.data(), lens.data(), (uint32_t) docs.size(), D.dl.data(),
								  D.dl.size(), &len) == GPX_OK);
	D.dl.resize(len);
	CHECK(gpx_doclen_open(&D.doclen, D.dl.data(), D.dl.size()) == GPX_OK);
	D.lists = C.lists;
}

/*
 * Statistics kept on the device by id (gpx_rank_batch.doclen_id): a batch
 * with the id of the kept statistics does not upload them again, one with
 * another id replaces them, one without an id leaves them; every answer
 * equals the CPU's with the batch's own statistics.
 */
static void
test_kept_statistics(gpx_cuda_ctx *ctx, rng &r)
{
	tcoll		C1,
				C2;
	tbatch		B;
	gpx_cuda_rank_stats g1,
				g2;
	uint64_t	dl_bytes;

	make_coll(C1, r, 20000, 12, false);
	relen_coll(C2, C1, r);
	CHECK(C2.dl.size() == C1.dl.size() && C2.dl != C1.dl);
	dl_bytes = (uint64_t) C1.doclen.span * C1.doclen.width;
	make_batch(B, r, 12, 40, 1000);
	gpx_cuda_rank_chunk_slots(0);
	run_case(ctx, C1, B, GPX_RANK_AUTO, &g1, 101);	/* uploaded, kept */
	run_case(ctx, C1, B, GPX_RANK_AUTO, &g2, 101);	/* kept */
	CHECKF(g1.bytes_in == g2.bytes_in + dl_bytes, "kept statistics: %llu bytes in, then %llu",
		   (unsigned long long) g1.bytes_in, (unsigned long long) g2.bytes_in);
	run_case(ctx, C2, B, GPX_RANK_AUTO, &g2, 102);	/* replaced */
	CHECK(g2.bytes_in == g1.bytes_in);
	run_case(ctx, C1, B, GPX_RANK_AUTO, &g2, 101);	/* replaced back */
	CHECK(g2.bytes_in == g1.bytes_in);
	run_case(ctx, C2, B, GPX_RANK_AUTO, &g2, 0);	/* no id: C1 stays kept */
	CHECK(g2.bytes_in == g1.bytes_in);
	run_case(ctx, C1, B, GPX_RANK_AUTO, &g2, 101);
	CHECK(g2.bytes_in + dl_bytes == g1.bytes_in);
}

/*
 * The cut (cuda/gpx_rank_cut.cu) where it is hardest: every document of
 * the same length and every frequency 1, so that a one-term query's
 * scores all tie, and a k-th best shared by thousands of candidates over
 * several tiles; k around the number of matches; the cut of every query
 * against none.  Lists of span docIDs: all of them, every third, every
 * seventh (with frequencies 1 to 2), each in codec pfor, lrc or qs.
 */
static void
test_cut_ties(gpx_cuda_ctx *ctx, uint32_t span)
{
	static const uint32_t steps[] = {1, 3, 7};
	tcoll		C;
	tbatch		B;
	std::vector<uint32_t> docs(span), lens(span, 7);
	size_t		len = 0;
	gpx_cuda_rank_stats gs;

	for (uint32_t d = 0; d < span; d++)
		docs[d] = d;
	C.dl.resize(gpx_doclen_pairs_size(docs.data(), lens.data(), span));
	CHECK(gpx_doclen_encode_pairs(docs.data(), lens.data(), span, C.dl.data(), C.dl.size(),
								  &len) == GPX_OK);
	C.dl.resize(len);
	CHECK(gpx_doclen_open(&C.doclen, C.dl.data(), C.dl.size()) == GPX_OK);
	C.blobs.resize(3);
	C.lists.resize(3);
	for (uint32_t i = 0; i < 3; i++)
	{
		std::vector<uint32_t> v, tf;
		int			codec = GPX_CODEC_MIN + (int) i;
		size_t		cap;

		for (uint32_t d = 0; d < span; d += steps[i])
		{
			v.push_back(d);
			tf.push_back(1 + (i == 2 && d % 2 == 0));
		}
		cap = gpx_encode_bound_tf(codec, (uint32_t) v.size(), v.back());
		C.blobs[i].resize(cap);
		CHECK(gpx_encode_tf(codec, v.data(), tf.data(), (uint32_t) v.size(), C.blobs[i].data(),
							cap, &len) == GPX_OK);
		C.blobs[i].resize(len);
		CHECK(gpx_open(&C.lists[i], C.blobs[i].data(), len) == GPX_OK);
	}
	/* one-term ORs of list 0 and 1, ORs of all three, ANDs of 0 and 1 */
	{
		const uint32_t ks[] = {1, 10, 1000, 10000, span / 3 - 1, span / 3, span / 3 + 1,
			span - 1};
		const int32_t terms[][3] = {{0, -1, -1}, {1, -1, -1}, {2, 0, 1}, {0, 1, -1}};

		for (uint32_t k : ks)
			for (uint32_t t = 0; t < 4; t++)
			{
				gpx_rank_bquery bq;

				if (k == 0 || k > 10000)
					continue;
				memset(&bq, 0, sizeof(bq));
				bq.first_term = (uint32_t) B.t.size();
				bq.k = k;
				bq.mode = t == 3 ? GPX_RANK_MODE_AND : GPX_RANK_MODE_OR;
				bq.out_offset = B.slots;
				B.slots += k;
				for (uint32_t j = 0; j < 3 && terms[t][j] >= 0; j++)
				{
					gpx_rank_bterm bt;

					memset(&bt, 0, sizeof(bt));
					bt.list = terms[t][j];
					B.t.push_back(bt);
					bq.nterms++;
				}
				B.q.push_back(bq);
			}
	}
	gpx_cuda_rank_chunk_slots(0);
	gpx_cuda_rank_cut_min(UINT64_MAX);
	run_case(ctx, C, B, GPX_RANK_AUTO, &gs);
	CHECK(gs.cut_queries == 0);
	gpx_cuda_rank_cut_min(1);
	run_case(ctx, C, B, GPX_RANK_AUTO, &gs);
	CHECKF(gs.cut_queries == B.q.size() && gs.cut_tiles > B.q.size(),
		   "%llu of %zu queries cut, %llu tiles", (unsigned long long) gs.cut_queries,
		   B.q.size(), (unsigned long long) gs.cut_tiles);
	gpx_cuda_rank_cut_min(0);
	run_case(ctx, C, B, GPX_RANK_AUTO, &gs);
	CHECK(gs.cut_queries > 0);
}

/*
 * Warp w seeks x[w] from from[w] in a[0..n) (gpx_d_warp_seek, into
 * seek[w]) and its lanes find their docIDs d[32 w + lane] in the window
 * [lo[w], hi[w]) (gpx_rk_win_pos, into pos[]).
 */
__global__ void
k_test_seek(const uint32_t *a, uint32_t n, uint32_t nw, const uint32_t *from,
			const uint32_t *x, uint32_t *seek, const uint32_t *lo, const uint32_t *hi,
			const uint32_t *d, uint32_t *pos)
{
	uint32_t	lane = threadIdx.x & 31,
				w = blockIdx.x * (blockDim.x / 32) + (threadIdx.x >> 5);
	uint32_t	s;

	if (w >= nw)
		return;					/* the whole warp alike */
	s = gpx_d_warp_seek(a, from[w], n, x[w], lane);
	if (lane == 0)
		seek[w] = s;
	pos[32 * w + lane] = gpx_rk_win_pos(a, n, lo[w], hi[w], d[32 * w + lane], lane);
}

/* Device memory for v's elements (and one more), filled with them when fill. */
static uint32_t *
dev_vec(const std::vector<uint32_t> &v, bool fill)
{
	uint32_t   *p = NULL;

	CHECK(cudaMalloc(&p, (v.size() + 1) * sizeof(uint32_t)) == cudaSuccess);
	if (fill && !v.empty())
		CHECK(cudaMemcpy(p, v.data(), v.size() * sizeof(uint32_t), cudaMemcpyHostToDevice) == cudaSuccess);
	return p;
}

/*
 * The score kernel's searches on their own, against std::lower_bound:
 * lists of 0 to 2^20 + 3 docIDs (gaps of 1, of up to 64, of up to 2^12,
 * some near 2^32 - 1), seeks from anywhere to anywhere (near, far, past
 * the end, values below, at and above every docID), and windows of 0 to
 * thousands of docIDs holding the warp's 32 ascending docIDs, half of
 * them in the list.
 */
static void
test_seek(rng &r)
{
	static const uint32_t sizes[] = {0, 1, 2, 5, 31, 32, 33, 64, 65, 100, 1000, 1025,
	5000, 70000, (1u << 20) + 3};
	const uint32_t nw = 256;

	for (uint32_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++)
	{
		uint32_t	n = sizes[si],
					gapmax = si % 3 == 0 ? 1 : si % 3 == 1 ? 64 : 4096;
		std::vector<uint32_t> a(n), from(nw), x(nw), lo(nw), hi(nw), d(32 * nw),
					seek(nw), pos(32 * nw);
		uint32_t	v = si == 4 ? UINT32_MAX - 40 * n - 10 : (uint32_t) r.below(1000);

		for (uint32_t i = 0; i < n; i++)
		{
			a[i] = v;
			v += 1 + (uint32_t) r.below(si == 4 ? 40 : gapmax);
		}
		for (uint32_t w = 0; w < nw; w++)
		{
			uint32_t	kind = (uint32_t) r.below(6);
			uint32_t	f = n == 0 ? 0 : (uint32_t) r.below(n + 1);
			uint32_t	at = n == 0 ? 0 : (uint32_t) r.below(n);

			if (w % 16 == 0)
				f = 0;
			from[w] = f;
			x[w] = n == 0 || kind == 0 ? (uint32_t) r.below(3) :
				kind == 1 ? UINT32_MAX : kind == 2 ? a[at] : kind == 3 ? a[at] + 1 :
				kind == 4 ? a[std::min(n - 1, f + (uint32_t) r.below(40))] :
				a[at] - (a[at] > 0 ? 1 : 0);
			/* the warp's docIDs: ascending, about half of them in a */
			{
				uint32_t	s0 = n == 0 ? 0 : (uint32_t) r.below(n),
							stride = 1 + (uint32_t) r.below(r.below(4) == 0 ? 200 : 3),
							cur = n == 0 ? (uint32_t) r.below(100) : a[s0] - (a[s0] > 0 && r.below(2) ? 1 : 0);

				for (uint32_t l = 0; l < 32; l++)
				{
					uint32_t	idx = s0 + l * stride;

					if (n > 0 && idx < n && r.below(2) && a[idx] > cur)
						cur = a[idx];
					else
						cur = UINT32_MAX - cur <= 3 ? UINT32_MAX : cur + 1 + (uint32_t) r.below(3);
					d[32 * w + l] = cur;
				}
				lo[w] = (uint32_t) (std::lower_bound(a.begin(), a.end(), d[32 * w]) - a.begin());
				hi[w] = (uint32_t) (std::upper_bound(a.begin(), a.end(), d[32 * w + 31]) - a.begin());
			}
		}
		uint32_t   *da = dev_vec(a, true),
				   *dfrom = dev_vec(from, true),
				   *dx = dev_vec(x, true),
				   *dseek = dev_vec(seek, false),
				   *dlo = dev_vec(lo, true),
				   *dhi = dev_vec(hi, true),
				   *dd = dev_vec(d, true),
				   *dpos = dev_vec(pos, false);

		GPX_LAUNCH(k_test_seek, nw / 8, 256, 0, da, n, nw, dfrom, dx, dseek, dlo, dhi, dd, dpos);
		CHECK(cudaGetLastError() == cudaSuccess);
		CHECK(cudaDeviceSynchronize() == cudaSuccess);
		CHECK(cudaMemcpy(seek.data(), dseek, nw * sizeof(uint32_t), cudaMemcpyDeviceToHost) == cudaSuccess);
		CHECK(cudaMemcpy(pos.data(), dpos, 32 * nw * sizeof(uint32_t), cudaMemcpyDeviceToHost) == cudaSuccess);
		{
			uint32_t	bad_seek = 0,
						bad_pos = 0;

			for (uint32_t w = 0; w < nw; w++)
			{
				uint32_t	want = (uint32_t) (std::lower_bound(a.begin() + from[w], a.end(), x[w]) - a.begin());

				bad_seek += seek[w] != want;
				for (uint32_t l = 0; l < 32; l++)
				{
					uint32_t	dv = d[32 * w + l];
					uint32_t	i = (uint32_t) (std::lower_bound(a.begin(), a.end(), dv) - a.begin());

					want = i < n && a[i] == dv ? i : n;
					bad_pos += pos[32 * w + l] != want;
				}
			}
			CHECKF(bad_seek == 0, "list of %u: %u of %u seeks wrong", n, bad_seek, nw);
			CHECKF(bad_pos == 0, "list of %u: %u of %u window searches wrong", n, bad_pos, 32 * nw);
		}
		for (uint32_t *p : {da, dfrom, dx, dseek, dlo, dhi, dd, dpos})
			cudaFree(p);
	}
}

/* Pinned memory standing for the executor's arena (gpx_cuda_pin). */
static uint8_t *g_arena;
static const size_t ARENA_BYTES = (size_t) 64 << 20;

/*
 * Move C's blobs into the pinned arena (8-byte aligned, one after the
 * other, as the executor's requests hold them), so that the driver copies
 * them to the device from there; false when they do not fit.
 */
static bool
pin_coll(tcoll &C)
{
	size_t		off = 0;

	for (size_t i = 0; i < C.blobs.size(); i++)
	{
		size_t		len = C.blobs[i].size();

		if (len == 0)
			continue;
		if (off + len > ARENA_BYTES)
			return false;
		memcpy(g_arena + off, C.blobs[i].data(), len);
		CHECK(gpx_open(&C.lists[i], g_arena + off, len) == GPX_OK);
		off = (off + len + 7) & ~(size_t) 7;
	}
	return true;
}

/* The lists of C that B's terms use and that hold postings. */
static std::vector<uint8_t>
live_lists(const tcoll &C, const tbatch &B)
{
	std::vector<uint8_t> live(C.lists.size(), 0);

	for (const gpx_rank_bterm &t : B.t)
		if (t.list >= 0 && C.lists[t.list].n > 0)
			live[t.list] = 1;
	return live;
}

/*
 * Intersect pairs of C's lists on ctx (gpx_cuda_run_batch), each list
 * with its key, against the CPU: every query's docIDs.
 */
static void
intersect_check(gpx_cuda_ctx *ctx, const tcoll &C, const std::vector<gpx_key> &keys)
{
	size_t		nl = C.lists.size();
	std::vector<gpx_batch_list> ql;	/* each query's two lists, in turn */
	std::vector<gpx_batch_query> q;
	std::vector<std::vector<uint32_t>> dec(nl), want;
	uint64_t	words = 0;

	for (size_t i = 0; i < nl; i++)
	{
		dec[i].resize(C.lists[i].n + 1);
		gpx_decode(&C.lists[i], dec[i].data());
		dec[i].resize(C.lists[i].n);
	}
	for (size_t i = 0; i + 1 < nl; i++)
	{
		gpx_batch_query bq;
		std::vector<uint32_t> w;

		if (C.lists[i].n == 0 || C.lists[i + 1].n == 0)
			continue;
		std::set_intersection(dec[i].begin(), dec[i].end(), dec[i + 1].begin(), dec[i + 1].end(),
							  std::back_inserter(w));
		memset(&bq, 0, sizeof(bq));
		bq.first_list = (uint32_t) ql.size();
		bq.nlists = 2;
		bq.out_offset = words;
		bq.out_capacity = std::min(C.lists[i].n, C.lists[i + 1].n);
		bq.status = -1;
		words += bq.out_capacity;
		q.push_back(bq);
		want.push_back(w);
		for (size_t j = i; j <= i + 1; j++)
			ql.push_back({C.lists[j], keys[j]});
	}
	if (q.empty())
		return;
	std::vector<uint32_t> out(words + 1);
	gpx_batch	b;
	gpx_batch_stats bs;
	gpx_cuda_status st;

	memset(&b, 0, sizeof(b));
	b.nqueries = (uint32_t) q.size();
	b.nlists = (uint32_t) ql.size();
	b.queries = q.data();
	b.lists = ql.data();
	b.out = out.data();
	b.out_words = words;
	st = gpx_cuda_run_batch(ctx, &b, &bs);
	CHECKF(st == GPX_CUDA_OK, "gpx_cuda_run_batch: %s: %s", gpx_cuda_status_str(st),
		   gpx_cuda_last_error(ctx));
	if (st != GPX_CUDA_OK)
		return;
	CHECKF(bs.cache_hits > 0, "intersections found %llu of the ranked lists cached",
		   (unsigned long long) bs.cache_hits);
	for (size_t j = 0; j < q.size(); j++)
		CHECKF(q[j].status == GPX_OK && q[j].out_count == want[j].size() &&
			   std::equal(want[j].begin(), want[j].end(), out.begin() + q[j].out_offset),
			   "intersection %zu of cached lists: %u docIDs, want %zu", j, q[j].out_count,
			   want[j].size());
}

/*
 * Lists kept in the device list cache by key (gpx_rank_batch.list_keys):
 * the first batch copies them in (from pinned memory straight into the
 * cache when pinned), the second finds them all and copies none of them;
 * a list whose key names another list's entry is not kept; intersections
 * over the kept lists, whose side tables the rank driver built, equal the
 * CPU's.  Then a cache that holds only a few lists, under a run of random
 * batches: entries evicted, lists copied in again.  Every ranked answer
 * the CPU's.
 */
static void
test_cached_lists(rng &r, bool pinned, bool quick)
{
	gpx_cuda_ctx *ctx = gpu_test_open();
	tcoll		C;
	tbatch		B;
	gpx_cuda_rank_stats g1,
				g2;
	std::vector<gpx_key> keys;
	std::vector<uint8_t> live;
	uint64_t	kept = 0;
	size_t		nl,
				dup;

	make_coll(C, r, quick ? 12000 : 30000, 16, false);
	nl = C.lists.size();
	if (pinned && g_arena != NULL)
	{
		if (gpx_cuda_pin(ctx, g_arena, ARENA_BYTES) != GPX_CUDA_OK || !pin_coll(C))
			pinned = false;
		gpx_cuda_rank_direct_min(1);
	}
	keys.resize(nl);
	for (size_t i = 0; i < nl; i++)
	{
		keys[i].lo = r.next() | 1;
		keys[i].hi = r.next() & ~GPX_KEY_NAMED_BIT;
	}
	/* a list whose key another list holds (their headers differ) */
	dup = nl - 1;
	while (dup > 0 && C.lists[dup].n == C.lists[0].n)
		dup--;
	if (dup > 0)
		keys[dup] = keys[0];
	make_batch(B, r, (uint32_t) nl, quick ? 12 : 40, 1000);
	live = live_lists(C, B);
	for (size_t i = 0; i < nl; i++)
		kept += live[i];
	if (dup > 0 && live[0] && live[dup])
		kept--;
	run_case(ctx, C, B, GPX_RANK_AUTO, &g1, 0, keys.data());
	CHECKF(g1.cache_misses == kept && g1.cache_hits == 0,
		   "first batch: %llu lists copied into the cache, %llu found, want %llu and 0",
		   (unsigned long long) g1.cache_misses, (unsigned long long) g1.cache_hits,
		   (unsigned long long) kept);
	if (pinned)
		CHECK(g1.direct_lists > 0 || kept == 0);
	run_case(ctx, C, B, GPX_RANK_AUTO, &g2, 0, keys.data());
	CHECKF(g2.cache_hits == kept && g2.cache_misses == 0,
		   "second batch: %llu lists found in the cache, %llu copied in, want %llu and 0",
		   (unsigned long long) g2.cache_hits, (unsigned long long) g2.cache_misses,
		   (unsigned long long) kept);
	CHECK(kept == 0 || g2.bytes_in < g1.bytes_in);
	CHECK(g2.direct_lists == 0 || (dup > 0 && live[dup]));
	/* a batch without keys beside them: answers unchanged */
	run_case(ctx, C, B, GPX_RANK_AUTO, &g2);
	CHECK(g2.cache_hits == 0 && g2.cache_misses == 0);
	if (dup > 0)
		keys[dup] = gpx_key {0, 0};
	intersect_check(ctx, C, keys);
	gpx_cuda_close(ctx);

	/* a cache of 128 KiB: a few lists at a time */
	{
		gpx_cuda_options o;
		char		err[256];
		uint64_t	hits = 0,
					misses = 0;

		memset(&o, 0, sizeof(o));
		o.cache_bytes = 128u << 10;
		o.batch_bytes = 16u << 20;
		ctx = NULL;
		if (gpx_cuda_open(&o, &ctx, err, sizeof(err)) != GPX_CUDA_OK)
		{
			CHECKF(false, "gpx_cuda_open: %s", err);
			return;
		}
		if (pinned)
			CHECK(gpx_cuda_pin(ctx, g_arena, ARENA_BYTES) == GPX_CUDA_OK);
		for (int i = 0; i < 8; i++)
		{
			tbatch		Bi;

			make_batch(Bi, r, (uint32_t) nl, 1 + (uint32_t) r.below(quick ? 3 : 6), 1000);
			run_case(ctx, C, Bi, GPX_RANK_AUTO, &g1, 0, keys.data());
			hits += g1.cache_hits;
			misses += g1.cache_misses;
		}
		CHECKF(hits > 0 && misses > 0, "small cache: %llu hits, %llu misses",
			   (unsigned long long) hits, (unsigned long long) misses);
		intersect_check(ctx, C, keys);
		gpx_cuda_close(ctx);
	}
	gpx_cuda_rank_direct_min(0);
}

/* A batch started on the GPU (gpx_cuda_rank_start) and its ticket. */
struct tstarted
{
	tcase		K;
	gpx_cuda_rank_ticket tk;
	bool		checked = false;
};

/*
 * Ranked batches side by side (gpx_cuda_rank_start on three rank streams)
 * over one collection's lists with two sets of statistics kept by id (so
 * kept, and replaced while other runs are in flight) or none, the lists
 * keyed in most batches (one run copies a list into the device list cache,
 * the next reads it), some batches of several device rounds (they run to
 * their end at once), ends polled at random, a synchronous run and an
 * intersection now and then (each ends the runs in flight first), a batch
 * with a list the kernels refuse (its start fails, the others go on); with the
 * default list cache, then one of 128 KiB (entries evicted between runs,
 * never one that a run in flight uses).  Every answer the CPU's; all three
 * streams busy at once at least once.
 */
static void
test_side_by_side(rng &r, bool quick)
{
	tcoll		C1,
				C2;
	std::vector<gpx_key> keys;
	size_t		nl;

	make_coll(C1, r, quick ? 12000 : 30000, 160, false);
	relen_coll(C2, C1, r);
	nl = C1.lists.size();
	keys.resize(nl);
	for (size_t i = 0; i < nl; i++)
	{
		keys[i].lo = r.next() | 1;
		keys[i].hi = r.next() & ~GPX_KEY_NAMED_BIT;
	}
	for (int phase = 0; phase < 2; phase++)
	{
		gpx_cuda_options o;
		gpx_cuda_ctx *ctx = NULL;
		char		err[256];
		std::vector<std::unique_ptr<tstarted>> runs;
		int			most = 0,
					n = quick ? 24 : 64;

		memset(&o, 0, sizeof(o));
		if (phase == 1)
		{
			o.cache_bytes = 128u << 10;
			o.batch_bytes = 16u << 20;
		}
		if (gpx_cuda_open(phase == 0 ? NULL : &o, &ctx, err, sizeof(err)) != GPX_CUDA_OK)
		{
			CHECKF(false, "gpx_cuda_open: %s", err);
			return;
		}
		gpx_cuda_rank_streams(ctx, 3);
		CHECK(gpx_cuda_rank_free(ctx) == 3);
		for (int i = 0; i < n; i++)
		{
			tbatch		B;
			int			pick = (int) r.below(6);
			const tcoll &C = pick == 0 ? C2 : C1;
			uint64_t	id = pick == 0 ? 202 : pick == 1 ? 0 : 201;
			tstarted   *t = new tstarted;
			gpx_cuda_status st;

			runs.emplace_back(t);
			make_batch(B, r, (uint32_t) nl, 1 + (uint32_t) r.below(quick ? 4 : 8), 1000);
			gpx_cuda_rank_chunk_slots(i % 7 == 6 ? 3000 : 0);
			case_prepare(t->K, C, B, GPX_RANK_AUTO, id, r.below(4) != 0 ? keys.data() : nullptr);
			st = gpx_cuda_rank_start(ctx, &t->K.bg, NULL, &t->tk);
			CHECKF(st == GPX_CUDA_OK, "gpx_cuda_rank_start: %s: %s", gpx_cuda_status_str(st),
				   gpx_cuda_last_error(ctx));
			most = std::max(most, 3 - gpx_cuda_rank_free(ctx));
			if (i == n / 2)
			{
				/* a batch the kernels cannot take, while others run */
				tstarted	bad;
				tbatch		B3;
				std::vector<gpx_list> bl = C1.lists;
				int			victim = -1;

				make_batch(B3, r, (uint32_t) nl, 2, 1000);
				for (const gpx_rank_bterm &bt : B3.t)
					if (victim < 0 && bt.list >= 0 && bl[bt.list].n > 0)
						victim = bt.list;
				if (victim >= 0)
				{
					case_prepare(bad.K, C1, B3, GPX_RANK_AUTO, 201, keys.data());
					bl[victim].nblocks++;
					bad.K.bg.lists = bl.data();
					st = gpx_cuda_rank_start(ctx, &bad.K.bg, NULL, &bad.tk);
					CHECKF(st == GPX_CUDA_BAD_INPUT && bad.tk.done &&
						   bad.tk.status == GPX_CUDA_BAD_INPUT,
						   "a bad list: start %s, ticket done %d status %s", gpx_cuda_status_str(st),
						   bad.tk.done, gpx_cuda_status_str(bad.tk.status));
				}
			}
			if (r.below(3) == 0)
				(void) gpx_cuda_rank_progress(ctx, 0);
			if (r.below(12) == 0)
			{
				tbatch		B2;

				make_batch(B2, r, (uint32_t) nl, 3, 1000);
				run_case(ctx, C1, B2, GPX_RANK_AUTO, NULL, 201, keys.data());
				CHECK(gpx_cuda_rank_free(ctx) == 3);
			}
			if (r.below(16) == 0)
			{
				intersect_check(ctx, C1, keys);
				CHECK(gpx_cuda_rank_free(ctx) == 3);
			}
			for (auto &u : runs)
				if (!u->checked && u->tk.done)
				{
					CHECKF(u->tk.status == GPX_CUDA_OK, "ranked run: %s: %s",
						   gpx_cuda_status_str(u->tk.status), u->tk.err);
					case_check(u->K);
					u->checked = true;
				}
		}
		CHECK(gpx_cuda_rank_progress(ctx, 1) == 0);
		for (auto &u : runs)
			if (!u->checked)
			{
				CHECK(u->tk.done);
				CHECKF(u->tk.status == GPX_CUDA_OK, "ranked run: %s: %s",
					   gpx_cuda_status_str(u->tk.status), u->tk.err);
				case_check(u->K);
			}
		CHECKF(most == 3, "at most %d ranked runs in flight at once", most);
		{
			char		desc[1024];

			gpx_cuda_describe(ctx, desc, sizeof(desc));
			printf("# side by side, phase %d: %s\n", phase, desc);
		}
		gpx_cuda_rank_chunk_slots(0);
		gpx_cuda_close(ctx);
	}
}

/* Entry point. */
int
main(int argc, char **argv)
{
	bool		quick = false;
	uint64_t	seed = 19;
	gpx_cuda_ctx *ctx = NULL;

	gpu_test_args(argc, argv, &quick, &seed);
	ctx = gpu_test_open();
	g_arena = (uint8_t *) malloc(ARENA_BYTES);
	if (g_arena == NULL || gpx_cuda_pin(ctx, g_arena, ARENA_BYTES) != GPX_CUDA_OK)
	{
		free(g_arena);
		g_arena = NULL;			/* no direct copies to test */
	}
	printf("test_gpu_rank: seed %llu%s\n", (unsigned long long) seed, quick ? ", quick" : "");
	{
		rng			r = {seed};
		int			ncoll = quick ? 6 : 24;

		for (int c = 0; c < ncoll; c++)
		{
			tcoll		C;
			tbatch		B;
			bool		ties = c % 2 == 0;
			uint32_t	span = c == 0 ? 1 : (uint32_t) (quick ? 50 + r.below(3000) : 50 + r.below(40000));
			uint32_t	nl = 1 + (uint32_t) r.below(24);
			uint32_t	nq = 1 + (uint32_t) r.below(quick ? 40 : 120);
			gpx_cuda_rank_stats gs;

			unit_case_begin("collection %d: %u docIDs, %u lists, %u queries%s", c, span, nl,
							nq, ties ? ", many ties" : "");
			make_coll(C, r, span, nl, ties);
			make_batch(B, r, nl, nq, quick && c % 3 != 0 ? 1000 : 10000);
			gpx_cuda_rank_chunk_slots(c % 3 == 2 ? 3000 : 0);
			gpx_cuda_rank_cut_min(c % 2 == 1 ? 1 : 0);
			/* every fourth: the blobs in pinned memory, each copied from there */
			gpx_cuda_rank_direct_min(c % 4 == 0 ? 1 : 0);
			bool		pinned = c % 4 == 0 && g_arena != NULL && pin_coll(C);

			run_case(ctx, C, B, GPX_RANK_AUTO, &gs);
			if (pinned)
				CHECKF(gs.direct_lists > 0 || gs.lists == 0, "%llu of %llu lists copied directly",
					   (unsigned long long) gs.direct_lists, (unsigned long long) gs.lists);
			else
				CHECK(gs.direct_lists == 0);
			/* every query of two or more candidates cut (some has them when
			 * the batch has more candidates than queries) */
			if (c % 2 == 1)
				CHECKF(gs.cut_queries > 0 || gs.candidates <= nq, "%llu queries cut",
					   (unsigned long long) gs.cut_queries);
			if (c % 3 == 2)
				CHECKF(gs.chunks > 1 || nq == 1 || gs.candidates <= 3000, "%u rounds for %llu slots",
					   gs.chunks, (unsigned long long) gs.candidates);
			if (c % 4 == 1)
				run_case(ctx, C, B, GPX_RANK_EXHAUSTIVE, &gs);
		}
		gpx_cuda_rank_cut_min(0);
		unit_case_begin("cut: scores tied over several tiles, 12,000 documents");
		test_cut_ties(ctx, 12000);
		if (!quick)
		{
			unit_case_begin("cut: scores tied over several tiles, 70,001 documents");
			test_cut_ties(ctx, 70001);
		}
		gpx_cuda_rank_cut_min(0);
		gpx_cuda_rank_direct_min(0);
		unit_case_begin("warp seeks and window searches against std::lower_bound");
		test_seek(r);
		unit_case_begin("statistics kept on the device by id");
		test_kept_statistics(ctx, r);
		unit_case_begin("lists kept in the device list cache by key");
		test_cached_lists(r, false, quick);
		unit_case_begin("lists kept in the device list cache by key, from pinned memory");
		test_cached_lists(r, true, quick);
		unit_case_begin("ranked batches side by side on three streams");
		test_side_by_side(r, quick);
		unit_case_begin("empty batch");
		{
			tcoll		C;
			tbatch		B;

			make_coll(C, r, 100, 3, false);
			run_case(ctx, C, B, GPX_RANK_AUTO, NULL);
		}
	}
	gpx_cuda_close(ctx);
	free(g_arena);
	return unit_finish();
}
