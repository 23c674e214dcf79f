/*
 * gpx_format.c - the codec-independent part of the blob format (both
 * versions, gpx_codec.h): header and directory parsing and checks, the
 * validation driver, dispatch to the block forms, random access,
 * lower_bound, the skipping cursor and the GPU view.  Encoding is in
 * gpx_encode.c.
 */
#include "gpx_internal.h"
#include "gpx_simple8b.h"
#include "gpx_simd.h"

/* Byte offsets of the version 1 header fields. */
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

/*
 * Check that docs[0..n) is strictly increasing and within range.  A
 * branch-free pass first (it vectorises): with every value below 2^31,
 * docs[i] - docs[i - 1] - 1 in uint32 has its top bit set exactly when
 * docs[i] <= docs[i - 1], and a value of 2^31 or more sets it by itself
 * (the vectorised variant's share first); only when a top bit shows does
 * the loop below find the first error.
 */
gpx_status
gpx_check_sorted(const uint32_t *docs, size_t n)
{
	size_t		i;
	uint32_t	flag;

	if (n > GPX_MAX_N)
		return GPX_E_TOOBIG;
	if (n == 0)
		return GPX_OK;
	flag = docs[0];
	i = 1;
	if (gpx_simd()->sorted_flag != NULL)
		i += gpx_simd()->sorted_flag(docs, n, &flag);
	for (; i < n; i++)
		flag |= docs[i] | (docs[i] - docs[i - 1] - 1);
	if ((flag & 0x80000000u) == 0)
		return GPX_OK;
	for (i = 0; i < n; i++)
	{
		if (docs[i] > GPX_MAX_DOCID)
			return GPX_E_RANGE;
		if (i > 0 && docs[i] <= docs[i - 1])
			return GPX_E_UNSORTED;
	}
	return GPX_OK;
}

/* Write the 32-byte v1 header. */
void
gpx_write_header(uint8_t *out, int codec, uint32_t log2_block, uint32_t param,
				 uint32_t n, uint32_t first, uint32_t last, uint32_t nblocks,
				 uint32_t payload_bytes)
{
	out[HDR_VERSION] = GPX_FORMAT_V1;
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

/* Write directory entry k of a v1 blob. */
void
gpx_write_dir(uint8_t *out, uint32_t k, uint32_t first, uint32_t offset)
{
	uint8_t    *e = out + GPX_V1_HEADER_SIZE + (size_t) k * GPX_DIR_ENTRY_SIZE;

	gpx_store32(e, first);
	gpx_store32(e + 4, offset);
}

/* Format version of a blob from its first byte, or 0. */
int
gpx_blob_version(const uint8_t *buf, size_t len)
{
	if (buf == NULL || len == 0)
		return 0;
	if (buf[0] >= GPX_TAG_V2)
		return 2;
	return buf[0] == GPX_FORMAT_V1 ? 1 : 0;
}

/* Codec id a blob names, or 0. */
int
gpx_blob_codec(const uint8_t *buf, size_t len)
{
	switch (gpx_blob_version(buf, len))
	{
		case 1:
			return len >= 2 ? buf[1] : 0;
		case 2:
			return (int) GPX_TAG_CODEC(buf[0]);
	}
	return 0;
}

/* Header checks shared by both versions: n, first and last agree. */
static gpx_status
hdr_check_range(const gpx_list *l)
{
	if (l->n > GPX_MAX_N || l->first > GPX_MAX_DOCID ||
		l->last > GPX_MAX_DOCID || l->first > l->last)
		return GPX_E_HEADER;
	if (l->n == 0 && (l->first != 0 || l->last != 0))
		return GPX_E_HEADER;
	/* n distinct docIDs in [first, last] need last - first >= n - 1 */
	if (l->n > 0 && (uint64_t) l->last - l->first + 1 < l->n)
		return GPX_E_HEADER;
	if (l->n == 1 && l->first != l->last)
		return GPX_E_HEADER;
	return GPX_OK;
}

/* Read a v1 header from a prefix of at least GPX_V1_HEADER_SIZE bytes. */
static gpx_status
hdr_peek_v1(gpx_list *l, const uint8_t *buf, size_t prefix_len)
{
	const gpx_codec_ops *ops;

	if (prefix_len < GPX_V1_HEADER_SIZE)
		return GPX_E_TRUNCATED;
	ops = gpx_ops(buf[HDR_CODEC]);
	if (ops == NULL)
		return GPX_E_CODEC;
	memset(l, 0, sizeof(*l));
	l->base = buf;
	l->version = GPX_FORMAT_V1;
	l->codec = buf[HDR_CODEC];
	l->log2_block = buf[HDR_LOG2_BLOCK];
	l->param = buf[HDR_PARAM];
	l->dir_stride = GPX_DIR_ENTRY_SIZE;
	l->hdr_bytes = GPX_V1_HEADER_SIZE;
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
		(l->payload_bytes & 3) != 0)
		return GPX_E_HEADER;
	if (l->n == 0 && (l->param != 0 || l->payload_bytes != 0))
		return GPX_E_HEADER;
	return hdr_check_range(l);
}

