/*
 * test_s8b.cu - the device decoding of Simple-8b frequency blocks
 * (cuda/gpx_s8b_dev.cuh) against the CPU codec (src/codec/gpx_simple8b.c),
 * value for value:
 *
 *   warp   gpx_s8b_dev_block_warp, one warp per block, on sections encoded
 *          by the CPU with both packings and bases 0 and 1, blocks of 128,
 *          256 and odd sizes: random frequencies (geometric of several
 *          means, with rare huge values), all ones, runs of 120 / 240 ones
 *          and their neighbours, values at every selector width boundary,
 *          2^31-1, one-value and short last blocks, blocks of more than 32
 *          words (several rounds); sections 8-byte and 4-byte aligned, the
 *          readable words ending exactly at the section's end; the word
 *          count returned = gpx_s8b_block_bytes / 8;
 *   nth    gpx_s8b_dev_nth for random positions of the same blocks.
 *
 *   test_s8b [--quick] [--seed N]
 *
 * Counts with the unit-test harness (test/unit/unit.h), one case per
 * packing: its closing lines, assertions then "N passed, N failed" of the
 * cases; exits 1 on any failure, 77 (skip) when no usable GPU is present.  Built by nvcc (make -f cuda/cuda.mk gpucheck)
 * or, with -DGPX_EMU, against the host emulation (emucheck).
 */
#include <vector>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpx_s8b_dev.cuh"
#include "unit.h"

#define WARPS 8					/* warps per thread-block */

#include "gpu_rng.h"
#include "gpu_test.h"

/* Warp w of the grid decodes block w of the section. */
__global__ void
s8b_warp_kernel(const uint32_t *words, uint32_t nwords, const uint32_t *bword,
				const uint32_t *bcount, const uint32_t *bout, uint32_t nblocks,
				uint32_t base, uint32_t *out, uint32_t *used)
{
	uint32_t	lane = threadIdx.x & 31,
				b = blockIdx.x * WARPS + (threadIdx.x >> 5);

	if (b >= nblocks)
		return;					/* whole warps: blockDim is a multiple of 32 */
	{
		uint32_t	u = gpx_s8b_dev_block_warp(words + 2 * bword[b], nwords - bword[b],
											   bcount[b], base, out + bout[b], lane);

		if (lane == 0)
			used[b] = u;
	}
}

/* Thread t reads value pidx[t] of block pblk[t]. */
__global__ void
s8b_nth_kernel(const uint32_t *words, uint32_t nwords, const uint32_t *bword,
			   const uint32_t *bcount, const uint32_t *pblk, const uint32_t *pidx,
			   uint32_t nprobes, uint32_t base, uint32_t *out)
{
	uint32_t	t = blockIdx.x * blockDim.x + threadIdx.x;

	if (t < nprobes)
	{
		uint32_t	b = pblk[t];

		out[t] = gpx_s8b_dev_nth(words + 2 * bword[b], nwords - bword[b], bcount[b], base,
								 pidx[t]);
	}
}

/* Copy a host vector to a new device buffer (at least 4 bytes). */
template <typename T>
static T *
to_dev(const std::vector<T> &v, size_t extra_front = 0)
{
	void	   *p = nullptr;
	size_t		bytes = (v.size() + extra_front) * sizeof(T);

	if (cudaMalloc(&p, bytes ? bytes : 4) != cudaSuccess)
	{
		fprintf(stderr, "cudaMalloc of %zu bytes failed\n", bytes);
		exit(1);
	}
	if (!v.empty())
		cudaMemcpy((T *) p + extra_front, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice);
	return (T *) p;
}

/* A test section: values, block size, base, name. */
struct tcase
{
	std::vector<uint32_t> v;
	uint32_t	block;
	uint32_t	base;
	char		name[96];
};

/*
 * Encode c with the packing, decode it on the device (warp per block and
 * random single values) at an 8- or 4-byte aligned start, compare with the
 * CPU decoder.
 */
