/*
 * test_rank.c - unit tests of ranked retrieval: the top-k heap against a
 * sort, the collection statistics blob (round trips, canonical form,
 * every corruption rejected), the BM25 header against the formula written
 * out literally, and ranked AND / OR (every algorithm, both list forms,
 * every codec) against a naive term-at-a-time scorer over plain arrays,
 * compared bit for bit: random collections and queries with ties, k larger
 * than the matches, empty and missing terms, one-term queries, repeated
 * terms, documents unknown to the statistics; and that the pruning
 * algorithms score fewer documents than exhaustive scoring.
 */
#include <math.h>
#include <string.h>

#include "gpx_rank.h"
#include "gpx_rank_batch.h"
#include "gpx_rank_merge.h"
#include "gpx_intersect.h"
#include "unit.h"

static const int codecs[] = {GPX_CODEC_PFOR, GPX_CODEC_LRC, GPX_CODEC_QS};

/* ------------------------------------------------------------ top-k -- */

/* qsort order of (score desc, doc asc) pairs. */
typedef struct pair
{
	uint32_t	doc;
	double		score;
} pair;

static int
pair_cmp(const void *a, const void *b)
{
	const pair *x = a,
			   *y = b;

	if (x->score != y->score)
		return x->score > y->score ? -1 : 1;
	return x->doc < y->doc ? -1 : x->doc > y->doc;
}

/* Random pushes in random order against qsort of everything. */
static void
test_topk(void)
{
	unit_rng	r = {11};

	for (int it = 0; it < 300; it++)
	{
		uint32_t	n = unit_below(&r, 2000),
					k = 1 + unit_below(&r, it % 3 == 0 ? 5 : 3000);
		uint32_t	levels = 1 + unit_below(&r, 20);	/* few distinct: ties */
		pair	   *all = unit_xmalloc(sizeof(pair) * (n + 1));
		uint32_t   *docs = unit_xmalloc(sizeof(uint32_t) * k);
		double	   *scores = unit_xmalloc(sizeof(double) * k);
		gpx_topk	t;
		uint32_t	want;
		bool		ok = true;

		for (uint32_t i = 0; i < n; i++)
		{
			all[i].doc = i * 3 + unit_below(&r, 3);
			all[i].score = (double) unit_below(&r, levels) / 7.0;
		}
		/* offer in shuffled order */
		for (uint32_t i = n; i > 1; i--)
		{
			uint32_t	j = unit_below(&r, i);
			pair		tmp = all[i - 1];

			all[i - 1] = all[j];
			all[j] = tmp;
		}
		gpx_topk_init(&t, k, docs, scores);
		for (uint32_t i = 0; i < n; i++)
			gpx_topk_push(&t, all[i].doc, all[i].score);
		gpx_topk_finish(&t);
		qsort(all, n, sizeof(pair), pair_cmp);
		want = n < k ? n : k;
		CHECKF(t.n == want, "n %u want %u", t.n, want);
		for (uint32_t i = 0; i < want && i < t.n; i++)
			if (docs[i] != all[i].doc || scores[i] != all[i].score)
				ok = false;
		CHECKF(ok, "top-k differs (n %u k %u)", n, k);
		free(all);
		free(docs);
		free(scores);
	}
}

/*
 * gpx_topk_all against pushing one by one and finishing: docIDs in order,
 * scores with ties, +0, +inf, huge and tiny values, bits that differ in
 * every byte; a negative or NaN score (the heap's order, not the sort's).
 */
static void
test_topk_all(void)
{
	unit_rng	r = {13};

	for (int it = 0; it < 400; it++)
	{
		uint32_t	n = unit_below(&r, it % 4 == 0 ? 40 : 5000),
					k = 1 + unit_below(&r, it % 3 == 0 ? 8 : 3000);
		uint32_t   *in_docs = unit_xmalloc(sizeof(uint32_t) * (n + 1)),
				   *tmp = unit_xmalloc(sizeof(uint32_t) * (2 * n + 1)),
				   *d1 = unit_xmalloc(sizeof(uint32_t) * k),
				   *d2 = unit_xmalloc(sizeof(uint32_t) * k);
		double	   *in_scores = unit_xmalloc(sizeof(double) * (n + 1)),
				   *s1 = unit_xmalloc(sizeof(double) * k),
				   *s2 = unit_xmalloc(sizeof(double) * k);
		uint32_t	levels = 1 + unit_below(&r, 30),
					doc = unit_below(&r, 10);
		gpx_topk	t1,
					t2;
		bool		ok = true;

		for (uint32_t i = 0; i < n; i++)
		{
			uint32_t	c = unit_below(&r, 100);

			in_docs[i] = doc;
			doc += 1 + unit_below(&r, 5);
			in_scores[i] = it % 2 ? (double) unit_below(&r, levels) / 7.0 :
				ldexp((double) (1 + unit_below(&r, 1u << 30)), (int) unit_below(&r, 200) - 100);
			if (c == 0)
				in_scores[i] = 0.0;
			else if (c == 1)
				in_scores[i] = INFINITY;
			else if (c == 2)
				in_scores[i] = 1e300;
			else if (c == 3)
				in_scores[i] = 5e-324;
			else if (c == 4 && it % 7 == 0)
				in_scores[i] = -1.0;
			else if (c == 5 && it % 11 == 0)
				in_scores[i] = NAN;
		}
		gpx_topk_init(&t1, k, d1, s1);
		for (uint32_t i = 0; i < n; i++)
			gpx_topk_push(&t1, in_docs[i], in_scores[i]);
		gpx_topk_finish(&t1);
		gpx_topk_init(&t2, k, d2, s2);
		gpx_topk_all(&t2, in_docs, in_scores, n, tmp);
		for (uint32_t i = 0; i < t1.n && i < t2.n; i++)
			ok &= d1[i] == d2[i] && memcmp(&s1[i], &s2[i], sizeof(double)) == 0;
		CHECKF(t1.n == t2.n && ok, "#%d: n %u k %u: %u and %u pairs, %s", it, n, k,
			   t1.n, t2.n, ok ? "same" : "different");
		free(in_docs);
		free(tmp);
		free(d1);
		free(d2);
		free(in_scores);
		free(s1);
		free(s2);
	}
}

/* ----------------------------------------------------------- doclen -- */

