/*
 * gpx_format.c - the codec-independent part of the blob format: header and
 * directory parsing and checks, encoding and validation drivers, dispatch
 * to the codecs, random access, lower_bound and the skipping cursor.
 */
#include "gpx_internal.h"

/* Byte offsets of the header fields. */
#define HDR_VERSION		0
#define HDR_CODEC		1
#define HDR_LOG2_BLOCK	2
#define HDR_PARAM		3
#define HDR_N			4
#define HDR_FIRST		8
#define HDR_LAST		12
#define HDR_NBLOCKS		16
#define HDR_PAYLOAD		20
#define HDR_FLAGS		24
#define HDR_RESERVED	28

/* Human-readable text for a status. */
const char *
gpx_status_str(gpx_status st)
{
	switch (st)
	{
		case GPX_OK:
			return "ok";
		case GPX_E_UNSORTED:
			return "docIDs are not strictly increasing";
		case GPX_E_RANGE:
			return "docID out of range";
		case GPX_E_TOOBIG:
			return "posting list too large";
		case GPX_E_NOSPACE:
			return "output buffer too small";
		case GPX_E_TRUNCATED:
			return "value is truncated";
		case GPX_E_TRAILING:
			return "value has trailing bytes";
		case GPX_E_VERSION:
			return "unsupported format version";
		case GPX_E_CODEC:
			return "wrong or unknown codec";
		case GPX_E_HEADER:
			return "inconsistent header";
		case GPX_E_DIRECTORY:
			return "inconsistent block directory";
		case GPX_E_PAYLOAD:
			return "corrupt payload";
		case GPX_E_ARG:
			return "invalid argument";
	}
	return "unknown status";
}

/* The operations table of a codec id, or NULL. */
const gpx_codec_ops *
gpx_ops(int codec)
{
	switch (codec)
	{
		case GPX_CODEC_PFOR:
			return &gpx_pfor_ops;
		case GPX_CODEC_LRC:
			return &gpx_lrc_ops;
		case GPX_CODEC_QS:
			return &gpx_qs_ops;
	}
	return NULL;
}

/* Codec name for an id, or NULL. */
const char *
gpx_codec_name(int codec)
{
	const gpx_codec_ops *ops = gpx_ops(codec);

	return ops ? ops->name : NULL;
}

/* Check that docs[0..n) is strictly increasing and within range. */
gpx_status
gpx_check_sorted(const uint32_t *docs, size_t n)
{
	size_t		i;

	if (n > GPX_MAX_N)
		return GPX_E_TOOBIG;
	for (i = 0; i < n; i++)
	{
		if (docs[i] > GPX_MAX_DOCID)
			return GPX_E_RANGE;
		if (i > 0 && docs[i] <= docs[i - 1])
			return GPX_E_UNSORTED;
	}
	return GPX_OK;
}

/* Upper bound on the blob size; the empty list is just a header. */
size_t
gpx_encode_bound(int codec, uint32_t n, uint32_t last)
{
	const gpx_codec_ops *ops = gpx_ops(codec);

	if (ops == NULL)
		return 0;
	if (n == 0)
		return GPX_HEADER_SIZE;
	return ops->encode_bound(n, last);
}

/* Write the 32-byte header. */
void
gpx_write_header(uint8_t *out, int codec, uint32_t log2_block, uint32_t param,
				 uint32_t n, uint32_t first, uint32_t last, uint32_t nblocks,
				 uint32_t payload_bytes)
{
	out[HDR_VERSION] = GPX_FORMAT_VERSION;
	out[HDR_CODEC] = (uint8_t) codec;
	out[HDR_LOG2_BLOCK] = (uint8_t) log2_block;
	out[HDR_PARAM] = (uint8_t) param;
	gpx_store32(out + HDR_N, n);
	gpx_store32(out + HDR_FIRST, first);
	gpx_store32(out + HDR_LAST, last);
	gpx_store32(out + HDR_NBLOCKS, nblocks);
	gpx_store32(out + HDR_PAYLOAD, payload_bytes);
	gpx_store32(out + HDR_FLAGS, 0);
	gpx_store32(out + HDR_RESERVED, 0);
}

/* Write directory entry k. */
void
gpx_write_dir(uint8_t *out, uint32_t k, uint32_t first, uint32_t offset)
{
	uint8_t    *e = out + GPX_HEADER_SIZE + (size_t) k * GPX_DIR_ENTRY_SIZE;

	gpx_store32(e, first);
	gpx_store32(e + 4, offset);
}

/* Encode docs with a codec into out[0..cap). */
gpx_status
gpx_encode(int codec, const uint32_t *docs, uint32_t n,
		   uint8_t *out, size_t cap, size_t *outlen)
{
	const gpx_codec_ops *ops = gpx_ops(codec);
	gpx_status	st;
	size_t		bound;

	if (ops == NULL)
		return GPX_E_CODEC;
	if (out == NULL || outlen == NULL || (n > 0 && docs == NULL))
		return GPX_E_ARG;
	st = gpx_check_sorted(docs, n);
	if (st != GPX_OK)
		return st;
	bound = gpx_encode_bound(codec, n, n ? docs[n - 1] : 0);
	if (cap < bound)
		return GPX_E_NOSPACE;
	memset(out, 0, bound);
	if (n == 0)
	{
		gpx_write_header(out, codec, ops->log2_block, 0, 0, 0, 0, 0, 0);
		*outlen = GPX_HEADER_SIZE;
		return GPX_OK;
	}
	return ops->encode(docs, n, out, bound, outlen);
}