/*
 * Read a v2 header from buf[0..prefix_len) of a blob of total_len bytes;
 * sets hdr_bytes (where the directory padding or the block starts) and,
 * for one block, payload_bytes and last (which need the whole blob).
 */
static gpx_status
hdr_peek_v2(gpx_list *l, const uint8_t *buf, size_t prefix_len,
			size_t total_len)
{
	uint8_t		tag = buf[0];
	size_t		pos = 1;
	uint32_t	s = GPX_TAG_SMALL(tag),
				info,
				shape,
				x = 0,
				t = 0,
				dl;
	const gpx_codec_ops *ops = gpx_ops((int) GPX_TAG_CODEC(tag));
	gpx_status	st;

	if (ops == NULL)
		return GPX_E_CODEC;
	memset(l, 0, sizeof(*l));
	l->base = buf;
	l->version = 2;
	l->codec = (uint8_t) GPX_TAG_CODEC(tag);
	l->log2_block = ops->log2_block;
	l->dir_stride = GPX_DIR_ENTRY_SIZE;
	if (s > 0)
	{
		/* a small list: n in the tag, then first, then its block */
		l->n = s;
		l->kind0 = (uint8_t) GPX_TAG_KIND(tag);
		if ((st = gpx_varint_get(buf, prefix_len, &pos, &l->first)) != GPX_OK)
			return st;
		if (s == 1 && l->kind0 != 0)
			return GPX_E_HEADER;
		shape = GPX_SHAPE_ONE;
	}
	else
	{
		if (GPX_TAG_KIND(tag) != 0)
			return GPX_E_HEADER;
		if ((st = gpx_varint_get(buf, prefix_len, &pos, &info)) != GPX_OK)
			return st;
		shape = GPX_INFO_SHAPE(info);
		l->flags = (uint8_t) (info & GPX_INFO_FLAGS);
		if ((info & ~(3u | (3u << 2) | GPX_INFO_FLAGS)) != 0 || shape == 3)
			return GPX_E_HEADER;
		if (shape == GPX_SHAPE_ONE ? GPX_INFO_KIND(info) > GPX_KIND_BITMAP :
			GPX_INFO_KIND(info) != 0)
			return GPX_E_HEADER;
		l->kind0 = (uint8_t) GPX_INFO_KIND(info);
		if (shape == GPX_SHAPE_EMPTY)
		{
			if (l->flags != 0)
				return GPX_E_HEADER;
			l->hdr_bytes = (uint32_t) pos;
			return GPX_OK;
		}
		if (shape == GPX_SHAPE_ONE && (l->flags & GPX_F_DIREXTRA))
			return GPX_E_HEADER;
		if ((st = gpx_varint_get(buf, prefix_len, &pos, &l->n)) != GPX_OK ||
			(st = gpx_varint_get(buf, prefix_len, &pos, &l->first)) != GPX_OK)
			return st;
		if (l->n == 0 || l->n > GPX_MAX_N)
			return GPX_E_HEADER;
		if (shape == GPX_SHAPE_BLOCKS)
		{
			if ((st = gpx_varint_get(buf, prefix_len, &pos, &dl)) != GPX_OK)
				return st;
			if ((uint64_t) l->first + dl > GPX_MAX_DOCID)
				return GPX_E_HEADER;
			l->last = l->first + dl;
		}
		if (l->flags & GPX_F_DIREXTRA)
		{
			if ((st = gpx_varint_get(buf, prefix_len, &pos, &x)) != GPX_OK)
				return st;
			if ((x & 3) != 0 || x > 0xFFF0u)
				return GPX_E_HEADER;
			l->dir_stride = (uint16_t) (GPX_DIR_ENTRY_SIZE + x);
		}
		if (shape == GPX_SHAPE_BLOCKS &&
			((l->flags & GPX_F_TF) != 0) != ((l->flags & GPX_F_DIREXTRA) != 0))
			return GPX_E_HEADER;
		if ((l->flags & GPX_F_DIREXTRA) && x != 8)
			return GPX_E_HEADER;
		if (l->flags & GPX_F_TF)
		{
			if ((st = gpx_varint_get(buf, prefix_len, &pos, &t)) != GPX_OK)
				return st;
			l->tf_bytes = t;
			if (shape == GPX_SHAPE_ONE)
			{
				if ((st = gpx_varint_get(buf, prefix_len, &pos, &l->tf_max0)) != GPX_OK)
					return st;
				if (l->tf_max0 == 0 || l->tf_max0 > GPX_S8B_MAX_VALUE)
					return GPX_E_HEADER;
			}
		}
	}
	l->hdr_bytes = (uint32_t) pos;
	if (shape == GPX_SHAPE_BLOCKS)
	{
		if (l->n <= (1u << l->log2_block))
			return GPX_E_HEADER;
		l->nblocks = gpx_nblocks_for(l->n, l->log2_block);
		return hdr_check_range(l);
	}

	/* one block: n <= the block size, last from the block's final byte */
	l->nblocks = 1;
	if (l->n > (1u << l->log2_block) || l->first > GPX_MAX_DOCID)
		return GPX_E_HEADER;
	if (total_len < pos || total_len - pos < t)
		return GPX_E_TRUNCATED;
	if (total_len - pos - t > UINT32_MAX / 8)
		return GPX_E_TOOBIG;
	l->payload_bytes = (uint32_t) (total_len - pos - t);
	if (l->flags & GPX_F_TF)
	{
		/*
		 * the tf section starts at a multiple of 4, after 0..3 zero bytes
		 * that end the block (whose own final byte is not zero)
		 */
		uint32_t	pad = 0;

		if (((total_len - t) & 3) != 0)
			return GPX_E_TRUNCATED;
		if (l->n == 1)
			pad = l->payload_bytes;
		else
		{
			if (prefix_len < total_len)
				return GPX_E_TRUNCATED;
			while (pad < 3 && pad < l->payload_bytes &&
				   buf[pos + l->payload_bytes - 1 - pad] == 0)
				pad++;
		}
		if (pad > 3)
			return GPX_E_TRAILING;
		l->payload_bytes -= pad;
	}
	if (l->n == 1)
	{
		l->last = l->first;
		if (l->payload_bytes != 0)
			return GPX_E_TRAILING;
	}
	else
	{
		gpx_blk		k;

		if (prefix_len < total_len)
			return GPX_E_TRUNCATED;
		k.p = buf + pos;
		k.plen = l->payload_bytes;
		k.bit = 0;
		k.end = (uint64_t) l->payload_bytes * 8;
		k.first = l->first;
		k.cnt = l->n;
		k.form = (uint8_t) gpx_kind_form(l->codec, l->kind0);
		st = l->kind0 == GPX_KIND_BITMAP ? gpx_bm_blk_last(&k, &l->last) :
			gpx_ef_blk_last(&k, &l->last);
		if (st != GPX_OK)
			return st == GPX_E_TRAILING ? st : GPX_E_PAYLOAD;
	}
	return hdr_check_range(l);
}