/* Encode entries into a fresh exact-size blob (NULL on failure). */
static uint8_t *
doclen_blob(const uint32_t *entries, uint32_t span, size_t *len)
{
	uint32_t	maxl = 0;
	size_t		cap;
	uint8_t    *b;
	gpx_status	st;

	for (uint32_t i = 0; i < span; i++)
		if (entries[i] > 0 && entries[i] - 1 > maxl)
			maxl = entries[i] - 1;
	cap = gpx_doclen_size(span, maxl);
	b = unit_xmalloc(cap);
	st = gpx_doclen_encode(entries, span, b, cap, len);
	CHECKF(st == GPX_OK, "encode: %s", gpx_status_str(st));
	if (st != GPX_OK)
	{
		free(b);
		return NULL;
	}
	/* exact size for ASan */
	{
		uint8_t    *e = unit_xmalloc(*len);

		memcpy(e, b, *len);
		free(b);
		b = e;
	}
	return b;
}

/* Round trips of random statistics; header fields; corruptions rejected. */
static void
test_doclen(void)
{
	unit_rng	r = {21};
	static const uint32_t maxes[] = {0, 1, 253, 254, 255, 65533, 65534, 65535,
	100000, GPX_DOCLEN_MAX_LEN};

	for (int it = 0; it < 200; it++)
	{
		uint32_t	span = unit_below(&r, it % 10 == 0 ? 3 : 3000);
		uint32_t	maxl = maxes[it % 10];
		uint32_t   *e = unit_xmalloc(sizeof(uint32_t) * (span + 1)),
				   *back = unit_xmalloc(sizeof(uint32_t) * (span + 8));
		uint64_t	nd = 0,
					tot = 0;
		uint32_t	mn = 0,
					mx = 0,
					last = 0;
		size_t		len = 0;
		uint8_t    *b;
		gpx_doclen	dl;

		for (uint32_t i = 0; i < span; i++)
		{
			uint32_t	l = unit_below(&r, 4) == 0 ? maxl :
				(uint32_t) unit_below(&r, (uint64_t) maxl + 1);

			e[i] = unit_below(&r, 3) == 0 ? 0 : l + 1;
			if (e[i])
			{
				if (nd == 0 || l < mn)
					mn = l;
				if (l > mx)
					mx = l;
				nd++;
				tot += l;
				last = i + 1;
			}
		}
		b = doclen_blob(e, span, &len);
		if (b == NULL)
			continue;
		CHECK(gpx_doclen_validate(b, len) == GPX_OK);
		CHECK(gpx_doclen_open(&dl, b, len) == GPX_OK);
		CHECKF(dl.span == last && dl.ndocs == nd && dl.total == tot &&
			   dl.min_len == mn && dl.max_len == mx &&
			   dl.width == gpx_doclen_width(mx),
			   "header span %u/%u nd %llu/%llu", dl.span, last,
			   (unsigned long long) dl.ndocs, (unsigned long long) nd);
		gpx_doclen_read(&dl, 0, span + 8, back);
		CHECK(memcmp(back, e, sizeof(uint32_t) * span) == 0);
		CHECK(back[span] == 0 && back[span + 7] == 0);
		CHECK(gpx_doclen_get(&dl, 0xFFFFFFFFu) == 0);
		{
			/* the pairs encoder writes the same bytes */
			uint32_t   *pd = unit_xmalloc(sizeof(uint32_t) * (span + 1)),
					   *pl = unit_xmalloc(sizeof(uint32_t) * (span + 1));
			uint32_t	np = 0;
			uint8_t    *b2 = unit_xmalloc(len + 1);
			size_t		len2 = 0;

			for (uint32_t i = 0; i < span; i++)
				if (e[i])
				{
					pd[np] = i;
					pl[np++] = e[i] - 1;
				}
			CHECK(gpx_doclen_pairs_size(pd, pl, np) == len);
			CHECK(gpx_doclen_encode_pairs(pd, pl, np, b2, len + 1, &len2) == GPX_OK &&
				  len2 == len && memcmp(b, b2, len) == 0);
			if (np >= 2)
			{
				pd[1] = pd[0];
				CHECK(gpx_doclen_encode_pairs(pd, pl, np, b2, len + 1, &len2) == GPX_E_UNSORTED);
				CHECK(gpx_doclen_pairs_size(pd, pl, np) == 0);
			}
			free(pd);
			free(pl);
			free(b2);
		}
		/* every single-byte change and every truncation is rejected */
		if (it % 20 == 0)
		{
			bool		ok = true;

			for (size_t i = 0; i < len; i++)
			{
				uint8_t		save = b[i];

				b[i] ^= (uint8_t) (1u << unit_below(&r, 8));
				if (gpx_doclen_validate(b, len) == GPX_OK)
					ok = false;
				b[i] = save;
			}
			CHECKF(ok, "a flipped bit was accepted (span %u)", span);
			for (size_t l = 0; l < len; l++)
			{
				uint8_t    *t = unit_xmalloc(l);

				memcpy(t, b, l);
				if (gpx_doclen_validate(t, l) == GPX_OK)
					ok = false;
				free(t);
			}
			CHECKF(ok, "a truncated blob was accepted");
		}
		free(b);
		free(e);
		free(back);
	}
	/* arguments and limits */
	{
		uint32_t	e[3] = {0, GPX_DOCLEN_MAX_LEN + 2, 1};
		uint8_t		out[64];
		size_t		len;

		CHECK(gpx_doclen_encode(e, 3, out, sizeof(out), &len) == GPX_E_RANGE);
		e[1] = 5;
		CHECK(gpx_doclen_encode(e, 3, out, 10, &len) == GPX_E_NOSPACE);
		CHECK(gpx_doclen_encode(e, 3, out, sizeof(out), &len) == GPX_OK);
		CHECK(len == GPX_DOCLEN_HEADER + 3);
		CHECK(gpx_doclen_validate(out, len) == GPX_OK);
		CHECK(gpx_doclen_encode(NULL, 3, out, sizeof(out), &len) == GPX_E_ARG);
		CHECK(gpx_doclen_encode(e, 0, out, sizeof(out), &len) == GPX_OK &&
			  len == GPX_DOCLEN_HEADER);
		CHECK(gpx_doclen_size(GPX_DOCLEN_MAX_SPAN + 1, 1) == 0);
	}
}

/* ------------------------------------------------------------- BM25 -- */

/* The header's operations against the formula as written. */
static void
test_bm25(void)
{
	unit_rng	r = {31};
	bool		ok = true;

	CHECK(gpx_bm25_idf(1, 1) == log(1.0 + 0.5 / 1.5));
	for (int it = 0; it < 100000; it++)
	{
		uint64_t	N = 1 + unit_below(&r, 30000000);
		uint64_t	df = 1 + unit_below(&r, N);
		uint64_t	L = N + unit_below(&r, 1u << 31) * (1 + unit_below(&r, 100));
		double		k1 = (double) unit_below(&r, 300) / 100.0,
					b = (double) unit_below(&r, 101) / 100.0;
		double		dl = (double) unit_below(&r, 100000);
		uint32_t	tf = 1 + unit_below(&r, it % 2 ? 10 : 2000000000);
		gpx_bm25	p;
		double		avgdl = (double) L / (double) N;
		double		idf = log(1 + ((double) N - (double) df + 0.5) / ((double) df + 0.5));
		double		w = idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl));

		gpx_bm25_init(&p, k1, b, N, L);
		if (gpx_bm25_idf(N, df) != idf ||
			gpx_bm25_weight(&p, idf, tf, gpx_bm25_norm(&p, dl)) != w ||
			!(w > 0))
			ok = false;
	}
	CHECKF(ok, "gpx_bm25.h differs from the formula");
}

