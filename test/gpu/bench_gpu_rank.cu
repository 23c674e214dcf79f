/*
 * bench_gpu_rank.cu - ranked retrieval (BM25 top-k, AND and OR) on the GPU
 * (gpx_cuda_rank_run) beside the CPU (gpx_rank_batch_run on every
 * hardware thread, and on one), in one run, on the GOV2-calibrated
 * collection of bench_gpu's isect part: 25,205,179 documents in 64 topic
 * ranges, per topic 4 + 2 + 1 + 1 + 1 + 1 terms of mean lengths 8.6K,
 * 37K, 206K, 364K, 575K, 740K (VLDB 2011 Table 4; 90 / 70 % of a term's
 * postings inside its topic range), queries of 2..6 terms of one topic in
 * proportions 16.1 / 24.5 / 22.8 / 14.8 / 8.2 %.  Document lengths:
 * log-normal, mean 1457.4 tokens and log-sd 1.1, the generator's model
 * (test/gen/gen_tf.h says where the numbers come from).  The lists carry
 * no frequencies (the list format has none yet): tf = 1 everywhere.
 *
 *   bench_gpu_rank [--queries N] [--threads N] [--codec pfor|lrc|qs] [--runs N]
 *              [--min-shortest N] [--docs N] [--batches "B ..."] [--streams "S ..."]
 *              [--no-cut] [--pin] [--keyed]
 *
 * For each of AND and OR, top-10 and top-1000: one batch of N queries
 * (default 1000; only queries whose shortest list has at least
 * --min-shortest docIDs, default 10^4), timed end to end as a caller sees
 * it: GPU = upload of the batch's lists and document lengths, decode,
 * score, select, results back (median of --runs, default 3, after one
 * warm-up), with the device time of its phases (CUDA events, last run);
 * CPU = the same batch split over the threads.  --docs N scales
 * the collection down to N documents (list lengths in proportion: a quick
 * check, or the host emulation).  Every query's
 * results are compared, docIDs and score bits.  Prints a markdown table;
 * the figures are this machine's, this run's.
 *
 * --batches "1 16" (or "1,16"): then the same queries (at most 2000) in batches of B
 * queries, one after the other, as the executor sends a few backends'
 * requests: the statistics kept on the device by id (doclen_id, as the
 * executor does), so a batch uploads its lists only; mean wall time and
 * device times per batch (median of --runs rounds of all the batches),
 * every result compared with the CPU's.  --streams "1 2": each batch
 * size with batches one at a time (gpx_cuda_rank_run, the default) and
 * up to S side by side on the rank streams (gpx_cuda_rank_start), as
 * the executor's GPU thread keeps them.  --no-cut: no query is cut
 * before its top-k (gpx_cuda_rank_cut_min), to measure the cut.  --pin:
 * the lists lie in pinned memory, as in the executor's arena, so that
 * long ones are copied to the device from there (gpx_cuda_rank_direct_min).
 * --keyed: every list carries an identity key (gpx_rank_batch.list_keys),
 * as the executor's requests carry their long lists' content keys, so the
 * device keeps the lists in its list cache (256 MiB) after their first use
 * and later batches find them there instead of copying them in: the
 * rounds after the warm-up measure lists resident on the GPU.  The small
 * batches' table then says how many lists a batch found and copied in.
 */
#include <algorithm>
#include <atomic>
#include <cmath>
#include <thread>
#include <vector>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpx_codec.h"
#include "gpx_cuda_rank.h"
#include "gpx_doclen.h"
#include "gpu_rng.h"

static const uint32_t GOV2_DOCS = 25205179;
static const double AVGDL = 1457.4;	/* test/gen/gen_tf.h GEN_TF_AVGDL */
static const double SIGMA_DL = 1.1;	/* GEN_TF_SIGMA_DL */
static int g_threads;
static uint32_t g_docs = GOV2_DOCS;	/* --docs: a smaller collection */

