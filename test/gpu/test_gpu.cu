/*
 * test_gpu.cu - randomized correctness suites of the CUDA back end against
 * the CPU codecs and the CPU batch back end (bit for bit):
 *
 *   decode   every codec, lengths 0 .. 10^7, uniform / clustered / extreme /
 *            dense lists (0 and 2^31-1 included): gpx_cuda_decode ==
 *            gpx_decode;
 *   batch    batches of 1-8-list queries with skewed lengths, mixed codecs,
 *            correlated lists, empty answers, lists touching 0 and 2^31-1,
 *            empty lists, disjoint ranges, repeated lists, unhashed lists,
 *            bad queries (GPX_E_ARG), small output slots (GPX_E_NOSPACE):
 *            status, count and results == gpx_batch_run_cpu, and a naive
 *            merge of the raw arrays; run cold, warm (cache hits), with a
 *            tiny cache and staging (eviction, chunking, split queries),
 *            on two device contexts, and into a pinned (mapped) output;
 *   api      bad device ordinal, list bigger than the cache (GPX_CUDA_OOM,
 *            then the context still works), cache_has, describe;
 *   setup    (emulator only) machines the back end must refuse: no
 *            driver, an old driver, no GPU, an old GPU, no kernel image
 *            for it: the status and the plain words of each.
 *
 * Both blob format versions: the decode and batch suites run once per
 * format pass (--format): v2 (what the types write: Elias-Fano, bitmap and
 * the codecs' own blocks), v1 (values written by gpuidx 0.1), and mixed
 * (v2 with Elias-Fano blocks in pfor and lrc lists for decode; in the
 * batches every list in v1, v2 or that form, mixed inside queries).
 *
 *   test_gpu [--quick] [--seed N] [--max-n N] [--devices a,b,...]
 *            [--format v2|v1|mixed|all]
 *
 * Counts with the unit-test harness (test/unit/unit.h): its closing lines,
 * assertions then "N passed, N failed" of the cases (the suites); exits 1
 * on any failure, 77 (skip) when no usable GPU is present (where no NVIDIA
 * driver is installed, after checking that gpx_cuda_open says "no NVIDIA
 * driver found").  Built by nvcc (make -f cuda/cuda.mk gpucheck)
 * or, with -DGPX_EMU, against the host emulation (emucheck).
 */
#include <algorithm>
#include <vector>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dlfcn.h>
#include <unistd.h>

#include "gpx_codec.h"
#include "gpx_batch.h"
#include "gpx_cuda.h"
#include "gpu_rng.h"
#include "unit.h"
#ifdef GPX_EMU
#include "gpx_emu.h"
#endif

enum dist
{
	D_UNIFORM,
	D_CLUSTERED,
	D_EXTREME,
	D_DENSE
};
#define NDIST 4
static const char *dist_name[] = {"uniform", "clustered", "extreme", "dense"};

/* Sort, de-duplicate, drop values above 2^31-1. */
static void
normalize(std::vector<uint32_t> &v)
{
	std::sort(v.begin(), v.end());
	v.erase(std::unique(v.begin(), v.end()), v.end());
	while (!v.empty() && v.back() > GPX_MAX_DOCID)
		v.pop_back();
}

/* Remove random elements until n are left (the ends stay if keep_ends). */
static void
trim_random(rng &r, std::vector<uint32_t> &v, size_t n, bool keep_ends)
{
	while (v.size() > n)
	{
		size_t		extra = v.size() - n;
		std::vector<uint8_t> del(v.size(), 0);
		size_t		lo = keep_ends ? 1 : 0,
					span = v.size() - (keep_ends ? 2 : 0),
					o = 0;

		for (size_t k = 0; k < extra; k++)
			del[lo + r.below(span)] = 1;
		for (size_t i = 0; i < v.size(); i++)
			if (!del[i])
				v[o++] = v[i];
		if (o < n)
		{
			/* deleted too many (repeated picks cannot do that) */
			abort();
		}
		v.resize(o);
	}
}

/* n distinct docIDs of the given distribution (exactly n). */
static std::vector<uint32_t>
make_list(rng &r, dist d, uint32_t n, uint64_t universe = (uint64_t) GPX_MAX_DOCID + 1)
{
	std::vector<uint32_t> v;

	if (n == 0)
		return v;
	if (universe < n)
		universe = n;
	v.reserve(n + n / 8 + 16);
	if (d == D_UNIFORM)
	{
		while (v.size() < n)
		{
			size_t		need = n - v.size();

			for (size_t i = 0; i < need + need / 16 + 1; i++)
				v.push_back((uint32_t) r.below(universe));
			normalize(v);
		}
		trim_random(r, v, n, false);
	}
	else if (d == D_CLUSTERED)
	{
		/* dense runs (gaps 1..4) with occasional jumps; rescaled to fit */
		std::vector<uint64_t> gaps(n);
		uint64_t	sum = 0,
					x = 0;

		for (uint32_t i = 0; i < n; i++)
		{
			gaps[i] = i == 0 ? r.below(1u << 20) :
				r.unit() < 0.01 ? 1 + r.below(1u << 24) : 1 + r.below(4);
			sum += gaps[i];
		}
		if (sum > GPX_MAX_DOCID)
		{
			double		f = (double) (GPX_MAX_DOCID - 5ull * n) / (double) sum;

			for (uint32_t i = 0; i < n; i++)
				if (gaps[i] > 4)
					gaps[i] = std::max<uint64_t>(1, (uint64_t) (gaps[i] * f));
		}
		for (uint32_t i = 0; i < n; i++)
		{
			x += gaps[i];
			v.push_back((uint32_t) x);
		}
	}
	else if (d == D_DENSE)
	{
		/*
		 * bitmap blocks: stretches at densities 1 .. 1/3, and at 1/4 with
		 * random gaps of 1 to 7 (bitmap blocks whose ones lie unevenly:
		 * a lane's eight ones past a 32-bit window), with sparse
		 * stretches between them (blocks of every form in one list)
		 */
		uint64_t	x = r.below(1u << 20);

		while (v.size() < n && x <= GPX_MAX_DOCID)
		{
			uint32_t	run = 1 + (uint32_t) r.below(600);
			double		u = r.unit();
			uint64_t	step = u < 0.6 ? 1 + r.below(3) : u < 0.8 ? 7 : 1 + r.below(5000);

			for (uint32_t k = 0; k < run && v.size() < n && x <= GPX_MAX_DOCID; k++)
			{
				v.push_back((uint32_t) x);
				x += step == 1 ? 1 : (step <= 7 ? 1 + r.below(step) : step);
			}
		}
		if (v.size() < n)		/* ran into 2^31-1: a dense run below it */
		{
			v.clear();
			for (uint32_t k = 0; k < n; k++)
				v.push_back(GPX_MAX_DOCID - n + 1 + k);
		}
	}
	else if (n <= 2)
	{
		if (n == 2)
			v = {0, GPX_MAX_DOCID};
		else
			v.push_back(r.below(2) ? GPX_MAX_DOCID : 0);
	}
	else
	{
		/* 0 and 2^31-1, dense runs at both ends, huge gaps in between */
		v.push_back(0);
		v.push_back(GPX_MAX_DOCID);
		for (;;)
		{
			while (v.size() < n + n / 8 + 2)
			{
				uint64_t	k = r.below(6);
				uint32_t	x;

				if (k == 0)
					x = (uint32_t) r.below(4 * (uint64_t) n + 8);
				else if (k == 1)
					x = GPX_MAX_DOCID - (uint32_t) r.below(4 * (uint64_t) n + 8);
				else if (k == 2)
					x = (uint32_t) (r.below(32) << 26) + (uint32_t) r.below(3);
				else
					x = (uint32_t) r.below((uint64_t) GPX_MAX_DOCID + 1);
				v.push_back(x);
			}
			normalize(v);
			if (v.size() >= n)
				break;
		}
		trim_random(r, v, n, true);
	}
	return v;
}

