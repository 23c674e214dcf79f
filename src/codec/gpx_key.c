/*
 * gpx_key.c - the identity of a list: a secret-keyed 128-bit
 * pseudo-random function of its content (gpx_key_content) or of a name
 * (gpx_key_name), built on SipHash-2-4 with 128-bit output (Aumasson and
 * Bernstein, "SipHash: a fast short-input PRF", 2012).
 *
 * gpx_key_content(ks, scope, M), M of len bytes, nblk = len / 128:
 *
 *   L_j = SipHash-2-4-128(K_j, words 16i + j of M, i < nblk)  j < 16
 *   key = SipHash-2-4-128(K_f, scope | len | L_0 .. L_15 | M[128 nblk ..])
 *
 * (words and integers little-endian 64-bit, L_j as its low then high
 * half), with GPX_KEY_NAMED_BIT cleared and the all-zero value mapped to
 * 1.  Each lane is plain SipHash-2-4-128 of its stripe of the whole
 * blocks, so the sixteen run side by side in vector registers (one
 * AVX-512 register holds a SipHash variable of eight lanes); the final
 * hash binds them, the scope, the length and the tail.
 *
 * Why it is a PRF (so that without the secret nobody can find two
 * contents with one key): the subkeys are SipHash-2-4-128 of distinct
 * labels under the secret, so they are indistinguishable from independent
 * random keys, and each lane indistinguishable from a random function of
 * its stripe.  Two different (scope, M) of one length differ in the scope,
 * in the tail or in some stripe; in the last case that lane's outputs
 * differ except with probability 2^-128.  So the final hash sees different
 * inputs (its input encodes scope, len and the tail unambiguously, since
 * its length follows from len), and its outputs are independent and
 * uniform.  An attacker making q queries wins with at most the advantage
 * against SipHash plus about q^2 / 2^127: the construction is the
 * standard hash-then-PRF composition, with a PRF as the inner hash.
 *
 * Pure C, no allocation, no global state but the cached CPU check.
 */
#include "gpx_batch.h"

#include <string.h>

/* SipHash initialisation constants ("somepseudorandomlygeneratedbytes"). */
#define KEY_C0 UINT64_C(0x736f6d6570736575)
#define KEY_C1 UINT64_C(0x646f72616e646f6d)
#define KEY_C2 UINT64_C(0x6c7967656e657261)
#define KEY_C3 UINT64_C(0x7465646279746573)

/* Labels of the subkeys derived from the secret. */
#define KEY_LABEL_LANE 1
#define KEY_LABEL_FINAL 2
#define KEY_LABEL_NAME 3

/* Rotate left by r (0 < r < 64): scalars and vectors alike. */
#define KEY_ROTL(x, r) (((x) << (r)) | ((x) >> (64 - (r))))

/* One SipRound on (v0, v1, v2, v3): scalars and vectors alike. */
#define KEY_SIPROUND(v0, v1, v2, v3) \
	do { \
		v0 += v1; v1 = KEY_ROTL(v1, 13); v1 ^= v0; v0 = KEY_ROTL(v0, 32); \
		v2 += v3; v3 = KEY_ROTL(v3, 16); v3 ^= v2; \
		v0 += v3; v3 = KEY_ROTL(v3, 21); v3 ^= v0; \
		v2 += v1; v1 = KEY_ROTL(v1, 17); v1 ^= v2; v2 = KEY_ROTL(v2, 32); \
	} while (0)

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define KEY_X86 1
#else
#define KEY_X86 0
#endif

/* ---------------------------------------------------------- scalar -- */

/* Load 8 little-endian bytes. */
static inline uint64_t
key_load64(const uint8_t *p)
{
	uint64_t	v;

	memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	return v;
}

/* A SipHash-2-4-128 computation in progress. */
typedef struct key_sip
{
	uint64_t	v0,
				v1,
				v2,
				v3;
	uint64_t	len;			/* message bytes absorbed */
} key_sip;

