/*
 * test_intersect.c - unit tests of the CPU intersection (gpx_intersect.c)
 * against repeated naive merges (ref_intersect2): random queries of 2..8
 * lists with log-uniform lengths up to 10^6, every codec and mixed codecs,
 * uniform / clustered / extreme densities, both strategies forced and the
 * automatic choice, count and overlap variants; then the edge cases
 * (k = 0 and 1, empty lists, identical lists, disjoint ranges, 0 and
 * 2^31-1, 1 vs 10^6 elements, more lists than the stateful prefix, bad
 * arguments, a too small output buffer) and the work counters.
 */
#include <math.h>
#include <string.h>
#include "gpx_intersect.h"
#include "unit.h"

#define MAXK 40

static const int codecs[] = {GPX_CODEC_PFOR, GPX_CODEC_LRC, GPX_CODEC_QS};

/* One test list: its docIDs, its exact-size blob and the parsed view. */
typedef struct tlist
{
	uint32_t   *docs;
	uint32_t	n;
	int			codec;
	uint8_t    *blob;
	gpx_list	l;
} tlist;

/* Encode docs with codec into an exact-size blob and open it. */
static void
tlist_set(tlist *t, int codec, uint32_t *docs, uint32_t n)
{
	size_t		len = 0;
	gpx_status	st;

	/* exact-size blob so that an over-read shows under ASan */
	t->blob = unit_encode_exact(codec, docs, n, &len);
	t->docs = docs;
	t->n = n;
	t->codec = codec;
	st = gpx_open(&t->l, t->blob, len);
	CHECKF(st == GPX_OK, "open: %s", gpx_status_str(st));
}

/* Free a test list (its docs too). */
static void
tlist_free(tlist *t)
{
	free(t->docs);
	free(t->blob);
}

/* A copy of docs[0..n) in a fresh malloc'd array. */
static uint32_t *
dup_docs(const uint32_t *docs, uint32_t n)
{
	uint32_t   *d = malloc(sizeof(uint32_t) * (n ? n : 1));

	memcpy(d, docs, sizeof(uint32_t) * n);
	return d;
}

/* The reference intersection of t[0..k) into a fresh array. */
static uint32_t *
ref_multi(const tlist *t, int k, uint32_t *rn)
{
	uint32_t	m = t[0].n;
	uint32_t   *r = dup_docs(t[0].docs, m);
	uint32_t   *tmp = malloc(sizeof(uint32_t) * (m ? m : 1));
	int			j;

	for (j = 1; j < k; j++)
	{
		uint32_t	nm = ref_intersect2(r, m, t[j].docs, t[j].n, tmp);

		memcpy(r, tmp, sizeof(uint32_t) * nm);
		m = nm;
	}
	free(tmp);
	*rn = m;
	return r;
}

/* Equality of two arrays; reports the first difference. */
static bool
same(const uint32_t *a, uint32_t na, const uint32_t *b, uint32_t nb,
	 const char *what)
{
	uint32_t	i;

	if (na != nb)
	{
		fprintf(stderr, "  %s: count %u, want %u\n", what, na, nb);
		return false;
	}
	for (i = 0; i < na; i++)
		if (a[i] != b[i])
		{
			fprintf(stderr, "  %s: [%u] = %u, want %u\n", what, i, a[i], b[i]);
			return false;
		}
	return true;
}

/* Describe a query (codec and n of every list) on stderr. */
static void
describe(const tlist *t, int k)
{
	int			j;

	fprintf(stderr, "  query k=%d:", k);
	for (j = 0; j < k; j++)
		fprintf(stderr, " %s/%u[%u..%u]", gpx_codec_name(t[j].codec), t[j].n,
				t[j].n ? t[j].docs[0] : 0, t[j].n ? t[j].docs[t[j].n - 1] : 0);
	fputc('\n', stderr);
}

static long strat_merge_passes = 0;
static long strat_probe_passes = 0;