/* ------------------------------------------------------------ ranking -- */

/* A test collection: statistics and term lists as arrays. */
typedef struct coll
{
	uint32_t	span;			/* docIDs [0, span) */
	uint32_t   *entries;		/* length + 1, or 0 */
	uint8_t    *dlblob;
	gpx_doclen	dl;
	int			nterms;
	uint32_t  **docs;
	uint32_t  **tfs;
	uint32_t   *n;
} coll;

/*
 * A random collection: span docIDs, a share absent (unknown to the
 * statistics but still in lists when `unknown`), lengths from a few
 * values (ties) or wide, nterms lists of log-uniform lengths with tfs in
 * [1, maxtf].
 */
static void
coll_make(coll *c, unit_rng *r, uint32_t span, int nterms, uint32_t maxtf,
		  bool few_lengths, bool unknown)
{
	size_t		len;

	c->span = span;
	c->entries = unit_xmalloc(sizeof(uint32_t) * span);
	for (uint32_t d = 0; d < span; d++)
	{
		uint32_t	l = few_lengths ? 100 * (1 + unit_below(r, 3)) :
			1 + unit_below(r, 1 + unit_below(r, 5000));

		c->entries[d] = unit_below(r, 10) == 0 ? 0 : l + 1;
	}
	c->entries[span - 1] = 50;	/* at least one document */
	c->dlblob = doclen_blob(c->entries, span, &len);
	gpx_doclen_open(&c->dl, c->dlblob, len);
	c->nterms = nterms;
	c->docs = unit_xmalloc(sizeof(uint32_t *) * nterms);
	c->tfs = unit_xmalloc(sizeof(uint32_t *) * nterms);
	c->n = unit_xmalloc(sizeof(uint32_t) * nterms);
	for (int t = 0; t < nterms; t++)
	{
		double		f = pow(2.0, -(double) unit_below(r, 12));
		uint32_t	n = 0;

		c->docs[t] = unit_xmalloc(sizeof(uint32_t) * span);
		c->tfs[t] = unit_xmalloc(sizeof(uint32_t) * span);
		if (t % 7 == 6)
			f = 0;				/* an empty list */
		for (uint32_t d = 0; d < span; d++)
		{
			if (!unknown && c->entries[d] == 0)
				continue;
			if ((double) unit_below(r, 1u << 30) < f * (double) (1u << 30))
			{
				c->docs[t][n] = d;
				c->tfs[t][n] = unit_below(r, 4) ? 1 + unit_below(r, 2) :
					1 + unit_below(r, maxtf);
				n++;
			}
		}
		/* never more postings than documents */
		if (n > c->dl.ndocs)
			n = (uint32_t) c->dl.ndocs;
		c->n[t] = n;
	}
}

static void
coll_free(coll *c)
{
	for (int t = 0; t < c->nterms; t++)
	{
		free(c->docs[t]);
		free(c->tfs[t]);
	}
	free(c->docs);
	free(c->tfs);
	free(c->n);
	free(c->entries);
	free(c->dlblob);
}

/*
 * The naive scorer: term at a time in query order over plain arrays into
 * one accumulator per docID, the formula written out; then a full sort.
 * qt[i] = term of query position i, or -1 for a term with no list.
 * Returns the result count; out holds the best min(k, matches).
 */
static uint32_t
naive_rank(const coll *c, const int *qt, int m, bool and, double k1,
		   double b, uint32_t k, uint32_t notf, pair *out)
{
	double	   *acc = unit_xmalloc(sizeof(double) * c->span);
	int		   *hits = unit_xmalloc(sizeof(int) * c->span);
	double		N = (double) c->dl.ndocs,
				avgdl = (double) c->dl.total / N;
	pair	   *all = unit_xmalloc(sizeof(pair) * (c->span + 1));
	uint32_t	na = 0,
				res;

	for (uint32_t d = 0; d < c->span; d++)
	{
		acc[d] = 0.0;
		hits[d] = 0;
	}
	for (int i = 0; i < m; i++)
	{
		int			t = qt[i];
		double		df,
					idf;

		if (t < 0 || c->n[t] == 0)
			continue;
		df = (double) c->n[t];
		idf = log(1 + (N - df + 0.5) / (df + 0.5));
		for (uint32_t j = 0; j < c->n[t]; j++)
		{
			uint32_t	d = c->docs[t][j];
			double		tf = notf ? 1.0 : (double) c->tfs[t][j];
			double		dl = c->entries[d] ? (double) (c->entries[d] - 1) : avgdl;

			acc[d] = acc[d] + idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl));
			hits[d]++;
		}
	}
	for (uint32_t d = 0; d < c->span; d++)
		if (and ? hits[d] == m : hits[d] > 0)
		{
			all[na].doc = d;
			all[na].score = acc[d];
			na++;
		}
	qsort(all, na, sizeof(pair), pair_cmp);
	res = na < k ? na : k;
	memcpy(out, all, sizeof(pair) * res);
	free(acc);
	free(hits);
	free(all);
	return res;
}

/*
 * The blob form of a collection's lists: docIDs only (every tf is 1), or
 * with their frequencies in the tf section (tf true).
 */
typedef struct blobs
{
	uint8_t   **b;
	gpx_list   *l;
	gpx_plist  *pl;
} blobs;

static void
blobs_make(blobs *bl, const coll *c, int codec, bool tf)
{
	bl->b = unit_xmalloc(sizeof(uint8_t *) * c->nterms);
	bl->l = unit_xmalloc(sizeof(gpx_list) * c->nterms);
	bl->pl = unit_xmalloc(sizeof(gpx_plist) * c->nterms);
	for (int t = 0; t < c->nterms; t++)
	{
		size_t		len = 0;

		if (tf)
		{
			uint32_t	n = c->n[t];
			size_t		cap = gpx_encode_bound_tf(codec, n, n ? c->docs[t][n - 1] : 0);
			uint8_t    *tmp = unit_xmalloc(cap);

			CHECK(gpx_encode_tf(codec, c->docs[t], c->tfs[t], n, tmp, cap, &len) == GPX_OK);
			bl->b[t] = unit_xmalloc(len ? len : 1);
			memcpy(bl->b[t], tmp, len);
			free(tmp);
			CHECK(unit_validate_exact(bl->b[t], len) == GPX_OK);
		}
		else
			bl->b[t] = unit_encode_exact(codec, c->docs[t], c->n[t], &len);
		CHECK(gpx_open(&bl->l[t], bl->b[t], len) == GPX_OK);
		CHECK(gpx_plist_blob(&bl->pl[t], &bl->l[t]) == GPX_OK);
	}
}

