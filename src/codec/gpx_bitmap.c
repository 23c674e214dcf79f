/*
 * gpx_bitmap.c - the bitmap block of format version 2, for blocks whose
 * docIDs are dense: a block is stored as a bitmap when that is smaller
 * than its other forms (in every type), and is then decoded and probed by
 * words.
 *
 * BLOCK FORMAT (this comment is the specification the CUDA kernels follow)
 * ------------------------------------------------------------------------
 * A block holds cnt docIDs d[0..cnt); d[0] is its first docID, from the
 * directory or the header, not repeated.  Counted from the block's first
 * bit (LSB-first, byte 0 bit 0 first), bit j is set iff d[0] + 1 + j is
 * one of d[1..cnt): exactly cnt - 1 bits are set, and every bit after the
 * last one is zero up to the block's end.  A block of one docID has no
 * bits.  A block that is a whole one-block list ends with the byte holding
 * its last one bit (its last docID is read from the blob's final byte); in
 * a list with a directory, zero bytes may follow up to the next block.
 * So a bitmap block of cnt docIDs spanning d[cnt-1] - d[0] + 1 values
 * takes ceil((d[cnt-1] - d[0]) / 8) bytes.
 *
 * A probe of x is one bit test (x - d[0] - 1 inside the block's bits);
 * decoding walks 64-bit words with count-trailing-zeros.
 */
#include "gpx_internal.h"
#include "gpx_simd.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

/*
 * Positions of the one bits of every byte value, low first, padded with
 * zeros: a byte of the bitmap decodes with one table row and 8 stores.
 */
