/*
 * gpx_doclen.c - encoding, parsing and validation of collection statistics
 * blobs (layout in gpx_doclen.h).
 */
#include <string.h>

#include "gpx_doclen.h"

/* Little-endian stores and loads. */
static inline void
dl_put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t) v;
	p[1] = (uint8_t) (v >> 8);
	p[2] = (uint8_t) (v >> 16);
	p[3] = (uint8_t) (v >> 24);
}

static inline void
dl_put64(uint8_t *p, uint64_t v)
{
	dl_put32(p, (uint32_t) v);
	dl_put32(p + 4, (uint32_t) (v >> 32));
}

static inline uint32_t
dl_get32(const uint8_t *p)
{
	return (uint32_t) p[0] | (uint32_t) p[1] << 8 | (uint32_t) p[2] << 16 |
		(uint32_t) p[3] << 24;
}

static inline uint64_t
dl_get64(const uint8_t *p)
{
	return (uint64_t) dl_get32(p) | (uint64_t) dl_get32(p + 4) << 32;
}

/* Smallest entry width holding max_len + 1. */
uint32_t
gpx_doclen_width(uint32_t max_len)
{
	if (max_len < 0xFFu)
		return 1;
	if (max_len < 0xFFFFu)
		return 2;
	return 4;
}

/* Blob size, or 0 when it would not fit a size_t. */
size_t
gpx_doclen_size(uint32_t span, uint32_t max_len)
{
	uint64_t	sz;

	if (span > GPX_DOCLEN_MAX_SPAN)
		return 0;
	sz = GPX_DOCLEN_HEADER + (uint64_t) span * gpx_doclen_width(max_len);
	if (sz > (uint64_t) SIZE_MAX)
		return 0;
	return (size_t) sz;
}

/*
 * Checksum: a multiply-xorshift over little-endian 64-bit words of every
 * byte outside [32, 40), the tail zero-padded, folded with the length.
 */
uint64_t
gpx_doclen_checksum(const uint8_t *buf, size_t len)
{
	const uint64_t mul = 0x9E3779B97F4A7C15ull;
	uint64_t	h = 0x243F6A8885A308D3ull ^ (uint64_t) len;
	size_t		i = 0;

	while (i < len)
	{
		uint8_t		w8[8] = {0};
		size_t		take = len - i < 8 ? len - i : 8;
		uint64_t	w;

		memcpy(w8, buf + i, take);
		if (i == 32)
			memset(w8, 0, 8);	/* the checksum field itself */
		w = dl_get64(w8);
		h = (h ^ w) * mul;
		h ^= h >> 29;
		i += take;
	}
	h ^= h >> 32;
	h *= mul;
	h ^= h >> 29;
	return h;
}

/* Store one entry of width w. */
static inline void
dl_put_entry(uint8_t *p, uint32_t w, uint32_t v)
{
	p[0] = (uint8_t) v;
	if (w >= 2)
		p[1] = (uint8_t) (v >> 8);
	if (w == 4)
	{
		p[2] = (uint8_t) (v >> 16);
		p[3] = (uint8_t) (v >> 24);
	}
}

/* Encode dense entries into a blob. */
gpx_status
gpx_doclen_encode(const uint32_t *entries, uint32_t span, uint8_t *out,
				  size_t cap, size_t *outlen)
{
	uint64_t	ndocs = 0,
				total = 0;
	uint32_t	min_len = 0,
				max_len = 0,
				width;
	size_t		size;

	if ((entries == NULL && span > 0) || out == NULL || outlen == NULL ||
		span > GPX_DOCLEN_MAX_SPAN)
		return GPX_E_ARG;
	while (span > 0 && entries[span - 1] == 0)
		span--;
	for (uint32_t d = 0; d < span; d++)
	{
		uint32_t	e = entries[d];

		if (e == 0)
			continue;
		if (e - 1 > GPX_DOCLEN_MAX_LEN)
			return GPX_E_RANGE;
		if (ndocs == 0 || e - 1 < min_len)
			min_len = e - 1;
		if (e - 1 > max_len)
			max_len = e - 1;
		ndocs++;
		total += e - 1;
	}
	size = gpx_doclen_size(span, max_len);
	if (size == 0)
		return GPX_E_TOOBIG;
	if (cap < size)
		return GPX_E_NOSPACE;
	width = gpx_doclen_width(max_len);
	memset(out, 0, GPX_DOCLEN_HEADER);
	out[0] = GPX_DOCLEN_VERSION;
	out[1] = (uint8_t) width;
	dl_put32(out + 4, span);
	dl_put64(out + 8, ndocs);
	dl_put64(out + 16, total);
	dl_put32(out + 24, min_len);
	dl_put32(out + 28, max_len);
	for (uint32_t d = 0; d < span; d++)
		dl_put_entry(out + GPX_DOCLEN_HEADER + (size_t) d * width, width,
					 entries[d]);
	dl_put64(out + 32, gpx_doclen_checksum(out, size));
	*outlen = size;
	return GPX_OK;
}

/* Exact blob size for sorted pairs, 0 if invalid or too large. */
size_t
gpx_doclen_pairs_size(const uint32_t *docs, const uint32_t *lens, uint32_t n)
{
	uint32_t	max_len = 0;

	if (n > 0 && (docs == NULL || lens == NULL))
		return 0;
	for (uint32_t i = 0; i < n; i++)
	{
		if ((i > 0 && docs[i] <= docs[i - 1]) || docs[i] > GPX_MAX_DOCID ||
			lens[i] > GPX_DOCLEN_MAX_LEN)
			return 0;
		if (lens[i] > max_len)
			max_len = lens[i];
	}
	return gpx_doclen_size(n > 0 ? docs[n - 1] + 1 : 0, max_len);
}