static void
blobs_free(blobs *bl, int nterms)
{
	for (int t = 0; t < nterms; t++)
		free(bl->b[t]);
	free(bl->b);
	free(bl->l);
	free(bl->pl);
}

/* The naive answer of a query, computed once for several runs. */
typedef struct answer
{
	pair	   *p;
	uint32_t	n;
} answer;

static void
answer_make(answer *a, const coll *c, const int *qt, int m, bool and,
			double k1, double b, uint32_t k, bool notf)
{
	a->p = unit_xmalloc(sizeof(pair) * k);
	a->n = naive_rank(c, qt, m, and, k1, b, k, notf, a->p);
}

/*
 * Run one query through an algorithm (or AND) and compare with the naive
 * answer (computed here when want is NULL).
 */
static bool
run_one(const coll *c, gpx_plist *pls, const int *qt, int m, bool and,
		gpx_rank_algo algo, double k1, double b, uint32_t k, bool notf,
		gpx_rank_stats *st, const char *what, const answer *want)
{
	const gpx_plist *terms[64];
	answer		own;
	uint32_t   *docs = unit_xmalloc(sizeof(uint32_t) * k),
				got = 0;
	double	   *scores = unit_xmalloc(sizeof(double) * k);
	gpx_rank_query q;
	size_t		ws;
	void	   *work;
	gpx_status	s;
	bool		ok = true;

	if (want == NULL)
	{
		answer_make(&own, c, qt, m, and, k1, b, k, notf);
		want = &own;
	}
	for (int i = 0; i < m; i++)
		terms[i] = qt[i] < 0 ? NULL : &pls[qt[i]];
	q.terms = terms;
	q.nterms = m;
	q.doclen = &c->dl;
	q.k1 = k1;
	q.b = b;
	q.k = k;
	ws = and ? gpx_rank_and_work_size(&q) : gpx_rank_or_work_size(m);
	work = unit_xmalloc(ws);
	s = and ? gpx_rank_and(&q, work, ws, docs, scores, &got, st) :
		gpx_rank_or(&q, algo, work, ws, docs, scores, &got, st);
	if (s != GPX_OK || got != want->n)
		ok = false;
	for (uint32_t i = 0; ok && i < want->n; i++)
		if (docs[i] != want->p[i].doc ||
			memcmp(&scores[i], &want->p[i].score, sizeof(double)) != 0)
			ok = false;
	CHECKF(ok, "%s %s algo %d m %d k %u: status %s, %u results, want %u",
		   what, and ? "AND" : "OR", (int) algo, m, k, gpx_status_str(s), got, want->n);
	if (want == &own)
		free(own.p);
	free(docs);
	free(scores);
	free(work);
	return ok;
}

/* Random queries over random collections, every algorithm, both forms. */
static void
test_rank_random(void)
{
	unit_rng	r = {41};
	static const gpx_rank_algo algos[] = {GPX_RANK_EXHAUSTIVE, GPX_RANK_MAXSCORE,
	GPX_RANK_BMM, GPX_RANK_BMW, GPX_RANK_AUTO};

	for (int it = 0; it < 60; it++)
	{
		coll		c;
		uint32_t	span = 200 + unit_below(&r, it % 4 == 0 ? 200000 : 20000);
		int			nterms = 8 + (int) unit_below(&r, 8);
		gpx_plist  *arr = unit_xmalloc(sizeof(gpx_plist) * nterms);
		blobs		bl,
					blt;
		uint32_t	block = 1 + unit_below(&r, it % 2 ? GPX_MAX_BLOCK : 16);

		coll_make(&c, &r, span, nterms, 1 + unit_below(&r, 300), it % 3 == 0,
				  it % 5 == 0);
		for (int t = 0; t < nterms; t++)
			gpx_plist_arrays(&arr[t], c.docs[t], c.tfs[t], c.n[t], block);
		blobs_make(&bl, &c, codecs[it % 3], false);
		blobs_make(&blt, &c, codecs[(it + 1) % 3], true);
		for (int qi = 0; qi < 12; qi++)
		{
			/* 1 term, 1..6, or more than gpx_intersect_pos takes (AND) */
			int			m = qi == 11 ? GPX_ISECT_POS_LISTS + 1 + (int) unit_below(&r, 4) :
				1 + (int) unit_below(&r, qi % 4 == 0 ? 1 : 6);
			int			qt[GPX_ISECT_POS_LISTS + 4];
			uint32_t	k = qi % 3 == 0 ? 1 + unit_below(&r, 10) :
				qi % 3 == 1 ? 1 + unit_below(&r, 1000) : GPX_RANK_MAX_K;
			double		k1 = qi % 5 == 0 ? 0.9 : (double) unit_below(&r, 300) / 100.0;
			double		b = qi % 5 == 0 ? 0.4 : (double) unit_below(&r, 101) / 100.0;

			for (int i = 0; i < m; i++)
			{
				qt[i] = (int) unit_below(&r, nterms);
				if (i > 0 && unit_below(&r, 6) == 0)
					qt[i] = qt[unit_below(&r, i)];	/* repeated term */
				if (unit_below(&r, 25) == 0)
					qt[i] = -1;	/* a term with no list */
			}
			/* many terms: two of them repeated, so that AND finds some */
			for (int i = 2; i < m && m > GPX_ISECT_POS_LISTS; i++)
				qt[i] = qt[i % 2];
			answer		w_or,
						w_or1,
						w_and,
						w_and1;

			answer_make(&w_or, &c, qt, m, false, k1, b, k, false);
			answer_make(&w_or1, &c, qt, m, false, k1, b, k, true);
			answer_make(&w_and, &c, qt, m, true, k1, b, k, false);
			answer_make(&w_and1, &c, qt, m, true, k1, b, k, true);
			for (size_t a = 0; a < sizeof(algos) / sizeof(algos[0]); a++)
			{
				run_one(&c, arr, qt, m, false, algos[a], k1, b, k, false, NULL, "arrays", &w_or);
				run_one(&c, bl.pl, qt, m, false, algos[a], k1, b, k, true, NULL, "blobs", &w_or1);
				run_one(&c, blt.pl, qt, m, false, algos[a], k1, b, k, false, NULL, "tf blobs", &w_or);
			}
			run_one(&c, arr, qt, m, true, GPX_RANK_AUTO, k1, b, k, false, NULL, "arrays", &w_and);
			run_one(&c, bl.pl, qt, m, true, GPX_RANK_AUTO, k1, b, k, true, NULL, "blobs", &w_and1);
			run_one(&c, blt.pl, qt, m, true, GPX_RANK_AUTO, k1, b, k, false, NULL, "tf blobs", &w_and);
			free(w_or.p);
			free(w_or1.p);
			free(w_and.p);
			free(w_and1.p);
		}
		blobs_free(&bl, nterms);
		blobs_free(&blt, nterms);
		free(arr);
		coll_free(&c);
	}
}