/* Read the header fields of a blob of total_len bytes from a prefix. */
gpx_status
gpx_peek_header(gpx_list *l, const uint8_t *buf, size_t prefix_len,
				size_t total_len)
{
	gpx_status	st;

	if (l == NULL || buf == NULL || prefix_len > total_len)
		return GPX_E_ARG;
	if (prefix_len == 0)
		return GPX_E_TRUNCATED;
	switch (gpx_blob_version(buf, prefix_len))
	{
		case 1:
			st = hdr_peek_v1(l, buf, prefix_len);
			break;
		case 2:
			st = hdr_peek_v2(l, buf, prefix_len, total_len);
			break;
		default:
			return GPX_E_VERSION;
	}
	if (st != GPX_OK)
		return st;
	/* no pointers: only a full gpx_open makes them safe */
	l->dir = NULL;
	l->payload = NULL;
	l->tf = NULL;
	return GPX_OK;
}

/*
 * Whether the last block k of a v2 list, which does not fit its bytes,
 * lost its end (GPX_E_TRUNCATED) or has bytes after it (GPX_E_TRAILING):
 * the codec's own forms by the size their header gives, the others by
 * counting their elements.
 */
static gpx_status
blk_tail_status(const gpx_blk *k)
{
	uint32_t	scratch[GPX_MAX_BLOCK];
	uint64_t	have,
				need = 0,
				hdr = k->form == GPX_FORM_PFOR ? 32 : 96;
	gpx_status	st;

	if (k->bit > k->end)
		return GPX_E_TRUNCATED;
	have = (k->end - k->bit) / 8;
	switch (k->form)
	{
		case GPX_FORM_PFOR:
		case GPX_FORM_LRC:
			if ((k->bit & 31) != 0)
				return GPX_E_DIRECTORY;
			if (k->bit + hdr > k->end)
				return GPX_E_TRUNCATED;
			need = k->form == GPX_FORM_PFOR ? gpx_pfor_blk_bytes(k) : gpx_lrc_blk_bytes(k);
			if (need == 0)
				return GPX_E_PAYLOAD;
			return need > have ? GPX_E_TRUNCATED : need < have ? GPX_E_TRAILING : GPX_E_PAYLOAD;
		case GPX_FORM_EF:
			st = gpx_ef_blk_check(k, UINT32_MAX, scratch);
			break;
		case GPX_FORM_BITMAP:
			st = gpx_bm_blk_check(k, UINT32_MAX, scratch);
			break;
		default:
			return GPX_E_DIRECTORY;
	}
	return st == GPX_E_TRUNCATED ? GPX_E_TRUNCATED : GPX_E_TRAILING;
}

