/*
 * bench_gpu.cu - throughput of the CUDA back end, beside the card's copy
 * bandwidth and the all-core CPU back end of the same machine, in one run.
 *
 *   bench_gpu [--quick] [--no-decode] [--no-isect] [--threads N]
 *             [--queries N] [--codecs pfor,lrc,qs] [--devices a,b,...]
 *             [--decode-size N[,N...]] [--density sparse|dense] [--format 1|2]
 *             [--union] [--union-queries N] [--union-k K]
 *
 * --format: the blob format version of every list (default 2, what the
 * types write; 1: as gpuidx 0.1 wrote them, for an A/B of the kernels).
 *
 * 1. copy   device-to-device cudaMemcpy of 1 GiB (bytes read + written).
 * 2. decode every codec, lists of 10^6, 10^7, 10^8 docIDs ("sparse":
 *           uniform over [0, 2^31); "dense": uniform over [0, 4n)), data
 *           resident on the GPU, the whole-list kernel timed with events
 *           (median of many runs): queued behind a spin kernel (the
 *           GPU's time), launched on an idle GPU (plus launch latency), 20
 *           launches back to back (per launch), and beside them a
 *           write-only kernel of the same grid (the floor of one launch);
 *           docIDs/s and GB/s (compressed bytes read + 4 bytes written per
 *           docID); output checked against the input.
 * 3. isect  GOV2-like batches: 25,205,179 documents in 64 topic ranges,
 *           per topic 4 + 2 + 1 + 1 + 1 + 1 terms of mean lengths 8.6K, 37K,
 *           206K, 364K, 575K, 740K (VLDB 2011 Table 4's stage lengths; 90 /
 *           70 % of a term's postings inside its topic range); queries of
 *           2..6 terms of one topic in proportions 16.1 / 24.5 / 22.8 /
 *           14.8 / 8.2 %; batches cut from the query stream when the summed
 *           shortest-list length reaches c = 256K .. 4M.  GPU: one
 *           gpx_cuda_run_batch per batch (lists cached on the GPU after a
 *           checked warm-up pass, output in pinned memory as in the
 *           executor); CPU: gpx_batch_pool_run with every hardware thread.
 *           Results of every query are compared between the two.
 * 4. union  (--union) disjunctive queries on the same collection: K
 *           (--union-k, default 8) of one topic's 10 terms each,
 *           --union-queries of them (default 100), in batches of 1, 10
 *           and all of them: GPU (gpx_cuda_union_run, lists cached after
 *           a checked warm-up pass, output in pinned mapped memory as in
 *           the executor) against the CPU, one thread (gpx_union_many per
 *           query) and the pool of every thread (gpx_batch_pool_run of the
 *           same batches); the docIDs, then the counts only
 *           (GPX_BQ_COUNT).  Queries/s, input docIDs/s, output docIDs/s;
 *           every answer compared with the one-thread CPU's.
 *
 * Prints markdown tables; figures are this machine's, this run's.
 */
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <string>
#include <thread>
#include <vector>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gpx_codec.h"
#include "gpx_batch.h"
#include "gpx_cuda.h"
#include "gpx_cuda_dev.cuh"
#include "gpx_cuda_union.h"
#include "gpx_setops.h"
#include "gpu_rng.h"

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
	fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(1); } } while (0)