/* Read the header fields from a prefix of at least GPX_HEADER_SIZE bytes. */
gpx_status
gpx_peek_header(gpx_list *l, const uint8_t *buf, size_t prefix_len)
{
	const gpx_codec_ops *ops;

	if (l == NULL || buf == NULL)
		return GPX_E_ARG;
	if (prefix_len < GPX_HEADER_SIZE)
		return GPX_E_TRUNCATED;
	if (buf[HDR_VERSION] != GPX_FORMAT_VERSION)
		return GPX_E_VERSION;
	ops = gpx_ops(buf[HDR_CODEC]);
	if (ops == NULL)
		return GPX_E_CODEC;
	memset(l, 0, sizeof(*l));
	l->base = buf;
	l->codec = buf[HDR_CODEC];
	l->log2_block = buf[HDR_LOG2_BLOCK];
	l->param = buf[HDR_PARAM];
	l->n = gpx_load32(buf + HDR_N);
	l->first = gpx_load32(buf + HDR_FIRST);
	l->last = gpx_load32(buf + HDR_LAST);
	l->nblocks = gpx_load32(buf + HDR_NBLOCKS);
	l->payload_bytes = gpx_load32(buf + HDR_PAYLOAD);
	if (l->log2_block != ops->log2_block ||
		gpx_load32(buf + HDR_FLAGS) != 0 ||
		gpx_load32(buf + HDR_RESERVED) != 0 ||
		l->n > GPX_MAX_N ||
		l->nblocks != gpx_nblocks_for(l->n, l->log2_block) ||
		(l->payload_bytes & 3) != 0 ||
		l->first > GPX_MAX_DOCID || l->last > GPX_MAX_DOCID ||
		l->first > l->last)
		return GPX_E_HEADER;
	if (l->n == 0 && (l->first != 0 || l->last != 0 || l->param != 0 ||
					  l->payload_bytes != 0))
		return GPX_E_HEADER;
	/* n distinct docIDs in [first, last] need last - first >= n - 1 */
	if (l->n > 0 && (uint64_t) l->last - l->first + 1 < l->n)
		return GPX_E_HEADER;
	if (l->n == 1 && l->first != l->last)
		return GPX_E_HEADER;
	return GPX_OK;
}

/* Parse a full blob: header plus directory and payload bounds. */
gpx_status
gpx_open(gpx_list *l, const uint8_t *buf, size_t len)
{
	gpx_status	st = gpx_peek_header(l, buf, len);
	uint64_t	need;

	if (st != GPX_OK)
		return st;
	need = (uint64_t) gpx_payload_offset(l->nblocks) + l->payload_bytes;
	if (len < need)
		return GPX_E_TRUNCATED;
	if (len > need)
		return GPX_E_TRAILING;
	l->len = len;
	l->dir = buf + GPX_HEADER_SIZE;
	l->payload = buf + gpx_payload_offset(l->nblocks);
	return GPX_OK;
}

/* First docID of block blk. */
uint32_t
gpx_dir_first(const gpx_list *l, uint32_t blk)
{
	return gpx_dir_first_at(l, blk);
}

/* Codec-defined offset of block blk. */
uint32_t
gpx_dir_offset(const gpx_list *l, uint32_t blk)
{
	return gpx_load32(l->dir + (size_t) blk * GPX_DIR_ENTRY_SIZE + 4);
}

/* Element count of block blk. */
uint32_t
gpx_block_count(const gpx_list *l, uint32_t blk)
{
	return gpx_block_count_at(l, blk);
}

/* Check one decoded block against the directory and the header. */
gpx_status
gpx_check_block(const gpx_list *l, uint32_t blk, const uint32_t *vals,
				uint32_t cnt)
{
	uint32_t	i;
	uint32_t	limit;

	if (cnt != gpx_block_count(l, blk) || cnt == 0)
		return GPX_E_PAYLOAD;
	if (vals[0] != gpx_dir_first(l, blk))
		return GPX_E_PAYLOAD;
	for (i = 1; i < cnt; i++)
		if (vals[i] <= vals[i - 1])
			return GPX_E_PAYLOAD;
	if (blk + 1 < l->nblocks)
	{
		limit = gpx_dir_first(l, blk + 1);
		if (vals[cnt - 1] >= limit)
			return GPX_E_PAYLOAD;
	}
	else if (vals[cnt - 1] != l->last)
		return GPX_E_PAYLOAD;
	return GPX_OK;
}

