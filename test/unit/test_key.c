/*
 * test_key.c - unit tests of list identity (src/codec/gpx_key.c):
 * SipHash-2-4-128 against the reference test vectors, gpx_key_content
 * against a direct transcription of its definition and across every
 * implementation this CPU runs, sensitivity to every bit, the scope and
 * the length, named keys apart from content keys; then, for each of the
 * three codecs, a forged pair of valid lists that the old unkeyed hash
 * (old_hash64.h) takes for one list and the new key tells apart.
 */
#include <string.h>

#include "gpx_batch.h"
#include "old_hash64.h"
#include "unit.h"

static const int codecs[] = {GPX_CODEC_PFOR, GPX_CODEC_LRC, GPX_CODEC_QS};

/* Store v as 8 little-endian bytes. */
static void
put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t) (v >> (8 * i));
}

/*
 * SipHash-2-4-128, key 00 01 .. 0f, message 00 01 .. (len - 1): the
 * reference implementation's vectors_sip128 for these lengths.
 */
static void
test_siphash_vectors(void)
{
	static const struct
	{
		int			len;
		uint8_t		out[16];
	}			v[] = {
		{0, {0xa3, 0x81, 0x7f, 0x04, 0xba, 0x25, 0xa8, 0xe6, 0x6d, 0xf6, 0x72, 0x14, 0xc7, 0x55, 0x02, 0x93}},
		{1, {0xda, 0x87, 0xc1, 0xd8, 0x6b, 0x99, 0xaf, 0x44, 0x34, 0x76, 0x59, 0x11, 0x9b, 0x22, 0xfc, 0x45}},
		{7, {0xa1, 0xf1, 0xeb, 0xbe, 0xd8, 0xdb, 0xc1, 0x53, 0xc0, 0xb8, 0x4a, 0xa6, 0x1f, 0xf0, 0x82, 0x39}},
		{8, {0x3b, 0x62, 0xa9, 0xba, 0x62, 0x58, 0xf5, 0x61, 0x0f, 0x83, 0xe2, 0x64, 0xf3, 0x14, 0x97, 0xb4}},
		{15, {0x54, 0x93, 0xe9, 0x99, 0x33, 0xb0, 0xa8, 0x11, 0x7e, 0x08, 0xec, 0x0f, 0x97, 0xcf, 0xc3, 0xd9}},
		{16, {0x6e, 0xe2, 0xa4, 0xca, 0x67, 0xb0, 0x54, 0xbb, 0xfd, 0x33, 0x15, 0xbf, 0x85, 0x23, 0x05, 0x77}},
		{63, {0x51, 0x50, 0xd1, 0x77, 0x2f, 0x50, 0x83, 0x4a, 0x50, 0x3e, 0x06, 0x9a, 0x97, 0x3f, 0xbd, 0x7c}},
	};
	const uint64_t key[2] = {UINT64_C(0x0706050403020100), UINT64_C(0x0f0e0d0c0b0a0908)};
	uint8_t		msg[64];

	for (int i = 0; i < 64; i++)
		msg[i] = (uint8_t) i;
	for (size_t t = 0; t < sizeof(v) / sizeof(v[0]); t++)
	{
		gpx_key		k = gpx_siphash128(key, msg, (size_t) v[t].len);
		uint8_t		got[16];

		put64(got, k.lo);
		put64(got + 8, k.hi);
		CHECKF(memcmp(got, v[t].out, 16) == 0, "siphash128 vector of length %d", v[t].len);
	}
}

