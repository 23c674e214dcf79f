/*
 * gpx_codec.h - public API of the gpuidx codec core (pure C, no postgres.h).
 *
 * A posting list is a strictly increasing sequence of docIDs in
 * [0, GPX_MAX_DOCID].  Every codec produces a self-describing "blob".  Two
 * format versions exist: values written by gpuidx 0.1 are version 1 and
 * stay readable by every function forever; everything written now is
 * version 2.  The first byte tells them apart: a byte below 0x80 is a
 * version number (1; 0 and 2..127 are reserved), a byte >= 0x80 is the
 * tag of a version 2 blob.  All multi-byte fields are little-endian;
 * varints are unsigned LEB128 (7 bits per byte, low group first, at most 5
 * bytes, no redundant trailing 0x80 groups).
 *
 * VERSION 1 (gpuidx 0.1)
 * ----------------------
 *   [header, 32 bytes][directory, nblocks * 8 bytes][payload, payload_bytes]
 *
 *   off size field
 *    0   1   version        1
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
 * upper-bits array for qs (gpx_qs.c: one Elias-Fano list over all n).
 * Every block is of the codec's own form (gpx_pfor.c, gpx_lrc.c, gpx_qs.c).
 *
 * VERSION 2
 * ---------
 * Built for size on real text, where most lists hold a handful of docIDs:
 * a variable-length header, no directory for a list of one block, no
 * padding in such a list, and per-block forms chosen by size.
 *
 * Byte 0, the tag:
 *   bit  7     1
 *   bits 5-6   codec (1 pfor, 2 lrc, 3 qs; 0 is invalid)
 *   bit  4     k: the block form of a small list (0 Elias-Fano, 1 bitmap)
 *   bits 0-3   s: 1..15: a small list of n = s docIDs; 0: extended header
 *
 * Small list (s >= 1):
 *   [tag][varint first][the single block, k's form, to the end of the blob]
 *   With n = 1 the block is empty and k = 0.
 *
 * Extended header (s = 0; k must be 0):
 *   [tag][varint info] then, by info's shape:
 *   info bits 0-1  shape: 0 empty list, 1 one block, 2 blocks with a
 *                  directory, 3 reserved
 *        bits 2-3  kind of the single block (shape 1: 0 Elias-Fano or
 *                  1 bitmap; 2 and 3 reserved); 0 for the other shapes
 *        bit  4    GPX_F_TF: the list carries one term frequency per
 *                  docID (1 .. 2^31-1) in a section after the docID
 *                  payload (below); shapes 1 and 2 only
 *        bit  5    GPX_F_DIREXTRA: every directory entry carries x extra
 *                  bytes; shape 2 only, set exactly when GPX_F_TF is,
 *                  and then x = 8 (the entry's tf fields, below)
 *        bits 6+   0
 *   shape 0: nothing follows: n = 0, first = last = 0 (never GPX_F_TF).
 *   shape 1: [varint n][varint first][varint t, varint m if GPX_F_TF]
 *            [the single block][tf padding][tf section, t bytes]
 *            n >= 1 and n <= the codec's block size; m = the largest
 *            frequency of the list (1 .. 2^31-1).  The tf padding is
 *            0..3 zero bytes so that the tf section starts at a multiple
 *            of 4 from the blob's start (the block ends with a non-zero
 *            byte, or is empty for n = 1, so a reader finds the block's
 *            end by the section's start and the zero bytes before it).
 *   shape 2: [varint n][varint first][varint last - first]
 *            [varint x if GPX_F_DIREXTRA][varint t if GPX_F_TF]
 *            [zero bytes up to a multiple of 4 from the blob's start]
 *            [directory: nblocks entries of 8 + x bytes]
 *            [payload: a multiple of 4 bytes][tf section, t bytes]
 *            n > the codec's block size (so nblocks >= 2); x is a
 *            multiple of 4, so entries and payload stay word-aligned.
 *
 * The tf section (GPX_F_TF): the frequencies minus 1 in Simple-8b words
 * (src/codec/gpx_simple8b.h, base GPX_S8B_TF_BASE), block by block in the
 * docID blocks: block k's cnt frequencies start on a new word and fill
 * their words exactly; blocks follow each other without gaps and the last
 * ends at the blob's end.  With a directory, entry k's 8 extra bytes are
 * [u32 tf offset][u32 tf max]: the byte offset of block k's words from the
 * section's start (block 0 at 0, each next at the previous one's end) and
 * the largest frequency of block k, exactly (ranking's block-max bounds
 * read it without decoding; gpx_validate checks it equals the decoded
 * maximum, so a hostile value can neither hide documents nor inflate
 * bounds).  docID-only readers never touch the section.
 *
 * Blocks: block size B = 128 (pfor), 256 (lrc, qs); block k holds
 * cnt = min(B, n - kB) docIDs; its first docID is in the directory (or
 * the header for one block) and is not repeated in the block.
 *
 * Directory entry k: [u32 first docID][u32 loc][x extra bytes], loc =
 * (byte offset of block k from the payload's start) << 2 | kind, kind:
 *   0  Elias-Fano (gpx_ef.c)
 *   1  bitmap (gpx_bitmap.c)
 *   2  the codec's own packed form: pfor's PFor block (gpx_pfor.c) or
 *      lrc's segment (gpx_lrc.c), starting at a multiple of 4 bytes and
 *      filling its words exactly; reserved in qs lists
 *   3  reserved
 * Block 0 starts at offset 0; block k occupies bytes [off_k, off_k+1)
 * (the last one up to the payload's end); offsets never decrease.  An
 * Elias-Fano or bitmap block's bits after its last element are zero to
 * its end, so it may be followed by padding.
 *
 * The encoder picks each block's form by size: the codec's own form (qs:
 * Elias-Fano) or a bitmap, whichever is smaller (ties to the own form); a
 * one-block list, which has no own form, Elias-Fano or a bitmap.  Readers
 * take any valid kind in any codec (gpx_encode_ex can ask for them).
 *
 * The last docID is in the header of a list with a directory.  A single
 * Elias-Fano or bitmap block ends with the bit of its last element (its
 * final byte is not zero), so the last docID of a one-block list is read
 * from the blob's end, in O(1) too.  n, first and last never need a
 * decode.
 *
 * Reading: bit packing is LSB-first; a version 2 reader on the CPU never
 * reads past the blob (one-block lists end at any byte).  On the GPU, a
 * blob copied to a 4-byte aligned address has its directory and a
 * multi-block payload word-aligned (gpx_dev_view); the kernels read the
 * payload by whole words, so the word holding a one-block list's last
 * byte reaches up to 3 bytes past the blob: the CUDA back end keeps every
 * blob followed by zero bytes up to a multiple of 16 (GPX_BLOB_PAD,
 * cuda/gpx_cuda_host.cuh).
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

/* the version gpx_encode() writes, and the older one */
#define GPX_FORMAT_VERSION 2
#define GPX_FORMAT_V1 1
#define GPX_V1_HEADER_SIZE 32
/* a prefix of this many bytes holds the header of any blob */
#define GPX_PEEK_BYTES 32
#define GPX_DIR_ENTRY_SIZE 8
#define GPX_MAX_DOCID 0x7FFFFFFFu
/* the largest element count a blob may hold (every docID of [0, 2^31-1]) */
#define GPX_MAX_N 0x80000000u
/* the largest block any codec uses: scratch buffers of this size suffice */
#define GPX_MAX_BLOCK 256

