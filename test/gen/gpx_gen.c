/*
 * gpx_gen.c - a synthetic posting-list collection calibrated on GOV2 and on
 * the query statistics of Ao et al., VLDB 2011, Table 4.
 *
 *   gpx_gen --scale 0.01 --queries 1000 --seed 1 --order clustered --out DIR
 *
 * writes PostgreSQL COPY text files into DIR:
 *   terms.copy     term_id, df               terms(term_id int, df int)
 *   postings.copy  term_id, {docIDs}         postings_raw(term_id int, docs int4[])
 *   queries.copy   qid, {term_ids}           queries(qid int, term_ids int[])
 *   answers.copy   qid, count, hash          answers(qid int, n int, hash bigint)
 *   docs.copy      doc_id, {term_ids}        docs(doc_id int, terms int[])  (--docs)
 *   tfs.copy       term_id, {tfs}            one frequency per docID of the term's
 *                                            postings line, same order   (--tf)
 *   doclens.copy   doc_id, length            doclens(doc_id int, len int),
 *                                            every doc_id 0..ndocs-1      (--tf)
 *   stats.txt      key=value statistics of what was generated (also on stdout)
 *
 * The model (docs/BENCHMARKS.md explains it at length):
 * - ndocs = round(25,205,179 * scale) documents.
 * - A Zipf vocabulary: the term of rank r (its term_id) occurs in
 *   df(r) = round(top * ndocs / r^alpha) documents.  Only the terms the
 *   query log uses plus --extra terms (ranks drawn log-uniformly in df) are
 *   materialised: a whole GOV2 index would be billions of postings.
 * - Query lengths k = 2..6 in Table 4's proportions (16.1 / 24.5 / 22.8 /
 *   14.8 / 8.24 %, renormalised to 100 %: the rest of the T06 log is not in
 *   the table), apportioned exactly and shuffled.
 * - A k-term query draws its shortest list length l1 from a log-normal whose
 *   mean is Table 4's stage-1 length (8.0-8.7K) times scale; the draws are
 *   stratified (evenly spaced quantiles, shuffled, rescaled to the exact
 *   mean) so that even a small log has Table 4's mean.  Table 4's R
 *   at stage x is |l1 ^ .. ^ lx| / |l(x+1)|, averaged over queries; so the
 *   next list is l2 = l1 / R1 and l(x+1) = L(x) / Rx for x >= 2, where L(x)
 *   is Table 4's mean running-intersection length at stage x (times scale)
 *   and each R is drawn from a log-normal whose mean is Table 4's R.  Each
 *   length is mapped to a vocabulary rank with that df, so long lists are
 *   shared between queries as in a real log.
 * - Correlation: Table 4's running intersections are far larger than
 *   independent terms would give.  Lists are generated shortest first, and a
 *   term at position j of a query receives ("plants") a random fraction of
 *   the query's running intersection so far, the fraction being Table 4's
 *   stage-to-stage ratio; the rest of its documents are drawn at random.
 * - Order: clustered (crawl order: documents come in sites, runs of
 *   consecutive docIDs, and a term's documents concentrate in some sites)
 *   or random (the same collection with docIDs relabelled by a random
 *   permutation: the VLDB paper's GOV vs GOVR).
 * - Frequencies and document lengths (--tf): gen_tf.h, with the sources of
 *   its numbers.  They are drawn after the docIDs from their own RNG
 *   streams, so the other files are the same bytes with or without --tf.
 * Everything is a function of the options: the same seed gives the same
 * bytes, on any machine.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <time.h>

#include "gen_common.h"
#include "gen_tf.h"

#define GEN_VERSION 1
#define MAXK 6
#define MINK 2

/* RNG streams (one per purpose, so changing one part leaves the others) */
enum
{
	S_QLEN = 1, S_QUERY, S_EXTRA, S_SITES, S_TERM, S_PLANT, S_PERM, S_SHOW
};

/* Table 4 of Ao et al.: share (%) of k-term queries, k = 2..6. */
static const double t4_pct[5] = {16.1, 24.5, 22.8, 14.8, 8.24};

/* Table 4: mean running-intersection length (K docIDs) at stage x = 1..k-1. */
static const double t4_len[5][5] = {
	{8.6},
	{8.7, 2.0},
	{8.4, 1.6, 0.8},
	{8.0, 1.5, 0.6, 0.5},
	{8.0, 1.5, 0.6, 0.4, 0.4}};

/* Table 4: R (%) = |l1 ^ .. ^ lx| / |l(x+1)| at stage x = 1..k-1. */
static const double t4_R[5][5] = {
	{13.6},
	{23.1, 0.97},
	{28.6, 1.76, 0.22},
	{32.0, 2.38, 0.35, 0.087},
	{34.4, 2.82, 0.50, 0.13, 0.054}};

typedef struct gen_opts
{
	double		scale;			/* ndocs = 25,205,179 * scale; lengths scale too */
	uint64_t	seed;
	int			nqueries;
	int			nextra;			/* extra vocabulary terms */
	bool		random_order;	/* GOVR-like relabelled docIDs */
	double		alpha;			/* Zipf exponent of df over rank */
	double		top;			/* df of rank 1 as a fraction of ndocs */
	double		sigma_short;	/* log-sd of the shortest list length */
	double		sigma_ratio;	/* log-sd of the ratios R */
	double		cluster;		/* share of a term's free docs in its hot sites */
	double		site_mean;		/* mean documents per site */
	bool		emit_docs;
	bool		emit_tf;		/* frequencies and document lengths */
	gen_tf_model tfm;
	bool		quiet;
	const char *outdir;
} gen_opts;

typedef struct gterm
{
	uint32_t	rank;			/* = term_id */
	uint32_t	df;
	uint32_t   *docs;			/* sorted docIDs, df of them */
	uint32_t   *tfs;			/* --tf: tfs[i] is the frequency in docs[i] */
	uint32_t	occ_start;		/* occurrences in occ[] (CSR) */
	uint32_t	occ_count;
	bool		in_query;
} gterm;

typedef struct gquery
{
	int			k;
	double		l1_factor;		/* shortest length / its class mean */
	uint32_t	term[MAXK];		/* term indexes, sorted by (df, rank) */
	uint32_t	len[MAXK];		/* df of each position */
	uint32_t	stage[MAXK];	/* |intersection of positions 0..x| */
	uint32_t   *cur;			/* running intersection */
	uint32_t	cur_n;
	int			done;			/* positions intersected so far */
	uint64_t	hash;			/* FNV of the final result (output IDs) */
} gquery;