/* gpx_key_content written out from its definition (gpx_key.c's header). */
static gpx_key
ref_key_content(const gpx_keyset *ks, uint64_t scope, const uint8_t *m, size_t len)
{
	size_t		nblk = len / 128,
				fl = 0;
	uint8_t    *stripe = unit_xmalloc(8 * nblk);
	uint8_t    *f = unit_xmalloc(16 + 32 * GPX_KEY_LANES + 128);
	gpx_key		k;

	put64(f, scope);
	put64(f + 8, (uint64_t) len);
	fl = 16;
	for (int j = 0; j < GPX_KEY_LANES; j++)
	{
		uint64_t	lk[2] = {ks->lane_k0[j], ks->lane_k1[j]};

		for (size_t i = 0; i < nblk; i++)
			memcpy(stripe + 8 * i, m + 128 * i + 8 * j, 8);
		k = gpx_siphash128(lk, stripe, 8 * nblk);
		put64(f + fl, k.lo);
		put64(f + fl + 8, k.hi);
		fl += 16;
	}
	memcpy(f + fl, m + 128 * nblk, len - 128 * nblk);
	fl += len - 128 * nblk;
	k = gpx_siphash128(ks->fin, f, fl);
	k.hi &= ~GPX_KEY_NAMED_BIT;
	if (gpx_key_is_none(k))
		k.lo = 1;
	free(stripe);
	free(f);
	return k;
}

/* A keyset from a fixed secret. */
static void
test_keyset(gpx_keyset *ks, uint8_t seed)
{
	uint8_t		secret[16];

	for (int i = 0; i < 16; i++)
		secret[i] = (uint8_t) (seed + 17 * i);
	gpx_keyset_init(ks, secret);
}

/* Subkeys are SipHash-2-4-128 of (label, index) under the secret. */
static void
test_derivation(void)
{
	uint8_t		secret[16],
				label[16];
	uint64_t	k[2];
	gpx_keyset	ks;
	gpx_key		d;

	for (int i = 0; i < 16; i++)
		secret[i] = (uint8_t) (3 * i + 1);
	gpx_keyset_init(&ks, secret);
	k[0] = old_hash_load64(secret);
	k[1] = old_hash_load64(secret + 8);
	put64(label, 1);
	put64(label + 8, 5);
	d = gpx_siphash128(k, label, 16);
	CHECK(ks.lane_k0[5] == d.lo && ks.lane_k1[5] == d.hi);
	put64(label, 2);
	put64(label + 8, 0);
	d = gpx_siphash128(k, label, 16);
	CHECK(ks.fin[0] == d.lo && ks.fin[1] == d.hi);
	put64(label, 3);
	d = gpx_siphash128(k, label, 16);
	CHECK(ks.name[0] == d.lo && ks.name[1] == d.hi);
}

/* Every implementation and the transcription agree, on many lengths. */
static void
test_content_definition(unit_rng *r)
{
	static const size_t lens[] = {0, 1, 7, 8, 9, 64, 127, 128, 129, 255, 256,
	257, 1000, 4096 + 13, 65536, 100003};
	static const gpx_key_impl impls[] = {GPX_KEY_IMPL_AUTO, GPX_KEY_IMPL_GENERIC,
	GPX_KEY_IMPL_AVX2, GPX_KEY_IMPL_AVX512};
	uint8_t    *buf = unit_xmalloc(100003);
	gpx_keyset	ks;
	int			ran = 0;

	test_keyset(&ks, 7);
	for (size_t i = 0; i < 100003; i++)
		buf[i] = (uint8_t) unit_next(r);
	for (size_t t = 0; t < sizeof(lens) / sizeof(lens[0]); t++)
	{
		uint64_t	scope = unit_next(r);
		gpx_key		want = ref_key_content(&ks, scope, buf, lens[t]);

		for (size_t m = 0; m < sizeof(impls) / sizeof(impls[0]); m++)
		{
			gpx_key		got;

			if (!gpx_key_impl_available(impls[m]))
				continue;
			got = gpx_key_content_impl(&ks, scope, buf, lens[t], impls[m]);
			ran++;
			CHECKF(gpx_key_eq(got, want), "implementation %d, length %zu",
				   (int) impls[m], lens[t]);
		}
		CHECK(gpx_key_eq(gpx_key_content(&ks, scope, buf, lens[t]), want));
	}
	printf("  %d implementation runs (avx2 %s, avx512 %s)\n", ran,
		   gpx_key_impl_available(GPX_KEY_IMPL_AVX2) ? "yes" : "no",
		   gpx_key_impl_available(GPX_KEY_IMPL_AVX512) ? "yes" : "no");
	free(buf);
}