/* Encode sorted (docID, length) pairs. */
gpx_status
gpx_doclen_encode_pairs(const uint32_t *docs, const uint32_t *lens,
						uint32_t n, uint8_t *out, size_t cap, size_t *outlen)
{
	uint64_t	total = 0;
	uint32_t	min_len = 0,
				max_len = 0,
				span,
				width;
	size_t		size;

	if (out == NULL || outlen == NULL || (n > 0 && (docs == NULL || lens == NULL)))
		return GPX_E_ARG;
	for (uint32_t i = 0; i < n; i++)
	{
		if (i > 0 && docs[i] <= docs[i - 1])
			return GPX_E_UNSORTED;
		if (docs[i] > GPX_MAX_DOCID || lens[i] > GPX_DOCLEN_MAX_LEN)
			return GPX_E_RANGE;
		if (i == 0 || lens[i] < min_len)
			min_len = lens[i];
		if (lens[i] > max_len)
			max_len = lens[i];
		total += lens[i];
	}
	span = n > 0 ? docs[n - 1] + 1 : 0;
	size = gpx_doclen_size(span, max_len);
	if (size == 0)
		return GPX_E_TOOBIG;
	if (cap < size)
		return GPX_E_NOSPACE;
	width = gpx_doclen_width(max_len);
	memset(out, 0, size);
	out[0] = GPX_DOCLEN_VERSION;
	out[1] = (uint8_t) width;
	dl_put32(out + 4, span);
	dl_put64(out + 8, n);
	dl_put64(out + 16, total);
	dl_put32(out + 24, min_len);
	dl_put32(out + 28, max_len);
	for (uint32_t i = 0; i < n; i++)
		dl_put_entry(out + GPX_DOCLEN_HEADER + (size_t) docs[i] * width, width,
					 lens[i] + 1);
	dl_put64(out + 32, gpx_doclen_checksum(out, size));
	*outlen = size;
	return GPX_OK;
}

/* Parse and check the header; sizes must match exactly. */
gpx_status
gpx_doclen_open(gpx_doclen *dl, const uint8_t *buf, size_t len)
{
	uint32_t	width;

	if (dl == NULL || buf == NULL)
		return GPX_E_ARG;
	if (len < GPX_DOCLEN_HEADER)
		return GPX_E_TRUNCATED;
	if (buf[0] != GPX_DOCLEN_VERSION)
		return GPX_E_VERSION;
	width = buf[1];
	if ((width != 1 && width != 2 && width != 4) || buf[2] != 0 || buf[3] != 0)
		return GPX_E_HEADER;
	dl->base = buf;
	dl->len = len;
	dl->width = width;
	dl->span = dl_get32(buf + 4);
	dl->ndocs = dl_get64(buf + 8);
	dl->total = dl_get64(buf + 16);
	dl->min_len = dl_get32(buf + 24);
	dl->max_len = dl_get32(buf + 28);
	dl->checksum = dl_get64(buf + 32);
	dl->entries = buf + GPX_DOCLEN_HEADER;
	if (dl->span > GPX_DOCLEN_MAX_SPAN)
		return GPX_E_HEADER;
	if ((uint64_t) len < GPX_DOCLEN_HEADER + (uint64_t) dl->span * width)
		return GPX_E_TRUNCATED;
	if ((uint64_t) len > GPX_DOCLEN_HEADER + (uint64_t) dl->span * width)
		return GPX_E_TRAILING;
	return GPX_OK;
}

/* Full validation: header, every entry, the summary fields, the checksum. */
gpx_status
gpx_doclen_validate(const uint8_t *buf, size_t len)
{
	gpx_doclen	dl;
	gpx_status	st = gpx_doclen_open(&dl, buf, len);
	uint64_t	ndocs = 0,
				total = 0;
	uint32_t	min_len = 0,
				max_len = 0;

	if (st != GPX_OK)
		return st;
	if (dl.ndocs > dl.span || dl.min_len > dl.max_len ||
		dl.max_len > GPX_DOCLEN_MAX_LEN ||
		dl.width != gpx_doclen_width(dl.max_len))
		return GPX_E_HEADER;
	for (uint32_t d = 0; d < dl.span; d++)
	{
		uint32_t	e = gpx_doclen_get(&dl, d);

		if (e == 0)
			continue;
		if (e - 1 > GPX_DOCLEN_MAX_LEN)
			return GPX_E_PAYLOAD;
		if (ndocs == 0 || e - 1 < min_len)
			min_len = e - 1;
		if (e - 1 > max_len)
			max_len = e - 1;
		ndocs++;
		total += e - 1;
	}
	/* canonical: the span ends at the last document */
	if (dl.span > 0 && gpx_doclen_get(&dl, dl.span - 1) == 0)
		return GPX_E_PAYLOAD;
	if (ndocs != dl.ndocs || total != dl.total || min_len != dl.min_len ||
		max_len != dl.max_len)
		return GPX_E_PAYLOAD;
	if (gpx_doclen_checksum(buf, len) != dl.checksum)
		return GPX_E_PAYLOAD;
	return GPX_OK;
}

/* Copy a range of entries out, 0 beyond the span. */
void
gpx_doclen_read(const gpx_doclen *dl, uint32_t from, uint32_t count,
				uint32_t *out)
{
	for (uint32_t i = 0; i < count; i++)
	{
		uint64_t	d = (uint64_t) from + i;

		out[i] = d < dl->span ? gpx_doclen_get(dl, (uint32_t) d) : 0;
	}
}
