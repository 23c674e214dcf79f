/*
 * gpx_simple8b.h - Simple-8b (Anh and Moffat, SP&E 2010) for term
 * frequencies, with left-greedy packing and the optimal packing by dynamic
 * programming of Trotman, Albert and Burgess (ICTIR 2015, seed 002).
 *
 * A code word is a little-endian 64-bit word: the selector s in bits
 * 60..63, the payload in bits 0..59 holding GPX_S8B_COUNT(s) fields of
 * GPX_S8B_WIDTH(s) bits each, field i in bits [i*w, (i+1)*w):
 *
 *   selector  0   1   2   3   4   5   6   7   8   9  10  11  12  13  14  15
 *   values  240 120  60  30  20  15  12  10   8   7   6   5   4   3   2   1
 *   width     0   0   1   2   3   4   5   6   7   8  10  12  15  20  30  60
 *
 * A field holds v - base: the frequencies use base 1 (GPX_S8B_TF_BASE), so
 * the zero-width selectors 0 and 1 are runs of 240 and 120 frequencies of
 * 1, and every width is that of tf - 1 (test/bench/bench_tf.c measures
 * this against base 0, "as is").  Values are in [base, GPX_S8B_MAX_VALUE].
 *
 * Blocks: n values are cut into blocks of `block` values (the docID codec's
 * block: 128 for pfor, 256 for lrc and qs), the last one shorter; every
 * block starts on a new word and no word holds values of two blocks, so a
 * reader can decode block k alone once it knows where the block starts
 * (gpx_s8b_block_bytes skips a block by its selectors), and decoding the
 * whole section is decoding words until n values.  A well-formed block:
 * - every word's count fits in what is left of the block (no word runs
 *   past the block's end: there is no padding),
 * - the payload bits of selectors 0 and 1, and the 4 bits above the 56
 *   used by selectors 8 (8 x 7) and 9 (7 x 8), are zero,
 * - every field + base <= GPX_S8B_MAX_VALUE (selector 15 uses 31 bits).
 * gpx_s8b_validate() checks all of it without reading past the buffer;
 * the decoders trust their input (validated, or produced by the encoder).
 *
 * No allocation, no printing: results are gpx_status codes.  The inline
 * helpers below are shared by the CPU decoder and the CUDA device decoder
 * (cuda/gpx_s8b_dev.cuh), so both read a word identically.
 */
#ifndef GPX_SIMPLE8B_H
#define GPX_SIMPLE8B_H

#include <stddef.h>
#include <stdint.h>

#include "gpx_codec.h"
#include "gpx_bits.h"

/* Largest value (and frequency) the codec takes. */
#define GPX_S8B_MAX_VALUE 0x7FFFFFFFu
/* Base of term frequencies: the zero-width selectors are runs of 1. */
#define GPX_S8B_TF_BASE 1u
/* Largest block gpx_s8b_encode takes (the optimal packing's stack tables). */
#define GPX_S8B_MAX_BLOCK 4096u
/* Values in the largest word (selector 0). */
#define GPX_S8B_MAX_RUN 240u
/* Bytes per code word. */
#define GPX_S8B_WORD_BYTES 8u

/* How the encoder cuts a block into words. */
typedef enum gpx_s8b_packing
{
	/* as many values as fit in each word, left to right */
	GPX_S8B_GREEDY = 0,
	/* fewest words (Trotman et al.'s dynamic programming, right to left) */
	GPX_S8B_OPTIMAL = 1
} gpx_s8b_packing;

/*
 * The default packing, by measurement (make bench-tf, test/bench/bench_tf.sh):
 * on the GOV2-calibrated frequencies and on real text (PostgreSQL docs,
 * Linux source), blocks of 128 and 256, the optimal packing takes 2.1 to
 * 4.0 % fewer words than left-greedy on lists of >= 128 frequencies (more
 * than the 0.1 % Trotman et al. report for whole lists: every block end
 * cuts a greedy word short, and the dynamic programming plans for it;
 * 0.2 to 1.2 % over all lists of real text, whose many one-word lists
 * cannot shrink), decodes at the same speed (the same kind of words), and
 * encodes 2.5 to 6.5 times slower (still 25-40 million frequencies per
 * second, once, when a list is built).  The same runs chose the stored
 * form: tf - 1 (base 1) is 2.7 to 8.8 % smaller than tf as is (base 0)
 * and decodes as fast.
 */
#define GPX_S8B_DEFAULT_PACKING GPX_S8B_OPTIMAL

/* Selector of a word. */
GPX_HD uint32_t
gpx_s8b_selector(uint64_t w)
{
	return (uint32_t) (w >> 60);
}

