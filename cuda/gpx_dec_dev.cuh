/*
 * gpx_dec_dev.cuh - the faster warp decoders of whole blocks, chosen at
 * compile time by GPX_DEC_FAST (a mask: GPX_DEC_EF for Elias-Fano and
 * bitmap blocks, GPX_DEC_PF for PFor blocks, GPX_DEC_LR for LRC
 * segments; GPX_DEC_P2 / GPX_DEC_E2: the decode kernel takes two full PFor
 * / v2 Elias-Fano blocks per warp; GPX_DEC_PIPE: on long lists its warps
 * loop, the next unit's words copied in while one is decoded
 * (gpx_decode.cu); 0 keeps gpx_d_block_warp's general loops for every
 * form; the default, 63, is all of them).  Included by gpx_cuda_dev.cuh.
 *
 * Each lane decodes consecutive elements: 8 lane .. 8 lane + 7 of an
 * Elias-Fano or LRC block (up to 256), 4 lane .. 4 lane + 3 of a PFor
 * block (128), into registers, so that a full block is written with
 * 16-byte stores, and every field a lane reads lies in one short stretch
 * of bits.  The block's words are first staged in shared memory with
 * coalesced loads; positions inside the stage are 32-bit.
 *
 * Elias-Fano blocks (their upper bits: a run of ones, the r-th at
 * position p_r, element r's high part p_r - r):
 *   1. lane l holds upper words 2l and 2l + 1; a warp scan of their
 *      popcounts ranks the first one of every pair (the stage's ones
 *      before the window are counted once and added to every rank; ones
 *      after its end rank after every one asked for, so no masking);
 *   2. each lane finds the pair holding the one of its first rank T with
 *      a five-step binary search over the scan (shuffles), and the one's
 *      position with gpx_select32 in that word;
 *   3. a 32-bit window of the bits from there on, bit-reversed, gives the
 *      next ones by counting leading zeros (one FLO each): the high part
 *      grows by the zeros skipped; a lane whose window holds fewer ones
 *      than it needs checks for an empty window and loads the next bits;
 *   4. the low bits of its ranks are consecutive fields, read 4 (width
 *      <= 8), 2 (<= 16) or 1 at a time from 32-bit windows of the stage.
 * A block whose upper bits span more than 64 words (v1 qs: 63), or whose
 * words do not fit the stage, runs the same steps from global memory with
 * 64-bit positions (gpx_d_ef8_far), so every block has a fast path.
 * Bitmap blocks of up to 64 words are decoded word-parallel (each lane
 * writes the ones of its words into shared memory in element order), the
 * others as Elias-Fano windows without low bits.
 *
 * CPU = GPU bit for bit: the same integer arithmetic as gpx_ef.c,
 * gpx_qs.c, gpx_bitmap.c, gpx_pfor.c and gpx_lrc.c (the specifications in
 * their comments); the emulation (test/gpu/gpx_emu.h) runs these functions
 * in the emucheck suites.  docs/bench/gpu-decode-fast.md: design, SASS
 * counts, the A/B.
 */
#ifndef GPX_DEC_DEV_CUH
#define GPX_DEC_DEV_CUH

#define GPX_DEC_EF		1		/* Elias-Fano (v1 qs, v2 EF) and bitmap blocks */
#define GPX_DEC_PF		2		/* PFor blocks */
#define GPX_DEC_LR		4		/* LRC segments */
#define GPX_DEC_P2		8		/* decode kernel: two full PFor blocks per warp */
#define GPX_DEC_E2		16		/* decode kernel, v2 qs: two full Elias-Fano blocks per warp */
#define GPX_DEC_PIPE	32		/* decode kernel: each warp loops over its units, the next
								 * one's words copied in (cp.async) while it decodes one */
#ifndef GPX_DEC_FAST
#define GPX_DEC_FAST	63
#endif

/* Upper-bit words a fast Elias-Fano / bitmap block may span. */
#define GPX_DEC_UW		64
/* v1 qs: where the upper words start in the stage (the low bits before) */
#define GPX_DEC_V1U		256

/*
 * Leading zeros of x, 0xFFFFFFFF for x = 0 (one FLO.SH; __clz needs a
 * second instruction for the zero case).
 */
GPX_DEV uint32_t
gpx_d_lz(uint32_t x)
{
#ifdef GPX_EMU
	return x != 0 ? (uint32_t) __builtin_clz(x) : 0xFFFFFFFFu;
#else
	uint32_t	r;

	asm("bfind.shiftamt.u32 %0, %1;" : "=r"(r) : "r"(x));
	return r;
#endif
}

/*
 * Start copying the 32-bit word at g (global, 4-byte aligned) to shared
 * word s without waiting (cp.async, sm_80 and later): it lands by the
 * gpx_d_acp_wait() that covers the group gpx_d_acp_commit() closes.
 */
GPX_DEV void
gpx_d_acp32(uint32_t *s, const uint8_t *g)
{
#ifdef GPX_EMU
	gpx_emu_acp32(s, g);
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
	*s = gpx_load32(g);			/* no cp.async before sm_80: a plain copy */
#else
	asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n"
				 :: "r"((uint32_t) __cvta_generic_to_shared(s)), "l"(g) : "memory");
#endif
}

/*
 * gpx_d_acp32() of the 16 bytes at g to s (both 16-byte aligned; .cg: L2
 * only, the one form cp.async has for 16 bytes).
 */
GPX_DEV void
gpx_d_acp128(uint32_t *s, const uint8_t *g)
{
#ifdef GPX_EMU
	if ((((uintptr_t) s) | ((uintptr_t) g)) & 15)
	{
		fprintf(stderr, "gpx_emu: cp.async of 16 bytes at unaligned %p <- %p\n", (void *) s,
				(const void *) g);
		abort();
	}
	for (int i = 0; i < 4; i++)
		gpx_emu_acp32(s + i, g + 4 * i);
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
	*(uint4 *) s = *(const uint4 *) g;	/* no cp.async before sm_80: a plain copy */
#else
	asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n"
				 :: "r"((uint32_t) __cvta_generic_to_shared(s)), "l"(g) : "memory");
#endif
}

/*
 * Words (0..3) from the 16-byte boundary at or before p (4-byte aligned)
 * to p: 16-byte copies of a block start that many words early.  They stay
 * in the blob: a blob starts 16-byte aligned and is zero padded to
 * GPX_BLOB_PAD (cuda/gpx_cuda_host.cuh), so every aligned 16 bytes that
 * hold one of its bytes lie in its span.
 */
GPX_DEV uint32_t
gpx_d_pre16(const uint8_t *p)
{
	return (uint32_t) (((uintptr_t) p) >> 2) & 3u;
}