/* An encoded list: blob plus parsed view. */
struct blob
{
	std::vector<uint8_t> bytes;
	gpx_list	l;
	gpx_key		key;
};

/* Subkeys of list identity for the tests: all zero (any keyset will do). */
static const gpx_keyset test_keys = {};

/* The encodings of the format passes: v2, v1, v2 with EF blocks in pfor and lrc. */
static const gpx_encode_opts g_encs[3] = {
	{2, 0},
	{GPX_FORMAT_V1, 0},
	{2, (1u << GPX_KIND_EF) | (1u << GPX_KIND_BITMAP)},
};
static const char *g_enc_name[3] = {"v2", "v1", "v2-ef"};
/* The encoding encode() uses now. */
static gpx_encode_opts g_enc = {2, 0};

/* Encode docs with codec in g_enc's format (validated); false on failure. */
static bool
encode(int codec, const std::vector<uint32_t> &docs, blob &b)
{
	size_t		cap = gpx_encode_bound_ex(codec, (uint32_t) docs.size(),
										  docs.empty() ? 0 : docs.back(), &g_enc);
	size_t		len = 0;
	std::vector<uint32_t> scratch(GPX_MAX_BLOCK);
	gpx_status	st;

	b.bytes.assign(cap + 16, 0);
	st = gpx_encode_ex(codec, docs.data(), (uint32_t) docs.size(), &g_enc, b.bytes.data(),
					   cap, &len);
	if (st != GPX_OK)
	{
		fprintf(stderr, "encode %s n=%zu: %s\n", gpx_codec_name(codec), docs.size(),
				gpx_status_str(st));
		return false;
	}
	b.bytes.resize(len);
	if (gpx_validate(b.bytes.data(), len, scratch.data()) != GPX_OK ||
		gpx_open(&b.l, b.bytes.data(), len) != GPX_OK)
	{
		fprintf(stderr, "validate %s n=%zu failed\n", gpx_codec_name(codec), docs.size());
		return false;
	}
	b.key = gpx_key_content(&test_keys, 0, b.bytes.data(), len);
	return true;
}

/* Options of this run. */
static bool g_quick;
static uint64_t g_seed = 12345;
static uint32_t g_max_n = 10000000;
static std::vector<int> g_devs;
/* The format passes to run (bit p: pass p), and whether this pass mixes. */
static unsigned g_passes = 7;
static bool g_mixed;

/* ------------------------------------------------------------ decode -- */

/* GPU decode of every codec over the lengths and distributions. */
static void
suite_decode(gpx_cuda_ctx *ctx)
{
	static const uint32_t lens[] = {0, 1, 2, 3, 31, 127, 128, 129, 255, 256, 257,
		1000, 10000, 100000, 1000000, 10000000};
	rng			r = {g_seed ^ 0xDEC0DEull};
	long		f0 = unit_failed,
				cases = 0,
				forms[GPX_FORM_BITMAP + 1] = {0};

	for (int codec = GPX_CODEC_MIN; codec <= GPX_CODEC_MAX; codec++)
		for (uint32_t n : lens)
			for (int d = 0; d < NDIST; d++)
			{
				std::vector<uint32_t> docs,
							cpu,
							gpu;
				blob		b;
				gpx_cuda_status st;

				if (n > g_max_n || (n >= 10000000 && d != D_UNIFORM) ||
					(n >= 1000000 && (d == D_EXTREME || d == D_DENSE)))
					continue;
				docs = make_list(r, (dist) d, n);
				if (!encode(codec, docs, b))
				{
					CHECKF(false, "encode %s %s n=%u", gpx_codec_name(codec), dist_name[d], n);
					continue;
				}
				cpu.assign(docs.size() + 1, 0);
				gpx_decode(&b.l, cpu.data());
				cpu.resize(docs.size());
				CHECKF(cpu == docs, "cpu decode %s %s n=%u", gpx_codec_name(codec), dist_name[d], n);
				gpu.assign(docs.size() + 1, 0xA5A5A5A5u);
				st = gpx_cuda_decode(ctx, &b.l, gpu.data());
				CHECKF(st == GPX_CUDA_OK, "gpx_cuda_decode %s %s n=%u: %s (%s)",
					   gpx_codec_name(codec), dist_name[d], n, gpx_cuda_status_str(st),
					   gpx_cuda_last_error(ctx));
				CHECKF(gpu[docs.size()] == 0xA5A5A5A5u, "decode wrote past n (%s n=%u)",
					   gpx_codec_name(codec), n);
				gpu.resize(docs.size());
				if (gpu != cpu)
				{
					size_t		i = 0;

					while (i < n && gpu[i] == cpu[i])
						i++;
					CHECKF(false, "gpu decode %s %s n=%u differs at %zu: gpu %u cpu %u",
						   gpx_codec_name(codec), dist_name[d], n, i, gpu[i], cpu[i]);
				}
				else
					unit_passed++;
				/* the block forms the GPU just read */
				for (uint32_t k = 0; k < b.l.nblocks; k++)
				{
					gpx_form	fm = gpx_block_form(&b.l, k);

					if (fm >= GPX_FORM_PFOR && fm <= GPX_FORM_BITMAP)
						forms[fm]++;
				}
				cases++;
			}
	printf("decode %s: %ld cases, %s; blocks read: pfor %ld, lrc %ld, qs v1 %ld, "
		   "Elias-Fano %ld, bitmap %ld\n",
		   g_mixed ? "mixed" : g_enc.version == 1 ? "v1" : "v2",
		   cases, unit_failed == f0 ? "all equal" : "FAILURES",
		   forms[GPX_FORM_PFOR], forms[GPX_FORM_LRC], forms[GPX_FORM_QS1],
		   forms[GPX_FORM_EF], forms[GPX_FORM_BITMAP]);
	/* format 2's dense lists must have reached the kernels as bitmap blocks */
	if (g_mixed || g_enc.version != 1)
		CHECKF(forms[GPX_FORM_BITMAP] > 0 && forms[GPX_FORM_EF] > 0,
			   "format 2 decode read %ld bitmap and %ld Elias-Fano blocks",
			   forms[GPX_FORM_BITMAP], forms[GPX_FORM_EF]);
}

/* ------------------------------------------------------------- batch -- */

/* The raw lists and their encodings in each codec. */
struct pool
{
	std::vector<std::vector<uint32_t>> docs;
	std::vector<blob> enc[GPX_CODEC_MAX + 1];
};

/* A query of the test batch: list ids, codec per list, flags. */
struct tquery
{
	std::vector<uint32_t> lists;
	std::vector<int> codecs;
	bool		bad;			/* nlists = 0 */
	bool		small_out;		/* out_capacity below the result */
	bool		nohash;
};