/* Every bit, the scope, the length and the secret change a content key. */
static void
test_content_sensitivity(unit_rng *r)
{
	enum
	{
		LEN = 700
	};
	uint8_t		buf[LEN];
	gpx_keyset	ks,
				ks2;
	gpx_key		k0,
				k;
	int			same = 0;
	uint64_t	words[3] = {1, 2, 3};

	test_keyset(&ks, 1);
	test_keyset(&ks2, 2);
	for (int i = 0; i < LEN; i++)
		buf[i] = (uint8_t) unit_next(r);
	k0 = gpx_key_content(&ks, 42, buf, LEN);
	for (int bit = 0; bit < LEN * 8; bit++)
	{
		buf[bit / 8] ^= (uint8_t) (1u << (bit % 8));
		same += gpx_key_eq(gpx_key_content(&ks, 42, buf, LEN), k0);
		buf[bit / 8] ^= (uint8_t) (1u << (bit % 8));
	}
	CHECKF(same == 0, "%d single-bit flips kept the key", same);
	CHECK(!gpx_key_eq(gpx_key_content(&ks, 43, buf, LEN), k0));
	CHECK(!gpx_key_eq(gpx_key_content(&ks2, 42, buf, LEN), k0));
	same = 0;
	for (size_t len = 0; len < LEN; len++)
		same += gpx_key_eq(gpx_key_content(&ks, 42, buf, len),
						   gpx_key_content(&ks, 42, buf, len + 1));
	CHECKF(same == 0, "%d prefix lengths collided", same);
	memset(buf, 0, sizeof(buf));
	CHECK(!gpx_key_eq(gpx_key_content(&ks, 0, buf, 128), gpx_key_content(&ks, 0, buf, 256)));

	/* content keys and named keys are disjoint sets, none is "no key" */
	k = gpx_key_content(&ks, 0, buf, 0);
	CHECK(!gpx_key_is_none(k) && (k.hi & GPX_KEY_NAMED_BIT) == 0);
	k = gpx_key_name(&ks, words, 3);
	CHECK(!gpx_key_is_none(k) && (k.hi & GPX_KEY_NAMED_BIT) != 0);
	CHECK(!gpx_key_eq(k, gpx_key_name(&ks, words, 2)));
	words[2] = 4;
	CHECK(!gpx_key_eq(k, gpx_key_name(&ks, words, 3)));
	CHECK(!gpx_key_eq(k, gpx_key_name(&ks2, words, 3)) ||
		  !gpx_key_eq(gpx_key_name(&ks, words, 3), gpx_key_name(&ks2, words, 3)));
}

/*
 * A forged twin of blob a: flip bit 63 of the 8-byte word at o (the
 * product in that word's lane of old_hash64 changes in bit 63 only, its
 * rotation in bit 28) and bit 28 of the lane's next word, 64 bytes on, so
 * old_hash64 cannot tell; keep the first o whose result still validates
 * and decodes to a different list.  Returns o, or -1.
 */
static long
forge_twin(const uint8_t *a, size_t len, uint8_t *b, uint32_t *da, uint32_t *db)
{
	gpx_list	la,
				lb;
	size_t		full = len / 64 * 64;

	if (gpx_open(&la, a, len) != GPX_OK)
		return -1;
	gpx_decode(&la, da);
	for (size_t o = GPX_PEEK_BYTES; o + 64 + 8 <= full; o += 8)
	{
		memcpy(b, a, len);
		b[o + 7] ^= 0x80;
		b[o + 64 + 3] ^= 0x10;
		if (unit_validate_exact(b, len) != GPX_OK || gpx_open(&lb, b, len) != GPX_OK)
			continue;
		gpx_decode(&lb, db);
		if (memcmp(da, db, sizeof(uint32_t) * la.n) != 0)
			return (long) o;
	}
	return -1;
}