/* Run f(i) for i in [0, n) on nt threads (dynamic). */
template <typename F>
static void
par_for(size_t n, int nt, F f)
{
	std::atomic<size_t> next(0);
	std::vector<std::thread> th;

	nt = std::max(1, std::min<int>(nt, (int) n));
	for (int t = 0; t < nt; t++)
		th.emplace_back([&]()
						{
							for (size_t i; (i = next++) < n;)
								f(i);
						});
	for (auto &t : th)
		t.join();
}

/* Wall-clock seconds. */
static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Sorted distinct sample of n values in [lo, lo + span), n <= span / 2. */
static void
sample_sorted(rng &r, uint64_t lo, uint64_t span, uint64_t n, std::vector<uint32_t> &out)
{
	size_t		base = out.size();

	for (uint64_t k = 0; k < n; k++)
		out.push_back((uint32_t) (lo + r.below(span)));
	std::sort(out.begin() + base, out.end());
	out.erase(std::unique(out.begin() + base, out.end()), out.end());
}

/* The collection: lists, their blobs and views, the statistics. */
struct collection
{
	std::vector<std::vector<uint32_t>> docs;
	std::vector<std::vector<uint8_t>> blob;
	std::vector<gpx_list> view;
	std::vector<std::vector<int>> by_topic_class;	/* [topic * 7 + class] */
	std::vector<uint8_t> dl;
	gpx_doclen	doclen;
	int			topics;
	std::vector<gpx_key> keys;	/* one per list (--keyed) */
};

/* --keyed: batches carry the lists' keys (file comment). */
static bool g_keyed = false;

/* Build the collection (file comment). */
static void
make_collection(collection &C, int topics, int codec)
{
	static const double mean_len[7] = {0, 8600, 37000, 206000, 364000, 575000, 740000};
	static const int per_topic[7] = {0, 4, 2, 1, 1, 1, 1};
	uint64_t	S = g_docs / topics;
	double		scale = (double) g_docs / GOV2_DOCS;
	std::vector<std::pair<int, int>> terms;
	std::vector<uint32_t> ent(g_docs);
	double		t0 = now();
	size_t		len = 0,
				bytes = 0,
				total = 0;

	C.topics = topics;
	C.by_topic_class.assign(topics * 7, std::vector<int>());
	for (int t = 0; t < topics; t++)
		for (int c = 1; c <= 6; c++)
			for (int k = 0; k < per_topic[c]; k++)
			{
				C.by_topic_class[t * 7 + c].push_back((int) terms.size());
				terms.push_back(std::make_pair(t, c));
			}
	C.docs.resize(terms.size());
	C.blob.resize(terms.size());
	C.view.resize(terms.size());
	par_for(terms.size(), g_threads, [&](size_t i)
			{
				rng			r = {0xC0FFEEull + i * 7919};
				int			t = terms[i].first,
							c = terms[i].second;
				double		l = scale * mean_len[c] * exp(0.5 * r.normal() - 0.125);
				uint64_t	n = (uint64_t) std::max(std::min(200.0, S / 8.0), std::min(l, S / 4.0));
				uint64_t	nin = (uint64_t) ((c <= 2 ? 0.9 : 0.7) * n);
				std::vector<uint32_t> in,
							out,
							all;
				size_t		cap,
							bl = 0;

				sample_sorted(r, (uint64_t) t * S, S, nin, in);
				sample_sorted(r, 0, g_docs, n - nin, out);
				all.resize(in.size() + out.size());
				std::merge(in.begin(), in.end(), out.begin(), out.end(), all.begin());
				all.erase(std::unique(all.begin(), all.end()), all.end());
				C.docs[i].swap(all);
				cap = gpx_encode_bound(codec, (uint32_t) C.docs[i].size(), C.docs[i].back());
				C.blob[i].resize(cap);
				gpx_encode(codec, C.docs[i].data(), (uint32_t) C.docs[i].size(),
						   C.blob[i].data(), cap, &bl);
				C.blob[i].resize(bl);
				gpx_open(&C.view[i], C.blob[i].data(), bl);
			});
	{
		rng			r = {0xD0C1E7ull};
		double		mu = log(AVGDL) - SIGMA_DL * SIGMA_DL / 2;

		for (uint32_t d = 0; d < g_docs; d++)
		{
			double		x = exp(mu + SIGMA_DL * r.normal());

			ent[d] = 1 + (uint32_t) std::max(1.0, std::min(x, 1e7));
		}
	}
	C.dl.resize(gpx_doclen_size(g_docs, 10000000));
	if (gpx_doclen_encode(ent.data(), g_docs, C.dl.data(), C.dl.size(), &len) != GPX_OK ||
		gpx_doclen_open(&C.doclen, C.dl.data(), len) != GPX_OK)
	{
		fprintf(stderr, "document lengths: encoding failed\n");
		exit(1);
	}
	for (size_t i = 0; i < terms.size(); i++)
	{
		bytes += C.blob[i].size();
		total += C.docs[i].size();
	}
	printf("collection: %d topics, %zu terms, %.1f M postings (%s, %.2f bits/docID), "
		   "%u documents, avgdl %.1f; built in %.1f s\n",
		   topics, terms.size(), total / 1e6, gpx_codec_name(codec), 8.0 * bytes / total,
		   g_docs, (double) C.doclen.total / C.doclen.ndocs, now() - t0);
}

