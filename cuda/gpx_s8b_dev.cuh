/*
 * gpx_s8b_dev.cuh - device decoding of Simple-8b frequency blocks (format:
 * src/codec/gpx_simple8b.h), for the CUDA kernels that score postings.
 *
 * The words come as little-endian 32-bit halves from a 4-byte aligned
 * pointer (blob payloads are word arrays, not necessarily 8-byte aligned);
 * the blocks are trusted (validated on the host), and reads never go past
 * the `avail` words the caller says are there, whatever they hold.  Word
 * reading is gpx_s8b_selector / gpx_s8b_count / gpx_s8b_field, the same
 * inline code as the CPU decoder, so GPU and CPU decode bit for bit.
 *
 * gpx_s8b_dev_block_warp: one warp decodes one block (a docID block's
 * frequencies: 128 or 256 values).  Per round of 32 words: lane l loads
 * word l (one coalesced 256-byte load), a warp scan of the per-word counts
 * gives every word's first output index, a ballot finds the words inside
 * the block; then the lanes produce output positions j = lane, lane + 32,
 * ...: each finds the word holding j by a 5-step binary search over the
 * scanned counts (shuffles), takes that word and its start by shuffle and
 * extracts field j - start.  Stores are coalesced and every lane does the
 * same work (ceil(total / 32) values), whatever the mix of selectors.  On
 * paper this beats the alternatives: one thread per block serialises 128 to
 * 256 dependent extractions and scatters its loads and stores, and one lane
 * per word leaves the warp waiting for its widest word (a run word writes
 * 240 values while a selector-15 word writes one).  A 256-value block of
 * frequencies (mostly 1 to 3: 12 to 30 values per word) is 9 to 22 words,
 * so one round.
 *
 * gpx_s8b_dev_nth: one thread reads value i of a block by walking the
 * selectors to the word holding it (the frequencies of a few candidates
 * of a block, as seed 001 fetches them after an intersection).
 */
#ifndef GPX_S8B_DEV_CUH
#define GPX_S8B_DEV_CUH

#include "gpx_cuda_port.cuh"
#include "gpx_simple8b.h"

/* Code word k of a section given as little-endian 32-bit halves. */
GPX_DEV uint64_t
gpx_s8b_dev_word(const uint32_t *words, uint32_t k)
{
	return (uint64_t) words[2 * k] | ((uint64_t) words[2 * k + 1] << 32);
}

/*
 * Decode the block of `count` values starting at code word 0 of `words`
 * (at most `avail` code words readable) into out[0..count), adding base;
 * called by all 32 lanes of a warp with the same arguments, lane =
 * threadIdx.x & 31.  Returns the block's length in code words (in every
 * lane): the next block starts there.
 */
GPX_DEV uint32_t
gpx_s8b_dev_block_warp(const uint32_t *words, uint32_t avail, uint32_t count,
					   uint32_t base, uint32_t *out, uint32_t lane)
{
	const unsigned full = 0xffffffffu;
	uint32_t	done = 0,		/* values written by earlier rounds */
				wbase = 0;		/* first word of this round */

	while (done < count)
	{
		uint32_t	wi = wbase + lane,
					c = 0,
					incl,
					excl,
					nw,
					total;
		uint64_t	w = 0;
		unsigned	inblock;

		if (wi < avail)
		{
			w = gpx_s8b_dev_word(words, wi);
			c = gpx_s8b_count(gpx_s8b_selector(w));
		}
		/* inclusive scan of the counts over the lanes */
		incl = c;
		for (uint32_t d = 1; d < 32; d <<= 1)
		{
			uint32_t	t = __shfl_up_sync(full, incl, d);

			if (lane >= d)
				incl += t;
		}
		excl = incl - c;
		/* the words that start inside the block: a prefix of the lanes */
		inblock = __ballot_sync(full, wi < avail && excl < count - done);
		nw = (uint32_t) __popc(inblock);
		if (nw == 0)
			break;				/* no readable word left (not a valid block) */
		total = __shfl_sync(full, incl, (int) nw - 1);
		if (total > count - done)
			total = count - done;	/* a word past the block's end (not valid) */
		for (uint32_t k = 0; k < total; k += 32)
		{
			uint32_t	j = k + lane,
						q = 0,
						start,
						s;
			uint64_t	wq;

			/* q = number of words of the round that end at or before j */
			for (uint32_t step = 16; step >= 1; step >>= 1)
			{
				uint32_t	e = __shfl_sync(full, incl, (int) (q + step - 1));

				if (e <= j)
					q += step;
			}
			wq = __shfl_sync(full, w, (int) q);
			start = __shfl_sync(full, excl, (int) q);
			s = gpx_s8b_selector(wq);
			if (j < total)
				out[done + j] = (uint32_t) gpx_s8b_field(wq, s, j - start) + base;
		}
		done += total;
		wbase += nw;
	}
	return wbase;
}

/*
 * Value i (i < count) of the block of `count` values at code word 0 of
 * `words` (at most `avail` code words readable), base added; one thread.
 * Returns base when the words end first (not a valid block).
 */
GPX_DEV uint32_t
gpx_s8b_dev_nth(const uint32_t *words, uint32_t avail, uint32_t count,
				uint32_t base, uint32_t i)
{
	uint32_t	start = 0;

	(void) count;
	for (uint32_t k = 0; k < avail; k++)
	{
		uint64_t	w = gpx_s8b_dev_word(words, k);
		uint32_t	s = gpx_s8b_selector(w),
					c = gpx_s8b_count(s);

		if (i < start + c)
			return (uint32_t) gpx_s8b_field(w, s, i - start) + base;
		start += c;
	}
	return base;
}

#endif							/* GPX_S8B_DEV_CUH */