static void
run_case(const tcase &c, gpx_s8b_packing pack, bool offset4, rng &r)
{
	uint32_t	n = (uint32_t) c.v.size();
	std::vector<uint8_t> enc(gpx_s8b_encode_bound(n) + 8);
	size_t		len = 0;
	gpx_status	st = gpx_s8b_encode(c.v.data(), n, c.block, c.base, pack, enc.data(),
									enc.size(), &len);
	std::vector<uint32_t> words, bword, bcount, bout, cpu(n + 1), pblk, pidx;
	uint32_t	nblocks = (n + c.block - 1) / c.block,
				nwords = (uint32_t) (len / 8);

	CHECKF(st == GPX_OK && gpx_s8b_validate(enc.data(), len, n, c.block, c.base) == GPX_OK,
		   "%s: CPU encode/validate: %s", c.name, gpx_status_str(st));
	if (st != GPX_OK)
		return;
	words.resize(len / 4);
	memcpy(words.data(), enc.data(), len);
	/* the CPU's view: block starts and values */
	{
		size_t		pos = 0;

		for (uint32_t b = 0; b < nblocks; b++)
		{
			uint32_t	cnt = n - b * c.block < c.block ? n - b * c.block : c.block;

			bword.push_back((uint32_t) (pos / 8));
			bcount.push_back(cnt);
			bout.push_back(b * c.block);
			pos += gpx_s8b_decode_block(enc.data() + pos, cnt, c.base, cpu.data() + b * c.block);
		}
		CHECKF(pos == len && memcmp(cpu.data(), c.v.data(), 4 * (size_t) n) == 0,
			   "%s: CPU decode", c.name);
	}
	for (uint32_t k = 0; k < (n < 64 ? n : 64u + n / 16); k++)
	{
		uint32_t	b = (uint32_t) r.below(nblocks);

		pblk.push_back(b);
		pidx.push_back((uint32_t) r.below(bcount[b]));
	}
	if (nblocks == 0)
		return;

	{
		/* the section starts 4 bytes into its buffer when offset4 */
		uint32_t   *dall = to_dev(words, offset4 ? 1 : 0),
				   *dwords = dall + (offset4 ? 1 : 0),
				   *dbw = to_dev(bword),
				   *dbc = to_dev(bcount),
				   *dbo = to_dev(bout),
				   *dpb = to_dev(pblk),
				   *dpi = to_dev(pidx),
				   *dout,
				   *dused,
				   *dnth;
		std::vector<uint32_t> gout(n), gused(nblocks), gnth(pblk.size());
		uint32_t	bad = 0,
					badused = 0,
					badnth = 0;

		cudaMalloc((void **) &dout, 4 * (size_t) n);
		cudaMalloc((void **) &dused, 4 * (size_t) nblocks);
		cudaMalloc((void **) &dnth, 4 * (pblk.size() + 1));
		cudaMemset(dout, 0xEE, 4 * (size_t) n);
		GPX_LAUNCH(s8b_warp_kernel, (nblocks + WARPS - 1) / WARPS, 32 * WARPS, (cudaStream_t) 0,
				   (const uint32_t *) dwords, nwords, (const uint32_t *) dbw,
				   (const uint32_t *) dbc, (const uint32_t *) dbo, nblocks, c.base, dout, dused);
		if (!pblk.empty())
			GPX_LAUNCH(s8b_nth_kernel, ((uint32_t) pblk.size() + 255) / 256, 256, (cudaStream_t) 0,
					   (const uint32_t *) dwords, nwords, (const uint32_t *) dbw,
					   (const uint32_t *) dbc, (const uint32_t *) dpb, (const uint32_t *) dpi,
					   (uint32_t) pblk.size(), c.base, dnth);
		st = cudaDeviceSynchronize() == cudaSuccess ? GPX_OK : GPX_E_ARG;
		CHECKF(st == GPX_OK, "%s: kernel: %s", c.name, cudaGetErrorString(cudaGetLastError()));
		cudaMemcpy(gout.data(), dout, 4 * (size_t) n, cudaMemcpyDeviceToHost);
		cudaMemcpy(gused.data(), dused, 4 * (size_t) nblocks, cudaMemcpyDeviceToHost);
		if (!pblk.empty())
			cudaMemcpy(gnth.data(), dnth, 4 * pblk.size(), cudaMemcpyDeviceToHost);
		for (uint32_t i = 0; i < n; i++)
			bad += gout[i] != cpu[i];
		for (uint32_t b = 0; b < nblocks; b++)
			badused += gused[b] != (b + 1 < nblocks ? bword[b + 1] : nwords) - bword[b];
		for (size_t k = 0; k < pblk.size(); k++)
			badnth += gnth[k] != cpu[bout[pblk[k]] + pidx[k]];
		CHECKF(bad == 0, "%s (%s, %s): %u of %u values differ from the CPU's", c.name,
			   pack == GPX_S8B_OPTIMAL ? "optimal" : "greedy", offset4 ? "offset 4" : "aligned",
			   bad, n);
		CHECKF(badused == 0, "%s: %u blocks report a wrong word count", c.name, badused);
		CHECKF(badnth == 0, "%s: %u of %zu single values differ", c.name, badnth, pblk.size());
		cudaFree(dall);
		cudaFree(dbw);
		cudaFree(dbc);
		cudaFree(dbo);
		cudaFree(dpb);
		cudaFree(dpi);
		cudaFree(dout);
		cudaFree(dused);
		cudaFree(dnth);
	}
}