/* Naive results of the current query set, by query (filled once). */
static std::vector<std::vector<uint32_t>> g_naive;

/* Naive k-way intersection of raw arrays. */
static std::vector<uint32_t>
naive_compute(const pool &P, const tquery &q)
{
	std::vector<uint32_t> acc = P.docs[q.lists[0]],
				tmp;

	for (size_t j = 1; j < q.lists.size(); j++)
	{
		const std::vector<uint32_t> &o = P.docs[q.lists[j]];

		tmp.clear();
		std::set_intersection(acc.begin(), acc.end(), o.begin(), o.end(),
							  std::back_inserter(tmp));
		acc.swap(tmp);
	}
	return acc;
}

/* Naive result of query i (cached). */
static const std::vector<uint32_t> &
naive(size_t i)
{
	return g_naive[i];
}

/* Build the pool: correlated lists of skewed lengths in every codec. */
static void
make_pool(rng &r, pool &P, uint32_t nbig)
{
	std::vector<uint32_t> base = make_list(r, D_UNIFORM, nbig, 40u * nbig);
	auto		add = [&](std::vector<uint32_t> v)
	{
		P.docs.push_back(v);
	};

	/* subsets of a common base (non-empty intersections) plus noise */
	for (int i = 0; i < 24; i++)
	{
		double		keep = 0.05 + 0.9 * r.unit();
		uint32_t	noise = (uint32_t) r.below(nbig / 2 + 1);
		std::vector<uint32_t> v;

		for (uint32_t x : base)
			if (r.unit() < keep)
				v.push_back(x);
		for (uint32_t k = 0; k < noise; k++)
			v.push_back((uint32_t) r.below(40ull * nbig));
		normalize(v);
		add(v);
	}
	/* short lists drawn from the base (shortest lists of the queries) */
	for (int i = 0; i < 24; i++)
	{
		uint32_t	n = 1 + (uint32_t) r.below(i < 12 ? 300 : 5000);
		std::vector<uint32_t> v;

		for (uint32_t k = 0; k < n; k++)
			v.push_back(r.unit() < 0.7 ? base[r.below(base.size())] :
						(uint32_t) r.below(40ull * nbig));
		normalize(v);
		add(v);
	}
	/* independent lists of every distribution, extremes included */
	for (int i = 0; i < 16; i++)
		add(make_list(r, (dist) (i % NDIST), 1 + (uint32_t) r.below(i < 8 ? 2000 : nbig)));
	/* dense subsets of the base's range (bitmap blocks meeting the others) */
	for (int i = 0; i < 4; i++)
	{
		std::vector<uint32_t> v;
		uint32_t	lo = (uint32_t) r.below(30ull * nbig),
					len = 1 + (uint32_t) r.below(4 * (uint64_t) nbig);

		for (uint32_t k = 0; k < len; k++)
			if (r.unit() < 0.6)
				v.push_back(lo + k);
		normalize(v);
		add(v);
	}
	/* fixed edge lists */
	add(std::vector<uint32_t>());	/* empty */
	add(std::vector<uint32_t> {0});
	add(std::vector<uint32_t> {GPX_MAX_DOCID});
	add(std::vector<uint32_t> {0, GPX_MAX_DOCID});
	{
		std::vector<uint32_t> v;	/* dense run at the top */

		for (uint32_t k = 0; k < 3000; k++)
			v.push_back(GPX_MAX_DOCID - 2999 + k);
		v.insert(v.begin(), 0);
		add(v);
	}
	{
		std::vector<uint32_t> v;	/* dense run at the bottom */

		for (uint32_t k = 0; k < 3000; k++)
			v.push_back(k);
		v.push_back(GPX_MAX_DOCID);
		add(v);
	}
	{
		std::vector<uint32_t> v;	/* far away from the base: disjoint ranges */

		for (uint32_t k = 0; k < 2000; k++)
			v.push_back(2000000000u + 7 * k);
		add(v);
	}
	for (int c = GPX_CODEC_MIN; c <= GPX_CODEC_MAX; c++)
	{
		gpx_encode_opts keep = g_enc;

		P.enc[c].resize(P.docs.size());
		for (size_t i = 0; i < P.docs.size(); i++)
		{
			/* mixed pass: each list in v2, v1 or v2 with EF blocks */
			if (g_mixed)
				g_enc = g_encs[(i + (size_t) c) % 3];
			if (!encode(c, P.docs[i], P.enc[c][i]))
				CHECKF(false, "encode pool list %zu", i);
		}
		g_enc = keep;
	}
}

/* Random queries over the pool, with the special cases sprinkled in. */
static std::vector<tquery>
make_queries(rng &r, const pool &P, uint32_t nq)
{
	std::vector<tquery> qs;
	uint32_t	nl = (uint32_t) P.docs.size();

	for (uint32_t i = 0; i < nq; i++)
	{
		tquery		q;
		uint32_t	k = 1 + (uint32_t) r.below(8);
		int			mode = (int) r.below(4);	/* 0: mixed codecs, else one codec */

		if (r.unit() < 0.85 && k == 1)
			k = 2 + (uint32_t) r.below(7);
		q.bad = r.unit() < 0.02;
		q.small_out = r.unit() < 0.04;
		q.nohash = r.unit() < 0.05;
		for (uint32_t j = 0; j < k; j++)
		{
			uint32_t	li;

			/* one short list, the others long (skew) */
			if (j == 0)
				li = 24 + (uint32_t) r.below(24);
			else if (r.unit() < 0.75)
				li = (uint32_t) r.below(24);
			else
				li = (uint32_t) r.below(nl);
			q.lists.push_back(li);
			q.codecs.push_back(mode == 0 ? GPX_CODEC_MIN + (int) r.below(3) : mode);
		}
		std::swap(q.lists[0], q.lists[r.below(k)]);
		if (r.unit() < 0.03)
		{
			/* long lists only: sources larger than a small chunk */
			q.lists.resize(1 + r.below(2));
			q.codecs.resize(q.lists.size(), q.codecs[0]);	/* a second list gets a real codec */
			for (auto &li : q.lists)
				li = (uint32_t) r.below(24);
		}
		qs.push_back(q);
	}
	return qs;
}

/* A gpx_batch over queries, with its own output area. */
struct tbatch
{
	gpx_batch	b;
	std::vector<gpx_batch_query> qv;
	std::vector<gpx_batch_list> lv;
	std::vector<uint32_t> out;
	std::vector<uint32_t> expect;	/* naive result sizes */
};