const uint8_t gpx_bm_pos[256][8] = {
	{0, 0, 0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0, 0, 0}, {1, 0, 0, 0, 0, 0, 0, 0}, {0, 1, 0, 0, 0, 0, 0, 0},
	{2, 0, 0, 0, 0, 0, 0, 0}, {0, 2, 0, 0, 0, 0, 0, 0}, {1, 2, 0, 0, 0, 0, 0, 0}, {0, 1, 2, 0, 0, 0, 0, 0},
	{3, 0, 0, 0, 0, 0, 0, 0}, {0, 3, 0, 0, 0, 0, 0, 0}, {1, 3, 0, 0, 0, 0, 0, 0}, {0, 1, 3, 0, 0, 0, 0, 0},
	{2, 3, 0, 0, 0, 0, 0, 0}, {0, 2, 3, 0, 0, 0, 0, 0}, {1, 2, 3, 0, 0, 0, 0, 0}, {0, 1, 2, 3, 0, 0, 0, 0},
	{4, 0, 0, 0, 0, 0, 0, 0}, {0, 4, 0, 0, 0, 0, 0, 0}, {1, 4, 0, 0, 0, 0, 0, 0}, {0, 1, 4, 0, 0, 0, 0, 0},
	{2, 4, 0, 0, 0, 0, 0, 0}, {0, 2, 4, 0, 0, 0, 0, 0}, {1, 2, 4, 0, 0, 0, 0, 0}, {0, 1, 2, 4, 0, 0, 0, 0},
	{3, 4, 0, 0, 0, 0, 0, 0}, {0, 3, 4, 0, 0, 0, 0, 0}, {1, 3, 4, 0, 0, 0, 0, 0}, {0, 1, 3, 4, 0, 0, 0, 0},
	{2, 3, 4, 0, 0, 0, 0, 0}, {0, 2, 3, 4, 0, 0, 0, 0}, {1, 2, 3, 4, 0, 0, 0, 0}, {0, 1, 2, 3, 4, 0, 0, 0},
	{5, 0, 0, 0, 0, 0, 0, 0}, {0, 5, 0, 0, 0, 0, 0, 0}, {1, 5, 0, 0, 0, 0, 0, 0}, {0, 1, 5, 0, 0, 0, 0, 0},
	{2, 5, 0, 0, 0, 0, 0, 0}, {0, 2, 5, 0, 0, 0, 0, 0}, {1, 2, 5, 0, 0, 0, 0, 0}, {0, 1, 2, 5, 0, 0, 0, 0},
	{3, 5, 0, 0, 0, 0, 0, 0}, {0, 3, 5, 0, 0, 0, 0, 0}, {1, 3, 5, 0, 0, 0, 0, 0}, {0, 1, 3, 5, 0, 0, 0, 0},
	{2, 3, 5, 0, 0, 0, 0, 0}, {0, 2, 3, 5, 0, 0, 0, 0}, {1, 2, 3, 5, 0, 0, 0, 0}, {0, 1, 2, 3, 5, 0, 0, 0},
	{4, 5, 0, 0, 0, 0, 0, 0}, {0, 4, 5, 0, 0, 0, 0, 0}, {1, 4, 5, 0, 0, 0, 0, 0}, {0, 1, 4, 5, 0, 0, 0, 0},
	{2, 4, 5, 0, 0, 0, 0, 0}, {0, 2, 4, 5, 0, 0, 0, 0}, {1, 2, 4, 5, 0, 0, 0, 0}, {0, 1, 2, 4, 5, 0, 0, 0},
	{3, 4, 5, 0, 0, 0, 0, 0}, {0, 3, 4, 5, 0, 0, 0, 0}, {1, 3, 4, 5, 0, 0, 0, 0}, {0, 1, 3, 4, 5, 0, 0, 0},
	{2, 3, 4, 5, 0, 0, 0, 0}, {0, 2, 3, 4, 5, 0, 0, 0}, {1, 2, 3, 4, 5, 0, 0, 0}, {0, 1, 2, 3, 4, 5, 0, 0},
	{6, 0, 0, 0, 0, 0, 0, 0}, {0, 6, 0, 0, 0, 0, 0, 0}, {1, 6, 0, 0, 0, 0, 0, 0}, {0, 1, 6, 0, 0, 0, 0, 0},
	{2, 6, 0, 0, 0, 0, 0, 0}, {0, 2, 6, 0, 0, 0, 0, 0}, {1, 2, 6, 0, 0, 0, 0, 0}, {0, 1, 2, 6, 0, 0, 0, 0},
	{3, 6, 0, 0, 0, 0, 0, 0}, {0, 3, 6, 0, 0, 0, 0, 0}, {1, 3, 6, 0, 0, 0, 0, 0}, {0, 1, 3, 6, 0, 0, 0, 0},
	{2, 3, 6, 0, 0, 0, 0, 0}, {0, 2, 3, 6, 0, 0, 0, 0}, {1, 2, 3, 6, 0, 0, 0, 0}, {0, 1, 2, 3, 6, 0, 0, 0},
	{4, 6, 0, 0, 0, 0, 0, 0}, {0, 4, 6, 0, 0, 0, 0, 0}, {1, 4, 6, 0, 0, 0, 0, 0}, {0, 1, 4, 6, 0, 0, 0, 0},
	{2, 4, 6, 0, 0, 0, 0, 0}, {0, 2, 4, 6, 0, 0, 0, 0}, {1, 2, 4, 6, 0, 0, 0, 0}, {0, 1, 2, 4, 6, 0, 0, 0},
	{3, 4, 6, 0, 0, 0, 0, 0}, {0, 3, 4, 6, 0, 0, 0, 0}, {1, 3, 4, 6, 0, 0, 0, 0}, {0, 1, 3, 4, 6, 0, 0, 0},
	{2, 3, 4, 6, 0, 0, 0, 0}, {0, 2, 3, 4, 6, 0, 0, 0}, {1, 2, 3, 4, 6, 0, 0, 0}, {0, 1, 2, 3, 4, 6, 0, 0},
	{5, 6, 0, 0, 0, 0, 0, 0}, {0, 5, 6, 0, 0, 0, 0, 0}, {1, 5, 6, 0, 0, 0, 0, 0}, {0, 1, 5, 6, 0, 0, 0, 0},
	{2, 5, 6, 0, 0, 0, 0, 0}, {0, 2, 5, 6, 0, 0, 0, 0}, {1, 2, 5, 6, 0, 0, 0, 0}, {0, 1, 2, 5, 6, 0, 0, 0},
	{3, 5, 6, 0, 0, 0, 0, 0}, {0, 3, 5, 6, 0, 0, 0, 0}, {1, 3, 5, 6, 0, 0, 0, 0}, {0, 1, 3, 5, 6, 0, 0, 0},
	{2, 3, 5, 6, 0, 0, 0, 0}, {0, 2, 3, 5, 6, 0, 0, 0}, {1, 2, 3, 5, 6, 0, 0, 0}, {0, 1, 2, 3, 5, 6, 0, 0},
	{4, 5, 6, 0, 0, 0, 0, 0}, {0, 4, 5, 6, 0, 0, 0, 0}, {1, 4, 5, 6, 0, 0, 0, 0}, {0, 1, 4, 5, 6, 0, 0, 0},
	{2, 4, 5, 6, 0, 0, 0, 0}, {0, 2, 4, 5, 6, 0, 0, 0}, {1, 2, 4, 5, 6, 0, 0, 0}, {0, 1, 2, 4, 5, 6, 0, 0},
	{3, 4, 5, 6, 0, 0, 0, 0}, {0, 3, 4, 5, 6, 0, 0, 0}, {1, 3, 4, 5, 6, 0, 0, 0}, {0, 1, 3, 4, 5, 6, 0, 0},
	{2, 3, 4, 5, 6, 0, 0, 0}, {0, 2, 3, 4, 5, 6, 0, 0}, {1, 2, 3, 4, 5, 6, 0, 0}, {0, 1, 2, 3, 4, 5, 6, 0},
	{7, 0, 0, 0, 0, 0, 0, 0}, {0, 7, 0, 0, 0, 0, 0, 0}, {1, 7, 0, 0, 0, 0, 0, 0}, {0, 1, 7, 0, 0, 0, 0, 0},
	{2, 7, 0, 0, 0, 0, 0, 0}, {0, 2, 7, 0, 0, 0, 0, 0}, {1, 2, 7, 0, 0, 0, 0, 0}, {0, 1, 2, 7, 0, 0, 0, 0},
	{3, 7, 0, 0, 0, 0, 0, 0}, {0, 3, 7, 0, 0, 0, 0, 0}, {1, 3, 7, 0, 0, 0, 0, 0}, {0, 1, 3, 7, 0, 0, 0, 0},
	{2, 3, 7, 0, 0, 0, 0, 0}, {0, 2, 3, 7, 0, 0, 0, 0}, {1, 2, 3, 7, 0, 0, 0, 0}, {0, 1, 2, 3, 7, 0, 0, 0},
	{4, 7, 0, 0, 0, 0, 0, 0}, {0, 4, 7, 0, 0, 0, 0, 0}, {1, 4, 7, 0, 0, 0, 0, 0}, {0, 1, 4, 7, 0, 0, 0, 0},
	{2, 4, 7, 0, 0, 0, 0, 0}, {0, 2, 4, 7, 0, 0, 0, 0}, {1, 2, 4, 7, 0, 0, 0, 0}, {0, 1, 2, 4, 7, 0, 0, 0},
	{3, 4, 7, 0, 0, 0, 0, 0}, {0, 3, 4, 7, 0, 0, 0, 0}, {1, 3, 4, 7, 0, 0, 0, 0}, {0, 1, 3, 4, 7, 0, 0, 0},
	{2, 3, 4, 7, 0, 0, 0, 0}, {0, 2, 3, 4, 7, 0, 0, 0}, {1, 2, 3, 4, 7, 0, 0, 0}, {0, 1, 2, 3, 4, 7, 0, 0},
	{5, 7, 0, 0, 0, 0, 0, 0}, {0, 5, 7, 0, 0, 0, 0, 0}, {1, 5, 7, 0, 0, 0, 0, 0}, {0, 1, 5, 7, 0, 0, 0, 0},
	{2, 5, 7, 0, 0, 0, 0, 0}, {0, 2, 5, 7, 0, 0, 0, 0}, {1, 2, 5, 7, 0, 0, 0, 0}, {0, 1, 2, 5, 7, 0, 0, 0},
	{3, 5, 7, 0, 0, 0, 0, 0}, {0, 3, 5, 7, 0, 0, 0, 0}, {1, 3, 5, 7, 0, 0, 0, 0}, {0, 1, 3, 5, 7, 0, 0, 0},
	{2, 3, 5, 7, 0, 0, 0, 0}, {0, 2, 3, 5, 7, 0, 0, 0}, {1, 2, 3, 5, 7, 0, 0, 0}, {0, 1, 2, 3, 5, 7, 0, 0},
	{4, 5, 7, 0, 0, 0, 0, 0}, {0, 4, 5, 7, 0, 0, 0, 0}, {1, 4, 5, 7, 0, 0, 0, 0}, {0, 1, 4, 5, 7, 0, 0, 0},
	{2, 4, 5, 7, 0, 0, 0, 0}, {0, 2, 4, 5, 7, 0, 0, 0}, {1, 2, 4, 5, 7, 0, 0, 0}, {0, 1, 2, 4, 5, 7, 0, 0},
	{3, 4, 5, 7, 0, 0, 0, 0}, {0, 3, 4, 5, 7, 0, 0, 0}, {1, 3, 4, 5, 7, 0, 0, 0}, {0, 1, 3, 4, 5, 7, 0, 0},
	{2, 3, 4, 5, 7, 0, 0, 0}, {0, 2, 3, 4, 5, 7, 0, 0}, {1, 2, 3, 4, 5, 7, 0, 0}, {0, 1, 2, 3, 4, 5, 7, 0},
	{6, 7, 0, 0, 0, 0, 0, 0}, {0, 6, 7, 0, 0, 0, 0, 0}, {1, 6, 7, 0, 0, 0, 0, 0}, {0, 1, 6, 7, 0, 0, 0, 0},
	{2, 6, 7, 0, 0, 0, 0, 0}, {0, 2, 6, 7, 0, 0, 0, 0}, {1, 2, 6, 7, 0, 0, 0, 0}, {0, 1, 2, 6, 7, 0, 0, 0},
	{3, 6, 7, 0, 0, 0, 0, 0}, {0, 3, 6, 7, 0, 0, 0, 0}, {1, 3, 6, 7, 0, 0, 0, 0}, {0, 1, 3, 6, 7, 0, 0, 0},
	{2, 3, 6, 7, 0, 0, 0, 0}, {0, 2, 3, 6, 7, 0, 0, 0}, {1, 2, 3, 6, 7, 0, 0, 0}, {0, 1, 2, 3, 6, 7, 0, 0},
	{4, 6, 7, 0, 0, 0, 0, 0}, {0, 4, 6, 7, 0, 0, 0, 0}, {1, 4, 6, 7, 0, 0, 0, 0}, {0, 1, 4, 6, 7, 0, 0, 0},
	{2, 4, 6, 7, 0, 0, 0, 0}, {0, 2, 4, 6, 7, 0, 0, 0}, {1, 2, 4, 6, 7, 0, 0, 0}, {0, 1, 2, 4, 6, 7, 0, 0},
	{3, 4, 6, 7, 0, 0, 0, 0}, {0, 3, 4, 6, 7, 0, 0, 0}, {1, 3, 4, 6, 7, 0, 0, 0}, {0, 1, 3, 4, 6, 7, 0, 0},
	{2, 3, 4, 6, 7, 0, 0, 0}, {0, 2, 3, 4, 6, 7, 0, 0}, {1, 2, 3, 4, 6, 7, 0, 0}, {0, 1, 2, 3, 4, 6, 7, 0},
	{5, 6, 7, 0, 0, 0, 0, 0}, {0, 5, 6, 7, 0, 0, 0, 0}, {1, 5, 6, 7, 0, 0, 0, 0}, {0, 1, 5, 6, 7, 0, 0, 0},
	{2, 5, 6, 7, 0, 0, 0, 0}, {0, 2, 5, 6, 7, 0, 0, 0}, {1, 2, 5, 6, 7, 0, 0, 0}, {0, 1, 2, 5, 6, 7, 0, 0},
	{3, 5, 6, 7, 0, 0, 0, 0}, {0, 3, 5, 6, 7, 0, 0, 0}, {1, 3, 5, 6, 7, 0, 0, 0}, {0, 1, 3, 5, 6, 7, 0, 0},
	{2, 3, 5, 6, 7, 0, 0, 0}, {0, 2, 3, 5, 6, 7, 0, 0}, {1, 2, 3, 5, 6, 7, 0, 0}, {0, 1, 2, 3, 5, 6, 7, 0},
	{4, 5, 6, 7, 0, 0, 0, 0}, {0, 4, 5, 6, 7, 0, 0, 0}, {1, 4, 5, 6, 7, 0, 0, 0}, {0, 1, 4, 5, 6, 7, 0, 0},
	{2, 4, 5, 6, 7, 0, 0, 0}, {0, 2, 4, 5, 6, 7, 0, 0}, {1, 2, 4, 5, 6, 7, 0, 0}, {0, 1, 2, 4, 5, 6, 7, 0},
	{3, 4, 5, 6, 7, 0, 0, 0}, {0, 3, 4, 5, 6, 7, 0, 0}, {1, 3, 4, 5, 6, 7, 0, 0}, {0, 1, 3, 4, 5, 6, 7, 0},
	{2, 3, 4, 5, 6, 7, 0, 0}, {0, 2, 3, 4, 5, 6, 7, 0}, {1, 2, 3, 4, 5, 6, 7, 0}, {0, 1, 2, 3, 4, 5, 6, 7},
};