/* Fully validate a blob. */
gpx_status
gpx_validate(const uint8_t *buf, size_t len, uint32_t *scratch)
{
	gpx_list	l;
	gpx_status	st;
	uint32_t	k;

	if (scratch == NULL)
		return GPX_E_ARG;
	st = gpx_open(&l, buf, len);
	if (st != GPX_OK)
		return st;
	if (l.n == 0)
		return GPX_OK;
	/* directory: firsts strictly increasing, in [first, last] */
	if (gpx_dir_first(&l, 0) != l.first)
		return GPX_E_DIRECTORY;
	for (k = 1; k < l.nblocks; k++)
	{
		uint32_t	f = gpx_dir_first(&l, k);

		if (f <= gpx_dir_first(&l, k - 1) || f > l.last)
			return GPX_E_DIRECTORY;
	}
	return gpx_ops(l.codec)->validate(&l, scratch);
}

/* Decode block blk into out. */
uint32_t
gpx_decode_block(const gpx_list *l, uint32_t blk, uint32_t *out)
{
	return gpx_ops(l->codec)->decode_block(l, blk, out);
}

/* Decode the whole list into out[0..n). */
void
gpx_decode(const gpx_list *l, uint32_t *out)
{
	const gpx_codec_ops *ops = gpx_ops(l->codec);
	uint32_t	k;

	for (k = 0; k < l->nblocks; k++)
		out += ops->decode_block(l, k, out);
}

/* The i-th docID. */
uint32_t
gpx_nth(const gpx_list *l, uint32_t i)
{
	return gpx_ops(l->codec)->nth(l, i);
}

/* Last block whose first docID <= x (binary search on the directory). */
uint32_t
gpx_find_block(const gpx_list *l, uint32_t x)
{
	uint32_t	lo = 0,
				hi = l->nblocks;

	/* invariant: dir_first(lo) <= x (or lo == 0), dir_first(hi) > x */
	while (hi - lo > 1)
	{
		uint32_t	mid = lo + (hi - lo) / 2;

		if (gpx_dir_first(l, mid) <= x)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* Index of the first element >= x, or n. */
uint32_t
gpx_lower_bound(const gpx_list *l, uint32_t x, uint32_t *val)
{
	uint32_t	blk,
				pos;

	if (l->n == 0 || x > l->last)
		return l->n;
	if (x <= l->first)
	{
		if (val)
			*val = l->first;
		return 0;
	}
	blk = gpx_find_block(l, x);
	pos = gpx_ops(l->codec)->block_lower_bound(l, blk, x, val);
	if (pos < gpx_block_count(l, blk))
		return (blk << l->log2_block) + pos;
	/* every element of blk is < x; x <= last, so the next block starts >= x */
	if (val)
		*val = gpx_dir_first(l, blk + 1);
	return (blk + 1) << l->log2_block;
}

/* True iff x is an element. */
bool
gpx_contains(const gpx_list *l, uint32_t x)
{
	uint32_t	v;

	return gpx_lower_bound(l, x, &v) < l->n && v == x;
}

/* Bits per docID of the blob. */
double
gpx_bits_per_docid(const gpx_list *l)
{
	return l->n ? 8.0 * (double) l->len / (double) l->n : 0.0;
}

/* Position a cursor at the start of l. */
void
gpx_cursor_init(gpx_cursor *c, const gpx_list *l)
{
	c->l = l;
	c->blk = 0;
	c->pos = 0;
	c->cnt = 0;
	if (l->n == 0)
		c->blk = l->nblocks;
}

/*
 * Advance to the first element >= x.  Blocks whose range lies wholly
 * below x are skipped through the directory (galloping, then binary
 * search) without decoding; the block that can hold x is decoded once and
 * then scanned, so a run of probes into one block costs one decode.
 */
bool
gpx_cursor_next_geq(gpx_cursor *c, uint32_t x, uint32_t *val)
{
	const gpx_list *l = c->l;
	uint32_t	nb = l->nblocks;

	if (c->blk >= nb || x > l->last)
	{
		c->blk = nb;
		return false;
	}
	/* still inside the decoded block? */
	if (c->cnt > 0)
	{
		if (c->buf[c->cnt - 1] >= x)
		{
			uint32_t	lo = c->pos,
						hi = c->cnt - 1;

			/* binary search in buf[pos..cnt-1] for first >= x */
			while (lo < hi)
			{
				uint32_t	mid = lo + (hi - lo) / 2;

				if (c->buf[mid] < x)
					lo = mid + 1;
				else
					hi = mid;
			}
			c->pos = lo;
			*val = c->buf[lo];
			return true;
		}
		c->blk++;
		c->cnt = 0;
		c->pos = 0;
		if (c->blk >= nb)
			return false;
	}
	/* skip blocks whose range lies wholly below x */
	c->blk = gpx_dir_gallop(l, c->blk, x);
	if (gpx_dir_first(l, c->blk) >= x)
	{
		/* x falls before this block: its first element answers */
		*val = gpx_dir_first(l, c->blk);
		c->cnt = 0;
		c->pos = 0;
		return true;
	}
	c->cnt = gpx_decode_block(l, c->blk, c->buf);
	c->pos = 0;
	return gpx_cursor_next_geq(c, x, val);
}
