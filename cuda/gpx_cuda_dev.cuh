/*
 * gpx_cuda_dev.cuh - the device side of the CUDA back end: the descriptors
 * the host hands to the kernels, the per-codec device functions (warp-wide
 * block decode, single-thread in-block membership with the codec's search
 * contraction, directory search with a hash-segmentation table), and the
 * host wrappers of the kernels (defined in gpx_decode.cu and gpx_isect.cu).
 *
 * Every function here reads blobs exactly as the CPU codecs in src/codec
 * do (same integer arithmetic, gpx_bits.h for bit extraction), so GPU and
 * CPU decode bit for bit.  The blobs are trusted (validated on the host):
 * reads follow the format's own bounds (n, nblocks, directory offsets,
 * payload size); loops over words are additionally clamped to the payload.
 *
 * Thread organisation: a list block (128 docIDs for pfor, 256 for lrc and
 * qs) is decoded by one warp, so the decode kernels need no __syncthreads
 * and a thread-block of GPX_D_WARPS warps works on GPX_D_WARPS list blocks
 * at once.  pfor and lrc first stage the block's words in shared memory
 * with coalesced loads (the directory gives both ends, so no dependent
 * header read comes first).  pfor: lane l unpacks the four gaps ending at
 * elements 4l..4l+3, lanes patch the exceptions in parallel through shared
 * memory, a warp scan does the localized prefix sum.  lrc: lane l decodes
 * elements l, l + 32, ... each alone from the segment's fixed-point line.
 * qs: the low bits are gathered lane-strided; the upper bits are read 32
 * words at a time from the block's sample, the warp ballots the non-zero
 * words and walks them one by one: every lane tests one bit, its rank is
 * the popcount of the lower bits plus the ones before that word.  A build
 * with GPX_DEC_FAST (a compile-time variant, off by default) decodes the
 * forms it names with the faster decoders of gpx_dec_dev.cuh instead
 * (consecutive elements per lane, ranks by a warp scan and a search).
 *
 * Both blob format versions are read (gpx_codec.h).  Every block has a
 * form: PFOR and LRC blocks (the codecs' own, word-aligned in the payload),
 * Elias-Fano blocks (v1 qs: one list over the whole payload, read as a
 * window of it; v2: a block with its own low-bit width) and v2 bitmap
 * blocks.  gpx_d_form() tells it from the version, the codec and the
 * directory's kind bits; gpx_d_ef_of() turns both Elias-Fano layouts into
 * one view, so v1 qs and v2 EF blocks share their decode and probe.  A v2
 * list of one block has no directory: its first docID and kind come from
 * the view, and its payload may start at any byte (payload_bit).  Bitmap
 * blocks are decoded by words (a warp scan of popcounts) and probed with
 * one bit test.
 *
 * Probes (one thread per candidate) use two device-only side tables built
 * on the GPU when a list enters the cache: a hash-segmentation table over
 * the directory (block of x in O(1) plus a short binary search) and a skip
 * entry per block (PFor blocks: values of elements 32/64/96 and the
 * exceptions before them; Elias-Fano blocks: upper-bit positions of their
 * ones 64/128/192).
 */
#ifndef GPX_CUDA_DEV_CUH
#define GPX_CUDA_DEV_CUH

#include "gpx_cuda_port.cuh"
#include "gpx_codec.h"
#include "gpx_bits.h"

#define GPX_D_FULL		0xffffffffu
#ifndef GPX_D_WARPS
#define GPX_D_WARPS		8		/* warps per thread-block */
#endif
#define GPX_D_THREADS	(32 * GPX_D_WARPS)
/*
 * Shared words per warp for block decoding: pfor stages its block's words
 * in [0, GPX_D_STAGE) and patches exceptions in [GPX_D_STAGE, +128); lrc
 * stages its segment in [0, 260); qs keeps 256 high parts.
 */
#define GPX_D_STAGE		160		/* >= 156, the largest pfor block in words */
#define GPX_D_SCRATCH	320
#define GPX_D_LRC_STAGE	260		/* 3 header words + 256 deviations of 32 bits */
/*
 * pfor probes: lanes that must share a block before the warp decodes it
 * together (fewer: each lane streams gaps from its block's checkpoint)
 */
#ifndef GPX_D_COOP_MIN
#define GPX_D_COOP_MIN	8
#endif

/*
 * A list as the kernels see it (device pointers into one resident blob),
 * made on the host from gpx_dev_view().
 */
typedef struct gpx_dl
{
	const uint8_t *dir;			/* nblocks entries of dir_stride bytes
								 * {first, loc, ...}; NULL: v2, one block */
	const uint8_t *payload;		/* word-aligned: the word holding the
								 * payload's first byte */
	const uint32_t *tbl;		/* hash-segmentation table or NULL */
	const uint4 *skip;			/* per-block checkpoints (pfor, qs) or NULL */
	uint32_t	n;
	uint32_t	nblocks;
	uint32_t	first;
	uint32_t	last;
	uint32_t	payload_words;	/* words from payload up to the payload's end
								 * (the last may reach into the blob's
								 * zero padding: GPX_BLOB_PAD) */
	uint32_t	payload_bytes;
	uint32_t	payload_bit;	/* bit of the payload's first byte (0 with a
								 * directory) */
	uint32_t	qs_low_words;	/* v1 qs: words of the low-bits array */
	uint32_t	tbl_shift;		/* bucket of x: x >> tbl_shift */
	uint32_t	tbl_nb;			/* buckets; tbl has tbl_nb + 1 entries */
	uint32_t	dir_stride;
	uint8_t		codec;
	uint8_t		param;			/* v1 qs: low bits b */
	uint8_t		log2_block;
	uint8_t		version;		/* 1 or 2 */
	uint8_t		kind0;			/* v2 one-block list: its kind */
	uint8_t		pad[3];
	const uint32_t *tf;			/* v2 GPX_F_TF: the tf section (word
								 * aligned: gpx_codec.h), else NULL */
	uint32_t	tf_words;		/* its 32-bit words (2 per code word) */
	uint32_t	pad2;
} gpx_dl;

