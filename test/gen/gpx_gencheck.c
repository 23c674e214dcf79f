/*
 * gpx_gencheck.c - independent checker of a gpx_gen output directory.
 *
 *   gpx_gencheck DIR
 *
 * Re-reads the COPY files (not the generator's memory) and checks that:
 * terms are unique and their df follows the Zipf law stated in stats.txt;
 * every posting list is strictly increasing, within [0, ndocs) and has df
 * elements; queries have 2..6 distinct known terms; every answer (count and
 * hash) equals the intersection recomputed here; docs.copy, when present, is
 * exactly the inversion of the postings; tfs.copy and doclens.copy, when
 * present (gpx_gen --tf), hold one frequency in [1, 2^31-1] per posting,
 * term by term as postings.copy, and one length per document 0..ndocs-1,
 * never below the sum of the document's frequencies.  Then prints the statistics it
 * measured itself (key=value, as gpx_gen does) so that tests can compare
 * them with the targets and with the generator's own claims.
 * Exit status 0 when every check passed, 1 otherwise.
 */
#define _GNU_SOURCE
#include <stdbool.h>

#include "gen_common.h"

typedef struct clist
{
	uint32_t	term;
	uint32_t	df;
	uint32_t   *docs;
} clist;

static long nfail = 0;

/* Report a failed check (the first few in full). */
static void
fail(const char *what, long a, long b)
{
	if (nfail++ < 20)
		printf("FAIL %s (%ld, %ld)\n", what, a, b);
}

/* Read one key's value from stats.txt ("key=value[\ttarget=..]"). */
static bool
stat_get(const char *dir, const char *key, double *out)
{
	char		path[4096],
			   *line = NULL;
	size_t		cap = 0;
	size_t		kl = strlen(key);
	FILE	   *f;
	bool		found = false;

	snprintf(path, sizeof(path), "%s/stats.txt", dir);
	f = fopen(path, "r");
	if (f == NULL)
		return false;
	while (gen_getline(f, &line, &cap) >= 0)
		if (strncmp(line, key, kl) == 0 && line[kl] == '=')
		{
			*out = strtod(line + kl + 1, NULL);
			found = true;
			break;
		}
	free(line);
	fclose(f);
	return found;
}

/* Open DIR/name or exit. */
static FILE *
open_in(const char *dir, const char *name, bool required)
{
	char		path[4096];
	FILE	   *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (f == NULL && required)
	{
		printf("FAIL cannot read %s\n", path);
		exit(1);
	}
	return f;
}