/* 64 bits of the block from bit pos on (fewer near the payload's end). */
static inline uint64_t
bm_window(const gpx_blk *k, uint64_t pos)
{
	return gpx_load64_tail(k->p, k->plen, (size_t) (pos >> 3)) >> (pos & 7);
}

/*
 * Decode block k into out (GPX_MAX_BLOCK slots, all of which it may
 * write); returns its count.  Through 8 bytes of slack (gpx_blk_slack) a
 * byte at a time by table, else by 64-bit windows and
 * count-trailing-zeros.
 */
uint32_t
gpx_bm_blk_decode(const gpx_blk *k, uint32_t *out)
{
	uint32_t	m = k->cnt - 1,
				r = 0;
	uint32_t	base = k->first + 1;
	uint64_t	pos = k->bit;
	uint8_t		tmp[GPX_SLACK_COPY + 16];
	uint64_t	bit;
	const uint8_t *p;

	out[0] = k->first;
	if (m == 0)
		return k->cnt;
	p = GPX_FAST_BITS ? gpx_blk_slack(k, tmp, &bit) : NULL;
	if (p != NULL)
	{
		const gpx_simd_ops *o = gpx_simd();

		/* a vectorised variant: all ones at once (a valid block has m) */
		if (o->ones != NULL &&
			o->ones(p, bit, bit + (k->end - k->bit), m, GPX_MAX_BLOCK - 1,
					base, out + 1) == m)
			return k->cnt;
	}
	if (p != NULL && (bit & 7) == 0)
	{
		const uint8_t *q = p + (bit >> 3);
		uint32_t	i = 0;

		/*
		 * A byte at a time: its ones' positions from bm_pos, 8 stores
		 * whatever their count (out holds GPX_MAX_BLOCK slots), then
		 * advance by the count.  A valid block has its m ones before its
		 * end, so r reaches m inside it.
		 */
		while (r < m && r + 9 <= GPX_MAX_BLOCK)
		{
			uint32_t	v = q[i],
						b8 = base + 8 * i;

#ifdef __SSE2__
			__m128i		t = _mm_loadl_epi64((const __m128i *) gpx_bm_pos[v]),
						z = _mm_setzero_si128(),
						t16 = _mm_unpacklo_epi8(t, z),
						vb = _mm_set1_epi32((int32_t) b8);

			_mm_storeu_si128((__m128i *) (out + 1 + r),
							 _mm_add_epi32(_mm_unpacklo_epi16(t16, z), vb));
			_mm_storeu_si128((__m128i *) (out + 5 + r),
							 _mm_add_epi32(_mm_unpackhi_epi16(t16, z), vb));
#else
			for (int j = 0; j < 8; j++)
				out[1 + r + j] = b8 + gpx_bm_pos[v][j];
#endif
			r += (uint32_t) __builtin_popcount(v);
			i++;
		}
		/* the last slots: exact stores */
		for (; r < m; i++)
		{
			uint32_t	v = q[i];

			for (uint32_t j = 0; v != 0 && r < m; j++, v &= v - 1)
				out[1 + r++] = base + 8 * i + gpx_bm_pos[q[i]][j];
		}
		return k->cnt;
	}
	while (r < m && pos < k->end)
	{
		uint64_t	w = bm_window(k, pos);
		uint32_t	off = (uint32_t) (pos - k->bit);

		while (w != 0 && r < m)
		{
			out[1 + r++] = base + off + (uint32_t) __builtin_ctzll(w);
			w &= w - 1;
		}
		pos += 64 - (pos & 7);
	}
	return k->cnt;
}

