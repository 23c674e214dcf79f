/*
 * bench_rank.c - library-level benchmark of ranked retrieval (no
 * PostgreSQL): the OR algorithms (exhaustive, MaxScore, block-max
 * MaxScore, BlockMax-WAND) and ranked AND, top-k, on a gpx_gen --tf
 * collection, one thread, all algorithms on the same queries in one run,
 * every answer of the first round checked equal (docIDs, order, score
 * bits) to exhaustive scoring's (OR) or to a naive ranked AND over the
 * decoded arrays (AND); a line ends "ok" or "MISMATCH".  Times are wall clock and this thread's CPU time (the latter
 * less disturbed by other processes on a shared machine).
 *
 *   bench_rank --dir GENDIR [--min-shortest N] [--k K] [--min-time S]
 *              [--codec pfor|lrc|qs|arrays] [--queries Q] [--only NAME]
 *              [--dump FILE] [--simd LEVEL]
 *
 * --simd LEVEL forces a vectorised variant (scalar, sse41, avx2, avx512;
 * default: the best this CPU has), to compare them on one machine.
 * --only NAME runs one algorithm (its name as printed: "AND", "OR bmm"...);
 * --dump FILE writes every answer (algorithm, query, rank, docID, score
 * bits) of the first round, to compare two builds bit for bit.
 *
 * GENDIR holds gpx_gen's terms.copy, postings.copy, tfs.copy,
 * doclens.copy and queries.copy.  Only the queries whose shortest list has
 * >= N docIDs are run (and only their lists loaded).  --codec: the lists
 * as blobs of that codec with their frequencies (gpx_encode_tf, as the
 * SQL types store them) or as decoded arrays in blocks of 128 with their
 * frequencies (the default).  Prints one line per algorithm:
 * queries/s, mean ms, and mean work per query.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpx_cpu.h"
#include "gpx_rank.h"
#include "gpx_ref.h"
#include "gen_common.h"
#include "bench_util.h"

#define MAXQ_TERMS 16

typedef struct blist
{
	uint32_t	term;
	uint32_t	n;
	uint32_t   *docs;
	uint32_t   *tfs;
	uint8_t    *blob;
	gpx_list	l;
	gpx_plist	pl;
} blist;

static blist *lists;
static uint32_t nlists;
static uint32_t *term_slot;		/* term_id -> slot + 1 (0: not loaded) */
static uint32_t max_term;

