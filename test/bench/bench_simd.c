/*
 * bench_simd.c - the codec's vectorised variants side by side (and, built
 * as bench_roaring with -DBENCH_ROARING, CRoaring beside them), one
 * thread, library level, no PostgreSQL.
 *
 *   bench_simd --postings postings.copy [--queries queries.copy]
 *              [--min-shortest N] [--rounds R] [--min-time S]
 *              [--variants scalar,avx2,...] [--tsv OUT] [--probe-ratio R]
 *              [--skip-decode 1] [--codec pfor|lrc|qs]
 *
 * postings.copy: "id<TAB>{docIDs}" lines (gpx_gen's output); queries.copy:
 * "qid<TAB>{ids}" lines naming posting ids.  Every list is encoded by each
 * codec in the current format.  Figures, each the best of R interleaved
 * rounds (every variant and codec measured once per round, in turn, so
 * that load on a shared machine hits them alike), on the thread's CPU
 * clock (CLOCK_THREAD_CPUTIME_ID: time the thread ran, not time it waited
 * for a core):
 *   decode   gpx_decode of every list, M docIDs/s, per codec and variant;
 *   isect    gpx_intersect of every query, queries/s, per codec and
 *            variant, over all queries and over those whose shortest list
 *            has >= --min-shortest docIDs (default 10^4);
 *   roaring  (bench_roaring only) the same queries as CRoaring bitmaps
 *            (roaring_bitmap_of_ptr, then roaring_bitmap_run_optimize),
 *            lists in increasing cardinality, roaring_bitmap_and of the
 *            first two, then roaring_bitmap_and_inplace with each other
 *            one, the cardinality read; timed in the same rounds, with
 *            the sizes (portable serialisation) beside the codecs'.
 * Every decode is compared with the input lists and every intersection
 * count with a naive merge (and roaring's with it) before timing; a
 * mismatch is printed and the program exits 1.  Variants the CPU lacks
 * are listed as such.  --probe-ratio R: gpx_intersect_ex's probe_ratio
 * (0, the default: the library's); --skip-decode 1 and --codec NAME
 * narrow the timed figures (profiling).  GPX_SIMD in the environment is ignored here:
 * --variants chooses (default: every supported one).
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gpx_codec.h"
#include "gpx_cpu.h"
#include "gpx_intersect.h"

#ifdef BENCH_ROARING
#include <roaring/roaring.h>
#endif

#define NCODECS 3
#define MAXK 16

static const int codecs[NCODECS] = {GPX_CODEC_PFOR, GPX_CODEC_LRC, GPX_CODEC_QS};

typedef struct slist
{
	uint32_t	id;
	uint32_t	n;
	uint32_t   *docs;
	uint8_t    *blob[NCODECS];
	size_t		len[NCODECS];
	gpx_list	view[NCODECS];
	bool		used;			/* named by a query */
#ifdef BENCH_ROARING
	roaring_bitmap_t *rb;
#endif
} slist;

typedef struct squery
{
	uint32_t	qid;
	int			k;
	uint32_t	list[MAXK];		/* indexes into lists */
	uint32_t	shortest;
	uint32_t	answer;			/* count, from the naive merge */
} squery;

static slist *lists;
static uint32_t nlists;
static uint64_t ndocids;
static squery *queries;
static uint32_t nqueries;
static gpx_isect_opts isect_opts;	/* --probe-ratio */
static bool skip_decode;		/* --skip-decode 1: intersections only */
static int	only_codec = -1;	/* --codec NAME: that codec only */

