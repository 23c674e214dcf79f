/*
 * fuzz_validate.c - libFuzzer harness: the input is a blob.  gpx_validate()
 * on an exact-size heap copy must never read outside it; when it accepts,
 * the list must decode to a strictly increasing sequence in range that
 * matches the header (and a peek at a prefix), random access and
 * lower_bound must agree with the decoded array, and re-encoding it with
 * the same codec must round-trip in both format versions.
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *blob = fz_alloc(size);
	uint32_t scratch[GPX_MAX_BLOCK];
	gpx_list l;

	if (size) memcpy(blob, data, size);
	/* the header peek must never crash either, on any prefix */
	(void) gpx_peek_header(&l, blob, size, size);
	(void) gpx_peek_header(&l, blob, size < GPX_PEEK_BYTES ? size : GPX_PEEK_BYTES, size);
	gpx_status st = gpx_validate(blob, size, scratch);
	if (st != GPX_OK) {
		free(blob);
		return 0;
	}
	st = gpx_open(&l, blob, size);
	if (st != GPX_OK)
		FZ_FAIL("validate accepted but open says %s", gpx_status_str(st));
	FZ_REQUIRE(l.n <= GPX_MAX_N, "n %u", l.n);
	FZ_REQUIRE(l.codec >= GPX_CODEC_MIN && l.codec <= GPX_CODEC_MAX, "codec %u", l.codec);
	FZ_REQUIRE(gpx_blob_codec(blob, size) == l.codec, "blob codec");
	{
		/* a peek agrees with the open, or (one block, prefix) asks for more */
		gpx_list h;
		size_t pre = size < GPX_PEEK_BYTES ? size : GPX_PEEK_BYTES;
		gpx_status ps = gpx_peek_header(&h, blob, pre, size);
		FZ_REQUIRE((ps == GPX_OK && h.n == l.n && h.first == l.first && h.last == l.last) ||
				   (ps == GPX_E_TRUNCATED && l.version == 2 && l.nblocks == 1 && pre < size),
				   "peek: %s", gpx_status_str(ps));
		gpx_devview v;
		FZ_REQUIRE(gpx_dev_view(&l, &v) == GPX_OK, "dev view");
		FZ_REQUIRE(l.n == 0 || ((uint64_t) v.payload_off + 4ull * v.payload_words >=
								 (uint64_t) (l.payload - blob) + l.payload_bytes &&
								 (uint64_t) v.payload_off + 4ull * v.payload_words < size + 4),
				   "dev view words");
	}

	uint32_t *dec = fz_alloc((size_t) l.n * 4);
	gpx_decode(&l, dec);
	if (l.n) {
		FZ_REQUIRE(dec[0] == l.first, "first %u header %u", dec[0], l.first);
		FZ_REQUIRE(dec[l.n - 1] == l.last, "last %u header %u", dec[l.n - 1], l.last);
	} else
		FZ_REQUIRE(l.first == 0 && l.last == 0, "empty list first %u last %u", l.first, l.last);
	for (uint32_t i = 0; i < l.n; i++) {
		if (dec[i] > GPX_MAX_DOCID)
			FZ_FAIL("decoded[%u] = %u out of range", i, dec[i]);
		if (i && dec[i] <= dec[i - 1])
			FZ_FAIL("decoded[%u] = %u after %u: not increasing", i, dec[i], dec[i - 1]);
	}
	/* block-wise decode and directory agree with the whole decode */
	uint32_t done = 0;
	for (uint32_t b = 0; b < l.nblocks; b++) {
		uint32_t buf[GPX_MAX_BLOCK];
		uint32_t c = gpx_decode_block(&l, b, buf);
		FZ_REQUIRE(c == gpx_block_count(&l, b), "block %u count", b);
		FZ_REQUIRE(c > 0 && done + c <= l.n, "block %u count %u", b, c);
		FZ_REQUIRE(gpx_dir_first(&l, b) == buf[0], "block %u dir first", b);
		FZ_REQUIRE(memcmp(buf, dec + done, (size_t) c * 4) == 0, "block %u contents", b);
		done += c;
	}
	FZ_REQUIRE(done == l.n, "blocks hold %u of %u", done, l.n);

	/* frequencies: in range, by block equal to the whole, maxima exact */
	{
		uint32_t *tf = fz_alloc((size_t) l.n * 4);
		gpx_decode_tfs(&l, tf);
		done = 0;
		for (uint32_t b = 0; b < l.nblocks; b++) {
			uint32_t buf[GPX_MAX_BLOCK], mx = 0;
			uint32_t c = gpx_decode_block_tfs(&l, b, buf);
			FZ_REQUIRE(c == gpx_block_count(&l, b), "block %u tf count", b);
			for (uint32_t i = 0; i < c; i++) {
				FZ_REQUIRE(buf[i] >= 1 && buf[i] <= 0x7FFFFFFFu, "tf %u", buf[i]);
				mx = buf[i] > mx ? buf[i] : mx;
			}
			FZ_REQUIRE(memcmp(buf, tf + done, (size_t) c * 4) == 0, "block %u tfs", b);
			FZ_REQUIRE(gpx_block_tf_max(&l, b) == mx, "block %u tf max", b);
			done += c;
		}
		free(tf);
	}

	uint64_t seed = 0x9E3779B97F4A7C15ull ^ size;
	for (size_t i = 0; i < size && i < 64; i++)
		seed = seed * 31 + data[i];
	fz_check_access(&l, dec, seed);

	/* re-encode with the same codec */
	fz_roundtrip(l.codec, dec, l.n, seed + 1);

	free(dec);
	free(blob);
	return 0;
}