/* Lay the queries out as a batch (out slots padded with guard words). */
static void
build_batch(const pool &P, const std::vector<tquery> &qs, tbatch &T, uint32_t *outbuf,
			uint64_t outwords)
{
	uint64_t	off = 3;

	T.qv.clear();
	T.lv.clear();
	for (size_t qi = 0; qi < qs.size(); qi++)
	{
		const tquery &q = qs[qi];
		gpx_batch_query bq;
		uint32_t	nmin = UINT32_MAX;

		memset(&bq, 0, sizeof(bq));
		bq.first_list = (uint32_t) T.lv.size();
		bq.nlists = q.bad ? 0 : (uint32_t) q.lists.size();
		for (size_t j = 0; j < q.lists.size(); j++)
		{
			gpx_batch_list bl;
			const blob &e = P.enc[q.codecs[j]][q.lists[j]];

			bl.list = e.l;
			bl.key = q.nohash ? gpx_key{0, 0} : e.key;
			T.lv.push_back(bl);
			nmin = std::min<uint32_t>(nmin, e.l.n);
		}
		bq.out_offset = off;
		bq.out_capacity = nmin;
		if (q.small_out)
		{
			uint32_t	exp = (uint32_t) (qs.size() == g_naive.size() ?
										  naive(qi).size() : naive_compute(P, q).size());

			bq.out_capacity = exp > 0 ? exp - 1 : 0;
		}
		off += bq.out_capacity + 2;
		T.qv.push_back(bq);
	}
	if (outbuf != nullptr)
	{
		T.b.out = outbuf;
		T.b.out_words = outwords;
	}
	else
	{
		T.out.assign(off + 8, 0xDEADBEEFu);
		T.b.out = T.out.data();
		T.b.out_words = T.out.size();
	}
	T.b.op = GPX_BATCH_INTERSECT;
	T.b.nqueries = (uint32_t) T.qv.size();
	T.b.nlists = (uint32_t) T.lv.size();
	T.b.queries = T.qv.data();
	T.b.lists = T.lv.data();
}

/* Compare a GPU-run batch with the CPU-run one and the naive results. */
static void
compare_batches(const pool &P, const std::vector<tquery> &qs, const tbatch &G,
				const tbatch &C, const char *what)
{
	long		f0 = unit_failed;

	for (size_t i = 0; i < qs.size(); i++)
	{
		const gpx_batch_query &g = G.qv[i],
					&c = C.qv[i];

		if (g.status != c.status || g.out_count != c.out_count)
		{
			CHECKF(false, "%s: query %zu (k=%zu): gpu status %d count %u, cpu status %d count %u",
				   what, i, qs[i].lists.size(), g.status, g.out_count, c.status, c.out_count);
			continue;
		}
		if (g.status == GPX_OK &&
			memcmp(G.b.out + g.out_offset, C.b.out + c.out_offset, (size_t) g.out_count * 4) != 0)
		{
			CHECKF(false, "%s: query %zu results differ", what, i);
			continue;
		}
		/* guard words after the slot's capacity stay untouched */
		if (G.b.out[g.out_offset + g.out_capacity] != 0xDEADBEEFu)
		{
			CHECKF(false, "%s: query %zu wrote past its output slot", what, i);
			continue;
		}
		if (!qs[i].bad && g.status == GPX_OK)
		{
			const std::vector<uint32_t> &nv = naive(i);

			if (nv.size() != g.out_count ||
				(nv.size() > 0 && memcmp(nv.data(), G.b.out + g.out_offset, nv.size() * 4) != 0))
			{
				CHECKF(false, "%s: query %zu differs from the naive merge (%zu vs %u)",
					   what, i, nv.size(), g.out_count);
				continue;
			}
		}
		unit_passed++;
	}
	printf("batch %-34s %zu queries: %s\n", what, qs.size(), unit_failed == f0 ? "ok" : "FAILURES");
}

/*
 * Open a context (devices from --devices, or device 0); a failure's reason
 * goes to stderr and, if why is given, into why[0 .. 512).
 */
static gpx_cuda_status
open_ctx(gpx_cuda_ctx **ctx, size_t cache, size_t batch, const std::vector<int> &devs,
		 char *why = nullptr)
{
	gpx_cuda_options o;
	char		err[512] = "";
	gpx_cuda_status st;

	memset(&o, 0, sizeof(o));
	o.devices = devs.empty() ? NULL : devs.data();
	o.ndevices = (int) devs.size();
	o.cache_bytes = cache;
	o.batch_bytes = batch;
	st = gpx_cuda_open(&o, ctx, err, sizeof(err));
	if (st != GPX_CUDA_OK)
		fprintf(stderr, "gpx_cuda_open: %s: %s\n", gpx_cuda_status_str(st), err);
	if (why != nullptr)
		snprintf(why, 512, "%s", err);
	return st;
}

/* Run the batch on a GPU context and compare with the CPU. */
static void
run_and_compare(gpx_cuda_ctx *ctx, const pool &P, const std::vector<tquery> &qs,
				const tbatch &C, const char *what, gpx_batch_stats *stp,
				uint32_t *outbuf = nullptr, uint64_t outwords = 0)
{
	tbatch		G;
	gpx_batch_stats st;
	gpx_cuda_status s;

	build_batch(P, qs, G, outbuf, outwords);
	if (outbuf != nullptr)
		for (uint64_t i = 0; i < outwords; i++)
			outbuf[i] = 0xDEADBEEFu;
	for (auto &q : G.qv)
		q.status = -1, q.out_count = 12345;
	s = gpx_cuda_run_batch(ctx, &G.b, &st);
	CHECKF(s == GPX_CUDA_OK, "%s: gpx_cuda_run_batch: %s (%s)", what, gpx_cuda_status_str(s),
		   gpx_cuda_last_error(ctx));
	if (s != GPX_CUDA_OK)
		return;
	compare_batches(P, qs, G, C, what);
	if (stp != nullptr)
		*stp = st;
}