/*
 * One query (or a part of one) inside a chunk: its source is blocks
 * [blk0, blk0 + nblk) of chunk list slot src, decoded by warps
 * [wbeg, wbeg + nblk) into cand[cbeg, cbeg + ccount); the other lists are
 * olist[obeg, obeg + ocount) (chunk list slots, shortest first); only
 * candidates in [lo, hi] can match; results go to dst[0 .. cap).
 */
typedef struct gpx_dpiece
{
	uint32_t	cbeg;
	uint32_t	ccount;
	uint32_t	obeg;
	uint32_t	ocount;
	uint32_t	lo;
	uint32_t	hi;
	uint32_t	cap;
	uint32_t	src;
	uint32_t	blk0;
	uint32_t	wbeg;
	uint32_t   *dst;
} gpx_dpiece;

/* One blob to move from the staging buffer into the list cache. */
typedef struct gpx_dupload
{
	uint64_t	src_off;		/* byte offset in the device staging buffer */
	uint4	   *dst;			/* 256-byte aligned destination */
	uint64_t	units;			/* 16-byte units to copy */
} gpx_dupload;

/* ------------------------------------------------------ common helpers -- */

/* First docID of block blk (directory, or the list's first). */
GPX_DEV uint32_t
gpx_d_first(const gpx_dl *L, uint32_t blk)
{
	if (L->dir == NULL)
		return L->first;
	return gpx_load32(L->dir + (size_t) blk * L->dir_stride);
}

/* Stored offset / loc of block blk (0 without a directory). */
GPX_DEV uint32_t
gpx_d_loc(const gpx_dl *L, uint32_t blk)
{
	if (L->dir == NULL)
		return 0;
	return gpx_load32(L->dir + (size_t) blk * L->dir_stride + 4);
}

/* How a block of kind bits kind (v2; ignored in v1) is coded (gpx_form). */
GPX_DEV uint32_t
gpx_d_form_kind(const gpx_dl *L, uint32_t kind)
{
	if (L->version == GPX_FORMAT_V1)
		return L->codec == GPX_CODEC_PFOR ? GPX_FORM_PFOR :
			L->codec == GPX_CODEC_LRC ? GPX_FORM_LRC : GPX_FORM_QS1;
	if (kind == GPX_KIND_EF)
		return GPX_FORM_EF;
	if (kind == GPX_KIND_BITMAP)
		return GPX_FORM_BITMAP;
	return L->codec == GPX_CODEC_PFOR ? GPX_FORM_PFOR : GPX_FORM_LRC;
}

/* How block blk is coded (gpx_form). */
GPX_DEV uint32_t
gpx_d_form(const gpx_dl *L, uint32_t blk)
{
	if (L->version == GPX_FORMAT_V1)
		return gpx_d_form_kind(L, 0);
	return gpx_d_form_kind(L, L->dir == NULL ? L->kind0 : (gpx_d_loc(L, blk) & 3u));
}

/*
 * First bit of block blk, counted from L->payload (not for v1 qs blocks,
 * whose directory holds upper-bit positions).
 */
GPX_DEV uint64_t
gpx_d_bit(const gpx_dl *L, uint32_t blk)
{
	if (L->version == GPX_FORMAT_V1)
		return (uint64_t) gpx_d_loc(L, blk) * 32;
	if (L->dir == NULL)
		return L->payload_bit;
	return (uint64_t) (gpx_d_loc(L, blk) >> 2) * 8;
}

/* Bit where block blk's bytes end (the next block's first, or the payload's end). */
GPX_DEV uint64_t
gpx_d_endbit(const gpx_dl *L, uint32_t blk)
{
	if (blk + 1 < L->nblocks)
		return gpx_d_bit(L, blk + 1);
	return L->payload_bit + (uint64_t) L->payload_bytes * 8;
}

/* Payload word where a PFor / LRC block starts. */
GPX_DEV uint32_t
gpx_d_off(const gpx_dl *L, uint32_t blk)
{
	return (uint32_t) (gpx_d_bit(L, blk) >> 5);
}

/* Element count of block blk. */
GPX_DEV uint32_t
gpx_d_count(const gpx_dl *L, uint32_t blk)
{
	uint64_t	rest = (uint64_t) L->n - ((uint64_t) blk << L->log2_block);
	uint32_t	bs = 1u << L->log2_block;

	return rest < bs ? (uint32_t) rest : bs;
}

/*
 * Last block whose first docID is <= x, for first <= x (n > 0).  The
 * hash-segmentation table (Ao et al. 4.4, over the directory) narrows the
 * binary search to the blocks whose first docIDs share x's bucket:
 * tbl[h] = number of blocks whose (first >> shift) < h.
 */
