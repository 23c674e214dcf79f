/*
 * gen_corpus.c - writes the seed corpus of the fuzz harnesses:
 *   gen_corpus DIR   creates DIR/fuzz_validate, DIR/fuzz_encode,
 *                    DIR/fuzz_intersect, DIR/fuzz_setops (deterministic
 *                    output).
 * fuzz_validate gets valid blobs of every codec; fuzz_encode,
 * fuzz_intersect and fuzz_setops get inputs in their own formats (see
 * their headers).
 * Every file is < 4 KB.  Run through "make -f test/fuzz/fuzz.mk fuzz-corpus".
 */
#include <errno.h>
#include <sys/stat.h>
#include "gpx_codec.h"
#include "unit.h"
#include <string.h>

static const char *root;
static int nfiles;

static void
put(const char *harness, const char *name, const uint8_t *buf, size_t len)
{
	char path[512];
	FILE *f;

	if (len > 4000) { fprintf(stderr, "%s/%s: %zu bytes, too big\n", harness, name, len); exit(1); }
	snprintf(path, sizeof(path), "%s/%s", root, harness);
	if (mkdir(path, 0777) != 0 && errno != EEXIST) { perror(path); exit(1); }
	snprintf(path, sizeof(path), "%s/%s/%s", root, harness, name);
	f = fopen(path, "wb");
	if (!f || fwrite(buf, 1, len, f) != len || fclose(f) != 0) { perror(path); exit(1); }
	nfiles++;
}

/* the named test lists: fills out, returns n */
static uint32_t
make(int which, uint32_t *out, const char **name)
{
	unit_rng r = { 12345 + (uint64_t) which };
	uint32_t n = 0;

	switch (which) {
	case 0: *name = "empty"; return 0;
	case 1: *name = "zero"; out[0] = 0; return 1;
	case 2: *name = "max"; out[0] = GPX_MAX_DOCID; return 1;
	case 3: *name = "zero-max"; out[0] = 0; out[1] = GPX_MAX_DOCID; return 2;
	case 4: *name = "dense300"; for (n = 0; n < 300; n++) out[n] = n; return n;
	case 5: *name = "dense-high"; for (n = 0; n < 257; n++) out[n] = GPX_MAX_DOCID - 256 + n; return n;
	case 6: *name = "block128"; for (n = 0; n < 129; n++) out[n] = 1000 + 3 * n; return n;
	case 7: *name = "uniform-wide"; return unit_make_list(&r, UNIT_UNIFORM, 150, 1ull << 31, out);
	case 8: *name = "uniform-narrow"; return unit_make_list(&r, UNIT_UNIFORM, 600, 20000, out);
	case 9: *name = "clustered"; return unit_make_list(&r, UNIT_CLUSTERED, 500, 1u << 24, out);
	case 10: *name = "extreme"; return unit_make_list(&r, UNIT_EXTREME, 80, 1ull << 31, out);
	case 11: *name = "small5"; return unit_make_list(&r, UNIT_UNIFORM, 5, 5000, out);
	case 12: *name = "small15"; return unit_make_list(&r, UNIT_UNIFORM, 15, 1u << 20, out);
	case 13: *name = "small16"; return unit_make_list(&r, UNIT_UNIFORM, 16, 1u << 20, out);
	case 14: *name = "half-dense"; return unit_make_list(&r, UNIT_UNIFORM, 700, 1500, out);
	case 15: *name = "mixed-density";
		for (n = 0; n < 256; n++) out[n] = n;			/* a bitmap block */
		for (; n < 600; n++) out[n] = 300 + 97 * n;	/* sparse blocks */
		return n;
	}
	return 0;
}
#define NLISTS 16

