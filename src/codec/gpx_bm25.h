/*
 * gpx_bm25.h - the exact BM25 of gpuidx's ranked queries (header only, so
 * the C library, the executor's threads and CUDA kernels compute the same
 * bits).  docs/RANKING.md states the same definition for users.
 *
 * For a query of m terms t_1 .. t_m (in the order written; a repeated term
 * is repeated here), a collection of N documents of total length L and a
 * document d of length dl(d):
 *
 *   avgdl    = L / N                                  (float8 division)
 *   idf(t)   = ln(1 + (N - df(t) + 0.5) / (df(t) + 0.5))
 *   norm(d)  = k1 * (1 - b + b * dl(d) / avgdl)
 *   w(t, d)  = idf(t) * tf(t, d) * (k1 + 1) / (tf(t, d) + norm(d))
 *   score(d) = w(t_1, d) + w(t_2, d) + ... + w(t_m, d)
 *
 * where df(t) is the length of t's posting list, tf(t, d) >= 1 its
 * frequency in d (1 for every posting of a list stored without
 * frequencies), and a term d does not hold adds nothing.  Every value is
 * an IEEE-754 double (SQL float8), every operation one correctly rounded
 * double operation, evaluated left to right exactly as written, with C's
 * (and SQL's) precedence:
 *
 *   avgdl   = (double) L / (double) N
 *   idf     = log(1.0 + ((((double) N - (double) df) + 0.5) / ((double) df + 0.5)))
 *   norm    = k1 * ((1.0 - b) + ((b * dl) / avgdl))
 *   w       = ((idf * tf) * (k1 + 1.0)) / (tf + norm)
 *   score   = ((0.0 + w_1) + w_2) + ... + w_m    (query-term order; an
 *             absent term's w is skipped, which is the same as adding 0)
 *
 * log is the C library's natural logarithm (what SQL ln(float8) calls).
 * idf is the only transcendental step: it is computed once per query term,
 * on the host (gpx_bm25_idf), and handed to any device as a double, so the
 * GPU never evaluates log.  The other steps are +, *, / on doubles; no
 * step may be fused (a * b + c as one FMA rounds once and changes bits):
 * the device variants below use the _rn intrinsics, which nvcc never
 * contracts, and the C build passes -ffp-contract=off.
 *
 * A document the collection statistics do not know (its docID outside
 * them, or marked absent) is scored with dl = avgdl.  Parameters: k1 >= 0
 * and finite, 0 <= b <= 1; then norm >= 0 and tf + norm >= 1, so no
 * division by zero, no NaN, every w > 0 when idf > 0 (df <= N).
 */
#ifndef GPX_BM25_H
#define GPX_BM25_H

#include <math.h>
#include <stdint.h>

#include "gpx_bits.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GPX_BM25_K1_DEFAULT 0.9
#define GPX_BM25_B_DEFAULT 0.4

/* The per-query constants of the formula (gpx_bm25_init). */
typedef struct gpx_bm25
{
	double		k1;
	double		b;
	double		avgdl;			/* L / N */
	double		k1p1;			/* k1 + 1.0 */
	double		omb;			/* 1.0 - b */
} gpx_bm25;

/* One double operation each, never contracted with a neighbour. */
#ifdef __CUDA_ARCH__
#define GPX_DADD(a, b) __dadd_rn((a), (b))
#define GPX_DSUB(a, b) __dsub_rn((a), (b))
#define GPX_DMUL(a, b) __dmul_rn((a), (b))
#define GPX_DDIV(a, b) __ddiv_rn((a), (b))
#else
#define GPX_DADD(a, b) ((a) + (b))
#define GPX_DSUB(a, b) ((a) - (b))
#define GPX_DMUL(a, b) ((a) * (b))
#define GPX_DDIV(a, b) ((a) / (b))
#endif

/*
 * Fill p for parameters k1, b and a collection of ndocs documents of total
 * length total_len (ndocs >= 1; the caller checks the parameters).
 */
GPX_HD void
gpx_bm25_init(gpx_bm25 *p, double k1, double b, uint64_t ndocs,
			  uint64_t total_len)
{
	p->k1 = k1;
	p->b = b;
	p->avgdl = GPX_DDIV((double) total_len, (double) ndocs);
	p->k1p1 = GPX_DADD(k1, 1.0);
	p->omb = GPX_DSUB(1.0, b);
}

/* norm(d) = k1 * ((1 - b) + ((b * dl) / avgdl)). */
GPX_HD double
gpx_bm25_norm(const gpx_bm25 *p, double dl)
{
	return GPX_DMUL(p->k1, GPX_DADD(p->omb, GPX_DDIV(GPX_DMUL(p->b, dl), p->avgdl)));
}

/* w = ((idf * tf) * (k1 + 1)) / (tf + norm). */
GPX_HD double
gpx_bm25_weight(const gpx_bm25 *p, double idf, uint32_t tf, double norm)
{
	double		t = (double) tf;

	return GPX_DDIV(GPX_DMUL(GPX_DMUL(idf, t), p->k1p1), GPX_DADD(t, norm));
}

#ifndef __CUDA_ARCH__
/*
 * idf of a term of document frequency df in ndocs documents (host only:
 * the device receives it).  Finite for every df and ndocs; positive when
 * df <= ndocs.
 */
static inline double
gpx_bm25_idf(uint64_t ndocs, uint64_t df)
{
	return log(1.0 + ((((double) ndocs - (double) df) + 0.5) / ((double) df + 0.5)));
}
#endif

#ifdef __cplusplus
}
#endif

#endif							/* GPX_BM25_H */