/* Parse a full v1 blob: header plus directory and payload bounds. */
static gpx_status
open_v1(gpx_list *l, const uint8_t *buf, size_t len)
{
	gpx_status	st = hdr_peek_v1(l, buf, len);
	uint64_t	need;

	if (st != GPX_OK)
		return st;
	need = (uint64_t) gpx_payload_offset(l->nblocks) + l->payload_bytes;
	if (len < need)
		return GPX_E_TRUNCATED;
	if (len > need)
		return GPX_E_TRAILING;
	l->len = len;
	l->dir = buf + GPX_V1_HEADER_SIZE;
	l->payload = buf + gpx_payload_offset(l->nblocks);
	return GPX_OK;
}

/* Parse a full v2 blob: header, directory and payload bounds. */
static gpx_status
open_v2(gpx_list *l, const uint8_t *buf, size_t len)
{
	gpx_status	st = hdr_peek_v2(l, buf, len, len);
	uint64_t	dir_off,
				pay_off;

	if (st != GPX_OK)
		return st;
	l->len = len;
	if (l->n == 0)
		return len == l->hdr_bytes ? GPX_OK : GPX_E_TRAILING;
	if (l->nblocks == 1)
	{
		l->payload = buf + l->hdr_bytes;
		if (l->flags & GPX_F_TF)
			l->tf = buf + len - l->tf_bytes;
		return GPX_OK;
	}
	dir_off = ((uint64_t) l->hdr_bytes + 3) & ~(uint64_t) 3;
	pay_off = dir_off + (uint64_t) l->nblocks * l->dir_stride;
	if ((uint64_t) len < pay_off + l->tf_bytes)
		return GPX_E_TRUNCATED;
	if (len - pay_off - l->tf_bytes > ((uint64_t) 1 << 30) - 4)
		return GPX_E_TOOBIG;
	l->payload_bytes = (uint32_t) (len - pay_off - l->tf_bytes);
	l->dir = buf + dir_off;
	l->payload = buf + pay_off;
	if ((l->payload_bytes & 3) != 0)
	{
		/* cut, or bytes appended: the last block tells which */
		gpx_blk		k;

		gpx_blk_at(l, l->nblocks - 1, &k);
		return blk_tail_status(&k);
	}
	if (l->flags & GPX_F_TF)
		l->tf = l->payload + l->payload_bytes;
	return GPX_OK;
}