/*
 * gpx_intersect_pos with opts on t[0..k) against the reference ref[0..rn):
 * the same result, every position naming its docID in its list, nothing
 * written past the result; GPX_E_ARG beyond GPX_ISECT_POS_LISTS lists.
 */
static bool
check_pos(const tlist *t, int k, const gpx_list *const *ls,
		  const gpx_isect_opts *opts, const uint32_t *ref, uint32_t rn,
		  uint32_t bound, const char *name)
{
	uint32_t   *out = malloc(sizeof(uint32_t) * (bound + 1)),
			   *pos[MAXK],
				on = 0;
	gpx_status	st;
	bool		ok;

	for (int j = 0; j < k; j++)
	{
		pos[j] = malloc(sizeof(uint32_t) * (bound + 1));
		memset(pos[j], 0xEE, sizeof(uint32_t) * (bound + 1));
	}
	st = gpx_intersect_pos(ls, k, opts, out, bound, &on, pos, NULL);
	if (k > GPX_ISECT_POS_LISTS)
		ok = st == GPX_E_ARG;
	else
	{
		ok = st == GPX_OK && same(out, on, ref, rn, name);
		for (int j = 0; ok && j < k; j++)
		{
			ok = pos[j][on] == 0xEEEEEEEEu;
			for (uint32_t r = 0; ok && r < on; r++)
				ok = pos[j][r] < t[j].n && t[j].docs[pos[j][r]] == out[r];
			if (!ok)
				fprintf(stderr, "  %s: list %d (codec %d, n %u): a wrong position\n",
						name, j, t[j].codec, t[j].n);
		}
	}
	if (!ok)
		fprintf(stderr, "  %s failed (st %s)\n", name, gpx_status_str(st));
	for (int j = 0; j < k; j++)
		free(pos[j]);
	free(out);
	return ok;
}

/*
 * Check every entry point on one query against the reference: AUTO,
 * forced MERGE and PROBE, a low and a high AUTO ratio, each also with
 * positions (gpx_intersect_pos), count, the reversed list order, and
 * gpx_overlaps for two lists.
 */
static void
check_query(const tlist *t, int k)
{
	const gpx_list *ls[MAXK];
	const gpx_list *rev[MAXK];
	uint32_t	rn,
				bound,
				on = 0,
				cn = 0;
	uint32_t   *ref = ref_multi(t, k, &rn);
	uint32_t   *out;
	gpx_isect_stats stats;
	gpx_status	st;
	int			j,
				v;
	bool		ok = true,
				bitmaps = false;
	static const gpx_isect_opts variants[] = {
		{GPX_ISECT_AUTO, 0},
		{GPX_ISECT_MERGE, 0},
		{GPX_ISECT_PROBE, 0},
		{GPX_ISECT_AUTO, 1},
		{GPX_ISECT_AUTO, 100000},
	};
	static const char *vname[] = {"auto", "merge", "probe", "auto/1", "auto/1e5"};

	for (j = 0; j < k; j++)
	{
		ls[j] = &t[j].l;
		rev[k - 1 - j] = &t[j].l;
		for (uint32_t b = 0; b < t[j].l.nblocks; b++)
			bitmaps = bitmaps || gpx_block_form(&t[j].l, b) == GPX_FORM_BITMAP;
	}
	bound = gpx_intersect_bound(ls, k);
	out = malloc(sizeof(uint32_t) * (bound + 1));

	st = gpx_intersect(ls, k, out, &on, &stats);
	ok = ok && st == GPX_OK && same(out, on, ref, rn, "intersect");
	ok = ok && stats.result == rn && stats.lists == (uint32_t) k;
	for (v = 0; ok && v < (int) (sizeof(variants) / sizeof(variants[0])); v++)
	{
		memset(out, 0xEE, sizeof(uint32_t) * (bound + 1));
		st = gpx_intersect_ex(ls, k, &variants[v], out, bound, &on, &stats);
		ok = st == GPX_OK && same(out, on, ref, rn, vname[v]);
		/* never writes past the result */
		ok = ok && out[on] == 0xEEEEEEEEu;
		/*
		 * merge: no probe passes; the skip-ahead lookups of the source
		 * probe a list's bitmap blocks, which merges test bit by bit and
		 * never decode
		 */
		if (ok && variants[v].strategy == GPX_ISECT_MERGE)
			ok = stats.probe_passes == 0 && (bitmaps || stats.probes == 0);
		if (ok && variants[v].strategy == GPX_ISECT_PROBE)
		{
			bool		pfor = false;

			for (j = 0; j < k; j++)
				pfor = pfor || t[j].codec == GPX_CODEC_PFOR;
			ok = stats.merge_passes == 0 && (pfor || stats.blocks_decoded == 0);
		}
		if (v == 0)
		{
			strat_merge_passes += stats.merge_passes;
			strat_probe_passes += stats.probe_passes;
		}
		if (!ok)
			fprintf(stderr, "  variant %s failed (st %s)\n", vname[v],
					gpx_status_str(st));
		st = gpx_intersect_count_ex(ls, k, &variants[v], &cn, NULL);
		ok = ok && st == GPX_OK && cn == rn;
		ok = ok && check_pos(t, k, ls, &variants[v], ref, rn, bound, vname[v]);
	}
	st = gpx_intersect_count(rev, k, &cn, NULL);
	ok = ok && st == GPX_OK && cn == rn;
	st = gpx_intersect(rev, k, out, &on, NULL);
	ok = ok && st == GPX_OK && same(out, on, ref, rn, "reversed");
	if (k == 2)
		ok = ok && gpx_overlaps(ls[0], ls[1]) == (rn > 0) &&
			gpx_overlaps(ls[1], ls[0]) == (rn > 0);
	if (!ok)
		describe(t, k);
	CHECKF(ok, "query k=%d result %u", k, rn);
	free(out);
	free(ref);
}

