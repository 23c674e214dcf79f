/*
 * gpx_codec.h - public API of the gpuidx codec core (pure C, no postgres.h).
 *
 * A posting list is a strictly increasing sequence of docIDs in
 * [0, GPX_MAX_DOCID].  Every codec produces a self-describing "blob":
 *
 *   [header, 32 bytes][directory, nblocks * 8 bytes][payload, payload_bytes]
 *
 * All multi-byte fields are little-endian.  The header:
 *
 *   off size field
 *    0   1   version        GPX_FORMAT_VERSION
 *    1   1   codec          gpx_codec_id
 *    2   1   log2_block     elements per block = 1 << log2_block
 *                           (7 for pfor, 8 for lrc and qs)
 *    3   1   param          codec parameter (qs: number of low bits b;
 *                           must be 0 for pfor and lrc)
 *    4   4   n              number of docIDs
 *    8   4   first          first docID (0 when n = 0)
 *   12   4   last           last docID  (0 when n = 0)
 *   16   4   nblocks        ceil(n / block size)
 *   20   4   payload_bytes  size of the payload, a multiple of 4
 *   24   4   flags          reserved, must be 0
 *   28   4   reserved       must be 0
 *
 * Directory entry k (8 bytes): first docID of block k, then a codec-defined
 * 32-bit offset: the payload word (uint32) index where block k starts for
 * pfor and lrc, the bit position of element k*256's unary bit in the
 * upper-bits array for qs.
 *
 * The payload is an array of little-endian 32-bit words; all bit packing is
 * LSB-first inside words, values never wider than 32 bits, so a reader
 * touches at most two consecutive words and never reads past the payload.
 *
 * Ownership: the library never allocates memory; callers pass buffers.
 * Functions other than gpx_validate() assume a blob that gpx_validate()
 * accepted (or that the encoder produced).  No function prints or aborts:
 * every failure is a gpx_status.
 */
#ifndef GPX_CODEC_H
#define GPX_CODEC_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GPX_FORMAT_VERSION 1
#define GPX_HEADER_SIZE 32
#define GPX_DIR_ENTRY_SIZE 8
#define GPX_MAX_DOCID 0x7FFFFFFFu
/* the largest element count a blob may hold (every docID of [0, 2^31-1]) */
#define GPX_MAX_N 0x80000000u
/* the largest block any codec uses: scratch buffers of this size suffice */
#define GPX_MAX_BLOCK 256

typedef enum gpx_codec_id
{
	GPX_CODEC_PFOR = 1,			/* Parallel PForDelta, blocks of 128 */
	GPX_CODEC_LRC = 2,			/* SegLRC, segments of 256 */
	GPX_CODEC_QS = 3			/* Elias-Fano with samples every 256 */
} gpx_codec_id;

#define GPX_CODEC_MIN GPX_CODEC_PFOR
#define GPX_CODEC_MAX GPX_CODEC_QS

typedef enum gpx_status
{
	GPX_OK = 0,
	GPX_E_UNSORTED,				/* input not strictly increasing */
	GPX_E_RANGE,				/* a docID outside [0, GPX_MAX_DOCID] */
	GPX_E_TOOBIG,				/* too many elements / output too large */
	GPX_E_NOSPACE,				/* output buffer smaller than needed */
	GPX_E_TRUNCATED,			/* blob shorter than its header says */
	GPX_E_TRAILING,				/* blob longer than its header says */
	GPX_E_VERSION,				/* unknown format version */
	GPX_E_CODEC,				/* unknown codec, or not the expected one */
	GPX_E_HEADER,				/* inconsistent header field */
	GPX_E_DIRECTORY,			/* inconsistent block directory */
	GPX_E_PAYLOAD,				/* payload does not decode to a valid list */
	GPX_E_ARG					/* invalid argument (NULL, bad index) */
} gpx_status;

/* A parsed view of a blob: no copy, just pointers and header fields. */
typedef struct gpx_list
{
	const uint8_t *base;		/* start of the blob (the header) */
	size_t		len;			/* blob length in bytes */
	uint8_t		codec;
	uint8_t		log2_block;
	uint8_t		param;
	uint32_t	n;
	uint32_t	first;
	uint32_t	last;
	uint32_t	nblocks;
	uint32_t	payload_bytes;
	const uint8_t *dir;			/* nblocks entries of 8 bytes */
	const uint8_t *payload;		/* payload_bytes bytes */
} gpx_list;