/* nq queries of 2..6 terms of one topic, shortest list >= min_short. */
static std::vector<std::vector<int>>
make_queries(const collection &C, size_t nq, uint32_t min_short, uint64_t seed)
{
	static const double prop[5] = {16.1, 24.5, 22.8, 14.8, 8.2};
	std::vector<std::vector<int>> qs;
	rng			r = {seed};
	double		sum = 0,
				shortest = 0;

	for (double p : prop)
		sum += p;
	while (qs.size() < nq)
	{
		double		u = r.unit() * sum;
		int			k = 2,
					t = (int) r.below(C.topics);
		std::vector<int> q;
		size_t		mn = SIZE_MAX;

		for (int j = 0; j < 5; j++)
		{
			if (u < prop[j])
			{
				k = j + 2;
				break;
			}
			u -= prop[j];
		}
		for (int c = 1; c <= k; c++)
		{
			const std::vector<int> &v = C.by_topic_class[t * 7 + c];

			q.push_back(v[r.below(v.size())]);
		}
		for (int j = k - 1; j > 0; j--)
			std::swap(q[j], q[r.below(j + 1)]);
		for (int id : q)
			mn = std::min(mn, C.docs[id].size());
		if (mn < min_short)
			continue;
		shortest += mn;
		qs.push_back(q);
	}
	printf("queries: %zu, shortest list >= %u, mean shortest %.0f\n", nq, min_short,
		   shortest / nq);
	return qs;
}

/* A batch over the collection's lists (every list, each term its own). */
struct tbatch
{
	std::vector<gpx_rank_bquery> q;
	std::vector<gpx_rank_bterm> t;
	std::vector<uint32_t> docs;
	std::vector<double> scores;
	gpx_rank_batch b;
};