/* Values held by a word of selector s (0..15). */
GPX_HD uint32_t
gpx_s8b_count(uint32_t s)
{
	/* 240 120 60 30 20 15 12 10 | 8 7 6 5 4 3 2 1, one byte each */
	return (uint32_t) ((s < 8 ? 0x0A0C0F141E3C78F0ull >> (8 * s)
						: 0x0102030405060708ull >> (8 * (s - 8))) & 0xFF);
}

/* Field width in bits of a word of selector s (0..15). */
GPX_HD uint32_t
gpx_s8b_width(uint32_t s)
{
	/* 0 0 1 2 3 4 5 6 | 7 8 10 12 15 20 30 60, one byte each */
	return (uint32_t) ((s < 8 ? 0x0605040302010000ull >> (8 * s)
						: 0x3C1E140F0C0A0807ull >> (8 * (s - 8))) & 0xFF);
}

/*
 * Field i of a word of selector s (the stored value, base not added).
 * i < gpx_s8b_count(s).  Zero-width fields are 0.
 */
GPX_HD uint64_t
gpx_s8b_field(uint64_t w, uint32_t s, uint32_t i)
{
	uint32_t	wd = gpx_s8b_width(s);

	if (wd == 0)
		return 0;
	return (w >> (i * wd)) & ((1ull << wd) - 1);
}

/* Load a little-endian 64-bit code word from any host address. */
static inline uint64_t
gpx_s8b_load(const uint8_t *p)
{
	uint64_t	w;

	memcpy(&w, p, 8);
	return w;
}

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes enough to encode n values, in any blocks (at most one word each). */
size_t		gpx_s8b_encode_bound(uint32_t n);

/*
 * Encode vals[0..n) in blocks of `block` values (1 <= block <=
 * GPX_S8B_MAX_BLOCK) into out[0..cap) with packing `pack`; *outlen gets
 * the byte length (a multiple of 8; 0 for n = 0).  Errors: GPX_E_RANGE
 * (a value outside [base, GPX_S8B_MAX_VALUE]), GPX_E_NOSPACE (cap too
 * small; cap >= gpx_s8b_encode_bound(n) always suffices), GPX_E_ARG.
 */
gpx_status	gpx_s8b_encode(const uint32_t *vals, uint32_t n, uint32_t block,
						   uint32_t base, gpx_s8b_packing pack,
						   uint8_t *out, size_t cap, size_t *outlen);

/*
 * Encode one block vals[0..count) (count <= GPX_S8B_MAX_BLOCK) into
 * out[0..cap); *outlen gets its byte length.  Errors as gpx_s8b_encode.
 */
gpx_status	gpx_s8b_encode_block(const uint32_t *vals, uint32_t count,
								 uint32_t base, gpx_s8b_packing pack,
								 uint8_t *out, size_t cap, size_t *outlen);

/*
 * Check that buf[0..len) is exactly the encoding of n values in blocks of
 * `block` with this base (the rules above); never reads outside buf.
 * GPX_E_TRUNCATED: the words end before n values; GPX_E_TRAILING: bytes
 * after the last block; GPX_E_PAYLOAD: a word breaks a rule; GPX_E_ARG.
 */
gpx_status	gpx_s8b_validate(const uint8_t *buf, size_t len, uint32_t n,
							 uint32_t block, uint32_t base);

/*
 * Check one block of count values at buf[0..len) (len may extend past the
 * block); *used gets the block's byte length.  Errors as gpx_s8b_validate,
 * GPX_E_TRAILING excepted.
 */
gpx_status	gpx_s8b_validate_block(const uint8_t *buf, size_t len,
								   uint32_t count, uint32_t base, size_t *used);

/*
 * Decode the whole section of n values (valid, any block size) into
 * out[0..n); returns its byte length.
 */
size_t		gpx_s8b_decode(const uint8_t *buf, uint32_t n, uint32_t base,
						   uint32_t *out);

/*
 * Decode the block of count values at buf (valid) into out[0..count);
 * returns its byte length (where the next block starts).
 */
size_t		gpx_s8b_decode_block(const uint8_t *buf, uint32_t count,
								 uint32_t base, uint32_t *out);

/*
 * Values number pos[0..n) (strictly increasing, each below the count of
 * the valid block at buf) into out[0..n), + base: the words before and
 * between them are skipped by their selectors, only the fields wanted are
 * read (ranked AND needs a few frequencies of a block).
 */
void		gpx_s8b_select_block(const uint8_t *buf, uint32_t base,
								 const uint32_t *pos, uint32_t n,
								 uint32_t *out);

/* Byte length of the block of count values at buf (valid), not decoding it. */
size_t		gpx_s8b_block_bytes(const uint8_t *buf, uint32_t count);

#ifdef __cplusplus
}
#endif

#endif							/* GPX_SIMPLE8B_H */
