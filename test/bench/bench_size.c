/*
 * bench_size.c - the size figures of the three codecs on uniformly random
 * lists in [0, 2^24), as the codec issue states its acceptance:
 *
 *   - posting_qs beside the Elias-Fano size n * (2 + floor(log2(u/n))) bits
 *     plus its samples (the directory), and beside the exact Elias-Fano
 *     size n*b + (last >> b) + n bits plus samples;
 *   - posting_pfor against posting_qs at n = 10^6 (directory and block
 *     headers included);
 *   - posting_lrc for n = 100K .. 2M beside the VLDB 2011 paper's Table 5
 *     (17, 17, 17, 16, 15, 15 bits per docID for plain LRC).
 *
 * Whole blobs are measured (header, directory, payload), each list decoded
 * back and compared with its input.  Deterministic (fixed seed).  Prints
 * markdown; `make bench-size` writes it to docs/bench/size.md.
 *
 *   bench_size [--seed S]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpx_codec.h"
#include "gpx_ref.h"

#define UNIVERSE (1u << 24)

/*
 * Encode with one codec, check the round trip; returns the blob size and,
 * when front is not NULL, the bytes before the payload (header and
 * directory) in *front.
 */
static size_t
blob_size(int codec, const uint32_t *docs, uint32_t n, uint32_t *back,
		  size_t *front)
{
	size_t		cap = gpx_encode_bound(codec, n, docs[n - 1]),
				len;
	uint8_t    *buf = malloc(cap);
	gpx_list	l;

	if (gpx_encode(codec, docs, n, buf, cap, &len) != GPX_OK ||
		gpx_open(&l, buf, len) != GPX_OK)
	{
		fprintf(stderr, "bench_size: %s encode failed at n=%u\n",
				gpx_codec_name(codec), n);
		exit(1);
	}
	gpx_decode(&l, back);
	if (memcmp(back, docs, sizeof(uint32_t) * n) != 0)
	{
		fprintf(stderr, "bench_size: %s round trip differs at n=%u\n",
				gpx_codec_name(codec), n);
		exit(1);
	}
	if (front != NULL)
		*front = (size_t) (l.payload - l.base);
	free(buf);
	return len;
}

/* floor(log2(x)) for x >= 1. */
static uint32_t
floor_log2(uint64_t x)
{
	uint32_t	r = 0;

	while (x >>= 1)
		r++;
	return r;
}

int
main(int argc, char **argv)
{
	static const uint32_t sizes[] = {10000, 100000, 200000, 400000, 800000,
	1000000, 2000000};
	static const int table5[] = {0, 17, 17, 17, 16, 15, 15};
	uint64_t	seed = 20261121;
	ref_rng		r;
	uint32_t   *docs = malloc(sizeof(uint32_t) * 2000000);
	uint32_t   *back = malloc(sizeof(uint32_t) * 2000000);
	size_t		i;

	if (argc == 3 && strcmp(argv[1], "--seed") == 0)
		seed = strtoull(argv[2], NULL, 10);
	r.s = seed;
	printf("Uniformly random lists in [0, 2^24), seed %llu; bits per docID of the whole blob\n"
		   "(header + directory + payload, format %d).  `EF formula` is n * (2 + floor(log2(u/n)))\n"
		   "bits plus the samples (qs's header and directory, 8 bytes per 256 docIDs); `EF exact` is\n"
		   "n*b + (last >> b) + n bits plus the same.  Table 5 is the VLDB 2011 paper's plain LRC.\n\n",
		   (unsigned long long) seed, GPX_FORMAT_VERSION);
	printf("| n | pfor | lrc | qs | EF formula | qs / EF formula | EF exact | qs / EF exact | pfor / qs | Table 5 (LRC) | lrc below it |\n");
	printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
	{
		uint32_t	n = sizes[i];
		size_t		pf,
					lr,
					qs,
					qs_front;
		uint32_t	u,
					b;
		double		samples_bits,
					ef_formula,
					ef_exact;

		ref_uniform_sample(&r, n, UNIVERSE, docs);
		pf = blob_size(GPX_CODEC_PFOR, docs, n, back, NULL);
		lr = blob_size(GPX_CODEC_LRC, docs, n, back, NULL);
		qs = blob_size(GPX_CODEC_QS, docs, n, back, &qs_front);
		u = docs[n - 1] + 1;
		b = u / n >= 2 ? floor_log2(u / n) : 0;
		samples_bits = 8.0 * (double) qs_front;	/* header and directory */
		ef_formula = (double) n * (2 + floor_log2((uint64_t) UNIVERSE / n)) + samples_bits;
		ef_exact = (double) n * b + (docs[n - 1] >> b) + n + samples_bits;
		printf("| %u | %.3f | %.3f | %.3f | %.3f | %.4f | %.3f | %.4f | %.4f | ",
			   n, 8.0 * pf / n, 8.0 * lr / n, 8.0 * qs / n, ef_formula / n,
			   8.0 * qs / ef_formula, ef_exact / n, 8.0 * qs / ef_exact,
			   (double) pf / qs);
		if (table5[i])
			printf("%d | %s |\n", table5[i], 8.0 * lr / n < table5[i] ? "yes" : "NO");
		else
			printf("- | - |\n");
	}
	free(docs);
	free(back);
	return 0;
}