/* The batch suite: one CPU reference run, several GPU configurations. */
static void
suite_batch(gpx_cuda_ctx *ctx, gpx_cuda_ctx *ctx_small, gpx_cuda_ctx *ctx_multi)
{
	rng			r = {g_seed ^ 0xBA7C4ull};
	pool		P;
	std::vector<tquery> qs;
	tbatch		C;
	gpx_batch_stats st1,
				st2;
	uint32_t	nbig = g_quick ? 20000 : 400000;
	uint32_t	nq = g_quick ? 150 : 1500;

	make_pool(r, P, nbig);
	qs = make_queries(r, P, nq);
	g_naive.clear();
	for (const tquery &q : qs)
		g_naive.push_back(naive_compute(P, q));
	build_batch(P, qs, C, nullptr, 0);
	CHECKF(gpx_batch_run_cpu(&C.b, 2, NULL) == GPX_OK, "cpu batch");

	memset(&st1, 0, sizeof(st1));
	memset(&st2, 0, sizeof(st2));
	run_and_compare(ctx, P, qs, C, "cold", &st1);
	run_and_compare(ctx, P, qs, C, "warm (cached lists)", &st2);
	CHECKF(st2.cache_hits > 0 && st2.cache_misses <= st1.cache_misses,
		   "warm run: hits %llu misses %llu (cold: hits %llu misses %llu)",
		   (unsigned long long) st2.cache_hits, (unsigned long long) st2.cache_misses,
		   (unsigned long long) st1.cache_hits, (unsigned long long) st1.cache_misses);
	printf("  cold: %llu candidates, %llu results, %llu bytes in, hits %llu misses %llu, "
		   "compute %.3f ms, transfer %.3f ms\n",
		   (unsigned long long) st1.candidates, (unsigned long long) st1.results,
		   (unsigned long long) st1.bytes_in, (unsigned long long) st1.cache_hits,
		   (unsigned long long) st1.cache_misses, st1.compute_ms, st1.transfer_ms);
	printf("  warm: %llu bytes in, hits %llu misses %llu, compute %.3f ms, transfer %.3f ms\n",
		   (unsigned long long) st2.bytes_in, (unsigned long long) st2.cache_hits,
		   (unsigned long long) st2.cache_misses, st2.compute_ms, st2.transfer_ms);
	if (ctx_small != nullptr)
	{
		run_and_compare(ctx_small, P, qs, C, "small cache + staging", &st1);
		run_and_compare(ctx_small, P, qs, C, "small cache + staging again", &st1);
	}
	if (ctx_multi != nullptr)
		run_and_compare(ctx_multi, P, qs, C, "two device contexts", &st1);
	{
		/* output in pinned, mapped memory: results written in place */
		size_t		words = C.b.out_words;
		uint32_t   *pinned = (uint32_t *) aligned_alloc(4096, (words * 4 + 8191) & ~(size_t) 4095);
		gpx_cuda_status s = gpx_cuda_pin(ctx, pinned, words * 4);

		CHECKF(s == GPX_CUDA_OK, "gpx_cuda_pin: %s (%s)", gpx_cuda_status_str(s),
			   gpx_cuda_last_error(ctx));
		run_and_compare(ctx, P, qs, C, "pinned output", &st1, pinned, words);
		/* the pin stays registered until the context closes; keep the memory */
	}
	{
		/*
		 * lists inside a pinned arena, as the executor has them (the copy
		 * then goes straight from the arena for long lists)
		 */
		pool		A;
		size_t		total = 0,
					at = 0;
		uint8_t    *arena;
		tbatch		G;
		gpx_cuda_status s;

		for (int c = GPX_CODEC_MIN; c <= GPX_CODEC_MAX; c++)
			for (const blob &e : P.enc[c])
				total += (e.bytes.size() + 15) & ~(size_t) 15;
		arena = (uint8_t *) aligned_alloc(4096, (total + 64 + 4095) & ~(size_t) 4095);
		A.docs = P.docs;
		for (int c = GPX_CODEC_MIN; c <= GPX_CODEC_MAX; c++)
		{
			A.enc[c] = P.enc[c];
			for (blob &e : A.enc[c])
			{
				memcpy(arena + at, e.bytes.data(), e.bytes.size());
				gpx_open(&e.l, arena + at, e.bytes.size());
				at += (e.bytes.size() + 15) & ~(size_t) 15;
			}
		}
		s = gpx_cuda_pin(ctx_small != nullptr ? ctx_small : ctx, arena, total + 64);
		CHECKF(s == GPX_CUDA_OK, "pin arena: %s", gpx_cuda_status_str(s));
		if (ctx_small != nullptr)
			run_and_compare(ctx_small, A, qs, C, "lists in a pinned arena (small)", &st1);
		s = gpx_cuda_pin(ctx, arena, total + 64);
		CHECKF(s == GPX_CUDA_OK, "pin arena twice: %s", gpx_cuda_status_str(s));
		{
			std::vector<tquery> nh = qs;

			for (tquery &q : nh)
				q.nohash = true;	/* never cached: every list copied */
			run_and_compare(ctx, A, nh, C, "unhashed lists in a pinned arena", &st1);
		}
		(void) G;
		/* the arena stays registered until the contexts close */
	}
	{
		/* every query alone, in its own batch (small batches) */
		long		f0 = unit_failed;
		size_t		nsolo = std::min<size_t>(qs.size(), g_quick ? 20 : 100);

		for (size_t i = 0; i < nsolo; i++)
		{
			std::vector<tquery> one(1, qs[i]);
			tbatch		c1,
						g1;

			build_batch(P, one, c1, nullptr, 0);
			build_batch(P, one, g1, nullptr, 0);
			gpx_batch_run_cpu(&c1.b, 1, NULL);
			if (gpx_cuda_run_batch(ctx, &g1.b, NULL) != GPX_CUDA_OK)
			{
				CHECKF(false, "single query %zu: %s", i, gpx_cuda_last_error(ctx));
				continue;
			}
			CHECKF(g1.qv[0].status == c1.qv[0].status && g1.qv[0].out_count == c1.qv[0].out_count &&
				   memcmp(g1.b.out + g1.qv[0].out_offset, c1.b.out + c1.qv[0].out_offset,
						  (size_t) c1.qv[0].out_count * 4) == 0,
				   "single query %zu", i);
		}
		printf("batch %-34s %zu queries: %s\n", "one query per batch", nsolo,
			   unit_failed == f0 ? "ok" : "FAILURES");
	}
	{
		/* an empty batch */
		gpx_batch	e;

		memset(&e, 0, sizeof(e));
		CHECKF(gpx_cuda_run_batch(ctx, &e, NULL) == GPX_CUDA_OK, "empty batch");
	}
}

/* --------------------------------------------------------------- api -- */

/* API edge cases: bad ordinal, list larger than the cache, describe. */
static void
suite_api(gpx_cuda_ctx *ctx)
{
	rng			r = {g_seed ^ 0xA91ull};
	gpx_cuda_ctx *c2 = nullptr;
	std::vector<int> bad(1, 4096);
	char		desc[1024];

	CHECKF(open_ctx(&c2, 0, 0, bad) == GPX_CUDA_NO_DEVICE && c2 == nullptr,
		   "open with ordinal 4096 gives GPX_CUDA_NO_DEVICE");
	gpx_cuda_describe(ctx, desc, sizeof(desc));
	printf("describe: %s\n", desc);
	CHECKF(strlen(desc) > 10, "describe");

	/* a list larger than a 1 MiB cache: OOM, then the context still works */
	if (open_ctx(&c2, (size_t) 1 << 20, (size_t) 1 << 20, g_devs) == GPX_CUDA_OK)
	{
		std::vector<uint32_t> big = make_list(r, D_UNIFORM, 1500000),
					small = make_list(r, D_UNIFORM, 1000, 100000);
		blob		bb,
					bs;
		gpx_batch	b;
		gpx_batch_query q;
		gpx_batch_list L[2];
		std::vector<uint32_t> out(big.size() + 8);
		gpx_cuda_status s;

		encode(GPX_CODEC_PFOR, big, bb);
		encode(GPX_CODEC_LRC, small, bs);
		memset(&b, 0, sizeof(b));
		memset(&q, 0, sizeof(q));
		L[0].list = bb.l;
		L[0].key = bb.key;
		L[1].list = bs.l;
		L[1].key = bs.key;
		q.first_list = 0;
		q.nlists = 1;
		q.out_capacity = (uint32_t) big.size();
		b.nqueries = 1;
		b.nlists = 2;
		b.queries = &q;
		b.lists = L;
		b.out = out.data();
		b.out_words = out.size();
		s = gpx_cuda_run_batch(c2, &b, NULL);
		CHECKF(s == GPX_CUDA_OOM, "list larger than the cache: %s (%s)",
			   gpx_cuda_status_str(s), gpx_cuda_last_error(c2));
		q.first_list = 1;
		q.out_capacity = (uint32_t) small.size();
		s = gpx_cuda_run_batch(c2, &b, NULL);
		CHECKF(s == GPX_CUDA_OK && q.status == GPX_OK && q.out_count == small.size() &&
			   memcmp(out.data(), small.data(), small.size() * 4) == 0,
			   "context works after OOM: %s", gpx_cuda_last_error(c2));
		CHECKF(gpx_cuda_cache_has(c2, bs.key) == 1 && gpx_cuda_cache_has(c2, bb.key) == 0,
			   "cache_has");
		gpx_cuda_close(c2);
	}
	else
		CHECKF(false, "open small context");
	CHECKF(gpx_cuda_compiled() == 1, "gpx_cuda_compiled");
}