/* Fill B with queries qs, all in mode and with top k. */
static void
make_batch(tbatch &B, const collection &C, const std::vector<std::vector<int>> &qs,
		   uint32_t mode, uint32_t k)
{
	uint64_t	slots = 0;

	for (const auto &qq : qs)
	{
		gpx_rank_bquery bq;

		memset(&bq, 0, sizeof(bq));
		bq.first_term = (uint32_t) B.t.size();
		bq.nterms = (uint32_t) qq.size();
		bq.k = k;
		bq.mode = mode;
		bq.out_offset = slots;
		slots += k;
		for (int id : qq)
		{
			gpx_rank_bterm bt;

			memset(&bt, 0, sizeof(bt));
			bt.list = id;
			B.t.push_back(bt);
		}
		B.q.push_back(bq);
	}
	B.docs.assign(slots, 0);
	B.scores.assign(slots, 0.0);
	memset(&B.b, 0, sizeof(B.b));
	B.b.nqueries = (uint32_t) B.q.size();
	B.b.nterms = (uint32_t) B.t.size();
	B.b.nlists = (uint32_t) C.view.size();
	B.b.queries = B.q.data();
	B.b.terms = B.t.data();
	B.b.lists = C.view.data();
	B.b.list_keys = g_keyed ? C.keys.data() : nullptr;
	B.b.doclen = &C.doclen;
	B.b.k1 = GPX_BM25_K1_DEFAULT;
	B.b.b = GPX_BM25_B_DEFAULT;
	B.b.out_docs = B.docs.data();
	B.b.out_scores = B.scores.data();
	B.b.out_slots = slots;
	if (gpx_rank_batch_prepare(&B.b) != GPX_OK)
	{
		fprintf(stderr, "batch rejected\n");
		exit(1);
	}
}

/* Run B's queries on nt CPU threads, query by query; seconds. */
static double
run_cpu(tbatch &B, int nt)
{
	double		t0 = now();

	par_for(B.b.nqueries, nt, [&](size_t q)
			{
				size_t		wl = gpx_rank_batch_work_size(&B.b, (uint32_t) q, 1);
				std::vector<uint64_t> w(wl / 8 + 1);

				gpx_rank_batch_run(&B.b, (uint32_t) q, 1, w.data(), wl, NULL);
			});
	return now() - t0;
}

/* Whether query i of A and query j of B answered alike (docIDs, score bits). */
static bool
same_answer(const tbatch &A, uint32_t i, const tbatch &B, uint32_t j)
{
	const gpx_rank_bquery *a = &A.q[i],
			   *b = &B.q[j];

	return a->status == GPX_OK && b->status == GPX_OK && a->out_count == b->out_count &&
		memcmp(&A.docs[a->out_offset], &B.docs[b->out_offset],
			   a->out_count * sizeof(uint32_t)) == 0 &&
		memcmp(&A.scores[a->out_offset], &B.scores[b->out_offset],
			   a->out_count * sizeof(double)) == 0;
}

/*
 * Move C's blobs into one pinned buffer (gpx_cuda_pin), as the executor's
 * arena holds a request's lists, so that the driver copies long ones to
 * the device from there; false when pinning fails.
 */
static bool
pin_collection(gpx_cuda_ctx *ctx, collection &C, std::vector<uint8_t> &arena)
{
	size_t		total = 0,
				off = 0;

	for (const auto &b : C.blob)
		total += (b.size() + 7) & ~(size_t) 7;
	arena.assign(total + 8, 0);
	if (gpx_cuda_pin(ctx, arena.data(), arena.size()) != GPX_CUDA_OK)
		return false;
	for (size_t i = 0; i < C.blob.size(); i++)
	{
		if (C.blob[i].empty())
			continue;
		memcpy(arena.data() + off, C.blob[i].data(), C.blob[i].size());
		if (gpx_open(&C.view[i], arena.data() + off, C.blob[i].size()) != GPX_OK)
			return false;
		off += (C.blob[i].size() + 7) & ~(size_t) 7;
	}
	return true;
}

/*
 * The queries qs in batches of bs, each run on the GPU in turn (runs
 * rounds after a warm-up, median round), checked against the CPU's
 * answers in P (one batch of every query, same mode and k): one table row.
 * streams 1: each batch with gpx_cuda_rank_run, to its end; more: each
 * started with gpx_cuda_rank_start, up to that many side by side (a start
 * with every stream busy waits for the oldest run), all ended at the
 * round's end.
 */