/*
 * tf[i] of docID x[i] of list pl (see gpx_plist_tfs_of), want[i] its
 * frequency; and GPX_E_PAYLOAD once a docID not in the list joins x.
 */
static void
tfs_of_check(const gpx_plist *pl, const uint32_t *docs, const uint32_t *want,
			 uint32_t n, unit_rng *r, const char *what)
{
	uint32_t   *x = unit_xmalloc(sizeof(uint32_t) * (n + 2)),
			   *w = unit_xmalloc(sizeof(uint32_t) * (n + 2)),
			   *at = unit_xmalloc(sizeof(uint32_t) * (n + 2)),
			   *tf = unit_xmalloc(sizeof(uint32_t) * (n + 2));

	for (int pass = 0; pass < 6; pass++)
	{
		/* every posting, then thinner subsets, then the last one alone */
		uint32_t	keep = pass == 0 ? 1 : pass == 1 ? 2 : pass == 2 ? 20 : 500,
					nx = 0;
		gpx_plist_counts cnt = {0};
		gpx_status	s;
		bool		ok = true;

		for (uint32_t i = 0; i < n && pass < 4; i++)
			if (unit_below(r, keep) == 0)
			{
				at[nx] = i;
				x[nx] = docs[i];
				w[nx++] = want ? want[i] : 1;
			}
		if (pass >= 4 && n > 0)
		{
			at[nx] = n - 1;
			x[nx] = docs[n - 1];
			w[nx++] = want ? want[n - 1] : 1;
		}
		if (pass == 5)
		{
			/* a docID the list lacks, among present ones */
			uint32_t	i = unit_below(r, n + 1),
						gap;

			if (n == 0)
				gap = unit_below(r, 1000);
			else if (i == n)
				gap = docs[n - 1] + 1 + unit_below(r, 100);
			else if (i == 0 && docs[0] > 0)
				gap = docs[0] - 1;
			else
			{
				/* the first hole at or after docs[i] */
				while (i + 1 < n && docs[i + 1] == docs[i] + 1)
					i++;
				if (i + 1 == n)
				{
					gap = docs[n - 1] + 1;
					i = n;
				}
				else
					gap = docs[i] + 1;
			}
			nx = 0;
			for (uint32_t j = 0; j < n && docs[j] < gap; j++)
				if (unit_below(r, 3) == 0)
					x[nx++] = docs[j];
			x[nx++] = gap;
			s = gpx_plist_tfs_of(pl, x, nx, tf, &cnt);
			CHECKF(s == GPX_E_PAYLOAD, "%s: docID %u not in the list: %s", what, gap,
				   gpx_status_str(s));
			/* by index: one past the list, and two out of order */
			at[0] = n;
			s = gpx_plist_tfs_at(pl, at, 1, tf, NULL);
			CHECKF(s == GPX_E_PAYLOAD, "%s: index %u past the list: %s", what, n,
				   gpx_status_str(s));
			if (n >= 2)
			{
				at[0] = unit_below(r, n - 1) + 1;
				at[1] = unit_below(r, at[0] + 1);
				s = gpx_plist_tfs_at(pl, at, 2, tf, NULL);
				CHECKF(s == GPX_E_PAYLOAD, "%s: indexes %u, %u: %s", what, at[0], at[1],
					   gpx_status_str(s));
			}
			continue;
		}
		for (uint32_t i = 0; i < nx; i++)
			tf[i] = 0;
		tf[nx] = 0xEEEEEEEE;
		s = gpx_plist_tfs_of(pl, x, nx, tf, &cnt);
		for (uint32_t i = 0; i < nx; i++)
			ok &= tf[i] == w[i];
		CHECKF(s == GPX_OK && ok && tf[nx] == 0xEEEEEEEE, "%s: pass %d, %u of %u docIDs: %s",
			   what, pass, nx, n, gpx_status_str(s));
		CHECKF(cnt.blocks_decoded == cnt.tf_blocks && cnt.blocks_decoded <= pl->nblocks &&
			   (nx == 0 || cnt.blocks_decoded >= 1),
			   "%s: pass %d: %llu blocks decoded of %u", what, pass,
			   (unsigned long long) cnt.blocks_decoded, pl->nblocks);
		/* the same frequencies by index, no docID decoded */
		memset(&cnt, 0, sizeof(cnt));
		for (uint32_t i = 0; i < nx; i++)
			tf[i] = 0;
		s = gpx_plist_tfs_at(pl, at, nx, tf, &cnt);
		ok = true;
		for (uint32_t i = 0; i < nx; i++)
			ok &= tf[i] == w[i];
		CHECKF(s == GPX_OK && ok && tf[nx] == 0xEEEEEEEE && cnt.blocks_decoded == 0 &&
			   cnt.tf_blocks <= pl->nblocks && (nx == 0 || cnt.tf_blocks >= 1),
			   "%s: by index, pass %d, %u of %u: %s", what, pass, nx, n, gpx_status_str(s));
	}
	free(x);
	free(w);
	free(at);
	free(tf);
}

/*
 * gpx_plist_tfs_of and gpx_plist_tfs_at on every form: arrays (block
 * sizes 1 .. GPX_MAX_BLOCK), blobs without frequencies (all 1) and with
 * them, each codec.
 */
