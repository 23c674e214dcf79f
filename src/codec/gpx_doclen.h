/*
 * gpx_doclen.h - collection statistics for BM25: the number of documents
 * N, their total length L, and each document's length, in one flat blob
 * indexed by docID (pure C, no postgres.h; the SQL type posting_doclen
 * holds exactly one such blob).
 *
 * Layout (little-endian):
 *
 *   off size field
 *    0   1   version      GPX_DOCLEN_VERSION (1)
 *    1   1   width        bytes per entry: 1, 2 or 4 (the smallest that
 *                         holds max_len + 1)
 *    2   2   reserved     0
 *    4   4   span         entries: docIDs [0, span); span - 1 is the
 *                         largest docID present (0 when N = 0)
 *    8   8   ndocs        N, the documents present
 *   16   8   total        L, the sum of their lengths
 *   24   4   min_len      smallest length of a present document (0 if N = 0)
 *   28   4   max_len      largest (0 if N = 0)
 *   32   8   checksum     gpx_doclen_checksum of every other byte
 *   40   span * width     entries: entry[d] = length(d) + 1 for a present
 *                         document d, 0 for a docID that is no document
 *
 * The entries are a dense array: document d's length is one load at
 * 40 + d * width, on the CPU and on a GPU alike (gpx_doclen_entry takes
 * the raw pointer and width, so a kernel reads a device copy of the blob
 * with the same code).  A document's length is at most GPX_DOCLEN_MAX_LEN.
 * The checksum makes the header a fingerprint of the whole value: a cache
 * keyed by where a value is stored compares the header too, and never
 * serves other contents stored at a recycled location.
 *
 * The library never allocates.  gpx_doclen_validate checks everything
 * (sizes, canonical width and span, the counts, sums, extremes and the
 * checksum) without reading outside the buffer; the other functions trust
 * a validated (or freshly encoded) blob.
 */
#ifndef GPX_DOCLEN_H
#define GPX_DOCLEN_H

#include <stddef.h>
#include <stdint.h>

#include "gpx_codec.h"
#include "gpx_bits.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GPX_DOCLEN_VERSION 1
#define GPX_DOCLEN_HEADER 40
/* the longest document (SQL int4) */
#define GPX_DOCLEN_MAX_LEN 0x7FFFFFFFu
/* entries: every docID of [0, 2^31 - 1] */
#define GPX_DOCLEN_MAX_SPAN 0x80000000u

/* A parsed view of a doclen blob (no copy). */
typedef struct gpx_doclen
{
	const uint8_t *base;		/* the blob */
	size_t		len;
	uint32_t	span;
	uint32_t	width;			/* 1, 2 or 4 */
	uint64_t	ndocs;
	uint64_t	total;
	uint32_t	min_len;
	uint32_t	max_len;
	uint64_t	checksum;
	const uint8_t *entries;		/* span * width bytes */
} gpx_doclen;

/*
 * Entry of docID d in entries of `width` bytes (span entries): length + 1,
 * or 0 when d is no document (d >= span included).
 */
GPX_HD uint32_t
gpx_doclen_entry(const uint8_t *entries, uint32_t width, uint32_t span,
				 uint32_t d)
{
	const uint8_t *p;

	if (d >= span)
		return 0;
	p = entries + (size_t) d * width;
	if (width == 1)
		return p[0];
	if (width == 2)
		return (uint32_t) p[0] | (uint32_t) p[1] << 8;
	return (uint32_t) p[0] | (uint32_t) p[1] << 8 | (uint32_t) p[2] << 16 |
		(uint32_t) p[3] << 24;
}

/* The entry of docID d in an opened blob (see gpx_doclen_entry). */
static inline uint32_t
gpx_doclen_get(const gpx_doclen *dl, uint32_t d)
{
	return gpx_doclen_entry(dl->entries, dl->width, dl->span, d);
}

/*
 * Hint that docID d's entry will be read soon (its cache line is fetched
 * while other work goes on); no effect beyond the span or without GCC.
 */
static inline void
gpx_doclen_prefetch(const gpx_doclen *dl, uint32_t d)
{
#if defined(__GNUC__) && !defined(__CUDA_ARCH__)
	if (d < dl->span)
		__builtin_prefetch(dl->entries + (size_t) d * dl->width);
#else
	(void) dl;
	(void) d;
#endif
}

/*
 * Like gpx_doclen_prefetch, into the outer caches only: for many entries
 * asked for at once, read after other work (L1 would not hold them).
 */
static inline void
gpx_doclen_prefetch_far(const gpx_doclen *dl, uint32_t d)
{
#if defined(__GNUC__) && !defined(__CUDA_ARCH__)
	if (d < dl->span)
		__builtin_prefetch(dl->entries + (size_t) d * dl->width, 0, 1);
#else
	(void) dl;
	(void) d;
#endif
}

/* Width (1, 2, 4) of the entries of a blob whose largest length is max_len. */
uint32_t	gpx_doclen_width(uint32_t max_len);

/* Blob size for span entries and largest length max_len (0 if too large). */
size_t		gpx_doclen_size(uint32_t span, uint32_t max_len);

/*
 * Encode the statistics given by entries[0..span) (entry = length + 1, or
 * 0 for no document; lengths <= GPX_DOCLEN_MAX_LEN) into out[0..cap).
 * Trailing zero entries are dropped (the blob's span ends at the last
 * document).  cap >= gpx_doclen_size(span, largest length) suffices; *outlen
 * gets the size.  Errors: GPX_E_RANGE (an entry above MAX_LEN + 1),
 * GPX_E_NOSPACE, GPX_E_ARG.
 */
gpx_status	gpx_doclen_encode(const uint32_t *entries, uint32_t span,
							  uint8_t *out, size_t cap, size_t *outlen);

/*
 * The same from (docID, length) pairs: docs[0..n) strictly increasing,
 * every lens[i] <= GPX_DOCLEN_MAX_LEN.  gpx_doclen_pairs_size gives the
 * exact blob size (0 when too large or the input is not as required).
 */
size_t		gpx_doclen_pairs_size(const uint32_t *docs, const uint32_t *lens,
								  uint32_t n);
gpx_status	gpx_doclen_encode_pairs(const uint32_t *docs, const uint32_t *lens,
									uint32_t n, uint8_t *out, size_t cap,
									size_t *outlen);

/*
 * Parse the header of a blob of len bytes (only its first
 * GPX_DOCLEN_HEADER bytes are read; len must be the whole size): version,
 * width, reserved bytes, and len == GPX_DOCLEN_HEADER + span * width.
 */
gpx_status	gpx_doclen_open(gpx_doclen *dl, const uint8_t *buf, size_t len);

/* gpx_doclen_open, then every entry against the header and the checksum. */
gpx_status	gpx_doclen_validate(const uint8_t *buf, size_t len);

/* The checksum of a blob: every byte but the checksum field's. */
uint64_t	gpx_doclen_checksum(const uint8_t *buf, size_t len);

/*
 * Read entries [from, from + count) of an opened blob into out as
 * entries (length + 1, or 0); docIDs >= span read 0.
 */
void		gpx_doclen_read(const gpx_doclen *dl, uint32_t from, uint32_t count,
							uint32_t *out);

#ifdef __cplusplus
}
#endif

#endif							/* GPX_DOCLEN_H */