/* Log-uniform length in [1, maxn]. */
static uint32_t
loguniform(unit_rng *r, uint32_t maxn)
{
	double		u = (double) unit_below(r, 1u << 30) / (double) (1u << 30);

	return (uint32_t) floor(exp(u * log((double) maxn + 1)));
}

/*
 * Make list docs: n elements of distribution dist in [0, universe) merged
 * with the query's core (every list holds a random share of it, most lists
 * all of it, so that results are not empty).
 */
static uint32_t *
make_docs(unit_rng *r, unit_dist dist, uint32_t n, uint64_t universe,
		  const uint32_t *core, uint32_t ncore, uint32_t *outn)
{
	uint32_t   *d = malloc(sizeof(uint32_t) * ((size_t) n + ncore + 1));
	uint32_t	m = unit_make_list(r, dist, n, universe, d);
	uint32_t	keep = unit_below(r, 4) == 0 ? unit_below(r, 8) : 8;
	uint32_t	i;

	for (i = 0; i < ncore; i++)
		if (keep == 8 || unit_below(r, 8) < keep)
			d[m++] = core[i];
	m = ref_sort_unique(d, m);
	*outn = m;
	return d;
}

/* Random queries: 2..8 lists, skewed lengths, any codec mix. */
static void
test_random(unit_rng *r, int nqueries, uint32_t maxn)
{
	int			q;

	for (q = 0; q < nqueries; q++)
	{
		tlist		t[MAXK];
		int			k = 2 + (int) unit_below(r, 7);
		int			mode = (int) unit_below(r, 4);	/* 0..2 one codec, 3 mixed */
		uint32_t	pick = unit_below(r, 10);
		uint64_t	universe = pick < 6 ? (1u << 24) : pick < 8 ? (1ull << 31) :
			pick < 9 ? (1u << 20) : (1u << 14);
		int			dmode = (int) unit_below(r, 4);	/* 0..2 one dist, 3 mixed */
		uint32_t   *core = malloc(sizeof(uint32_t) * 100001);
		uint32_t	ncore = 0;
		int			j;

		if (unit_below(r, 5) != 0)
		{
			unit_dist	cdist = (unit_dist) unit_below(r, 3);
			uint32_t	clen = loguniform(r, 100000);

			ncore = unit_make_list(r, cdist, clen, universe, core);
		}
		for (j = 0; j < k; j++)
		{
			unit_dist	dist = (unit_dist) (dmode < 3 ? dmode : (int) unit_below(r, 3));
			int			codec = codecs[mode < 3 ? mode : (int) unit_below(r, 3)];
			uint32_t	n,
						len = loguniform(r, maxn);
			uint32_t   *d = make_docs(r, dist, len, universe, core, ncore, &n);

			tlist_set(&t[j], codec, d, n);
		}
		check_query(t, k);
		for (j = 0; j < k; j++)
			tlist_free(&t[j]);
		free(core);
	}
}