static void
test_plist_tfs_of(void)
{
	unit_rng	r = {67};

	for (int it = 0; it < 24; it++)
	{
		coll		c;
		uint32_t	span = 100 + unit_below(&r, it % 3 == 0 ? 300000 : 20000);
		blobs		bl,
					blt;
		char		what[96];

		coll_make(&c, &r, span, 7, it % 2 ? 3 : 1u << unit_below(&r, 31), false,
				  it % 4 == 0);
		blobs_make(&bl, &c, codecs[it % 3], false);
		blobs_make(&blt, &c, codecs[(it + 1) % 3], true);
		for (int t = 0; t < c.nterms; t++)
		{
			gpx_plist	arr;
			uint32_t	block = it % 2 ? 1 + unit_below(&r, GPX_MAX_BLOCK) : 128;

			CHECK(gpx_plist_arrays(&arr, c.docs[t], c.tfs[t], c.n[t], block) == GPX_OK);
			snprintf(what, sizeof(what), "#%d term %d arrays (block %u)", it, t, block);
			tfs_of_check(&arr, c.docs[t], c.tfs[t], c.n[t], &r, what);
			CHECK(gpx_plist_arrays(&arr, c.docs[t], NULL, c.n[t], block) == GPX_OK);
			snprintf(what, sizeof(what), "#%d term %d arrays without tfs", it, t);
			tfs_of_check(&arr, c.docs[t], NULL, c.n[t], &r, what);
			snprintf(what, sizeof(what), "#%d term %d %s blob", it, t,
					 gpx_codec_name(codecs[it % 3]));
			tfs_of_check(&bl.pl[t], c.docs[t], NULL, c.n[t], &r, what);
			snprintf(what, sizeof(what), "#%d term %d %s blob with tfs", it, t,
					 gpx_codec_name(codecs[(it + 1) % 3]));
			tfs_of_check(&blt.pl[t], c.docs[t], c.tfs[t], c.n[t], &r, what);
		}
		blobs_free(&bl, c.nterms);
		blobs_free(&blt, c.nterms);
		coll_free(&c);
	}
}

/* Edge cases and argument checks. */
static void
test_rank_edges(void)
{
	unit_rng	r = {51};
	coll		c;
	gpx_plist	arr[8];
	int			qt[4];
	gpx_rank_query q;
	const gpx_plist *terms[2];
	uint32_t	docs[4],
				n;
	double		scores[4];
	uint64_t	work[512];

	coll_make(&c, &r, 5000, 8, 50, true, false);
	for (int t = 0; t < 8; t++)
		gpx_plist_arrays(&arr[t], c.docs[t], c.tfs[t], c.n[t], 128);
	/* an empty list (term 6) and a NULL term, alone and with others */
	qt[0] = 6;
	run_one(&c, arr, qt, 1, false, GPX_RANK_BMM, 0.9, 0.4, 10, false, NULL, "empty", NULL);
	run_one(&c, arr, qt, 1, true, GPX_RANK_AUTO, 0.9, 0.4, 10, false, NULL, "empty", NULL);
	qt[0] = -1;
	qt[1] = 0;
	run_one(&c, arr, qt, 2, false, GPX_RANK_BMW, 0.9, 0.4, 10, false, NULL, "null", NULL);
	run_one(&c, arr, qt, 2, true, GPX_RANK_AUTO, 0.9, 0.4, 10, false, NULL, "null", NULL);
	/* one term repeated four times; b = 0 and k1 = 0 */
	qt[0] = qt[1] = qt[2] = qt[3] = 1;
	run_one(&c, arr, qt, 4, false, GPX_RANK_BMM, 0.0, 0.0, 50, false, NULL, "repeat", NULL);
	run_one(&c, arr, qt, 4, true, GPX_RANK_AUTO, 1.2, 1.0, 50, false, NULL, "repeat", NULL);
	/* arguments */
	terms[0] = &arr[0];
	q.terms = terms;
	q.nterms = 1;
	q.doclen = &c.dl;
	q.k1 = 0.9;
	q.b = 0.4;
	q.k = 4;
	CHECK(gpx_rank_or(&q, GPX_RANK_AUTO, work, sizeof(work), docs, scores, &n, NULL) == GPX_OK);
	q.k = 0;
	CHECK(gpx_rank_check(&q) == GPX_E_ARG);
	q.k = GPX_RANK_MAX_K + 1;
	CHECK(gpx_rank_check(&q) == GPX_E_ARG);
	q.k = 4;
	q.b = 1.5;
	CHECK(gpx_rank_check(&q) == GPX_E_ARG);
	q.b = 0.4;
	q.k1 = NAN;
	CHECK(gpx_rank_check(&q) == GPX_E_ARG);
	q.k1 = -1;
	CHECK(gpx_rank_check(&q) == GPX_E_ARG);
	q.k1 = 0.9;
	q.nterms = 0;
	CHECK(gpx_rank_check(&q) == GPX_E_ARG);
	q.nterms = 1;
	CHECK(gpx_rank_or(&q, GPX_RANK_AUTO, work, 8, docs, scores, &n, NULL) == GPX_E_NOSPACE);
	CHECK(gpx_rank_or(&q, GPX_RANK_AUTO, (uint8_t *) work + 4, sizeof(work) - 8,
					  docs, scores, &n, NULL) == GPX_E_ARG);
	{
		/* a list longer than the collection */
		gpx_plist	big = arr[0];

		big.n = (uint32_t) c.dl.ndocs + 1;
		terms[0] = &big;
		CHECK(gpx_rank_check(&q) == GPX_E_ARG);
	}
	coll_free(&c);
}

/*
 * Pruning pays: on a larger collection, top-10 OR with BMM, MaxScore and
 * BMW scores far fewer documents than exhaustive scoring (and the same
 * answers).
 */
static void
test_rank_pruning(void)
{
	unit_rng	r = {61};
	coll		c;
	gpx_plist	arr[8];
	uint64_t	ex = 0,
				ms = 0,
				bmm = 0,
				bmw = 0;

	coll_make(&c, &r, 300000, 8, 40, false, false);
	for (int t = 0; t < 8; t++)
		gpx_plist_arrays(&arr[t], c.docs[t], c.tfs[t], c.n[t], 128);
	for (int qi = 0; qi < 20; qi++)
	{
		int			qt[4];
		gpx_rank_stats st;

		for (int i = 0; i < 4; i++)
			qt[i] = (int) unit_below(&r, 6);
		answer		w;

		answer_make(&w, &c, qt, 4, false, 0.9, 0.4, 10, false);
		run_one(&c, arr, qt, 4, false, GPX_RANK_EXHAUSTIVE, 0.9, 0.4, 10, false, &st, "prune", &w);
		ex += st.scored;
		run_one(&c, arr, qt, 4, false, GPX_RANK_MAXSCORE, 0.9, 0.4, 10, false, &st, "prune", &w);
		ms += st.scored;
		run_one(&c, arr, qt, 4, false, GPX_RANK_BMM, 0.9, 0.4, 10, false, &st, "prune", &w);
		bmm += st.scored;
		run_one(&c, arr, qt, 4, false, GPX_RANK_BMW, 0.9, 0.4, 10, false, &st, "prune", &w);
		bmw += st.scored;
		free(w.p);
	}
	printf("  scored: exhaustive %llu, maxscore %llu, bmm %llu, bmw %llu\n",
		   (unsigned long long) ex, (unsigned long long) ms,
		   (unsigned long long) bmm, (unsigned long long) bmw);
	CHECKF(ms * 4 < ex && bmm * 4 < ex && bmw * 4 < ex,
		   "pruning scored too many documents");
	CHECK(bmm <= ms);
	coll_free(&c);
}

