/*
 * gen_tf.h - the term-frequency and document-length model of gpx_gen --tf
 * (GOV2-calibrated, like the rest of the generator).  Everything is a pure
 * function of (seed, term rank, original docID, site), so the clustered
 * and the random order of one seed are the same collection relabelled, and
 * the docID outputs do not change when --tf is given.
 *
 * Document length (tokens, BM25's dl), per original document d:
 *   dl0(d) ~ log-normal with mean GEN_TF_AVGDL and log-sd GEN_TF_SIGMA_DL,
 *   dl(d)  = max(dl0(d), sum of the generated tfs of d) (never shorter
 *            than the occurrences it holds).
 * Term frequency of term t (df documents of N) in document d of site s:
 *   tf - 1 ~ geometric with mean  m(t) * f(t, s) * dl0(d) / GEN_TF_AVGDL,
 *   m(t)   = GEN_TF_SCALE * (df / N)^GEN_TF_EXP   (frequent terms repeat
 *            more: the burstiness of Church and Gale grows with df),
 *   f(t,s) ~ log-normal of mean 1 and log-sd GEN_TF_SIGMA_SITE, one per
 *            (term, site): pages of one site share a template and repeat a
 *            term alike, so frequencies are locally similar in crawl order
 *            and not in random order, as docIDs are;
 *   capped at dl0(d) (and 2^31-1).  The mixture of geometrics over dl0 and
 *   f gives the heavy tail of real frequencies.
 *
 * Where the numbers come from:
 * - GEN_TF_AVGDL 1457.4: no token count of GOV2 itself is in our sources;
 *   this is its predecessor crawl of the same .gov domain, TREC .GOV (TREC
 *   Web 2002): 1,770,120,644 tokens in 1,214,592 documents (Information
 *   Retrieval Journal 21(6):565-596, 2018, doi 10.1007/s10791-018-9334-1,
 *   Table 2).  BM25 reads only dl / avgdl, so the shape matters more.
 * - GEN_TF_SIGMA_DL 1.1: the log-sd of document lengths measured on the
 *   PostgreSQL 15 HTML documentation (1,169 pages, english stop words out:
 *   1.08), a web-page collection; the Linux source sample gives 1.58
 *   (source files vary more than pages).
 * - GEN_TF_EXP 0.22: the slope of log(mean(tf - 1)) over log(df / N)
 *   measured on the PostgreSQL documentation (mean tf - 1 from 0.77 at
 *   df/N = 2^-11 to 3.5 at 2^-1, ten doublings, a factor 4.6).
 * - GEN_TF_SCALE 15 and GEN_TF_SIGMA_SITE 2.6: calibrated on what
 *   Simple-8b (tf - 1, blocks of 128, left-greedy) spends on the real GOV2
 *   index: 4.63 bits per frequency in random docID order and 3.27 in URL
 *   order (Mallia, Siedlaczek, Suel, ECIR 2019, Table 2: PISA, GOV2's
 *   5,742,630,292 postings).  test/bench/bench_tf.c on gpx_gen --scale 0.02
 *   --queries 1000 --extra 500 --seed 1 --tf gives 4.64 in random order and
 *   3.43 in clustered (crawl) order.  A check from two other sources: the
 *   mean tf per posting must be tokens per document over distinct terms
 *   per document, 1457.4 / 305.0 = 4.8 (distinct terms per GOV2 document:
 *   7,688,185,119 postings over 25,205,179 documents, Trotman et al., ICTIR
 *   2015, seed 002) to 1457.4 / 233.2 = 6.2 (Mallia et al.'s 5,742,630,292
 *   over 24,622,347); the model gives 5.45.  The share of tf = 1 that comes
 *   out, 75 %, is above the 58-59 % of the two small real-text corpora
 *   here (PostgreSQL docs 58.8 %, Linux sample 57.8 %, mean tf 2.75 and
 *   4.0): GOV2 has no published share in our sources, and its
 *   site-duplicated pages repeat rare terms alike.
 */
#ifndef GPX_GEN_TF_H
#define GPX_GEN_TF_H

#include "gen_common.h"

#define GEN_TF_AVGDL		1457.4
#define GEN_TF_SIGMA_DL		1.1
#define GEN_TF_SCALE		15.0
#define GEN_TF_EXP			0.22
#define GEN_TF_SIGMA_SITE	2.6

/* RNG streams of the model (distinct from gpx_gen's own, 1..8). */
enum
{
	GEN_S_DLEN = 101, GEN_S_TF, GEN_S_TFSITE
};

/* The model's parameters (gpx_gen options). */
typedef struct gen_tf_model
{
	double		avgdl;			/* mean document length (tokens) */
	double		sigma_dl;		/* log-sd of document lengths */
	double		scale;			/* mean tf - 1 of a term in every document */
	double		exp;			/* growth of mean tf - 1 with df / N */
	double		sigma_site;		/* log-sd of the per-(term, site) factor */
} gen_tf_model;

/* Base length dl0 of original document d (>= 1). */
static inline uint32_t
gen_tf_doclen(const gen_tf_model *m, uint64_t seed, uint32_t d)
{
	gen_rng		r = gen_stream(seed, GEN_S_DLEN, d);
	double		x = floor(gen_lognormal_mean(&r, m->avgdl, m->sigma_dl) + 0.5);

	return x < 1.0 ? 1 : (x > 2147483647.0 ? 2147483647u : (uint32_t) x);
}

/* m(t): mean tf - 1 of a term of document frequency df among ndocs. */
static inline double
gen_tf_term_mean(const gen_tf_model *m, uint32_t df, uint32_t ndocs)
{
	return m->scale * pow((double) df / (double) ndocs, m->exp);
}

/* f(t, s): the factor of term `rank` in site `site` (mean 1). */
static inline double
gen_tf_site_factor(const gen_tf_model *m, uint64_t seed, uint32_t rank, uint32_t site)
{
	gen_rng		r = gen_stream(seed, GEN_S_TFSITE, ((uint64_t) rank << 32) | site);

	return gen_lognormal_mean(&r, 1.0, m->sigma_site);
}

/*
 * tf of term `rank` in original document d: 1 + geometric of mean lambda,
 * at most cap (>= 1).
 */
static inline uint32_t
gen_tf_draw(uint64_t seed, uint32_t rank, uint32_t d, double lambda, uint32_t cap)
{
	gen_rng		r = gen_stream(seed, GEN_S_TF, ((uint64_t) rank << 32) | d);
	double		u = 1.0 - gen_unit(&r),	/* (0, 1] */
				p,
				j;

	if (!(lambda > 0))
		return 1;
	p = lambda / (1.0 + lambda);
	j = floor(log(u) / log(p));
	if (!(j < (double) cap - 1.0))
		return cap;
	return 1 + (uint32_t) j;
}

#endif							/* GPX_GEN_TF_H */