/* version 2 header info flags (see above) */
#define GPX_F_TF		0x10u
#define GPX_F_DIREXTRA	0x20u

typedef enum gpx_codec_id
{
	GPX_CODEC_PFOR = 1,			/* Parallel PForDelta, blocks of 128 */
	GPX_CODEC_LRC = 2,			/* SegLRC, segments of 256 */
	GPX_CODEC_QS = 3			/* Elias-Fano, blocks of 256 */
} gpx_codec_id;

#define GPX_CODEC_MIN GPX_CODEC_PFOR
#define GPX_CODEC_MAX GPX_CODEC_QS

/* Version 2 block kinds, as stored (directory loc bits 0-1). */
#define GPX_KIND_EF		0
#define GPX_KIND_BITMAP	1
#define GPX_KIND_OWN	2

/* How one block is coded (what a reader dispatches on). */
typedef enum gpx_form
{
	GPX_FORM_NONE = 0,			/* no such block / invalid */
	GPX_FORM_PFOR = 1,			/* a PFor block (v1 and v2 pfor) */
	GPX_FORM_LRC = 2,			/* an LRC segment (v1 and v2 lrc) */
	GPX_FORM_QS1 = 3,			/* a block of a v1 qs list (one global
								 * Elias-Fano list, gpx_qs.c) */
	GPX_FORM_EF = 4,			/* a v2 Elias-Fano block (gpx_ef.c) */
	GPX_FORM_BITMAP = 5			/* a v2 bitmap block (gpx_bitmap.c) */
} gpx_form;

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
	uint8_t		version;		/* 1 or 2 */
	uint8_t		codec;
	uint8_t		log2_block;
	uint8_t		param;			/* v1 qs: low bits b; else 0 */
	uint8_t		kind0;			/* v2 one-block list: its kind; else 0 */
	uint8_t		flags;			/* v2 info flags (GPX_F_*) */
	uint16_t	dir_stride;		/* bytes per directory entry (8 + extra) */
	uint32_t	n;
	uint32_t	first;
	uint32_t	last;
	uint32_t	nblocks;
	uint32_t	payload_bytes;
	uint32_t	hdr_bytes;		/* bytes before the directory / payload */
	uint32_t	tf_bytes;		/* v2 GPX_F_TF: size of the tf section */
	uint32_t	tf_max0;		/* v2 GPX_F_TF one-block list: largest tf */
	const uint8_t *dir;			/* nblocks entries of dir_stride bytes;
								 * NULL for a v2 list of one block */
	const uint8_t *payload;		/* payload_bytes bytes */
	const uint8_t *tf;			/* the tf section, or NULL */
} gpx_list;

