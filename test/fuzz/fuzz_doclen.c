/*
 * fuzz_doclen.c - libFuzzer harness: the input is a collection statistics
 * blob (gpx_doclen.h).  gpx_doclen_validate() on an exact-size heap copy
 * must never read outside it; when it accepts, the header must agree with
 * the entries (documents, total, extremes, span ending on a document) and
 * re-encoding the entries, densely and as pairs, must give the same bytes.
 */
#include "fuzz_common.h"
#include "gpx_doclen.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *blob = fz_alloc(size);
	gpx_doclen dl;

	if (size) memcpy(blob, data, size);
	(void) gpx_doclen_open(&dl, blob, size);
	if (gpx_doclen_validate(blob, size) != GPX_OK) {
		free(blob);
		return 0;
	}
	FZ_REQUIRE(gpx_doclen_open(&dl, blob, size) == GPX_OK, "open after validate");

	uint32_t *e = fz_alloc((size_t) dl.span * 4 + 4);
	uint32_t *docs = fz_alloc((size_t) dl.span * 4 + 4);
	uint32_t *lens = fz_alloc((size_t) dl.span * 4 + 4);
	uint64_t nd = 0, tot = 0;
	uint32_t mn = 0, mx = 0;

	gpx_doclen_read(&dl, 0, dl.span + 1, e);
	FZ_REQUIRE(e[dl.span] == 0, "entry past the span");
	for (uint32_t d = 0; d < dl.span; d++) {
		if (e[d] == 0)
			continue;
		uint32_t l = e[d] - 1;
		FZ_REQUIRE(l <= GPX_DOCLEN_MAX_LEN, "length %u", l);
		if (nd == 0 || l < mn) mn = l;
		if (l > mx) mx = l;
		docs[nd] = d;
		lens[nd] = l;
		nd++;
		tot += l;
	}
	FZ_REQUIRE(nd == dl.ndocs && tot == dl.total && mn == dl.min_len && mx == dl.max_len,
			   "header disagrees with the entries");
	FZ_REQUIRE(dl.span == 0 || e[dl.span - 1] != 0, "span does not end on a document");

	uint8_t *out = fz_alloc(size);
	size_t outlen = 0;
	FZ_REQUIRE(gpx_doclen_encode(e, dl.span, out, size, &outlen) == GPX_OK &&
			   outlen == size && memcmp(out, blob, size) == 0, "dense re-encoding differs");
	FZ_REQUIRE(gpx_doclen_pairs_size(docs, lens, (uint32_t) nd) == size, "pairs size");
	FZ_REQUIRE(gpx_doclen_encode_pairs(docs, lens, (uint32_t) nd, out, size, &outlen) == GPX_OK &&
			   outlen == size && memcmp(out, blob, size) == 0, "pairs re-encoding differs");
	free(out);
	free(e);
	free(docs);
	free(lens);
	free(blob);
	return 0;
}
