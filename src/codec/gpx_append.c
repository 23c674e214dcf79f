/*
 * gpx_append.c - appending docIDs above a list's last one (see
 * gpx_append.h): the untouched prefix copied as bytes, only the tail
 * encoded.  Only this file knows where an append may cut a version 2
 * list (its header, directory and payload: gpx_codec.h); the tail's
 * blocks come from the version 2 writer (gpx_encode.c).
 */
#include <string.h>

#include "gpx_append.h"
#include "gpx_internal.h"

/* Check the arguments: docs strictly increasing, above l's last, in range. */
static gpx_status
app_check(const gpx_list *l, const uint32_t *docs, uint32_t m)
{
	gpx_status	st;

	if (m == 0)
		return GPX_OK;
	if (docs == NULL)
		return GPX_E_ARG;
	if (l->n > 0 && docs[0] <= l->last)
		return GPX_E_UNSORTED;
	st = gpx_check_sorted(docs, m);
	if (st != GPX_OK)
		return st;
	if ((uint64_t) l->n + m > GPX_MAX_N)
		return GPX_E_TOOBIG;
	return GPX_OK;
}

/*
 * Whether appending to l keeps its blocks but the last: a version 2 list
 * with a directory of plain 8-byte entries and no extra sections.  Any
 * other list (version 1, one block, empty) is written again whole.
 */
static bool
app_splices(const gpx_list *l)
{
	return l->version == 2 && l->dir != NULL && l->nblocks >= 2 &&
		l->flags == 0 && l->dir_stride == GPX_DIR_ENTRY_SIZE;
}

/* Byte offset of block k in a version 2 list's payload. */
static uint32_t
app_blk_off(const gpx_list *l, uint32_t k)
{
	return gpx_dir_loc_at(l, k) >> 2;
}

/*
 * Where the kept payload of a spliced list ends: at the last block's
 * start, less the zero bytes an Elias-Fano or bitmap block before it was
 * padded with (such a block ends with the byte of its last one bit, so
 * its trailing zero bytes are padding), so that the new tail starts where
 * a fresh encode would put it.
 */
static uint32_t
app_keep_bytes(const gpx_list *l)
{
	uint32_t	kl = l->nblocks - 1;
	uint32_t	start = app_blk_off(l, kl - 1);
	uint32_t	end = app_blk_off(l, kl);

	if ((gpx_dir_loc_at(l, kl - 1) & 3u) != GPX_KIND_OWN)
		while (end > start && l->payload[end - 1] == 0)
			end--;
	return end;
}

/* The header and directory offset of the spliced result (see app_splice). */
static size_t
app_dir_off(const gpx_list *l, uint32_t n2, uint32_t newlast)
{
	size_t		pos = 2 + gpx_varint_len(n2) + gpx_varint_len(l->first) +
		gpx_varint_len(newlast - l->first);

	return (pos + 3) & ~(size_t) 3;
}

/* Block count of the spliced result of adding m docIDs. */
static uint64_t
app_nblocks(const gpx_list *l, uint32_t m)
{
	uint32_t	kl = l->nblocks - 1;

	return (uint64_t) kl +
		gpx_nblocks_for(gpx_block_count(l, kl) + m, l->log2_block);
}

/* Scratch values needed. */
uint64_t
gpx_append_scratch(const gpx_list *l, uint32_t m, uint32_t newlast)
{
	(void) newlast;
	if (l->n == 0 || m == 0)
		return 0;
	if (app_splices(l))
		return (uint64_t) GPX_MAX_BLOCK + m;
	/* the whole list decoded, then docs */
	return (uint64_t) l->n + m;
}

/* Output bytes that suffice. */
size_t
gpx_append_bound(const gpx_list *l, uint32_t m, uint32_t newlast)
{
	uint32_t	kl;
	uint64_t	b;

	if (m == 0)
		return l->len;
	if (!app_splices(l))
		return gpx_encode_bound(l->codec, (uint32_t) ((uint64_t) l->n + m),
								newlast);
	kl = l->nblocks - 1;
	b = app_dir_off(l, (uint32_t) ((uint64_t) l->n + m), newlast) +
		app_nblocks(l, m) * GPX_DIR_ENTRY_SIZE + app_keep_bytes(l) +
		gpx_enc_v2_tail_bound(l->codec, gpx_block_count(l, kl) + m, newlast);
	return b > SIZE_MAX ? SIZE_MAX : (size_t) b;
}