/* --------------------------------------------------------- pipeline -- */

/* A batch of the pipelined runs: its queries, the CPU's run, the GPU's, its job. */
struct pbatch
{
	std::vector<tquery> qs;
	tbatch		C,
				G;
	gpx_cuda_job job;
	bool		back = false;
};

/* Open a context with slots chunk slots per device (and graphs); nullptr on failure. */
static gpx_cuda_ctx *
open_pipe_ctx(size_t cache, size_t batch, const std::vector<int> &devs, int slots, bool graphs)
{
	gpx_cuda_options o;
	gpx_cuda_ctx *ctx = nullptr;
	char		err[512] = "";

	memset(&o, 0, sizeof(o));
	o.devices = devs.empty() ? NULL : devs.data();
	o.ndevices = (int) devs.size();
	o.cache_bytes = cache;
	o.batch_bytes = batch;
	o.slots = slots;
	o.graphs = graphs;
	if (gpx_cuda_open(&o, &ctx, err, sizeof(err)) != GPX_CUDA_OK)
	{
		CHECKF(false, "open a context with %d slots%s: %s", slots, graphs ? " and graphs" : "", err);
		return nullptr;
	}
	return ctx;
}

/* Whether a GPU-run batch equals its CPU run, query by query, guard words intact. */
static bool
pipeline_same(const pbatch &p, size_t *bad)
{
	for (size_t i = 0; i < p.qs.size(); i++)
	{
		const gpx_batch_query &g = p.G.qv[i],
					&c = p.C.qv[i];

		*bad = i;
		if (g.status != c.status || g.out_count != c.out_count ||
			(g.status == GPX_OK &&
			 memcmp(p.G.b.out + g.out_offset, p.C.b.out + c.out_offset, (size_t) g.out_count * 4) != 0) ||
			p.G.b.out[g.out_offset + g.out_capacity] != 0xDEADBEEFu)
			return false;
	}
	return true;
}

/*
 * nb batches of 1..40 random queries through ctx, up to depth submitted at
 * once and handed back in whatever order they finish; every one equals
 * its CPU run.  With arena, every other batch writes its results there
 * (pinned and mapped: the kernels write them in place).
 */
static void
pipeline_run(gpx_cuda_ctx *ctx, const pool &P, rng &r, uint32_t nb, uint32_t depth,
			 const char *what, uint32_t *arena, size_t arena_words)
{
	std::vector<pbatch> B(nb);
	size_t		arena_at = 0;
	uint32_t	next = 0,
				back = 0,
				inflight = 0,
				most = 0;
	long		f0 = unit_failed;

	for (pbatch &p : B)
	{
		p.qs = make_queries(r, P, 1 + (uint32_t) r.below(40));
		for (tquery &q : p.qs)
			q.small_out = false;	/* its capacity needs the naive answer */
		build_batch(P, p.qs, p.C, nullptr, 0);
		gpx_batch_run_cpu(&p.C.b, 2, NULL);
		build_batch(P, p.qs, p.G, nullptr, 0);
		if (arena != nullptr && (&p - &B[0]) % 2 == 1 &&
			arena_at + p.G.out.size() <= arena_words)
		{
			build_batch(P, p.qs, p.G, arena + arena_at, p.G.out.size());
			for (size_t i = 0; i < p.G.out.size(); i++)
				arena[arena_at + i] = 0xDEADBEEFu;
			arena_at += p.G.out.size();
		}
		for (auto &q : p.G.qv)
			q.status = -1, q.out_count = 12345;
	}
	while (back < nb)
	{
		gpx_cuda_job *job;

		while (inflight < depth && next < nb)
		{
			gpx_cuda_status st = gpx_cuda_submit(ctx, &B[next].G.b, &B[next].job);

			CHECKF(st == GPX_CUDA_OK, "%s: submit batch %u: %s", what, next, gpx_cuda_status_str(st));
			if (st != GPX_CUDA_OK)
				return;
			B[next].job.user = &B[next];
			next++;
			inflight++;
			most = std::max(most, (uint32_t) gpx_cuda_pending(ctx));
		}
		job = gpx_cuda_reap(ctx, r.below(3) == 0);
		if (job == nullptr)
			continue;
		{
			pbatch	   *p = (pbatch *) job->user;
			size_t		bad = 0;

			CHECKF(!p->back, "%s: a batch handed back twice", what);
			p->back = true;
			back++;
			inflight--;
			CHECKF(job->status == GPX_CUDA_OK, "%s: batch %zu: %s (%s)", what,
				   (size_t) (p - &B[0]), gpx_cuda_status_str(job->status), job->err);
			if (job->status == GPX_CUDA_OK)
				CHECKF(pipeline_same(*p, &bad), "%s: batch %zu query %zu differs from the cpu",
					   what, (size_t) (p - &B[0]), bad);
		}
	}
	CHECKF(gpx_cuda_pending(ctx) == 0 && gpx_cuda_reap(ctx, true) == nullptr,
		   "%s: nothing left pending", what);
	CHECKF(depth < 2 || most >= 2, "%s: at most %u batches were in flight", what, most);
	printf("pipeline %-31s %u batches, up to %u in flight: %s\n", what, nb, most,
		   unit_failed == f0 ? "ok" : "FAILURES");
}

/*
 * Several batches in flight (gpx_cuda_submit / gpx_cuda_reap): on a
 * context with three slots, on a tiny cache and staging (many chunks,
 * evictions, queries split, uploads other chunks wait for), on two device
 * contexts, with graphs; a batch that fails among others in flight; a
 * cancel with batches in flight; the synchronous call between them.
 */