/* Start SipHash-2-4-128 under k. */
static inline void
key_sip_init(key_sip *s, uint64_t k0, uint64_t k1)
{
	s->v0 = k0 ^ KEY_C0;
	s->v1 = k1 ^ KEY_C1 ^ 0xee;
	s->v2 = k0 ^ KEY_C2;
	s->v3 = k1 ^ KEY_C3;
	s->len = 0;
}

/* Absorb one 8-byte message word. */
static inline void
key_sip_word(key_sip *s, uint64_t m)
{
	s->v3 ^= m;
	KEY_SIPROUND(s->v0, s->v1, s->v2, s->v3);
	KEY_SIPROUND(s->v0, s->v1, s->v2, s->v3);
	s->v0 ^= m;
	s->len += 8;
}

/* Absorb the last tl < 8 bytes and finish: the 128-bit output. */
static gpx_key
key_sip_final(key_sip *s, const uint8_t *tail, size_t tl)
{
	uint64_t	b = (s->len + tl) << 56;
	gpx_key		k;

	for (size_t i = 0; i < tl; i++)
		b |= (uint64_t) tail[i] << (8 * i);
	s->v3 ^= b;
	KEY_SIPROUND(s->v0, s->v1, s->v2, s->v3);
	KEY_SIPROUND(s->v0, s->v1, s->v2, s->v3);
	s->v0 ^= b;
	s->v2 ^= 0xee;
	for (int r = 0; r < 4; r++)
		KEY_SIPROUND(s->v0, s->v1, s->v2, s->v3);
	k.lo = s->v0 ^ s->v1 ^ s->v2 ^ s->v3;
	s->v1 ^= 0xdd;
	for (int r = 0; r < 4; r++)
		KEY_SIPROUND(s->v0, s->v1, s->v2, s->v3);
	k.hi = s->v0 ^ s->v1 ^ s->v2 ^ s->v3;
	return k;
}

/* Absorb buf[0..len) whole words, then finish with its tail. */
static gpx_key
key_sip_bytes(key_sip *s, const uint8_t *buf, size_t len)
{
	size_t		i = 0;

	for (; i + 8 <= len; i += 8)
		key_sip_word(s, key_load64(buf + i));
	return key_sip_final(s, buf + i, len - i);
}

/* SipHash-2-4 with 128-bit output of buf[0..len) under key[2]. */
gpx_key
gpx_siphash128(const uint64_t key[2], const uint8_t *buf, size_t len)
{
	key_sip		s;

	key_sip_init(&s, key[0], key[1]);
	return key_sip_bytes(&s, buf, len);
}

/* SipHash-2-4-128 of the label (tag, index) under k: one subkey. */
static gpx_key
key_derive(uint64_t k0, uint64_t k1, uint64_t tag, uint64_t index)
{
	key_sip		s;

	key_sip_init(&s, k0, k1);
	key_sip_word(&s, tag);
	key_sip_word(&s, index);
	return key_sip_final(&s, NULL, 0);
}

/* Derive the subkeys of a 16-byte secret. */
void
gpx_keyset_init(gpx_keyset *ks, const uint8_t secret[16])
{
	uint64_t	k0 = key_load64(secret),
				k1 = key_load64(secret + 8);
	gpx_key		d;

	for (int j = 0; j < GPX_KEY_LANES; j++)
	{
		d = key_derive(k0, k1, KEY_LABEL_LANE, (uint64_t) j);
		ks->lane_k0[j] = d.lo;
		ks->lane_k1[j] = d.hi;
	}
	d = key_derive(k0, k1, KEY_LABEL_FINAL, 0);
	ks->fin[0] = d.lo;
	ks->fin[1] = d.hi;
	d = key_derive(k0, k1, KEY_LABEL_NAME, 0);
	ks->name[0] = d.lo;
	ks->name[1] = d.hi;
}

/* Key of something named by words[0..nwords): never equals a content key. */
gpx_key
gpx_key_name(const gpx_keyset *ks, const uint64_t *words, size_t nwords)
{
	key_sip		s;
	gpx_key		k;

	key_sip_init(&s, ks->name[0], ks->name[1]);
	for (size_t i = 0; i < nwords; i++)
		key_sip_word(&s, words[i]);
	k = key_sip_final(&s, NULL, 0);
	k.hi |= GPX_KEY_NAMED_BIT;
	return k;
}