/* Index of term t among lists sorted by term id, or -1. */
static long
find_list(const clist *l, long n, uint32_t t)
{
	long		lo = 0,
				hi = n - 1;

	while (lo <= hi)
	{
		long		mid = (lo + hi) / 2;

		if (l[mid].term == t)
			return mid;
		if (l[mid].term < t)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

/* Entry point: check DIR, print measured statistics. */
int
main(int argc, char **argv)
{
	const char *dir;
	double		ndocs_d,
				top_df,
				alpha;
	uint32_t	ndocs;
	FILE	   *f;
	char	   *line = NULL;
	size_t		cap = 0;
	clist	   *lists = NULL;
	long		nlists = 0,
				caplists = 0,
				nq = 0,
				nk[7] = {0},
				nempty = 0;
	uint64_t	postings = 0;
	double		sum_short = 0,
				sum_res = 0,
				sum_loggap = 0,
				ngaps = 0,
				sum_keep2 = 0;
	long		n_keep2 = 0;
	uint32_t   *buf = NULL,
			   *cur = NULL;
	size_t		bufcap = 0;

	if (argc != 2)
	{
		fprintf(stderr, "usage: gpx_gencheck DIR\n");
		return 2;
	}
	dir = argv[1];
	if (!stat_get(dir, "ndocs", &ndocs_d) || !stat_get(dir, "top_df", &top_df) ||
		!stat_get(dir, "zipf_alpha", &alpha))
	{
		printf("FAIL stats.txt lacks ndocs, top_df or zipf_alpha\n");
		return 1;
	}
	ndocs = (uint32_t) ndocs_d;

	/* postings (and terms, which must list the same ids and dfs) */
	f = open_in(dir, "postings.copy", true);
	{
		FILE	   *tf = open_in(dir, "terms.copy", true);
		char	   *tline = NULL;
		size_t		tcap = 0;

		while (gen_getline(f, &line, &cap) >= 0)
		{
			char	   *p;
			const char *q;
			unsigned long t = strtoul(line, &p, 10),
						tdf;
			long		n;
			clist	   *L;

			if (*p != '\t')
			{
				fail("postings line syntax", nlists, 0);
				continue;
			}
			q = p + 1;
			n = gen_parse_array(&q, &buf, &bufcap);
			if (n < 0 || *q != '\0')
			{
				fail("postings array syntax", (long) t, n);
				continue;
			}
			if (gen_getline(tf, &tline, &tcap) < 0 ||
				sscanf(tline, "%lu\t%lu", &tdf, &tdf) != 2)
			{
				fail("terms.copy shorter than postings.copy", (long) t, 0);
				continue;
			}
			if (strtoul(tline, NULL, 10) != t)
				fail("terms.copy and postings.copy disagree on term order", (long) t, 0);
			if (tdf != (unsigned long) n)
				fail("df in terms.copy differs from the list length", (long) t, n);
			{
				double		z = floor(top_df / pow((double) t, alpha) + 0.5);

				if ((z < 1 ? 1 : z) != (double) n)
					fail("df does not follow the Zipf law of its rank", (long) t, n);
			}
			if (nlists && lists[nlists - 1].term >= t)
				fail("term ids not strictly increasing", (long) t, 0);
			for (long i = 0; i < n; i++)
			{
				if (buf[i] >= ndocs)
					fail("docID outside [0, ndocs)", (long) t, (long) buf[i]);
				if (i && buf[i] <= buf[i - 1])
					fail("list not strictly increasing", (long) t, i);
				if (i)
				{
					sum_loggap += log2((double) (buf[i] - buf[i - 1]));
					ngaps++;
				}
			}
			if (nlists == caplists)
			{
				caplists = caplists ? 2 * caplists : 1024;
				lists = realloc(lists, sizeof(clist) * caplists);
			}
			L = &lists[nlists++];
			L->term = (uint32_t) t;
			L->df = (uint32_t) n;
			L->docs = malloc(sizeof(uint32_t) * (n + 1));
			memcpy(L->docs, buf, sizeof(uint32_t) * n);
			postings += n;
		}
		if (gen_getline(tf, &tline, &tcap) >= 0)
			fail("terms.copy longer than postings.copy", 0, 0);
		free(tline);
		fclose(tf);
	}
	fclose(f);
	cur = malloc(sizeof(uint32_t) * (ndocs + 1));

	/* queries against answers */
	{
		FILE	   *qf = open_in(dir, "queries.copy", true),
				   *af = open_in(dir, "answers.copy", true);
		char	   *aline = NULL;
		size_t		acap = 0;

		while (gen_getline(qf, &line, &cap) >= 0)
		{
			char	   *p;
			const char *q;
			long		qid = strtol(line, &p, 10),
						k;
			long		idx[8];
			size_t		cn = 0;
			long		aq = -1,
						an = -1;
			long long	ah = 0;

			nq++;
			if (qid != nq || *p != '\t')
			{
				fail("query ids not 1..n in order", qid, nq);
				continue;
			}
			q = p + 1;
			k = gen_parse_array(&q, &buf, &bufcap);
			if (k < 2 || k > 6)
			{
				fail("query length outside 2..6", qid, k);
				continue;
			}
			nk[k]++;
			for (long j = 0; j < k; j++)
			{
				idx[j] = find_list(lists, nlists, buf[j]);
				if (idx[j] < 0)
					fail("query term without a posting list", qid, (long) buf[j]);
				for (long i = 0; i < j; i++)
					if (buf[i] == buf[j])
						fail("query repeats a term", qid, (long) buf[j]);
			}
			if (gen_getline(af, &aline, &acap) < 0 ||
				sscanf(aline, "%ld\t%ld\t%lld", &aq, &an, &ah) != 3 || aq != qid)
			{
				fail("answers.copy does not match queries.copy", qid, aq);
				continue;
			}
			{
				/* shortest first, then intersect the others in length order */
				for (long i = 1; i < k; i++)
					for (long j = i; j > 0 && lists[idx[j]].df < lists[idx[j - 1]].df; j--)
					{
						long		t = idx[j];

						idx[j] = idx[j - 1];
						idx[j - 1] = t;
					}
				if (idx[0] < 0)
					continue;
				memcpy(cur, lists[idx[0]].docs, sizeof(uint32_t) * lists[idx[0]].df);
				cn = lists[idx[0]].df;
				sum_short += cn;
				for (long j = 1; j < k; j++)
				{
					if (idx[j] < 0)
						continue;
					cn = ref_intersect2(cur, cn, lists[idx[j]].docs, lists[idx[j]].df, cur);
					if (j == 1 && k >= 3)
					{
						sum_keep2 += (double) cn / lists[idx[0]].df;
						n_keep2++;
					}
				}
			}
			if ((long) cn != an)
				fail("answer count differs from the recomputed intersection", qid, an);
			else if ((uint64_t) ah != ref_hash_docs(cur, cn))
				fail("answer hash differs from the recomputed intersection", qid, an);
			sum_res += cn;
			nempty += cn == 0;
		}
		if (gen_getline(af, &aline, &acap) >= 0)
			fail("answers.copy longer than queries.copy", 0, 0);
		free(aline);
		fclose(qf);
		fclose(af);
	}

	/* docs.copy: exactly the inversion of the postings */
	f = open_in(dir, "docs.copy", false);
	if (f != NULL)
	{
		uint64_t	entries = 0;
		long		prev = -1;

		while (gen_getline(f, &line, &cap) >= 0)
		{
			char	   *p;
			const char *q;
			long		d = strtol(line, &p, 10),
						n;

			q = p + 1;
			n = gen_parse_array(&q, &buf, &bufcap);
			if (*p != '\t' || n <= 0 || d <= prev || d >= (long) ndocs)
			{
				fail("docs.copy line", d, n);
				continue;
			}
			prev = d;
			for (long i = 0; i < n; i++)
			{
				long		li = find_list(lists, nlists, buf[i]);

				if (i && buf[i] <= buf[i - 1])
					fail("docs.copy terms not increasing", d, i);
				if (li < 0 || !ref_contains(lists[li].docs, lists[li].df, (uint32_t) d))
					fail("docs.copy names a term whose list lacks the doc", d, (long) buf[i]);
			}
			entries += n;
		}
		if (entries != postings)
			fail("docs.copy entries differ from the postings total", (long) entries, (long) postings);
		fclose(f);
		printf("docs_checked=1\n");
	}

	/* tfs.copy and doclens.copy (gpx_gen --tf) */
	f = open_in(dir, "tfs.copy", false);
	if (f != NULL)
	{
		uint64_t   *sum = calloc((size_t) ndocs + 1, sizeof(uint64_t)),
					n1 = 0,
					ntf = 0,
					sumtf = 0,
					sumdl = 0;
		long		li = 0,
					d = 0;
		FILE	   *lf = open_in(dir, "doclens.copy", true);

		while (gen_getline(f, &line, &cap) >= 0)
		{
			char	   *p;
			const char *q;
			unsigned long t = strtoul(line, &p, 10);
			long		n;

			q = p + 1;
			n = *p == '\t' ? gen_parse_array(&q, &buf, &bufcap) : -1;
			if (n < 0 || *q != '\0' || li >= nlists || lists[li].term != t ||
				(uint32_t) n != lists[li].df)
			{
				fail("tfs.copy line does not match postings.copy", li, n);
				li++;
				continue;
			}
			for (long i = 0; i < n; i++)
			{
				if (buf[i] < 1 || buf[i] > 0x7FFFFFFFu)
					fail("tf outside [1, 2^31-1]", (long) t, (long) buf[i]);
				sum[lists[li].docs[i]] += buf[i];
				n1 += buf[i] == 1;
				sumtf += buf[i];
			}
			ntf += (uint64_t) n;
			li++;
		}
		if (li != nlists)
			fail("tfs.copy has not one line per posting list", li, nlists);
		fclose(f);
		while (gen_getline(lf, &line, &cap) >= 0)
		{
			char	   *p;
			long		dd = strtol(line, &p, 10);
			unsigned long len = *p == '\t' ? strtoul(p + 1, &p, 10) : 0;

			if (dd != d || *p != '\0' || len < 1 || len > 0x7FFFFFFFul || d >= (long) ndocs)
				fail("doclens.copy line (doc_id 0..ndocs-1 in order, length >= 1)", d, dd);
			else if (len < sum[d])
				fail("a document shorter than the sum of its frequencies", d, (long) len);
			sumdl += len;
			d++;
		}
		if (d != (long) ndocs)
			fail("doclens.copy has not one line per document", d, (long) ndocs);
		fclose(lf);
		free(sum);
		printf("tf_checked=1\ntf_one_pct=%.2f\ntf_mean=%.3f\navgdl=%.1f\n",
			   ntf ? 100.0 * n1 / ntf : 0.0, ntf ? (double) sumtf / ntf : 0.0,
			   ndocs ? (double) sumdl / ndocs : 0.0);
	}

	printf("ndocs=%u\nterms=%ld\npostings=%llu\nqueries=%ld\n", ndocs, nlists,
		   (unsigned long long) postings, nq);
	for (int k = 2; k <= 6; k++)
		printf("qlen_%d_pct=%.2f\n", k, nq ? 100.0 * nk[k] / nq : 0.0);
	printf("mean_shortest=%.1f\n", nq ? sum_short / nq : 0.0);
	printf("mean_keep2=%.4f\n", n_keep2 ? sum_keep2 / n_keep2 : 0.0);
	printf("mean_result=%.1f\nempty_results_pct=%.2f\n", nq ? sum_res / nq : 0.0,
		   nq ? 100.0 * nempty / nq : 0.0);
	printf("mean_log2_gap=%.3f\n", ngaps ? sum_loggap / ngaps : 0.0);
	printf("check_failures=%ld\n", nfail);
	return nfail ? 1 : 0;
}