/* Parse a full blob of either version. */
gpx_status
gpx_open(gpx_list *l, const uint8_t *buf, size_t len)
{
	if (l == NULL || buf == NULL)
		return GPX_E_ARG;
	if (len == 0)
		return GPX_E_TRUNCATED;
	switch (gpx_blob_version(buf, len))
	{
		case 1:
			return open_v1(l, buf, len);
		case 2:
			return open_v2(l, buf, len);
	}
	return GPX_E_VERSION;
}

/* First docID of block blk. */
uint32_t
gpx_dir_first(const gpx_list *l, uint32_t blk)
{
	return gpx_dir_first_at(l, blk);
}

/* Stored offset (v1) or loc (v2) of block blk. */
uint32_t
gpx_dir_offset(const gpx_list *l, uint32_t blk)
{
	return gpx_dir_loc_at(l, blk);
}

/* Element count of block blk. */
uint32_t
gpx_block_count(const gpx_list *l, uint32_t blk)
{
	return gpx_block_count_at(l, blk);
}

/* How block blk is coded. */
gpx_form
gpx_block_form(const gpx_list *l, uint32_t blk)
{
	if (l == NULL || blk >= l->nblocks)
		return GPX_FORM_NONE;
	return gpx_form_at(l, blk);
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

/* The directory of an opened v1 or v2 list: firsts in order, in range. */
static gpx_status
validate_dir_firsts(const gpx_list *l)
{
	uint32_t	k;

	if (gpx_dir_first(l, 0) != l->first)
		return GPX_E_DIRECTORY;
	for (k = 1; k < l->nblocks; k++)
	{
		uint32_t	f = gpx_dir_first(l, k);

		if (f <= gpx_dir_first(l, k - 1) || f > l->last)
			return GPX_E_DIRECTORY;
	}
	return GPX_OK;
}

/*
 * Check a located v2 block by its form, an Elias-Fano or bitmap block with
 * at most max_pad bytes of padding; values to scratch.
 */
static gpx_status
validate_blk_v2(const gpx_blk *k, uint32_t max_pad, uint32_t *scratch)
{
	switch (k->form)
	{
		case GPX_FORM_PFOR:
			return gpx_pfor_blk_check(k, scratch);
		case GPX_FORM_LRC:
			return gpx_lrc_blk_check(k, scratch);
		case GPX_FORM_EF:
			return gpx_ef_blk_check(k, max_pad, scratch);
		case GPX_FORM_BITMAP:
			return gpx_bm_blk_check(k, max_pad, scratch);
	}
	return GPX_E_DIRECTORY;
}

/*
 * The status for a block k that failed its check with st: for the list's
 * last block, whose end is the blob's, a missing or extra tail says
 * truncated or trailing; inside the list, the payload is corrupt.
 */
static gpx_status
validate_end_v2(const gpx_list *l, uint32_t blk, const gpx_blk *k, gpx_status st)
{
	bool		last = blk + 1 == l->nblocks;
	gpx_status	tail;

	if (st == GPX_E_TRUNCATED || st == GPX_E_TRAILING)
		return last ? st : GPX_E_PAYLOAD;
	if (!last || (k->form != GPX_FORM_PFOR && k->form != GPX_FORM_LRC))
		return st;
	tail = blk_tail_status(k);
	return tail == GPX_E_TRUNCATED || tail == GPX_E_TRAILING ? tail : st;
}

/* Largest of v[0..n) (n >= 1). */
static uint32_t
max_u32(const uint32_t *v, uint32_t n)
{
	uint32_t	m = v[0];

	for (uint32_t i = 1; i < n; i++)
		if (v[i] > m)
			m = v[i];
	return m;
}

/*
 * Validate the tf section of an opened v2 list whose docIDs passed: the
 * zero padding before it (one block), every block's Simple-8b words (every
 * selector, the count of each block equal to its docID count, no word
 * past the block), the directory's offsets (block k where block k - 1
 * ends, the last ending at the blob's end) and largest-tf fields (equal to
 * the decoded maxima).  scratch: GPX_MAX_BLOCK values.
 */
static gpx_status
validate_tfs(const gpx_list *l, uint32_t *scratch)
{
	uint64_t	run = 0;
	gpx_status	st;

	if ((l->flags & GPX_F_TF) == 0)
		return GPX_OK;
	if (l->nblocks == 1)
	{
		size_t		used;

		for (const uint8_t *p = l->payload + l->payload_bytes; p < l->tf; p++)
			if (*p != 0)
				return GPX_E_PAYLOAD;
		st = gpx_s8b_validate_block(l->tf, l->tf_bytes, l->n,
									GPX_S8B_TF_BASE, &used);
		if (st != GPX_OK)
			return st;
		if (used != l->tf_bytes)
			return GPX_E_TRAILING;
		gpx_s8b_decode_block(l->tf, l->n, GPX_S8B_TF_BASE, scratch);
		return max_u32(scratch, l->n) == l->tf_max0 ? GPX_OK : GPX_E_HEADER;
	}
	for (uint32_t k = 0; k < l->nblocks; k++)
	{
		const uint8_t *e = l->dir + (size_t) k * l->dir_stride;
		uint32_t	off = gpx_load32(e + 8);
		uint32_t	mx = gpx_load32(e + 12);
		uint32_t	cnt = gpx_block_count_at(l, k);
		size_t		used;

		if (off != run || off > l->tf_bytes)
			return GPX_E_DIRECTORY;
		st = gpx_s8b_validate_block(l->tf + off, l->tf_bytes - off, cnt,
									GPX_S8B_TF_BASE, &used);
		if (st != GPX_OK)
			return st == GPX_E_TRUNCATED && k + 1 < l->nblocks ?
				GPX_E_PAYLOAD : st;
		gpx_s8b_decode_block(l->tf + off, cnt, GPX_S8B_TF_BASE, scratch);
		if (max_u32(scratch, cnt) != mx)
			return GPX_E_DIRECTORY;
		run += used;
	}
	return run == l->tf_bytes ? GPX_OK : GPX_E_TRAILING;
}

/*
 * Validate an opened v2 list: flags this build knows, the padding before
 * the directory, the directory (firsts, kinds, offsets in order, own
 * blocks word-aligned), then every block by its form.
 */
static gpx_status
validate_v2(const gpx_list *l, uint32_t *scratch)
{
	gpx_status	st;
	uint32_t	k;
	uint32_t	prev_off = 0;

	if (l->n == 0)
		return GPX_OK;
	if (l->nblocks == 1)
	{
		gpx_blk		b;

		gpx_blk_at(l, 0, &b);
		st = validate_blk_v2(&b, 0, scratch);
		if (st != GPX_OK)
			return validate_end_v2(l, 0, &b, st);
		st = gpx_check_block(l, 0, scratch, b.cnt);
		if (st != GPX_OK)
			return st;
		return validate_tfs(l, scratch);
	}
	for (const uint8_t *p = l->base + l->hdr_bytes; p < l->dir; p++)
		if (*p != 0)
			return GPX_E_HEADER;
	st = validate_dir_firsts(l);
	if (st != GPX_OK)
		return st;
	for (k = 0; k < l->nblocks; k++)
	{
		uint32_t	loc = gpx_dir_loc_at(l, k);
		uint32_t	off = loc >> 2;
		gpx_form	f = gpx_kind_form(l->codec, loc & 3u);

		if (f == GPX_FORM_NONE)
			return GPX_E_DIRECTORY;
		if (k == 0 ? off != 0 : off < prev_off)
			return GPX_E_DIRECTORY;
		if (off > l->payload_bytes)
			return GPX_E_DIRECTORY;
		if ((f == GPX_FORM_PFOR || f == GPX_FORM_LRC) && (off & 3) != 0)
			return GPX_E_DIRECTORY;
		prev_off = off;
	}
	for (k = 0; k < l->nblocks; k++)
	{
		gpx_blk		b;

		gpx_blk_at(l, k, &b);
		st = validate_blk_v2(&b, 3, scratch);
		if (st != GPX_OK)
			return validate_end_v2(l, k, &b, st);
		st = gpx_check_block(l, k, scratch, b.cnt);
		if (st != GPX_OK)
			return st;
	}
	return validate_tfs(l, scratch);
}

/* Fully validate a blob. */
gpx_status
gpx_validate(const uint8_t *buf, size_t len, uint32_t *scratch)
{
	gpx_list	l;
	gpx_status	st;

	if (scratch == NULL)
		return GPX_E_ARG;
	st = gpx_open(&l, buf, len);
	if (st != GPX_OK)
		return st;
	if (l.version != GPX_FORMAT_V1)
		return validate_v2(&l, scratch);
	if (l.n == 0)
		return GPX_OK;
	st = validate_dir_firsts(&l);
	if (st != GPX_OK)
		return st;
	return gpx_ops(l.codec)->validate(&l, scratch);
}

/* Decode block blk into out. */
uint32_t
gpx_decode_block(const gpx_list *l, uint32_t blk, uint32_t *out)
{
	return gpx_blk_decode_at(l, blk, out);
}

/*
 * Decode the whole list into out[0..n).  A block decoder may write all
 * GPX_MAX_BLOCK slots of its output (the bitmap's does): a bitmap block
 * that starts within that many slots of the end goes through a scratch
 * buffer.
 */
void
gpx_decode(const gpx_list *l, uint32_t *out)
{
	uint32_t	scratch[GPX_MAX_BLOCK];
	uint64_t	pos = 0;
	uint32_t	k;

	for (k = 0; k < l->nblocks; k++)
	{
		gpx_blk		b;

		gpx_blk_at(l, k, &b);
		if (pos + GPX_MAX_BLOCK <= l->n || b.form != GPX_FORM_BITMAP)
			pos += gpx_blk_decode(l, k, &b, out + pos);
		else
		{
			uint32_t	cnt = gpx_blk_decode(l, k, &b, scratch);

			memcpy(out + pos, scratch, sizeof(uint32_t) * cnt);
			pos += cnt;
		}
	}
}

/* The i-th docID. */
uint32_t
gpx_nth(const gpx_list *l, uint32_t i)
{
	uint32_t	blk = i >> l->log2_block;
	uint32_t	j = i & ((1u << l->log2_block) - 1);
	gpx_blk		k;

	gpx_blk_at(l, blk, &k);
	switch (k.form)
	{
		case GPX_FORM_PFOR:
			return gpx_pfor_blk_nth(&k, j);
		case GPX_FORM_LRC:
			return gpx_lrc_blk_nth(&k, j);
		case GPX_FORM_EF:
			return gpx_ef_blk_nth(&k, j);
		case GPX_FORM_BITMAP:
			return gpx_bm_blk_nth(&k, j);
		default:
			return gpx_qs1_nth(l, i);
	}
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

		if (gpx_dir_first_at(l, mid) <= x)
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
	pos = gpx_blk_lower_bound_at(l, blk, x, val);
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

/*
 * The view the CUDA kernels take of a blob copied to a 4-byte aligned
 * device address: offsets from the blob's start.  A v2 one-block payload
 * may start at any byte; the kernels read it from the word holding its
 * first byte, at bit payload_bit, never past the word holding its last.
 */
gpx_status
gpx_dev_view(const gpx_list *l, gpx_devview *v)
{
	uint64_t	poff,
				pend;

	if (l == NULL || v == NULL)
		return GPX_E_ARG;
	memset(v, 0, sizeof(*v));
	v->version = l->version;
	v->kind0 = l->kind0;
	v->dir_stride = l->dir_stride;
	if (l->n == 0)
		return GPX_OK;
	if (l->base == NULL || l->payload == NULL ||
		(l->nblocks > 1 && l->dir == NULL) ||
		l->len > UINT32_MAX || l->codec < GPX_CODEC_MIN ||
		l->codec > GPX_CODEC_MAX ||
		l->log2_block != gpx_ops(l->codec)->log2_block ||
		l->nblocks != gpx_nblocks_for(l->n, l->log2_block))
		return GPX_E_ARG;
	poff = (uint64_t) (l->payload - l->base);
	pend = poff + l->payload_bytes;
	if (l->flags & GPX_F_TF)
	{
		uint64_t	toff = l->len - (uint64_t) l->tf_bytes;

		if (l->tf_bytes > l->len || (toff & 3) != 0 || toff < pend ||
			toff - pend > 3 || l->tf != l->base + toff)
			return GPX_E_ARG;
		v->tf_off = (uint32_t) toff;
		v->tf_bytes = l->tf_bytes;
		v->tf_max0 = l->tf_max0;
	}
	else if (pend != l->len)
		return GPX_E_ARG;
	if (l->dir != NULL)
	{
		uint64_t	doff = (uint64_t) (l->dir - l->base);

		/* word-aligned directory and payload, entries in front of it */
		if ((doff & 3) != 0 || (poff & 3) != 0 || (l->dir_stride & 3) != 0 ||
			doff + (uint64_t) l->nblocks * l->dir_stride != poff ||
			(l->payload_bytes & 3) != 0)
			return GPX_E_ARG;
		v->dir_off = (uint32_t) doff;
	}
	if (l->version == GPX_FORMAT_V1 && l->codec == GPX_CODEC_QS)
	{
		uint64_t	lw = gpx_words_for_bits((uint64_t) l->n * l->param);

		if (l->param > 31 || lw > l->payload_bytes / 4)
			return GPX_E_ARG;
		v->qs_low_words = (uint32_t) lw;
	}
	v->payload_off = (uint32_t) (poff & ~(uint64_t) 3);
	v->payload_bit = (uint32_t) (poff & 3) * 8;
	v->payload_words = (uint32_t) ((pend - v->payload_off + 3) / 4);
	v->payload_bytes = l->payload_bytes;
	return GPX_OK;
}

/* Whether a list carries term frequencies. */
bool
gpx_has_tfs(const gpx_list *l)
{
	return l->n > 0 && (l->flags & GPX_F_TF) != 0 && l->tf != NULL;
}

/* Largest term frequency of block blk (1 without frequencies). */
uint32_t
gpx_block_tf_max(const gpx_list *l, uint32_t blk)
{
	if (!gpx_has_tfs(l))
		return 1;
	if (l->dir == NULL)
		return l->tf_max0;
	return gpx_load32(l->dir + (size_t) blk * l->dir_stride + 12);
}

/*
 * gpx_block_tfs_at reads single fields while fewer than 1 in this many of
 * a block's frequencies are wanted, else decodes the block (bench_rank,
 * ranked AND: 2 / 4 / 8 / 16 / never gave 0.223 / 0.216 / 0.213 / 0.226 /
 * 0.263 ms a query on vm).
 */
#define FORMAT_TF_SELECT_MAX 8

/* Start of block blk's frequencies in the tf section (a list with one). */
static inline const uint8_t *
format_block_tf(const gpx_list *l, uint32_t blk)
{
	if (l->dir == NULL)
		return l->tf;
	return l->tf + gpx_load32(l->dir + (size_t) blk * l->dir_stride + 8);
}

/* Decode the term frequencies of block blk (1s without a section). */
uint32_t
gpx_decode_block_tfs(const gpx_list *l, uint32_t blk, uint32_t *out)
{
	uint32_t	cnt = gpx_block_count_at(l, blk);

	if (!gpx_has_tfs(l))
	{
		for (uint32_t i = 0; i < cnt; i++)
			out[i] = 1;
		return cnt;
	}
	gpx_s8b_decode_block(format_block_tf(l, blk), cnt, GPX_S8B_TF_BASE, out);
	return cnt;
}

/*
 * Frequencies of the postings at positions pos[0..n) of block blk: 1s
 * when the block's largest is 1, else a few read where they are or the
 * whole block decoded.
 */
void
gpx_block_tfs_at(const gpx_list *l, uint32_t blk, const uint32_t *pos,
				 uint32_t n, uint32_t *out)
{
	uint32_t	cnt = gpx_block_count_at(l, blk),
				all[GPX_MAX_BLOCK];

	if (gpx_block_tf_max(l, blk) == 1)
	{
		for (uint32_t i = 0; i < n; i++)
			out[i] = 1;
		return;
	}
	if (n * FORMAT_TF_SELECT_MAX < cnt)
	{
		gpx_s8b_select_block(format_block_tf(l, blk), GPX_S8B_TF_BASE, pos, n,
							 out);
		return;
	}
	gpx_s8b_decode_block(format_block_tf(l, blk), cnt, GPX_S8B_TF_BASE, all);
	for (uint32_t i = 0; i < n; i++)
		out[i] = all[pos[i]];
}

/* Decode all term frequencies into out[0..n). */
void
gpx_decode_tfs(const gpx_list *l, uint32_t *out)
{
	if (!gpx_has_tfs(l))
	{
		for (uint32_t i = 0; i < l->n; i++)
			out[i] = 1;
		return;
	}
	gpx_s8b_decode(l->tf, l->n, GPX_S8B_TF_BASE, out);
}