/* Options of gpx_encode_ex (a NULL pointer means all zero). */
typedef struct gpx_encode_opts
{
	int			version;		/* 0: GPX_FORMAT_VERSION; or 1, 2 */
	/*
	 * v2: the block kinds the encoder may choose from (bit 1 << kind); 0
	 * for the default: the codec's own form (Elias-Fano for qs) or a
	 * bitmap.  Among the allowed kinds the smallest wins, ties going to
	 * own, then Elias-Fano, then bitmap.  One-block lists have no own
	 * form: Elias-Fano stands in for it.
	 */
	unsigned	kinds;
} gpx_encode_opts;

/*
 * What the CUDA kernels need to read a blob copied to a 4-byte aligned
 * device address: offsets from the blob's start and the geometry.
 */
typedef struct gpx_devview
{
	uint32_t	dir_off;		/* directory offset, or 0 when there is none */
	uint32_t	dir_stride;		/* bytes per directory entry */
	uint32_t	payload_off;	/* the payload's first byte, rounded down to a
								 * multiple of 4 */
	uint32_t	payload_bit;	/* bit of the payload's first byte in the word
								 * at payload_off (0, 8, 16 or 24) */
	uint32_t	payload_words;	/* words from payload_off up to the word
								 * holding the payload's last byte (which
								 * may end past the blob: GPX_BLOB_PAD) */
	uint32_t	payload_bytes;
	uint32_t	qs_low_words;	/* v1 qs: words of the low-bits array */
	uint32_t	tf_off;			/* the tf section's offset (a multiple of 4),
								 * 0 when the list has none */
	uint32_t	tf_bytes;		/* its size */
	uint32_t	tf_max0;		/* one-block list with tfs: largest tf */
	uint8_t		version;
	uint8_t		kind0;			/* v2 one-block list: its kind */
} gpx_devview;

/* Human-readable text for a status (static storage). */
const char *gpx_status_str(gpx_status st);

/* Codec name ("pfor", "lrc", "qs") or NULL for an unknown id. */
const char *gpx_codec_name(int codec);

/* Check that docs[0..n) is strictly increasing and within range. */
gpx_status gpx_check_sorted(const uint32_t *docs, size_t n);

/*
 * Upper bound on the blob size for encoding n docIDs whose last is `last`
 * in the current format (0 for an unknown codec).
 */
size_t		gpx_encode_bound(int codec, uint32_t n, uint32_t last);