/* Close this thread's group of gpx_d_acp32() copies (cp.async.commit_group). */
GPX_DEV void
gpx_d_acp_commit(void)
{
#ifdef GPX_EMU
	gpx_emu_acp_commit();
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#else
	asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

/* Wait until only this thread's N latest groups may be in flight (cp.async.wait_group). */
template <int N>
GPX_DEV void
gpx_d_acp_wait(void)
{
#ifdef GPX_EMU
	gpx_emu_acp_wait(N);
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#else
	asm volatile("cp.async.wait_group %0;\n" :: "n"(N) : "memory");
#endif
}

/* x << min(c, 32): 0 for c >= 32 (c = gpx_d_lz(0) included). */
GPX_DEV uint32_t
gpx_d_shl(uint32_t x, uint32_t c)
{
	return __funnelshift_lc(0u, x, c);
}

/* Bits [o, o + 32) of staged words s, LSB-first (s[(o >> 5) + 1] readable). */
GPX_DEV uint32_t
gpx_d_win(const uint32_t *s, uint32_t o)
{
	const uint32_t *p = s + (o >> 5);

	return __funnelshift_r(p[0], p[1], o);
}

/*
 * The 8 fields of width b (0..32) at bits o, o + b, ..., o + 7b of the
 * staged words s: 4 per window for b <= 8, 2 for b <= 16, else one (b is
 * warp-uniform, so the branches are too).
 */
GPX_DEV void
gpx_d_fields8(const uint32_t *s, uint32_t o, uint32_t b, uint32_t f[8])
{
	uint32_t	mask = gpx_mask(b);

	if (b <= 8)
	{
		uint32_t	b2 = 2 * b,
					b3 = 3 * b;

#pragma unroll
		for (int h = 0; h < 2; h++)
		{
			uint32_t	w = gpx_d_win(s, o + (uint32_t) h * 4 * b);

			f[4 * h] = w & mask;
			f[4 * h + 1] = (w >> b) & mask;
			f[4 * h + 2] = (w >> b2) & mask;
			f[4 * h + 3] = (w >> b3) & mask;
		}
	}
	else if (b <= 16)
	{
#pragma unroll
		for (int p = 0; p < 4; p++)
		{
			uint32_t	w = gpx_d_win(s, o + (uint32_t) p * 2 * b);

			f[2 * p] = w & mask;
			f[2 * p + 1] = (w >> b) & mask;
		}
	}
	else
	{
#pragma unroll
		for (int i = 0; i < 8; i++)
			f[i] = gpx_d_win(s, o + (uint32_t) i * b) & mask;
	}
}

/* The 4 fields of width b (0..32) at bits o + t b of s (as gpx_d_fields8). */
GPX_DEV void
gpx_d_fields4(const uint32_t *s, uint32_t o, uint32_t b, uint32_t f[4])
{
	uint32_t	mask = gpx_mask(b);

	if (b <= 8)
	{
		uint32_t	w = gpx_d_win(s, o);

		f[0] = w & mask;
		f[1] = (w >> b) & mask;
		f[2] = (w >> (2 * b)) & mask;
		f[3] = (w >> (3 * b)) & mask;
	}
	else if (b <= 16)
	{
#pragma unroll
		for (int p = 0; p < 2; p++)
		{
			uint32_t	w = gpx_d_win(s, o + (uint32_t) p * 2 * b);

			f[2 * p] = w & mask;
			f[2 * p + 1] = (w >> b) & mask;
		}
	}
	else
	{
#pragma unroll
		for (int i = 0; i < 4; i++)
			f[i] = gpx_d_win(s, o + (uint32_t) i * b) & mask;
	}
}

/*
 * The directory words of block blk that gpx_d_span_of() reads, loaded
 * together: r[0] its first docID, r[1] its loc, r[2] the next block's loc
 * (0 for the last block).  With a directory only (L->dir != NULL).
 */
GPX_DEV void
gpx_d_dir3(const gpx_dl *L, uint32_t blk, uint32_t r[3])
{
	const uint8_t *e = L->dir + (size_t) blk * L->dir_stride;

	r[0] = gpx_load32(e);
	r[1] = gpx_load32(e + 4);
	r[2] = blk + 1 < L->nblocks ? gpx_load32(e + L->dir_stride + 4) : 0;
}

/*
 * Where block blk's bits lie (any form but QS1), from its directory words
 * r (gpx_d_dir3; unused without a directory): from bit *sb of payload
 * word *w0 on, *nbits bits (at most 2^24: a caller refuses what does not
 * fit its stage); *first: its first docID.  v1 locs are word offsets, v2
 * byte offsets << 2 | kind; 32-bit arithmetic: payloads are below 4 GiB.
 */
GPX_DEV void
gpx_d_span_of(const gpx_dl *L, uint32_t blk, const uint32_t r[3], uint32_t *w0,
			  uint32_t *sb, uint32_t *nbits, uint32_t *first)
{
	const uint32_t cap = 1u << 19;	/* words or bytes: keeps nbits <= 2^24 */
	uint32_t	loc = r[1],
				nxt = r[2],
				end;
	bool		last = blk + 1 >= L->nblocks;

	if (L->dir == NULL)
	{
		/* a v2 list of one block: the whole payload, from payload_bit */
		*w0 = 0;
		*sb = L->payload_bit;
		*nbits = L->payload_bit + (L->payload_bytes < cap ? L->payload_bytes : cap) * 8;
		*first = L->first;
		return;
	}
	*first = r[0];
	if (L->version == GPX_FORMAT_V1)
	{
		end = last ? L->payload_words : nxt;
		*w0 = loc;
		*sb = 0;
		end = end > loc ? end - loc : 0;
		*nbits = (end < cap ? end : cap) * 32;
	}
	else
	{
		uint32_t	byte = loc >> 2;

		end = last ? L->payload_bytes : nxt >> 2;
		*w0 = byte >> 2;
		*sb = (byte & 3) * 8;
		end = end > (byte & ~3u) ? end - (byte & ~3u) : 0;
		*nbits = (end < cap ? end : cap) * 8;
	}
}

/* gpx_d_span_of() of block blk, its directory words loaded here. */
GPX_DEV void
gpx_d_span(const gpx_dl *L, uint32_t blk, uint32_t *w0, uint32_t *sb,
		   uint32_t *nbits, uint32_t *first)
{
	uint32_t	r[3];

	if (L->dir == NULL)
	{
		gpx_d_span_of(L, blk, r, w0, sb, nbits, first);
		return;
	}
	gpx_d_dir3(L, blk, r);
	gpx_d_span_of(L, blk, r, w0, sb, nbits, first);
}

/*
 * Words of a PFor or LRC block to stage: its nbits in whole words, at most
 * cap, and none past the payload's words from w0.
 */
GPX_DEV uint32_t
gpx_d_stage_nw(const gpx_dl *L, uint32_t w0, uint32_t nbits, uint32_t cap)
{
	uint32_t	nw = nbits >> 5;

	if (nw > cap)
		nw = cap;
	if (w0 + nw > L->payload_words)
		nw = w0 < L->payload_words ? L->payload_words - w0 : 0;
	return nw;
}

/*
 * Stage payload words [w0, w0 + nw) into s[0 .. nw) with coalesced loads:
 * the first 96 with three predicated loads per lane in flight together,
 * the rest (large blocks) in a loop.  The caller has bounded nw by the
 * payload's words and __syncwarp()s after.
 */
GPX_DEV void
gpx_d_stage3(const uint8_t *P, uint32_t w0, uint32_t nw, uint32_t lane, uint32_t *s)
{
	const uint8_t *g = P + 4 * ((size_t) w0 + lane);
	uint32_t   *d = s + lane;
	bool		p0 = lane < nw,
				p1 = lane + 32 < nw,
				p2 = lane + 64 < nw;
	uint32_t	a = 0,
				b = 0,
				c = 0;

	if (p0)
		a = gpx_load32(g);
	if (p1)
		b = gpx_load32(g + 128);
	if (p2)
		c = gpx_load32(g + 256);
	if (p0)
		d[0] = a;
	if (p1)
		d[32] = b;
	if (p2)
		d[64] = c;
	for (uint32_t k = 96; k + lane < nw; k += 32)
		d[k] = gpx_load32(g + 4 * k);
}

/*
 * Stage words [0, nw) of src into s[0 .. nw) with the 16 lanes of one half
 * warp (hl: the lane within the half), four predicated loads a lane in
 * flight per round of 64 words, rounds ending by a warp vote: every lane
 * of the warp must call (each half with its own src, nw and s).  The
 * caller has bounded nw by GPX_D_STAGE and the payload, and __syncwarp()s
 * after.
 */
GPX_DEV void
gpx_d_stage_half(const uint8_t *src, uint32_t nw, uint32_t hl, uint32_t *s)
{
#pragma unroll
	for (uint32_t k = 0; k < GPX_D_STAGE; k += 64)
	{
		uint32_t	a0 = 0,
					a1 = 0,
					a2 = 0,
					a3 = 0;

		if (k + hl < nw)
			a0 = gpx_load32(src + 4 * (k + hl));
		if (k + 16 + hl < nw)
			a1 = gpx_load32(src + 4 * (k + 16 + hl));
		if (k + 32 + hl < nw)
			a2 = gpx_load32(src + 4 * (k + 32 + hl));
		if (k + 48 + hl < nw)
			a3 = gpx_load32(src + 4 * (k + 48 + hl));
		if (k + hl < nw)
			s[k + hl] = a0;
		if (k + 16 + hl < nw)
			s[k + 16 + hl] = a1;
		if (k + 32 + hl < nw)
			s[k + 32 + hl] = a2;
		if (k + 48 + hl < nw)
			s[k + 48 + hl] = a3;
		if (__all_sync(GPX_D_FULL, k + 64 >= nw))
			break;
	}
}

/*
 * Stage nc 16-byte chunks of src (16-byte aligned) into s[0 .. 4 nc) (16-byte
 * aligned) with the 16 lanes of one half warp (hl: the lane within the
 * half), one 16-byte load a lane per round of 64 words, rounds ending by
 * a warp vote: every lane of the warp must call (each half with its own
 * src, nc and s).  The caller has bounded 4 nc by GPX_D_STAGE and
 * __syncwarp()s after.
 */
GPX_DEV void
gpx_d_stage_half16(const uint8_t *src, uint32_t nc, uint32_t hl, uint32_t *s)
{
#pragma unroll 1
	for (uint32_t k = 0; k < GPX_D_STAGE / 4; k += 16)
	{
		if (k + hl < nc)
			*(uint4 *) (s + 4 * (k + hl)) = *(const uint4 *) (src + 16 * (k + hl));
		if (__all_sync(GPX_D_FULL, k + 16 >= nc))
			break;
	}
}

/* Inclusive prefix sum of x within each half warp (hl: the lane in it). */
GPX_DEV uint32_t
gpx_d_half_incl(uint32_t x, uint32_t hl)
{
	return gpx_d_group_incl(x, hl, 16);
}

/*
 * The rest of a lane's run of ones after the one at stage bit P (W: the
 * bits from P on, bit-reversed, so P's one is the top bit), values into
 * rv[1..7] (rv[0] is the caller's); h: the first one's high part (EF:
 * position minus rank, plus the window's offset K; bitmap: its value
 * minus add).  CHECKED: load the next 32 bits of the stage when the
 * window runs out of ones (up to stage bit lim, for the first need
 * ranks), else the caller knows it holds them all.  Values past need are
 * unspecified.
 */
template <bool BM, bool CHECKED>
GPX_DEV void
gpx_d_run8(const uint32_t *su, uint32_t P, uint32_t W, uint32_t h, uint32_t b,
		   const uint32_t low[8], uint32_t add, uint32_t lim, uint32_t need,
		   uint32_t rv[8])
{
	uint32_t	E = P + 32;		/* CHECKED: the first stage bit past W's */

#pragma unroll
	for (int i = 1; i < 8; i++)
	{
		uint32_t	x = W << 1;	/* the bits after P's one, up to E */
		uint32_t	c;

		if (CHECKED)
		{
			uint32_t	q = P + 1;	/* stage bit of x's top bit */

			while (x == 0 && E < lim && (uint32_t) i < need)
			{
				q = E;
				x = __brev(gpx_d_win(su, q));
				E = q + 32;
			}
			c = gpx_d_lz(x);
			h += (q + c) - P - (BM ? 0u : 1u);
			P = q + c;
		}
		else
		{
			c = gpx_d_lz(x);
			h += c + (BM ? 1u : 0u);
		}
		W = gpx_d_shl(x, c);
		rv[i] = (h << b) + low[i] + add;
	}
}

/*
 * A lane's ranks of an Elias-Fano or bitmap block that does not fit the
 * stage (upper bits over more than 64 words, or a v2 block of more than
 * GPX_D_SCRATCH - 2 words), read from global memory with 64-bit bit
 * positions: the window's words 64 at a time (pairs per lane, a scan, the
 * binary search of gpx_d_ef8) until every lane has the position of its
 * first one, then a word-by-word walk.  U: the window's first bit (its
 * ones before it in U's word are skipped), ubase: where positions count
 * from (v1: the upper-bits array; v2 EF: U; bitmap: the block's first
 * bit), lowbit: rank 0's low field (rank r of a v1 block is element
 * ibias + r).  rv[i] gets rank T + i's value for i < need.  All lanes
 * must call.
 */
GPX_DEV void
gpx_d_ef8_far(const gpx_dl *L, bool bm, uint64_t U, uint64_t ubase, uint64_t lowbit,
			  uint32_t ibias, uint32_t b, uint32_t add, uint32_t T, uint32_t need,
			  uint32_t lane, uint32_t rv[8])
{
	const uint8_t *P = L->payload;
	uint64_t	nwords = L->payload_words;
	uint64_t	uw = U >> 5;
	uint32_t	c0 = uw < nwords ? __popc(gpx_word(P, uw) & gpx_mask((uint32_t) (U & 31))) : 0;
	uint32_t	tq = T + c0;
	uint32_t	base = 0;		/* ones before the chunk (from U's word on) */
	uint64_t	q = 0;

	for (uint64_t cw = uw; cw < nwords; cw += 64)
	{
		uint64_t	g = cw + 2 * lane;
		uint32_t	a = g < nwords ? gpx_word(P, g) : 0;
		uint32_t	c = g + 1 < nwords ? gpx_word(P, g + 1) : 0;
		uint32_t	pc = __popc(a) + __popc(c);
		uint32_t	incl = gpx_d_warp_incl(pc, lane);
		uint32_t	tot = __shfl_sync(GPX_D_FULL, incl, 31);
		uint32_t	t = tq - base;
		uint32_t	k = 0,
					r,
					wd,
					wi;

#pragma unroll
		for (uint32_t s = 16; s >= 1; s >>= 1)
			if (__shfl_sync(GPX_D_FULL, incl, k + s - 1) <= t)
				k += s;
		r = t - __shfl_sync(GPX_D_FULL, incl - pc, k);
		wd = __shfl_sync(GPX_D_FULL, a, k);
		c = __shfl_sync(GPX_D_FULL, c, k);
		wi = 2 * k;
		if (r >= (uint32_t) __popc(wd))
		{
			r -= __popc(wd);
			wd = c;
			wi++;
		}
		if (need > 0 && tq >= base && t < tot)
			q = ((cw + wi) << 5) + gpx_select32(wd, r);
		base += tot;
		if (!__any_sync(GPX_D_FULL, need > 0 && tq >= base))
			break;
	}
#pragma unroll
	for (uint32_t i = 0; i < 8; i++)
	{
		uint32_t	r = T + i;
		uint32_t	low;

		if (i >= need)
			break;
		low = bm ? 0 : gpx_get_bits(P, lowbit + (uint64_t) (ibias + r) * b, b);
		if (i > 0)
		{
			/* the next one after q */
			q++;
			while ((q >> 5) < nwords)
			{
				uint32_t	w = gpx_word(P, q >> 5) >> (q & 31);

				if (w != 0)
				{
					q += (uint32_t) (__ffs(w) - 1);
					break;
				}
				q = ((q >> 5) + 1) << 5;
			}
		}
		rv[i] = (((uint32_t) (q - ubase) - (bm ? 0u : ibias + r)) << b) + low + add;
	}
}

/*
 * Decode an Elias-Fano (form QS1 or EF) or bitmap block blk of cnt
 * elements: v[s] = element 8 lane + s, for those below cnt.  The block's
 * words are staged in xs (the warp's GPX_D_SCRATCH shared words) when they
 * fit, else read from global memory (gpx_d_ef8_far).  All lanes must
 * call; the caller __syncwarp()s before reusing xs.
 */
GPX_DEV void
gpx_d_ef8(const gpx_dl *L, uint32_t blk, uint32_t form, uint32_t cnt,
		  uint32_t lane, uint32_t *xs, uint32_t v[8])
{
	const uint8_t *P = L->payload;
	const uint32_t *su = xs;	/* upper words: su[0] holds the window's first bit */
	const uint32_t *sl = xs;	/* low words */
	bool		bm = form == GPX_FORM_BITMAP;
	bool		fits;
	uint32_t	m,				/* ones */
				b = 0,
				add,
				jbias,
				ibias,			/* v1: the block's first element index */
				lbase = 0,		/* stage bit of rank 0's low field */
				usb = 0,		/* bit of the window's first bit in su[0] */
				nwu = 0,		/* words of su */
				kk = 0;			/* high part of the one at su bit p, rank r: p + kk - r */
	uint64_t	U,				/* the window's first bit in the payload */
				ubase,			/* where gpx_d_ef8_far's positions count from */
				lowbit;			/* its rank 0's low field */

	if (form == GPX_FORM_QS1)
	{
		/*
		 * v1: the list's low-bits array, its upper bits from the sample
		 * (loc: a bit position in the upper-bits array, which starts at
		 * word qs_low_words) up to the next block's
		 */
		uint32_t	loc = gpx_d_loc(L, blk);
		uint32_t	uw0 = L->qs_low_words + (loc >> 5);
		uint32_t	lw0,
					nwl,
					wend;		/* words from uw0 to the window's end */

		b = L->param;
		m = cnt;
		add = 0;
		jbias = 0;
		ibias = blk << 8;
		ubase = (uint64_t) L->qs_low_words * 32;
		U = ubase + loc;
		lowbit = 0;
		lw0 = (uint32_t) (((uint64_t) ibias * b) >> 5);
		if (blk + 1 < L->nblocks)
		{
			uint32_t	nx = gpx_d_loc(L, blk + 1);

			wend = nx > loc ? ((nx - 1) >> 5) - (loc >> 5) + 1 : 0;
		}
		else
			wend = L->payload_words > uw0 ? L->payload_words - uw0 : 0;
		lbase = (uint32_t) (((uint64_t) ibias * b) & 31);
		usb = loc & 31;
		nwu = wend;
		nwl = (lbase + m * b + 31) >> 5;	/* <= 249 */
		kk = (loc & ~31u) - ibias;
		if (lw0 + nwl > L->payload_words)
			nwl = lw0 < L->payload_words ? L->payload_words - lw0 : 0;
		fits = wend > 0 && wend <= GPX_DEC_UW - 1 && uw0 + nwu <= L->payload_words;
		su = xs + GPX_DEC_V1U;
		if (fits)
		{
			/* both stretches at once: their loads in flight together */
			const uint8_t *ls = P + 4 * (size_t) lw0;
			const uint8_t *us = P + 4 * (size_t) uw0;

			for (uint32_t k = lane; k < nwl || k < nwu; k += 32)
			{
				uint32_t	a = k < nwl ? gpx_load32(ls + 4 * k) : 0;
				uint32_t	c = k < nwu ? gpx_load32(us + 4 * k) : 0;

				if (k < nwl)
					xs[k] = a;
				if (k < nwu)
					xs[GPX_DEC_V1U + k] = c;
			}
			__syncwarp();
		}
	}
	else
	{
		/* v2: the block's own bits */
		uint32_t	w0,
					sb,
					nbits,
					first,
					nw;
		uint64_t	bit;

		gpx_d_span(L, blk, &w0, &sb, &nbits, &first);
		bit = ((uint64_t) w0 << 5) + sb;
		nw = (nbits + 31) >> 5;
		m = cnt - 1;
		add = first + 1;
		jbias = 1;
		ibias = 0;
		lowbit = bit + 5;
		fits = nw <= GPX_D_SCRATCH - 2 && w0 <= L->payload_words && nw <= L->payload_words - w0;
		if (fits)
		{
			gpx_d_stage3(P, w0, nw, lane, xs);
			__syncwarp();
			if (!bm && m > 0)
				b = gpx_d_win(xs, sb) & 31u;
		}
		else if (!bm && m > 0)
			b = gpx_get_bits(P, bit, 5);
		U = bm ? bit : lowbit + (uint64_t) m * b;
		ubase = U;
		if (fits)
		{
			uint32_t	urel = (uint32_t) (U - ((uint64_t) w0 << 5));
			uint32_t	u0 = urel >> 5;

			fits = m == 0 || (urel < nbits && nw - u0 <= GPX_DEC_UW);
			su = xs + u0;
			usb = urel & 31;
			nwu = nw - u0;
			lbase = sb + 5;
			kk = (uint32_t) -(int32_t) (bm ? sb : usb);
		}
	}

	{
		uint32_t	T = 8 * lane - (lane != 0 ? jbias : 0);	/* this lane's first rank */
		uint32_t	nr = 8 - (lane == 0 ? jbias : 0);	/* ranks it wants */
		uint32_t	need = T < m ? (m - T < nr ? m - T : nr) : 0;
		uint32_t	rv[8];

		if (!fits)
			gpx_d_ef8_far(L, bm, U, ubase, lowbit, ibias, b, add, T, need, lane, rv);
		else
		{
			/*
			 * ranks count the window's ones; the stage's ones before it
			 * (in su[0]) are c0 more, and ones after its end only rank
			 * after every one a lane asks for
			 */
			uint32_t	c0 = __popc(su[0] & gpx_mask(usb));
			uint32_t	g = 2 * lane;
			uint32_t	a = g < nwu ? su[g] : 0;
			uint32_t	c = g + 1 < nwu ? su[g + 1] : 0;
			uint32_t	tq = T + c0;
			uint32_t	pa,
						pc,
						incl,
						k = 0,
						r,
						wd,
						wi,
						p,
						W,
						h,
						low[8];

			pc = __popc(a) + __popc(c);
			incl = gpx_d_warp_incl(pc, lane);
			/* k: the pairs whose ones all rank below tq */
#pragma unroll
			for (uint32_t s = 16; s >= 1; s >>= 1)
				if (__shfl_sync(GPX_D_FULL, incl, k + s - 1) <= tq)
					k += s;
			r = tq - __shfl_sync(GPX_D_FULL, incl - pc, k);
			wd = __shfl_sync(GPX_D_FULL, a, k);
			c = __shfl_sync(GPX_D_FULL, c, k);
			pa = __popc(wd);
			wi = 2 * k;
			if (r >= pa)
			{
				r -= pa;
				wd = c;
				wi++;
			}
			if (bm)
			{
#pragma unroll
				for (int i = 0; i < 8; i++)
					low[i] = 0;
			}
			else
				gpx_d_fields8(sl, lbase + T * b, b, low);
			if (need > 0)
			{
				p = 32 * wi + gpx_select32(wd, r);
				W = __brev(gpx_d_win(su, p));
				h = p + kk - (bm ? 0u : T);
				rv[0] = (h << b) + low[0] + add;
				if (bm)
					gpx_d_run8<true, true>(su, p, W, h, b, low, add, 32 * nwu, need, rv);
				else if ((uint32_t) __popc(W) >= need)
					gpx_d_run8<false, false>(su, p, W, h, b, low, add, 32 * nwu, need, rv);
				else
					gpx_d_run8<false, true>(su, p, W, h, b, low, add, 32 * nwu, need, rv);
			}
		}
		if (jbias != 0 && lane == 0)
		{
			/* element 0 is the block's first docID, not a one */
			v[0] = add - 1;
#pragma unroll
			for (int s = 1; s < 8; s++)
				v[s] = rv[s - 1];
		}
		else
		{
#pragma unroll
			for (int s = 0; s < 8; s++)
				v[s] = rv[s];
		}
	}
}

/*
 * The 8 values of ranks t .. t + 7 of an Elias-Fano block staged at su
 * (window bit usb of su[0], kk = -usb; the ones before it in su[0]
 * already counted by the caller), from the one at su bit p of rank t,
 * into rv; need (7 or 8) of them exist, values past need unspecified: a
 * 32-bit window, unchecked when it holds the ones asked for, else loading
 * the next 32 bits (up to stage bit lim) as it runs out.  TRACK (the
 * first run, all 8 exist) also gives *pl, the position of rank t + 7, and
 * *wl, the window there (bit-reversed, that one its top bit, zeros past
 * the bits it was loaded with), from the identity position = h - kk +
 * rank rather than a sum kept per value.
 */
template <bool TRACK>
GPX_DEV void
gpx_d_ef_run(const uint32_t *su, uint32_t p, uint32_t t, uint32_t kk, uint32_t b,
			  uint32_t add, const uint32_t low[8], uint32_t lim, uint32_t need,
			  uint32_t rv[8], uint32_t *pl, uint32_t *wl)
{
	uint32_t	W = __brev(gpx_d_win(su, p));
	uint32_t	h = p + kk - t;

	rv[0] = (h << b) + low[0] + add;
	if ((uint32_t) __popc(W) >= (TRACK ? 8u : need))
	{
#pragma unroll
		for (int i = 1; i < 8; i++)
		{
			uint32_t	x = W << 1;
			uint32_t	c = gpx_d_lz(x);

			h += c;
			W = gpx_d_shl(x, c);
			rv[i] = (h << b) + low[i] + add;
		}
	}
	else
	{
		uint32_t	P = p,
					E = p + 32;

#pragma unroll
		for (int i = 1; i < 8; i++)
		{
			uint32_t	x = W << 1;
			uint32_t	q = P + 1;
			uint32_t	c;

			while (x == 0 && E < lim && (TRACK || (uint32_t) i < need))
			{
				q = E;
				x = __brev(gpx_d_win(su, q));
				E = q + 32;
			}
			c = gpx_d_lz(x);
			h += (q + c) - P - 1;
			P = q + c;
			W = gpx_d_shl(x, c);
			rv[i] = (h << b) + low[i] + add;
		}
	}
	if (TRACK)
	{
		*pl = h - kk + t + 7;
		*wl = W;
	}
}

/*
 * Whether a gpx_d_ef16p() half's block (nw words from w0, its bits from
 * sb to nbits) fits the stage: at most GPX_D_STAGE - 2 words inside the
 * payload, bits past the first.
 */
GPX_DEV bool
gpx_d_ef16p_fit1(const gpx_dl *L, uint32_t w0, uint32_t sb, uint32_t nbits, uint32_t nw)
{
	return nw <= GPX_D_STAGE - 2 && w0 <= L->payload_words &&
		nw <= L->payload_words - w0 && nbits > sb;
}

/*
 * The pair of gpx_d_ef16p() from its two blocks' words, staged at xs and
 * xs + GPX_D_STAGE (sb, nbits, nw, first: the half's block's span); false
 * (warp-uniform, ob untouched) when a block's upper bits do not fit.
 * All lanes must call.
 */
GPX_DEV bool
gpx_d_ef16p_dec(const uint32_t *xs, uint32_t sb, uint32_t nbits, uint32_t nw,
				uint32_t first, uint32_t lane, uint32_t *ob)
{
	uint32_t	h = lane >> 4,
				hl = lane & 15;
	const uint32_t *st = xs + GPX_D_STAGE * h;
	const uint32_t *su;
	uint32_t	b,
				urel,
				u0,
				usb,
				nwu,
				kk,
				add,
				T,
				c0,
				tq,
				q[4],
				pq,
				incl,
				k = 0,
				r,
				wd,
				wi,
				p,
				pl,
				low[8],
				rv[8],
				rv2[8];
	const uint32_t m = 255;

	b = gpx_d_win(st, sb) & 31u;
	urel = sb + 5 + m * b;
	u0 = urel >> 5;
	usb = urel & 31;
	nwu = nw - u0;
	if (!__all_sync(GPX_D_FULL, urel < nbits && nwu <= 64))
		return false;
	su = st + u0;
	kk = (uint32_t) -(int32_t) usb;
	add = first + 1;
	T = 16 * hl;				/* ranks T .. T + 14 (T + 15 when hl < 15) */
	c0 = __popc(su[0] & gpx_mask(usb));
	tq = T + c0;
#pragma unroll
	for (int j = 0; j < 4; j++)
		q[j] = 4 * hl + j < nwu ? su[4 * hl + j] : 0;
	pq = __popc(q[0]) + __popc(q[1]) + __popc(q[2]) + __popc(q[3]);
	incl = gpx_d_half_incl(pq, hl);
	/* k: the quads of this half whose ones all rank below tq */
#pragma unroll
	for (uint32_t s2 = 8; s2 >= 1; s2 >>= 1)
		if (__shfl_sync(GPX_D_FULL, incl, 16 * h + k + s2 - 1) <= tq)
			k += s2;
	r = tq - __shfl_sync(GPX_D_FULL, incl - pq, 16 * h + k);
#pragma unroll
	for (int j = 0; j < 4; j++)
		q[j] = __shfl_sync(GPX_D_FULL, q[j], 16 * h + k);
	wi = 4 * k;
	wd = q[0];
#pragma unroll
	for (int j = 1; j < 4; j++)
	{
		uint32_t	pc = __popc(wd);

		if (r >= pc)
		{
			r -= pc;
			wd = q[j];
			wi++;
		}
	}
	p = 32 * wi + gpx_select32(wd, r);
	gpx_d_fields8(st, sb + 5 + T * b, b, low);
	gpx_d_ef_run<true>(su, p, T, kk, b, add, low, 32 * nwu, 8, rv, &pl, &wd);
	{
		/* the second run starts at the one after pl (rank T + 8) */
		uint32_t	qq = pl + 1;
		uint32_t	x = wd << 1;

		if (x == 0)
		{
			x = __brev(gpx_d_win(su, qq));
			while (x == 0 && qq + 32 < 32 * nwu)
			{
				qq += 32;
				x = __brev(gpx_d_win(su, qq));
			}
		}
		p = qq + gpx_d_lz(x);
		gpx_d_fields8(st, sb + 5 + (T + 8) * b, b, low);
		gpx_d_ef_run<false>(su, p, T + 8, kk, b, add, low, 32 * nwu, hl == 15 ? 7 : 8,
							 rv2, nullptr, nullptr);
	}
	{
		/* element 16 hl is rank 16 hl - 1, the lane before's last (hl 0: first) */
		uint32_t	e0 = __shfl_up_sync(GPX_D_FULL, rv2[7], 1);
		uint32_t   *d = ob + 256 * h + 16 * hl;

		if (hl == 0)
			e0 = first;
		__syncwarp();			/* every lane done with the stage: ob may be xs */
		*(uint4 *) d = make_uint4(e0, rv[0], rv[1], rv[2]);
		*(uint4 *) (d + 4) = make_uint4(rv[3], rv[4], rv[5], rv[6]);
		*(uint4 *) (d + 8) = make_uint4(rv[7], rv2[0], rv2[1], rv2[2]);
		*(uint4 *) (d + 12) = make_uint4(rv2[3], rv2[4], rv2[5], rv2[6]);
	}
	__syncwarp();
	return true;
}

/*
 * Decode two full v2 Elias-Fano blocks, blk = b0 + h and its partner, with
 * one warp, a half-warp each (GPX_DEC_E2; r: this half's directory words,
 * gpx_d_dir3): lane l of half h = l / 16 gets elements 16 (l % 16) .. +
 * 15 of block b0 + h, written to ob[256 h + ...] (the warp's 512 shared
 * output words) in element order; the per-block work (span, stage, scan,
 * rank search, select) is done once for both blocks and 16 elements.
 * Each half stages its block at xs + 160 h with 16-byte loads; lane hl
 * holds upper words 4 hl .. 4 hl + 3, a 16-lane scan and a 4-step binary
 * search find its first rank 16 hl, two 8-one runs of gpx_d_ef_run its
 * values, and one shuffle hands each lane the value before them.  False
 * (warp-uniform, ob untouched) when a block does not fit (more than 158
 * words from the 16-byte boundary before it, or upper bits over more than
 * 64 words): the caller decodes the two blocks one by one.  All lanes
 * must call; on true, ob holds the pair after a __syncwarp.
 */
GPX_DEV bool
gpx_d_ef16p(const gpx_dl *L, uint32_t blk, const uint32_t r[3], uint32_t lane, uint32_t *xs,
			uint32_t *ob)
{
	uint32_t	w0,
				sb,
				nbits,
				first,
				nw,
				a;
	const uint8_t *src;

	gpx_d_span_of(L, blk, r, &w0, &sb, &nbits, &first);
	nw = (nbits + 31) >> 5;
	/* 16-byte loads from a words before w0: the block's bits start 32 a bits later */
	src = L->payload + 4 * (size_t) w0;
	a = gpx_d_pre16(src);
	if (!__all_sync(GPX_D_FULL, gpx_d_ef16p_fit1(L, w0, sb, nbits, nw) &&
					nw + a <= GPX_D_STAGE - 2))
		return false;
	gpx_d_stage_half16(src - 4 * a, (nw + a + 3) >> 2, lane & 15, xs + GPX_D_STAGE * (lane >> 4));
	sb += 32 * a;
	nbits += 32 * a;
	nw += a;
	__syncwarp();
	return gpx_d_ef16p_dec(xs, sb, nbits, nw, first, lane, ob);
}

/*
 * Decode a v2 bitmap block blk of cnt elements whose bits span at most 64
 * words, word-parallel: lane l holds words l and l + 32 of the block (the
 * bits before its first and from its end masked off), one warp scan of
 * their popcounts (two 16-bit counts in one word) ranks their ones, and
 * each lane writes its ones' values (first + 1 + offset) into xs in
 * element order, finding each with one FLO; xs[0] is the first docID.
 * False (warp-uniform, nothing written) when the block does not fit.  On
 * return (true) xs[0 .. cnt) holds the block, every lane done; the caller
 * __syncwarp()s before reusing xs.
 */
GPX_DEV bool
gpx_d_bm_words(const gpx_dl *L, uint32_t blk, uint32_t cnt, uint32_t lane, uint32_t *xs)
{
	uint32_t	w0,
				sb,
				nbits,
				first,
				nw,
				lastw,
				emask,
				a = 0,
				c = 0,
				pa,
				pc,
				inc,
				tot,
				base;

	gpx_d_span(L, blk, &w0, &sb, &nbits, &first);
	nw = (nbits + 31) >> 5;
	if (nbits <= sb || nw > 64 || w0 > L->payload_words || nw > L->payload_words - w0)
		return false;
	{
		const uint8_t *g = L->payload + 4 * ((size_t) w0 + lane);

		if (lane < nw)
			a = gpx_load32(g);
		if (lane + 32 < nw)
			c = gpx_load32(g + 128);
	}
	/* only the block's bits: from sb in word 0, below nbits in the last */
	lastw = (nbits - 1) >> 5;
	emask = gpx_mask(((nbits - 1) & 31) + 1);
	if (lane == 0)
		a &= ~0u << sb;
	if (lane == lastw)
		a &= emask;
	if (lane + 32 == lastw)
		c &= emask;
	pa = __popc(a);
	pc = __popc(c);
	inc = gpx_d_warp_incl(pa | (pc << 16), lane);
	tot = __shfl_sync(GPX_D_FULL, inc, 31);
	base = first + 1 - sb;		/* the value of word 0's bit p: base + p */
	if (lane == 0)
		xs[0] = first;
#pragma unroll
	for (int h = 0; h < 2; h++)
	{
		/* word l: after words 0..l-1; word l + 32: after words 0..31 and 32..l+31 */
		uint32_t	r = h == 0 ? (inc & 0xFFFFu) - pa : (tot & 0xFFFFu) + (inc >> 16) - pc;
		uint32_t	x = __brev(h == 0 ? a : c);
		uint32_t	v = base + 32 * lane + 1024 * h;

		while (x != 0)
		{
			uint32_t	z = gpx_d_lz(x);

			if (r < cnt - 1)
				xs[1 + r] = v + z;
			r++;
			x ^= 0x80000000u >> z;
		}
	}
	__syncwarp();
	return true;
}

/*
 * Decode PFor block blk (cnt elements): v[t] = element 4 lane + t (values
 * past cnt unspecified), from its words staged in xs (exceptions patched
 * through xs + GPX_D_STAGE, as gpx_d_pfor_warp).  All lanes must call.
 */
GPX_DEV void
gpx_d_pfor4(const gpx_dl *L, uint32_t blk, uint32_t cnt, uint32_t lane,
			uint32_t *xs, uint32_t v[4])
{
	uint32_t	w0,
				sb,
				nbits,
				first,
				nw,
				h,
				b,
				e,
				hb,
				m = cnt - 1,
				o,
				g[4],
				inc[4];

	gpx_d_span(L, blk, &w0, &sb, &nbits, &first);
	nw = gpx_d_stage_nw(L, w0, nbits, GPX_D_STAGE - 1);
	gpx_d_stage3(L->payload, w0, nw, lane, xs);
	__syncwarp();
	h = xs[0];
	b = h & 0x3Fu;
	e = (h >> 6) & 0x7Fu;
	hb = (h >> 13) & 0x3Fu;
	/* gaps 4 lane - 1 .. 4 lane + 2 (lane 0: gaps 0..2, after element 0) */
	o = 19 + (lane != 0 ? (4 * lane - 1) * b : 0);
	gpx_d_fields4(xs, o, b, g);
	if (lane == 0)
	{
		g[3] = g[2];
		g[2] = g[1];
		g[1] = g[0];
	}
	if (e != 0)
	{
		/* exceptions: lane x patches POS[x], HIGH[x] (e is warp-uniform) */
		uint32_t   *xp = xs + GPX_D_STAGE;
		uint32_t	posbit = 19 + m * b;
		uint32_t	hibit = posbit + e * 7;
		uint32_t	hmask = gpx_mask(hb);

		*(uint4 *) (xp + 4 * lane) = make_uint4(0, 0, 0, 0);
		__syncwarp();
		for (uint32_t x = lane; x < e; x += 32)
		{
			uint32_t	pos = gpx_d_win(xs, posbit + 7 * x) & 0x7Fu;
			uint32_t	hi = gpx_d_win(xs, hibit + x * hb) & hmask;

			if (pos < m)
				xp[pos + 1] = hi << (b & 31);
		}
		__syncwarp();
		gpx_d_or4(g, xp + 4 * lane);
	}
	/* localized prefix sum: d[j] = first + sum over gaps before j of (g + 1) */
	inc[0] = lane != 0 ? g[0] + 1 : 0;
	inc[1] = inc[0] + g[1] + 1;
	inc[2] = inc[1] + g[2] + 1;
	inc[3] = inc[2] + g[3] + 1;
	gpx_d_warp_add4(inc, first, lane, v);
}

/*
 * The pair of gpx_d_pfor8p() from its two blocks' words, staged at xs
 * and xs + GPX_D_STAGE (first: the half's block's first docID; xp: 256
 * shared words for the patches).  All lanes must call.
 */
GPX_DEV void
gpx_d_pfor8p_dec(const uint32_t *xs, uint32_t *xp, uint32_t first, uint32_t lane,
				 uint32_t v[8])
{
	uint32_t	h = lane >> 4,
				hl = lane & 15;
	const uint32_t *st = xs + GPX_D_STAGE * h;
	uint32_t   *pt = xp + 128 * h;
	uint32_t	hd,
				b,
				e,
				hb,
				emax,
				o,
				g[8],
				tot,
				s;

	hd = st[0];
	b = hd & 0x3Fu;
	e = (hd >> 6) & 0x7Fu;
	hb = (hd >> 13) & 0x3Fu;
	/* gaps 8 hl - 1 .. 8 hl + 6 (hl 0: gaps 0..6, after element 0) */
	o = 19 + (hl != 0 ? (8 * hl - 1) * b : 0);
	gpx_d_fields8(st, o, b, g);
	if (hl == 0)
	{
#pragma unroll
		for (int t = 7; t > 0; t--)
			g[t] = g[t - 1];
	}
	emax = __shfl_xor_sync(GPX_D_FULL, e, 16);	/* the other half's */
	if (e > emax)
		emax = e;
	if (emax != 0)
	{
		/* exceptions: lane x of each half patches POS[x], HIGH[x] */
		uint32_t	posbit = 19 + 127 * b;
		uint32_t	hibit = posbit + e * 7;
		uint32_t	hmask = gpx_mask(hb);

		*(uint4 *) (pt + 8 * hl) = make_uint4(0, 0, 0, 0);
		*(uint4 *) (pt + 8 * hl + 4) = make_uint4(0, 0, 0, 0);
		__syncwarp();
		for (uint32_t x = hl; x < emax; x += 16)
		{
			if (x < e)
			{
				uint32_t	pos = gpx_d_win(st, posbit + 7 * x) & 0x7Fu;
				uint32_t	hi = gpx_d_win(st, hibit + x * hb) & hmask;

				if (pos < 127)
					pt[pos + 1] = hi << (b & 31);
			}
		}
		__syncwarp();
		{
			uint4		q0 = *(const uint4 *) (pt + 8 * hl);
			uint4		q1 = *(const uint4 *) (pt + 8 * hl + 4);

			g[0] |= q0.x;
			g[1] |= q0.y;
			g[2] |= q0.z;
			g[3] |= q0.w;
			g[4] |= q1.x;
			g[5] |= q1.y;
			g[6] |= q1.z;
			g[7] |= q1.w;
		}
	}
	/* localized prefix sums, the scan within each half */
	v[0] = hl != 0 ? g[0] + 1 : 0;
#pragma unroll
	for (int t = 1; t < 8; t++)
		v[t] = v[t - 1] + g[t] + 1;
	tot = v[7];
	s = gpx_d_half_incl(tot, hl) - tot + first;
#pragma unroll
	for (int t = 0; t < 8; t++)
		v[t] += s;
}

/*
 * Decode two full PFor blocks b0 and b0 + 1 (128 elements each) with one
 * warp, a half-warp each (GPX_DEC_P2): lane l of half h = l / 16 gets
 * elements 8 (l % 16) .. + 7 of block b0 + h in v, so that the warp's
 * registers hold the pair's 256 docIDs in order.  The per-block work
 * (directory, header, scan) is done once for both.  xs: GPX_D_SCRATCH
 * shared words (the blocks' words, 160 each); xp: 256 more (the
 * exceptions' patches, 128 per block).  All lanes must call.
 */
GPX_DEV void
gpx_d_pfor8p(const gpx_dl *L, uint32_t b0, uint32_t lane, uint32_t *xs,
			 uint32_t *xp, uint32_t v[8])
{
	uint32_t	hl = lane & 15;
	uint32_t	w0,
				sb,
				nbits,
				first,
				nw;

	gpx_d_span(L, b0 + (lane >> 4), &w0, &sb, &nbits, &first);
	nw = gpx_d_stage_nw(L, w0, nbits, GPX_D_STAGE - 1);
	/* each half stages its block: 10 words a lane at most */
	gpx_d_stage_half(L->payload + 4 * (size_t) w0, nw, hl, xs + GPX_D_STAGE * (lane >> 4));
	__syncwarp();
	gpx_d_pfor8p_dec(xs, xp, first, lane, v);
}

/*
 * LRC segment of 256 elements from its words staged in xs: v[s] = element
 * 8 lane + s (values past the segment's count unspecified).
 */
GPX_DEV void
gpx_d_lrc8_dec(const uint32_t *xs, uint32_t lane, uint32_t v[8])
{
	uint32_t	base,
				slope,
				w,
				j0 = 8 * lane,
				dev[8];

	base = xs[0];
	slope = xs[1];
	w = gpx_bitwidth(xs[2]);
	gpx_d_fields8(xs, 96 + j0 * w, w, dev);
#pragma unroll
	for (uint32_t s = 0; s < 8; s++)
		v[s] = base + __umulhi(slope, (j0 + s) << 24) + dev[s];
}

/*
 * Decode LRC segment blk (cnt elements): v[s] = element 8 lane + s
 * (values past cnt unspecified), its words staged into xs first.  All
 * lanes must call.
 */
GPX_DEV void
gpx_d_lrc8(const gpx_dl *L, uint32_t blk, uint32_t lane, uint32_t *xs, uint32_t v[8])
{
	uint32_t	w0,
				sb,
				nbits,
				first,
				nw;

	gpx_d_span(L, blk, &w0, &sb, &nbits, &first);
	nw = gpx_d_stage_nw(L, w0, nbits, GPX_D_LRC_STAGE);
	gpx_d_stage3(L->payload, w0, nw, lane, xs);
	__syncwarp();
	gpx_d_lrc8_dec(xs, lane, v);
}

/*
 * Decode block blk with the fast decoder of its form, if GPX_DEC_FAST
 * has one for it: values in v (per: 8 or 4 consecutive elements per
 * lane, as the decoders above) or, per 0, in xs[0 .. cnt) (bitmaps).
 * False (warp-uniform): no fast decoder took it, the caller runs the
 * general loop.
 */
GPX_DEV bool
gpx_d_fast(const gpx_dl *L, uint32_t blk, uint32_t form, uint32_t cnt,
		   uint32_t lane, uint32_t *xs, uint32_t v[8], uint32_t *per)
{
	if ((GPX_DEC_FAST & GPX_DEC_PF) && form == GPX_FORM_PFOR)
	{
		gpx_d_pfor4(L, blk, cnt, lane, xs, v);
		*per = 4;
		return true;
	}
	*per = 8;
	if ((GPX_DEC_FAST & GPX_DEC_LR) && form == GPX_FORM_LRC)
	{
		gpx_d_lrc8(L, blk, lane, xs, v);
		return true;
	}
	if ((GPX_DEC_FAST & GPX_DEC_EF) && form == GPX_FORM_BITMAP &&
		gpx_d_bm_words(L, blk, cnt, lane, xs))
	{
		*per = 0;				/* the values are in xs already */
		return true;
	}
	if ((GPX_DEC_FAST & GPX_DEC_EF) &&
		(form == GPX_FORM_QS1 || form == GPX_FORM_EF || form == GPX_FORM_BITMAP))
	{
		gpx_d_ef8(L, blk, form, cnt, lane, xs, v);
		return true;
	}
	return false;
}

/*
 * Put a fast decoder's values in xs in element order: xs[j] = element j
 * for j < 32 per (per 0: they are there already).  Waits for every lane
 * to be done with the stage first; the caller __syncwarp()s before xs is
 * reused again.
 */
GPX_DEV void
gpx_d_fast_order(uint32_t *xs, const uint32_t v[8], uint32_t per, uint32_t lane)
{
	__syncwarp();
	if (per == 0)
		return;
	if (per == 4)
		*(uint4 *) (xs + 4 * lane) = make_uint4(v[0], v[1], v[2], v[3]);
	else
	{
		*(uint4 *) (xs + 8 * lane) = make_uint4(v[0], v[1], v[2], v[3]);
		*(uint4 *) (xs + 8 * lane + 4) = make_uint4(v[4], v[5], v[6], v[7]);
	}
	__syncwarp();
}

#endif							/* GPX_DEC_DEV_CUH */
