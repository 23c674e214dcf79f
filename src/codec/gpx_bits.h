/*
 * gpx_bits.h - bit packing primitives shared by the C codecs and the CUDA
 * kernels (header-only, so CPU and GPU decode bit-identically).
 *
 * Packed arrays are little-endian uint32 words, values LSB-first, width
 * 0..32.  A read touches at most the two words that hold the value, so a
 * reader never goes past ceil(total_bits / 32) words.
 */
#ifndef GPX_BITS_H
#define GPX_BITS_H

#include <stdint.h>
#include <string.h>

#ifdef __CUDACC__
#define GPX_HD __host__ __device__ __forceinline__
#else
#define GPX_HD static inline
#endif

/* Number of one bits of w. */
GPX_HD uint32_t
gpx_popcount32(uint32_t w)
{
#ifdef __CUDA_ARCH__
	return (uint32_t) __popc(w);
#else
	return (uint32_t) __builtin_popcount(w);
#endif
}

/*
 * Position (0..31) of the r-th (0-based) one bit of w; w has > r ones.
 * Halves the window four times (16, 8, 4, 2 bits), then the last bit.
 * The loop is unrolled, so the shifts are constants as in the hand-written
 * form it replaces: nvcc's pragma in device code, gcc's in the C codec
 * (the host pass of .cu files needs no speed here).
 */
GPX_HD uint32_t
gpx_select32(uint32_t w, uint32_t r)
{
	uint32_t	pos = 0;

#if defined(__CUDA_ARCH__)
#pragma unroll
#elif defined(__GNUC__) && !defined(__CUDACC__)
#pragma GCC unroll 4
#endif
	for (uint32_t half = 16; half >= 2; half >>= 1)
	{
		uint32_t	c = gpx_popcount32(w & ((1u << half) - 1));

		if (r >= c)
		{
			r -= c;
			w >>= half;
			pos += half;
		}
	}
	if (r >= (w & 1u))
		pos += 1;
	return pos;
}

#if defined(GPX_EMU) && !defined(__CUDA_ARCH__)
#include <stdio.h>
#include <stdlib.h>
#endif

/*
 * Load a little-endian uint32 from any (possibly unaligned) address; on the
 * device (and in its host emulation, which checks it) a 4-byte aligned one.
 */
GPX_HD uint32_t
gpx_load32(const uint8_t *p)
{
#ifdef __CUDA_ARCH__
	return *(const uint32_t *) p;	/* device buffers are word aligned */
#else
#ifdef GPX_EMU
	if (((uintptr_t) p & 3) != 0)
	{
		fprintf(stderr, "gpx_emu: unaligned 32-bit device load at %p\n", (const void *) p);
		abort();
	}
#endif
	uint32_t	v;

	memcpy(&v, p, 4);
	return v;
#endif
}

/* Store a little-endian uint32 at any address. */
static inline void
gpx_store32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

/* Word i of a packed array. */
GPX_HD uint32_t
gpx_word(const uint8_t *words, uint64_t i)
{
	return gpx_load32(words + 4 * i);
}

/* Mask of the low `width` bits (width 0..32). */
GPX_HD uint32_t
gpx_mask(uint32_t width)
{
	return width >= 32 ? 0xFFFFFFFFu : ((1u << width) - 1u);
}

/* Number of bits needed to represent v (0 for v = 0). */
GPX_HD uint32_t
gpx_bitwidth(uint32_t v)
{
#ifdef __CUDA_ARCH__
	return 32 - __clz(v);
#else
	return v ? 32 - (uint32_t) __builtin_clz(v) : 0;
#endif
}

/* Read `width` bits starting at bit position `bitpos` of a packed array. */
GPX_HD uint32_t
gpx_get_bits(const uint8_t *words, uint64_t bitpos, uint32_t width)
{
	uint64_t	w = bitpos >> 5;
	uint32_t	sh = (uint32_t) (bitpos & 31);
	uint64_t	v;

	if (width == 0)
		return 0;
	v = gpx_word(words, w) >> sh;
	if (sh + width > 32)
		v |= (uint64_t) gpx_word(words, w + 1) << (32 - sh);
	return (uint32_t) v & gpx_mask(width);
}

/*
 * Host-only fast read: whether words are little-endian in memory, so that
 * bit b of a packed array is bit (b & 7) of byte (b >> 3) and a field can
 * be read with one unaligned 8-byte load.
 */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define GPX_FAST_BITS 1
#else
#define GPX_FAST_BITS 0
#endif

/*
 * The field of gpx_get_bits(words, bitpos, width) for width <= 32, given
 * mask = gpx_mask(width), with one unaligned 8-byte load: the caller
 * guarantees that 8 bytes are readable at words + (bitpos >> 3), and
 * GPX_FAST_BITS.
 */
static inline uint32_t
gpx_get_bits_fast(const uint8_t *words, uint64_t bitpos, uint32_t mask)
{
	uint64_t	v;

	memcpy(&v, words + (bitpos >> 3), 8);
	return (uint32_t) (v >> (bitpos & 7)) & mask;
}

/*
 * OR `width` bits of v into a zero-initialised packed array at bitpos.
 * The caller guarantees v < 2^width and that the words exist.
 */
static inline void
gpx_put_bits(uint8_t *words, uint64_t bitpos, uint32_t width, uint32_t v)
{
	uint64_t	w = bitpos >> 5;
	uint32_t	sh = (uint32_t) (bitpos & 31);

	if (width == 0)
		return;
	gpx_store32(words + 4 * w, gpx_word(words, w) | (v << sh));
	if (sh + width > 32)
		gpx_store32(words + 4 * (w + 1),
					gpx_word(words, w + 1) | (uint32_t) ((uint64_t) v >> (32 - sh)));
}

/* Words needed for `bits` bits. */
GPX_HD uint64_t
gpx_words_for_bits(uint64_t bits)
{
	return (bits + 31) >> 5;
}

#endif							/* GPX_BITS_H */