static bool
run_small_batches(gpx_cuda_ctx *ctx, const collection &C,
				  const std::vector<std::vector<int>> &qs, const tbatch &P,
				  uint32_t mode, uint32_t k, size_t bs, int runs, int streams)
{
	size_t		nb = (qs.size() + bs - 1) / bs;
	std::vector<tbatch> G(nb);
	std::vector<gpx_cuda_rank_stats> gsv(nb);
	std::vector<gpx_cuda_rank_ticket> tks(nb);
	std::vector<double> rounds;
	double		up = 0,
				sc = 0,
				se = 0;
	uint64_t	cut = 0,
				hits = 0,
				misses = 0;
	bool		eq = true;

	for (size_t i = 0; i < nb; i++)
	{
		std::vector<std::vector<int>> sub(qs.begin() + i * bs,
										  qs.begin() + std::min(qs.size(), (i + 1) * bs));

		make_batch(G[i], C, sub, mode, k);
		G[i].b.doclen_id = 1;	/* kept on the device, as by the executor */
	}
	gpx_cuda_rank_streams(ctx, streams);
	for (int r = 0; r <= runs; r++)
	{
		double		t0 = now();

		for (size_t i = 0; i < nb; i++)
		{
			gpx_cuda_status st = streams > 1 ?
				gpx_cuda_rank_start(ctx, &G[i].b, &gsv[i], &tks[i]) :
				gpx_cuda_rank_run(ctx, &G[i].b, &gsv[i]);

			if (st != GPX_CUDA_OK)
			{
				fprintf(stderr, "gpx_cuda_rank_%s: %s: %s\n", streams > 1 ? "start" : "run",
						gpx_cuda_status_str(st), gpx_cuda_last_error(ctx));
				exit(1);
			}
		}
		(void) gpx_cuda_rank_progress(ctx, 1);
		for (size_t i = 0; i < nb && streams > 1; i++)
			if (!tks[i].done || tks[i].status != GPX_CUDA_OK)
			{
				fprintf(stderr, "ranked run %zu: %s: %s\n", i,
						tks[i].done ? gpx_cuda_status_str(tks[i].status) : "not done", tks[i].err);
				exit(1);
			}
		for (size_t i = 0; i < nb; i++)
		{
			const gpx_cuda_rank_stats &gs = gsv[i];

			if (r == runs)
			{
				up += gs.upload_ms;
				sc += gs.score_ms;
				se += gs.select_ms;
#ifdef GPX_CUDA_RANK_CUT
				cut += gs.cut_queries;
#endif
				hits += gs.cache_hits;
				misses += gs.cache_misses;
			}
		}
		if (r > 0)
			rounds.push_back(now() - t0);
	}
	for (size_t q = 0; q < qs.size(); q++)
	{
		if (!same_answer(P, q, G[q / bs], (uint32_t) (q % bs)))
			eq = false;
	}
	{
		std::vector<double> v = rounds;
		double		m;

		std::sort(v.begin(), v.end());
		m = v[v.size() / 2];
		printf("| %s | %u | %zu | %d | %zu | %.3f | %.0f | %.3f / %.3f / %.3f | %llu | %.1f / %.1f | %s |\n",
			   mode == GPX_RANK_MODE_AND ? "AND" : "OR", k, bs, streams, nb, m * 1e3 / nb,
			   qs.size() / m, up / nb, sc / nb, se / nb, (unsigned long long) cut,
			   (double) hits / nb, (double) misses / nb, eq ? "equal" : "DIFFER");
	}
	fflush(stdout);
	return eq;
}

/* Median of v. */
static double
median(std::vector<double> v)
{
	std::sort(v.begin(), v.end());
	return v[v.size() / 2];
}