GPX_DEV uint32_t
gpx_d_find_block(const gpx_dl *L, uint32_t x)
{
	uint32_t	lo = 0,
				hi = L->nblocks;

	if (L->tbl != NULL)
	{
		uint32_t	h = x >> L->tbl_shift;

		if (h < L->tbl_nb)
		{
			uint32_t	a = L->tbl[h];
			uint32_t	c = L->tbl[h + 1];

			lo = a > 0 ? a - 1 : 0;
			hi = c > lo ? c : lo + 1;
			if (hi > L->nblocks)
				hi = L->nblocks;
		}
	}
	/* invariant: first(lo) <= x, first(hi) > x or hi == nblocks */
	while (hi - lo > 1)
	{
		uint32_t	mid = lo + (hi - lo) / 2;

		if (gpx_d_first(L, mid) <= x)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Inclusive prefix sum of s within each group of `width` lanes (a power
 * of two up to 32, a constant at every call), l: the lane in its group.
 */
GPX_DEV uint32_t
gpx_d_group_incl(uint32_t s, uint32_t l, uint32_t width)
{
#pragma unroll
	for (uint32_t d = 1; d < width; d <<= 1)
	{
		uint32_t	y = __shfl_up_sync(GPX_D_FULL, s, d);

		if (l >= d)
			s += y;
	}
	return s;
}

/* Inclusive warp prefix sum of s. */
GPX_DEV uint32_t
gpx_d_warp_incl(uint32_t s, uint32_t lane)
{
	return gpx_d_group_incl(s, lane, 32);
}

/*
 * A warp's four elements a lane from their running sums inc[] within the
 * lane: v[t] = first + the lanes before's totals + inc[t].
 */
GPX_DEV void
gpx_d_warp_add4(const uint32_t inc[4], uint32_t first, uint32_t lane,
				uint32_t v[4])
{
	uint32_t	tot = inc[3],
				s = gpx_d_warp_incl(tot, lane) - tot + first;

	v[0] = s + inc[0];
	v[1] = s + inc[1];
	v[2] = s + inc[2];
	v[3] = s + inc[3];
}

/* g[0..3] |= the four words at p (16-byte aligned). */
GPX_DEV void
gpx_d_or4(uint32_t g[4], const uint32_t *p)
{
	uint4		q = *(const uint4 *) p;

	g[0] |= q.x;
	g[1] |= q.y;
	g[2] |= q.z;
	g[3] |= q.w;
}

/* First index i of sorted a[0..n) with a[i] >= x (n when none). */
GPX_DEV uint32_t
gpx_d_lower(const uint32_t *a, uint32_t n, uint32_t x)
{
	uint32_t	lo = 0,
				hi = n;

	while (lo < hi)
	{
		uint32_t	mid = lo + ((hi - lo) >> 1);

		if (a[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* First index i of sorted a[0..n) with a[i] > x (n when none). */
GPX_DEV uint32_t
gpx_d_upper(const uint32_t *a, uint32_t n, uint32_t x)
{
	return x == UINT32_MAX ? n : gpx_d_lower(a, n, x + 1);
}

/* The last index of sorted a[0..n) whose value is <= x (a[0] <= x). */
GPX_DEV uint32_t
gpx_d_last_leq(const uint32_t *a, uint32_t n, uint32_t x)
{
	uint32_t	lo = 0,
				hi = n;

	while (hi - lo > 1)
	{
		uint32_t	mid = (lo + hi) >> 1;

		if (a[mid] <= x)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The window [*lo, *hi) of sorted a[0..n) that can hold a warp's keys
 * dmin .. dmax (ascending by lane): lane 0 and lane 31 search, every lane
 * gets the bounds.  All 32 lanes must call.
 */
GPX_DEV void
gpx_d_warp_window(const uint32_t *a, uint32_t n, uint32_t dmin, uint32_t dmax,
				  uint32_t lane, uint32_t *lo, uint32_t *hi)
{
	uint32_t	t = 0;

	if (lane == 0)
		t = gpx_d_lower(a, n, dmin);
	else if (lane == 31)
		t = gpx_d_upper(a, n, dmax);
	*lo = __shfl_sync(GPX_D_FULL, t, 0);
	*hi = __shfl_sync(GPX_D_FULL, t, 31);
}

/*
 * First index i >= from of sorted a[0..n) with a[i] >= x (n when none),
 * with the whole warp (from and x warp-uniform, and so is the result):
 * the lanes first read the 32 elements from `from` on (one or two cache
 * lines: a seek a short way ahead ends there), then gallop (lane l probes
 * 2^l - 1 past them), then each round probes 32 evenly spaced places of
 * what is left, so a seek across the whole list takes about log32(n)
 * rounds of loads, against log2(n) dependent loads of one lane's binary
 * search.  All 32 lanes must call.
 */
GPX_DEV uint32_t
gpx_d_warp_seek(const uint32_t *a, uint32_t from, uint32_t n, uint32_t x, uint32_t lane)
{
	uint64_t	p;
	uint32_t	lo,
				hi,
				c;

	if (from >= n)
		return n;
	c = __popc(__ballot_sync(GPX_D_FULL, from + lane < n && a[from + lane] < x));
	if (c < 32)
		return from + c;
	from += 32;					/* <= n: a[from - 1] < x */
	p = (uint64_t) from + ((uint64_t) 1 << lane) - 1;
	c = __popc(__ballot_sync(GPX_D_FULL, p < n && a[p] < x));
	if (c == 0)
		return from;
	/* a[from + 2^(c-1) - 1] < x; a[from + 2^c - 1] >= x, or it is past n */
	lo = from + (1u << (c - 1));
	hi = (uint64_t) from + ((uint64_t) 1 << c) - 1 < n ? from + (uint32_t) (((uint64_t) 1 << c) - 1) : n;
	/* the answer is in [lo, hi] */
	while (hi - lo > 32)
	{
		uint32_t	step = (hi - lo + 31) >> 5;
		uint32_t	q = lo + lane * step;

		c = __popc(__ballot_sync(GPX_D_FULL, q < hi && a[q] < x));
		if (c == 0)
			return lo;
		if (lo + c * step < hi)
			hi = lo + c * step;
		lo = lo + (c - 1) * step + 1;
	}
	return lo + __popc(__ballot_sync(GPX_D_FULL, lo + lane < hi && a[lo + lane] < x));
}

/*
 * How many of the warp's 32 values wv (ascending by lane) are < x, for
 * each lane's own x: five shuffles, no memory.  All 32 lanes must call.
 */
GPX_DEV uint32_t
gpx_d_shfl_lower(uint32_t wv, uint32_t x)
{
	uint32_t	i = 0;

#pragma unroll
	for (uint32_t s = 16; s > 0; s >>= 1)
		if (__shfl_sync(GPX_D_FULL, wv, (int) (i + s - 1)) < x)
			i += s;
	/* i <= 31 here: all 32 below x reads as 31 */
	return __shfl_sync(GPX_D_FULL, wv, (int) i) < x ? 32 : i;
}

/* ---------------------------------------------------------------- pfor -- */

/*
 * Decode pfor block (payload word off, cnt elements, first docID first)
 * with the whole warp: lane gets elements 4*lane .. 4*lane+3 in v (values
 * past cnt are unspecified).  xs: 128 words of shared memory of this warp
 * (16-byte aligned), used to patch exceptions.  All lanes must call.
 */
GPX_DEV void
gpx_d_pfor_warp(const uint8_t *P, uint32_t off, uint32_t cnt, uint32_t first,
				uint32_t lane, uint32_t *xs, uint32_t v[4])
{
	uint32_t	h = gpx_word(P, off);
	uint32_t	b = h & 0x3Fu;
	uint32_t	e = (h >> 6) & 0x7Fu;
	uint32_t	hb = (h >> 13) & 0x3Fu;
	uint32_t	m = cnt - 1;
	uint64_t	bit = (uint64_t) off * 32 + 19;
	uint32_t	mask = gpx_mask(b);
	/* slot t of this lane holds gap 4*lane - 1 + t (the gap before element 4*lane + t) */
	int			t0 = lane == 0 ? 1 : 0;
	int			gfirst = (int) (4 * lane) - 1 + t0;
	int			nv = (int) m - gfirst;
	uint32_t	g[4] = {0, 0, 0, 0};
	uint32_t	inc[4];

	if (nv > 4 - t0)
		nv = 4 - t0;
	if (nv < 0)
		nv = 0;
	if (b != 0 && nv > 0)
	{
		uint64_t	p = bit + (uint64_t) gfirst * b;
		uint64_t	w = p >> 5;
		uint64_t	acc = (uint64_t) gpx_word(P, w) >> (p & 31);
		uint32_t	avail = 32 - (uint32_t) (p & 31);

		w++;
#pragma unroll
		for (int t = 0; t < 4; t++)
		{
			if (t >= t0 && t < t0 + nv)
			{
				if (avail < b)
				{
					acc |= (uint64_t) gpx_word(P, w) << avail;
					w++;
					avail += 32;
				}
				g[t] = (uint32_t) acc & mask;
				acc >>= b;
				avail -= b;
			}
		}
	}
	if (e != 0)
	{
		/* exceptions: lane x patches POS[x], HIGH[x] (e is warp-uniform) */
		uint64_t	posbit = bit + (uint64_t) m * b;
		uint64_t	hibit = posbit + (uint64_t) e * 7;

		*(uint4 *) (xs + 4 * lane) = make_uint4(0, 0, 0, 0);
		__syncwarp();
		for (uint32_t x = lane; x < e; x += 32)
		{
			uint32_t	pos = gpx_get_bits(P, posbit + (uint64_t) x * 7, 7);
			uint32_t	hi = gpx_get_bits(P, hibit + (uint64_t) x * hb, hb);

			if (pos < m)
				xs[pos + 1] = hi << (b & 31);
		}
		__syncwarp();
		gpx_d_or4(g, xs + 4 * lane);
		__syncwarp();
	}
	/* localized prefix sum: d[j] = first + sum over gaps before j of (g + 1) */
#pragma unroll
	for (int t = 0; t < 4; t++)
		inc[t] = (t >= t0 && t < t0 + nv) ? g[t] + 1 : 0;
	inc[1] += inc[0];
	inc[2] += inc[1];
	inc[3] += inc[2];
	gpx_d_warp_add4(inc, first, lane, v);
}

/*
 * Whether x is in pfor block blk (first(blk) <= x), one thread: start at
 * the last checkpoint <= x of the block's skip entry (elements 32, 64, 96:
 * value and exceptions before it), then stream the LOW fields and the
 * exceptions, summing gaps until the value reaches x (<= 32 gaps with a
 * skip table, <= 127 without).
 */
GPX_DEV bool
gpx_d_pfor_contains(const gpx_dl *L, uint32_t blk, uint32_t x)
{
	const uint8_t *P = L->payload;
	uint32_t	cnt = gpx_d_count(L, blk);
	uint32_t	v = gpx_d_first(L, blk);
	uint32_t	s = 0,
				xi = 0,
				lim,
				off,
				h,
				b,
				e,
				hb,
				m,
				mask,
				avail = 0,
				npos;
	uint64_t	bit,
				posbit,
				hibit,
				w,
				acc = 0;

	if (v == x)
		return true;
	if (x < v || cnt < 2)
		return false;
	m = cnt - 1;
	lim = m;					/* gaps i in [s, lim) lead to elements s+1 .. lim */
	if (L->skip != NULL)
	{
		uint4		c = L->skip[blk];

		/* invalid checkpoints hold 0xFFFFFFFF, above every docID */
		if (c.z <= x)
			s = 96, v = c.z, xi = (c.w >> 16) & 0xFFu;
		else if (c.y <= x)
			s = 64, v = c.y, xi = (c.w >> 8) & 0xFFu;
		else if (c.x <= x)
			s = 32, v = c.x, xi = c.w & 0xFFu;
		if (v == x)
			return true;
		if (s < 96 && s + 32 < lim)
			lim = s + 32;		/* the next checkpoint is > x */
	}
	off = gpx_d_off(L, blk);
	if (off >= L->payload_words)
		return false;
	h = gpx_word(P, off);
	b = h & 0x3Fu;
	e = (h >> 6) & 0x7Fu;
	hb = (h >> 13) & 0x3Fu;
	mask = gpx_mask(b);
	bit = (uint64_t) off * 32 + 19;
	posbit = bit + (uint64_t) m * b;
	hibit = posbit + (uint64_t) e * 7;
	bit += (uint64_t) s * b;
	w = bit >> 5;
	if (b != 0)
	{
		acc = (uint64_t) gpx_word(P, w) >> (bit & 31);
		avail = 32 - (uint32_t) (bit & 31);
		w++;
	}
	npos = xi < e ? gpx_get_bits(P, posbit + (uint64_t) xi * 7, 7) : 0xFFFFFFFFu;
	for (uint32_t i = s; i < lim; i++)
	{
		uint32_t	g = 0;

		if (b != 0)
		{
			if (avail < b)
			{
				acc |= (uint64_t) gpx_word(P, w) << avail;
				w++;
				avail += 32;
			}
			g = (uint32_t) acc & mask;
			acc >>= b;
			avail -= b;
		}
		if (i == npos)
		{
			g |= gpx_get_bits(P, hibit + (uint64_t) xi * hb, hb) << (b & 31);
			xi++;
			npos = xi < e ? gpx_get_bits(P, posbit + (uint64_t) xi * 7, 7) : 0xFFFFFFFFu;
		}
		v += g + 1;
		if (v >= x)
			return v == x;
	}
	return false;
}

/* ----------------------------------------------------------------- lrc -- */

/* One lrc segment's header. */
typedef struct gpx_d_seg
{
	uint32_t	base;			/* int32 as stored (wrapping arithmetic) */
	uint32_t	slope;			/* slope_q, 8 fraction bits */
	uint32_t	maxdev;
	uint32_t	w;				/* deviation width */
	uint64_t	devbit;			/* bit position of dev[0] in the payload */
} gpx_d_seg;

/* Read the header of lrc segment blk. */
GPX_DEV gpx_d_seg
gpx_d_lrc_seg(const gpx_dl *L, uint32_t blk)
{
	gpx_d_seg	s;
	uint32_t	off = gpx_d_off(L, blk);

	s.base = gpx_word(L->payload, off);
	s.slope = gpx_word(L->payload, (uint64_t) off + 1);
	s.maxdev = gpx_word(L->payload, (uint64_t) off + 2);
	s.w = gpx_bitwidth(s.maxdev);
	s.devbit = ((uint64_t) off + 3) * 32;
	return s;
}

/* Element j of a segment: base + ((slope * j) >> 8) + dev[j] (j < 256). */
GPX_DEV uint32_t
gpx_d_lrc_elem(const uint8_t *P, const gpx_d_seg *s, uint32_t j)
{
	/* (slope * j) >> 8 == high word of slope * (j << 24), exactly */
	return s->base + __umulhi(s->slope, j << 24) +
		gpx_get_bits(P, s->devbit + (uint64_t) j * s->w, s->w);
}

/*
 * First j < cnt with (slope * j) >> 8 >= t, or cnt, within one: the value
 * returned for the upper end is >= the exact one, the exact one minus one
 * for the lower end (lower != 0); double division of integers < 2^53 is
 * close enough that ceil() is off by at most one, upwards.
 */
GPX_DEV uint32_t
gpx_d_lrc_lift_geq(uint32_t slope, int64_t t, uint32_t cnt, int lower)
{
	double		q;
	int64_t		j;

	if (t <= 0)
		return 0;
	if (slope == 0)
		return cnt;
	q = (double) t * 256.0 / (double) slope;
	if (q >= (double) cnt + 2.0)
		return cnt;
	j = (int64_t) ceil(q) - (lower ? 1 : 0);
	if (j < 0)
		j = 0;
	return j < (int64_t) cnt ? (uint32_t) j : cnt;
}

/*
 * Whether x is in lrc segment blk (first(blk) <= x): linear-regression
 * contraction of the range (every dev in [0, maxdev]), then binary search
 * decoding single elements.
 */
GPX_DEV bool
gpx_d_lrc_contains(const gpx_dl *L, uint32_t blk, uint32_t x)
{
	uint32_t	cnt = gpx_d_count(L, blk);
	gpx_d_seg	s = gpx_d_lrc_seg(L, blk);
	int64_t		t = (int64_t) x - (int64_t) (int32_t) s.base;
	uint32_t	lo = gpx_d_lrc_lift_geq(s.slope, t - (int64_t) s.maxdev, cnt, 1);
	uint32_t	hi = gpx_d_lrc_lift_geq(s.slope, t, cnt, 0);

	while (lo < hi)
	{
		uint32_t	mid = lo + (hi - lo) / 2;

		if (gpx_d_lrc_elem(L->payload, &s, mid) < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < cnt && gpx_d_lrc_elem(L->payload, &s, lo) == x;
}

/* ---------------------------------------------------------- Elias-Fano -- */

/*
 * One Elias-Fano block, v1 qs or v2 EF, as a window of ones: take cnt ones
 * of the upper bits from position p0 (positions count from bit ubit of
 * the payload); the r-th of them, at position p, is element ibias + r of
 * the low-bits array (bit lowbit + (ibias + r) * b), with value
 *   add + (((p - (ibias + r)) << b) | LOW)
 * and block-local index jbias + r.  v1 qs: the whole list's arrays, p0 the
 * block's sample, ibias its first element, add 0, jbias 0.  v2 EF: the
 * block's own arrays, the ones of elements 1..cnt-1, add first + 1, jbias
 * 1 (element 0 is the directory's first).  uend bounds the word loads.
 */
typedef struct gpx_d_ef
{
	uint64_t	ubit;
	uint64_t	uend;
	uint64_t	lowbit;
	uint32_t	p0;
	uint32_t	cnt;
	uint32_t	ibias;
	uint32_t	b;
	uint32_t	add;
	uint32_t	jbias;
} gpx_d_ef;

/* The Elias-Fano view of block blk (form QS1 or EF). */
GPX_DEV gpx_d_ef
gpx_d_ef_of(const gpx_dl *L, uint32_t blk)
{
	gpx_d_ef	e;
	uint32_t	cnt = gpx_d_count(L, blk);

	if (L->version == GPX_FORMAT_V1)
	{
		e.ubit = (uint64_t) L->qs_low_words * 32;
		e.uend = (uint64_t) L->payload_words * 32;
		e.lowbit = 0;
		e.p0 = gpx_d_loc(L, blk);
		e.cnt = cnt;
		e.ibias = blk << 8;
		e.b = L->param;
		e.add = 0;
		e.jbias = 0;
	}
	else
	{
		uint64_t	bit = gpx_d_bit(L, blk);

		e.cnt = cnt - 1;
		e.b = e.cnt > 0 ? gpx_get_bits(L->payload, bit, 5) : 0;
		e.lowbit = bit + 5;
		e.ubit = e.lowbit + (uint64_t) e.cnt * e.b;
		e.uend = gpx_d_endbit(L, blk);
		e.p0 = 0;
		e.ibias = 0;
		e.add = gpx_d_first(L, blk) + 1;
		e.jbias = 1;
	}
	return e;
}

/* LOW of the taken one r. */
GPX_DEV uint32_t
gpx_d_ef_low(const gpx_dl *L, const gpx_d_ef *e, uint32_t r)
{
	return gpx_get_bits(L->payload, e->lowbit + (uint64_t) (e->ibias + r) * e->b, e->b);
}

/*
 * Whether x is in Elias-Fano block blk (first(blk) < x), one thread: from
 * the window's start (or a later checkpoint of its skip entry, the
 * positions of ones 64, 128, 192) skip ((x - add) >> b) - h0 zeros word by
 * word (popcount), then compare the remaining elements' values (as
 * gpx_qs1_block_lower_bound and gpx_ef_blk_lower_bound on the CPU).
 */
GPX_DEV bool
gpx_d_ef_contains(const gpx_dl *L, uint32_t blk, uint32_t x)
{
	gpx_d_ef	e = gpx_d_ef_of(L, blk);
	const uint8_t *P = L->payload;
	uint64_t	nwords = (e.uend + 31) >> 5;
	uint32_t	hx,
				h0,
				r0 = 0,
				p0 = e.p0,
				cnt = e.cnt,
				sh,
				w,
				ones,
				j = 0;
	uint64_t	abs,
				wi;

	if (x < e.add || cnt == 0)
		return false;
	hx = (x - e.add) >> e.b;
	if (L->skip != NULL)
	{
		/* start at the last checkpoint whose high part is below x's */
		uint4		c = L->skip[blk];

		if (c.z != 0xFFFFFFFFu && c.z - (e.ibias + 192) < hx)
			p0 = c.z, r0 = 192;
		else if (c.y != 0xFFFFFFFFu && c.y - (e.ibias + 128) < hx)
			p0 = c.y, r0 = 128;
		else if (c.x != 0xFFFFFFFFu && c.x - (e.ibias + 64) < hx)
			p0 = c.x, r0 = 64;
		cnt -= r0;
	}
	h0 = p0 - (e.ibias + r0);
	abs = e.ubit + p0;
	wi = abs >> 5;
	sh = (uint32_t) (abs & 31);
	if (wi >= nwords)
		return false;
	w = gpx_word(P, wi);
	ones = w & (~0u << sh);
	if (hx > h0)
	{
		uint32_t	need = hx - h0;
		uint32_t	zeros = ~w & (~0u << sh);

		for (;;)
		{
			uint32_t	zc = __popc(zeros);

			if (need <= zc)
			{
				uint32_t	zp = gpx_select32(zeros, need - 1);
				uint32_t	below = (1u << zp) - 1;

				j += __popc(ones & below);
				ones &= ~below;
				break;
			}
			need -= zc;
			j += __popc(ones);
			if (j >= cnt || wi + 1 >= nwords)
				return false;
			w = gpx_word(P, ++wi);
			ones = w;
			zeros = ~w;
		}
		if (j >= cnt)
			return false;
	}
	for (; j < cnt; j++)
	{
		uint32_t	i = e.ibias + r0 + j;
		uint32_t	p,
					v;

		while (ones == 0)
		{
			if (wi + 1 >= nwords)
				return false;
			ones = gpx_word(P, ++wi);
		}
		p = (uint32_t) ((wi << 5) + (uint64_t) (__ffs(ones) - 1) - e.ubit);
		ones &= ones - 1;
		v = e.add + (((p - i) << e.b) | gpx_d_ef_low(L, &e, r0 + j));
		if (v >= x)
			return v == x;
	}
	return false;
}

/* ------------------------------------------------------------- bitmap -- */

/* Whether x is in bitmap block blk (first(blk) < x): one bit test. */
GPX_DEV bool
gpx_d_bm_contains(const gpx_dl *L, uint32_t blk, uint32_t x)
{
	uint64_t	bit = gpx_d_bit(L, blk);
	uint32_t	f = gpx_d_first(L, blk);
	uint64_t	pos;

	if (x <= f)
		return x == f;
	pos = bit + (uint64_t) (x - f - 1);
	return pos < gpx_d_endbit(L, blk) && gpx_get_bits(L->payload, pos, 1) != 0;
}

/* ------------------------------------------------- warp block decoders -- */

/*
 * Load words [off, end) of the payload (at most cap) into the warp's
 * shared stage with coalesced loads; the directory gives both ends, so
 * this needs no header first.  All lanes must call.
 */
GPX_DEV void
gpx_d_stage(const gpx_dl *L, uint32_t off, uint32_t end, uint32_t cap,
			uint32_t lane, uint32_t *stg)
{
	uint32_t	nw;

	if (end > L->payload_words)
		end = L->payload_words;
	nw = end > off ? end - off : 0;
	if (nw > cap)
		nw = cap;
	for (uint32_t k = lane; k < nw; k += 32)
		stg[k] = gpx_word(L->payload, (uint64_t) off + k);
	__syncwarp();
}

/* Payload word where a PFor / LRC block ends: the next block's start. */
GPX_DEV uint32_t
gpx_d_end(const gpx_dl *L, uint32_t blk)
{
	return (uint32_t) ((gpx_d_endbit(L, blk) + 31) >> 5);
}

#include "gpx_dec_dev.cuh"

/*
 * Decode block blk of L with the whole warp, handing element j (block-
 * local index) to sink(j, value).  xs: the warp's GPX_D_SCRATCH shared
 * words (16-byte aligned).  PFor and LRC blocks first stage their words in
 * shared memory (one round trip to memory, then everything from shared);
 * Elias-Fano blocks gather their low bits while they walk the upper bits;
 * bitmap blocks scan their words.  All 32 lanes must call; blk must be <
 * nblocks.
 */
template <typename Sink>
GPX_DEV void
gpx_d_block_warp_gen(const gpx_dl *L, uint32_t blk, uint32_t lane, uint32_t *xs,
					 Sink sink)
{
	uint32_t	cnt = gpx_d_count(L, blk);
	uint32_t	form = gpx_d_form(L, blk);	/* warp-uniform */

	if (form == GPX_FORM_PFOR)
	{
		uint32_t	v[4];

		gpx_d_stage(L, gpx_d_off(L, blk), gpx_d_end(L, blk), GPX_D_STAGE, lane, xs);
		gpx_d_pfor_warp((const uint8_t *) xs, 0, cnt, gpx_d_first(L, blk),
						lane, xs + GPX_D_STAGE, v);
		__syncwarp();			/* the stage is reused by the next block */
#pragma unroll
		for (uint32_t t = 0; t < 4; t++)
			if (4 * lane + t < cnt)
				sink(4 * lane + t, v[t]);
	}
	else if (form == GPX_FORM_LRC)
	{
		gpx_d_seg	s;

		gpx_d_stage(L, gpx_d_off(L, blk), gpx_d_end(L, blk), GPX_D_LRC_STAGE, lane, xs);
		s.base = xs[0];
		s.slope = xs[1];
		s.maxdev = xs[2];
		s.w = gpx_bitwidth(s.maxdev);
		s.devbit = 96;
#pragma unroll
		for (uint32_t t = 0; t < 8; t++)
		{
			uint32_t	j = lane + 32 * t;

			if (j < cnt)
				sink(j, gpx_d_lrc_elem((const uint8_t *) xs, &s, j));
		}
		__syncwarp();
	}
	else if (form == GPX_FORM_BITMAP)
	{
		/*
		 * bitmap: 32 lanes take 32 consecutive 32-bit chunks of the
		 * block's bits; a warp scan of their popcounts ranks every one,
		 * bit t of chunk c is element first + 1 + 32 c + t
		 */
		const uint8_t *P = L->payload;
		uint64_t	bit = gpx_d_bit(L, blk);
		uint64_t	nbits = gpx_d_endbit(L, blk) - bit;
		uint32_t	f = gpx_d_first(L, blk);
		uint32_t	m = cnt - 1;
		uint32_t	produced = 0;	/* warp-uniform */

		if (lane == 0)
			sink(0, f);
		for (uint64_t c0 = 0; produced < m && c0 < nbits; c0 += 32 * 32)
		{
			uint64_t	off = c0 + 32 * (uint64_t) lane;
			uint32_t	w = 0,
						pc,
						incl;

			if (off < nbits)
				w = gpx_get_bits(P, bit + off,
								 nbits - off < 32 ? (uint32_t) (nbits - off) : 32);
			pc = __popc(w);
			incl = gpx_d_warp_incl(pc, lane);
			for (uint32_t r = produced + incl - pc; w != 0; r++)
			{
				uint32_t	t = (uint32_t) (__ffs(w) - 1);

				w &= w - 1;
				if (r < m)
					sink(1 + r, f + 1 + (uint32_t) off + t);
			}
			produced += __shfl_sync(GPX_D_FULL, incl, 31);
		}
		__syncwarp();
	}
	else
	{
		/*
		 * Elias-Fano (v1 qs, v2 EF): the low bits are loaded first
		 * (lane-strided, independent and coalesced), then the upper bits
		 * are walked from the window's start, 32 words per step: the warp
		 * ballots the non-zero words and takes them one by one, lane l
		 * testing bit l; a one's rank is the popcount below it plus the
		 * ones before, its high part its position minus its index.
		 */
		gpx_d_ef	e = gpx_d_ef_of(L, blk);
		const uint8_t *P = L->payload;
		uint64_t	start = e.ubit + e.p0;
		uint64_t	wi0 = start >> 5;
		uint64_t	nwords = (e.uend + 31) >> 5;
		uint32_t	produced = 0;	/* warp-uniform */
		uint32_t	low[8];

		if (e.jbias != 0 && lane == 0)
			sink(0, gpx_d_first(L, blk));
#pragma unroll
		for (uint32_t t = 0; t < 8; t++)
		{
			uint32_t	r = lane + 32 * t;

			low[t] = r < e.cnt ? gpx_d_ef_low(L, &e, r) : 0;
		}
		for (uint64_t cw = wi0; produced < e.cnt && cw < nwords; cw += 32)
		{
			uint64_t	wi = cw + lane;
			uint32_t	word = wi < nwords ? gpx_word(P, wi) : 0;
			uint32_t	nz;

			if (wi == wi0)
				word &= ~0u << (start & 31);
			nz = __ballot_sync(GPX_D_FULL, word != 0);
			while (nz != 0 && produced < e.cnt)
			{
				uint32_t	src = (uint32_t) __ffs(nz) - 1;
				uint32_t	wv = __shfl_sync(GPX_D_FULL, word, src);
				uint32_t	r = produced + __popc(wv & ((1u << lane) - 1));

				nz &= nz - 1;
				if (((wv >> lane) & 1u) && r < e.cnt)
					xs[r] = (uint32_t) (((cw + src) << 5) + lane - e.ubit) - (e.ibias + r);
				produced += __popc(wv);
			}
		}
		__syncwarp();
#pragma unroll
		for (uint32_t t = 0; t < 8; t++)
		{
			uint32_t	r = lane + 32 * t;

			if (r < e.cnt)
				sink(e.jbias + r, e.add + ((xs[r] << e.b) | low[t]));
		}
		__syncwarp();
	}
}

/*
 * Decode block blk of L with the whole warp, handing element j (block-
 * local index) to sink(j, value), lanes taking j = lane + 32 t: with the
 * fast decoder of the block's form where GPX_DEC_FAST has one that takes
 * it (its values put in element order through xs), else the general
 * loops (gpx_d_block_warp_gen).  Same contract as gpx_d_block_warp_gen.
 */
template <typename Sink>
GPX_DEV void
gpx_d_block_warp(const gpx_dl *L, uint32_t blk, uint32_t lane, uint32_t *xs,
				 Sink sink)
{
#if GPX_DEC_FAST
	uint32_t	cnt = gpx_d_count(L, blk);
	uint32_t	form = gpx_d_form(L, blk);	/* warp-uniform */
	uint32_t	fv[8],
				per;

	if (gpx_d_fast(L, blk, form, cnt, lane, xs, fv, &per))
	{
		gpx_d_fast_order(xs, fv, per, lane);
#pragma unroll
		for (uint32_t t = 0; t < 8; t++)
		{
			uint32_t	j = lane + 32 * t;

			if (j < cnt)
				sink(j, xs[j]);
		}
		__syncwarp();
		return;
	}
	__syncwarp();				/* a refused block may have used the stage */
#endif
	gpx_d_block_warp_gen(L, blk, lane, xs, sink);
}

/* ------------------------------------------------- host-side wrappers -- */

/* Launch a one-thread kernel writing 0x67707869 to out[0]. */
cudaError_t gpx_cuda_k_ping(uint32_t *out, cudaStream_t st);

/* Launch the whole-list decoder of L's codec: out[0..n) (256-aligned). */
cudaError_t gpx_cuda_k_decode_list(const gpx_dl *L, uint32_t *out, cudaStream_t st);

/* Launch the copy of nup staged blobs into the cache. */
cudaError_t gpx_cuda_k_upload(const gpx_dupload *up, uint32_t nup,
							  const uint8_t *stage, cudaStream_t st);

/*
 * Launch the builds of the hash-segmentation tables (lists with tbl) and
 * skip tables (lists with skip) of ntb lists; max_entries: the largest
 * tbl_nb + 1, max_blocks: the largest nblocks.
 */
cudaError_t gpx_cuda_k_tables(const gpx_dl *lists, uint32_t ntb,
							  uint32_t max_entries, uint32_t max_blocks,
							  cudaStream_t st);

/*
 * Launch the intersection of one chunk: decode the nwork source blocks of
 * the pieces, probe every candidate in the other lists, scan the match
 * flags, write each piece's matches to its dst and its count to
 * counts[piece].
 */
cudaError_t gpx_cuda_k_chunk(const gpx_dl *dl, uint32_t nwork,
							 const gpx_dpiece *pieces, uint32_t npieces,
							 const uint32_t *olist, uint32_t *cand,
							 uint32_t *cpiece, uint32_t *flag, uint32_t *pos,
							 uint32_t ncand, void *scan_tmp,
							 size_t scan_tmp_bytes, uint32_t *counts,
							 cudaStream_t st);

/*
 * Host time spent in gpx_cuda_run_batch so far, in ms: planning, building
 * chunks, issuing them, waiting for the GPU, collecting results (for the
 * benchmark; reset zeroes the counters).
 */
struct gpx_cuda_ctx;
void		gpx_cuda_host_profile(struct gpx_cuda_ctx *ctx, double out[5], bool reset);

/* Temporary storage the chunk scan needs for up to max_cand candidates. */
cudaError_t gpx_cuda_k_scan_tmp_bytes(uint32_t max_cand, size_t *bytes);

#endif							/* GPX_CUDA_DEV_CUH */