/* Whether x is in block k (one bit test). */
bool
gpx_bm_blk_contains(const gpx_blk *k, uint32_t x)
{
	uint64_t	j;

	if (x <= k->first)
		return x == k->first;
	j = k->bit + (uint64_t) (x - k->first - 1);
	return j < k->end && ((k->p[j >> 3] >> (j & 7)) & 1u) != 0;
}

/* Element j of block k: select the (j-1)-th one. */
uint32_t
gpx_bm_blk_nth(const gpx_blk *k, uint32_t j)
{
	uint64_t	pos = k->bit;
	uint32_t	left;

	if (j == 0)
		return k->first;
	left = j - 1;
	while (pos < k->end)
	{
		uint64_t	w = bm_window(k, pos);
		uint32_t	c = (uint32_t) __builtin_popcountll(w);

		if (left < c)
		{
			uint32_t	lo = (uint32_t) w,
						lc = (uint32_t) __builtin_popcount(lo);
			uint32_t	t = left < lc ? gpx_select32(lo, left) :
				32 + gpx_select32((uint32_t) (w >> 32), left - lc);

			return k->first + 1 + (uint32_t) (pos - k->bit) + t;
		}
		left -= c;
		pos += 64 - (pos & 7);
	}
	return k->first;			/* not reached for a valid block */
}