/* Seconds of CPU time of this thread (other processes' load excluded). */
static double
cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Exit with a message. */
static void
die(const char *msg, const char *arg)
{
	fprintf(stderr, "bench_rank: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
	exit(2);
}

static FILE *
open_in(const char *dir, const char *name)
{
	char		path[4096];
	FILE	   *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (f == NULL)
		die("cannot open", path);
	return f;
}

/* One scored document of the naive ranked AND. */
typedef struct nscore
{
	uint32_t	doc;
	double		score;
} nscore;

/* Best first: higher score, then smaller docID. */
static int
nscore_cmp(const void *a, const void *b)
{
	const nscore *x = a,
			   *y = b;

	if (x->score != y->score)
		return x->score > y->score ? -1 : 1;
	return x->doc < y->doc ? -1 : x->doc > y->doc;
}

/* x's index in the sorted run d[0..n), or -1 when it lacks x. */
static int
naive_has(const uint32_t *d, uint32_t n, uint32_t x)
{
	uint32_t	lo = ref_lower_bound(d, n, x);

	return lo < n && d[lo] == x ? (int) lo : -1;
}

/*
 * The reference ranked AND, independent of the library's intersection
 * and frequency paths: every docID of the first term's decoded array
 * looked up in the others', BM25 summed in query-term order (the bits the
 * library promises), all matches sorted best first; the top k into
 * docs/scores, their number returned.
 */
static uint32_t
naive_rank_and(blist *const *t, uint32_t m, const gpx_doclen *dl, uint32_t k,
			   uint32_t *docs, double *scores)
{
	gpx_bm25	bm;
	nscore	   *all = malloc((t[0]->n + 1) * sizeof(nscore));
	uint32_t	na = 0;

	gpx_bm25_init(&bm, GPX_BM25_K1_DEFAULT, GPX_BM25_B_DEFAULT, dl->ndocs, dl->total);
	for (uint32_t i = 0; i < t[0]->n; i++)
	{
		uint32_t	d = t[0]->docs[i];
		double		norm = gpx_bm25_norm(&bm, gpx_rank_dl(dl, &bm, d)),
					sc = 0.0;
		uint32_t	j;

		for (j = 0; j < m; j++)
		{
			int			at = naive_has(t[j]->docs, t[j]->n, d);

			if (at < 0)
				break;
			sc += gpx_bm25_weight(&bm, gpx_bm25_idf(dl->ndocs, t[j]->n), t[j]->tfs[at], norm);
		}
		if (j == m)
		{
			all[na].doc = d;
			all[na++].score = sc;
		}
	}
	qsort(all, na, sizeof(nscore), nscore_cmp);
	if (na > k)
		na = k;
	for (uint32_t i = 0; i < na; i++)
	{
		docs[i] = all[i].doc;
		scores[i] = all[i].score;
	}
	free(all);
	return na;
}

int
main(int argc, char **argv)
{
	const char *dir = NULL,
			   *codec = "arrays",
			   *only = NULL;
	FILE	   *dump = NULL;
	uint32_t	min_shortest = 10000,
				k = 10,
				maxq = 0;
	double		min_time = 2.0;
	char	   *line = NULL;
	size_t		cap = 0,
				bcap = 0;
	uint32_t   *buf = NULL,
			   *df = NULL;
	FILE	   *f;
	uint32_t	nq = 0;
	uint32_t  (*qterms)[MAXQ_TERMS] = NULL;
	uint32_t   *qlen = NULL;
	uint32_t   *dl_docs,
			   *dl_lens,
				ndl = 0,
				dlcap = 1 << 20;
	uint8_t    *dlblob;
	size_t		dlsize,
				dllen;
	gpx_doclen	dl;
	int			cid = 0;

	for (int i = 1; i < argc; i++)
	{
		if (!strcmp(argv[i], "--dir") && i + 1 < argc)
			dir = argv[++i];
		else if (!strcmp(argv[i], "--min-shortest") && i + 1 < argc)
			min_shortest = (uint32_t) atol(argv[++i]);
		else if (!strcmp(argv[i], "--k") && i + 1 < argc)
			k = (uint32_t) atol(argv[++i]);
		else if (!strcmp(argv[i], "--min-time") && i + 1 < argc)
			min_time = atof(argv[++i]);
		else if (!strcmp(argv[i], "--codec") && i + 1 < argc)
			codec = argv[++i];
		else if (!strcmp(argv[i], "--queries") && i + 1 < argc)
			maxq = (uint32_t) atol(argv[++i]);
		else if (!strcmp(argv[i], "--only") && i + 1 < argc)
			only = argv[++i];
		else if (!strcmp(argv[i], "--simd") && i + 1 < argc)
		{
			int			lv = gpx_simd_parse(argv[++i]);

			if (lv < 0 || gpx_simd_force(lv) != GPX_OK)
				die("unknown or unsupported --simd level", argv[i]);
		}
		else if (!strcmp(argv[i], "--dump") && i + 1 < argc)
		{
			if ((dump = fopen(argv[++i], "w")) == NULL)
				die("cannot write", argv[i]);
		}
		else
			die("usage: bench_rank --dir GENDIR [--min-shortest N] [--k K] [--min-time S] [--codec pfor|lrc|qs|arrays] [--queries Q] [--only NAME] [--dump FILE] [--simd LEVEL]", NULL);
	}
	if (dir == NULL)
		die("--dir is required", NULL);
	if (!strcmp(codec, "pfor"))
		cid = GPX_CODEC_PFOR;
	else if (!strcmp(codec, "lrc"))
		cid = GPX_CODEC_LRC;
	else if (!strcmp(codec, "qs"))
		cid = GPX_CODEC_QS;
	else if (strcmp(codec, "arrays"))
		die("unknown codec", codec);

	/* document frequencies */
	f = open_in(dir, "terms.copy");
	while (gen_getline(f, &line, &cap) >= 0)
	{
		uint32_t	t,
					d;

		if (sscanf(line, "%u\t%u", &t, &d) != 2)
			die("bad terms.copy line", line);
		if (t >= max_term)
		{
			uint32_t	nm = (t + 1) * 2;

			df = realloc(df, nm * sizeof(uint32_t));
			memset(df + max_term, 0, (nm - max_term) * sizeof(uint32_t));
			max_term = nm;
		}
		df[t] = d;
	}
	fclose(f);
	term_slot = calloc(max_term, sizeof(uint32_t));

	/* the queries whose shortest list qualifies */
	f = open_in(dir, "queries.copy");
	while (gen_getline(f, &line, &cap) >= 0 && (maxq == 0 || nq < maxq))
	{
		const char *p = strchr(line, '\t');
		long		m;
		uint32_t	shortest = UINT32_MAX;

		if (p == NULL)
			die("bad queries.copy line", line);
		p++;
		m = gen_parse_array(&p, &buf, &bcap);
		if (m < 1 || m > MAXQ_TERMS)
			continue;
		for (long i = 0; i < m; i++)
			if (buf[i] >= max_term || df[buf[i]] < shortest)
				shortest = buf[i] >= max_term ? 0 : df[buf[i]];
		if (shortest < min_shortest)
			continue;
		qterms = realloc(qterms, (nq + 1) * sizeof(*qterms));
		qlen = realloc(qlen, (nq + 1) * sizeof(uint32_t));
		for (long i = 0; i < m; i++)
		{
			qterms[nq][i] = buf[i];
			if (term_slot[buf[i]] == 0)
				term_slot[buf[i]] = ++nlists;
		}
		qlen[nq++] = (uint32_t) m;
	}
	fclose(f);
	if (nq == 0)
		die("no query qualifies", NULL);
	lists = calloc(nlists, sizeof(blist));

	/* their lists and frequencies */
	{
		FILE	   *fp = open_in(dir, "postings.copy"),
				   *ft = open_in(dir, "tfs.copy");
		char	   *line2 = NULL;
		size_t		cap2 = 0;
		uint32_t   *buf2 = NULL;
		size_t		bcap2 = 0;

		while (gen_getline(fp, &line, &cap) >= 0)
		{
			const char *p = strchr(line, '\t'),
					   *q;
			uint32_t	t = (uint32_t) atol(line);
			long		n,
						n2;
			blist	   *b;

			if (gen_getline(ft, &line2, &cap2) < 0 || (uint32_t) atol(line2) != t)
				die("tfs.copy does not match postings.copy", NULL);
			if (t >= max_term || term_slot[t] == 0)
				continue;
			q = strchr(line2, '\t');
			if (p == NULL || q == NULL)
				die("bad line", line);
			p++;
			q++;
			n = gen_parse_array(&p, &buf, &bcap);
			n2 = gen_parse_array(&q, &buf2, &bcap2);
			if (n < 0 || n != n2)
				die("bad postings/tfs line", line);
			b = &lists[term_slot[t] - 1];
			b->term = t;
			b->n = (uint32_t) n;
			b->docs = malloc((n + 1) * sizeof(uint32_t));
			b->tfs = malloc((n + 1) * sizeof(uint32_t));
			memcpy(b->docs, buf, n * sizeof(uint32_t));
			memcpy(b->tfs, buf2, n * sizeof(uint32_t));
		}
		fclose(fp);
		fclose(ft);
		free(line2);
		free(buf2);
	}

	/* statistics */
	dl_docs = malloc(dlcap * sizeof(uint32_t));
	dl_lens = malloc(dlcap * sizeof(uint32_t));
	f = open_in(dir, "doclens.copy");
	while (gen_getline(f, &line, &cap) >= 0)
	{
		uint32_t	d,
					l;

		if (sscanf(line, "%u\t%u", &d, &l) != 2)
			die("bad doclens.copy line", line);
		if (ndl == dlcap)
		{
			dlcap *= 2;
			dl_docs = realloc(dl_docs, dlcap * sizeof(uint32_t));
			dl_lens = realloc(dl_lens, dlcap * sizeof(uint32_t));
		}
		dl_docs[ndl] = d;
		dl_lens[ndl++] = l;
	}
	fclose(f);
	dlsize = gpx_doclen_pairs_size(dl_docs, dl_lens, ndl);
	if (dlsize == 0)
		die("bad document lengths", NULL);
	dlblob = malloc(dlsize);
	if (gpx_doclen_encode_pairs(dl_docs, dl_lens, ndl, dlblob, dlsize, &dllen) != GPX_OK ||
		gpx_doclen_open(&dl, dlblob, dllen) != GPX_OK)
		die("cannot encode the document lengths", NULL);

	/* the list views */
	for (uint32_t i = 0; i < nlists; i++)
	{
		blist	   *b = &lists[i];

		if (b->docs == NULL)
			die("a query term has no list", NULL);
		if (cid == 0)
			gpx_plist_arrays(&b->pl, b->docs, b->tfs, b->n, 128);
		else
		{
			size_t		bound = gpx_encode_bound_tf(cid, b->n, b->n ? b->docs[b->n - 1] : 0),
						len;

			b->blob = malloc(bound);
			if (gpx_encode_tf(cid, b->docs, b->tfs, b->n, b->blob, bound, &len) != GPX_OK ||
				gpx_open(&b->l, b->blob, len) != GPX_OK ||
				gpx_plist_blob(&b->pl, &b->l) != GPX_OK)
				die("cannot encode a list", NULL);
		}
	}
	printf("bench_rank: %u queries with shortest list >= %u, %u lists, %u documents, k %u, lists: %s%s\n",
		   nq, min_shortest, nlists, (unsigned) dl.ndocs, k, codec,
		   cid ? " blobs with frequencies (as SQL stores them)" : "");

	{
		static const struct
		{
			const char *name;
			int			and;
			gpx_rank_algo algo;
		}			runs[] = {
			{"OR exhaustive", 0, GPX_RANK_EXHAUSTIVE},
			{"OR maxscore", 0, GPX_RANK_MAXSCORE},
			{"OR bmm", 0, GPX_RANK_BMM},
			{"OR bmw", 0, GPX_RANK_BMW},
			{"AND", 1, GPX_RANK_AUTO}};
		uint32_t   *ref_docs = malloc((size_t) nq * k * sizeof(uint32_t)),
				   *ref_n = calloc(nq, sizeof(uint32_t)),
				   *docs = malloc(k * sizeof(uint32_t)),
				   *and_docs = malloc((size_t) nq * k * sizeof(uint32_t)),
				   *and_n = calloc(nq, sizeof(uint32_t));
		double	   *ref_sc = malloc((size_t) nq * k * sizeof(double)),
				   *scores = malloc(k * sizeof(double)),
				   *and_sc = malloc((size_t) nq * k * sizeof(double));

		/* the naive ranked AND's answers, before any timing */
		if (only == NULL || strcmp(only, "AND") == 0)
			for (uint32_t q = 0; q < nq; q++)
			{
				blist	   *qt[MAXQ_TERMS];

				for (uint32_t i = 0; i < qlen[q]; i++)
					qt[i] = &lists[term_slot[qterms[q][i]] - 1];
				and_n[q] = naive_rank_and(qt, qlen[q], &dl, k, and_docs + (size_t) q * k,
										  and_sc + (size_t) q * k);
			}

		for (size_t r = 0; r < sizeof(runs) / sizeof(runs[0]); r++)
		{
			if (only != NULL && strcmp(only, runs[r].name) != 0)
				continue;
			double		t0 = now(),
						c0 = cpu_now(),
						el,
						cel;
			uint64_t	done = 0,
						scored = 0,
						postings = 0,
						blocks = 0,
						tfb = 0,
						bad = 0;

			do
			{
				for (uint32_t q = 0; q < nq; q++)
				{
					const gpx_plist *terms[MAXQ_TERMS];
					gpx_rank_query rq;
					gpx_rank_stats st;
					uint32_t	outn;
					size_t		ws;
					void	   *work;
					gpx_status	s;

					for (uint32_t i = 0; i < qlen[q]; i++)
						terms[i] = &lists[term_slot[qterms[q][i]] - 1].pl;
					rq.terms = terms;
					rq.nterms = (int) qlen[q];
					rq.doclen = &dl;
					rq.k1 = GPX_BM25_K1_DEFAULT;
					rq.b = GPX_BM25_B_DEFAULT;
					rq.k = k;
					ws = runs[r].and ? gpx_rank_and_work_size(&rq) : gpx_rank_or_work_size(rq.nterms);
					work = malloc(ws);
					s = runs[r].and ? gpx_rank_and(&rq, work, ws, docs, scores, &outn, &st) :
						gpx_rank_or(&rq, runs[r].algo, work, ws, docs, scores, &outn, &st);
					free(work);
					if (s != GPX_OK)
						die("ranking failed", gpx_status_str(s));
					if (done < nq)
					{
						/*
						 * check: OR against exhaustive scoring (its first
						 * run), AND against the naive reference
						 */
						if (runs[r].and)
						{
							if (outn != and_n[q] ||
								memcmp(docs, and_docs + (size_t) q * k, outn * sizeof(uint32_t)) ||
								memcmp(scores, and_sc + (size_t) q * k, outn * sizeof(double)))
								bad++;
						}
						else if (r == 0)
						{
							ref_n[q] = outn;
							memcpy(ref_docs + (size_t) q * k, docs, outn * sizeof(uint32_t));
							memcpy(ref_sc + (size_t) q * k, scores, outn * sizeof(double));
						}
						else if (outn != ref_n[q] ||
								 memcmp(docs, ref_docs + (size_t) q * k, outn * sizeof(uint32_t)) ||
								 memcmp(scores, ref_sc + (size_t) q * k, outn * sizeof(double)))
							bad++;
						if (dump != NULL)
							for (uint32_t j = 0; j < outn; j++)
							{
								uint64_t	bits;

								memcpy(&bits, &scores[j], sizeof(bits));
								fprintf(dump, "%s\t%u\t%u\t%u\t%016llx\n", runs[r].name, q, j,
										docs[j], (unsigned long long) bits);
							}
						scored += st.scored;
						postings += st.postings;
						blocks += st.lists.blocks_decoded;
						tfb += st.lists.tf_blocks;
					}
					done++;
				}
			} while ((el = now() - t0) < min_time);
			cel = cpu_now() - c0;
			printf("%-14s %9.1f q/s %8.3f ms (cpu %8.3f ms)  per query: %9.0f scored %9.0f postings %7.0f blocks %7.0f tf blocks  %s\n",
				   runs[r].name, done / el, el * 1000.0 / done, cel * 1000.0 / done, (double) scored / nq,
				   (double) postings / nq, (double) blocks / nq, (double) tfb / nq,
				   bad ? "MISMATCH" : "ok");
		}
	}
	if (dump != NULL)
		fclose(dump);
	return 0;
}
