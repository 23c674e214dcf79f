/*
 * fuzz_common.h - helpers shared by the libFuzzer harnesses: a byte reader
 * over the fuzzer input and a checker that aborts (so libFuzzer reports the
 * input) on any disagreement between the codec and the naive references.
 */
#ifndef GPX_FUZZ_COMMON_H
#define GPX_FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gpx_codec.h"
#include "unit.h"

#define FZ_FAIL(...) do { \
	fprintf(stderr, "FUZZ MISMATCH %s:%d: ", __FILE__, __LINE__); \
	fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); abort(); \
} while (0)

#define FZ_REQUIRE(cond, fmt, ...) do { if (!(cond)) FZ_FAIL("%s: " fmt, #cond, ##__VA_ARGS__); } while (0)

typedef struct fz_reader { const uint8_t *p; size_t n; } fz_reader;

static inline uint8_t
fz_u8(fz_reader *r)
{
	uint8_t v = 0;
	if (r->n) { v = *r->p++; r->n--; }
	return v;
}

static inline uint32_t
fz_u32(fz_reader *r)
{
	uint32_t v = 0;
	for (int i = 0; i < 4; i++)
		v |= (uint32_t) fz_u8(r) << (8 * i);
	return v;
}

static inline void *
fz_alloc(size_t sz)
{
	void *p = malloc(sz ? sz : 1);
	if (!p) abort();
	return p;
}

/*
 * Check an opened, validated list against its decoded contents dec[0..n):
 * nth on a sample, lower_bound and a cursor on derived probes (seeded by
 * `seed`).  Aborts on a mismatch.
 */
static inline void
fz_check_access(const gpx_list *l, const uint32_t *dec, uint64_t seed)
{
	uint32_t n = l->n;
	unit_rng rng = { seed };

	if (n) {
		uint32_t idx[40]; int ni = 0;
		idx[ni++] = 0; idx[ni++] = n - 1; idx[ni++] = n / 2;
		for (uint32_t b = 127; b < n && ni < 16; b += 128) {
			idx[ni++] = b;
			if (b + 1 < n) idx[ni++] = b + 1;
		}
		while (ni < 40) idx[ni++] = unit_below(&rng, n);
		for (int i = 0; i < ni; i++) {
			uint32_t v = gpx_nth(l, idx[i]);
			if (v != dec[idx[i]])
				FZ_FAIL("nth(%u) = %u, decoded %u", idx[i], v, dec[idx[i]]);
		}
	}

	/* probes: edges, decoded values and neighbours, random */
	uint32_t xs[48]; int nx = 0;
	xs[nx++] = 0; xs[nx++] = 1; xs[nx++] = GPX_MAX_DOCID; xs[nx++] = 0xFFFFFFFFu;
	xs[nx++] = l->first; xs[nx++] = l->last; xs[nx++] = l->last + 1;
	if (l->first) xs[nx++] = l->first - 1;
	while (nx < 48) {
		if (n && (unit_next(&rng) & 1)) {
			uint32_t v = dec[unit_below(&rng, n)];
			int d = (int) unit_below(&rng, 3) - 1;
			xs[nx++] = (d < 0 && v == 0) ? 0 : v + d;
		} else
			xs[nx++] = unit_below(&rng, (uint64_t) l->last + 2);
	}
	for (int i = 0; i < nx; i++) {
		uint32_t val = 0xDEADBEEF;
		uint32_t got = gpx_lower_bound(l, xs[i], &val);
		uint32_t want = ref_lower_bound(dec, n, xs[i]);
		if (got != want)
			FZ_FAIL("lower_bound(%u) = %u, ref %u (n %u)", xs[i], got, want, n);
		if (want < n && val != dec[want])
			FZ_FAIL("lower_bound(%u) val %u, ref %u", xs[i], val, dec[want]);
		bool c = gpx_contains(l, xs[i]);
		if (c != (want < n && dec[want] == xs[i]))
			FZ_FAIL("contains(%u) = %d", xs[i], (int) c);
	}

	/* cursor with non-decreasing probes */
	static gpx_cursor cur;
	gpx_cursor_init(&cur, l);
	uint32_t x = 0;
	for (int i = 0; i < 64; i++) {
		uint32_t val = 0;
		bool found = gpx_cursor_next_geq(&cur, x, &val);
		uint32_t want = ref_lower_bound(dec, n, x);
		if (found != (want < n))
			FZ_FAIL("cursor_next_geq(%u) found %d, ref idx %u of %u", x, (int) found, want, n);
		if (!found) break;
		if (val != dec[want])
			FZ_FAIL("cursor_next_geq(%u) = %u, ref %u", x, val, dec[want]);
		switch (unit_below(&rng, 4)) {
		case 0: break;								/* same x again */
		case 1: x = val + 1; break;					/* next element */
		case 2: x = val + 1 + unit_below(&rng, 1000); break;
		default: x = val + 1 + unit_below(&rng, (uint64_t) (l->last - val) + 2); break;
		}
	}
}

