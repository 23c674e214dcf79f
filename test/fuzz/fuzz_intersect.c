/*
 * fuzz_intersect.c - libFuzzer harness: 2-4 lists built from the input,
 * each encoded with a codec chosen by the input; gpx_intersect (all
 * strategies), gpx_intersect_count and gpx_overlaps are compared with
 * repeated ref_intersect2; gpx_decode and gpx_intersect also under every
 * vectorised variant the CPU supports (gpx_cpu.h), forced in turn.
 *
 * Input: byte 0: k = 2 + (b0 % 3), bit 7: lists share a common base;
 *        byte 1: codec of list j = 1 + ((b1 >> 2j) & 3) % 3;
 *        byte 2: AUTO probe ratio (0: default); list j is encoded with
 *        fz_enc[((b1 ^ b2) >> 2j) & 3] (format version, block kinds);
 *        then for each list: a 2-byte start offset, a 2-byte length L,
 *        then L gap bytes (the remaining input is split evenly when short):
 *        gap = (b & 15) + 1 for b < 0xE0, else (b & 31) << 10.
 */
#include "fuzz_common.h"
#include "gpx_intersect.h"
#include "gpx_cpu.h"

#define MAXK 4

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint32_t
build_list(fz_reader *r, size_t maxlen, uint32_t base, uint32_t *out)
{
	uint64_t v = base + ((uint32_t) fz_u8(r) | (uint32_t) fz_u8(r) << 8);
	size_t len = (uint32_t) fz_u8(r) | (uint32_t) fz_u8(r) << 8;
	uint32_t n = 0;

	if (len > maxlen) len = maxlen;
	if (len > r->n) len = r->n;
	if (len == 0) return 0;
	if (v > GPX_MAX_DOCID) return 0;
	out[n++] = (uint32_t) v;
	for (size_t i = 1; i < len; i++) {
		uint8_t b = fz_u8(r);
		v += b < 0xE0 ? (uint64_t) (b & 15) + 1 : (uint64_t) (b & 31) << 10;
		if (b >= 0xE0 && (b & 31) == 0) v += 1;
		if (v > GPX_MAX_DOCID) break;
		out[n++] = (uint32_t) v;
	}
	return n;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fz_reader r = { data, size };
	uint8_t b0 = fz_u8(&r), b1 = fz_u8(&r), ratio = fz_u8(&r);
	int k = 2 + b0 % 3;
	uint32_t base = (b0 & 0x80) ? 0 : (uint32_t) (b0 & 0x78) << 24;
	uint32_t *docs[MAXK], n[MAXK];
	uint8_t *blob[MAXK];
	gpx_list lists[MAXK];
	const gpx_list *lp[MAXK];
	uint32_t scratch[GPX_MAX_BLOCK];

	for (int j = 0; j < k; j++) {
		size_t share = r.n / (size_t) (k - j);
		docs[j] = fz_alloc((r.n + 1) * sizeof(uint32_t));
		n[j] = build_list(&r, share > 4 ? share - 4 : 0, (b0 & 0x80) ? base : (uint32_t) j << 20, docs[j]);
		int codec = 1 + ((b1 >> (2 * j)) & 3) % 3;
		const gpx_encode_opts *eo = &fz_enc[((b1 ^ ratio) >> (2 * j)) & 3];
		uint32_t last = n[j] ? docs[j][n[j] - 1] : 0;
		size_t cap = gpx_encode_bound_ex(codec, n[j], last, eo), len = 0;
		uint8_t *tmp = fz_alloc(cap);
		gpx_status st = gpx_encode_ex(codec, docs[j], n[j], eo, tmp, cap, &len);
		if (st != GPX_OK) FZ_FAIL("encode: %s", gpx_status_str(st));
		blob[j] = fz_alloc(len);			/* exact size for ASan */
		memcpy(blob[j], tmp, len);
		free(tmp);
		st = gpx_validate(blob[j], len, scratch);
		if (st != GPX_OK) FZ_FAIL("validate: %s", gpx_status_str(st));
		st = gpx_open(&lists[j], blob[j], len);
		if (st != GPX_OK) FZ_FAIL("open: %s", gpx_status_str(st));
		lp[j] = &lists[j];
	}

	/* reference: repeated two-way intersection */
	uint32_t rn = n[0];
	uint32_t *ref = fz_alloc(((size_t) n[0] + 1) * 4), *tmp = fz_alloc(((size_t) n[0] + 1) * 4);
	memcpy(ref, docs[0], (size_t) n[0] * 4);
	for (int j = 1; j < k; j++) {
		rn = ref_intersect2(ref, rn, docs[j], n[j], tmp);
		memcpy(ref, tmp, (size_t) rn * 4);
	}

	uint32_t bound = gpx_intersect_bound(lp, k);
	uint32_t minn = n[0];
	for (int j = 1; j < k; j++) if (n[j] < minn) minn = n[j];
	FZ_REQUIRE(bound == minn, "bound %u, min n %u", bound, minn);
	uint32_t *out = fz_alloc(((size_t) bound + 1) * 4);
	uint32_t outn = 0xFFFFFFFF;
	gpx_isect_stats stats;
	gpx_status st = gpx_intersect(lp, k, out, &outn, &stats);
	FZ_REQUIRE(st == GPX_OK, "intersect: %s", gpx_status_str(st));
	FZ_REQUIRE(outn == rn, "intersect k %d: %u elements, ref %u", k, outn, rn);
	FZ_REQUIRE(memcmp(out, ref, (size_t) rn * 4) == 0, "intersect contents");
	FZ_REQUIRE(stats.result == rn, "stats.result");

	/* every vectorised variant this CPU has decodes and intersects alike */
	gpx_simd_level was = gpx_simd_active();
	for (int lv = 0; lv < GPX_SIMD_LEVELS; lv++) {
		if (!gpx_simd_supported(lv)) continue;
		gpx_simd_force(lv);
		for (int j = 0; j < k; j++) {
			uint32_t *dec = fz_alloc(((size_t) n[j] + 1) * 4);
			gpx_decode(lp[j], dec);
			FZ_REQUIRE(memcmp(dec, docs[j], (size_t) n[j] * 4) == 0, "decode under %s",
					   gpx_simd_name(lv));
			free(dec);
		}
		outn = 0xFFFFFFFF;
		st = gpx_intersect(lp, k, out, &outn, NULL);
		FZ_REQUIRE(st == GPX_OK && outn == rn && memcmp(out, ref, (size_t) rn * 4) == 0,
				   "intersect under %s: %u elements, ref %u", gpx_simd_name(lv), outn, rn);
	}
	gpx_simd_force(was);

	static const gpx_isect_strategy strat[] = { GPX_ISECT_AUTO, GPX_ISECT_MERGE, GPX_ISECT_PROBE };
	for (int s = 0; s < 3; s++) {
		gpx_isect_opts o = { strat[s], ratio };
		outn = 0xFFFFFFFF;
		st = gpx_intersect_ex(lp, k, &o, out, bound, &outn, NULL);
		FZ_REQUIRE(st == GPX_OK, "intersect_ex strategy %d: %s", s, gpx_status_str(st));
		FZ_REQUIRE(outn == rn && memcmp(out, ref, (size_t) rn * 4) == 0,
				   "intersect_ex strategy %d: %u elements, ref %u", s, outn, rn);
		uint32_t cnt = 0xFFFFFFFF;
		st = gpx_intersect_count_ex(lp, k, &o, &cnt, NULL);
		FZ_REQUIRE(st == GPX_OK && cnt == rn, "count_ex strategy %d: %u, ref %u", s, cnt, rn);
		/* a too-small buffer must fail cleanly, not overflow */
		if (rn > 0) {
			uint32_t *small = fz_alloc((size_t) (rn - 1) * 4 + 1);
			st = gpx_intersect_ex(lp, k, &o, small, rn - 1, &outn, NULL);
			FZ_REQUIRE(st == GPX_E_NOSPACE, "intersect_ex cap %u: %s", rn - 1, gpx_status_str(st));
			free(small);
		}
	}
	uint32_t cnt = 0xFFFFFFFF;
	st = gpx_intersect_count(lp, k, &cnt, NULL);
	FZ_REQUIRE(st == GPX_OK && cnt == rn, "count %u, ref %u", cnt, rn);

	/* overlaps on every pair */
	for (int a = 0; a < k; a++)
		for (int b = a + 1; b < k; b++) {
			uint32_t na = n[a], nb = n[b];
			uint32_t *t2 = fz_alloc(((size_t) (na < nb ? na : nb) + 1) * 4);
			bool want = ref_intersect2(docs[a], na, docs[b], nb, t2) > 0;
			free(t2);
			FZ_REQUIRE(gpx_overlaps(lp[a], lp[b]) == want, "overlaps(%d,%d) want %d", a, b, (int) want);
			FZ_REQUIRE(gpx_overlaps(lp[b], lp[a]) == want, "overlaps(%d,%d) want %d", b, a, (int) want);
		}

	free(out); free(ref); free(tmp);
	for (int j = 0; j < k; j++) { free(docs[j]); free(blob[j]); }
	return 0;
}