/* A batch of random AND and OR queries equals one call per query. */
static void
test_rank_batch(void)
{
	unit_rng	r = {81};
	coll		c;
	blobs		bl;
	gpx_rank_bquery qs[40];
	gpx_rank_bterm terms[200];
	gpx_rank_batch b;
	uint32_t	nt = 0;
	uint64_t	slots = 0;
	size_t		ws;
	void	   *work;
	bool		ok = true;

	coll_make(&c, &r, 20000, 10, 50, false, false);
	blobs_make(&bl, &c, GPX_CODEC_PFOR, true);	/* real frequencies */
	memset(&b, 0, sizeof(b));
	for (int q = 0; q < 40; q++)
	{
		uint32_t	m = 1 + unit_below(&r, 4);

		qs[q].first_term = nt;
		qs[q].nterms = m;
		qs[q].k = 1 + unit_below(&r, q % 2 ? 20 : 500);
		qs[q].mode = q % 3 == 0 ? GPX_RANK_MODE_AND : GPX_RANK_MODE_OR;
		qs[q].out_offset = slots;
		slots += qs[q].k;
		for (uint32_t i = 0; i < m; i++)
			terms[nt++].list = unit_below(&r, 30) == 0 ? -1 : (int32_t) unit_below(&r, 10);
	}
	b.nqueries = 40;
	b.nterms = nt;
	b.nlists = 10;
	b.queries = qs;
	b.terms = terms;
	b.lists = bl.l;
	b.doclen = &c.dl;
	b.k1 = 1.1;
	b.b = 0.6;
	b.or_algo = GPX_RANK_AUTO;
	b.out_slots = slots;
	b.out_docs = unit_xmalloc(sizeof(uint32_t) * slots);
	b.out_scores = unit_xmalloc(sizeof(double) * slots);
	CHECK(gpx_rank_batch_prepare(&b) == GPX_OK);
	for (uint32_t t = 0; t < nt; t++)
		if (terms[t].list >= 0 &&
			(terms[t].df != c.n[terms[t].list] ||
			 terms[t].idf != gpx_bm25_idf(c.dl.ndocs, c.n[terms[t].list])))
			ok = false;
	CHECKF(ok, "prepared df or idf");
	ws = gpx_rank_batch_work_size(&b, 0, 40);
	work = unit_xmalloc(ws);
	CHECK(gpx_rank_batch_run(&b, 0, 20, work, ws, NULL) == GPX_OK);
	CHECK(gpx_rank_batch_run(&b, 20, 20, work, ws, NULL) == GPX_OK);
	for (int q = 0; q < 40; q++)
	{
		int			qt[8];

		for (uint32_t i = 0; i < qs[q].nterms; i++)
			qt[i] = terms[qs[q].first_term + i].list;
		if (qs[q].status != GPX_OK)
			ok = false;
		else
		{
			answer		a;
			uint32_t	o = (uint32_t) qs[q].out_offset;

			answer_make(&a, &c, qt, (int) qs[q].nterms, qs[q].mode == GPX_RANK_MODE_AND,
						1.1, 0.6, qs[q].k, false);
			if (a.n != qs[q].out_count)
				ok = false;
			for (uint32_t i = 0; i < a.n && ok; i++)
				if (b.out_docs[o + i] != a.p[i].doc ||
					memcmp(&b.out_scores[o + i], &a.p[i].score, sizeof(double)) != 0)
					ok = false;
			free(a.p);
		}
	}
	CHECKF(ok, "batch answers differ from the naive scorer");
	/* a too small workspace fails the query, not the batch */
	CHECK(gpx_rank_batch_run(&b, 0, 1, work, 8, NULL) == GPX_OK && qs[0].status == GPX_E_NOSPACE);
	/* shapes prepare refuses */
	terms[0].list = 10;
	CHECK(gpx_rank_batch_prepare(&b) == GPX_E_ARG);
	terms[0].list = 0;
	qs[1].k = 0;
	CHECK(gpx_rank_batch_prepare(&b) == GPX_E_ARG);
	qs[1].k = 1;
	qs[39].out_offset = slots;
	CHECK(gpx_rank_batch_prepare(&b) == GPX_E_ARG);
	qs[39].out_offset = 0;
	qs[2].nterms = nt + 1;
	CHECK(gpx_rank_batch_prepare(&b) == GPX_E_ARG);
	qs[2].nterms = 1;
	b.b = 2.0;
	CHECK(gpx_rank_batch_prepare(&b) == GPX_E_ARG);
	b.b = 0.5;
	CHECK(gpx_rank_batch_prepare(&b) == GPX_OK);
	free(work);
	free(b.out_docs);
	free(b.out_scores);
	blobs_free(&bl, 10);
	coll_free(&c);
}

/* One random batch for test_rank_merge: nq queries over its own nl lists. */
static void
merge_batch(unit_rng *r, const blobs *bl, const coll *c, uint32_t nq, uint32_t nl,
			gpx_list *lists, gpx_key *keys, gpx_rank_bquery *qs, gpx_rank_bterm *terms,
			gpx_rank_batch *b)
{
	uint32_t	nt = 0;
	uint64_t	slots = 0;

	for (uint32_t l = 0; l < nl; l++)
	{
		lists[l] = bl->l[unit_below(r, 10)];	/* its own order of the lists */
		keys[l].hi = l + 1;
		keys[l].lo = 0x5eed0000u + l;
	}
	for (uint32_t q = 0; q < nq; q++)
	{
		uint32_t	m = 1 + unit_below(r, 4);

		qs[q].first_term = nt;
		qs[q].nterms = m;
		qs[q].k = 1 + unit_below(r, q % 2 ? 30 : 400);
		qs[q].mode = q % 3 == 0 ? GPX_RANK_MODE_AND : GPX_RANK_MODE_OR;
		qs[q].out_offset = slots;
		slots += qs[q].k + unit_below(r, 3);	/* gaps between result ranges */
		for (uint32_t i = 0; i < m; i++)
			terms[nt++].list = unit_below(r, 25) == 0 ? -1 : (int32_t) unit_below(r, nl);
	}
	memset(b, 0, sizeof(*b));
	b->nqueries = nq;
	b->nterms = nt;
	b->nlists = nl;
	b->queries = qs;
	b->terms = terms;
	b->lists = lists;
	b->list_keys = keys;
	b->doclen = &c->dl;
	b->doclen_id = 77;
	b->k1 = 0.9;
	b->b = 0.4;
	b->or_algo = GPX_RANK_AUTO;
	b->out_slots = slots;
	b->out_docs = unit_xmalloc(sizeof(uint32_t) * slots);
	b->out_scores = unit_xmalloc(sizeof(double) * slots);
}