/* The same for gpx_encode_ex with these options. */
size_t		gpx_encode_bound_ex(int codec, uint32_t n, uint32_t last,
								const gpx_encode_opts *opts);

/*
 * Encode docs[0..n) (strictly increasing, <= GPX_MAX_DOCID) with `codec`
 * into out[0..cap), in format GPX_FORMAT_VERSION.  cap >= gpx_encode_bound()
 * always suffices.  On success *outlen is the blob length.
 */
gpx_status	gpx_encode(int codec, const uint32_t *docs, uint32_t n,
					   uint8_t *out, size_t cap, size_t *outlen);

/*
 * gpx_encode with options: another format version (1 for tests and
 * comparisons; readers take both) or a restricted set of block kinds.
 */
gpx_status	gpx_encode_ex(int codec, const uint32_t *docs, uint32_t n,
						  const gpx_encode_opts *opts, uint8_t *out,
						  size_t cap, size_t *outlen);

/*
 * Parse the header and directory bounds of a blob without touching the
 * payload (beyond the final bytes of a one-block v2 list, which hold its
 * last docID).  Checks only what is needed to make the pointers safe;
 * gpx_validate() checks everything.
 */
gpx_status	gpx_open(gpx_list *l, const uint8_t *buf, size_t len);

/*
 * Read the header fields (n, first, last, codec, ...; no pointers) of a
 * blob of total_len bytes from its first prefix_len bytes.  A prefix of
 * min(GPX_PEEK_BYTES, total_len) bytes holds every header, but a one-block
 * v2 list keeps its last docID in its final bytes: for it the call returns
 * GPX_E_TRUNCATED unless prefix_len == total_len.
 */
gpx_status	gpx_peek_header(gpx_list *l, const uint8_t *buf, size_t prefix_len,
							size_t total_len);

/* Format version of a blob from its first byte (1, 2), or 0 if unknown. */
int			gpx_blob_version(const uint8_t *buf, size_t len);

/* Codec id a blob names (without any other check), or 0. */
int			gpx_blob_codec(const uint8_t *buf, size_t len);

/*
 * Fully validate a blob of len bytes: header, directory and payload must
 * describe a strictly increasing list in [0, GPX_MAX_DOCID] consistent with
 * n, first, last and the directory.  Never reads outside buf[0..len).
 * `scratch` must hold GPX_MAX_BLOCK uint32 values.
 */
gpx_status	gpx_validate(const uint8_t *buf, size_t len, uint32_t *scratch);

/* Decode the whole list into out[0..n). */
void		gpx_decode(const gpx_list *l, uint32_t *out);

/*
 * Decode block blk into out (GPX_MAX_BLOCK slots, any of which it may
 * write); returns its count.
 */
uint32_t	gpx_decode_block(const gpx_list *l, uint32_t blk, uint32_t *out);

/* Element count of block blk. */
uint32_t	gpx_block_count(const gpx_list *l, uint32_t blk);

/* First docID of block blk, from the directory. */
uint32_t	gpx_dir_first(const gpx_list *l, uint32_t blk);

/*
 * Codec-defined offset of block blk, from the directory: v1, see above; v2,
 * the stored loc (byte offset << 2 | kind); 0 for a v2 list of one block.
 */
uint32_t	gpx_dir_offset(const gpx_list *l, uint32_t blk);

/* How block blk is coded. */
gpx_form	gpx_block_form(const gpx_list *l, uint32_t blk);

/*
 * The view the CUDA kernels take of a blob copied to a 4-byte aligned
 * device address; GPX_E_ARG when they cannot take it (a flag they do not
 * know, sizes beyond their 32-bit fields).  Header fields come from l.
 */
gpx_status	gpx_dev_view(const gpx_list *l, gpx_devview *v);

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

/*
 * gpx_encode with term frequencies tfs[0..n) (each 1 .. 2^31-1;
 * GPX_E_RANGE otherwise): a version 2 blob with a tf section (an empty
 * list carries none).  cap >= gpx_encode_bound_tf() always suffices.
 */
gpx_status	gpx_encode_tf(int codec, const uint32_t *docs, const uint32_t *tfs,
						  uint32_t n, uint8_t *out, size_t cap, size_t *outlen);