/*
 * A version 2 list with a directory: the new header, the kept directory
 * entries and payload bytes copied, then the last block's docIDs and docs
 * encoded as blocks kl, kl + 1, ... after the kept payload.  The work
 * beyond the copies is one block plus the new docIDs.
 */
static gpx_status
app_splice(const gpx_list *l, const uint32_t *docs, uint32_t m,
		   uint32_t *scratch, uint64_t scratch_cap, uint8_t *out, size_t cap,
		   size_t *outlen)
{
	uint32_t	kl = l->nblocks - 1;
	uint32_t	c = gpx_block_count(l, kl);
	uint32_t	n2 = l->n + m;
	uint32_t	newlast = docs[m - 1];
	uint32_t	keep = app_keep_bytes(l);
	uint64_t	nb2 = app_nblocks(l, m);
	size_t		bound = gpx_append_bound(l, m, newlast);
	size_t		dir_off;
	uint8_t    *dir,
			   *payload;
	uint64_t	off = keep;
	gpx_status	st;

	if (scratch == NULL || scratch_cap < (uint64_t) GPX_MAX_BLOCK + m)
		return GPX_E_NOSPACE;
	if (cap < bound)
		return GPX_E_NOSPACE;
	if (nb2 > UINT32_MAX)
		return GPX_E_TOOBIG;
	if (gpx_decode_block(l, kl, scratch) != c)
		return GPX_E_PAYLOAD;
	memcpy(scratch + c, docs, (size_t) m * sizeof(uint32_t));

	dir_off = gpx_enc_v2_dir_header(out, l->codec, n2, l->first, newlast);
	dir = out + dir_off;
	payload = dir + (size_t) nb2 * GPX_DIR_ENTRY_SIZE;
	memcpy(dir, l->dir, (size_t) kl * GPX_DIR_ENTRY_SIZE);
	memcpy(payload, l->payload, keep);
	memset(payload + keep, 0, bound - (size_t) (payload + keep - out));
	st = gpx_enc_v2_tail(l->codec, scratch, c + m, kl, dir, payload,
						 bound - (size_t) (payload - out), &off);
	if (st != GPX_OK)
		return st;
	*outlen = (size_t) (payload - out) + (size_t) off;
	return GPX_OK;
}

/* Decode l and docs into scratch and encode the whole sequence. */
static gpx_status
app_rewrite(const gpx_list *l, const uint32_t *docs, uint32_t m,
			uint32_t *scratch, uint64_t scratch_cap, uint8_t *out, size_t cap,
			size_t *outlen)
{
	if (scratch == NULL || scratch_cap < (uint64_t) l->n + m)
		return GPX_E_NOSPACE;
	gpx_decode(l, scratch);
	memcpy(scratch + l->n, docs, (size_t) m * sizeof(uint32_t));
	return gpx_encode(l->codec, scratch, l->n + m, out, cap, outlen);
}

/* l followed by docs. */
gpx_status
gpx_append(const gpx_list *l, const uint32_t *docs, uint32_t m,
		   uint32_t *scratch, uint64_t scratch_cap, uint8_t *out, size_t cap,
		   size_t *outlen)
{
	gpx_status	st;

	if (l == NULL || out == NULL || outlen == NULL)
		return GPX_E_ARG;
	st = app_check(l, docs, m);
	if (st != GPX_OK)
		return st;
	if (m == 0)
	{
		if (cap < l->len)
			return GPX_E_NOSPACE;
		memcpy(out, l->base, l->len);
		*outlen = l->len;
		return GPX_OK;
	}
	if (l->n == 0)
		return gpx_encode(l->codec, docs, m, out, cap, outlen);
	if (app_splices(l))
		return app_splice(l, docs, m, scratch, scratch_cap, out, cap, outlen);
	return app_rewrite(l, docs, m, scratch, scratch_cap, out, cap, outlen);
}