/* ----------------------------------------------------------- lanes -- */

/* Eight 64-bit lanes in one vector (GCC and clang vector extension). */
typedef uint64_t key_vec __attribute__((vector_size(64)));

/* Load a vector of eight little-endian words. */
#define KEY_VLOAD(dst, p) \
	do { \
		memcpy(&(dst), (p), sizeof(key_vec)); \
		KEY_VSWAP(dst); \
	} while (0)
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define KEY_VSWAP(v) \
	do { for (int e_ = 0; e_ < 8; e_++) (v)[e_] = __builtin_bswap64((v)[e_]); } while (0)
#else
#define KEY_VSWAP(v) ((void) 0)
#endif

/* Absorb one word per lane (wa: lanes 0-7, wb: 8-15), two SipRounds. */
#define KEY_VABSORB(wa, wb) \
	do { \
		v3a ^= (wa); \
		v3b ^= (wb); \
		KEY_SIPROUND(v0a, v1a, v2a, v3a); \
		KEY_SIPROUND(v0b, v1b, v2b, v3b); \
		KEY_SIPROUND(v0a, v1a, v2a, v3a); \
		KEY_SIPROUND(v0b, v1b, v2b, v3b); \
		v0a ^= (wa); \
		v0b ^= (wb); \
	} while (0)

/* Four SipRounds per lane, then one 64-bit output half per lane to dst. */
#define KEY_VOUT(dst) \
	do { \
		for (int r_ = 0; r_ < 4; r_++) \
		{ \
			KEY_SIPROUND(v0a, v1a, v2a, v3a); \
			KEY_SIPROUND(v0b, v1b, v2b, v3b); \
		} \
		wa = v0a ^ v1a ^ v2a ^ v3a; \
		wb = v0b ^ v1b ^ v2b ^ v3b; \
		memcpy((dst), &wa, sizeof(key_vec)); \
		memcpy((dst) + 8, &wb, sizeof(key_vec)); \
	} while (0)

/*
 * The sixteen lanes over nblk whole 128-byte blocks of m, each finished
 * as SipHash-2-4-128 of its stripe: out[0][j] and out[1][j] get lane j's
 * low and high halves.  Inlined into one function per instruction set.
 */
static inline __attribute__((always_inline)) void
key_lanes_body(const gpx_keyset *ks, const uint8_t *m, size_t nblk,
			   uint64_t out[2][GPX_KEY_LANES])
{
	key_vec		k0a,
				k0b,
				k1a,
				k1b,
				v0a,
				v1a,
				v2a,
				v3a,
				v0b,
				v1b,
				v2b,
				v3b,
				wa,
				wb;
	uint64_t	b = (uint64_t) (8 * nblk) << 56;

	memcpy(&k0a, ks->lane_k0, sizeof(key_vec));
	memcpy(&k0b, ks->lane_k0 + 8, sizeof(key_vec));
	memcpy(&k1a, ks->lane_k1, sizeof(key_vec));
	memcpy(&k1b, ks->lane_k1 + 8, sizeof(key_vec));
	v0a = k0a ^ KEY_C0;
	v0b = k0b ^ KEY_C0;
	v1a = k1a ^ (KEY_C1 ^ 0xee);
	v1b = k1b ^ (KEY_C1 ^ 0xee);
	v2a = k0a ^ KEY_C2;
	v2b = k0b ^ KEY_C2;
	v3a = k1a ^ KEY_C3;
	v3b = k1b ^ KEY_C3;
	for (size_t i = 0; i < nblk; i++, m += 128)
	{
		KEY_VLOAD(wa, m);
		KEY_VLOAD(wb, m + 64);
		KEY_VABSORB(wa, wb);
	}
	/* every lane's message is 8 * nblk bytes: its last block is the length */
	wa = wb = (key_vec) {0} + b;
	KEY_VABSORB(wa, wb);
	v2a ^= 0xee;
	v2b ^= 0xee;
	KEY_VOUT(out[0]);
	v1a ^= 0xdd;
	v1b ^= 0xdd;
	KEY_VOUT(out[1]);
}

