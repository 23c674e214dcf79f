/*
 * fuzz_encode.c - libFuzzer harness: the input is a set of docIDs, encoded
 * with every codec, validated, decoded and compared.
 *
 * Input: byte 0 selects the mode; the rest is the list.
 *   mode & 1 == 0: little-endian uint32 values, masked to 31 bits, then
 *                  sorted and de-duplicated (arbitrary sets);
 *   mode & 1 == 1: a start (uint32, masked) then one gap per byte,
 *                  gap = byte + 1 for bytes < 0xF0, else a long jump of
 *                  (byte - 0xEF) << (mode >> 3 & 31) (dense runs with jumps),
 *                  stopping at 2^31-1.
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fz_reader r = { data, size };
	uint8_t mode = fz_u8(&r);
	uint32_t *docs = fz_alloc((r.n + 1) * sizeof(uint32_t));
	uint32_t n = 0;

	if ((mode & 1) == 0) {
		while (r.n >= 4)
			docs[n++] = fz_u32(&r) & GPX_MAX_DOCID;
		n = ref_sort_unique(docs, n);
	} else {
		uint64_t v = fz_u32(&r) & GPX_MAX_DOCID;
		unsigned shift = (mode >> 3) & 31;
		if (size >= 5) docs[n++] = (uint32_t) v;
		while (r.n) {
			uint8_t b = fz_u8(&r);
			uint64_t gap = b < 0xF0 ? (uint64_t) b + 1 : (uint64_t) (b - 0xEF) << shift;
			v += gap;
			if (v > GPX_MAX_DOCID) break;
			docs[n++] = (uint32_t) v;
		}
	}
	if (gpx_check_sorted(docs, n) != GPX_OK)
		FZ_FAIL("check_sorted rejects a sorted list of %u", n);

	uint64_t seed = 0x51ED2701ull ^ size ^ ((uint64_t) mode << 32);
	for (int codec = GPX_CODEC_MIN; codec <= GPX_CODEC_MAX; codec++)
		fz_roundtrip(codec, docs, n, seed + codec);

	free(docs);
	return 0;
}