/*
 * For each codec: valid lists A != B of one length, n, first and last
 * with one old_hash64; their keys differ, in every scope, and so does
 * their intersection from A.
 */
static void
test_forged_pairs(unit_rng *r)
{
	static const struct
	{
		unit_dist	dist;
		uint32_t	n;
		uint64_t	universe;
	}			shapes[] = {
		{UNIT_UNIFORM, 6000, 1u << 20},
		{UNIT_UNIFORM, 20000, 1u << 17},
		{UNIT_CLUSTERED, 20000, 1u << 22},
		{UNIT_UNIFORM, 3000, 1u << 30},
	};
	uint32_t   *docs = unit_xmalloc(sizeof(uint32_t) * 20000);
	uint32_t   *da = unit_xmalloc(sizeof(uint32_t) * 20000);
	uint32_t   *db = unit_xmalloc(sizeof(uint32_t) * 20000);
	gpx_keyset	ks;

	test_keyset(&ks, 9);
	for (size_t c = 0; c < sizeof(codecs) / sizeof(codecs[0]); c++)
	{
		long		o = -1;

		for (size_t s = 0; o < 0 && s < sizeof(shapes) / sizeof(shapes[0]); s++)
		{
			uint32_t	n = unit_make_list(r, shapes[s].dist, shapes[s].n,
										   shapes[s].universe, docs);
			size_t		len = 0;
			uint8_t    *a = unit_encode_exact(codecs[c], docs, n, &len);
			uint8_t    *b;
			gpx_list	la,
						lb;
			uint32_t	common = 0;

			if (a == NULL)
				continue;
			b = unit_xmalloc(len);
			o = forge_twin(a, len, b, da, db);
			if (o >= 0)
			{
				CHECK(gpx_open(&la, a, len) == GPX_OK && gpx_open(&lb, b, len) == GPX_OK);
				CHECK(la.n == lb.n && la.first == lb.first && la.last == lb.last);
				CHECKF(old_hash64(a, len) == old_hash64(b, len),
					   "%s: the old hash tells the forged pair apart", gpx_codec_name(codecs[c]));
				CHECKF(!gpx_key_eq(gpx_key_content(&ks, 1, a, len), gpx_key_content(&ks, 1, b, len)),
					   "%s: the new key collides", gpx_codec_name(codecs[c]));
				CHECK(!gpx_key_eq(gpx_key_content(&ks, 2, a, len), gpx_key_content(&ks, 2, b, len)));
				for (uint32_t i = 0, j = 0; i < la.n && j < lb.n;)
				{
					if (da[i] == db[j])
						common++, i++, j++;
					else if (da[i] < db[j])
						i++;
					else
						j++;
				}
				CHECK(common < la.n);
				printf("  %s: forged pair of %u docIDs in %zu bytes (flipped bytes %ld and %ld), %u in common\n",
					   gpx_codec_name(codecs[c]), la.n, len, o + 7, o + 67, common);
			}
			free(a);
			free(b);
		}
		CHECKF(o >= 0, "%s: no forged pair found", gpx_codec_name(codecs[c]));
	}
	free(docs);
	free(da);
	free(db);
}

int
main(void)
{
	unit_rng	r = {20240615};

	UNIT_RUN(test_siphash_vectors());
	UNIT_RUN(test_derivation());
	UNIT_RUN(test_content_definition(&r));
	UNIT_RUN(test_content_sensitivity(&r));
	UNIT_RUN(test_forged_pairs(&r));
	return unit_finish();
}