/* k = 0, k = 1 for every codec, NULL and bad arguments, small buffers. */
static void
test_edges(unit_rng *r)
{
	uint32_t	docs[5000],
				out[5001],
				n,
				on = 99,
				cn = 99;
	const gpx_list *ls[4] = {NULL, NULL, NULL, NULL};
	gpx_isect_stats stats;
	gpx_isect_opts bad = {(gpx_isect_strategy) 7, 0};
	int			c;

	CHECK(gpx_intersect(ls, 0, out, &on, &stats) == GPX_OK && on == 0);
	CHECK(gpx_intersect_count(NULL, 0, &cn, NULL) == GPX_OK && cn == 0);
	CHECK(gpx_intersect_bound(NULL, 0) == 0);
	CHECK(gpx_intersect(NULL, 2, out, &on, NULL) == GPX_E_ARG);
	CHECK(gpx_intersect_count(NULL, -1, &cn, NULL) == GPX_E_ARG);
	CHECK(gpx_overlaps(NULL, NULL) == false);

	n = unit_make_list(r, UNIT_UNIFORM, 5000, 1u << 20, docs);
	for (c = 0; c < 3; c++)
	{
		tlist		a;
		uint32_t	i;
		bool		ok = true;

		tlist_set(&a, codecs[c], dup_docs(docs, n), n);
		ls[0] = &a.l;
		ls[1] = NULL;
		/* k = 1: the list itself */
		CHECK(gpx_intersect(ls, 1, out, &on, &stats) == GPX_OK && on == n);
		for (i = 0; i < n; i++)
			ok = ok && out[i] == docs[i];
		CHECK(ok);
		CHECK(gpx_intersect_count(ls, 1, &cn, NULL) == GPX_OK && cn == n);
		CHECK(gpx_intersect_ex(ls, 1, NULL, out, n - 1, &on, NULL) == GPX_E_NOSPACE);
		/* bad arguments */
		CHECK(gpx_intersect(ls, 2, out, &on, NULL) == GPX_E_ARG);
		CHECK(gpx_intersect(ls, 1, NULL, &on, NULL) == GPX_E_ARG);
		CHECK(gpx_intersect(ls, 1, out, NULL, NULL) == GPX_E_ARG);
		CHECK(gpx_intersect_ex(ls, 1, &bad, out, n, &on, NULL) == GPX_E_ARG);
		/* identical lists, and a list with itself */
		ls[1] = &a.l;
		ls[2] = &a.l;
		CHECK(gpx_intersect(ls, 3, out, &on, &stats) == GPX_OK && on == n);
		CHECK(gpx_overlaps(&a.l, &a.l));
		/* a too small buffer */
		CHECK(gpx_intersect_ex(ls, 2, NULL, out, n - 1, &on, NULL) == GPX_E_NOSPACE);
		CHECK(gpx_intersect_ex(ls, 2, NULL, out, n, &on, NULL) == GPX_OK && on == n);
		tlist_free(&a);
	}
}

