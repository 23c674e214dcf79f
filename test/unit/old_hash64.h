/*
 * old_hash64.h - the unkeyed 64-bit content hash (gpx_hash64) that keyed
 * the executor's list caches before list identity became a keyed PRF
 * (gpx_key.c).  Not part of the library any more: kept here only to show
 * the forgery it allowed (test_key.c builds colliding valid lists) and to
 * compare costs (test/bench/bench_key.c).
 *
 * FNV-1a over 64-bit words in eight interleaved lanes, each step rotated,
 * then the lanes, the tail and the length folded and avalanched.  Each
 * step is invertible, so flipping bit 63 of a word (which flips only bit
 * 63 of the product, bit 28 after the rotation) is undone by flipping bit
 * 28 of the lane's next word, 64 bytes later.
 */
#ifndef GPX_OLD_HASH64_H
#define GPX_OLD_HASH64_H

#include <stddef.h>
#include <stdint.h>

#include "gpx_bits.h"

#define OLD_HASH_P1 0x100000001b3ull	/* FNV-1a 64-bit prime */
#define OLD_HASH_OFF 0xcbf29ce484222325ull	/* FNV-1a offset basis */

/* Load 8 little-endian bytes (as the codec loads its words). */
static inline uint64_t
old_hash_load64(const uint8_t *p)
{
	return (uint64_t) gpx_load32(p) | ((uint64_t) gpx_load32(p + 4) << 32);
}

/* One FNV-1a step on a 64-bit word, rotated left by 29. */
static inline uint64_t
old_hash_step(uint64_t h, uint64_t w)
{
	uint64_t	x = (h ^ w) * OLD_HASH_P1;

	return (x << 29) | (x >> 35);
}

/* Final avalanche (the MurmurHash3 fmix64 finaliser). */
static inline uint64_t
old_hash_fmix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return h;
}

/* The old gpx_hash64 of buf[0..len). */
static inline uint64_t
old_hash64(const uint8_t *buf, size_t len)
{
	uint64_t	h[8];
	size_t		i = 0;
	uint64_t	tail = 0,
				r;

	for (int k = 0; k < 8; k++)
		h[k] = OLD_HASH_OFF ^ (0x9e3779b97f4a7c15ull * (uint64_t) (k + 1));
	for (; i + 64 <= len; i += 64)
	{
		h[0] = old_hash_step(h[0], old_hash_load64(buf + i));
		h[1] = old_hash_step(h[1], old_hash_load64(buf + i + 8));
		h[2] = old_hash_step(h[2], old_hash_load64(buf + i + 16));
		h[3] = old_hash_step(h[3], old_hash_load64(buf + i + 24));
		h[4] = old_hash_step(h[4], old_hash_load64(buf + i + 32));
		h[5] = old_hash_step(h[5], old_hash_load64(buf + i + 40));
		h[6] = old_hash_step(h[6], old_hash_load64(buf + i + 48));
		h[7] = old_hash_step(h[7], old_hash_load64(buf + i + 56));
	}
	for (; i + 8 <= len; i += 8)
		h[0] = old_hash_step(h[0], old_hash_load64(buf + i));
	for (size_t s = 0; i < len; i++, s += 8)
		tail |= (uint64_t) buf[i] << s;
	r = old_hash_step(h[0], tail);
	for (int k = 1; k < 8; k++)
		r = old_hash_step(r, old_hash_fmix(h[k]));
	r = old_hash_step(r, (uint64_t) len);
	return old_hash_fmix(r);
}

#endif							/* GPX_OLD_HASH64_H */
