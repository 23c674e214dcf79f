/*
 * bench_codec.c - library-level benchmark of the codec core (src/codec),
 * no PostgreSQL: sizes, decode speed and intersection speed per codec over
 * a posting-list collection, beside uncompressed int4 arrays and the
 * Elias-Fano and entropy bounds.
 *
 *   bench_codec --postings postings.copy --ndocs N [--queries queries.copy
 *               [--answers answers.copy]] [--dataset NAME] [--min-time S]
 *               [--threads T] [--tsv OUT] [--sizes-only 1]
 *               [--format-ab ROUNDS]
 *
 * postings.copy holds "id<TAB>{docIDs}" lines (gpx_gen's output, or a COPY
 * of a postings table); queries.copy "qid<TAB>{ids}"; answers.copy
 * "qid<TAB>count<TAB>hash" (checked when given, else the int4 baseline is
 * the reference).  Prints a markdown table and, with --tsv, the rows the
 * report generator reads (test/bench/mkreport.sh).
 *
 * Sizes: every codec in the current format and in format version 1
 * (gpuidx 0.1), the blobs alone and as stored (with PostgreSQL's 1- or
 * 4-byte varlena header), beside int4[], the Elias-Fano bound (ceil as
 * before; floor as issue #17 defines it, with its target 1.5 x that + 2
 * bytes per list) and the entropy; then the fixed overhead of lists of 1
 * to 8 docIDs.  --sizes-only 1 stops there.  --format-ab ROUNDS instead
 * times decode and intersection on the same lists in format 1 and format
 * 2 with one build, in alternating rounds (format_ab), and stops.
 *
 * Paths measured (each skipped with a reason when its code is not linked,
 * detected at run time through weak symbols):
 *   decode   gpx_decode of every list, one thread;
 *   isect    gpx_intersect per query, one thread (latency per query);
 *   batch    gpx_batch_run_cpu over all queries at once, T threads;
 *   gpu      gpx_cuda_run_batch / gpx_cuda_decode when built with CUDA and
 *            a GPU is present.
 * A figure whose sample is too small (fewer than 50 queries or 20 lists,
 * under 10,000 docIDs, or under --min-time of measurement) is printed as
 * "too small to report".
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <time.h>
#include <unistd.h>

#include "gpx_codec.h"
#include "gpx_intersect.h"
#include "gpx_batch.h"
#include "gpx_cuda.h"
#include "gen_common.h"
#include "gpx_ref.h"
#include "bench_util.h"

#pragma weak gpx_intersect
#pragma weak gpx_batch_run_cpu
#pragma weak gpx_cuda_open
#pragma weak gpx_cuda_close
#pragma weak gpx_cuda_run_batch
#pragma weak gpx_cuda_decode

#define MIN_QUERIES 50
#define MIN_LISTS 20
#define MIN_DOCIDS 10000
#define TOO_SMALL "too small to report"

static const int codecs[] = {GPX_CODEC_PFOR, GPX_CODEC_LRC, GPX_CODEC_QS};

#define NCODECS 3

/* Subkeys of list identity for the GPU's list cache: all zero (any will do). */
static const gpx_keyset bench_keys;

typedef struct blist
{
	uint32_t	id;
	uint32_t	n;
	uint32_t   *docs;
	uint8_t    *blob[NCODECS];
	size_t		len[NCODECS];
	gpx_list	view[NCODECS];
	uint8_t    *blob1[NCODECS];	/* format version 1 (--format-ab only) */
	gpx_list	view1[NCODECS];
} blist;

typedef struct bquery
{
	uint32_t	qid;
	int			k;
	uint32_t	list[16];		/* indexes into lists */
	bool		has_answer;
	uint32_t	ans_n;
	uint64_t	ans_hash;
} bquery;

typedef struct bench
{
	const char *dataset;
	double		min_time;
	int			threads;
	uint32_t	ndocs;
	blist	   *lists;
	uint32_t	nlists;
	uint64_t	docids;
	bquery	   *queries;
	uint32_t	nqueries;
	bool		codec_ok[NCODECS];
	bool		keep_v1;		/* keep the version 1 blobs (--format-ab) */
	FILE	   *tsv;
} bench;