/*
 * Index in block k of the first element >= x, *val that element; cnt if
 * there is none.  The rank comes from popcounts of the words before x's
 * bit, the element from the next one bit at or after it.
 */
uint32_t
gpx_bm_blk_lower_bound(const gpx_blk *k, uint32_t x, uint32_t *val)
{
	uint64_t	target,
				pos = k->bit;
	uint32_t	rank = 0;

	if (x <= k->first)
	{
		if (val)
			*val = k->first;
		return 0;
	}
	target = k->bit + (uint64_t) (x - k->first - 1);
	if (target >= k->end)
		return k->cnt;
	/* ones before target */
	while (pos + 64 - (pos & 7) <= target)
	{
		rank += (uint32_t) __builtin_popcountll(bm_window(k, pos));
		pos += 64 - (pos & 7);
	}
	if (pos < target)
	{
		rank += (uint32_t) __builtin_popcountll(bm_window(k, pos) &
												((1ull << (target - pos)) - 1));
	}
	if (rank >= k->cnt - 1)
		return k->cnt;
	/* the next one at or after target (inside the block) */
	pos = target;
	while (pos < k->end)
	{
		uint64_t	w = bm_window(k, pos);
		uint64_t	left = k->end - pos;

		if (left < 64)
			w &= (1ull << left) - 1;
		if (w != 0)
		{
			if (val)
				*val = k->first + 1 + (uint32_t) (pos - k->bit) +
					(uint32_t) __builtin_ctzll(w);
			return rank + 1;
		}
		pos += 64 - (pos & 7);
	}
	return k->cnt;
}