/* Empty lists among others, disjoint ranges, disjoint interleaved lists. */
static void
test_empty_disjoint(void)
{
	uint32_t   *lowd = malloc(sizeof(uint32_t) * 3000),
			   *highd = malloc(sizeof(uint32_t) * 3000),
			   *even = malloc(sizeof(uint32_t) * 3000),
			   *odd = malloc(sizeof(uint32_t) * 3000);
	uint32_t	out[3000],
				on,
				cn,
				i;
	int			c1,
				c2;

	for (i = 0; i < 3000; i++)
	{
		lowd[i] = i * 3;
		highd[i] = 100000 + i * 5;
		even[i] = 2 * i;
		odd[i] = 2 * i + 1;
	}
	for (c1 = 0; c1 < 3; c1++)
		for (c2 = 0; c2 < 3; c2++)
		{
			tlist		lo,
						hi,
						ev,
						od,
						em;
			const gpx_list *ls[3];
			gpx_isect_stats stats;
			gpx_isect_opts opt = {GPX_ISECT_AUTO, 0};
			int			s;

			tlist_set(&lo, codecs[c1], dup_docs(lowd, 3000), 3000);
			tlist_set(&hi, codecs[c2], dup_docs(highd, 3000), 3000);
			tlist_set(&ev, codecs[c1], dup_docs(even, 3000), 3000);
			tlist_set(&od, codecs[c2], dup_docs(odd, 3000), 3000);
			tlist_set(&em, codecs[c2], dup_docs(odd, 0), 0);

			/* disjoint ranges: answered from the headers */
			ls[0] = &lo.l;
			ls[1] = &hi.l;
			CHECK(gpx_intersect(ls, 2, out, &on, &stats) == GPX_OK && on == 0);
			CHECK(stats.range_empty == 1 && stats.source_blocks == 0 &&
				  stats.blocks_decoded == 0);
			CHECK(!gpx_overlaps(&lo.l, &hi.l));

			/* an empty list among others */
			ls[0] = &lo.l;
			ls[1] = &em.l;
			ls[2] = &ev.l;
			CHECK(gpx_intersect(ls, 3, out, &on, &stats) == GPX_OK && on == 0);
			CHECK(stats.range_empty == 1 && stats.source_blocks == 0);
			CHECK(gpx_intersect_count(ls, 3, &cn, NULL) == GPX_OK && cn == 0);
			CHECK(gpx_intersect_bound(ls, 3) == 0);
			CHECK(!gpx_overlaps(&em.l, &ev.l) && !gpx_overlaps(&ev.l, &em.l));

			/* interleaved, no common element, every strategy */
			for (s = 0; s < 3; s++)
			{
				opt.strategy = (gpx_isect_strategy) s;
				ls[0] = &ev.l;
				ls[1] = &od.l;
				CHECK(gpx_intersect_ex(ls, 2, &opt, out, 3000, &on, &stats) == GPX_OK &&
					  on == 0);
				CHECK(gpx_intersect_count_ex(ls, 2, &opt, &cn, NULL) == GPX_OK && cn == 0);
			}
			CHECK(!gpx_overlaps(&ev.l, &od.l));
			/* evens and multiples of 3: multiples of 6 */
			ls[0] = &ev.l;
			ls[1] = &lo.l;
			CHECK(gpx_intersect(ls, 2, out, &on, NULL) == GPX_OK && on == 1000 &&
				  out[0] == 0 && out[999] == 5994);
			CHECK(gpx_overlaps(&lo.l, &ev.l));
			tlist_free(&lo);
			tlist_free(&hi);
			tlist_free(&ev);
			tlist_free(&od);
			tlist_free(&em);
		}
	free(lowd);
	free(highd);
	free(even);
	free(odd);
}