/*
 * Batches merged (gpx_rank_merge), run as one and scattered back give each
 * query the answer its own batch gives run alone, bit for bit; the
 * merged batch's renumbering, keys and shape are checked, and batches
 * that disagree on a batch-wide field are not compatible.
 */
static void
test_rank_merge(void)
{
	enum
	{
		NB = 3
	};
	unit_rng	r = {97};
	coll		c;
	blobs		bl;
	gpx_list	lists[NB][8];
	gpx_key		keys[NB][8];
	gpx_rank_bquery qs[NB][24];
	gpx_rank_bterm terms[NB][100];
	uint32_t	nq[NB] = {24, 1, 13},
				nl[NB] = {8, 3, 6};
	gpx_rank_batch b[NB],
				alone[NB],
				m,
			   *bs[NB];
	gpx_rank_bquery qa[NB][24];
	size_t		ws,
				rw;
	void	   *work,
			   *mwork;
	bool		ok = true;
	uint32_t	oq = 0,
				ol = 0;

	coll_make(&c, &r, 20000, 10, 50, false, false);
	blobs_make(&bl, &c, GPX_CODEC_PFOR, true);
	for (int i = 0; i < NB; i++)
	{
		merge_batch(&r, &bl, &c, nq[i], nl[i], lists[i], keys[i], qs[i], terms[i], &b[i]);
		CHECK(gpx_rank_batch_prepare(&b[i]) == GPX_OK);
		bs[i] = &b[i];
	}
	b[1].list_keys = NULL;		/* a batch without keys */

	/* each alone: the reference */
	for (int i = 0; i < NB; i++)
	{
		alone[i] = b[i];
		memcpy(qa[i], qs[i], sizeof(gpx_rank_bquery) * nq[i]);
		alone[i].queries = qa[i];
		alone[i].out_docs = unit_xmalloc(sizeof(uint32_t) * b[i].out_slots);
		alone[i].out_scores = unit_xmalloc(sizeof(double) * b[i].out_slots);
		rw = gpx_rank_batch_work_size(&alone[i], 0, nq[i]);
		work = unit_xmalloc(rw);
		CHECK(gpx_rank_batch_run(&alone[i], 0, nq[i], work, rw, NULL) == GPX_OK);
		free(work);
	}

	CHECK(gpx_rank_merge_compatible(&b[0], &b[2]));
	ws = gpx_rank_merge_size(bs, NB);
	mwork = unit_xmalloc(ws);
	CHECK(gpx_rank_merge(bs, NB, mwork, ws - 1, &m) == GPX_E_ARG);
	CHECK(gpx_rank_merge(bs, 0, mwork, ws, &m) == GPX_E_ARG);
	CHECK(gpx_rank_merge(bs, NB, mwork, ws, &m) == GPX_OK);
	CHECK(m.nqueries == nq[0] + nq[1] + nq[2] && m.nlists == nl[0] + nl[1] + nl[2] &&
		  m.nterms == b[0].nterms + b[1].nterms + b[2].nterms &&
		  m.out_slots == b[0].out_slots + b[1].out_slots + b[2].out_slots &&
		  m.doclen == b[0].doclen && m.doclen_id == 77 && m.list_keys != NULL);
	for (int i = 0; i < NB; i++)
	{
		for (uint32_t q = 0; q < nq[i]; q++)
		{
			const gpx_rank_bquery *mq = &m.queries[oq + q];

			for (uint32_t t = 0; t < mq->nterms; t++)
			{
				const gpx_rank_bterm *mt = &m.terms[mq->first_term + t];
				const gpx_rank_bterm *bt = &b[i].terms[qs[i][q].first_term + t];

				if (bt->list < 0 ? mt->list != -1 :
					mt->list != bt->list + (int32_t) ol ||
					m.lists[mt->list].base != b[i].lists[bt->list].base)
					ok = false;
			}
			if (mq->status != -1 || mq->out_count != 0)
				ok = false;
		}
		for (uint32_t l = 0; l < nl[i]; l++)
			if (i == 1 ? (m.list_keys[ol + l].hi != 0 || m.list_keys[ol + l].lo != 0) :
				memcmp(&m.list_keys[ol + l], &keys[i][l], sizeof(gpx_key)) != 0)
				ok = false;
		oq += nq[i];
		ol += nl[i];
	}
	CHECKF(ok, "merged terms, lists or keys renumbered wrong");
	rw = gpx_rank_batch_work_size(&m, 0, m.nqueries);
	work = unit_xmalloc(rw);
	CHECK(gpx_rank_batch_run(&m, 0, m.nqueries, work, rw, NULL) == GPX_OK);
	free(work);
	for (int i = 0; i < NB; i++)
		for (uint32_t q = 0; q < nq[i]; q++)
			qs[i][q].status = -1;
	gpx_rank_merge_scatter(&m, bs, NB);
	for (int i = 0; i < NB; i++)
		for (uint32_t q = 0; q < nq[i] && ok; q++)
		{
			const gpx_rank_bquery *x = &qs[i][q],
					   *y = &qa[i][q];

			if (x->status != GPX_OK || y->status != GPX_OK || x->out_count != y->out_count ||
				memcmp(b[i].out_docs + x->out_offset, alone[i].out_docs + y->out_offset,
					   sizeof(uint32_t) * x->out_count) != 0 ||
				memcmp(b[i].out_scores + x->out_offset, alone[i].out_scores + y->out_offset,
					   sizeof(double) * x->out_count) != 0)
				ok = false;
		}
	CHECKF(ok, "merged answers differ from each batch's own");

	/* what may not run merged */
	b[2].k1 = 1.2;
	CHECK(!gpx_rank_merge_compatible(&b[0], &b[2]));
	b[2].k1 = 0.9;
	b[2].doclen_id = 78;
	CHECK(!gpx_rank_merge_compatible(&b[0], &b[2]));
	b[0].doclen_id = b[2].doclen_id = 0;
	CHECK(!gpx_rank_merge_compatible(&b[0], &b[2]));
	free(mwork);
	for (int i = 0; i < NB; i++)
	{
		free(b[i].out_docs);
		free(b[i].out_scores);
		free(alone[i].out_docs);
		free(alone[i].out_scores);
	}
	blobs_free(&bl, 10);
	coll_free(&c);
}

int
main(void)
{
	UNIT_RUN(test_topk());
	UNIT_RUN(test_topk_all());
	UNIT_RUN(test_doclen());
	UNIT_RUN(test_bm25());
	UNIT_RUN(test_plist_tfs_of());
	UNIT_RUN(test_rank_random());
	UNIT_RUN(test_rank_edges());
	UNIT_RUN(test_rank_pruning());
	UNIT_RUN(test_rank_batch());
	UNIT_RUN(test_rank_merge());
	return unit_finish();
}