/* Entry point. */
int
main(int argc, char **argv)
{
	size_t		nq = 1000;
	int			runs = 3,
				codec = GPX_CODEC_PFOR;
	uint32_t	min_short = 10000;
	gpx_cuda_options o;
	gpx_cuda_ctx *ctx = NULL;
	char		err[512] = "";
	collection	C;
	std::vector<std::vector<int>> qs;
	bool		all_equal = true,
				pin = false;
	std::vector<size_t> batches;
	std::vector<int> streams = {1};
	std::vector<uint8_t> arena;

	g_threads = (int) std::thread::hardware_concurrency();
	for (int i = 1; i < argc; i++)
	{
		if (strcmp(argv[i], "--queries") == 0 && i + 1 < argc)
			nq = strtoul(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
			g_threads = atoi(argv[++i]);
		else if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc)
			runs = std::max(1, atoi(argv[++i]));
		else if (strcmp(argv[i], "--docs") == 0 && i + 1 < argc)
			g_docs = (uint32_t) std::max(6400ul, std::min<unsigned long>(GOV2_DOCS, strtoul(argv[++i], NULL, 10)));
		else if (strcmp(argv[i], "--min-shortest") == 0 && i + 1 < argc)
			min_short = (uint32_t) strtoul(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--codec") == 0 && i + 1 < argc)
		{
			const char *c = argv[++i];

			codec = strcmp(c, "lrc") == 0 ? GPX_CODEC_LRC : strcmp(c, "qs") == 0 ?
				GPX_CODEC_QS : GPX_CODEC_PFOR;
		}
		else if (strcmp(argv[i], "--batches") == 0 && i + 1 < argc)
		{
			char	   *p = argv[++i],
					   *e;

			for (char *c = p; *c; c++)
				*c = *c == ',' ? ' ' : *c;	/* "1,4,16" as "1 4 16" */
			for (unsigned long v; (v = strtoul(p, &e, 10)), e != p; p = e)
				if (v > 0)
					batches.push_back(v);
		}
		else if (strcmp(argv[i], "--streams") == 0 && i + 1 < argc)
		{
			char	   *p = argv[++i],
					   *e;

			streams.clear();
			for (char *c = p; *c; c++)
				*c = *c == ',' ? ' ' : *c;
			for (unsigned long v; (v = strtoul(p, &e, 10)), e != p; p = e)
				if (v > 0 && v <= GPX_CUDA_RANK_MAX_STREAMS)
					streams.push_back((int) v);
			if (streams.empty())
				streams.push_back(1);
		}
		else if (strcmp(argv[i], "--pin") == 0)
			pin = true;
		else if (strcmp(argv[i], "--keyed") == 0)
			g_keyed = true;
		else if (strcmp(argv[i], "--no-cut") == 0)
		{
#ifdef GPX_CUDA_RANK_CUT
			gpx_cuda_rank_cut_min(UINT64_MAX);
#endif
		}
		else
		{
			fprintf(stderr, "usage: %s [--queries N] [--threads N] [--codec pfor|lrc|qs] "
					"[--runs N] [--min-shortest N] [--docs N] [--batches \"B ...\"] "
					"[--streams \"S ...\"] [--no-cut] [--pin] [--keyed]\n", argv[0]);
			return 2;
		}
	}
	if (nq == 0 || g_threads < 1)
		return 2;
	memset(&o, 0, sizeof(o));
	o.cache_bytes = g_keyed ? 256u << 20 : 64u << 20;
	o.batch_bytes = 16u << 20;
	if (gpx_cuda_open(&o, &ctx, err, sizeof(err)) != GPX_CUDA_OK)
	{
		fprintf(stderr, "gpx_cuda_open: %s\n", err);
		return 1;
	}
	{
		char		desc[512];

		gpx_cuda_describe(ctx, desc, sizeof(desc));
		printf("device: %s\nCPU threads: %d\n", desc, g_threads);
	}
	make_collection(C, 64, codec);
	if (pin)
	{
		bool		ok = pin_collection(ctx, C, arena);

		printf("lists in pinned memory (as in the executor's arena): %s\n",
			   ok ? "yes" : "pinning failed, no");
		if (!ok)
			return 1;
	}
	C.keys.resize(C.view.size());
	for (size_t i = 0; i < C.keys.size(); i++)
	{
		/* distinct, not named (gpx_key_name's bit clear), never none */
		C.keys[i].lo = 0x9E3779B97F4A7C15ull * (i + 1);
		C.keys[i].hi = (uint64_t) i + 1;
	}
	printf("lists keyed (kept in the device list cache): %s\n", g_keyed ? "yes" : "no");
	qs = make_queries(C, nq, min_short, 42);

	printf("\n## Ranked retrieval, GOV2-calibrated, %zu queries a batch\n\n", nq);
	printf("| mode | k | GPU ms | GPU q/s | CPU %d thr ms | CPU q/s | CPU 1 thr q/s | "
		   "GPU / CPU all | GPU upload+decode / score / select ms | candidates / query | results |\n",
		   g_threads);
	printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
	for (uint32_t mode = GPX_RANK_MODE_AND; mode <= GPX_RANK_MODE_OR; mode++)
		for (uint32_t k : {10u, 1000u})
		{
			tbatch		G,
						P;
			std::vector<double> tg,
						tc;
			gpx_cuda_rank_stats gs;
			double		t1;
			bool		eq = true;
			size_t		one = std::min<size_t>(nq, 100);

			make_batch(G, C, qs, mode, k);
			make_batch(P, C, qs, mode, k);
			for (int r = 0; r <= runs; r++)
			{
				double		t0 = now();
				gpx_cuda_status st = gpx_cuda_rank_run(ctx, &G.b, &gs);

				if (st != GPX_CUDA_OK)
				{
					fprintf(stderr, "gpx_cuda_rank_run: %s: %s\n", gpx_cuda_status_str(st),
							gpx_cuda_last_error(ctx));
					return 1;
				}
				if (r > 0)
					tg.push_back(now() - t0);
				t0 = run_cpu(P, g_threads);
				if (r > 0)
					tc.push_back(t0);
			}
			for (uint32_t q = 0; q < P.b.nqueries; q++)
			{
				if (!same_answer(P, q, G, q))
					eq = false;
			}
			all_equal = all_equal && eq;
			/* one thread: the first `one` queries */
			{
				tbatch		S;
				std::vector<std::vector<int>> sub(qs.begin(), qs.begin() + one);

				make_batch(S, C, sub, mode, k);
				t1 = run_cpu(S, 1);
			}
			printf("| %s | %u | %.1f | %.0f | %.1f | %.0f | %.0f | %.1fx | %.1f / %.1f / %.1f | %.0f | %s |\n",
				   mode == GPX_RANK_MODE_AND ? "AND" : "OR", k, median(tg) * 1e3,
				   nq / median(tg), median(tc) * 1e3, nq / median(tc), one / t1,
				   median(tc) / median(tg), gs.upload_ms, gs.score_ms, gs.select_ms,
				   (double) gs.candidates / nq, eq ? "equal" : "DIFFER");
			fflush(stdout);
		}
	if (!batches.empty())
	{
		std::vector<std::vector<int>> sq(qs.begin(), qs.begin() + std::min<size_t>(qs.size(), 2000));

		printf("\n## Small batches: %zu queries in batches of B, statistics kept on the device\n\n",
			   sq.size());
		printf("| mode | k | B | streams | batches | ms per batch | q/s | device upload+decode / score / "
			   "cut+select ms per batch | queries cut | lists found / copied into the cache per batch | results |\n");
		printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
		for (uint32_t mode = GPX_RANK_MODE_AND; mode <= GPX_RANK_MODE_OR; mode++)
			for (uint32_t k : {10u, 1000u})
			{
				tbatch		P;

				make_batch(P, C, sq, mode, k);
				(void) run_cpu(P, g_threads);
				for (size_t bs : batches)
					for (int ns : streams)
						all_equal = run_small_batches(ctx, C, sq, P, mode, k, bs, runs, ns) &&
							all_equal;
			}
	}
	gpx_cuda_close(ctx);
	printf("\nGPU results %s the CPU's (docIDs, order, score bits)\n",
		   all_equal ? "equal" : "DIFFER FROM");
	return all_equal ? 0 : 1;
}