/* Exit with a message. */
static void
die(const char *msg, const char *arg)
{
	fprintf(stderr, "bench_simd: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
	exit(2);
}

/* Seconds of CPU time this thread has run. */
static double
cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Parse "{a,b,c}" at s into a malloc'd array; returns the count. */
static uint32_t
parse_array(const char *s, uint32_t **out)
{
	size_t		cap = 64,
				n = 0;
	uint32_t   *a = malloc(cap * sizeof(uint32_t));
	char	   *e;

	if (a == NULL)
		die("out of memory", NULL);
	s = strchr(s, '{');
	if (s == NULL)
		die("bad array", NULL);
	s++;
	while (*s && *s != '}')
	{
		unsigned long v = strtoul(s, &e, 10);

		if (e == s)
			die("bad array element", s);
		if (n == cap && (a = realloc(a, (cap *= 2) * sizeof(uint32_t))) == NULL)
			die("out of memory", NULL);
		a[n++] = (uint32_t) v;
		s = *e == ',' ? e + 1 : e;
	}
	*out = a;
	return (uint32_t) n;
}

/* Load and encode the posting lists. */
static void
load_postings(const char *path)
{
	FILE	   *f = fopen(path, "r");
	char	   *line = NULL;
	size_t		cap = 0,
				lcap = 0;

	if (f == NULL)
		die("cannot read", path);
	while (getline(&line, &cap, f) > 0)
	{
		slist	   *l;

		if (nlists == lcap &&
			(lists = realloc(lists, (lcap = lcap ? 2 * lcap : 1024) * sizeof(slist))) == NULL)
			die("out of memory", NULL);
		l = &lists[nlists++];
		memset(l, 0, sizeof(*l));
		l->id = (uint32_t) strtoul(line, NULL, 10);
		l->n = parse_array(line, &l->docs);
		if (gpx_check_sorted(l->docs, l->n) != GPX_OK)
			die("a list is not strictly increasing", path);
		for (int c = 0; c < NCODECS; c++)
		{
			size_t		bound = gpx_encode_bound(codecs[c], l->n,
												 l->n ? l->docs[l->n - 1] : 0);

			l->blob[c] = malloc(bound);
			if (l->blob[c] == NULL ||
				gpx_encode(codecs[c], l->docs, l->n, l->blob[c], bound, &l->len[c]) != GPX_OK ||
				gpx_open(&l->view[c], l->blob[c], l->len[c]) != GPX_OK)
				die("cannot encode a list", path);
		}
		ndocids += l->n;
	}
	free(line);
	fclose(f);
}

/* Index of the list with this id (lists sorted by id), or -1. */
static long
find_list(uint32_t id)
{
	long		lo = 0,
				hi = (long) nlists - 1;

	while (lo <= hi)
	{
		long		mid = (lo + hi) / 2;

		if (lists[mid].id == id)
			return mid;
		if (lists[mid].id < id)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

/* qsort by id. */
static int
cmp_id(const void *a, const void *b)
{
	uint32_t	x = ((const slist *) a)->id,
				y = ((const slist *) b)->id;

	return x < y ? -1 : x > y;
}

/* Naive count of the intersection of a query's lists. */
static uint32_t
naive_count(const squery *q, uint32_t *tmp)
{
	const slist *a = &lists[q->list[0]];
	uint32_t	n = a->n;

	memcpy(tmp, a->docs, n * sizeof(uint32_t));
	for (int j = 1; j < q->k; j++)
	{
		const slist *b = &lists[q->list[j]];
		uint32_t	i = 0,
					p = 0,
					w = 0;

		while (i < n && p < b->n)
		{
			if (tmp[i] < b->docs[p])
				i++;
			else if (tmp[i] > b->docs[p])
				p++;
			else
			{
				tmp[w++] = tmp[i];
				i++;
				p++;
			}
		}
		n = w;
	}
	return n;
}

/* Load the queries (lists they name must exist). */
static void
load_queries(const char *path, uint32_t *tmp)
{
	FILE	   *f = fopen(path, "r");
	char	   *line = NULL;
	size_t		cap = 0,
				qcap = 0;

	if (f == NULL)
		die("cannot read", path);
	while (getline(&line, &cap, f) > 0)
	{
		squery	   *q;
		uint32_t   *ids;
		uint32_t	k = parse_array(line, &ids);

		if (k < 2 || k > MAXK)
			die("a query needs 2 to 16 lists", line);
		if (nqueries == qcap &&
			(queries = realloc(queries, (qcap = qcap ? 2 * qcap : 1024) * sizeof(squery))) == NULL)
			die("out of memory", NULL);
		q = &queries[nqueries++];
		q->qid = (uint32_t) strtoul(line, NULL, 10);
		q->k = (int) k;
		q->shortest = UINT32_MAX;
		for (uint32_t j = 0; j < k; j++)
		{
			long		x = find_list(ids[j]);

			if (x < 0)
				die("a query names an unknown list", line);
			q->list[j] = (uint32_t) x;
			lists[x].used = true;
			if (lists[x].n < q->shortest)
				q->shortest = lists[x].n;
		}
		q->answer = naive_count(q, tmp);
		free(ids);
	}
	free(line);
	fclose(f);
}

/* One timed decode pass of codec c over every list; docIDs per second. */
static double
time_decode(int c, uint32_t *out, double min_time)
{
	double		t0 = cpu_now(),
				el;
	uint64_t	done = 0;

	do
	{
		for (uint32_t i = 0; i < nlists; i++)
			gpx_decode(&lists[i].view[c], out);
		done += ndocids;
		el = cpu_now() - t0;
	} while (el < min_time);
	return done / el;
}

/* Intersect query q with codec c; the count. */
static uint32_t
run_gpx(const squery *q, int c, uint32_t *out)
{
	const gpx_list *ls[MAXK];
	uint32_t	n = 0;

	for (int j = 0; j < q->k; j++)
		ls[j] = &lists[q->list[j]].view[c];
	if (gpx_intersect_ex(ls, q->k, &isect_opts, out, UINT32_MAX, &n, NULL) != GPX_OK)
		die("gpx_intersect failed", NULL);
	return n;
}

#ifdef BENCH_ROARING
/* The query through CRoaring; the cardinality. */
static uint32_t
run_roaring(const squery *q)
{
	const roaring_bitmap_t *r[MAXK] = {NULL};
	roaring_bitmap_t *acc;
	uint32_t	n;
	int			k = q->k;

	/* increasing cardinality (insertion sort, k <= 16) */
	for (int j = 0; j < k; j++)
	{
		const roaring_bitmap_t *x = lists[q->list[j]].rb;
		int			i = j;

		while (i > 0 && roaring_bitmap_get_cardinality(r[i - 1]) >
			   roaring_bitmap_get_cardinality(x))
		{
			r[i] = r[i - 1];
			i--;
		}
		r[i] = x;
	}
	acc = roaring_bitmap_and(r[0], r[1]);
	for (int j = 2; j < k; j++)
		roaring_bitmap_and_inplace(acc, r[j]);
	n = (uint32_t) roaring_bitmap_get_cardinality(acc);
	roaring_bitmap_free(acc);
	return n;
}
#endif

/*
 * One timed pass over the queries with shortest >= minshort: codec c
 * (c = NCODECS: roaring); queries per second, *nq the queries.
 */
static double
time_queries(int c, uint32_t minshort, uint32_t *out, double min_time,
			 uint32_t *nq)
{
	double		t0 = cpu_now(),
				el;
	uint64_t	done = 0;
	volatile uint32_t sink = 0;

	*nq = 0;
	for (uint32_t i = 0; i < nqueries; i++)
		*nq += queries[i].shortest >= minshort;
	if (*nq == 0)
		return 0;
	do
	{
		for (uint32_t i = 0; i < nqueries; i++)
		{
			if (queries[i].shortest < minshort)
				continue;
#ifdef BENCH_ROARING
			if (c == NCODECS)
			{
				sink += run_roaring(&queries[i]);
				continue;
			}
#endif
			sink += run_gpx(&queries[i], c, out);
		}
		done += *nq;
		el = cpu_now() - t0;
	} while (el < min_time);
	(void) sink;
	return done / el;
}

int
main(int argc, char **argv)
{
	const char *ppath = NULL,
			   *qpath = NULL,
			   *vlist = NULL,
			   *tsvpath = NULL;
	uint32_t	minshort = 10000;
	int			rounds = 3;
	double		min_time = 1.0;
	int			var[GPX_SIMD_LEVELS],
				nvar = 0;
	uint32_t	maxn = 0;
	uint32_t   *out,
			   *tmp;
	FILE	   *tsv = NULL;
	int			npaths = NCODECS;
	bool		bad = false;
	/* best figures: [variant][codec] */
	double		dec[GPX_SIMD_LEVELS][NCODECS] = {{0}};
	double		qs[2][GPX_SIMD_LEVELS][NCODECS + 1] = {{{0}}};
	uint32_t	nq[2] = {0, 0};
	const char *names[NCODECS + 1] = {"pfor", "lrc", "qs", "CRoaring"};

#ifdef BENCH_ROARING
	npaths = NCODECS + 1;
#endif
	for (int i = 1; i < argc; i++)
	{
		const char *a = argv[i],
				   *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (v == NULL)
			die("missing value for", a);
		if (strcmp(a, "--postings") == 0)
			ppath = v;
		else if (strcmp(a, "--queries") == 0)
			qpath = v;
		else if (strcmp(a, "--min-shortest") == 0)
			minshort = (uint32_t) strtoul(v, NULL, 10);
		else if (strcmp(a, "--rounds") == 0)
			rounds = atoi(v);
		else if (strcmp(a, "--min-time") == 0)
			min_time = strtod(v, NULL);
		else if (strcmp(a, "--variants") == 0)
			vlist = v;
		else if (strcmp(a, "--tsv") == 0)
			tsvpath = v;
		else if (strcmp(a, "--skip-decode") == 0)
			skip_decode = atoi(v) != 0;
		else if (strcmp(a, "--codec") == 0)
		{
			for (int c = 0; c < NCODECS; c++)
				if (strcmp(v, names[c]) == 0)
					only_codec = c;
			if (only_codec < 0)
				die("unknown codec", v);
		}
		else if (strcmp(a, "--probe-ratio") == 0)
			isect_opts.probe_ratio = (uint32_t) strtoul(v, NULL, 10);
		else
			die("unknown option", a);
		i++;
	}
	if (ppath == NULL || rounds < 1)
		die("usage: bench_simd --postings FILE [--queries FILE] [--min-shortest N] "
			"[--rounds R] [--min-time S] [--variants a,b] [--tsv OUT]", NULL);
	if (vlist == NULL)
	{
		for (int l = 0; l < GPX_SIMD_LEVELS; l++)
			if (gpx_simd_supported(l))
				var[nvar++] = l;
	}
	else
	{
		char	   *s = strdup(vlist),
				   *tok,
				   *save = NULL;

		for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		{
			int			l = gpx_simd_parse(tok);

			if (l < 0 || nvar == GPX_SIMD_LEVELS)
				die("unknown variant", tok);
			if (!gpx_simd_supported(l))
			{
				printf("variant %s: not supported by this CPU, skipped\n", tok);
				continue;
			}
			var[nvar++] = l;
		}
		free(s);
	}
	if (tsvpath && (tsv = fopen(tsvpath, "a")) == NULL)
		die("cannot write", tsvpath);

	load_postings(ppath);
	qsort(lists, nlists, sizeof(slist), cmp_id);
	for (uint32_t i = 0; i < nlists; i++)
		if (lists[i].n > maxn)
			maxn = lists[i].n;
	out = malloc(sizeof(uint32_t) * (maxn + GPX_MAX_BLOCK));
	tmp = malloc(sizeof(uint32_t) * (maxn + GPX_MAX_BLOCK));
	if (out == NULL || tmp == NULL)
		die("out of memory", NULL);
	if (qpath)
		load_queries(qpath, tmp);

#ifdef BENCH_ROARING
	for (uint32_t i = 0; i < nlists; i++)
		if (lists[i].used)
		{
			lists[i].rb = roaring_bitmap_of_ptr(lists[i].n, lists[i].docs);
			roaring_bitmap_run_optimize(lists[i].rb);
		}
	for (uint32_t i = 0; i < nqueries; i++)
		if (run_roaring(&queries[i]) != queries[i].answer)
		{
			printf("CRoaring: query %u MISMATCH\n", queries[i].qid);
			bad = true;
		}
#endif

	/* check every variant once before timing anything */
	for (int v = 0; v < nvar; v++)
	{
		gpx_simd_force(var[v]);
		for (int c = 0; c < NCODECS; c++)
		{
			for (uint32_t i = 0; i < nlists; i++)
			{
				gpx_decode(&lists[i].view[c], out);
				if (memcmp(out, lists[i].docs, lists[i].n * sizeof(uint32_t)) != 0)
				{
					printf("%s %s: decode MISMATCH on list %u\n", gpx_simd_name(var[v]),
						   names[c], lists[i].id);
					bad = true;
					break;
				}
			}
			for (uint32_t i = 0; i < nqueries; i++)
				if (run_gpx(&queries[i], c, out) != queries[i].answer)
				{
					printf("%s %s: query %u MISMATCH\n", gpx_simd_name(var[v]), names[c],
						   queries[i].qid);
					bad = true;
					break;
				}
		}
	}
	if (bad)
		return 1;
	/* where gpx_intersect's work goes (the detected variant; counts only) */
	if (qpath)
	{
		printf("\n### gpx_intersect work per query (all %u queries)\n\n", nqueries);
		printf("| codec | candidates | source blocks | list blocks decoded | probes | merge passes | probe passes | merge cands | probe cands | result |\n");
		printf("|---|---|---|---|---|---|---|---|---|---|\n");
		for (int c = 0; c < NCODECS; c++)
		{
			double		sum[10] = {0};

			for (uint32_t i = 0; i < nqueries; i++)
			{
				const gpx_list *ls[MAXK];
				gpx_isect_stats st;
				uint32_t	n;

				for (int j = 0; j < queries[i].k; j++)
					ls[j] = &lists[queries[i].list[j]].view[c];
				gpx_intersect(ls, queries[i].k, out, &n, &st);
				sum[0] += st.candidates;
				sum[1] += st.source_blocks;
				sum[2] += st.blocks_decoded;
				sum[3] += st.probes;
				sum[4] += st.merge_passes;
				sum[5] += st.probe_passes;
				sum[6] += st.merge_cands;
				sum[7] += st.probe_cands;
				sum[8] += st.result;
			}
			printf("| %s |", names[c]);
			for (int j = 0; j < 9; j++)
				printf(" %.0f |", nqueries ? sum[j] / nqueries : 0);
			printf("\n");
		}
	}

	for (int r = 0; r < rounds; r++)
		for (int v = 0; v < nvar; v++)
		{
			gpx_simd_force(var[v]);
			for (int c = 0; c < NCODECS && !skip_decode; c++)
			{
				double		x;

				if (only_codec >= 0 && c != only_codec)
					continue;
				x = time_decode(c, out, min_time);

				if (x > dec[v][c])
					dec[v][c] = x;
			}
			for (int s = 0; s < 2 && qpath; s++)
				for (int c = 0; c < npaths; c++)
				{
					double		x;

					/* CRoaring does not depend on the variant: time it once a round */
					if ((c == NCODECS && v > 0) || (only_codec >= 0 && c != only_codec))
						continue;
					x = time_queries(c, s ? minshort : 0, out, min_time, &nq[s]);
					if (x > qs[s][v][c])
						qs[s][v][c] = x;
				}
		}

	printf("\n### Decode, one thread, M docIDs/s (best of %d rounds, CPU time; %u lists, %llu docIDs)\n\n",
		   rounds, nlists, (unsigned long long) ndocids);
	printf("| codec |");
	for (int v = 0; v < nvar; v++)
		printf(" %s |", gpx_simd_name(var[v]));
	printf(" best / scalar |\n|---|");
	for (int v = 0; v <= nvar; v++)
		printf("---|");
	printf("\n");
	for (int c = 0; c < NCODECS; c++)
	{
		double		best = 0;

		printf("| %s |", names[c]);
		for (int v = 0; v < nvar; v++)
		{
			printf(" %.0f |", dec[v][c] / 1e6);
			if (dec[v][c] > best)
				best = dec[v][c];
			if (tsv)
				fprintf(tsv, "decode\t%s\t%s\t%.1f\n", names[c], gpx_simd_name(var[v]),
						dec[v][c] / 1e6);
		}
		if (var[0] == GPX_SIMD_SCALAR && dec[0][c] > 0)
			printf(" %.2f |\n", best / dec[0][c]);
		else
			printf(" |\n");
	}
	for (int s = 0; s < 2 && qpath; s++)
	{
		printf("\n### Intersection, one thread, queries/s (best of %d rounds, CPU time): %s, %u queries\n\n",
			   rounds, s ? "shortest list >= min-shortest" : "all queries", nq[s]);
		if (s)
			printf("(min-shortest = %u)\n\n", minshort);
		printf("| path |");
		for (int v = 0; v < nvar; v++)
			printf(" %s |", gpx_simd_name(var[v]));
#ifdef BENCH_ROARING
		printf(" best / CRoaring |");
#endif
		printf("\n|---|");
		for (int v = 0; v < nvar; v++)
			printf("---|");
#ifdef BENCH_ROARING
		printf("---|");
#endif
		printf("\n");
		for (int c = 0; c < npaths; c++)
		{
			double		best = 0;

			printf("| %s |", names[c]);
			for (int v = 0; v < nvar; v++)
			{
				if (c == NCODECS && v > 0)
				{
					printf(" (same) |");
					continue;
				}
				printf(" %.0f |", qs[s][v][c]);
				if (qs[s][v][c] > best)
					best = qs[s][v][c];
				if (tsv)
					fprintf(tsv, "isect%s\t%s\t%s\t%.1f\n", s ? "_min" : "_all", names[c],
							c == NCODECS ? "-" : gpx_simd_name(var[v]), qs[s][v][c]);
			}
#ifdef BENCH_ROARING
			if (qs[s][0][NCODECS] > 0)
				printf(" %.2f |", best / qs[s][0][NCODECS]);
#endif
			printf("\n");
		}
	}
	if (qpath)
	{
		uint64_t	bytes[NCODECS + 1] = {0},
					docs = 0;

		for (uint32_t i = 0; i < nlists; i++)
		{
			if (!lists[i].used)
				continue;
			docs += lists[i].n;
			for (int c = 0; c < NCODECS; c++)
				bytes[c] += lists[i].len[c];
#ifdef BENCH_ROARING
			bytes[NCODECS] += roaring_bitmap_portable_size_in_bytes(lists[i].rb);
#endif
		}
		printf("\n### Sizes of the lists the queries use (%llu docIDs)\n\n| representation | bytes | bits/docID |\n|---|---|---|\n",
			   (unsigned long long) docs);
		for (int c = 0; c < npaths; c++)
			printf("| %s%s | %llu | %.3f |\n", names[c],
				   c == NCODECS ? " (run-optimised, portable format)" : " blobs",
				   (unsigned long long) bytes[c], docs ? 8.0 * bytes[c] / docs : 0);
	}
	if (tsv)
		fclose(tsv);
	return 0;
}