/*
 * The encodings the harnesses try: the current format, version 1, and
 * version 2 with the block kinds restricted (Elias-Fano blocks in pfor and
 * lrc lists; no own form; no bitmap).  None forces bitmaps alone, whose
 * size follows the span, not the count.
 */
#define FZ_NENC 5
static const gpx_encode_opts fz_enc[FZ_NENC] = {
	{ 0, 0 },
	{ GPX_FORMAT_V1, 0 },
	{ 2, 1u << GPX_KIND_EF },
	{ 2, (1u << GPX_KIND_EF) | (1u << GPX_KIND_BITMAP) },
	{ 2, (1u << GPX_KIND_EF) | (1u << GPX_KIND_OWN) },
};

/*
 * Encode docs[0..n) with codec and options, validate, open and decode,
 * compare with docs, peek at the header; also the access checks.  Aborts
 * on a mismatch.
 */
static inline void
fz_roundtrip_opts(int codec, const uint32_t *docs, uint32_t n, uint64_t seed,
				  const gpx_encode_opts *o)
{
	uint32_t last = n ? docs[n - 1] : 0;
	size_t cap = gpx_encode_bound_ex(codec, n, last, o);
	uint8_t *blob = fz_alloc(cap);
	size_t len = 0;
	gpx_status st = gpx_encode_ex(codec, docs, n, o, blob, cap, &len);
	if (st != GPX_OK)
		FZ_FAIL("encode %s v%d kinds %x n %u: %s", gpx_codec_name(codec), o->version,
				o->kinds, n, gpx_status_str(st));
	FZ_REQUIRE(len <= cap, "len %zu cap %zu", len, cap);
	/* exact-size copy so ASan catches reads past the blob */
	uint8_t *exact = fz_alloc(len);
	memcpy(exact, blob, len);
	uint32_t scratch[GPX_MAX_BLOCK];
	st = gpx_validate(exact, len, scratch);
	if (st != GPX_OK)
		FZ_FAIL("validate of fresh %s v%d kinds %x blob n %u: %s", gpx_codec_name(codec),
				o->version, o->kinds, n, gpx_status_str(st));
	gpx_list l, h;
	st = gpx_open(&l, exact, len);
	FZ_REQUIRE(st == GPX_OK, "open: %s", gpx_status_str(st));
	FZ_REQUIRE(l.n == n && l.codec == codec, "n %u codec %u", l.n, l.codec);
	FZ_REQUIRE(l.version == (o->version ? o->version : GPX_FORMAT_VERSION), "version %u", l.version);
	if (n) FZ_REQUIRE(l.first == docs[0] && l.last == docs[n - 1], "first/last");
	st = gpx_peek_header(&h, exact, len, len);
	FZ_REQUIRE(st == GPX_OK && h.n == l.n && h.first == l.first && h.last == l.last,
			   "peek: %s", gpx_status_str(st));
	uint32_t *dec = fz_alloc((size_t) n * 4);
	gpx_decode(&l, dec);
	for (uint32_t i = 0; i < n; i++)
		if (dec[i] != docs[i])
			FZ_FAIL("%s decode[%u] = %u, want %u", gpx_codec_name(codec), i, dec[i], docs[i]);
	fz_check_access(&l, dec, seed);
	free(dec); free(exact); free(blob);
}

/* fz_roundtrip_opts with every encoding of fz_enc. */
static inline void
fz_roundtrip(int codec, const uint32_t *docs, uint32_t n, uint64_t seed)
{
	for (int e = 0; e < FZ_NENC; e++)
		fz_roundtrip_opts(codec, docs, n, seed + (uint64_t) e, &fz_enc[e]);
}

#endif