typedef struct gen_state
{
	gen_opts	o;
	uint32_t	ndocs;
	double		top_df;			/* df of rank 1 */
	uint32_t	vocab;			/* largest rank with df >= 1 */
	double		mean_short[5];	/* target mean shortest length, k-term, scale 1 */
	double		keep[5][MAXK];	/* planted fraction at position j, k-term */
	gterm	   *terms;
	uint32_t	nterms,
				cap_terms;
	uint32_t   *hash_slots;		/* rank -> term index + 1 (open addressing) */
	uint32_t	hash_mask;
	gquery	   *queries;
	uint64_t   *occ;			/* (query << 3 | pos) per occurrence */
	uint32_t	nsites;
	uint32_t   *site_start;		/* nsites + 1 boundaries */
	uint64_t	total_postings;
	uint64_t	out_fnv;		/* FNV-1a of every byte written */
	uint32_t   *perm;			/* --tf, random order: original -> output docID */
	uint32_t   *doclen;			/* --tf: dl per output docID */
} gen_state;

/* Print a message and exit with status 2. */
static void
die(const char *msg, const char *arg)
{
	fprintf(stderr, "gpx_gen: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
	exit(2);
}

/* malloc that exits on failure. */
static void *
xmalloc(size_t n)
{
	void	   *p = malloc(n ? n : 1);

	if (p == NULL)
		die("out of memory", NULL);
	return p;
}

/* Progress line on stderr, unless --quiet. */
static void
progress(const gen_state *g, const char *fmt, double a)
{
	if (!g->o.quiet)
	{
		fprintf(stderr, "gpx_gen: ");
		fprintf(stderr, fmt, a);
		fputc('\n', stderr);
	}
}

/* Derive the per-position target lengths and planted fractions from Table 4. */
static void
derive_targets(gen_state *g)
{
	for (int ki = 0; ki < 5; ki++)
	{
		int			k = ki + MINK;

		g->mean_short[ki] = t4_len[ki][0] * 1000.0;
		g->keep[ki][0] = 1.0;
		for (int x = 1; x < k; x++)
		{
			if (x < k - 1)
				g->keep[ki][x] = t4_len[ki][x] / t4_len[ki][x - 1];
			else if (ki + 1 < 5)	/* last stage: the (k+1)-term row's */
				g->keep[ki][x] = t4_len[ki + 1][x] / t4_len[ki + 1][x - 1];
			else
				g->keep[ki][x] = g->keep[ki][x - 1];
		}
	}
}

/* df of the vocabulary term of rank r (Zipf). */
static uint32_t
df_of_rank(const gen_state *g, uint32_t r)
{
	double		d = floor(g->top_df / pow((double) r, g->o.alpha) + 0.5);

	return d < 1.0 ? 1 : (uint32_t) d;
}

/* Rank whose df is x: (top / x)^(1/alpha), clamped to [1, vocab]. */
static double
rank_for(const gen_state *g, double x)
{
	double		r = pow(g->top_df / x, 1.0 / g->o.alpha);

	if (r < 1.0)
		r = 1.0;
	if (r > g->vocab)
		r = g->vocab;
	return r;
}

/*
 * A vocabulary rank for a target df x: x is rounded stochastically to an
 * integer d, then a rank is drawn uniformly among those whose df is d (or
 * the nearest rank when no rank has exactly that df).
 */
static uint32_t
pick_rank(const gen_state *g, double x, gen_rng *r)
{
	double		d;
	uint32_t	lo,
				hi;

	if (x >= g->top_df)
		return 1;
	if (x < 1.0)
		x = 1.0;
	d = floor(x);
	if (gen_unit(r) < x - d)
		d += 1.0;
	lo = (uint32_t) floor(rank_for(g, d + 0.5)) + 1;
	hi = (uint32_t) floor(rank_for(g, d - 0.5));
	if (hi > g->vocab)
		hi = g->vocab;
	while (lo > 1 && df_of_rank(g, lo - 1) == (uint32_t) d)
		lo--;
	while (lo <= hi && df_of_rank(g, lo) != (uint32_t) d)
		lo++;
	while (hi >= lo && df_of_rank(g, hi) != (uint32_t) d)
		hi--;
	if (lo > hi || lo == 0)
		return (uint32_t) floor(rank_for(g, x) + 0.5);
	return lo + (uint32_t) gen_below(r, (uint64_t) hi - lo + 1);
}

/* Index of the term with this rank, or -1. */
static int64_t
term_find(const gen_state *g, uint32_t rank)
{
	uint32_t	h = (uint32_t) (gen_mix(rank, 7, 7) & g->hash_mask);

	for (;;)
	{
		uint32_t	v = g->hash_slots[h];

		if (v == 0)
			return -1;
		if (g->terms[v - 1].rank == rank)
			return v - 1;
		h = (h + 1) & g->hash_mask;
	}
}

/* Index of the term with this rank, materialising it if new. */
static uint32_t
term_get(gen_state *g, uint32_t rank)
{
	int64_t		i = term_find(g, rank);
	uint32_t	h;

	if (i >= 0)
		return (uint32_t) i;
	if (g->nterms == g->cap_terms)
	{
		g->cap_terms *= 2;
		g->terms = realloc(g->terms, sizeof(gterm) * g->cap_terms);
		if (g->terms == NULL)
			die("out of memory", NULL);
	}
	if ((uint64_t) (g->nterms + 1) * 2 > (uint64_t) g->hash_mask + 1)
	{
		/* grow and rehash */
		uint32_t	nmask = g->hash_mask * 2 + 1;

		free(g->hash_slots);
		g->hash_slots = calloc((size_t) nmask + 1, sizeof(uint32_t));
		if (g->hash_slots == NULL)
			die("out of memory", NULL);
		g->hash_mask = nmask;
		for (uint32_t t = 0; t < g->nterms; t++)
		{
			h = (uint32_t) (gen_mix(g->terms[t].rank, 7, 7) & nmask);
			while (g->hash_slots[h])
				h = (h + 1) & nmask;
			g->hash_slots[h] = t + 1;
		}
	}
	memset(&g->terms[g->nterms], 0, sizeof(gterm));
	g->terms[g->nterms].rank = rank;
	g->terms[g->nterms].df = df_of_rank(g, rank);
	h = (uint32_t) (gen_mix(rank, 7, 7) & g->hash_mask);
	while (g->hash_slots[h])
		h = (h + 1) & g->hash_mask;
	g->hash_slots[h] = g->nterms + 1;
	return g->nterms++;
}

/* Inverse of the standard normal CDF (Acklam's rational approximation). */
static double
norm_quantile(double p)
{
	static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
		-2.759285104469687e+02, 1.383577518672690e+02, -3.066479806614716e+01,
	2.506628277459239e+00};
	static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
		-1.556989798598866e+02, 6.680131188771972e+01, -1.328068155288572e+01};
	static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
		-2.400758277161838e+00, -2.549671035006150e+00, 4.374664141464968e+00,
	2.938163982698783e+00};
	static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01,
	2.445134137142996e+00, 3.754408661907416e+00};
	double		q,
				r;

	if (p < 0.02425)
	{
		q = sqrt(-2 * log(p));
		return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
			((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
	}
	if (p > 1 - 0.02425)
		return -norm_quantile(1 - p);
	q = p - 0.5;
	r = q * q;
	return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
		(((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

/*
 * Query lengths in Table 4's proportions (largest remainder), shuffled; and
 * for each length class, stratified log-normal factors of mean exactly 1
 * for the shortest list lengths.
 */
static void
assign_query_lengths(gen_state *g)
{
	double		tot = 0,
				rem[5];
	int			cnt[5],
				given = 0,
				q = 0;
	gen_rng		r = gen_stream(g->o.seed, S_QLEN, 0);
	double	   *w = xmalloc(sizeof(double) * (size_t) g->o.nqueries);

	for (int i = 0; i < 5; i++)
		tot += t4_pct[i];
	for (int i = 0; i < 5; i++)
	{
		double		want = g->o.nqueries * t4_pct[i] / tot;

		cnt[i] = (int) floor(want);
		rem[i] = want - cnt[i];
		given += cnt[i];
	}
	while (given < g->o.nqueries)
	{
		int			best = 0;

		for (int i = 1; i < 5; i++)
			if (rem[i] > rem[best])
				best = i;
		cnt[best]++;
		rem[best] = -1;
		given++;
	}
	for (int i = 0; i < 5; i++)
		for (int j = 0; j < cnt[i]; j++)
			g->queries[q++].k = i + MINK;
	for (int i = g->o.nqueries - 1; i > 0; i--)
	{
		int			j = (int) gen_below(&r, (uint64_t) i + 1),
					t = g->queries[i].k;

		g->queries[i].k = g->queries[j].k;
		g->queries[j].k = t;
	}
	for (int i = 0; i < 5; i++)
	{
		double		sum = 0;
		int			n = cnt[i];

		if (n == 0)
			continue;
		for (int j = 0; j < n; j++)
		{
			w[j] = exp(g->o.sigma_short * norm_quantile((j + 0.5) / n));
			sum += w[j];
		}
		for (int j = n - 1; j > 0; j--)
		{
			int			m = (int) gen_below(&r, (uint64_t) j + 1);
			double		t = w[j];

			w[j] = w[m];
			w[m] = t;
		}
		for (int qq = 0, j = 0; qq < g->o.nqueries; qq++)
			if (g->queries[qq].k == i + MINK)
				g->queries[qq].l1_factor = w[j++] * n / sum;
	}
	free(w);
}

/* Draw the terms of query q: a chain of lengths mapped to distinct ranks. */
static void
draw_query(gen_state *g, uint32_t q)
{
	gquery	   *Q = &g->queries[q];
	int			ki = Q->k - MINK;
	gen_rng		r = gen_stream(g->o.seed, S_QUERY, q);
	uint32_t	ranks[MAXK];
	double		l1 = g->mean_short[ki] * g->o.scale * Q->l1_factor;

	for (int j = 0; j < Q->k; j++)
	{
		double		x = l1;
		uint32_t	rk;
		bool		clash;

		if (j > 0)
		{
			/* |l(j+1)| = (running intersection at stage j) / R(j) */
			double		R = gen_lognormal_mean(&r, t4_R[ki][j - 1] / 100.0,
											   g->o.sigma_ratio);

			if (j == 1)
				x = l1 / (R > 0.95 ? 0.95 : R);
			else
				x = t4_len[ki][j - 1] * 1000.0 * g->o.scale / (R > 1.0 ? 1.0 : R);
		}
		rk = pick_rank(g, x, &r);
		/* distinct terms within a query: nearest unused rank */
		for (uint32_t step = 1;; step++)
		{
			clash = false;
			for (int i = 0; i < j; i++)
				if (ranks[i] == rk)
					clash = true;
			if (!clash)
				break;
			rk = (step & 1) ? rk + step : (rk > step ? rk - step : rk + step);
			if (rk == 0 || rk > g->vocab)
				rk = 1 + (uint32_t) gen_below(&r, g->vocab);
		}
		ranks[j] = rk;
	}
	for (int j = 0; j < Q->k; j++)
	{
		Q->term[j] = term_get(g, ranks[j]);
		g->terms[Q->term[j]].in_query = true;
	}
}

/* Order two term indexes by (df, rank). */
static int
term_less(const gen_state *g, uint32_t a, uint32_t b)
{
	const gterm *x = &g->terms[a],
			   *y = &g->terms[b];

	if (x->df != y->df)
		return x->df < y->df;
	return x->rank < y->rank;
}

static const gen_state *sort_ctx;

/* qsort comparator: term indexes by (df, rank). */
static int
cmp_term_idx(const void *a, const void *b)
{
	uint32_t	x = *(const uint32_t *) a,
				y = *(const uint32_t *) b;

	if (x == y)
		return 0;
	return term_less(sort_ctx, x, y) ? -1 : 1;
}

/* Sort each query's terms by (df, rank) and build the occurrence index. */
static void
index_occurrences(gen_state *g)
{
	uint64_t	total = 0;

	for (uint32_t q = 0; q < (uint32_t) g->o.nqueries; q++)
	{
		gquery	   *Q = &g->queries[q];

		for (int i = 1; i < Q->k; i++)	/* insertion sort, k <= 6 */
			for (int j = i; j > 0 && term_less(g, Q->term[j], Q->term[j - 1]); j--)
			{
				uint32_t	t = Q->term[j];

				Q->term[j] = Q->term[j - 1];
				Q->term[j - 1] = t;
			}
		for (int j = 0; j < Q->k; j++)
		{
			Q->len[j] = g->terms[Q->term[j]].df;
			g->terms[Q->term[j]].occ_count++;
		}
		total += Q->k;
	}
	g->occ = xmalloc(sizeof(uint64_t) * (total + 1));
	total = 0;
	for (uint32_t t = 0; t < g->nterms; t++)
	{
		g->terms[t].occ_start = (uint32_t) total;
		total += g->terms[t].occ_count;
		g->terms[t].occ_count = 0;
	}
	for (uint32_t q = 0; q < (uint32_t) g->o.nqueries; q++)
		for (int j = 0; j < g->queries[q].k; j++)
		{
			gterm	   *t = &g->terms[g->queries[q].term[j]];

			g->occ[t->occ_start + t->occ_count++] = ((uint64_t) q << 3) | (uint64_t) j;
		}
}

/* Split [0, ndocs) into sites (runs of docIDs) with log-normal sizes. */
static void
make_sites(gen_state *g)
{
	gen_rng		r = gen_stream(g->o.seed, S_SITES, 0);
	uint32_t	cap = 1024,
				pos = 0;

	g->site_start = xmalloc(sizeof(uint32_t) * cap);
	g->nsites = 0;
	while (pos < g->ndocs)
	{
		double		sz = gen_lognormal_mean(&r, g->o.site_mean, 1.5);
		uint32_t	n = sz < 1.0 ? 1 : (sz > g->ndocs ? g->ndocs : (uint32_t) sz);

		if (g->nsites + 2 > cap)
		{
			cap *= 2;
			g->site_start = realloc(g->site_start, sizeof(uint32_t) * cap);
			if (g->site_start == NULL)
				die("out of memory", NULL);
		}
		g->site_start[g->nsites++] = pos;
		pos = (g->ndocs - pos <= n) ? g->ndocs : pos + n;
	}
	g->site_start[g->nsites] = g->ndocs;
}

/* Site containing doc d (binary search over the boundaries). */
static uint32_t
site_of(const gen_state *g, uint32_t d)
{
	uint32_t	lo = 0,
				hi = g->nsites;

	while (hi - lo > 1)
	{
		uint32_t	mid = (lo + hi) / 2;

		if (g->site_start[mid] <= d)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* Scratch space of the list generator. */
typedef struct gen_scratch
{
	uint64_t   *bits;			/* ndocs bits: docs already in the list */
	uint32_t   *list;			/* docs added, unsorted */
	uint32_t   *tmp;			/* radix sort buffer */
	uint32_t	cap;
	uint8_t    *site_mark;
	uint32_t   *hot;			/* chosen sites */
	uint64_t   *hot_cum;		/* cumulative sizes of chosen sites */
} gen_scratch;

/* Add doc d to the list being built unless present; true if added. */
static inline bool
add_doc(gen_scratch *s, uint32_t *n, uint32_t d)
{
	uint64_t	m = 1ull << (d & 63);

	if (s->bits[d >> 6] & m)
		return false;
	s->bits[d >> 6] |= m;
	s->list[(*n)++] = d;
	return true;
}

/* Generate term t's list: planted docs, then hot-site and uniform docs. */
static void
generate_list(gen_state *g, gen_scratch *s, uint32_t ti)
{
	gterm	   *t = &g->terms[ti];
	gen_rng		r = gen_stream(g->o.seed, S_TERM, t->rank);
	uint32_t	n = 0,
				df = t->df;

	/* planted: a fraction of each query's running intersection */
	for (uint32_t o = 0; o < t->occ_count && n < df; o++)
	{
		uint64_t	e = g->occ[t->occ_start + o];
		uint32_t	q = (uint32_t) (e >> 3);
		int			pos = (int) (e & 7);
		gquery	   *Q = &g->queries[q];
		gen_rng		pr = gen_stream(g->o.seed, S_PLANT, e);
		double		want;
		uint32_t	m,
					c = Q->cur_n,
					chosen = 0;

		if (pos == 0)
			continue;
		if (Q->done != pos)
			die("internal error: positions out of order", NULL);
		want = g->keep[Q->k - MINK][pos] * c;
		m = (uint32_t) floor(want);
		if (gen_unit(&pr) < want - m)
			m++;
		/* selection sampling (Knuth's algorithm S) keeps the order */
		for (uint32_t i = 0; i < c && chosen < m && n < df; i++)
			if (gen_unit(&pr) * (c - i) < (m - chosen))
			{
				chosen++;
				add_doc(s, &n, Q->cur[i]);
			}
	}

	/* hot sites (clustered crawl order) */
	if (g->o.cluster > 0 && n < df)
	{
		uint32_t	hot_n = (uint32_t) floor(g->o.cluster * (df - n) + 0.5);
		double		want_sites = hot_n / 0.25;	/* 25 % density inside a hot site */

		if (hot_n > 0 && want_sites < 0.5 * g->ndocs)
		{
			uint32_t	nh = 0;
			uint64_t	sum = 0,
						tries = 0,
						limit = 20ull * hot_n + 1000;

			while (sum < want_sites && nh < g->nsites && tries++ < 4ull * g->nsites + 100)
			{
				uint32_t	st = site_of(g, (uint32_t) gen_below(&r, g->ndocs));

				if (s->site_mark[st])
					continue;
				s->site_mark[st] = 1;
				s->hot[nh] = st;
				sum += g->site_start[st + 1] - g->site_start[st];
				s->hot_cum[nh++] = sum;
			}
			for (uint32_t added = 0, tr = 0; added < hot_n && n < df && tr < limit; tr++)
			{
				uint64_t	u = gen_below(&r, sum);
				uint32_t	lo = 0,
							hi = nh - 1;

				while (lo < hi)
				{
					uint32_t	mid = (lo + hi) / 2;

					if (s->hot_cum[mid] > u)
						hi = mid;
					else
						lo = mid + 1;
				}
				u -= lo ? s->hot_cum[lo - 1] : 0;
				if (add_doc(s, &n, g->site_start[s->hot[lo]] + (uint32_t) u))
					added++;
			}
			for (uint32_t i = 0; i < nh; i++)
				s->site_mark[s->hot[i]] = 0;
		}
	}

	/* the rest uniformly */
	while (n < df)
		add_doc(s, &n, (uint32_t) gen_below(&r, g->ndocs));

	gen_radix_sort(s->list, s->tmp, n);
	t->docs = xmalloc(sizeof(uint32_t) * n);
	memcpy(t->docs, s->list, sizeof(uint32_t) * n);
	for (uint32_t i = 0; i < n; i++)
		s->bits[s->list[i] >> 6] = 0;
	g->total_postings += n;

	/* advance the running intersections of the queries using t */
	for (uint32_t o = 0; o < t->occ_count; o++)
	{
		uint64_t	e = g->occ[t->occ_start + o];
		gquery	   *Q = &g->queries[e >> 3];
		int			pos = (int) (e & 7);

		if (pos == 0)
		{
			Q->cur = xmalloc(sizeof(uint32_t) * n);
			memcpy(Q->cur, t->docs, sizeof(uint32_t) * n);
			Q->cur_n = n;
		}
		else
			Q->cur_n = (uint32_t) ref_intersect2(Q->cur, Q->cur_n, t->docs, n, Q->cur);
		Q->stage[pos] = Q->cur_n;
		Q->done = pos + 1;
	}
}

/* Generate every list, shortest first, then relabel for the random order. */
static void
generate_all(gen_state *g)
{
	gen_scratch s;
	uint32_t   *order = xmalloc(sizeof(uint32_t) * g->nterms);
	uint32_t	maxdf = 0;
	time_t		t0 = time(NULL);

	for (uint32_t t = 0; t < g->nterms; t++)
	{
		order[t] = t;
		if (g->terms[t].df > maxdf)
			maxdf = g->terms[t].df;
	}
	sort_ctx = g;
	qsort(order, g->nterms, sizeof(uint32_t), cmp_term_idx);

	s.bits = calloc(((size_t) g->ndocs + 63) / 64, sizeof(uint64_t));
	s.cap = maxdf;
	s.list = xmalloc(sizeof(uint32_t) * (maxdf + 1));
	s.tmp = xmalloc(sizeof(uint32_t) * (maxdf + 1));
	s.site_mark = calloc(g->nsites + 1, 1);
	s.hot = xmalloc(sizeof(uint32_t) * (g->nsites + 1));
	s.hot_cum = xmalloc(sizeof(uint64_t) * (g->nsites + 1));
	if (s.bits == NULL || s.site_mark == NULL)
		die("out of memory", NULL);

	for (uint32_t i = 0; i < g->nterms; i++)
	{
		generate_list(g, &s, order[i]);
		if (!g->o.quiet && time(NULL) - t0 >= 5 && (i + 1) % 1000 == 0)
			fprintf(stderr, "gpx_gen: %u of %u lists\n", i + 1, g->nterms);
	}

	if (g->o.random_order)
	{
		/* GOVR: relabel every docID by one random permutation, re-sort */
		uint32_t   *perm = xmalloc(sizeof(uint32_t) * g->ndocs);
		gen_rng		r = gen_stream(g->o.seed, S_PERM, 0);

		progress(g, "relabelling docIDs by a random permutation of %.0f", g->ndocs);
		for (uint32_t i = 0; i < g->ndocs; i++)
			perm[i] = i;
		for (uint32_t i = g->ndocs - 1; i > 0; i--)
		{
			uint32_t	j = (uint32_t) gen_below(&r, (uint64_t) i + 1),
						x = perm[i];

			perm[i] = perm[j];
			perm[j] = x;
		}
		for (uint32_t t = 0; t < g->nterms; t++)
		{
			gterm	   *T = &g->terms[t];

			for (uint32_t i = 0; i < T->df; i++)
				T->docs[i] = perm[T->docs[i]];
			gen_radix_sort(T->docs, s.tmp, T->df);
		}
		for (int q = 0; q < g->o.nqueries; q++)
		{
			gquery	   *Q = &g->queries[q];

			for (uint32_t i = 0; i < Q->cur_n; i++)
				Q->cur[i] = perm[Q->cur[i]];
			gen_radix_sort(Q->cur, s.tmp, Q->cur_n);
		}
		if (g->o.emit_tf)
			g->perm = perm;		/* frequencies follow their original docs */
		else
			free(perm);
	}
	for (int q = 0; q < g->o.nqueries; q++)
		g->queries[q].hash = ref_hash_docs(g->queries[q].cur, g->queries[q].cur_n);

	free(order);
	free(s.bits);
	free(s.list);
	free(s.tmp);
	free(s.site_mark);
	free(s.hot);
	free(s.hot_cum);
}

/*
 * --tf: a frequency for every posting and a length for every document
 * (the model of gen_tf.h), keyed by original docIDs and sites.
 */
static void
generate_frequencies(gen_state *g)
{
	const gen_tf_model *m = &g->o.tfm;
	uint32_t   *inv = NULL,		/* output -> original docID */
			   *dl0 = xmalloc(sizeof(uint32_t) * g->ndocs);
	uint64_t   *sum = calloc(g->ndocs, sizeof(uint64_t));

	if (sum == NULL)
		die("out of memory", NULL);
	progress(g, "drawing frequencies of %.0f postings", (double) g->total_postings);
	if (g->perm != NULL)
	{
		inv = xmalloc(sizeof(uint32_t) * g->ndocs);
		for (uint32_t o = 0; o < g->ndocs; o++)
			inv[g->perm[o]] = o;
	}
	for (uint32_t o = 0; o < g->ndocs; o++)
		dl0[o] = gen_tf_doclen(m, g->o.seed, o);
	for (uint32_t t = 0; t < g->nterms; t++)
	{
		gterm	   *T = &g->terms[t];
		double		mt = gen_tf_term_mean(m, T->df, g->ndocs);
		uint32_t	cur_site = UINT32_MAX;
		double		f = 1.0;

		T->tfs = xmalloc(sizeof(uint32_t) * (T->df + 1));
		for (uint32_t i = 0; i < T->df; i++)
		{
			uint32_t	o = inv ? inv[T->docs[i]] : T->docs[i],
						site = site_of(g, o);

			if (site != cur_site)
			{
				f = gen_tf_site_factor(m, g->o.seed, T->rank, site);
				cur_site = site;
			}
			T->tfs[i] = gen_tf_draw(g->o.seed, T->rank, o, mt * f * dl0[o] / m->avgdl, dl0[o]);
			sum[o] += T->tfs[i];
		}
	}
	g->doclen = xmalloc(sizeof(uint32_t) * g->ndocs);
	for (uint32_t o = 0; o < g->ndocs; o++)
	{
		uint64_t	len = sum[o] > dl0[o] ? sum[o] : dl0[o];

		g->doclen[g->perm ? g->perm[o] : o] = len > 0x7FFFFFFF ? 0x7FFFFFFF : (uint32_t) len;
	}
	free(inv);
	free(dl0);
	free(sum);
}

/* ------------------------------------------------------------ output -- */

typedef struct outbuf
{
	FILE	   *f;
	const char *path;
	uint64_t   *fnv;
	size_t		len;
	char		buf[1 << 16];
} outbuf;

/* Open DIR/name for writing. */
static void
ob_open(outbuf *b, gen_state *g, const char *name, char *pathbuf)
{
	sprintf(pathbuf, "%s/%s", g->o.outdir, name);
	b->f = fopen(pathbuf, "w");
	if (b->f == NULL)
		die("cannot write", pathbuf);
	b->path = pathbuf;
	b->fnv = &g->out_fnv;
	b->len = 0;
}

/* Flush the buffer, folding its bytes into the output hash. */
static void
ob_flush(outbuf *b)
{
	uint64_t	h = *b->fnv;

	for (size_t i = 0; i < b->len; i++)
	{
		h ^= (unsigned char) b->buf[i];
		h *= 0x100000001b3ull;
	}
	*b->fnv = h;
	if (b->len && fwrite(b->buf, 1, b->len, b->f) != b->len)
		die("write failed", b->path);
	b->len = 0;
}

/* Append a character. */
static inline void
ob_c(outbuf *b, char c)
{
	if (b->len == sizeof(b->buf))
		ob_flush(b);
	b->buf[b->len++] = c;
}

/* Append an unsigned decimal number. */
static inline void
ob_u(outbuf *b, uint64_t v)
{
	char		t[24];
	int			n = 0;

	do
		t[n++] = (char) ('0' + v % 10);
	while ((v /= 10) != 0);
	if (b->len + n > sizeof(b->buf))
		ob_flush(b);
	while (n)
		b->buf[b->len++] = t[--n];
}

/* Append a signed decimal number. */
static inline void
ob_i(outbuf *b, int64_t v)
{
	if (v < 0)
	{
		ob_c(b, '-');
		ob_u(b, (uint64_t) 0 - (uint64_t) v);
	}
	else
		ob_u(b, (uint64_t) v);
}

/* Append a COPY array literal {a,b,c}. */
static void
ob_array(outbuf *b, const uint32_t *a, size_t n)
{
	ob_c(b, '{');
	for (size_t i = 0; i < n; i++)
	{
		if (i)
			ob_c(b, ',');
		ob_u(b, a[i]);
	}
	ob_c(b, '}');
}

/* Flush and close. */
static void
ob_close(outbuf *b)
{
	ob_flush(b);
	if (fclose(b->f) != 0)
		die("write failed", b->path);
}

/* qsort comparator for term indexes by rank. */
static int
cmp_rank(const void *a, const void *b)
{
	uint32_t	x = sort_ctx->terms[*(const uint32_t *) a].rank,
				y = sort_ctx->terms[*(const uint32_t *) b].rank;

	return x < y ? -1 : x > y;
}

/* Write terms, postings, queries, answers and (optionally) docs. */
static void
write_outputs(gen_state *g)
{
	outbuf	   *b = xmalloc(sizeof(outbuf));
	char		path[4096];
	uint32_t   *byrank = xmalloc(sizeof(uint32_t) * g->nterms);

	for (uint32_t t = 0; t < g->nterms; t++)
		byrank[t] = t;
	sort_ctx = g;
	qsort(byrank, g->nterms, sizeof(uint32_t), cmp_rank);

	ob_open(b, g, "terms.copy", path);
	for (uint32_t i = 0; i < g->nterms; i++)
	{
		ob_u(b, g->terms[byrank[i]].rank);
		ob_c(b, '\t');
		ob_u(b, g->terms[byrank[i]].df);
		ob_c(b, '\n');
	}
	ob_close(b);

	progress(g, "writing %.0f postings", (double) g->total_postings);
	ob_open(b, g, "postings.copy", path);
	for (uint32_t i = 0; i < g->nterms; i++)
	{
		gterm	   *T = &g->terms[byrank[i]];

		ob_u(b, T->rank);
		ob_c(b, '\t');
		ob_array(b, T->docs, T->df);
		ob_c(b, '\n');
	}
	ob_close(b);

	ob_open(b, g, "queries.copy", path);
	for (int q = 0; q < g->o.nqueries; q++)
	{
		gquery	   *Q = &g->queries[q];
		uint32_t	show[MAXK];
		gen_rng		r = gen_stream(g->o.seed, S_SHOW, (uint64_t) q);

		/* the order a user typed them in, not sorted by length */
		for (int j = 0; j < Q->k; j++)
			show[j] = g->terms[Q->term[j]].rank;
		for (int j = Q->k - 1; j > 0; j--)
		{
			int			i = (int) gen_below(&r, (uint64_t) j + 1);
			uint32_t	x = show[i];

			show[i] = show[j];
			show[j] = x;
		}
		ob_u(b, (uint64_t) q + 1);
		ob_c(b, '\t');
		ob_array(b, show, Q->k);
		ob_c(b, '\n');
	}
	ob_close(b);

	ob_open(b, g, "answers.copy", path);
	for (int q = 0; q < g->o.nqueries; q++)
	{
		ob_u(b, (uint64_t) q + 1);
		ob_c(b, '\t');
		ob_u(b, g->queries[q].cur_n);
		ob_c(b, '\t');
		ob_i(b, (int64_t) g->queries[q].hash);
		ob_c(b, '\n');
	}
	ob_close(b);

	if (g->o.emit_tf)
	{
		ob_open(b, g, "tfs.copy", path);
		for (uint32_t i = 0; i < g->nterms; i++)
		{
			gterm	   *T = &g->terms[byrank[i]];

			ob_u(b, T->rank);
			ob_c(b, '\t');
			ob_array(b, T->tfs, T->df);
			ob_c(b, '\n');
		}
		ob_close(b);
		ob_open(b, g, "doclens.copy", path);
		for (uint32_t d = 0; d < g->ndocs; d++)
		{
			ob_u(b, d);
			ob_c(b, '\t');
			ob_u(b, g->doclen[d]);
			ob_c(b, '\n');
		}
		ob_close(b);
	}

	if (g->o.emit_docs)
	{
		/* invert: each document's term_ids, ascending */
		uint32_t   *cnt = calloc((size_t) g->ndocs + 1, sizeof(uint32_t));
		uint64_t   *off = xmalloc(sizeof(uint64_t) * ((size_t) g->ndocs + 1));
		uint32_t   *tt = xmalloc(sizeof(uint32_t) * (g->total_postings + 1));

		progress(g, "inverting %.0f postings into documents", (double) g->total_postings);
		if (cnt == NULL)
			die("out of memory", NULL);
		for (uint32_t t = 0; t < g->nterms; t++)
			for (uint32_t i = 0; i < g->terms[t].df; i++)
				cnt[g->terms[t].docs[i]]++;
		off[0] = 0;
		for (uint32_t d = 0; d < g->ndocs; d++)
			off[d + 1] = off[d] + cnt[d];
		memset(cnt, 0, sizeof(uint32_t) * g->ndocs);
		for (uint32_t i = 0; i < g->nterms; i++)
		{
			gterm	   *T = &g->terms[byrank[i]];

			for (uint32_t j = 0; j < T->df; j++)
			{
				uint32_t	d = T->docs[j];

				tt[off[d] + cnt[d]++] = T->rank;
			}
		}
		ob_open(b, g, "docs.copy", path);
		for (uint32_t d = 0; d < g->ndocs; d++)
		{
			if (cnt[d] == 0)
				continue;
			ob_u(b, d);
			ob_c(b, '\t');
			ob_array(b, tt + off[d], cnt[d]);
			ob_c(b, '\n');
		}
		ob_close(b);
		free(cnt);
		free(off);
		free(tt);
	}
	free(byrank);
	free(b);
}

/* Print (and save) the statistics of what was generated, with Table 4's targets. */
static void
write_stats(gen_state *g)
{
	char		path[4096];
	FILE	   *f;
	double		tot_pct = 0,
				sum_short = 0,
				target_short = 0,
				sum_res = 0;
	int			nk[5] = {0},
				nempty = 0;
	double		short_k[5] = {0},
				R_k[5][MAXK] = {{0}},
				stage_k[5][MAXK] = {{0}};
	uint32_t	maxdf = 0,
				nquery_terms = 0,
				maxtf = 0;
	uint64_t	tf1 = 0,
				tf3 = 0,
				sumtf = 0,
				sumdl = 0;

	for (int i = 0; i < 5; i++)
		tot_pct += t4_pct[i];
	for (int i = 0; i < 5; i++)
		target_short += t4_pct[i] / tot_pct * g->mean_short[i] * g->o.scale;
	for (uint32_t t = 0; t < g->nterms; t++)
	{
		if (g->terms[t].df > maxdf)
			maxdf = g->terms[t].df;
		nquery_terms += g->terms[t].in_query;
		for (uint32_t i = 0; g->o.emit_tf && i < g->terms[t].df; i++)
		{
			uint32_t	x = g->terms[t].tfs[i];

			tf1 += x == 1;
			tf3 += x <= 3;
			sumtf += x;
			maxtf = x > maxtf ? x : maxtf;
		}
	}
	for (uint32_t d = 0; g->o.emit_tf && d < g->ndocs; d++)
		sumdl += g->doclen[d];
	for (int q = 0; q < g->o.nqueries; q++)
	{
		gquery	   *Q = &g->queries[q];
		int			ki = Q->k - MINK;

		nk[ki]++;
		sum_short += Q->len[0];
		short_k[ki] += Q->len[0];
		sum_res += Q->cur_n;
		nempty += Q->cur_n == 0;
		for (int x = 0; x + 1 < Q->k; x++)
		{
			R_k[ki][x] += 100.0 * Q->stage[x] / Q->len[x + 1];
			stage_k[ki][x] += Q->stage[x];
		}
	}

	sprintf(path, "%s/stats.txt", g->o.outdir);
	f = fopen(path, "w");
	if (f == NULL)
		die("cannot write", path);
	for (int pass = 0; pass < 2; pass++)
	{
		FILE	   *o = pass ? f : stdout;
		int			nq = g->o.nqueries;

		fprintf(o, "generator_version=%d\n", GEN_VERSION);
		fprintf(o, "seed=%llu\nscale=%g\norder=%s\n", (unsigned long long) g->o.seed,
				g->o.scale, g->o.random_order ? "random" : "clustered");
		fprintf(o, "ndocs=%u\nzipf_alpha=%g\ntop_df=%.0f\nvocab_ranks=%u\nsites=%u\n",
				g->ndocs, g->o.alpha, g->top_df, g->vocab, g->nsites);
		fprintf(o, "queries=%d\nterms=%u\nterms_query=%u\nterms_extra=%u\n", nq,
				g->nterms, nquery_terms, g->nterms - nquery_terms);
		fprintf(o, "postings=%llu\nmax_df=%u\n", (unsigned long long) g->total_postings, maxdf);
		for (int i = 0; i < 5; i++)
			fprintf(o, "qlen_%d_pct=%.2f\ttarget=%.2f\n", i + MINK, 100.0 * nk[i] / nq,
					100.0 * t4_pct[i] / tot_pct);
		fprintf(o, "mean_shortest=%.1f\ttarget=%.1f\n", sum_short / nq, target_short);
		for (int i = 0; i < 5; i++)
			fprintf(o, "mean_shortest_k%d=%.1f\ttarget=%.1f\n", i + MINK,
					nk[i] ? short_k[i] / nk[i] : 0.0, g->mean_short[i] * g->o.scale);
		for (int i = 0; i < 5; i++)
			for (int x = 0; x + 1 < i + MINK; x++)
				fprintf(o, "R_k%d_x%d_pct=%.3f\ttarget=%.3f\n", i + MINK, x + 1,
						nk[i] ? R_k[i][x] / nk[i] : 0.0, t4_R[i][x]);
		for (int i = 0; i < 5; i++)
			for (int x = 0; x + 1 < i + MINK; x++)
				fprintf(o, "stage_k%d_x%d=%.1f\ttarget=%.1f\n", i + MINK, x + 1,
						nk[i] ? stage_k[i][x] / nk[i] : 0.0, t4_len[i][x] * 1000.0 * g->o.scale);
		fprintf(o, "mean_result=%.1f\nempty_results_pct=%.2f\n", sum_res / nq,
				100.0 * nempty / nq);
		if (g->o.emit_tf)
		{
			const gen_tf_model *m = &g->o.tfm;
			double		np = (double) (g->total_postings ? g->total_postings : 1);

			fprintf(o, "tf_model=avgdl %g sigma_dl %g scale %g exp %g sigma_site %g\n",
					m->avgdl, m->sigma_dl, m->scale, m->exp, m->sigma_site);
			fprintf(o, "tf_one_pct=%.2f\ntf_le3_pct=%.2f\ntf_mean=%.3f\ntf_max=%u\n",
					100.0 * tf1 / np, 100.0 * tf3 / np, sumtf / np, maxtf);
			fprintf(o, "avgdl=%.1f\ttarget=%.1f\n", (double) sumdl / g->ndocs, m->avgdl);
		}
		fprintf(o, "output_fnv=%016llx\n", (unsigned long long) g->out_fnv);
	}
	fclose(f);
}

/* Print the usage text. */
static void
usage(void)
{
	fprintf(stderr,
			"usage: gpx_gen [options] --out DIR\n"
			"  --scale S        ndocs = 25,205,179 * S, list lengths * S (default 0.01)\n"
			"  --queries N      query log size (default 1000)\n"
			"  --seed N         (default 1)\n"
			"  --order O        clustered (crawl order, GOV) | random (GOVR) (default clustered)\n"
			"  --extra N        extra vocabulary terms besides the query terms (default 0)\n"
			"  --docs           also write docs.copy (documents -> term_ids, for GIN)\n"
			"  --tf             also write tfs.copy and doclens.copy (gen_tf.h's model)\n"
			"  --avgdl N        mean document length in tokens (default 1457.4)\n"
			"  --sigma-dl X     log-sd of document lengths (default 1.1)\n"
			"  --tf-scale X     mean tf - 1 of a term in every document (default 15)\n"
			"  --tf-exp X       growth of mean tf - 1 with df / ndocs (default 0.22)\n"
			"  --sigma-site X   log-sd of the per-(term, site) frequency factor (default 2.6)\n"
			"  --zipf A         Zipf exponent of df over rank (default 0.8)\n"
			"  --top F          df of the most frequent term / ndocs (default 0.5)\n"
			"  --sigma-short X  log-sd of the shortest list length (default 1.0)\n"
			"  --sigma-ratio X  log-sd of Table 4's ratios R (default 0.5)\n"
			"  --cluster F      share of a term's free docs in its hot sites (default 0.7)\n"
			"  --site-mean N    mean documents per site (default 1500)\n"
			"  --quiet          no progress lines\n");
	exit(2);
}

/* Parse a double option value. */
static double
opt_double(const char *s, const char *name)
{
	char	   *end;
	double		v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || end == s || !isfinite(v))
		die("bad number for", name);
	return v;
}

/* Entry point: parse options, generate, write. */
int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"scale", 1, 0, 's'}, {"queries", 1, 0, 'q'}, {"seed", 1, 0, 'S'},
		{"order", 1, 0, 'o'}, {"extra", 1, 0, 'e'}, {"docs", 0, 0, 'd'},
		{"zipf", 1, 0, 'z'}, {"top", 1, 0, 't'}, {"sigma-short", 1, 0, 'a'},
		{"sigma-ratio", 1, 0, 'b'}, {"cluster", 1, 0, 'c'}, {"site-mean", 1, 0, 'm'},
		{"out", 1, 0, 'O'}, {"quiet", 0, 0, 'Q'}, {"help", 0, 0, 'h'},
		{"tf", 0, 0, 'F'}, {"avgdl", 1, 0, 'L'}, {"sigma-dl", 1, 0, 'D'},
		{"tf-scale", 1, 0, 'T'}, {"tf-exp", 1, 0, 'X'}, {"sigma-site", 1, 0, 'Y'},
		{0, 0, 0, 0}};
	gen_state  *g = calloc(1, sizeof(gen_state));
	double		nd;
	int			c;

	g->o = (gen_opts)
	{
		.scale = 0.01,.seed = 1,.nqueries = 1000,.nextra = 0,.random_order = false,
		.alpha = 0.8,.top = 0.5,.sigma_short = 1.0,.sigma_ratio = 0.5,
		.cluster = 0.7,.site_mean = 1500,.emit_docs = false,.emit_tf = false,
			.tfm = {GEN_TF_AVGDL, GEN_TF_SIGMA_DL, GEN_TF_SCALE, GEN_TF_EXP, GEN_TF_SIGMA_SITE},
			.quiet = false,.outdir = NULL
	};
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1)
	{
		switch (c)
		{
			case 's': g->o.scale = opt_double(optarg, "--scale"); break;
			case 'q': g->o.nqueries = (int) opt_double(optarg, "--queries"); break;
			case 'S': g->o.seed = strtoull(optarg, NULL, 10); break;
			case 'o':
				if (strcmp(optarg, "clustered") == 0 || strcmp(optarg, "gov") == 0)
					g->o.random_order = false;
				else if (strcmp(optarg, "random") == 0 || strcmp(optarg, "govr") == 0)
					g->o.random_order = true;
				else
					die("--order must be clustered or random", optarg);
				break;
			case 'e': g->o.nextra = (int) opt_double(optarg, "--extra"); break;
			case 'd': g->o.emit_docs = true; break;
			case 'F': g->o.emit_tf = true; break;
			case 'L': g->o.tfm.avgdl = opt_double(optarg, "--avgdl"); break;
			case 'D': g->o.tfm.sigma_dl = opt_double(optarg, "--sigma-dl"); break;
			case 'T': g->o.tfm.scale = opt_double(optarg, "--tf-scale"); break;
			case 'X': g->o.tfm.exp = opt_double(optarg, "--tf-exp"); break;
			case 'Y': g->o.tfm.sigma_site = opt_double(optarg, "--sigma-site"); break;
			case 'z': g->o.alpha = opt_double(optarg, "--zipf"); break;
			case 't': g->o.top = opt_double(optarg, "--top"); break;
			case 'a': g->o.sigma_short = opt_double(optarg, "--sigma-short"); break;
			case 'b': g->o.sigma_ratio = opt_double(optarg, "--sigma-ratio"); break;
			case 'c': g->o.cluster = opt_double(optarg, "--cluster"); break;
			case 'm': g->o.site_mean = opt_double(optarg, "--site-mean"); break;
			case 'O': g->o.outdir = optarg; break;
			case 'Q': g->o.quiet = true; break;
			default: usage();
		}
	}
	if (optind != argc || g->o.outdir == NULL)
		usage();
	nd = floor(GEN_GOV2_DOCS * g->o.scale + 0.5);
	if (nd < 1000 || nd > 2147483647.0)
		die("--scale gives fewer than 1000 or more than 2^31-1 documents", NULL);
	if (g->o.nqueries < 1 || g->o.nqueries > (1 << 26) || g->o.nextra < 0)
		die("--queries must be in [1, 2^26], --extra >= 0", NULL);
	if (g->o.alpha < 0.3 || g->o.alpha > 3 || g->o.top <= 0 || g->o.top > 0.9 ||
		g->o.cluster < 0 || g->o.cluster > 1 || g->o.site_mean < 1 ||
		g->o.sigma_short < 0 || g->o.sigma_ratio < 0 ||
		g->o.tfm.avgdl < 1 || g->o.tfm.avgdl > 1e8 || g->o.tfm.sigma_dl < 0 ||
		g->o.tfm.sigma_dl > 4 || g->o.tfm.scale < 0 || g->o.tfm.scale > 1e4 ||
		g->o.tfm.exp < 0 || g->o.tfm.exp > 4 || g->o.tfm.sigma_site < 0 ||
		g->o.tfm.sigma_site > 4)
		die("a model parameter is out of range (see --help)", NULL);
	if (mkdir(g->o.outdir, 0755) != 0 && errno != EEXIST)
		die("cannot create", g->o.outdir);

	g->ndocs = (uint32_t) nd;
	g->top_df = floor(g->o.top * g->ndocs);
	{
		double		v = floor(pow(2.0 * g->top_df, 1.0 / g->o.alpha));

		g->vocab = v > 2147483646.0 ? 2147483646u : (uint32_t) v;
	}
	derive_targets(g);

	g->cap_terms = 1024;
	g->terms = xmalloc(sizeof(gterm) * g->cap_terms);
	g->hash_mask = 4095;
	g->hash_slots = calloc(4096, sizeof(uint32_t));
	g->queries = calloc((size_t) g->o.nqueries, sizeof(gquery));
	if (g->hash_slots == NULL || g->queries == NULL)
		die("out of memory", NULL);

	assign_query_lengths(g);
	for (int q = 0; q < g->o.nqueries; q++)
		draw_query(g, (uint32_t) q);
	{
		/* extra vocabulary: df log-uniform in [1, top] */
		gen_rng		r = gen_stream(g->o.seed, S_EXTRA, 0);

		for (int i = 0, tries = 0; i < g->o.nextra && tries < 100 * g->o.nextra + 100; tries++)
		{
			uint32_t	rk = pick_rank(g, exp(gen_unit(&r) * log(g->top_df)), &r);

			if (term_find(g, rk) >= 0)
				continue;
			term_get(g, rk);
			i++;
		}
	}
	progress(g, "%.0f documents", g->ndocs);
	index_occurrences(g);
	make_sites(g);
	generate_all(g);
	if (g->o.emit_tf)
		generate_frequencies(g);
	write_outputs(g);
	write_stats(g);
	return 0;
}