/* Human-readable text for a status (static storage). */
const char *gpx_status_str(gpx_status st);

/* Codec name ("pfor", "lrc", "qs") or NULL for an unknown id. */
const char *gpx_codec_name(int codec);

/* Check that docs[0..n) is strictly increasing and within range. */
gpx_status gpx_check_sorted(const uint32_t *docs, size_t n);

/* Upper bound on the blob size for encoding n docIDs whose last is `last`. */
size_t		gpx_encode_bound(int codec, uint32_t n, uint32_t last);

/*
 * Encode docs[0..n) (strictly increasing, <= GPX_MAX_DOCID) with `codec`
 * into out[0..cap).  cap >= gpx_encode_bound() always suffices.  On success
 * *outlen is the blob length.
 */
gpx_status	gpx_encode(int codec, const uint32_t *docs, uint32_t n,
					   uint8_t *out, size_t cap, size_t *outlen);

/*
 * Parse the header and directory bounds of a blob without touching the
 * payload.  Only needs the first GPX_HEADER_SIZE bytes for the header
 * fields; `len` must be the full length for the pointers to be usable.
 * Checks only what is needed to make the pointers safe; gpx_validate()
 * checks everything.
 */
gpx_status	gpx_open(gpx_list *l, const uint8_t *buf, size_t len);

/* Read just the header fields from a prefix of >= GPX_HEADER_SIZE bytes. */
gpx_status	gpx_peek_header(gpx_list *l, const uint8_t *buf, size_t prefix_len);

/*
 * Fully validate a blob of len bytes: header, directory and payload must
 * describe a strictly increasing list in [0, GPX_MAX_DOCID] consistent with
 * n, first, last and the directory.  Never reads outside buf[0..len).
 * `scratch` must hold GPX_MAX_BLOCK uint32 values.
 */
gpx_status	gpx_validate(const uint8_t *buf, size_t len, uint32_t *scratch);

/* Decode the whole list into out[0..n). */
void		gpx_decode(const gpx_list *l, uint32_t *out);

/* Decode block blk into out (GPX_MAX_BLOCK slots); returns its count. */
uint32_t	gpx_decode_block(const gpx_list *l, uint32_t blk, uint32_t *out);

/* Element count of block blk. */
uint32_t	gpx_block_count(const gpx_list *l, uint32_t blk);

/* First docID of block blk, from the directory. */
uint32_t	gpx_dir_first(const gpx_list *l, uint32_t blk);

/* Codec-defined offset of block blk, from the directory. */
uint32_t	gpx_dir_offset(const gpx_list *l, uint32_t blk);

/* The i-th docID, 0 <= i < n (random access through the directory). */
uint32_t	gpx_nth(const gpx_list *l, uint32_t i);

/*
 * Index of the first element >= x, or n if none; *val (if not NULL) gets
 * that element.  Uses the directory, then the codec's in-block search.
 */
uint32_t	gpx_lower_bound(const gpx_list *l, uint32_t x, uint32_t *val);

/* True iff x is in the list. */
bool		gpx_contains(const gpx_list *l, uint32_t x);

/* Last block whose first docID <= x, or 0 if x < first (directory search). */
uint32_t	gpx_find_block(const gpx_list *l, uint32_t x);

/*
 * A forward cursor for intersections: next_geq(x) with non-decreasing x
 * advances through the list, decoding at most what a probe touches.
 */
typedef struct gpx_cursor
{
	const gpx_list *l;
	uint32_t	blk;			/* current block, or nblocks when exhausted */
	uint32_t	pos;			/* index inside the decoded block */
	uint32_t	cnt;			/* elements decoded in buf (0: not decoded) */
	uint32_t	buf[GPX_MAX_BLOCK];
} gpx_cursor;

/* Position a cursor at the start of l. */
void		gpx_cursor_init(gpx_cursor *c, const gpx_list *l);

/*
 * Advance to the first element >= x (x non-decreasing across calls).
 * Returns true and sets *val when found, false when the list is exhausted.
 */
bool		gpx_cursor_next_geq(gpx_cursor *c, uint32_t x, uint32_t *val);

/* Bits per docID of the blob (8 * len / n; 0 for an empty list). */
double		gpx_bits_per_docid(const gpx_list *l);

#ifdef __cplusplus
}
#endif

#endif							/* GPX_CODEC_H */
