/*
 * gpx_internal.h - what the common format code and the per-codec files
 * share: the codec operations table and header/directory writers.
 */
#ifndef GPX_INTERNAL_H
#define GPX_INTERNAL_H

#include "gpx_codec.h"
#include "gpx_bits.h"

/*
 * Operations of one codec.  The common code (gpx_format.c) parses and
 * checks the header and directory, then calls these.
 */
typedef struct gpx_codec_ops
{
	uint8_t		id;
	uint8_t		log2_block;
	const char *name;

	/* Upper bound of the blob size for n docIDs ending at last. */
	size_t		(*encode_bound) (uint32_t n, uint32_t last);

	/*
	 * Write the whole blob (header via gpx_write_header, directory via
	 * gpx_write_dir, payload).  docs are already checked sorted and in
	 * range, n >= 1, cap >= encode_bound(n, last).  out[0..cap) is zeroed.
	 */
	gpx_status	(*encode) (const uint32_t *docs, uint32_t n,
						   uint8_t *out, size_t cap, size_t *outlen);

	/*
	 * Validate codec-specific header fields and the payload of a blob
	 * whose common header and directory checks passed (gpx_open: sizes
	 * consistent, directory firsts strictly increasing, dir[0].first ==
	 * first, all dir firsts <= last).  Must never read outside
	 * l->payload[0..payload_bytes) and must make sure that every block
	 * decodes to gpx_block_count() strictly increasing values, starting
	 * with the directory's first, below the next block's first, with the
	 * very last value equal to l->last.  Directory offsets are checked
	 * here (their meaning is codec-defined).  scratch: GPX_MAX_BLOCK.
	 */
	gpx_status	(*validate) (const gpx_list *l, uint32_t *scratch);

	/* Decode block blk into out; returns the block's count. */
	uint32_t	(*decode_block) (const gpx_list *l, uint32_t blk, uint32_t *out);

	/* Element i (0 <= i < n). */
	uint32_t	(*nth) (const gpx_list *l, uint32_t i);

	/*
	 * Index within block blk of the first element >= x, where
	 * dir_first(blk) <= x; returns the block count if every element is
	 * smaller.  *val gets the element found.
	 */
	uint32_t	(*block_lower_bound) (const gpx_list *l, uint32_t blk,
									  uint32_t x, uint32_t *val);
} gpx_codec_ops;

extern const gpx_codec_ops gpx_pfor_ops;
extern const gpx_codec_ops gpx_lrc_ops;
extern const gpx_codec_ops gpx_qs_ops;

/* Operations for a codec id, or NULL. */
const gpx_codec_ops *gpx_ops(int codec);

/* Number of blocks for n elements in blocks of 1 << log2_block. */
static inline uint32_t
gpx_nblocks_for(uint32_t n, uint32_t log2_block)
{
	return (uint32_t) (((uint64_t) n + (1u << log2_block) - 1) >> log2_block);
}

/* Byte offset of the payload inside a blob with nblocks blocks. */
static inline size_t
gpx_payload_offset(uint32_t nblocks)
{
	return GPX_HEADER_SIZE + (size_t) nblocks * GPX_DIR_ENTRY_SIZE;
}

/* First docID of block b, straight from the directory (hot paths). */
static inline uint32_t
gpx_dir_first_at(const gpx_list *l, uint32_t b)
{
	return gpx_load32(l->dir + (size_t) b * GPX_DIR_ENTRY_SIZE);
}

/* Element count of block b (hot paths). */
static inline uint32_t
gpx_block_count_at(const gpx_list *l, uint32_t b)
{
	return b + 1 < l->nblocks ? 1u << l->log2_block :
		l->n - (b << l->log2_block);
}

/*
 * Last block b >= from with dir_first(b) <= x, or from if there is none:
 * gallop forward through the directory, then binary search.
 */
static inline uint32_t
gpx_dir_gallop(const gpx_list *l, uint32_t from, uint32_t x)
{
	uint32_t	nb = l->nblocks,
				lo,
				hi,
				step = 1;

	if (from + 1 >= nb || gpx_dir_first_at(l, from + 1) > x)
		return from;
	lo = from + 1;
	for (;;)
	{
		uint64_t	p = (uint64_t) lo + step;

		if (p >= nb)
		{
			hi = nb;
			break;
		}
		if (gpx_dir_first_at(l, (uint32_t) p) > x)
		{
			hi = (uint32_t) p;
			break;
		}
		lo = (uint32_t) p;
		step <<= 1;
	}
	while (hi - lo > 1)
	{
		uint32_t	mid = lo + (hi - lo) / 2;

		if (gpx_dir_first_at(l, mid) <= x)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* Write the 32-byte header at out. */
void		gpx_write_header(uint8_t *out, int codec, uint32_t log2_block,
							 uint32_t param, uint32_t n, uint32_t first,
							 uint32_t last, uint32_t nblocks,
							 uint32_t payload_bytes);

/* Write directory entry k of a blob whose header is at out. */
void		gpx_write_dir(uint8_t *out, uint32_t k, uint32_t first,
						  uint32_t offset);

/*
 * Check a decoded block: cnt values strictly increasing, vals[0] ==
 * dir_first(blk), below dir_first(blk+1) or equal to last at the end.
 */
gpx_status	gpx_check_block(const gpx_list *l, uint32_t blk,
							const uint32_t *vals, uint32_t cnt);

#endif							/* GPX_INTERNAL_H */