static void
suite_pipeline(void)
{
	rng			r = {g_seed ^ 0x919E11ull};
	pool		P,
				Pt;				/* for the 1 MiB caches: every query's lists fit */
	gpx_cuda_ctx *c3 = open_pipe_ctx(0, (size_t) 8 << 20, g_devs, 3, false),
			   *tiny = open_pipe_ctx((size_t) 1 << 20, (size_t) 128 << 10, g_devs, 4, false),
			   *graphs = open_pipe_ctx(0, (size_t) 8 << 20, g_devs, 3, true),
			   *tiny_graphs = open_pipe_ctx((size_t) 1 << 20, (size_t) 128 << 10, g_devs, 3, true),
			   *two = nullptr;
	std::vector<int> twodev = g_devs.empty() ? std::vector<int> {0, 0} : g_devs;
	uint32_t	nb = g_quick ? 8 : 40;
	size_t		words = (size_t) 4 << 20;
	uint32_t   *arena = (uint32_t *) aligned_alloc(4096, words * 4);
	char		desc[1024];

	if (twodev.size() == 1)
		twodev.push_back(twodev[0]);
	two = open_pipe_ctx((size_t) 64 << 20, (size_t) 4 << 20, twodev, 2, false);
	make_pool(r, P, g_quick ? 20000 : 200000);
	make_pool(r, Pt, 20000);
	if (c3 != nullptr)
	{
		CHECKF(gpx_cuda_pin(c3, arena, words * 4) == GPX_CUDA_OK, "pin the output arena");
		pipeline_run(c3, P, r, nb, 3, "three slots, depth 3", arena, words);
		pipeline_run(c3, P, r, nb, 1, "three slots, one at a time", arena, words);
		pipeline_run(c3, P, r, nb, 8, "three slots, depth 8", nullptr, 0);
	}
	if (tiny != nullptr)
	{
		pipeline_run(tiny, Pt, r, nb, 4, "tiny cache and staging", nullptr, 0);
		pipeline_run(tiny, Pt, r, nb, 4, "tiny cache and staging again", nullptr, 0);
	}
	if (two != nullptr)
		pipeline_run(two, P, r, nb, 3, "two device contexts", nullptr, 0);
	if (graphs != nullptr)
	{
		pipeline_run(graphs, P, r, nb, 3, "graphs", nullptr, 0);
		pipeline_run(graphs, P, r, nb, 3, "graphs again (updated)", nullptr, 0);
		gpx_cuda_describe(graphs, desc, sizeof(desc));
		CHECKF(strstr(desc, "graphs on (") != nullptr && strstr(desc, "(0 launches") == nullptr,
			   "graphs launched: %s", desc);
	}
	if (tiny_graphs != nullptr)
		pipeline_run(tiny_graphs, Pt, r, nb, 3, "graphs, tiny cache and staging", nullptr, 0);

	/* one batch fails (a list larger than the cache), the others do not */
	if (tiny != nullptr)
	{
		std::vector<uint32_t> big = make_list(r, D_UNIFORM, 600000);
		blob		bb;
		pbatch		ok1,
					ok2;
		gpx_batch	b;
		gpx_batch_query q;
		gpx_batch_list L;
		std::vector<uint32_t> out(big.size() + 8);
		gpx_cuda_job jbig;
		int			nback = 0;
		size_t		bad = 0;

		encode(GPX_CODEC_LRC, big, bb);
		memset(&b, 0, sizeof(b));
		memset(&q, 0, sizeof(q));
		L.list = bb.l;
		L.key = bb.key;
		q.nlists = 1;
		q.out_capacity = (uint32_t) big.size();
		b.nqueries = 1;
		b.nlists = 1;
		b.queries = &q;
		b.lists = &L;
		b.out = out.data();
		b.out_words = out.size();
		for (pbatch *p : {&ok1, &ok2})
		{
			p->qs = make_queries(r, Pt, 20);
			for (tquery &tq : p->qs)
				tq.small_out = false;
			build_batch(Pt, p->qs, p->C, nullptr, 0);
			gpx_batch_run_cpu(&p->C.b, 2, NULL);
			build_batch(Pt, p->qs, p->G, nullptr, 0);
		}
		CHECKF(gpx_cuda_submit(tiny, &ok1.G.b, &ok1.job) == GPX_CUDA_OK &&
			   gpx_cuda_submit(tiny, &b, &jbig) == GPX_CUDA_OK &&
			   gpx_cuda_submit(tiny, &ok2.G.b, &ok2.job) == GPX_CUDA_OK, "submit three");
		for (gpx_cuda_job *j; (j = gpx_cuda_reap(tiny, true)) != nullptr; nback++)
		{
			if (j == &jbig)
				CHECKF(j->status == GPX_CUDA_OOM && strstr(j->err, "larger than the device list cache"),
					   "the batch with a list larger than the cache fails alone: %s (%s)",
					   gpx_cuda_status_str(j->status), j->err);
			else
				CHECKF(j->status == GPX_CUDA_OK &&
					   pipeline_same(j == &ok1.job ? ok1 : ok2, &bad),
					   "the batches beside a failing one: %s (%s), query %zu",
					   gpx_cuda_status_str(j->status), j->err, bad);
		}
		CHECKF(nback == 3, "three batches handed back, %d", nback);
	}

	/* cancel with batches in flight: all come back, then the context works */
	if (c3 != nullptr)
	{
		std::vector<pbatch> B(4);
		int			nback = 0,
					nok = 0;
		size_t		bad = 0;

		for (pbatch &p : B)
		{
			p.qs = make_queries(r, P, 30);
			for (tquery &tq : p.qs)
				tq.small_out = false;
			build_batch(P, p.qs, p.C, nullptr, 0);
			gpx_batch_run_cpu(&p.C.b, 2, NULL);
			build_batch(P, p.qs, p.G, nullptr, 0);
			CHECKF(gpx_cuda_submit(c3, &p.G.b, &p.job) == GPX_CUDA_OK, "submit before cancel");
			p.job.user = &p;
		}
		gpx_cuda_cancel(c3);
		for (gpx_cuda_job *j; (j = gpx_cuda_reap(c3, false)) != nullptr; nback++)
		{
			CHECKF(j->status == GPX_CUDA_OK ||
				   (j->status == GPX_CUDA_ERROR && strcmp(j->err, "cancelled") == 0),
				   "after cancel: %s (%s)", gpx_cuda_status_str(j->status), j->err);
			if (j->status == GPX_CUDA_OK)
			{
				CHECKF(pipeline_same(*(pbatch *) j->user, &bad), "a batch done before the cancel is right");
				nok++;
			}
		}
		CHECKF(nback == 4 && gpx_cuda_pending(c3) == 0, "cancel: %d of 4 handed back", nback);
		printf("pipeline %-31s 4 batches, %d done before it: %s\n", "cancel", nok,
			   nback == 4 ? "ok" : "FAILURES");
		pipeline_run(c3, P, r, nb, 3, "after a cancel", nullptr, 0);
		{
			/* the synchronous call beside batches in flight */
			pbatch		p,
						s;

			for (pbatch *x : {&p, &s})
			{
				x->qs = make_queries(r, P, 25);
				for (tquery &tq : x->qs)
					tq.small_out = false;
				build_batch(P, x->qs, x->C, nullptr, 0);
				gpx_batch_run_cpu(&x->C.b, 2, NULL);
				build_batch(P, x->qs, x->G, nullptr, 0);
			}
			CHECKF(gpx_cuda_submit(c3, &p.G.b, &p.job) == GPX_CUDA_OK, "submit beside a run");
			CHECKF(gpx_cuda_run_batch(c3, &s.G.b, NULL) == GPX_CUDA_OK && pipeline_same(s, &bad),
				   "gpx_cuda_run_batch with a batch in flight");
			CHECKF(gpx_cuda_reap(c3, true) == &p.job && pipeline_same(p, &bad),
				   "and the batch in flight is handed back after it, right");
		}
	}
	for (gpx_cuda_ctx *c : {c3, tiny, graphs, tiny_graphs, two})
	{
		if (c == nullptr)
			continue;
		gpx_cuda_describe(c, desc, sizeof(desc));
		printf("describe pipeline: %s\n", desc);
		gpx_cuda_close(c);
	}
	free(arena);
}

#ifdef GPX_EMU
/*
 * Machines the back end must refuse, played by the emulator: each open
 * fails with the status and the plain words gpuidx_info() shows, and
 * leaves no emulated device memory allocated.
 */