/* Lists holding 0 and 2^31-1, sparse and dense around both ends. */
static void
test_extremes(unit_rng *r)
{
	int			q;

	for (q = 0; q < 30; q++)
	{
		tlist		t[4];
		int			k = 2 + (int) unit_below(r, 3),
					j;

		for (j = 0; j < k; j++)
		{
			uint32_t	n = 2 + unit_below(r, 20000);
			uint32_t   *d = malloc(sizeof(uint32_t) * (n + 2));
			uint32_t	m = unit_make_list(r, UNIT_EXTREME, n, 1ull << 31, d);

			/* a dense head and tail in some lists */
			if (unit_below(r, 2))
			{
				uint32_t	i,
							e = unit_below(r, 600);

				d = realloc(d, sizeof(uint32_t) * (m + 2 * e + 2));
				for (i = 0; i < e; i++)
				{
					d[m++] = i;
					d[m++] = GPX_MAX_DOCID - i;
				}
				m = ref_sort_unique(d, m);
			}
			CHECK(d[0] == 0 && d[m - 1] == GPX_MAX_DOCID);
			tlist_set(&t[j], codecs[unit_below(r, 3)], d, m);
		}
		check_query(t, k);
		for (j = 0; j < k; j++)
			tlist_free(&t[j]);
	}
}

/* One element against 10^6: AUTO probes and decodes nothing of LRC/QS. */
static void
test_huge_ratio(unit_rng *r)
{
	uint32_t   *big = malloc(sizeof(uint32_t) * 1000000);
	uint32_t	n = unit_make_list(r, UNIT_UNIFORM, 1000000, 1u << 26, big);
	int			c,
				c2,
				w;

	for (c = 0; c < 3; c++)
	{
		tlist		tb;

		tlist_set(&tb, codecs[c], dup_docs(big, n), n);
		for (c2 = 0; c2 < 3; c2++)
			for (w = 0; w < 4; w++)
			{
				/* present, absent, first element, last element */
				uint32_t	x = w == 0 ? big[n / 3] : w == 1 ? big[n / 3] + 1 :
					w == 2 ? big[0] : big[n - 1];
				tlist		ts;
				const gpx_list *ls[2];
				gpx_isect_stats stats;
				uint32_t	out[2],
							on = 0;
				bool		want = w != 1 || big[n / 3 + 1] == x;
				bool		pf;

				tlist_set(&ts, codecs[c2], dup_docs(&x, 1), 1);
				ls[0] = &tb.l;
				ls[1] = &ts.l;
				CHECK(gpx_intersect(ls, 2, out, &on, &stats) == GPX_OK &&
					  on == (want ? 1u : 0u) && (!want || out[0] == x));
				/* a PFor block has no random access: probes decode it */
				pf = gpx_block_form(&tb.l, gpx_find_block(&tb.l, x)) == GPX_FORM_PFOR;
				CHECKF(stats.source_blocks == 1 && stats.candidates == 1 &&
					   stats.merge_passes == 0 &&
					   stats.probe_passes == 1 &&
					   stats.blocks_decoded <= (pf ? 1u : 0u) &&
					   stats.probes <= (pf ? 0u : 1u),
					   "%s vs 1: src %lu merge %lu probe %lu decoded %lu probes %lu",
					   gpx_codec_name(codecs[c]),
					   (unsigned long) stats.source_blocks,
					   (unsigned long) stats.merge_passes,
					   (unsigned long) stats.probe_passes,
					   (unsigned long) stats.blocks_decoded,
					   (unsigned long) stats.probes);
				CHECK(gpx_overlaps(&tb.l, &ts.l) == want);
				tlist_free(&ts);
			}
		tlist_free(&tb);
	}
	free(big);
}