int
main(int argc, char **argv)
{
	static uint32_t docs[4096];
	static uint8_t buf[65536];
	char name[128];

	if (argc != 2) { fprintf(stderr, "usage: gen_corpus DIR\n"); return 2; }
	root = argv[1];
	if (mkdir(root, 0777) != 0 && errno != EEXIST) { perror(root); return 1; }

	/*
	 * fuzz_validate: every list with every codec, as version 1 ("pfor-..."),
	 * version 2 ("v2-pfor-..."), and version 2 with Elias-Fano blocks in
	 * pfor and lrc lists ("v2ef-...") and without the own forms ("v2eb-...")
	 */
	static const struct { const char *prefix; gpx_encode_opts o; } enc[] = {
		{ "", { GPX_FORMAT_V1, 0 } },
		{ "v2-", { 2, 0 } },
		{ "v2ef-", { 2, 1u << GPX_KIND_EF } },
		{ "v2eb-", { 2, (1u << GPX_KIND_EF) | (1u << GPX_KIND_BITMAP) } },
	};
	for (size_t e = 0; e < sizeof(enc) / sizeof(enc[0]); e++)
		for (int w = 0; w < NLISTS; w++) {
			const char *ln;
			uint32_t n = make(w, docs, &ln);
			for (int c = GPX_CODEC_MIN; c <= GPX_CODEC_MAX; c++) {
				size_t len;
				gpx_status st;
				if (e >= 2 && c == GPX_CODEC_QS)
					continue;		/* the same as v2- for qs */
				st = gpx_encode_ex(c, docs, n, &enc[e].o, buf, sizeof(buf), &len);
				if (st != GPX_OK) { fprintf(stderr, "encode %s: %s\n", ln, gpx_status_str(st)); return 1; }
				snprintf(name, sizeof(name), "%s%s-%s", enc[e].prefix, gpx_codec_name(c), ln);
				put("fuzz_validate", name, buf, len);
			}
		}

	/* fuzz_validate: version 2 with term frequencies ("v2tf-...") */
	for (int w = 0; w < NLISTS; w++) {
		static uint32_t tfs[4096];
		const char *ln;
		uint32_t n = make(w, docs, &ln);
		for (uint32_t i = 0; i < n; i++)
			tfs[i] = i % 7 == 3 ? 1 + i * 977u % 100000u : 1 + i % 3;
		for (int c = GPX_CODEC_MIN; c <= GPX_CODEC_MAX; c++) {
			size_t len;
			gpx_status st = gpx_encode_tf(c, docs, tfs, n, buf, sizeof(buf), &len);
			if (st != GPX_OK) { fprintf(stderr, "encode tf %s: %s\n", ln, gpx_status_str(st)); return 1; }
			snprintf(name, sizeof(name), "v2tf-%s-%s", gpx_codec_name(c), ln);
			put("fuzz_validate", name, buf, len);
		}
	}

	/* fuzz_encode, mode 0: raw uint32 values */
	for (int w = 0; w < NLISTS; w++) {
		const char *ln;
		uint32_t n = make(w, docs, &ln);
		size_t len = 0;
		buf[len++] = 0;
		for (uint32_t i = 0; i < n && len + 4 <= 4000; i++) {
			memcpy(buf + len, &docs[i], 4);		/* little-endian hosts */
			len += 4;
		}
		snprintf(name, sizeof(name), "raw-%s", ln);
		put("fuzz_encode", name, buf, len);
	}
	/* fuzz_encode, mode 1: start + gap bytes */
	{
		static const struct { const char *name; uint8_t mode; uint32_t start; int len; int kind; } g[] = {
			{ "gaps-run1", 1, 0, 1000, 0 },
			{ "gaps-small", 1, 5, 2000, 1 },
			{ "gaps-jumps", 1 | (16 << 3), 0, 1500, 2 },
			{ "gaps-top", 1 | (20 << 3), GPX_MAX_DOCID - 100000, 800, 2 },
			{ "gaps-sparse", 1 | (24 << 3), 0, 300, 3 },
		};
		for (size_t i = 0; i < sizeof(g) / sizeof(g[0]); i++) {
			unit_rng r = { 777 + i };
			size_t len = 0;
			buf[len++] = g[i].mode;
			memcpy(buf + len, &g[i].start, 4); len += 4;
			for (int j = 0; j < g[i].len; j++) {
				uint8_t b;
				switch (g[i].kind) {
				case 0: b = 0; break;
				case 1: b = (uint8_t) unit_below(&r, 8); break;
				case 2: b = unit_below(&r, 50) == 0 ? (uint8_t) (0xF0 + unit_below(&r, 16)) : (uint8_t) unit_below(&r, 0xF0); break;
				default: b = (uint8_t) (0xF0 + unit_below(&r, 16)); break;
				}
				buf[len++] = b;
			}
			put("fuzz_encode", g[i].name, buf, len);
		}
	}

	/* fuzz_intersect: k, codecs, ratio, then lists of (start, len, gaps) */
	for (int t = 0; t < 18; t++) {
		unit_rng r = { 4242 + (uint64_t) t };
		int k = 2 + t % 3;
		uint8_t b0 = (uint8_t) (k - 2) | (t % 2 ? 0x80 : (uint8_t) ((t & 0xF) << 3));
		size_t len = 0;
		buf[len++] = b0;
		buf[len++] = (uint8_t) (t * 37 + 11);		/* codec mix */
		buf[len++] = t % 4 == 3 ? (uint8_t) (1 + t) : 0;
		for (int j = 0; j < k; j++) {
			int L = t == 0 ? 0 : t == 1 && j == 0 ? 1 : (int) (20 + unit_below(&r, 1000 / (unsigned) k));
			uint16_t start = (uint16_t) (t % 5 == 0 ? 0 : unit_below(&r, 64));
			buf[len++] = (uint8_t) start; buf[len++] = (uint8_t) (start >> 8);
			buf[len++] = (uint8_t) L; buf[len++] = (uint8_t) (L >> 8);
			int dens = (int) unit_below(&r, 16);
			for (int i = 0; i < L; i++)
				buf[len++] = unit_below(&r, 200) == 0 ? (uint8_t) (0xE0 + unit_below(&r, 32))
					: (uint8_t) unit_below(&r, (uint64_t) dens + 1);
		}
		snprintf(name, sizeof(name), "k%d-%02d", k, t);
		put("fuzz_intersect", name, buf, len);
	}
	/* fuzz_setops: codecs, relation of b to a, then lists a, b, c */
	for (int t = 0; t < 18; t++) {
		unit_rng r = { 777 + (uint64_t) t };
		size_t len = 0;
		int nl = (t % 3 == 0) ? 3 : 2;		/* b derived from a: a, c only */

		buf[len++] = (uint8_t) (t * 13 + 5);			/* codec mix */
		buf[len++] = (uint8_t) (t % 3 == 0 ? 0 : t % 3) | (t % 2 ? 0x80 : 0x10);
		for (int j = 0; j < nl; j++) {
			int L = t == 0 && j == 0 ? 0 : (int) (10 + unit_below(&r, 1100 / (unsigned) nl));
			uint16_t start = (uint16_t) unit_below(&r, 200);
			int dens = (int) unit_below(&r, 16);

			buf[len++] = (uint8_t) start; buf[len++] = (uint8_t) (start >> 8);
			buf[len++] = (uint8_t) L; buf[len++] = (uint8_t) (L >> 8);
			for (int i = 0; i < L; i++)
				buf[len++] = unit_below(&r, 150) == 0 ? (uint8_t) (0xE0 + unit_below(&r, 32))
					: (uint8_t) unit_below(&r, (uint64_t) dens + 1);
		}
		snprintf(name, sizeof(name), "rel%d-%02d", t % 3, t);
		put("fuzz_setops", name, buf, len);
	}
	printf("gen_corpus: %d files under %s\n", nfiles, root);
	return 0;
}