/* Exit with a message. */
static void
die(const char *msg, const char *arg)
{
	fprintf(stderr, "bench_codec: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
	exit(2);
}

/* Load postings.copy: one list per line. */
static void
load_postings(bench *b, const char *path)
{
	FILE	   *f = fopen(path, "r");
	char	   *line = NULL;
	size_t		cap = 0,
				bufcap = 0,
				lcap = 0;
	uint32_t   *buf = NULL;

	if (f == NULL)
		die("cannot read", path);
	while (gen_getline(f, &line, &cap) >= 0)
	{
		char	   *p;
		const char *q;
		unsigned long id = strtoul(line, &p, 10);
		long		n;
		blist	   *L;

		if (*p != '\t')
			die("bad postings line in", path);
		q = p + 1;
		n = gen_parse_array(&q, &buf, &bufcap);
		if (n < 0)
			die("bad array in", path);
		if (b->nlists == lcap)
		{
			lcap = lcap ? 2 * lcap : 1024;
			b->lists = realloc(b->lists, sizeof(blist) * lcap);
			if (b->lists == NULL)
				die("out of memory", NULL);
		}
		L = &b->lists[b->nlists++];
		memset(L, 0, sizeof(*L));
		L->id = (uint32_t) id;
		L->n = (uint32_t) n;
		L->docs = malloc(sizeof(uint32_t) * (n + 1));
		memcpy(L->docs, buf, sizeof(uint32_t) * n);
		if (gpx_check_sorted(L->docs, L->n) != GPX_OK)
			die("a list is not strictly increasing in", path);
		b->docids += n;
	}
	free(line);
	free(buf);
	fclose(f);
}

/* qsort comparator: lists by id. */
static int
cmp_list_id(const void *a, const void *b)
{
	uint32_t	x = ((const blist *) a)->id,
				y = ((const blist *) b)->id;

	return x < y ? -1 : x > y;
}

/* Index of the list with this id, or -1. */
static long
find_list(const bench *b, uint32_t id)
{
	long		lo = 0,
				hi = (long) b->nlists - 1;

	while (lo <= hi)
	{
		long		mid = (lo + hi) / 2;

		if (b->lists[mid].id == id)
			return mid;
		if (b->lists[mid].id < id)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

/* Load queries.copy and (optionally) answers.copy. */
static void
load_queries(bench *b, const char *qpath, const char *apath)
{
	FILE	   *f = fopen(qpath, "r"),
			   *af = apath ? fopen(apath, "r") : NULL;
	char	   *line = NULL;
	size_t		cap = 0,
				bufcap = 0,
				qcap = 0;
	uint32_t   *buf = NULL;

	if (f == NULL || (apath && af == NULL))
		die("cannot read queries or answers", qpath);
	while (gen_getline(f, &line, &cap) >= 0)
	{
		char	   *p;
		const char *q;
		bquery	   *Q;
		long		n;

		if (b->nqueries == qcap)
		{
			qcap = qcap ? 2 * qcap : 1024;
			b->queries = realloc(b->queries, sizeof(bquery) * qcap);
		}
		Q = &b->queries[b->nqueries];
		memset(Q, 0, sizeof(*Q));
		Q->qid = (uint32_t) strtoul(line, &p, 10);
		q = p + 1;
		n = gen_parse_array(&q, &buf, &bufcap);
		if (*p != '\t' || n < 1 || n > 16)
			die("bad query line in", qpath);
		Q->k = (int) n;
		for (long j = 0; j < n; j++)
		{
			long		li = find_list(b, buf[j]);

			if (li < 0)
				die("a query names a list that postings.copy lacks", qpath);
			Q->list[j] = (uint32_t) li;
		}
		b->nqueries++;
	}
	while (af && gen_getline(af, &line, &cap) >= 0)
	{
		unsigned long qid,
					n;
		long long	h;

		if (sscanf(line, "%lu\t%lu\t%lld", &qid, &n, &h) != 3)
			die("bad answers line in", apath);
		for (uint32_t i = 0; i < b->nqueries; i++)	/* usually i == qid - 1 */
		{
			uint32_t	j = (qid - 1 + i) % b->nqueries;

			if (b->queries[j].qid == qid)
			{
				b->queries[j].has_answer = true;
				b->queries[j].ans_n = (uint32_t) n;
				b->queries[j].ans_hash = (uint64_t) h;
				break;
			}
		}
	}
	free(line);
	free(buf);
	fclose(f);
	if (af)
		fclose(af);
}

/* Emit one size row (markdown and TSV). */
static void
size_row(bench *b, const char *name, double bytes, const char *note)
{
	bool		small = b->docids < MIN_DOCIDS || b->nlists < MIN_LISTS;
	double		bits = b->docids ? 8.0 * bytes / b->docids : 0;

	if (small)
		printf("| %-28s | %14.0f | %s |\n", name, bytes, TOO_SMALL);
	else
		printf("| %-28s | %14.0f | %8.3f |\n", name, bytes, bits);
	if (b->tsv)
		fprintf(b->tsv, "size\t%s\t%s\t%llu\t%.0f\t%.4f\t%s\n", b->dataset, name,
				(unsigned long long) b->docids, bytes, bits,
				small ? TOO_SMALL : (note ? note : "ok"));
}

/* Bytes a value of `len` bytes takes as stored: a 1-byte varlena header up to 126. */
static double
stored_bytes(double len)
{
	return len + (len + 1 <= 127 ? 1 : 4);
}

/* floor(log2(x)) for x >= 1. */
static int
floor_log2(double x)
{
	int			r = 0;

	while (x >= 2)
	{
		x /= 2;
		r++;
	}
	return r;
}

/*
 * Encode every list with every codec, in the current format (kept for the
 * speed figures) and in format version 1 (gpuidx 0.1, for the size
 * comparison); print the size table, then the fixed overhead of lists of 1
 * to 8 docIDs: stored size (value plus PostgreSQL's header) minus their
 * Elias-Fano bound n * (2 + floor(log2(u / n))) bits, on average.
 */
static void
sizes(bench *b)
{
	double		ef = 0,
				eff = 0,
				ent = 0,
				arr = 0,
				u = b->ndocs;
	double		over[NCODECS][2][9] = {{{0}}};
	double		cnt[9] = {0};
	double		stored[NCODECS][2] = {{0}};

	printf("\n### Sizes (%s: %u lists, %llu docIDs, universe %u)\n\n", b->dataset,
		   b->nlists, (unsigned long long) b->docids, b->ndocs);
	printf("| representation               |          bytes | bits/docID |\n");
	printf("|------------------------------|----------------|------------|\n");
	for (int c = 0; c < NCODECS; c++)
	{
		double		bytes = 0,
					bytes1 = 0;
		gpx_encode_opts v1 = {GPX_FORMAT_V1, 0};

		b->codec_ok[c] = true;
		for (uint32_t i = 0; i < b->nlists && b->codec_ok[c]; i++)
		{
			blist	   *L = &b->lists[i];
			uint32_t	last = L->n ? L->docs[L->n - 1] : 0;
			size_t		cap = gpx_encode_bound(codecs[c], L->n, last),
						cap1 = gpx_encode_bound_ex(codecs[c], L->n, last, &v1),
						len1 = 0;
			uint8_t    *tmp = malloc(cap1 ? cap1 : 1);
			gpx_status	st;

			L->blob[c] = malloc(cap ? cap : 1);
			st = gpx_encode(codecs[c], L->docs, L->n, L->blob[c], cap, &L->len[c]);
			if (st == GPX_OK)
				st = gpx_open(&L->view[c], L->blob[c], L->len[c]);
			if (st == GPX_OK)
				st = gpx_encode_ex(codecs[c], L->docs, L->n, &v1, tmp, cap1, &len1);
			if (st == GPX_OK && b->keep_v1)
			{
				L->blob1[c] = malloc(len1 ? len1 : 1);
				memcpy(L->blob1[c], tmp, len1);
				st = gpx_open(&L->view1[c], L->blob1[c], len1);
			}
			free(tmp);
			if (st != GPX_OK)
			{
				fprintf(stderr, "bench_codec: %s: %s\n", gpx_codec_name(codecs[c]),
						gpx_status_str(st));
				b->codec_ok[c] = false;
			}
			bytes += L->len[c];
			bytes1 += len1;
			stored[c][0] += stored_bytes(L->len[c]);
			stored[c][1] += stored_bytes(len1);
			if (L->n >= 1 && L->n <= 8)
			{
				double		bound = L->n * (2.0 + floor_log2(u / L->n)) / 8;

				over[c][0][L->n] += stored_bytes(L->len[c]) - bound;
				over[c][1][L->n] += stored_bytes(len1) - bound;
			}
		}
		if (b->codec_ok[c])
		{
			char		name[64];

			snprintf(name, sizeof(name), "%s (blob)", gpx_codec_name(codecs[c]));
			size_row(b, name, bytes, NULL);
			snprintf(name, sizeof(name), "%s 0.1 format (blob)", gpx_codec_name(codecs[c]));
			size_row(b, name, bytes1, NULL);
		}
		else
			printf("| %-28s | not available: encoder failed |\n", gpx_codec_name(codecs[c]));
	}
	for (int c = 0; c < NCODECS; c++)
		if (b->codec_ok[c])
		{
			char		name[64];

			snprintf(name, sizeof(name), "%s stored", gpx_codec_name(codecs[c]));
			size_row(b, name, stored[c][0], NULL);
			snprintf(name, sizeof(name), "%s 0.1 format stored", gpx_codec_name(codecs[c]));
			size_row(b, name, stored[c][1], NULL);
		}
	size_row(b, "int4 array (raw 4 bytes)", 4.0 * b->docids, NULL);
	for (uint32_t i = 0; i < b->nlists; i++)
	{
		double		n = b->lists[i].n,
					l;

		arr += stored_bytes(20 + 4 * n);	/* ARR_OVERHEAD_NONULLS(1) - VARHDRSZ */
		if (n == 0)
			continue;
		l = ceil(log2(u / n));
		ef += n * (2.0 + (l > 0 ? l : 0));
		eff += n * (2.0 + floor_log2(u / n));
		ent += (lgamma(u + 1) - lgamma(n + 1) - lgamma(u - n + 1)) / log(2.0);
		if (n <= 8)
			cnt[(int) n]++;
	}
	size_row(b, "int4[] stored, uncompressed", arr, NULL);
	size_row(b, "Elias-Fano bound", ef / 8.0, NULL);
	size_row(b, "Elias-Fano bound (floor)", eff / 8.0, NULL);
	size_row(b, "target: 1.5 x EF floor + 2 B/list", 1.5 * eff / 8.0 + 2.0 * b->nlists, NULL);
	size_row(b, "entropy bound log2 C(u,n)", ent / 8.0, NULL);

	/* fixed overhead of small lists, stored size minus the EF bound */
	printf("\n### Fixed overhead of lists of 1-8 docIDs (%s): stored bytes minus the\n"
		   "Elias-Fano bound n * (2 + floor(log2(u / n))) bits, on average; target <= 4\n\n",
		   b->dataset);
	printf("| n | lists |");
	for (int c = 0; c < NCODECS; c++)
		printf(" %s | %s 0.1 |", gpx_codec_name(codecs[c]), gpx_codec_name(codecs[c]));
	printf("\n|---|---|");
	for (int c = 0; c < NCODECS; c++)
		printf("---|---|");
	printf("\n");
	for (int n = 1; n <= 8; n++)
	{
		if (cnt[n] == 0)
			continue;
		printf("| %d | %.0f |", n, cnt[n]);
		for (int c = 0; c < NCODECS; c++)
			printf(" %.2f | %.2f |", over[c][0][n] / cnt[n], over[c][1][n] / cnt[n]);
		printf("\n");
		if (b->tsv)
			for (int c = 0; c < NCODECS; c++)
				fprintf(b->tsv, "overhead\t%s\t%s n=%d\t%.0f\t%.4f\t%.4f\tok\n", b->dataset,
						gpx_codec_name(codecs[c]), n, cnt[n], over[c][0][n] / cnt[n],
						over[c][1][n] / cnt[n]);
	}
}

/* Decode speed per codec, one thread, whole lists. */
static void
decode_speed(bench *b)
{
	uint32_t	maxn = 0;
	uint32_t   *out;

	for (uint32_t i = 0; i < b->nlists; i++)
		if (b->lists[i].n > maxn)
			maxn = b->lists[i].n;
	out = malloc(sizeof(uint32_t) * (maxn + GPX_MAX_BLOCK));
	printf("\n### Decode speed (%s, one thread, whole lists)\n\n", b->dataset);
	printf("| codec | docIDs decoded | seconds | M docIDs/s |\n|---|---|---|---|\n");
	for (int c = 0; c < NCODECS; c++)
	{
		double		t0,
					el;
		uint64_t	done = 0;
		bool		ok = true,
					small;

		if (!b->codec_ok[c])
		{
			printf("| %s | not available | | |\n", gpx_codec_name(codecs[c]));
			continue;
		}
		/* one checked pass, then timed passes */
		for (uint32_t i = 0; i < b->nlists; i++)
		{
			gpx_decode(&b->lists[i].view[c], out);
			if (memcmp(out, b->lists[i].docs, sizeof(uint32_t) * b->lists[i].n) != 0)
				ok = false;
		}
		t0 = now();
		do
		{
			for (uint32_t i = 0; i < b->nlists; i++)
				gpx_decode(&b->lists[i].view[c], out);
			done += b->docids;
			el = now() - t0;
		} while (el < b->min_time && b->docids > 0);
		small = b->docids < MIN_DOCIDS || b->nlists < MIN_LISTS || el < 1.0;
		if (!ok)
			printf("| %s | decode MISMATCH | | |\n", gpx_codec_name(codecs[c]));
		else if (small)
			printf("| %s | %llu | %.2f | %s |\n", gpx_codec_name(codecs[c]),
				   (unsigned long long) done, el, TOO_SMALL);
		else
			printf("| %s | %llu | %.2f | %.1f |\n", gpx_codec_name(codecs[c]),
				   (unsigned long long) done, el, done / el / 1e6);
		if (b->tsv)
			fprintf(b->tsv, "decode\t%s\t%s\t%llu\t%.4f\t%.2f\t%s\n", b->dataset,
					gpx_codec_name(codecs[c]), (unsigned long long) done, el,
					el > 0 ? done / el / 1e6 : 0, !ok ? "error: decode mismatch" :
					small ? TOO_SMALL : "ok");
	}
	free(out);
}

/* Print and save one query-path row from per-query latencies (seconds). */
static void
query_row(bench *b, const char *path, double *lat, size_t nlat, double elapsed,
		  double mean_res, long mismatches, const char *status)
{
	bool		small = nlat < MIN_QUERIES || elapsed < 1.0;
	double		p50 = 0,
				p99 = 0,
				qps = elapsed > 0 ? nlat / elapsed : 0;
	const char *st = status ? status : (mismatches ? "error: wrong results" :
										small ? TOO_SMALL : "ok");

	if (lat)
	{
		qsort(lat, nlat, sizeof(double), cmp_double);
		p50 = percentile(lat, nlat, 50) * 1e3;
		p99 = percentile(lat, nlat, 99) * 1e3;
	}
	if (strcmp(st, "ok") == 0)
	{
		if (lat && nlat >= 100)
			printf("| %s | %zu | %.2f | %.0f | %.3f | %.3f |\n", path, nlat, elapsed, qps,
				   p50, p99);
		else if (lat)
			printf("| %s | %zu | %.2f | %.0f | %.3f | %s |\n", path, nlat, elapsed, qps,
				   p50, TOO_SMALL);
		else
			printf("| %s | %zu | %.2f | %.0f | n/a (batch) | n/a (batch) |\n", path, nlat,
				   elapsed, qps);
	}
	else
		printf("| %s | %zu | %.2f | %s | | |\n", path, nlat, elapsed, st);
	if (b->tsv)
		fprintf(b->tsv, "query\t%s\t%s\t%zu\t%.4f\t%.2f\t%.4f\t%.4f\t%.1f\t%ld\t%s\n",
				b->dataset, path, nlat, elapsed, qps, lat ? p50 : -1.0,
				lat && nlat >= 100 ? p99 : -1.0, mean_res, mismatches, st);
}

/* Check one result against the answer (or the reference); true if equal. */
static bool
result_ok(const bquery *Q, const uint32_t *res, uint32_t n, uint32_t *ref_n,
		  uint64_t *ref_h)
{
	uint64_t	h = ref_hash_docs(res, n);

	if (Q->has_answer)
		return n == Q->ans_n && h == Q->ans_hash;
	if (ref_n)
		return n == *ref_n && h == *ref_h;
	return true;
}

/* Uncompressed baseline: SvS with galloping over int4 arrays, one thread. */
static uint32_t
svs_arrays(const bench *b, const bquery *Q, uint32_t *out, uint32_t *tmp)
{
	uint32_t	ord[16],
				n;

	for (int j = 0; j < Q->k; j++)
		ord[j] = Q->list[j];
	for (int i = 1; i < Q->k; i++)
		for (int j = i; j > 0 && b->lists[ord[j]].n < b->lists[ord[j - 1]].n; j--)
		{
			uint32_t	t = ord[j];

			ord[j] = ord[j - 1];
			ord[j - 1] = t;
		}
	n = b->lists[ord[0]].n;
	memcpy(out, b->lists[ord[0]].docs, sizeof(uint32_t) * n);
	for (int j = 1; j < Q->k && n > 0; j++)
	{
		const uint32_t *a = b->lists[ord[j]].docs;
		uint32_t	na = b->lists[ord[j]].n,
					pos = 0,
					m = 0;

		for (uint32_t i = 0; i < n && pos < na; i++)
		{
			uint32_t	x = out[i],
						step = 1,
						hi;

			/* gallop from pos, then binary search */
			while (pos + step < na && a[pos + step] < x)
				step *= 2;
			hi = pos + step < na ? pos + step : na;
			pos += ref_lower_bound(a + pos, hi - pos, x);
			if (pos < na && a[pos] == x)
				tmp[m++] = x;
		}
		memcpy(out, tmp, sizeof(uint32_t) * m);
		n = m;
	}
	return n;
}

/* Per-query latency runs: the int4 baseline, then gpx_intersect per codec. */
static void
intersect_speed(bench *b)
{
	uint32_t	maxn = 0;
	uint32_t   *out,
			   *tmp,
			   *ref_n;
	uint64_t   *ref_h;
	size_t		latcap = 1 << 20;
	double	   *lat = malloc(sizeof(double) * latcap);

	for (uint32_t i = 0; i < b->nlists; i++)
		if (b->lists[i].n > maxn)
			maxn = b->lists[i].n;
	out = malloc(sizeof(uint32_t) * (maxn + 1));
	tmp = malloc(sizeof(uint32_t) * (maxn + 1));
	ref_n = malloc(sizeof(uint32_t) * (b->nqueries + 1));
	ref_h = malloc(sizeof(uint64_t) * (b->nqueries + 1));

	printf("\n### Intersection, library level (%s: %u queries; no PostgreSQL)\n\n",
		   b->dataset, b->nqueries);
	printf("| path | executions | seconds | queries/s | p50 ms | p99 ms |\n|---|---|---|---|---|---|\n");

	for (int c = -1; c < NCODECS; c++)
	{
		char		name[64];
		size_t		nlat = 0;
		long		bad = 0;
		double		t0,
					el,
					sumres = 0;
		bool		first = true;

		if (c < 0)
			snprintf(name, sizeof(name), "lib int4 arrays SvS (1 thread)");
		else
			snprintf(name, sizeof(name), "lib %s gpx_intersect (1 thread)", gpx_codec_name(codecs[c]));
		if (c >= 0 && (!b->codec_ok[c] || gpx_intersect == NULL))
		{
			query_row(b, name, NULL, 0, 0, 0, 0,
					  gpx_intersect == NULL ? "not available: gpx_intersect not linked" :
					  "not available: encoder failed");
			continue;
		}
		t0 = now();
		do
		{
			for (uint32_t q = 0; q < b->nqueries; q++)
			{
				bquery	   *Q = &b->queries[q];
				uint32_t	n = 0;
				double		s = now();

				if (c < 0)
					n = svs_arrays(b, Q, out, tmp);
				else
				{
					const gpx_list *lp[16];

					for (int j = 0; j < Q->k; j++)
						lp[j] = &b->lists[Q->list[j]].view[c];
					if (gpx_intersect(lp, Q->k, out, &n, NULL) != GPX_OK)
						n = UINT32_MAX;
				}
				if (nlat == latcap)
				{
					latcap *= 2;
					lat = realloc(lat, sizeof(double) * latcap);
				}
				lat[nlat++] = now() - s;
				if (first)
				{
					if (c < 0)
					{
						ref_n[q] = n;
						ref_h[q] = ref_hash_docs(out, n);
					}
					if (n == UINT32_MAX || !result_ok(Q, out, n, c < 0 ? NULL : &ref_n[q],
													  c < 0 ? NULL : &ref_h[q]))
						bad++;
					sumres += n == UINT32_MAX ? 0 : n;
				}
			}
			first = false;
			el = now() - t0;
		} while (el < b->min_time && b->nqueries > 0);
		query_row(b, name, lat, nlat, el, b->nqueries ? sumres / b->nqueries : 0, bad, NULL);
	}
	free(lat);
	free(out);
	free(tmp);
	free(ref_n);
	free(ref_h);
}

/* Fill a batch descriptor with every query on codec c. */
static void
build_batch(bench *b, int c, gpx_batch *bt, gpx_batch_list **lists_out)
{
	uint32_t	nl = 0;
	uint64_t	out_words = 0;
	gpx_batch_list *bl;

	for (uint32_t q = 0; q < b->nqueries; q++)
		nl += b->queries[q].k;
	bl = calloc(nl + 1, sizeof(gpx_batch_list));
	bt->queries = calloc(b->nqueries + 1, sizeof(gpx_batch_query));
	bt->op = GPX_BATCH_INTERSECT;
	nl = 0;
	for (uint32_t q = 0; q < b->nqueries; q++)
	{
		bquery	   *Q = &b->queries[q];
		uint32_t	minn = UINT32_MAX;

		bt->queries[q].first_list = nl;
		bt->queries[q].nlists = (uint32_t) Q->k;
		for (int j = 0; j < Q->k; j++)
		{
			blist	   *L = &b->lists[Q->list[j]];

			bl[nl].list = L->view[c];
			bl[nl].key = gpx_key_content(&bench_keys, 0, L->blob[c], L->len[c]);
			nl++;
			if (L->n < minn)
				minn = L->n;
		}
		bt->queries[q].out_offset = out_words;
		bt->queries[q].out_capacity = minn;
		out_words += minn;
	}
	bt->nqueries = b->nqueries;
	bt->nlists = nl;
	bt->lists = bl;
	bt->out = malloc(sizeof(uint32_t) * (out_words + 1));
	bt->out_words = out_words;
	*lists_out = bl;
}

/* Count the batch results that disagree with the answers; sum the sizes. */
static long
check_batch(bench *b, gpx_batch *bt, double *sumres)
{
	long		bad = 0;

	*sumres = 0;
	for (uint32_t q = 0; q < b->nqueries; q++)
	{
		gpx_batch_query *bq = &bt->queries[q];

		*sumres += bq->out_count;
		if (bq->status != GPX_OK ||
			!result_ok(&b->queries[q], bt->out + bq->out_offset, bq->out_count, NULL, NULL))
			bad++;
	}
	return bad;
}

/* Throughput of whole batches: CPU threads, then the GPU when present. */
static void
batch_speed(bench *b)
{
	void	   *gpu = NULL;
	char		err[256] = "";

	if (gpx_cuda_open != NULL && gpx_cuda_run_batch != NULL)
	{
		gpx_cuda_options opt = {.cache_bytes = (size_t) 1 << 30, .batch_bytes = (size_t) 256 << 20};
		gpx_cuda_status st = gpx_cuda_open(&opt, (gpx_cuda_ctx **) &gpu, err, sizeof(err));

		if (st != GPX_CUDA_OK)
		{
			if (err[0] == '\0')
				snprintf(err, sizeof(err), "%s", gpx_cuda_status_str(st));
			gpu = NULL;
		}
	}
	else
		snprintf(err, sizeof(err), "built without CUDA");

	for (int c = 0; c < NCODECS; c++)
	{
		for (int dev = 0; dev < 2; dev++)
		{
			char		name[96];
			gpx_batch	bt;
			gpx_batch_list *bl;
			gpx_batch_stats stats;
			double		t0,
						el,
						sumres;
			size_t		done = 0;
			long		bad;

			if (dev == 0)
				snprintf(name, sizeof(name), "lib %s batch CPU (%d threads)",
						 gpx_codec_name(codecs[c]), b->threads);
			else
				snprintf(name, sizeof(name), "lib %s batch GPU", gpx_codec_name(codecs[c]));
			if (!b->codec_ok[c])
			{
				query_row(b, name, NULL, 0, 0, 0, 0, "not available: encoder failed");
				continue;
			}
			if (dev == 0 && gpx_batch_run_cpu == NULL)
			{
				query_row(b, name, NULL, 0, 0, 0, 0, "not available: gpx_batch_run_cpu not linked");
				continue;
			}
			if (dev == 1 && gpu == NULL)
			{
				char		st[300];

				snprintf(st, sizeof(st), "not available: %s", err);
				query_row(b, name, NULL, 0, 0, 0, 0, st);
				continue;
			}
			memset(&bt, 0, sizeof(bt));
			build_batch(b, c, &bt, &bl);
			/* one checked run, then timed runs */
			if (dev == 0)
				gpx_batch_run_cpu(&bt, b->threads, &stats);
			else
				gpx_cuda_run_batch((gpx_cuda_ctx *) gpu, &bt, &stats);
			bad = check_batch(b, &bt, &sumres);
			t0 = now();
			do
			{
				if (dev == 0)
					gpx_batch_run_cpu(&bt, b->threads, &stats);
				else
					gpx_cuda_run_batch((gpx_cuda_ctx *) gpu, &bt, &stats);
				done += b->nqueries;
				el = now() - t0;
			} while (el < b->min_time && b->nqueries > 0);
			query_row(b, name, NULL, done, el, b->nqueries ? sumres / b->nqueries : 0, bad,
					  NULL);
			free(bl);
			free(bt.queries);
			free(bt.out);
		}
	}
	if (gpu && gpx_cuda_close)
		gpx_cuda_close((gpx_cuda_ctx *) gpu);
}

/* Entry point. */
/*
 * Same build, same lists, both formats: decode every list and run every
 * query on the version 1 and on the version 2 blobs, in alternation for
 * `rounds` rounds; each figure's best round, and v2 / v1.  With one build
 * there is no difference of code or machine state between the two sides
 * but the blobs.
 */
static void
format_ab(bench *b, int rounds)
{
	uint32_t	maxn = 0;
	uint32_t   *out;
	double		best[NCODECS][2][2];

	for (uint32_t i = 0; i < b->nlists; i++)
		if (b->lists[i].n > maxn)
			maxn = b->lists[i].n;
	out = malloc(sizeof(uint32_t) * (maxn + GPX_MAX_BLOCK));
	for (int c = 0; c < NCODECS; c++)
		for (int v = 0; v < 2; v++)
			best[c][v][0] = best[c][v][1] = 1e300;
	for (int r = 0; r < rounds; r++)
		for (int c = 0; c < NCODECS; c++)
			for (int v = 0; v < 2 && b->codec_ok[c]; v++)
			{
				double		t0 = now(),
							t;

				for (uint32_t i = 0; i < b->nlists; i++)
					gpx_decode(v ? &b->lists[i].view[c] : &b->lists[i].view1[c], out);
				t = now() - t0;
				if (t < best[c][v][0])
					best[c][v][0] = t;
				if (b->nqueries == 0 || gpx_intersect == NULL)
					continue;
				t0 = now();
				for (uint32_t q = 0; q < b->nqueries; q++)
				{
					bquery	   *Q = &b->queries[q];
					const gpx_list *lp[16];
					uint32_t	n = 0;

					for (int j = 0; j < Q->k; j++)
						lp[j] = v ? &b->lists[Q->list[j]].view[c] : &b->lists[Q->list[j]].view1[c];
					(void) gpx_intersect(lp, Q->k, out, &n, NULL);
				}
				t = now() - t0;
				if (t < best[c][v][1])
					best[c][v][1] = t;
			}
	printf("\n### Format 1 against format 2, same build (%s: best of %d interleaved rounds)\n\n",
		   b->dataset, rounds);
	printf("| figure | format 1 | format 2 | 2 / 1 |\n|---|---|---|---|\n");
	for (int c = 0; c < NCODECS; c++)
	{
		if (!b->codec_ok[c])
			continue;
		printf("| decode %s (M docIDs/s) | %.1f | %.1f | %.3f |\n", gpx_codec_name(codecs[c]),
			   b->docids / best[c][0][0] / 1e6, b->docids / best[c][1][0] / 1e6,
			   best[c][0][0] / best[c][1][0]);
		if (b->nqueries > 0 && gpx_intersect != NULL)
			printf("| %s gpx_intersect (queries/s) | %.1f | %.1f | %.3f |\n", gpx_codec_name(codecs[c]),
				   b->nqueries / best[c][0][1], b->nqueries / best[c][1][1],
				   best[c][0][1] / best[c][1][1]);
		if (b->tsv)
			fprintf(b->tsv, "formatab\t%s\t%s\t%.4f\t%.4f\tok\n", b->dataset,
					gpx_codec_name(codecs[c]), best[c][0][0] / best[c][1][0],
					b->nqueries ? best[c][0][1] / best[c][1][1] : 0.0);
	}
	free(out);
}

int
main(int argc, char **argv)
{
	bench		b;
	bool		sizes_only = false;
	int			ab_rounds = 0;
	const char *postings = NULL,
			   *queries = NULL,
			   *answers = NULL,
			   *tsv = NULL;

	memset(&b, 0, sizeof(b));
	b.dataset = "dataset";
	b.min_time = 2.0;
	b.threads = (int) sysconf(_SC_NPROCESSORS_ONLN);
	for (int i = 1; i < argc; i++)
	{
		const char *a = argv[i],
				   *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (v == NULL)
			die("missing value for", a);
		if (strcmp(a, "--postings") == 0)
			postings = v;
		else if (strcmp(a, "--queries") == 0)
			queries = v;
		else if (strcmp(a, "--answers") == 0)
			answers = v;
		else if (strcmp(a, "--ndocs") == 0)
			b.ndocs = (uint32_t) strtoul(v, NULL, 10);
		else if (strcmp(a, "--dataset") == 0)
			b.dataset = v;
		else if (strcmp(a, "--min-time") == 0)
			b.min_time = strtod(v, NULL);
		else if (strcmp(a, "--threads") == 0)
			b.threads = atoi(v);
		else if (strcmp(a, "--tsv") == 0)
			tsv = v;
		else if (strcmp(a, "--sizes-only") == 0)
			sizes_only = atoi(v) != 0;
		else if (strcmp(a, "--format-ab") == 0)
			ab_rounds = atoi(v);
		else
			die("unknown option", a);
		i++;
	}
	if (postings == NULL || b.ndocs == 0)
		die("usage: bench_codec --postings FILE --ndocs N [--queries FILE [--answers FILE]] "
			"[--dataset NAME] [--min-time S] [--threads T] [--tsv OUT] [--sizes-only 1] "
			"[--format-ab ROUNDS]", NULL);
	if (b.threads < 1)
		b.threads = 1;
	if (tsv && (b.tsv = fopen(tsv, "a")) == NULL)
		die("cannot write", tsv);

	load_postings(&b, postings);
	qsort(b.lists, b.nlists, sizeof(blist), cmp_list_id);
	for (uint32_t i = 0; i < b.nlists; i++)
		if (b.lists[i].n && b.lists[i].docs[b.lists[i].n - 1] >= b.ndocs)
			die("a docID is not below --ndocs", postings);
	if (queries)
		load_queries(&b, queries, answers);

	b.keep_v1 = ab_rounds > 0;
	sizes(&b);
	if (ab_rounds > 0)
	{
		format_ab(&b, ab_rounds);
		sizes_only = true;
	}
	if (!sizes_only)
		decode_speed(&b);
	if (queries && !sizes_only)
	{
		intersect_speed(&b);
		batch_speed(&b);
	}
	if (b.tsv)
		fclose(b.tsv);
	return 0;
}