/*
 * The first element of block k that is >= x, where first < x: the next
 * one bit at or after x's, by 64-bit windows, no rank; false if the block
 * holds none (every element below x).
 */
bool
gpx_bm_blk_next(const gpx_blk *k, uint32_t x, uint32_t *val)
{
	uint64_t	pos;

	if (x <= k->first)
	{
		*val = k->first;
		return true;
	}
	for (pos = k->bit + (uint64_t) (x - k->first - 1); pos < k->end;
		 pos += 64 - (pos & 7))
	{
		uint64_t	w = bm_window(k, pos);
		uint64_t	left = k->end - pos;

		if (left < 64)
			w &= (1ull << left) - 1;
		if (w != 0)
		{
			*val = k->first + 1 + (uint32_t) (pos - k->bit) +
				(uint32_t) __builtin_ctzll(w);
			return true;
		}
	}
	return false;
}

/*
 * Check block k: exactly cnt - 1 ones in [bit, end), every value <=
 * GPX_MAX_DOCID, at most max_pad bytes after the byte holding the last
 * one (all of the block's bytes when it has no ones).  Values go to
 * scratch.
 */
gpx_status
gpx_bm_blk_check(const gpx_blk *k, uint32_t max_pad, uint32_t *scratch)
{
	uint32_t	m = k->cnt - 1,
				r = 0;
	uint64_t	pos,
				lastone = 0;

	if (k->end < k->bit || k->end > (uint64_t) k->plen * 8 ||
		(k->bit & 7) != 0 || (k->end & 7) != 0)
		return GPX_E_DIRECTORY;
	scratch[0] = k->first;
	for (pos = k->bit; pos < k->end; pos += 64 - (pos & 7))
	{
		uint64_t	w = bm_window(k, pos);
		uint64_t	left = k->end - pos;

		if (left < 64)
			w &= (1ull << left) - 1;
		while (w != 0)
		{
			uint64_t	v;

			lastone = pos + (uint64_t) __builtin_ctzll(w);
			v = (uint64_t) k->first + 1 + (lastone - k->bit);
			if (r >= m || v > GPX_MAX_DOCID)
				return GPX_E_PAYLOAD;
			scratch[1 + r++] = (uint32_t) v;
			w &= w - 1;
		}
	}
	if (r != m)
		return GPX_E_TRUNCATED;
	if (m == 0 ? (k->end - k->bit) / 8 > max_pad :
		(k->end >> 3) - (lastone >> 3) - 1 > max_pad)
		return GPX_E_TRAILING;
	return GPX_OK;
}