/* 1 + a geometric value of mean m, now and then a huge one. */
static uint32_t
rnd_tf(rng &r, double m)
{
	uint32_t	v = 1;
	uint64_t	p = (uint64_t) (1e9 * m / (m + 1.0));

	if (r.below(2000) == 0)
		return 1 + (uint32_t) r.below(GPX_S8B_MAX_VALUE);
	while (v < 1000000 && r.below(1000000000) < p)
		v++;
	return v;
}

/* The test sections. */
static std::vector<tcase>
make_cases(rng &r, bool quick)
{
	static const uint32_t widths[] = {1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 15, 20, 30, 31};
	static const uint32_t runs[] = {1, 119, 120, 121, 239, 240, 241, 256, 480, 1000};
	std::vector<tcase> cs;
	tcase		c;

	for (uint32_t base = 0; base <= 1; base++)
	{
		for (uint32_t block : {128u, 256u})
		{
			/* random frequencies of several means, lengths up to a few blocks */
			for (int k = 0; k < (quick ? 6 : 24); k++)
			{
				double		m = 0.1 + (double) r.below(60) / 10.0;
				uint32_t	n = k == 0 ? 1 : (uint32_t) r.below(k < 4 ? 300 : 5000);

				c.v.clear();
				for (uint32_t i = 0; i < n; i++)
					c.v.push_back(base + rnd_tf(r, m) - 1);
				c.block = block;
				c.base = base;
				snprintf(c.name, sizeof(c.name), "random mean %.1f n %u block %u base %u", m, n,
						 block, base);
				cs.push_back(c);
			}
			/* runs of the base value, and runs broken by one value */
			for (uint32_t len : runs)
			{
				c.v.assign(len, base);
				c.block = block;
				c.base = base;
				snprintf(c.name, sizeof(c.name), "run of %u block %u base %u", len, block, base);
				cs.push_back(c);
				c.v[len / 2] = base + 3;
				snprintf(c.name, sizeof(c.name), "broken run of %u block %u base %u", len, block, base);
				cs.push_back(c);
			}
		}
		/* width boundaries, 2^31-1, and blocks of many words (several rounds) */
		for (uint32_t w : widths)
		{
			c.v.clear();
			for (uint32_t i = 0; i < 700; i++)
			{
				uint64_t	x = ((uint64_t) 1 << w) - 1 + (i & 1) + base;

				c.v.push_back(x > GPX_S8B_MAX_VALUE ? GPX_S8B_MAX_VALUE : (uint32_t) x);
			}
			for (uint32_t block : {256u, 1000u, 1u, 7u})
			{
				c.block = block;
				c.base = base;
				snprintf(c.name, sizeof(c.name), "width %u boundary block %u base %u", w, block, base);
				cs.push_back(c);
			}
		}
		/* mixed widths with rare maxima, odd block sizes */
		c.v.clear();
		for (uint32_t i = 0; i < 3000; i++)
		{
			uint32_t	w = (uint32_t) r.below(32);

			c.v.push_back(w == 31 ? GPX_S8B_MAX_VALUE : base + (uint32_t) r.below((uint64_t) 1 << w));
		}
		for (uint32_t block : {128u, 256u, 33u, 4096u})
		{
			c.block = block;
			c.base = base;
			snprintf(c.name, sizeof(c.name), "mixed widths block %u base %u", block, base);
			cs.push_back(c);
		}
	}
	return cs;
}

/* Entry point. */
int
main(int argc, char **argv)
{
	bool		quick = false;
	uint64_t	seed = 8;

	gpu_test_args(argc, argv, &quick, &seed);
	printf("test_s8b: seed %llu%s\n", (unsigned long long) seed, quick ? ", quick" : "");
	{
		rng			r = {seed};
		std::vector<tcase> cs = make_cases(r, quick);

		for (int p = 0; p < 2; p++)
		{
			unit_case_begin("%zu sections, %s packing", cs.size(),
							p == GPX_S8B_GREEDY ? "greedy" : "optimal");
			for (size_t i = 0; i < cs.size(); i++)
				run_case(cs[i], (gpx_s8b_packing) p, ((i + p) & 1) != 0, r);
		}
	}
	return unit_finish();
}