static void
suite_setup(void)
{
	struct
	{
		const char *var;		/* environment variable to set, or NULL */
		const char *val;
		int			ndev;		/* emulated device count */
		gpx_cuda_status st;
		const char *msg;		/* the whole message, or its start */
		bool		prefix;
	}			cases[] = {
		{"GPX_EMU_DRIVER", "0", 1, GPX_CUDA_NO_DRIVER, "no NVIDIA driver found", false},
		{"GPX_EMU_DRIVER", "12020", 1, GPX_CUDA_NO_DRIVER,
		"the NVIDIA driver supports CUDA 12.2, this build of gpuidx needs CUDA 13.0: update the driver", false},
		{NULL, NULL, 0, GPX_CUDA_NO_DEVICE, "no GPU", false},
		{"GPX_EMU_CC", "75", 1, GPX_CUDA_NO_DEVICE,
		"GPU 0 (gpx_emu device 0) has compute capability 7.5; the kernels need 8.0 or newer", false},
		{"GPX_EMU_NO_IMAGE", "1", 1, GPX_CUDA_NO_DEVICE,
		"this build of gpuidx has no kernel image for GPU 0 (gpx_emu device 0, compute capability 9.0)", true},
	};
	int			ndev = gpx_emu().ndev;

	for (const auto &c : cases)
	{
		gpx_cuda_ctx *ctx = nullptr;
		char		why[512];
		gpx_cuda_status st;
		size_t		used = gpx_emu().mem_used[0];

		if (c.var != NULL)
			setenv(c.var, c.val, 1);
		gpx_emu().ndev = c.ndev;
		st = open_ctx(&ctx, 0, 0, std::vector<int>(), why);
		gpx_emu().ndev = ndev;
		if (c.var != NULL)
			unsetenv(c.var);
		CHECKF(st == c.st && ctx == nullptr &&
			   (c.prefix ? strncmp(why, c.msg, strlen(c.msg)) == 0 : strcmp(why, c.msg) == 0),
			   "%s=%s: %s, \"%s\"", c.var ? c.var : "devices", c.val ? c.val : "0",
			   gpx_cuda_status_str(st), why);
		CHECKF(gpx_emu().mem_used[0] == used, "%s: %zu device bytes left allocated",
			   c.var ? c.var : "devices", gpx_emu().mem_used[0] - used);
	}
}

#else

/*
 * Whether this machine has an NVIDIA driver: the kernel module's version
 * file or a loadable libcuda.
 */
static bool
driver_installed(void)
{
	void	   *h;

	if (access("/proc/driver/nvidia/version", F_OK) == 0)
		return true;
	h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
	if (h != nullptr)
		dlclose(h);
	return h != nullptr;
}
#endif

/* Entry point. */
int
main(int argc, char **argv)
{
	gpx_cuda_ctx *ctx = nullptr,
			   *ctx_small = nullptr,
			   *ctx_multi = nullptr;
	gpx_cuda_status st;
	char		why[512];

	for (int i = 1; i < argc; i++)
	{
		if (strcmp(argv[i], "--quick") == 0)
			g_quick = true;
		else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
			g_seed = strtoull(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--format") == 0 && i + 1 < argc)
		{
			const char *f = argv[++i];

			g_passes = strcmp(f, "v2") == 0 ? 1 : strcmp(f, "v1") == 0 ? 2 :
				strcmp(f, "mixed") == 0 ? 4 : strcmp(f, "all") == 0 ? 7 : 0;
			if (g_passes == 0)
			{
				fprintf(stderr, "--format v2|v1|mixed|all\n");
				return 2;
			}
		}
		else if (strcmp(argv[i], "--max-n") == 0 && i + 1 < argc)
			g_max_n = (uint32_t) strtoul(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--devices") == 0 && i + 1 < argc)
		{
			char	   *p = argv[++i];

			while (*p)
			{
				g_devs.push_back((int) strtol(p, &p, 10));
				if (*p == ',')
					p++;
			}
		}
		else
		{
			fprintf(stderr, "usage: %s [--quick] [--seed N] [--max-n N] [--devices a,b] "
					"[--format v2|v1|mixed|all]\n", argv[0]);
			return 2;
		}
	}
	if (g_quick && g_max_n > 100000)
		g_max_n = 100000;
	printf("test_gpu: seed %llu, max n %u%s\n", (unsigned long long) g_seed, g_max_n,
		   g_quick ? ", quick" : "");
#ifdef GPX_EMU
	UNIT_RUN(suite_setup());
#endif
	st = open_ctx(&ctx, 0, 0, g_devs, why);
	if (st == GPX_CUDA_NO_DEVICE || st == GPX_CUDA_NO_DRIVER)
	{
		int			rc;

		/* nothing to test but the reason, where there is no driver at all */
		printf("no usable gpu (%s): the gpu suites are skipped\n", why);
#ifndef GPX_EMU
		if (!driver_installed())
		{
			unit_case_begin("the reason where no driver is installed");
			CHECKF(st == GPX_CUDA_NO_DRIVER && strcmp(why, "no NVIDIA driver found") == 0,
				   "no driver on this machine: %s, \"%s\"", gpx_cuda_status_str(st), why);
		}
#endif
		if (unit_passed + unit_failed == 0)
		{
			/* no case ran: skipped, not one passed case */
			printf("assertions: 0 passed, 0 failed\n0 passed, 0 failed\n");
			return 77;
		}
		rc = unit_finish();
		return rc ? rc : 77;
	}
	unit_case_begin("open the contexts");
	CHECKF(st == GPX_CUDA_OK, "open: %s", gpx_cuda_status_str(st));
	if (st != GPX_CUDA_OK)
		return unit_finish();
	/* tiny cache and staging: eviction, many chunks, split queries */
	if (open_ctx(&ctx_small, (size_t) (g_quick ? 1 : 8) << 20, (size_t) 128 << 10,
				 g_devs) != GPX_CUDA_OK)
		CHECKF(false, "open small context");
	{
		/* two device contexts: every device listed twice, or 0 and 1 */
		std::vector<int> two = g_devs.empty() ? std::vector<int> {0} : g_devs;
		int			count = (int) two.size();

		for (int i = 0; i < count; i++)
			two.push_back(two[i]);
		if (open_ctx(&ctx_multi, (size_t) 64 << 20, (size_t) 4 << 20, two) != GPX_CUDA_OK)
			CHECKF(false, "open two-device context");
	}

	for (int pass = 0; pass < 3; pass++)
	{
		if (!(g_passes & (1u << pass)))
			continue;
		g_mixed = pass == 2;
		g_enc = g_encs[pass];
		printf("-- format pass: %s\n", g_mixed ? "mixed (v1, v2, v2 with EF blocks)" : g_enc_name[pass]);
		unit_case_begin("decode, format %s", g_mixed ? "mixed" : g_enc_name[pass]);
		suite_decode(ctx);
		unit_case_begin("batch, format %s", g_mixed ? "mixed" : g_enc_name[pass]);
		suite_batch(ctx, ctx_small, ctx_multi);
		unit_case_end();
	}
	g_enc = g_encs[0];
	g_mixed = false;
	UNIT_RUN(suite_api(ctx));
	UNIT_RUN(suite_pipeline());
	{
		char		desc[1024];

		if (ctx_small != nullptr)
		{
			gpx_cuda_describe(ctx_small, desc, sizeof(desc));
			printf("describe small: %s\n", desc);
		}
		if (ctx_multi != nullptr)
		{
			gpx_cuda_describe(ctx_multi, desc, sizeof(desc));
			printf("describe multi: %s\n", desc);
		}
	}

	gpx_cuda_close(ctx_multi);
	gpx_cuda_close(ctx_small);
	gpx_cuda_close(ctx);
	return unit_finish();
}