/* Upper bound on the size of gpx_encode_tf's blob. */
size_t		gpx_encode_bound_tf(int codec, uint32_t n, uint32_t last);

/*
 * gpx_encode_tf with options (version 2 only: GPX_E_VERSION for 1), and
 * its bound.
 */
gpx_status	gpx_encode_tf_ex(int codec, const uint32_t *docs, const uint32_t *tfs,
							 uint32_t n, const gpx_encode_opts *opts,
							 uint8_t *out, size_t cap, size_t *outlen);
size_t		gpx_encode_bound_tf_ex(int codec, uint32_t n, uint32_t last,
								   const gpx_encode_opts *opts);

/*
 * Incremental encoding in the current format with the default block
 * kinds: the docIDs of one list given in pieces, in order, each block
 * encoded as it fills, so that a result computed piece by piece (a union
 * along its merge plan, say) never has to be held whole.
 * gpx_encstream_bound: bytes of out that suffice for at most nmax docIDs
 * none above lastmax (about gpx_encode_bound's); gpx_encstream_init, then
 * gpx_encstream_push any number of times (all docIDs strictly increasing
 * across calls, <= lastmax), then gpx_encstream_finish: the blob is
 * out[0..*outlen), byte for byte what gpx_encode writes for the same
 * docIDs.  The first error (GPX_E_UNSORTED, GPX_E_RANGE, GPX_E_NOSPACE
 * beyond nmax docIDs, GPX_E_TOOBIG) sticks and finish returns it.  The
 * state is the caller's (about 1 kB); out is written from its start,
 * its contents before unused.
 */
typedef struct gpx_encstream
{
	int			codec;
	unsigned	kinds;
	uint32_t	lg;				/* log2 of the block size */
	uint8_t    *out;
	size_t		cap;
	uint32_t	nmax;
	uint32_t	nbmax;			/* blocks of nmax docIDs */
	size_t		dir_off;		/* directory while writing: after the
								 * largest header */
	uint64_t	off;			/* payload bytes written */
	uint64_t	zeroed;			/* payload bytes zeroed */
	uint32_t	n;				/* docIDs given */
	uint32_t	nb;				/* blocks written */
	uint32_t	first;
	uint32_t	last;
	uint32_t	npend;			/* docIDs waiting in pend */
	gpx_status	st;
	uint32_t	pend[GPX_MAX_BLOCK];
} gpx_encstream;

size_t		gpx_encstream_bound(int codec, uint32_t nmax, uint32_t lastmax);
gpx_status	gpx_encstream_init(gpx_encstream *s, int codec, uint32_t nmax,
							   uint32_t lastmax, uint8_t *out, size_t cap);
gpx_status	gpx_encstream_push(gpx_encstream *s, const uint32_t *docs,
							   uint32_t m);
gpx_status	gpx_encstream_finish(gpx_encstream *s, size_t *outlen);

/* Whether a list carries term frequencies (GPX_F_TF). */
bool		gpx_has_tfs(const gpx_list *l);

/*
 * Largest term frequency of block blk, from the directory (or the header
 * of a one-block list); 1 for a list without frequencies.
 */
uint32_t	gpx_block_tf_max(const gpx_list *l, uint32_t blk);

/*
 * Decode the term frequencies of block blk into out (GPX_MAX_BLOCK slots);
 * returns its count.  A list without frequencies gives 1 for each docID.
 */
uint32_t	gpx_decode_block_tfs(const gpx_list *l, uint32_t blk, uint32_t *out);

/*
 * The term frequencies of the postings at positions pos[0..n) (strictly
 * increasing, below the block's count) of block blk into out[0..n),
 * reading only what holds them (1s for a list without frequencies).
 */
void		gpx_block_tfs_at(const gpx_list *l, uint32_t blk,
							 const uint32_t *pos, uint32_t n, uint32_t *out);

/* Decode all n term frequencies into out[0..n) (1s without a section). */
void		gpx_decode_tfs(const gpx_list *l, uint32_t *out);

/* Bits per docID of the blob (8 * len / n; 0 for an empty list). */
double		gpx_bits_per_docid(const gpx_list *l);

#ifdef __cplusplus
}
#endif

#endif							/* GPX_CODEC_H */
