/*
 * fuzz_rank.c - libFuzzer harness: the input describes a small collection
 * (document lengths, some documents unknown), a query of 1..4 lists with
 * frequencies (tiny blocks, few distinct values: many ties), k, k1 and b.
 * Every OR algorithm must return exactly exhaustive scoring's answer
 * (docIDs, order, score bits), and ranked AND exactly a naive scorer's;
 * ranking must never fail on valid input.
 */
#include <math.h>

#include "fuzz_common.h"
#include "gpx_rank.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FR_SPAN 3000
#define FR_TERMS 4
#define FR_LIST 300

/* Naive AND: documents in every list, weights summed in query order. */
static uint32_t
naive_and(const gpx_rank_query *q, uint32_t *docs, double *scores)
{
	gpx_bm25 bm;
	gpx_topk top;
	const gpx_plist *t0 = q->terms[0];

	gpx_bm25_init(&bm, q->k1, q->b, q->doclen->ndocs, q->doclen->total);
	gpx_topk_init(&top, q->k, docs, scores);
	for (uint32_t i = 0; i < t0->n; i++) {
		uint32_t d = t0->docs[i];
		double s = 0.0, norm = gpx_bm25_norm(&bm, gpx_rank_dl(q->doclen, &bm, d));
		int all = 1;

		for (int j = 0; j < q->nterms && all; j++) {
			const gpx_plist *t = q->terms[j];
			uint32_t at = t->n;

			for (uint32_t x = 0; x < t->n; x++)
				if (t->docs[x] == d) { at = x; break; }
			if (at == t->n) { all = 0; break; }
			s += gpx_bm25_weight(&bm, gpx_bm25_idf(q->doclen->ndocs, t->n), t->tfs[at], norm);
		}
		if (all)
			gpx_topk_push(&top, d, s);
	}
	gpx_topk_finish(&top);
	return top.n;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fz_reader r = { data, size };
	static uint32_t entries[FR_SPAN];
	static uint32_t ldocs[FR_TERMS][FR_LIST], ltfs[FR_TERMS][FR_LIST];
	static uint8_t dlblob[GPX_DOCLEN_HEADER + FR_SPAN * 4];
	gpx_plist pl[FR_TERMS];
	const gpx_plist *terms[FR_TERMS];
	gpx_doclen dl;
	gpx_rank_query q;
	size_t dllen;
	int nterms = 1 + fz_u8(&r) % FR_TERMS;
	uint32_t k = 1 + fz_u8(&r) % 20, block = 1 + fz_u8(&r) % 16;
	uint32_t span = 1 + (fz_u8(&r) | (uint32_t) fz_u8(&r) << 8) % FR_SPAN;

	for (uint32_t d = 0; d < span; d++) {
		uint8_t b = fz_u8(&r);
		entries[d] = b % 7 == 0 ? 0 : 1 + b % 40;
	}
	entries[span - 1] = 10;
	if (gpx_doclen_encode(entries, span, dlblob, sizeof(dlblob), &dllen) != GPX_OK ||
		gpx_doclen_open(&dl, dlblob, dllen) != GPX_OK)
		FZ_FAIL("statistics");
	if (dl.total == 0)
		return 0;
	for (int t = 0; t < nterms; t++) {
		uint32_t n = fz_u8(&r) % FR_LIST, d = fz_u8(&r) % 8, m = 0;
		uint8_t alias = fz_u8(&r);

		if (t > 0 && alias % 5 == 0) {		/* a repeated term */
			terms[t] = terms[alias % t];
			continue;
		}
		for (uint32_t i = 0; i < n && d < span + 20; i++) {
			ldocs[t][m] = d;
			ltfs[t][m] = 1 + fz_u8(&r) % 5;
			m++;
			d += 1 + fz_u8(&r) % 9;
		}
		if (m > dl.ndocs)
			m = (uint32_t) dl.ndocs;
		if (gpx_plist_arrays(&pl[t], ldocs[t], ltfs[t], m, block) != GPX_OK)
			FZ_FAIL("plist");
		terms[t] = &pl[t];
	}
	q.terms = terms;
	q.nterms = nterms;
	q.doclen = &dl;
	q.k1 = (double) (fz_u8(&r) % 30) / 10.0;
	q.b = (double) (fz_u8(&r) % 11) / 10.0;
	q.k = k;

	uint32_t rd[20], gd[20];
	double rs[20], gs[20];
	uint32_t rn, gn;
	size_t ws = gpx_rank_or_work_size(nterms), wa = gpx_rank_and_work_size(&q);
	void *work = fz_alloc(ws > wa ? ws : wa);
	static const gpx_rank_algo algos[] = {GPX_RANK_MAXSCORE, GPX_RANK_BMM, GPX_RANK_BMW};

	if (gpx_rank_or(&q, GPX_RANK_EXHAUSTIVE, work, ws, rd, rs, &rn, NULL) != GPX_OK)
		FZ_FAIL("exhaustive failed");
	for (size_t a = 0; a < sizeof(algos) / sizeof(algos[0]); a++) {
		if (gpx_rank_or(&q, algos[a], work, ws, gd, gs, &gn, NULL) != GPX_OK)
			FZ_FAIL("algorithm %d failed", (int) algos[a]);
		FZ_REQUIRE(gn == rn && memcmp(gd, rd, gn * 4) == 0 && memcmp(gs, rs, gn * 8) == 0,
				   "algorithm %d differs from exhaustive", (int) algos[a]);
	}
	if (gpx_rank_and(&q, work, wa, gd, gs, &gn, NULL) != GPX_OK)
		FZ_FAIL("AND failed");
	rn = naive_and(&q, rd, rs);
	FZ_REQUIRE(gn == rn && memcmp(gd, rd, gn * 4) == 0 && memcmp(gs, rs, gn * 8) == 0,
			   "AND differs from the naive scorer");
	free(work);
	return 0;
}