/* The GPU's global nanosecond timer. */
__device__ static inline uint64_t
globaltimer_ns(void)
{
	uint64_t	t;

	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

static int g_threads;
static std::vector<int> g_devs;		/* GPUs for the intersection (default 0) */

/* Run f(i) for i in [0, n) on g_threads threads (dynamic). */
template <typename F>
static void
par_for(size_t n, F f)
{
	std::atomic<size_t> next(0);
	std::vector<std::thread> th;
	int			nt = std::max(1, std::min<int>(g_threads, (int) n));

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

/* Sorted distinct sample of n values in [lo, lo + span), n <= span. */
static void
sample_sorted(rng &r, uint64_t lo, uint64_t span, uint64_t n, std::vector<uint32_t> &out)
{
	size_t		base = out.size();

	if (n == 0)
		return;
	if (n * 3 >= span)
	{
		/* dense: Bernoulli over the range, then trim/top up */
		double		p = (double) n / span;

		for (uint64_t x = 0; x < span; x++)
			if (r.unit() < p)
				out.push_back((uint32_t) (lo + x));
	}
	else
		for (uint64_t k = 0; k < n; k++)
			out.push_back((uint32_t) (lo + r.below(span)));
	std::sort(out.begin() + base, out.end());
	out.erase(std::unique(out.begin() + base, out.end()), out.end());
	while (out.size() - base > n)
		out.erase(out.begin() + base + r.below(out.size() - base));
	while (out.size() - base < n)
	{
		uint32_t	x = (uint32_t) (lo + r.below(span));
		auto		it = std::lower_bound(out.begin() + base, out.end(), x);

		if (it == out.end() || *it != x)
			out.insert(it, x);
	}
}

/* The format version the lists are written in (--format). */
static gpx_encode_opts g_fmt = {2, 0};

/* Append the varint of v. */
static void
put_varint(std::vector<uint8_t> &b, uint32_t v)
{
	while (v >= 0x80)
	{
		b.push_back((uint8_t) (v | 0x80));
		v >>= 7;
	}
	b.push_back((uint8_t) v);
}

/*
 * Encode docs into blob with codec in g_fmt's version, in parallel pieces
 * (whole blocks, each with a directory) stitched together.
 */
static void
encode_par(int codec, const std::vector<uint32_t> &docs, std::vector<uint8_t> &blob)
{
	uint32_t	n = (uint32_t) docs.size();
	uint32_t	lg = codec == GPX_CODEC_PFOR ? 7 : 8;
	size_t		piece = (size_t) 1 << 20;	/* multiple of every block size */
	size_t		np = (n + piece - 1) / piece;
	std::vector<std::vector<uint8_t>> parts(np);
	size_t		len = 0;

	if (codec == GPX_CODEC_QS || np <= 1)
	{
		size_t		cap = gpx_encode_bound_ex(codec, n, n ? docs.back() : 0, &g_fmt);

		blob.assign(cap, 0);
		if (gpx_encode_ex(codec, docs.data(), n, &g_fmt, blob.data(), cap, &len) != GPX_OK)
		{
			fprintf(stderr, "encode failed\n");
			exit(1);
		}
		blob.resize(len);
		return;
	}
	par_for(np, [&](size_t p)
			{
				size_t		a = p * piece,
							m = std::min(piece, (size_t) n - a);
				size_t		cap = gpx_encode_bound_ex(codec, (uint32_t) m, docs[a + m - 1], &g_fmt);
				size_t		l = 0;

				parts[p].assign(cap, 0);
				if (gpx_encode_ex(codec, docs.data() + a, (uint32_t) m, &g_fmt, parts[p].data(),
								  cap, &l) != GPX_OK)
				{
					fprintf(stderr, "encode failed\n");
					exit(1);
				}
				parts[p].resize(l);
			});
	{
		/* stitch: one header, directories with shifted offsets, payloads */
		uint32_t	nb = 0;
		uint64_t	pw = 0;
		std::vector<uint32_t> dir;
		std::vector<uint8_t> payload;

		for (auto &pt : parts)
		{
			gpx_list	l;

			gpx_open(&l, pt.data(), pt.size());
			for (uint32_t k = 0; k < l.nblocks; k++)
			{
				dir.push_back(gpx_dir_first(&l, k));
				/* v1: word offsets; v2: byte offset << 2 | kind */
				dir.push_back(g_fmt.version == 1 ?
							  (uint32_t) (gpx_dir_offset(&l, k) + pw) :
							  (uint32_t) (gpx_dir_offset(&l, k) + (pw << 4)));
			}
			payload.insert(payload.end(), l.payload, l.payload + l.payload_bytes);
			pw += l.payload_bytes / 4;
			nb += l.nblocks;
		}
		if (g_fmt.version != 1)
		{
			/* v2: tag, info (blocks), n, first, last - first, pad to 4 */
			if (dir.size() != 2 * (size_t) nb || nb < 2 ||
				parts.back().size() < 2 || (parts.back()[0] & 15) != 0)
			{
				/* a piece of one block (no directory): encode in one go */
				size_t		cap = gpx_encode_bound_ex(codec, n, docs.back(), &g_fmt);

				blob.assign(cap, 0);
				if (gpx_encode_ex(codec, docs.data(), n, &g_fmt, blob.data(), cap, &len) != GPX_OK)
					exit(1);
				blob.resize(len);
				return;
			}
			blob.clear();
			blob.push_back((uint8_t) (0x80 | (codec << 5)));
			put_varint(blob, 2);
			put_varint(blob, n);
			put_varint(blob, docs[0]);
			put_varint(blob, docs[n - 1] - docs[0]);
			while (blob.size() & 3)
				blob.push_back(0);
			blob.insert(blob.end(), (uint8_t *) dir.data(), (uint8_t *) (dir.data() + dir.size()));
			blob.insert(blob.end(), payload.begin(), payload.end());
			return;
		}
		blob.assign(32, 0);
		blob[0] = GPX_FORMAT_V1;
		blob[1] = (uint8_t) codec;
		blob[2] = (uint8_t) lg;
		blob[3] = 0;
		{
			uint32_t	h[7] = {n, docs[0], docs[n - 1], nb, (uint32_t) payload.size(), 0, 0};

			memcpy(blob.data() + 4, h, sizeof(h));
		}
		blob.insert(blob.end(), (uint8_t *) dir.data(), (uint8_t *) (dir.data() + dir.size()));
		blob.insert(blob.end(), payload.begin(), payload.end());
	}
}

/* ------------------------------------------------------------ copy -- */

/* Device-to-device copy bandwidth (read + write), GB/s. */
static double
copy_bandwidth(void)
{
	size_t		bytes = (size_t) 1 << 30;
	void	   *a,
			   *b;
	cudaEvent_t e0,
				e1;
	float		ms;
	std::vector<float> t;

	CK(cudaMalloc(&a, bytes));
	CK(cudaMalloc(&b, bytes));
	CK(cudaMemset(a, 1, bytes));
	CK(cudaEventCreate(&e0));
	CK(cudaEventCreate(&e1));
	for (int i = 0; i < 23; i++)
	{
		CK(cudaEventRecord(e0));
		CK(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice));
		CK(cudaEventRecord(e1));
		CK(cudaEventSynchronize(e1));
		CK(cudaEventElapsedTime(&ms, e0, e1));
		if (i >= 3)
			t.push_back(ms);
	}
	std::sort(t.begin(), t.end());
	cudaFree(a);
	cudaFree(b);
	return 2.0 * bytes / (t[t.size() / 2] * 1e-3) / 1e9;
}

/* ---------------------------------------------------------- decode -- */

/*
 * Keep the GPU busy for about `ns` nanoseconds, so that the launches the
 * host queues behind it are already waiting when it ends: events around a
 * kernel queued this way time the kernel on the GPU, not the host's launch.
 */
__global__ void
bench_spin(uint64_t ns)
{
	uint64_t	t0 = globaltimer_ns();

	while (globaltimer_ns() - t0 < ns)
		;
}

/*
 * The write-only reference of a decode launch: the same grid (one warp
 * per list block of 2^log2_block docIDs, GPX_D_WARPS warps per
 * thread-block) writing the same n words with 16-byte stores and reading
 * nothing.  Its time is what a single launch of that shape costs before
 * any decoding: the floor a one-list decode can approach.
 */
__global__ void __launch_bounds__(GPX_D_THREADS)
bench_write_only(uint32_t *out, uint32_t n, uint32_t log2_block)
{
	uint32_t	lane = threadIdx.x & 31;
	uint32_t	blk = blockIdx.x * GPX_D_WARPS + (threadIdx.x >> 5);
	uint32_t	bs = 1u << log2_block;
	uint32_t   *o = out + ((size_t) blk << log2_block);

	if (((size_t) blk << log2_block) >= n)
		return;
	for (uint32_t j = 4 * lane; j < bs; j += 128)
		if (((size_t) blk << log2_block) + j + 4 <= n)
			*(uint4 *) (o + j) = make_uint4(blk, j, lane, n);
}

/* A kernel that does nothing: what a timed launch costs with no work. */
__global__ void
bench_empty(void)
{
}

/*
 * Ms between events e0 and e1 around launch(), which queues reps
 * launches; queued: behind a spin kernel of 50 + 10 reps us, so that the
 * events time the GPU's work, not the host's launches.
 */
template <typename Launch>
static float
bench_events_ms(cudaEvent_t e0, cudaEvent_t e1, bool queued, int reps, Launch launch)
{
	float		m;

	if (queued)
		bench_spin<<<1, 1>>>(50000 + 10000 * (uint64_t) reps);
	CK(cudaEventRecord(e0));
	launch();
	CK(cudaEventRecord(e1));
	CK(cudaEventSynchronize(e1));
	CK(cudaEventElapsedTime(&m, e0, e1));
	return m;
}

/*
 * Median ms of an empty one-warp launch timed like the decode table's
 * "kernel" column (bench_events_ms, queued): the part of every kernel
 * time there that no kernel can save.
 */
static float
bench_empty_ms(void)
{
	cudaEvent_t e0,
				e1;
	std::vector<float> t;

	CK(cudaEventCreate(&e0));
	CK(cudaEventCreate(&e1));
	for (int i = 0; i < 200; i++)
		t.push_back(bench_events_ms(e0, e1, true, 1, [] { bench_empty<<<1, 32>>>(); }));
	CK(cudaGetLastError());
	cudaEventDestroy(e0);
	cudaEventDestroy(e1);
	std::sort(t.begin(), t.end());
	return t[t.size() / 2];
}

/* Decode: only lists of these sizes (empty: the default sizes). */
static std::vector<uint64_t> g_dec_sizes;

/* Decode: only sparse (0) or dense (1) lists; -1: both. */
static int	g_density = -1;

/*
 * Decode: > 0, each case is only this many launches, one at a time (no
 * timing), each output checked: for a profiler to time the kernel
 * (test/gpu/decode_ncu_time.sh).
 */
static int	g_dec_launches = 0;

/* Launches per timing in the back-to-back decode figure. */
#define BENCH_B2B	20

/* Decode throughput table for every codec, size and density. */
static void
bench_decode(bool quick, const std::vector<int> &codecs, double copy_gbs)
{
	std::vector<uint64_t> sizes = quick ? std::vector<uint64_t> {1000000, 10000000} :
		std::vector<uint64_t> {1000000, 10000000, 100000000};

	if (!g_dec_sizes.empty())
		sizes = g_dec_sizes;

	printf("\n## Decode (whole list, data resident on the GPU)\n\n");
	printf("kernel: events around a launch queued behind a 50 us spin kernel (the GPU's\n"
		   "time for the kernel); with launch: events around a launch on an idle GPU\n"
		   "(adds the host's launch latency); back to back: %d launches queued in a\n"
		   "row between the two events, time per launch (one launch's event and\n"
		   "dispatch overhead spread over %d); write-only: a kernel of the same grid\n"
		   "that writes the same n words and decodes nothing, timed like kernel.\n"
		   "Medians of many runs.\n\n", BENCH_B2B, BENCH_B2B);
	if (g_dec_launches > 0)
	{
		/* profiler mode: the empty kernel's launches too, one at a time */
		for (int i = 0; i < g_dec_launches; i++)
		{
			bench_empty<<<1, 32>>>();
			CK(cudaDeviceSynchronize());
		}
		printf("empty kernel: %d launches\n\n", g_dec_launches);
	}
	else
		printf("empty kernel (one warp, timed like kernel): %.4f ms\n\n", bench_empty_ms());
	printf("| codec | docIDs | density | bits/docID | kernel ms | G docIDs/s | GB/s | of copy bw | with launch ms | G docIDs/s with launch | back to back ms | G docIDs/s back to back | write-only ms | check |\n");
	printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
	for (uint64_t n : sizes)
		for (int dense = 0; dense < 2; dense++)
		{
			if (g_density >= 0 && dense != g_density)
				continue;

			rng			r = {n * 31 + dense};
			std::vector<uint32_t> docs;
			uint64_t	universe = dense ? 4 * n : ((uint64_t) 1 << 31);

			{
				/* sorted distinct: random gaps with the right mean */
				double		mean = (double) universe / n;
				uint64_t	x = r.below((uint64_t) mean);

				docs.resize(n);
				for (uint64_t i = 0; i < n; i++)
				{
					docs[i] = (uint32_t) x;
					x += 1 + r.below((uint64_t) (2 * mean - 1));
					if (x > GPX_MAX_DOCID)
						x = GPX_MAX_DOCID;
				}
				/* the tail may have been clamped: make it strictly increasing */
				for (uint64_t i = n - 1; i > 0 && docs[i] <= docs[i - 1]; i--)
					docs[i - 1] = docs[i] - 1;
			}
			for (int codec : codecs)
			{
				std::vector<uint8_t> blob;
				gpx_list	l;
				gpx_dl		dl;
				uint8_t    *d_blob;
				uint32_t   *d_out;
				cudaEvent_t e0,
							e1;
				std::vector<float> t,
							tq,
							tw,
							tb;
				float		ms,
							msq,
							msw,
							msb;
				double		tot = 0;
				bool		ok;
				std::vector<uint32_t> back(n);

				encode_par(codec, docs, blob);
				if (gpx_open(&l, blob.data(), blob.size()) != GPX_OK)
				{
					printf("| %s | %llu | - | stitched blob does not open |\n",
						   gpx_codec_name(codec), (unsigned long long) n);
					continue;
				}
				/*
				 * the blob with its zero padding to 16 bytes, as the back end
				 * keeps it (GPX_BLOB_PAD in cuda/gpx_cuda_host.cuh)
				 */
				CK(cudaMalloc(&d_blob, (blob.size() + 15) / 16 * 16));
				CK(cudaMalloc(&d_out, n * 4 + 512));
				CK(cudaMemset(d_blob, 0, (blob.size() + 15) / 16 * 16));
				CK(cudaMemcpy(d_blob, blob.data(), blob.size(), cudaMemcpyHostToDevice));
				CK(cudaMemset(d_out, 0xA5, n * 4));
				{
					/* the device view, as the back end makes it */
					gpx_devview v;

					memset(&dl, 0, sizeof(dl));
					if (gpx_dev_view(&l, &v) != GPX_OK)
					{
						printf("| %s | %llu | - | no device view |\n",
							   gpx_codec_name(codec), (unsigned long long) n);
						continue;
					}
					dl.dir = v.dir_off ? d_blob + v.dir_off : nullptr;
					dl.payload = d_blob + v.payload_off;
					dl.n = l.n;
					dl.nblocks = l.nblocks;
					dl.first = l.first;
					dl.last = l.last;
					dl.payload_words = v.payload_words;
					dl.payload_bytes = v.payload_bytes;
					dl.payload_bit = v.payload_bit;
					dl.qs_low_words = v.qs_low_words;
					dl.dir_stride = v.dir_stride;
					dl.codec = l.codec;
					dl.param = l.param;
					dl.log2_block = l.log2_block;
					dl.version = v.version;
					dl.kind0 = v.kind0;
				}
				/* one decode into a poisoned output, read back and compared */
				auto decode_checked = [&] {
					CK(cudaMemset(d_out, 0xA5, n * 4));
					CK(gpx_cuda_k_decode_list(&dl, d_out, 0));
					CK(cudaMemcpy(back.data(), d_out, n * 4, cudaMemcpyDeviceToHost));
					return back == docs;
				};

				if (g_dec_launches > 0)
				{
					/* profiler mode: launches one at a time, each output checked */
					ok = true;
					for (int i = 0; i < g_dec_launches; i++)
						ok &= decode_checked();
					printf("| %s | %.0e | %s | %.2f | launches %d | %s |\n",
						   gpx_codec_name(codec), (double) n, dense ? "dense (4n)" : "sparse (2^31)",
						   8.0 * blob.size() / n, g_dec_launches, ok ? "equal" : "DIFFERS");
					fflush(stdout);
					cudaFree(d_blob);
					cudaFree(d_out);
					continue;
				}
				CK(cudaEventCreate(&e0));
				CK(cudaEventCreate(&e1));
				for (int i = 0; i < 3; i++)
					CK(gpx_cuda_k_decode_list(&dl, d_out, 0));
				CK(cudaDeviceSynchronize());
				/*
				 * One timed launch (reps: that many launches back to back,
				 * time per launch), queued behind a spin kernel or on an idle
				 * GPU; write_only: the reference kernel instead of the decoder.
				 */
				auto time_once = [&](bool queued, bool write_only = false, int reps = 1) {
					return bench_events_ms(e0, e1, queued, reps, [&] {
						for (int k = 0; k < reps; k++)
						{
							if (write_only)
								bench_write_only<<<(l.nblocks + GPX_D_WARPS - 1) / GPX_D_WARPS,
									GPX_D_THREADS>>>(d_out, (uint32_t) n, l.log2_block);
							else
								CK(gpx_cuda_k_decode_list(&dl, d_out, 0));
						}
					}) / reps;
				};
				for (int i = 0; i < 400 && (i < 10 || tot < 300); i++)
				{
					t.push_back(time_once(false));
					tot += t.back();
				}
				for (size_t i = 0; i < t.size(); i++)
					tq.push_back(time_once(true));
				for (size_t i = 0; i < t.size(); i++)
					tw.push_back(time_once(true, true));
				for (size_t i = 0; i < t.size() && i < 50; i++)
					tb.push_back(time_once(true, false, BENCH_B2B));
				CK(cudaGetLastError());
				std::sort(t.begin(), t.end());
				std::sort(tq.begin(), tq.end());
				std::sort(tw.begin(), tw.end());
				std::sort(tb.begin(), tb.end());
				ms = t[t.size() / 2];
				msq = tq[tq.size() / 2];
				msw = tw[tw.size() / 2];
				msb = tb[tb.size() / 2];
				/* decode again: the output checked is the decoder's */
				ok = decode_checked();
				{
					double		gd = n / (msq * 1e-3) / 1e9;
					double		gb = (blob.size() + 4.0 * n) / (msq * 1e-3) / 1e9;

					printf("| %s | %.0e | %s | %.2f | %.4f | %.1f | %.0f | %.0f%% | %.4f | %.1f | %.4f | %.1f | %.4f | %s |\n",
						   gpx_codec_name(codec), (double) n, dense ? "dense (4n)" : "sparse (2^31)",
						   8.0 * blob.size() / n, msq, gd, gb, 100 * gb / copy_gbs,
						   ms, n / (ms * 1e-3) / 1e9, msb, n / (msb * 1e-3) / 1e9,
						   msw, ok ? "equal" : "DIFFERS");
				}
				fflush(stdout);
				cudaFree(d_blob);
				cudaFree(d_out);
				cudaEventDestroy(e0);
				cudaEventDestroy(e1);
			}
		}
}

/* ----------------------------------------------------------- isect -- */

static const uint32_t GOV2_DOCS = 25205179;

/* Subkeys of list identity for the benchmark: all zero (any will do). */
static const gpx_keyset bench_keys = {};

/* The synthetic collection: term lists and their encodings. */
struct collection
{
	int			topics;
	std::vector<std::vector<uint32_t>> docs;
	std::vector<int> cls;		/* class 1..6 of each term */
	std::vector<std::vector<int>> by_topic_class;	/* [topic*7+class] -> terms */
	std::vector<std::vector<uint8_t>> blob[GPX_CODEC_MAX + 1];
	std::vector<gpx_list> view[GPX_CODEC_MAX + 1];
	std::vector<gpx_key> key[GPX_CODEC_MAX + 1];
};

/* Build the GOV2-like collection (see the file comment). */
static void
make_collection(collection &C, int topics, const std::vector<int> &codecs)
{
	static const double mean_len[7] = {0, 8600, 37000, 206000, 364000, 575000, 740000};
	static const int per_topic[7] = {0, 4, 2, 1, 1, 1, 1};
	uint64_t	S = GOV2_DOCS / topics;
	std::vector<std::pair<int, int>> terms;	/* (topic, class) */
	double		t0 = now();
	uint64_t	total = 0;

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
	C.cls.resize(terms.size());
	par_for(terms.size(), [&](size_t i)
			{
				rng			r = {0xC0FFEEull + i * 7919};
				int			t = terms[i].first,
							c = terms[i].second;
				/* lognormal length around the class mean (sigma 0.5) */
				double		len = mean_len[c] * exp(0.5 * r.normal() - 0.125);
				uint64_t	n = (uint64_t) std::max(200.0, std::min(len, GOV2_DOCS / 3.0));
				double		phi = c <= 2 ? 0.9 : 0.7;
				uint64_t	nin = std::min<uint64_t>((uint64_t) (phi * n), S / 2);
				std::vector<uint32_t> in,
							out,
							all;

				sample_sorted(r, (uint64_t) t * S, S, nin, in);
				sample_sorted(r, 0, GOV2_DOCS, n - nin, out);
				all.resize(in.size() + out.size());
				std::merge(in.begin(), in.end(), out.begin(), out.end(), all.begin());
				all.erase(std::unique(all.begin(), all.end()), all.end());
				C.docs[i].swap(all);
				C.cls[i] = c;
			});
	for (auto &d : C.docs)
		total += d.size();
	for (int codec : codecs)
	{
		C.blob[codec].resize(terms.size());
		C.view[codec].resize(terms.size());
		C.key[codec].resize(terms.size());
		par_for(terms.size(), [&](size_t i)
				{
					const std::vector<uint32_t> &d = C.docs[i];
					size_t		cap = gpx_encode_bound_ex(codec, (uint32_t) d.size(), d.back(), &g_fmt);
					size_t		len = 0;
					std::vector<uint8_t> &b = C.blob[codec][i];

					b.assign(cap, 0);
					gpx_encode_ex(codec, d.data(), (uint32_t) d.size(), &g_fmt, b.data(), cap, &len);
					b.resize(len);
					gpx_open(&C.view[codec][i], b.data(), len);
					C.key[codec][i] = gpx_key_content(&bench_keys, 0, b.data(), len);
				});
	}
	printf("collection: %d topics, %zu terms, %.1f M postings, built in %.1f s\n",
		   topics, terms.size(), total / 1e6, now() - t0);
	for (int codec : codecs)
	{
		size_t		bytes = 0;

		for (auto &b : C.blob[codec])
			bytes += b.size();
		printf("  %s: %.1f MB, %.2f bits/docID\n", gpx_codec_name(codec), bytes / 1e6,
			   8.0 * bytes / total);
	}
}

/* A query: term ids. */
typedef std::vector<int> query;

/* The query stream (proportions of 2..6 terms as in GOV2). */
static std::vector<query>
make_queries(const collection &C, size_t nq, uint64_t seed)
{
	static const double prop[5] = {16.1, 24.5, 22.8, 14.8, 8.2};
	std::vector<query> qs;
	rng			r = {seed};
	double		sum = 0,
				shortest = 0;
	size_t		cnt[7] = {0};

	for (double p : prop)
		sum += p;
	for (size_t i = 0; i < nq; i++)
	{
		double		u = r.unit() * sum;
		int			k = 2;
		int			t = (int) r.below(C.topics);
		query		q;
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
		/* terms in random order: the back end orders them itself */
		for (int j = k - 1; j > 0; j--)
			std::swap(q[j], q[r.below(j + 1)]);
		for (int id : q)
			mn = std::min(mn, C.docs[id].size());
		shortest += mn;
		cnt[k]++;
		qs.push_back(q);
	}
	printf("queries: %zu; 2..6 terms: %.1f / %.1f / %.1f / %.1f / %.1f %%; mean shortest list %.0f\n",
		   nq, 100.0 * cnt[2] / nq, 100.0 * cnt[3] / nq, 100.0 * cnt[4] / nq,
		   100.0 * cnt[5] / nq, 100.0 * cnt[6] / nq, shortest / nq);
	return qs;
}

/* One batch: descriptor plus storage. */
struct tbatch
{
	gpx_batch	b;
	std::vector<gpx_batch_query> q;
	std::vector<gpx_batch_list> l;
	uint32_t   *out;
	uint64_t	out_words;
	uint64_t	postings;
};

/* Cut the query stream into batches at threshold c (summed shortest). */
static std::vector<tbatch>
make_batches(const collection &C, int codec, const std::vector<query> &qs, uint64_t c,
			 uint32_t *outbuf, uint64_t outwords)
{
	std::vector<tbatch> bs;
	size_t		i = 0;

	while (i < qs.size())
	{
		tbatch		t;
		uint64_t	off = 0;

		t.postings = 0;
		while (i < qs.size() && t.postings < c)
		{
			gpx_batch_query bq;
			uint32_t	mn = UINT32_MAX;

			memset(&bq, 0, sizeof(bq));
			bq.first_list = (uint32_t) t.l.size();
			bq.nlists = (uint32_t) qs[i].size();
			for (int id : qs[i])
			{
				gpx_batch_list bl;

				bl.list = C.view[codec][id];
				bl.key = C.key[codec][id];
				t.l.push_back(bl);
				mn = std::min<uint32_t>(mn, bl.list.n);
			}
			bq.out_offset = off;
			bq.out_capacity = mn;
			off += mn;
			t.postings += mn;
			t.q.push_back(bq);
			i++;
		}
		if (off > outwords)
		{
			fprintf(stderr, "output area too small\n");
			exit(1);
		}
		t.out = outbuf;
		t.out_words = outwords;
		bs.push_back(std::move(t));
	}
	for (tbatch &t : bs)
	{
		t.b.op = GPX_BATCH_INTERSECT;
		t.b.nqueries = (uint32_t) t.q.size();
		t.b.nlists = (uint32_t) t.l.size();
		t.b.queries = t.q.data();
		t.b.lists = t.l.data();
		t.b.out = t.out;
		t.b.out_words = t.out_words;
	}
	return bs;
}

/* 64-bit hash of a query's result. */
static uint64_t
result_hash(const uint32_t *v, uint32_t n)
{
	uint64_t	h = 1469598103934665603ull ^ n;

	for (uint32_t i = 0; i < n; i++)
		h = (h ^ v[i]) * 1099511628211ull;
	return h;
}

/* Batched intersection: GPU vs all-core CPU on the same batches. */
static void
bench_isect(bool quick, const std::vector<int> &codecs, size_t nq)
{
	collection	C;
	std::vector<query> qs;
	std::vector<uint64_t> cs = {256u << 10, 512u << 10, 1u << 20, 2u << 20, 4u << 20};
	gpx_cuda_ctx *ctx = nullptr;
	gpx_cuda_options o;
	char		err[512];
	gpx_batch_pool *pool = nullptr;
	uint64_t	outwords = (uint64_t) 48 << 20;
	uint32_t   *gout = (uint32_t *) aligned_alloc(4096, outwords * 4);
	uint32_t   *cout_ = (uint32_t *) aligned_alloc(4096, outwords * 4);

	printf("\n## Batched intersection, GOV2-like (%zu GPU%s vs %d CPU threads)\n\n",
		   g_devs.empty() ? (size_t) 1 : g_devs.size(), g_devs.size() > 1 ? "s" : "", g_threads);
	make_collection(C, quick ? 16 : 64, codecs);
	qs = make_queries(C, nq, 4242);
	memset(&o, 0, sizeof(o));
	o.devices = g_devs.empty() ? NULL : g_devs.data();
	o.ndevices = (int) g_devs.size();
	o.cache_bytes = (size_t) 4 << 30;
	o.batch_bytes = (size_t) 256 << 20;
	if (gpx_cuda_open(&o, &ctx, err, sizeof(err)) != GPX_CUDA_OK)
	{
		printf("gpu: %s\n", err);
		return;
	}
	if (gpx_cuda_pin(ctx, gout, outwords * 4) != GPX_CUDA_OK)
		printf("(output not pinned: %s)\n", gpx_cuda_last_error(ctx));
	if (gpx_batch_pool_create(g_threads, &pool) != GPX_OK)
	{
		printf("cpu pool failed\n");
		return;
	}
	memset(gout, 0, outwords * 4);
	memset(cout_, 0, outwords * 4);
	printf("| codec | c | batches | queries/batch | GPU queries/s | GPU kernel-only queries/s | "
		   "CPU queries/s | GPU / CPU | GPU ms/batch | host us/batch: plan/build/issue/wait/collect | checked |\n");
	printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
	for (int codec : codecs)
		for (uint64_t c : cs)
		{
			std::vector<tbatch> gb = make_batches(C, codec, qs, c, gout, outwords),
						cb = make_batches(C, codec, qs, c, cout_, outwords);
			gpx_batch_stats st;
			double		prof[5];
			double		t0,
						tg,
						tc,
						kms = 0;
			long		bad = 0;
			size_t		nqs = qs.size();

			/* warm-up pass: fills the GPU cache; every query checked */
			for (size_t k = 0; k < gb.size(); k++)
			{
				gpx_cuda_status s = gpx_cuda_run_batch(ctx, &gb[k].b, &st);

				if (s != GPX_CUDA_OK)
				{
					printf("gpu batch failed: %s (%s)\n", gpx_cuda_status_str(s),
						   gpx_cuda_last_error(ctx));
					return;
				}
				gpx_batch_pool_run(pool, &cb[k].b, NULL);
				for (size_t j = 0; j < gb[k].q.size(); j++)
				{
					const gpx_batch_query &g = gb[k].q[j],
								&h = cb[k].q[j];

					if (g.status != h.status || g.out_count != h.out_count ||
						result_hash(gout + g.out_offset, g.out_count) !=
						result_hash(cout_ + h.out_offset, h.out_count))
						bad++;
				}
			}
			/* timed passes */
			gpx_cuda_host_profile(ctx, prof, true);
			t0 = now();
			for (size_t k = 0; k < gb.size(); k++)
			{
				gpx_cuda_run_batch(ctx, &gb[k].b, &st);
				kms += st.compute_ms;
			}
			tg = now() - t0;
			gpx_cuda_host_profile(ctx, prof, true);
			t0 = now();
			for (size_t k = 0; k < cb.size(); k++)
				gpx_batch_pool_run(pool, &cb[k].b, NULL);
			tc = now() - t0;
			printf("| %s | %lluK | %zu | %.1f | %.0f | %.0f | %.0f | %.1fx | %.3f | "
				   "%.0f/%.0f/%.0f/%.0f/%.0f | %s |\n",
				   gpx_codec_name(codec), (unsigned long long) (c >> 10), gb.size(),
				   (double) nqs / gb.size(), nqs / tg, nqs / (kms * 1e-3), nqs / tc,
				   tc / tg, 1e3 * tg / gb.size(),
				   1e3 * prof[0] / gb.size(), 1e3 * prof[1] / gb.size(), 1e3 * prof[2] / gb.size(),
				   1e3 * prof[3] / gb.size(), 1e3 * prof[4] / gb.size(),
				   bad ? "MISMATCH" : "equal");
			if (bad)
				printf("   %ld queries differ between GPU and CPU\n", bad);
			fflush(stdout);
		}
	{
		char		d[1024];

		gpx_cuda_describe(ctx, d, sizeof(d));
		printf("\ngpu: %s\n", d);
	}
	gpx_batch_pool_destroy(pool);
	gpx_cuda_close(ctx);
}

/* One batch of the pipelined runs: qpb queries with their own CPU answers. */
struct pbatch
{
	gpx_batch	b;
	std::vector<gpx_batch_query> q;
	std::vector<gpx_batch_list> l;
	std::vector<uint64_t> want;	/* hash of each query's CPU result */
	std::vector<uint32_t> want_n;
	gpx_cuda_job job;
	int			region = -1;
};

/*
 * Small batches back to back, as the executor sends them under many
 * clients: qpb queries per batch, run one at a time (gpx_cuda_run_batch)
 * and with up to depth batches in flight (gpx_cuda_submit / reap) on a
 * context of depth + 1 chunk slots, with graphs off and on; each batch's
 * results go to a region of a pinned output area that no batch in flight
 * shares.  An untimed pass checks every answer against the CPU's first.
 */
static void
bench_pipeline(bool quick, const std::vector<int> &codecs, size_t nq)
{
	collection	C;
	std::vector<query> qs;
	std::vector<uint32_t> qpbs = {1, 4, 16, 64};
	struct
	{
		int			depth;
		bool		graphs;
	}			modes[] = {{1, false}, {2, false}, {4, false}, {2, true}, {4, true}};
	gpx_batch_pool *pool = nullptr;

	printf("\n## Batches in flight: small batches back to back (gpx_cuda_submit / gpx_cuda_reap)\n\n");
	make_collection(C, quick ? 16 : 64, codecs);
	qs = make_queries(C, std::min<size_t>(nq, quick ? 4000 : 20000), 4343);
	if (gpx_batch_pool_create(g_threads, &pool) != GPX_OK)
	{
		printf("cpu pool failed\n");
		return;
	}
	printf("| codec | queries/batch | depth | graphs | queries/s | x one at a time | us/batch | checked |\n");
	printf("|---|---|---|---|---|---|---|---|\n");
	for (int codec : codecs)
		for (uint32_t qpb : qpbs)
		{
			std::vector<pbatch> B;
			uint64_t	rwords = 0;
			double		base = 0;

			/* the batches, their output need, their CPU answers */
			for (size_t i = 0; i < qs.size(); i += qpb)
			{
				pbatch		pb;
				uint64_t	off = 0;
				std::vector<uint32_t> out;

				for (size_t j = i; j < std::min(qs.size(), i + qpb); j++)
				{
					gpx_batch_query bq;
					uint32_t	mn = UINT32_MAX;

					memset(&bq, 0, sizeof(bq));
					bq.first_list = (uint32_t) pb.l.size();
					bq.nlists = (uint32_t) qs[j].size();
					for (int id : qs[j])
					{
						gpx_batch_list bl;

						bl.list = C.view[codec][id];
						bl.key = C.key[codec][id];
						pb.l.push_back(bl);
						mn = std::min<uint32_t>(mn, bl.list.n);
					}
					bq.out_offset = off;
					bq.out_capacity = mn;
					off += mn;
					pb.q.push_back(bq);
				}
				rwords = std::max(rwords, off);
				B.push_back(std::move(pb));
			}
			for (pbatch &pb : B)
			{
				pb.b.op = GPX_BATCH_INTERSECT;
				pb.b.nqueries = (uint32_t) pb.q.size();
				pb.b.nlists = (uint32_t) pb.l.size();
				pb.b.queries = pb.q.data();
				pb.b.lists = pb.l.data();
			}
			par_for(B.size(), [&](size_t k)
					{
						pbatch	   &pb = B[k];
						std::vector<gpx_batch_query> q = pb.q;
						std::vector<uint32_t> out(rwords + 1);
						gpx_batch	b = pb.b;

						b.queries = q.data();
						b.out = out.data();
						b.out_words = out.size();
						gpx_batch_run_cpu(&b, 1, NULL);
						for (const gpx_batch_query &x : q)
						{
							pb.want.push_back(x.status == GPX_OK ?
											  result_hash(out.data() + x.out_offset, x.out_count) : 0);
							pb.want_n.push_back(x.status == GPX_OK ? x.out_count : UINT32_MAX);
						}
					});
			for (const auto &m : modes)
			{
				gpx_cuda_options o;
				gpx_cuda_ctx *ctx = nullptr;
				char		err[512];
				int			nreg = m.depth + 1;
				uint32_t   *area = (uint32_t *) aligned_alloc(4096, ((nreg * (rwords + 16) * 4 + 4095) / 4096) * 4096);
				std::vector<bool> busy(nreg, false);
				long		bad = 0;
				double		t = 0;

				memset(&o, 0, sizeof(o));
				o.devices = g_devs.empty() ? NULL : g_devs.data();
				o.ndevices = (int) g_devs.size();
				o.cache_bytes = (size_t) 4 << 30;
				o.batch_bytes = (size_t) 64 << 20;
				o.no_timing = true;
				o.slots = m.depth + 1;
				o.graphs = m.graphs;
				if (gpx_cuda_open(&o, &ctx, err, sizeof(err)) != GPX_CUDA_OK)
				{
					printf("gpu: %s\n", err);
					free(area);
					continue;
				}
				gpx_cuda_pin(ctx, area, nreg * (rwords + 16) * 4);
				for (int pass = 0; pass < 2; pass++)
				{
					size_t		next = 0,
								back = 0;
					int			inflight = 0;
					double		t0 = now();
					/* a batch is back: check it (first pass), free its region */
					auto		finish = [&](pbatch *d, bool ok)
					{
						if (!ok)
							bad++;
						else if (pass == 0)
							for (size_t x = 0; x < d->q.size(); x++)
								if (d->q[x].out_count != d->want_n[x] ||
									result_hash(d->b.out + d->q[x].out_offset,
												d->q[x].out_count) != d->want[x])
									bad++;
						busy[d->region] = false;
						back++;
					};

					while (back < B.size())
					{
						gpx_cuda_job *j;

						while (inflight < m.depth && next < B.size())
						{
							pbatch	   &pb = B[next++];
							int			r = 0;

							while (busy[r])
								r++;
							busy[r] = true;
							pb.region = r;
							pb.b.out = area + (size_t) r * (rwords + 16);
							pb.b.out_words = rwords + 16;
							pb.job.user = &pb;
							if (m.depth == 1)	/* one at a time: the synchronous call */
								finish(&pb, gpx_cuda_run_batch(ctx, &pb.b, NULL) == GPX_CUDA_OK);
							else if (gpx_cuda_submit(ctx, &pb.b, &pb.job) != GPX_CUDA_OK)
								finish(&pb, false);
							else
								inflight++;
						}
						if (inflight == 0)
							continue;
						j = gpx_cuda_reap(ctx, true);
						if (j == nullptr)
							break;
						inflight--;
						finish((pbatch *) j->user, j->status == GPX_CUDA_OK);
					}
					t = now() - t0;
				}
				if (m.depth == 1 && !m.graphs)
					base = qs.size() / t;
				printf("| %s | %u | %d | %s | %.0f | %.2f | %.1f | %s |\n", gpx_codec_name(codec),
					   qpb, m.depth, m.graphs ? "on" : "off", qs.size() / t,
					   base > 0 ? qs.size() / t / base : 0.0, 1e6 * t / B.size(),
					   bad ? "MISMATCH" : "equal");
				fflush(stdout);
				if (qpb == qpbs.back() && codec == codecs.back())
				{
					char		d[1024];

					gpx_cuda_describe(ctx, d, sizeof(d));
					printf("\ngpu (depth %d, graphs %s): %s\n\n", m.depth, m.graphs ? "on" : "off", d);
				}
				gpx_cuda_close(ctx);
				free(area);
			}
		}
	gpx_batch_pool_destroy(pool);
}

/* The union queries: k distinct terms of one topic each. */
static std::vector<query>
make_union_queries(const collection &C, size_t nq, int k, uint64_t seed)
{
	std::vector<query> qs;
	rng			r = {seed};
	double		in = 0;

	for (size_t i = 0; i < nq; i++)
	{
		int			t = (int) r.below(C.topics);
		query		all,
					q;

		for (int c = 1; c <= 6; c++)
			for (int id : C.by_topic_class[t * 7 + c])
				all.push_back(id);
		for (int j = (int) all.size() - 1; j > 0; j--)
			std::swap(all[j], all[r.below(j + 1)]);
		for (int j = 0; j < k && j < (int) all.size(); j++)
			q.push_back(all[j]);
		for (int id : q)
			in += C.docs[id].size();
		qs.push_back(q);
	}
	printf("union queries: %zu of %d terms; mean %.2f M docIDs in\n", nq, k, in / nq / 1e6);
	return qs;
}

/* A union batch over qs[a, b) on codec: queries, lists (keyed), out offsets in area. */
struct ubatch
{
	gpx_batch	b;
	std::vector<gpx_batch_query> q;
	std::vector<gpx_batch_list> l;
};

/* Lay the queries qs[a, b) out as a union batch into out (room: sum of n each). */
static void
make_union_batch(const collection &C, int codec, const std::vector<query> &qs, size_t a,
				 size_t b, bool count, uint32_t *out, uint64_t outwords, ubatch &u)
{
	uint64_t	off = 0;

	u.q.clear();
	u.l.clear();
	for (size_t i = a; i < b; i++)
	{
		gpx_batch_query bq;
		uint64_t	sum = 0;

		memset(&bq, 0, sizeof(bq));
		bq.first_list = (uint32_t) u.l.size();
		bq.nlists = (uint32_t) qs[i].size();
		for (int id : qs[i])
		{
			gpx_batch_list bl;

			bl.list = C.view[codec][id];
			bl.key = C.key[codec][id];
			u.l.push_back(bl);
			sum += C.docs[id].size();
		}
		bq.flags = count ? GPX_BQ_COUNT : 0;
		bq.out_offset = count ? 0 : off;
		bq.out_capacity = count ? 0 : (uint32_t) sum;
		bq.status = -1;
		off += count ? 0 : sum;
		u.q.push_back(bq);
	}
	if (off > outwords)
	{
		fprintf(stderr, "union output area too small\n");
		exit(1);
	}
	memset(&u.b, 0, sizeof(u.b));
	u.b.op = GPX_BATCH_UNION;
	u.b.nqueries = (uint32_t) u.q.size();
	u.b.nlists = (uint32_t) u.l.size();
	u.b.queries = u.q.data();
	u.b.lists = u.l.data();
	u.b.out = out;
	u.b.out_words = outwords;
}

/* Batched union: GPU vs one CPU thread vs every CPU thread, same batches. */
static void
bench_union(bool quick, const std::vector<int> &codecs, size_t nq, int k)
{
	collection	C;
	std::vector<query> qs;
	gpx_cuda_ctx *ctx = nullptr;
	gpx_cuda_options o;
	char		err[512];
	gpx_batch_pool *pool = nullptr,
			   *pool1 = nullptr;
	uint64_t	outwords = 0;
	uint32_t   *gout,
			   *cout_;
	std::vector<size_t> qpbs = {1, 10, nq};

	printf("\n## Batched union, GOV2-like (1 GPU vs 1 and %d CPU threads)\n\n", g_threads);
	make_collection(C, quick ? 16 : 64, codecs);
	qs = make_union_queries(C, nq, k, 1818);
	for (const query &q : qs)
		for (int id : q)
			outwords += C.docs[id].size();
	outwords += 16;
	gout = (uint32_t *) aligned_alloc(4096, (outwords * 4 + 4095) / 4096 * 4096);
	cout_ = (uint32_t *) aligned_alloc(4096, (outwords * 4 + 4095) / 4096 * 4096);
	memset(&o, 0, sizeof(o));
	o.cache_bytes = (size_t) 4 << 30;
	o.batch_bytes = (size_t) 256 << 20;
	if (gpx_cuda_open(&o, &ctx, err, sizeof(err)) != GPX_CUDA_OK)
	{
		printf("gpu: %s\n", err);
		return;
	}
	if (gpx_cuda_pin(ctx, gout, outwords * 4) != GPX_CUDA_OK)
		printf("(output not pinned: %s)\n", gpx_cuda_last_error(ctx));
	if (gpx_batch_pool_create(g_threads, &pool) != GPX_OK ||
		gpx_batch_pool_create(1, &pool1) != GPX_OK)
	{
		printf("cpu pool failed\n");
		return;
	}
	memset(gout, 0, outwords * 4);
	memset(cout_, 0, outwords * 4);
	printf("| codec | mode | queries/batch | GPU q/s | CPU 1 thread q/s | CPU %d threads q/s | "
		   "GPU / CPU 1 | GPU / CPU %d | GPU M docIDs in/s | GPU M docIDs out/s | GPU ms/batch | "
		   "GPU device ms/batch: decode / merge | checked |\n", g_threads, g_threads);
	printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
	for (int codec : codecs)
		for (int count = 0; count < 2; count++)
			for (size_t qpb : qpbs)
			{
				size_t		nb = (nq + qpb - 1) / qpb;
				std::vector<ubatch> gb(nb),
							cb(nb);
				double		t0,
							tg,
							t1,
							tc,
							in = 0,
							out = 0,
							dms = 0,
							mms = 0;
				long		bad = 0;
				gpx_cuda_union_stats st;

				for (size_t i = 0; i < nb; i++)
				{
					size_t		a = i * qpb,
								b = std::min(nq, a + qpb);

					make_union_batch(C, codec, qs, a, b, count, gout, outwords, gb[i]);
					make_union_batch(C, codec, qs, a, b, count, cout_, outwords, cb[i]);
				}
				/* warm-up pass (fills the GPU cache), every query checked */
				for (size_t i = 0; i < nb; i++)
				{
					gpx_cuda_status s = gpx_cuda_union_run(ctx, &gb[i].b, &st);

					if (s != GPX_CUDA_OK)
					{
						printf("gpu union failed: %s (%s)\n", gpx_cuda_status_str(s),
							   gpx_cuda_last_error(ctx));
						return;
					}
					gpx_batch_pool_run(pool1, &cb[i].b, NULL);
					for (size_t j = 0; j < gb[i].q.size(); j++)
					{
						const gpx_batch_query &g = gb[i].q[j],
									&h = cb[i].q[j];

						if (g.status != GPX_OK || g.status != h.status ||
							g.out_count != h.out_count ||
							(!count && result_hash(gout + g.out_offset, g.out_count) !=
							 result_hash(cout_ + h.out_offset, h.out_count)))
							bad++;
						out += h.out_count;
					}
				}
				for (const query &q : qs)
					for (int id : q)
						in += C.docs[id].size();
				/* timed: the GPU, one CPU thread, every CPU thread */
				t0 = now();
				for (size_t i = 0; i < nb; i++)
				{
					gpx_cuda_union_run(ctx, &gb[i].b, &st);
					dms += st.decode_ms;
					mms += st.merge_ms;
				}
				tg = now() - t0;
				t1 = now();
				for (size_t i = 0; i < nb; i++)
					gpx_batch_pool_run(pool1, &cb[i].b, NULL);
				t1 = now() - t1;
				t0 = now();
				for (size_t i = 0; i < nb; i++)
					gpx_batch_pool_run(pool, &cb[i].b, NULL);
				tc = now() - t0;
				printf("| %s | %s | %zu | %.1f | %.1f | %.1f | %.1fx | %.1fx | %.0f | %.0f | %.2f | "
					   "%.2f / %.2f | %s |\n",
					   gpx_codec_name(codec), count ? "count" : "docIDs", qpb, nq / tg, nq / t1,
					   nq / tc, t1 / tg, tc / tg, in / tg / 1e6, out / tg / 1e6,
					   1e3 * tg / nb, dms / nb, mms / nb, bad ? "MISMATCH" : "equal");
				if (bad)
					printf("   %ld queries differ between GPU and CPU\n", bad);
				fflush(stdout);
			}
	{
		char		d[1024];

		gpx_cuda_describe(ctx, d, sizeof(d));
		printf("\ngpu: %s\n", d);
	}
	gpx_batch_pool_destroy(pool);
	gpx_batch_pool_destroy(pool1);
	gpx_cuda_close(ctx);
	free(gout);
	free(cout_);
}

/* Entry point. */
int
main(int argc, char **argv)
{
	bool		quick = false,
				dec = true,
				isect = true,
				pipe = false,
				uni = false;
	size_t		nq = 0,
				unq = 0;
	int			unk = 8;
	std::vector<int> codecs = {GPX_CODEC_PFOR, GPX_CODEC_LRC, GPX_CODEC_QS};
	cudaDeviceProp p;
	int			dev = 0;
	double		bw;
	char		host[256] = "";
	time_t		tnow = time(NULL);

	g_threads = (int) std::thread::hardware_concurrency();
	for (int i = 1; i < argc; i++)
	{
		if (strcmp(argv[i], "--quick") == 0)
			quick = true;
		else if (strcmp(argv[i], "--no-decode") == 0)
			dec = false;
		else if (strcmp(argv[i], "--no-isect") == 0)
			isect = false;
		else if (strcmp(argv[i], "--pipeline") == 0)
			pipe = true;
		else if (strcmp(argv[i], "--union") == 0)
			uni = true;
		else if (strcmp(argv[i], "--union-queries") == 0 && i + 1 < argc)
			unq = (size_t) atol(argv[++i]);
		else if (strcmp(argv[i], "--union-k") == 0 && i + 1 < argc)
			unk = atoi(argv[++i]);
		else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
			g_threads = atoi(argv[++i]);
		else if (strcmp(argv[i], "--devices") == 0 && i + 1 < argc)
		{
			char	   *q = argv[++i];

			while (*q)
			{
				g_devs.push_back((int) strtol(q, &q, 10));
				if (*q == ',')
					q++;
			}
		}
		else if (strcmp(argv[i], "--decode-size") == 0 && i + 1 < argc)
		{
			char	   *q = argv[++i];

			while (*q)
			{
				uint64_t	sz = strtoull(q, &q, 10);

				if (sz != 0)
					g_dec_sizes.push_back(sz);
				if (*q != ',')
					break;
				q++;
			}
		}
		else if (strcmp(argv[i], "--density") == 0 && i + 1 < argc &&
				 (strcmp(argv[i + 1], "sparse") == 0 || strcmp(argv[i + 1], "dense") == 0))
			g_density = strcmp(argv[++i], "dense") == 0;
		else if (strcmp(argv[i], "--decode-launches") == 0 && i + 1 < argc)
			g_dec_launches = atoi(argv[++i]);
		else if (strcmp(argv[i], "--queries") == 0 && i + 1 < argc)
			nq = (size_t) atol(argv[++i]);
		else if (strcmp(argv[i], "--format") == 0 && i + 1 < argc &&
				 (strcmp(argv[i + 1], "1") == 0 || strcmp(argv[i + 1], "2") == 0))
			g_fmt.version = atoi(argv[++i]);
		else if (strcmp(argv[i], "--codecs") == 0 && i + 1 < argc)
		{
			std::string s = argv[++i];

			codecs.clear();
			if (s.find("pfor") != std::string::npos)
				codecs.push_back(GPX_CODEC_PFOR);
			if (s.find("lrc") != std::string::npos)
				codecs.push_back(GPX_CODEC_LRC);
			if (s.find("qs") != std::string::npos)
				codecs.push_back(GPX_CODEC_QS);
		}
		else
		{
			fprintf(stderr, "usage: %s [--quick] [--no-decode] [--no-isect] [--pipeline] [--threads N] "
					"[--queries N] [--codecs pfor,lrc,qs] [--devices a,b] "
					"[--decode-size N[,N...]] [--density sparse|dense] [--format 1|2] [--decode-launches N] "
					"[--union] [--union-queries N] [--union-k K]\n", argv[0]);
			return 2;
		}
	}
	if (g_threads < 1)
		g_threads = 1;
	if (nq == 0)
		nq = quick ? 4000 : 40000;
	if (unq == 0)
		unq = quick ? 20 : 100;
	if (unk < 1)
		unk = 1;
	if (cudaGetDeviceProperties(&p, dev) != cudaSuccess)
	{
		printf("no gpu\n");
		return 77;
	}
	gethostname(host, sizeof(host) - 1);
	printf("# bench_gpu: %s, %s (%d SMs, %.1f GiB, L2 %d MiB), %d CPU threads, format %d, "
		   "decode kernels GPX_DEC_FAST=%d, %s",
		   host, p.name, p.multiProcessorCount, p.totalGlobalMem / (double) (1 << 30),
		   p.l2CacheSize >> 20, g_threads, g_fmt.version, GPX_DEC_FAST, ctime(&tnow));
	bw = copy_bandwidth();
	printf("\ndevice-to-device copy: %.0f GB/s (bytes read + written, 1 GiB, median of 20)\n", bw);
	if (dec)
		bench_decode(quick, codecs, bw);
	if (isect)
		bench_isect(quick, codecs, nq);
	if (pipe)
		bench_pipeline(quick, codecs, nq);
	if (uni)
		bench_union(quick, codecs, unq, unk);
	return 0;
}