/* Equal dense lists merge; a sparse list against a long one probes. */
static void
test_strategy_choice(unit_rng *r)
{
	uint32_t   *a = malloc(sizeof(uint32_t) * 200000);
	uint32_t   *b = malloc(sizeof(uint32_t) * 200000);
	uint32_t   *s = malloc(sizeof(uint32_t) * 200);
	uint32_t	na = unit_make_list(r, UNIT_UNIFORM, 200000, 1u << 22, a);
	uint32_t	nb = unit_make_list(r, UNIT_UNIFORM, 200000, 1u << 22, b);
	uint32_t	ns = unit_make_list(r, UNIT_UNIFORM, 200, 1u << 22, s);
	int			c;

	for (c = 0; c < 3; c++)
	{
		tlist		ta,
					tb,
					ts;
		const gpx_list *ls[3];
		gpx_isect_stats stats;
		uint32_t	cn;

		tlist_set(&ta, codecs[c], dup_docs(a, na), na);
		tlist_set(&tb, codecs[(c + 1) % 3], dup_docs(b, nb), nb);
		tlist_set(&ts, codecs[(c + 2) % 3], dup_docs(s, ns), ns);
		ls[0] = &ta.l;
		ls[1] = &tb.l;
		CHECK(gpx_intersect_count(ls, 2, &cn, &stats) == GPX_OK);
		CHECKF(stats.probe_passes == 0 && stats.merge_passes > 0,
			   "dense: merge %lu probe %lu", (unsigned long) stats.merge_passes,
			   (unsigned long) stats.probe_passes);
		ls[2] = &ts.l;
		CHECK(gpx_intersect_count(ls, 3, &cn, &stats) == GPX_OK);
		CHECKF(stats.merge_passes == 0 && stats.probe_passes > 0,
			   "sparse: merge %lu probe %lu", (unsigned long) stats.merge_passes,
			   (unsigned long) stats.probe_passes);
		tlist_free(&ta);
		tlist_free(&tb);
		tlist_free(&ts);
	}
	free(a);
	free(b);
	free(s);
}

/*
 * More lists than GPX_ISECT_STATE_LISTS + 1 (the overflow lists are
 * positioned afresh per candidate block), sharing a core.
 */
static void
test_many_lists(unit_rng *r)
{
	int			q;

	for (q = 0; q < 12; q++)
	{
		tlist		t[MAXK];
		int			k = GPX_ISECT_STATE_LISTS + 1 + (int) unit_below(r, MAXK - GPX_ISECT_STATE_LISTS);
		uint32_t   *core = malloc(sizeof(uint32_t) * 5000);
		uint32_t	ncore = unit_make_list(r, UNIT_CLUSTERED, 1 + unit_below(r, 5000),
										   1u << 22, core);
		int			j;

		for (j = 0; j < k; j++)
		{
			unit_dist	dist = (unit_dist) unit_below(r, 3);
			uint32_t	len = loguniform(r, 50000);
			uint32_t	n;
			uint32_t   *d = make_docs(r, dist, len, 1u << 22, core, ncore, &n);

			tlist_set(&t[j], codecs[unit_below(r, 3)], d, n);
		}
		check_query(t, k);
		for (j = 0; j < k; j++)
			tlist_free(&t[j]);
		free(core);
	}
}

/*
 * Candidates at block boundaries: a dense list against sparse lists whose
 * elements sit at multiples of 128 and 256 and their neighbours, so that
 * leapfrog skips land exactly on the first or last element of a block.
 */
static void
test_block_boundaries(unit_rng *r)
{
	uint32_t	dn = 1u << 17;
	uint32_t   *dense = malloc(sizeof(uint32_t) * dn);
	uint32_t   *sp = malloc(sizeof(uint32_t) * dn);
	uint32_t   *holes = malloc(sizeof(uint32_t) * dn);
	uint32_t	i,
				ns = 0,
				nh = 0;
	int			c1,
				c2,
				c3;

	for (i = 0; i < dn; i++)
		dense[i] = i;
	for (i = 128; i < dn - 1; i += 128)
		if (unit_below(r, 12) == 0)
		{
			uint32_t	d = unit_below(r, 4);

			if (d != 3)
				sp[ns++] = i - 1 + d;	/* i - 1, i or i + 1 */
			else
			{
				sp[ns++] = i - 1;
				sp[ns++] = i;
			}
		}
	/* dense with holes whose ends are block boundaries of the dense list */
	for (i = 0; i < dn; i++)
		if (((i >> 8) % 5) != 2 && ((i >> 7) % 7) != 3)
			holes[nh++] = i;
	for (c1 = 0; c1 < 3; c1++)
		for (c2 = 0; c2 < 3; c2++)
			for (c3 = 0; c3 < 3; c3++)
			{
				tlist		t[3];

				tlist_set(&t[0], codecs[c1], dup_docs(dense, dn), dn);
				tlist_set(&t[1], codecs[c2], dup_docs(sp, ns), ns);
				tlist_set(&t[2], codecs[c3], dup_docs(holes, nh), nh);
				check_query(t, 2);
				check_query(t + 1, 2);
				check_query(t, 3);
				tlist_free(&t[0]);
				tlist_free(&t[1]);
				tlist_free(&t[2]);
			}
	free(dense);
	free(sp);
	free(holes);
}