/* The last element of a one-block list from its final byte (O(1)). */
gpx_status
gpx_bm_blk_last(const gpx_blk *k, uint32_t *last)
{
	uint8_t		fb;
	uint64_t	v;

	if (k->cnt < 2)
	{
		*last = k->first;
		return k->end == k->bit ? GPX_OK : GPX_E_PAYLOAD;
	}
	if (k->end < k->bit + 8 || (k->end & 7) != 0 || (k->bit & 7) != 0)
		return GPX_E_PAYLOAD;
	fb = k->p[(k->end >> 3) - 1];
	if (fb == 0)
		return GPX_E_TRAILING;	/* a valid one ends with the last element */
	v = (uint64_t) k->first + 1 + (k->end - 8 - k->bit) +
		(uint64_t) (31 - __builtin_clz((uint32_t) fb));
	if (v > GPX_MAX_DOCID || v - k->first < k->cnt - 1)
		return GPX_E_PAYLOAD;
	*last = (uint32_t) v;
	return GPX_OK;
}

/* Bits of the bitmap block of d[0..cnt). */
uint64_t
gpx_bm_blk_plan(const uint32_t *d, uint32_t cnt)
{
	return cnt < 2 ? 0 : (uint64_t) (d[cnt - 1] - d[0]);
}

/*
 * Write the bitmap block of d[0..cnt) at bit `bit` of the zeroed p
 * (gpx_onesw: a word in a register, stored after each bit).
 */
void
gpx_bm_blk_write(uint8_t *p, uint64_t bit, const uint32_t *d, uint32_t cnt)
{
	gpx_onesw	ow;
	uint64_t	base = bit - 1 - d[0];

	if (cnt < 2)
		return;
	gpx_onesw_init(&ow, p, bit);
	for (uint32_t j = 1; j < cnt; j++)
		gpx_onesw_set(&ow, base + d[j]);
}