/* The lanes with the compiler's default instruction set. */
static void
key_lanes_generic(const gpx_keyset *ks, const uint8_t *m, size_t nblk,
				  uint64_t out[2][GPX_KEY_LANES])
{
	key_lanes_body(ks, m, nblk, out);
}

#if KEY_X86
/* The lanes in AVX2 registers (two per variable of eight lanes). */
__attribute__((target("avx2")))
static void
key_lanes_avx2(const gpx_keyset *ks, const uint8_t *m, size_t nblk,
			   uint64_t out[2][GPX_KEY_LANES])
{
	key_lanes_body(ks, m, nblk, out);
}

/* The lanes in AVX-512 registers (rotations are single instructions). */
__attribute__((target("avx512f")))
static void
key_lanes_avx512(const gpx_keyset *ks, const uint8_t *m, size_t nblk,
				 uint64_t out[2][GPX_KEY_LANES])
{
	key_lanes_body(ks, m, nblk, out);
}
#endif

/* Whether this CPU runs an implementation (AUTO and GENERIC always). */
bool
gpx_key_impl_available(gpx_key_impl impl)
{
	switch (impl)
	{
		case GPX_KEY_IMPL_AUTO:
		case GPX_KEY_IMPL_GENERIC:
			return true;
#if KEY_X86
		case GPX_KEY_IMPL_AVX2:
			return __builtin_cpu_supports("avx2");
		case GPX_KEY_IMPL_AVX512:
			return __builtin_cpu_supports("avx512f");
#endif
		default:
			return false;
	}
}

/* The fastest implementation this CPU runs (checked once; idempotent). */
static gpx_key_impl
key_best_impl(void)
{
	static volatile int best = -1;

	if (best < 0)
		best = gpx_key_impl_available(GPX_KEY_IMPL_AVX512) ? GPX_KEY_IMPL_AVX512 :
			gpx_key_impl_available(GPX_KEY_IMPL_AVX2) ? GPX_KEY_IMPL_AVX2 :
			GPX_KEY_IMPL_GENERIC;
	return (gpx_key_impl) best;
}

/* gpx_key_content with a given implementation (an unavailable one: generic). */
gpx_key
gpx_key_content_impl(const gpx_keyset *ks, uint64_t scope, const uint8_t *buf,
					 size_t len, gpx_key_impl impl)
{
	uint64_t	lanes[2][GPX_KEY_LANES];
	size_t		nblk = len / 128,
				tail = nblk * 128;
	key_sip		s;
	gpx_key		k;

	if (impl == GPX_KEY_IMPL_AUTO)
		impl = key_best_impl();
	else if (!gpx_key_impl_available(impl))
		impl = GPX_KEY_IMPL_GENERIC;
	switch (impl)
	{
#if KEY_X86
		case GPX_KEY_IMPL_AVX512:
			key_lanes_avx512(ks, buf, nblk, lanes);
			break;
		case GPX_KEY_IMPL_AVX2:
			key_lanes_avx2(ks, buf, nblk, lanes);
			break;
#endif
		default:
			key_lanes_generic(ks, buf, nblk, lanes);
			break;
	}

	key_sip_init(&s, ks->fin[0], ks->fin[1]);
	key_sip_word(&s, scope);
	key_sip_word(&s, (uint64_t) len);
	for (int j = 0; j < GPX_KEY_LANES; j++)
	{
		key_sip_word(&s, lanes[0][j]);
		key_sip_word(&s, lanes[1][j]);
	}
	k = key_sip_bytes(&s, buf + tail, len - tail);
	k.hi &= ~GPX_KEY_NAMED_BIT;
	if (gpx_key_is_none(k))
		k.lo = 1;
	return k;
}

/* Key of the content buf[0..len) within scope. */
gpx_key
gpx_key_content(const gpx_keyset *ks, uint64_t scope, const uint8_t *buf,
				size_t len)
{
	return gpx_key_content_impl(ks, scope, buf, len, GPX_KEY_IMPL_AUTO);
}