/*
 * Source skipping: a dense list against a longer one with a long gap whose
 * next element is (or is next to) the last element of a source block, for
 * 128- and 256-element source blocks alike (2815 ends block 21 of 128 and
 * block 10 of 256), or right after an emptied block (768).
 */
static void
test_leapfrog(void)
{
	uint32_t	ne = 50000,
				nl,
				i;
	uint32_t   *ev = malloc(sizeof(uint32_t) * ne);
	uint32_t   *gl = malloc(sizeof(uint32_t) * 130000);
	int			d,
				c1,
				c2;

	for (i = 0; i < ne; i++)
		ev[i] = i;
	for (d = -4; d <= 3; d++)
	{
		/* d = -4: the gap ends right after an emptied candidate block */
		uint32_t	start = d == -4 ? 768 : 2815 + d;

		nl = 0;
		for (i = 0; i < 300; i++)
			gl[nl++] = i;
		for (i = 0; i < 120000; i++)
			gl[nl++] = start + i;
		for (c1 = 0; c1 < 3; c1++)
			for (c2 = 0; c2 < 3; c2++)
			{
				tlist		t[2];
				const gpx_list *ls[2];
				gpx_isect_stats stats;
				uint32_t	cn;

				tlist_set(&t[0], codecs[c1], dup_docs(ev, ne), ne);
				tlist_set(&t[1], codecs[c2], dup_docs(gl, nl), nl);
				check_query(t, 2);
				ls[0] = &t[0].l;
				ls[1] = &t[1].l;
				CHECK(gpx_intersect_count(ls, 2, &cn, &stats) == GPX_OK);
				CHECKF(d == -4 || stats.source_skipped > 0, "no source skip: %s/%s d=%d",
					   gpx_codec_name(codecs[c1]), gpx_codec_name(codecs[c2]), d);
				tlist_free(&t[0]);
				tlist_free(&t[1]);
			}
	}
	free(ev);
	free(gl);
}

/* One pass of the suites in the current unit_format_version. */
static void
run_suites(unit_rng *r, int nq)
{
/* one call as a case named after the format version and the call */
#define RUN_V(call) do { \
	unit_case_begin("v%d %s", unit_format_version, #call); call; unit_case_end(); \
} while (0)
	RUN_V(test_edges(r));
	RUN_V(test_empty_disjoint());
	RUN_V(test_extremes(r));
	RUN_V(test_huge_ratio(r));
	RUN_V(test_strategy_choice(r));
	RUN_V(test_many_lists(r));
	RUN_V(test_block_boundaries(r));
	RUN_V(test_leapfrog());
	RUN_V(test_random(r, nq / 2, 1000000));
	RUN_V(test_random(r, nq * 3, 5000));
#undef RUN_V
}

/*
 * Runs the suites on version 2 lists, then (a quarter of the random
 * queries) on version 1 lists; the random query count can be scaled by
 * argv[1].
 */
int
main(int argc, char **argv)
{
	unit_rng	r = {20240611};
	int			nq = argc > 1 ? atoi(argv[1]) : 160;

	unit_format_version = 2;
	run_suites(&r, nq);
	unit_format_version = GPX_FORMAT_V1;
	run_suites(&r, nq / 4);
	fprintf(stderr, "auto strategy over random queries: %ld merge passes, %ld probe passes\n",
			strat_merge_passes, strat_probe_passes);
	return unit_finish();
}
