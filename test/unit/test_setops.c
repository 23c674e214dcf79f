/*
 * test_setops.c - unit tests of the set algebra (gpx_setops.h) and of
 * appends (gpx_append.h) against naive references on random and edge
 * lists, every codec and every pair of codecs, lists in format 2 and in
 * format 1 (values written by gpuidx 0.1) mixed.
 */
#include <string.h>

#include "gpx_append.h"
#include "gpx_setops.h"
#include "unit.h"

/* A list kept three ways: docIDs, blob, opened view. */
typedef struct tl
{
	uint32_t   *d;
	uint32_t	n;
	int			codec;
	uint8_t    *blob;
	size_t		len;
	gpx_list	l;
} tl;

/*
 * The encodings a list of the tests may come in: format 2 as the types
 * write it, format 1 (values written by gpuidx 0.1), and format 2 with
 * only Elias-Fano or only bitmap blocks (valid values another writer
 * could produce).
 */
#define NFMT 4
static const gpx_encode_opts fmts[NFMT] = {
	{2, 0},
	{GPX_FORMAT_V1, 0},
	{2, 1u << GPX_KIND_EF},
	{2, 1u << GPX_KIND_BITMAP},
};
static const char *const fmt_name[NFMT] = {"v2", "v1", "v2-ef", "v2-bitmap"};

/*
 * Bitmap-only blocks cost a bit per docID of their span: for a list
 * spread over 2^31 that is hundreds of megabytes, so a list whose span
 * exceeds BITMAP_SPAN_MAX is made with Elias-Fano blocks only instead.
 */
#define BITMAP_SPAN_MAX (1u << 22)

/* Encode d[0..n) (copied) with codec in the encoding fmt into t. */
static void
tl_make_fmt(tl *t, int codec, const uint32_t *d, uint32_t n, int fmt)
{
	const gpx_encode_opts *o;

	if (fmt == 3 && n > 0 && d[n - 1] - d[0] > BITMAP_SPAN_MAX)
		fmt = 2;
	o = &fmts[fmt];
	size_t		cap = gpx_encode_bound_ex(codec, n, n ? d[n - 1] : 0, o);
	uint8_t    *buf = unit_xmalloc(cap);
	gpx_status	st;

	t->d = unit_xmalloc((size_t) n * sizeof(uint32_t));
	memcpy(t->d, d, (size_t) n * sizeof(uint32_t));
	t->n = n;
	t->codec = codec;
	t->len = 0;
	st = gpx_encode_ex(codec, d, n, o, buf, cap, &t->len);
	CHECKF(st == GPX_OK, "encode %s %s n %u: %s", gpx_codec_name(codec),
		   fmt_name[fmt], n, gpx_status_str(st));
	/* an exact-size copy, so that an over-read shows under ASan */
	t->blob = unit_xmalloc(t->len);
	memcpy(t->blob, buf, t->len);
	free(buf);
	st = gpx_open(&t->l, t->blob, t->len);
	CHECKF(st == GPX_OK, "open: %s", gpx_status_str(st));
}

/* Encode d[0..n) (copied) with codec into t, as the types write it. */
static void
tl_make(tl *t, int codec, const uint32_t *d, uint32_t n)
{
	tl_make_fmt(t, codec, d, n, 0);
}

/* Free a list. */
static void
tl_free(tl *t)
{
	free(t->d);
	free(t->blob);
}

/* Naive union / difference / symmetric difference of sorted arrays. */
static uint32_t
ref_op(int op, const uint32_t *a, uint32_t na, const uint32_t *b, uint32_t nb,
	   uint32_t *out)
{
	uint32_t	i = 0,
				j = 0,
				k = 0;

	while (i < na || j < nb)
	{
		if (j >= nb || (i < na && a[i] < b[j]))
		{
			out[k++] = a[i];
			i++;
		}
		else if (i >= na || b[j] < a[i])
		{
			if (op != 1)
				out[k++] = b[j];
			j++;
		}
		else
		{
			if (op == 0)
				out[k++] = a[i];
			i++;
			j++;
		}
	}
	return k;
}

/* Naive lexicographic order, a proper prefix first. */
static int
ref_cmp(const uint32_t *a, uint32_t na, const uint32_t *b, uint32_t nb)
{
	uint32_t	m = na < nb ? na : nb;

	for (uint32_t i = 0; i < m; i++)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return na == nb ? 0 : (na < nb ? -1 : 1);
}

/* Naive: is every element of b in a? */
static bool
ref_subset(const uint32_t *a, uint32_t na, const uint32_t *b, uint32_t nb)
{
	uint32_t	i = 0;

	for (uint32_t j = 0; j < nb; j++)
	{
		while (i < na && a[i] < b[j])
			i++;
		if (i >= na || a[i] != b[j])
			return false;
	}
	return true;
}

/* Check the plan of two lists: contiguous cover, blocks right, size bound. */
static void
check_plan(const tl *a, const tl *b)
{
	uint64_t	cap = gpx_mplan_max(&a->l, &b->l);
	gpx_mseg   *segs = unit_xmalloc((size_t) (cap + 1) * sizeof(gpx_mseg));
	uint32_t	ns = 0;
	gpx_status	st = gpx_merge_plan(&a->l, &b->l, segs, cap, &ns);
	const tl   *ts[2] = {a, b};

	CHECK(st == GPX_OK);
	if (cap > 0)
		CHECK(gpx_merge_plan(&a->l, &b->l, segs, cap - 1, &ns) == GPX_E_NOSPACE ||
			  ns <= cap - 1);
	st = gpx_merge_plan(&a->l, &b->l, segs, cap, &ns);
	CHECK(ns <= cap);
	if (a->n == 0 && b->n == 0)
	{
		CHECK(ns == 0);
		free(segs);
		return;
	}
	for (uint32_t s = 0; s < ns; s++)
	{
		CHECK(segs[s].lo <= segs[s].hi);
		if (s > 0)
			CHECKF(segs[s].lo == segs[s - 1].hi + 1, "seg %u lo %u prev hi %u",
				   s, segs[s].lo, segs[s - 1].hi);
	}
	/* every element of each list falls in a segment naming its block */
	for (int x = 0; x < 2; x++)
	{
		const tl   *t = ts[x];
		uint32_t	s = 0;
		uint32_t	bsz = 1u << t->l.log2_block;

		for (uint32_t i = 0; i < t->n; i++)
		{
			while (s < ns && segs[s].hi < t->d[i])
				s++;
			CHECKF(s < ns && segs[s].lo <= t->d[i] && segs[s].blk[x] == i / bsz,
				   "list %d element %u (%u) seg %u blk %u", x, i, t->d[i], s,
				   s < ns ? segs[s].blk[x] : 0);
			if (s >= ns)
				break;
		}
	}
	free(segs);
}

/* Every two-list operation on (a, b) against the references. */
static void
check_pair(const tl *a, const tl *b)
{
	uint32_t	bound = gpx_union_bound(&a->l, &b->l);
	uint32_t   *out = unit_xmalloc(((size_t) bound + 1) * sizeof(uint32_t));
	uint32_t   *ref = unit_xmalloc(((size_t) a->n + b->n + 1) * sizeof(uint32_t));
	uint32_t	n = 0,
				rn,
				c = 0;
	const char *ca = gpx_codec_name(a->codec),
			   *cb = gpx_codec_name(b->codec);

	for (int op = 0; op < 3; op++)
	{
		gpx_status	st;

		rn = ref_op(op, a->d, a->n, b->d, b->n, ref);
		if (op == 0)
			st = gpx_union(&a->l, &b->l, out, bound, &n);
		else if (op == 1)
			st = gpx_difference(&a->l, &b->l, out, a->n, &n);
		else
			st = gpx_symdiff(&a->l, &b->l, out, bound, &n);
		CHECKF(st == GPX_OK && n == rn && memcmp(out, ref, (size_t) rn * 4) == 0,
			   "op %d %s(%u) %s(%u): n %u ref %u st %s", op, ca, a->n, cb, b->n,
			   n, rn, gpx_status_str(st));
		if (op == 0)
			st = gpx_union_count(&a->l, &b->l, &c);
		else if (op == 1)
			st = gpx_difference_count(&a->l, &b->l, &c);
		else
			st = gpx_symdiff_count(&a->l, &b->l, &c);
		CHECKF(st == GPX_OK && c == rn, "count op %d: %u ref %u", op, c, rn);
		/* encoded as it merges: gpx_encode's bytes for the reference */
		for (int rc = 0; rc < 2; rc++)
		{
			int			codec = rc == 0 ? a->codec : a->codec % GPX_CODEC_MAX + 1;
			size_t		cap = gpx_setop_encode_bound((gpx_setop) op, &a->l, &b->l, codec),
						wcap = gpx_encode_bound(codec, rn, rn ? ref[rn - 1] : 0),
						len = 0,
						wlen = 0;
			uint8_t    *got = unit_xmalloc(cap),
					   *want = unit_xmalloc(wcap);
			uint32_t	en = 0;

			memset(got, 0x77, cap);
			st = gpx_setop_encode((gpx_setop) op, &a->l, &b->l, codec, got, cap, &len, &en);
			CHECK(gpx_encode(codec, ref, rn, want, wcap, &wlen) == GPX_OK);
			CHECKF(st == GPX_OK && en == rn && len == wlen && memcmp(got, want, wlen) == 0,
				   "encoded op %d %s(%u) %s(%u) as %s: %s, n %u ref %u, %zu bytes, gpx_encode %zu",
				   op, ca, a->n, cb, b->n, gpx_codec_name(codec), gpx_status_str(st),
				   en, rn, len, wlen);
			if (cap > 0)
				CHECK(gpx_setop_encode((gpx_setop) op, &a->l, &b->l, codec, got, cap - 1,
									   &len, &en) == GPX_E_NOSPACE);
			free(got);
			free(want);
		}
		/* room for exactly the result suffices; one less is refused */
		memset(out, 0xAB, ((size_t) bound + 1) * sizeof(uint32_t));
		for (int less = 0; less <= 1 && less <= (int) rn; less++)
		{
			uint32_t	cap = rn - (uint32_t) less;

			if (op == 0)
				st = gpx_union(&a->l, &b->l, out, cap, &n);
			else if (op == 1)
				st = gpx_difference(&a->l, &b->l, out, cap, &n);
			else
				st = gpx_symdiff(&a->l, &b->l, out, cap, &n);
			if (less == 0)
				CHECKF(st == GPX_OK && n == rn && memcmp(out, ref, (size_t) rn * 4) == 0 &&
					   out[rn] == 0xABABABABu, "op %d exact room: %s", op, gpx_status_str(st));
			else
				CHECKF(st == GPX_E_NOSPACE && out[rn] == 0xABABABABu,
					   "op %d short room: %s", op, gpx_status_str(st));
		}
	}
	CHECKF(gpx_contains_all(&a->l, &b->l) == ref_subset(a->d, a->n, b->d, b->n),
		   "contains_all %s(%u) %s(%u)", ca, a->n, cb, b->n);
	CHECK(gpx_contains_all(&b->l, &a->l) == ref_subset(b->d, b->n, a->d, a->n));
	{
		int			want = ref_cmp(a->d, a->n, b->d, b->n);

		CHECKF(gpx_compare(&a->l, &b->l) == want, "compare %s(%u) %s(%u) want %d",
			   ca, a->n, cb, b->n, want);
		CHECK(gpx_compare(&b->l, &a->l) == -want);
		CHECK(gpx_equal(&a->l, &b->l) == (want == 0));
		if (want == 0)
			CHECK(gpx_hash(&a->l, 7) == gpx_hash(&b->l, 7));
		else
			CHECK(gpx_hash(&a->l, 0) != gpx_hash(&b->l, 0));
	}
	check_plan(a, b);
	free(out);
	free(ref);
}

/* Rank against the reference on edges and random probes. */
static void
check_rank(unit_rng *r, const tl *t)
{
	uint32_t	xs[32];
	int			nx = 0;

	xs[nx++] = 0;
	xs[nx++] = GPX_MAX_DOCID;
	xs[nx++] = 0xFFFFFFFFu;
	if (t->n)
	{
		xs[nx++] = t->d[0];
		xs[nx++] = t->d[t->n - 1];
		xs[nx++] = t->d[t->n - 1] - 1;
		if (t->d[0] > 0)
			xs[nx++] = t->d[0] - 1;
	}
	while (nx < 32)
	{
		if (t->n && (unit_next(r) & 1))
			xs[nx++] = t->d[unit_below(r, t->n)] + (uint32_t) unit_below(r, 3) - 1;
		else
			xs[nx++] = unit_below(r, (uint64_t) GPX_MAX_DOCID + 1);
	}
	for (int i = 0; i < nx; i++)
	{
		/* number <= x: first index with d > x */
		uint32_t	want = xs[i] >= GPX_MAX_DOCID ? t->n :
			ref_lower_bound(t->d, t->n, xs[i] + 1);

		CHECKF(gpx_rank(&t->l, xs[i]) == want, "rank(%u) %u want %u n %u",
			   xs[i], gpx_rank(&t->l, xs[i]), want, t->n);
	}
}

/* Random list of a random distribution and size (some sizes at block edges). */
static uint32_t
random_list(unit_rng *r, uint32_t *buf, uint32_t maxn)
{
	static const uint32_t edge[] = {0, 1, 2, 3, 127, 128, 129, 255, 256, 257,
	511, 512, 513, 1000};
	uint32_t	n;
	uint64_t	universe;
	unit_dist	dist = (unit_dist) unit_below(r, 3);

	if (unit_below(r, 3) == 0)
		n = edge[unit_below(r, sizeof(edge) / sizeof(edge[0]))];
	else
		n = unit_below(r, maxn + 1);
	switch (unit_below(r, 4))
	{
		case 0:
			universe = (uint64_t) n * 2 + 10;
			break;
		case 1:
			universe = 100000;
			break;
		case 2:
			universe = 1u << 24;
			break;
		default:
			universe = (uint64_t) GPX_MAX_DOCID + 1;
			break;
	}
	return unit_make_list(r, dist, n, universe, buf);
}

/*
 * Derive b from a so that the pair shares docIDs: a subset, a superset, a
 * shifted copy, a copy with a few changes, or an independent list.
 */
static uint32_t
related_list(unit_rng *r, const uint32_t *a, uint32_t na, uint32_t *buf,
			 uint32_t maxn)
{
	uint32_t	n = 0;

	switch (unit_below(r, 6))
	{
		case 0:					/* subset */
			for (uint32_t i = 0; i < na; i++)
				if (unit_below(r, 4) != 0)
					buf[n++] = a[i];
			return n;
		case 1:					/* superset */
			memcpy(buf, a, (size_t) na * 4);
			n = na;
			for (uint32_t i = 0; i < na / 3 + 2 && n < maxn + na; i++)
				buf[n++] = unit_below(r, (uint64_t) (na ? a[na - 1] : 1000) + 1000);
			return ref_sort_unique(buf, n);
		case 2:					/* equal */
			memcpy(buf, a, (size_t) na * 4);
			return na;
		case 3:					/* a prefix */
			n = na ? unit_below(r, na + 1) : 0;
			memcpy(buf, a, (size_t) n * 4);
			return n;
		case 4:					/* a copy with a few values changed */
			memcpy(buf, a, (size_t) na * 4);
			n = na;
			for (int i = 0; i < 3 && n > 0; i++)
				buf[unit_below(r, n)] ^= 1u << unit_below(r, 8);
			for (uint32_t i = 0; i < n; i++)
				buf[i] &= GPX_MAX_DOCID;
			return ref_sort_unique(buf, n);
		default:
			return random_list(r, buf, maxn);
	}
}

/* Random pairs, every pair of codecs. */
static void
test_pairs(unit_rng *r, int rounds, uint32_t maxn)
{
	uint32_t   *da = unit_xmalloc((size_t) (maxn + 1100) * 4),
			   *db = unit_xmalloc((size_t) (2 * maxn + 2200) * 4);

	for (int it = 0; it < rounds; it++)
	{
		uint32_t	na = random_list(r, da, maxn);
		uint32_t	nb = related_list(r, da, na, db, maxn);

		for (int ca = GPX_CODEC_MIN; ca <= GPX_CODEC_MAX; ca++)
			for (int cb = GPX_CODEC_MIN; cb <= GPX_CODEC_MAX; cb++)
			{
				tl			a,
							b;

				tl_make(&a, ca, da, na);
				tl_make(&b, cb, db, nb);
				check_pair(&a, &b);
				if (cb == ca)
					check_rank(r, &a);
				tl_free(&a);
				tl_free(&b);
			}
	}
	free(da);
	free(db);
}

/* The same docIDs in every codec: equal, order 0, same hash. */
static void
test_cross_codec_identity(unit_rng *r)
{
	uint32_t   *d = unit_xmalloc(5000 * 4);

	for (int it = 0; it < 20; it++)
	{
		uint32_t	n = random_list(r, d, 4000);
		tl			t[3];

		for (int c = 0; c < 3; c++)
			tl_make(&t[c], GPX_CODEC_MIN + c, d, n);
		for (int i = 0; i < 3; i++)
			for (int j = 0; j < 3; j++)
			{
				CHECK(gpx_equal(&t[i].l, &t[j].l));
				CHECK(gpx_compare(&t[i].l, &t[j].l) == 0);
				CHECK(gpx_hash(&t[i].l, 42) == gpx_hash(&t[j].l, 42));
				CHECK(gpx_contains_all(&t[i].l, &t[j].l));
			}
		/* the seed matters */
		CHECK(gpx_hash(&t[0].l, 1) != gpx_hash(&t[0].l, 2));
		for (int c = 0; c < 3; c++)
			tl_free(&t[c]);
	}
	free(d);
}

/*
 * Across format versions: the same docIDs in every codec and encoding
 * (format 2, format 1, format 2 of Elias-Fano or bitmap blocks only) are
 * equal, compare 0, hash alike and contain each other; random related
 * pairs in different encodings pass every two-list operation against the
 * references (check_pair); test_union_many mixes them in k-way unions.
 */
static void
test_cross_version(unit_rng *r, int rounds)
{
	uint32_t   *da = unit_xmalloc(6000 * 4),
			   *db = unit_xmalloc(12000 * 4);

	for (int it = 0; it < rounds; it++)
	{
		uint32_t	n = random_list(r, da, 3000);
		tl			t[3 * NFMT];

		for (int c = 0; c < 3; c++)
			for (int f = 0; f < NFMT; f++)
				tl_make_fmt(&t[c * NFMT + f], GPX_CODEC_MIN + c, da, n, f);
		for (int i = 0; i < 3 * NFMT; i++)
			for (int j = 0; j < 3 * NFMT; j++)
			{
				CHECKF(gpx_equal(&t[i].l, &t[j].l), "equal %s/%s %s/%s n %u",
					   gpx_codec_name(t[i].codec), fmt_name[i % NFMT],
					   gpx_codec_name(t[j].codec), fmt_name[j % NFMT], n);
				CHECK(gpx_compare(&t[i].l, &t[j].l) == 0);
				CHECK(gpx_hash(&t[i].l, 42) == gpx_hash(&t[j].l, 42));
				CHECK(gpx_contains_all(&t[i].l, &t[j].l));
			}
		for (int i = 0; i < 3 * NFMT; i++)
			tl_free(&t[i]);
	}
	for (int it = 0; it < rounds; it++)
	{
		uint32_t	na = random_list(r, da, 3000);
		uint32_t	nb = related_list(r, da, na, db, 3000);
		int			fa = (int) unit_below(r, NFMT);
		int			fb = (fa + 1 + (int) unit_below(r, NFMT - 1)) % NFMT;
		tl			a,
					b;

		tl_make_fmt(&a, GPX_CODEC_MIN + (int) unit_below(r, 3), da, na, fa);
		tl_make_fmt(&b, GPX_CODEC_MIN + (int) unit_below(r, 3), db, nb, fb);
		check_pair(&a, &b);
		check_rank(r, &a);
		tl_free(&a);
		tl_free(&b);
	}
	free(da);
	free(db);
}

/* A fixed set of small lists sorted by gpx_compare agrees with ref_cmp. */
static void
test_order_examples(void)
{
	static const uint32_t v[][4] = {{0}, {1}, {1, 2}, {1, 3}, {2}, {1, 2, 3}, {5, 9}};
	static const uint32_t n[] = {0, 1, 2, 2, 1, 3, 2};
	int			k = (int) (sizeof(n) / sizeof(n[0]));

	for (int i = 0; i < k; i++)
		for (int j = 0; j < k; j++)
			for (int ci = GPX_CODEC_MIN; ci <= GPX_CODEC_MAX; ci++)
			{
				tl			a,
							b;
				int			cj = GPX_CODEC_MAX - (ci - GPX_CODEC_MIN);

				tl_make(&a, ci, v[i], n[i]);
				tl_make(&b, cj, v[j], n[j]);
				CHECKF(gpx_compare(&a.l, &b.l) == ref_cmp(v[i], n[i], v[j], n[j]),
					   "example %d vs %d", i, j);
				tl_free(&a);
				tl_free(&b);
			}
}

/*
 * k-way union and its count against repeated reference unions, the lists
 * in random encodings (format 1 and 2 mixed).
 */
static void
test_union_many(unit_rng *r)
{
	enum
	{
		MAXK = 9
	};
	uint32_t   *d[MAXK];
	uint32_t	n[MAXK];
	tl			t[MAXK];
	const gpx_list *lp[MAXK];
	size_t		wb = gpx_union_many_work(MAXK);
	void	   *work = unit_xmalloc(wb);
	uint32_t   *ref = unit_xmalloc(MAXK * 5000 * 4),
			   *tmp = unit_xmalloc(MAXK * 5000 * 4),
			   *out = unit_xmalloc(MAXK * 5000 * 4);

	for (int i = 0; i < MAXK; i++)
		d[i] = unit_xmalloc(5000 * 4);
	for (int it = 0; it < 120; it++)
	{
		int			k = (int) unit_below(r, MAXK + 1);
		uint32_t	rn = 0,
					got = 0,
					cnt = 0;
		gpx_status	st;

		for (int i = 0; i < k; i++)
		{
			if (i > 0 && unit_below(r, 2) == 0)
			{
				int			j = (int) unit_below(r, i);

				n[i] = related_list(r, d[j], n[j], d[i], 1200);
			}
			else if (unit_below(r, 6) == 0)
				n[i] = 0;
			else
				n[i] = random_list(r, d[i], 1200);
			if (n[i] > 5000)
				n[i] = 5000;
			/* every third round, lists apart (the heap's case, not the tree's) */
			if (it % 3 == 0 && n[i] > 0 && d[i][n[i] - 1] < (1u << 26))
				for (uint32_t j = 0; j < n[i]; j++)
					d[i][j] += (uint32_t) i << 26;
			tl_make_fmt(&t[i], GPX_CODEC_MIN + (int) unit_below(r, 3), d[i],
						n[i], (int) unit_below(r, NFMT));
			lp[i] = &t[i].l;
			rn = ref_op(0, ref, rn, d[i], n[i], tmp);
			memcpy(ref, tmp, (size_t) rn * 4);
		}
		st = gpx_union_many(lp, k, work, wb, out, gpx_union_many_bound(lp, k), &got);
		CHECKF(st == GPX_OK && got == rn && memcmp(out, ref, (size_t) rn * 4) == 0,
			   "union_many k=%d got %u ref %u st %s", k, got, rn, gpx_status_str(st));
		st = gpx_union_many(lp, k, work, wb, out, rn, &got);
		CHECKF(st == GPX_OK && got == rn, "union_many exact room k=%d", k);
		if (rn > 0)
			CHECK(gpx_union_many(lp, k, work, wb, out, rn - 1, &got) == GPX_E_NOSPACE);
		st = gpx_union_many(lp, k, work, wb, NULL, 0, &cnt);
		CHECKF(st == GPX_OK && cnt == rn, "union_many count k=%d %u ref %u", k, cnt, rn);
		{
			int			nonempty = 0;

			for (int i = 0; i < k; i++)
				nonempty += n[i] > 0;
			/* a heap or tree merge needs its whole work area */
			if (nonempty > 2)
				CHECK(gpx_union_many(lp, k, work, gpx_union_many_work(k) - 1, NULL, 0,
									 &cnt) == GPX_E_NOSPACE);
		}
		for (int i = 0; i < k; i++)
			tl_free(&t[i]);
	}
	for (int i = 0; i < MAXK; i++)
		free(d[i]);
	free(work);
	free(ref);
	free(tmp);
	free(out);
}

/* List op sorted array, and the argument checks. */
static void
test_array_ops(unit_rng *r)
{
	uint32_t   *da = unit_xmalloc(3000 * 4),
			   *db = unit_xmalloc(7000 * 4),
			   *ref = unit_xmalloc(10000 * 4),
			   *out = unit_xmalloc(10000 * 4);

	for (int it = 0; it < 150; it++)
	{
		uint32_t	na = random_list(r, da, 2500);
		uint32_t	nb = related_list(r, da, na, db, 2500);
		tl			a;
		uint32_t	got = 0,
					rn;
		gpx_status	st;

		tl_make(&a, GPX_CODEC_MIN + (int) unit_below(r, 3), da, na);
		rn = ref_op(0, da, na, db, nb, ref);
		st = gpx_union_array(&a.l, db, nb, out, na + nb, &got);
		CHECKF(st == GPX_OK && got == rn && memcmp(out, ref, (size_t) rn * 4) == 0,
			   "union_array %u + %u: %u ref %u", na, nb, got, rn);
		rn = ref_op(1, da, na, db, nb, ref);
		st = gpx_difference_array(&a.l, db, nb, out, na, &got);
		CHECKF(st == GPX_OK && got == rn && memcmp(out, ref, (size_t) rn * 4) == 0,
			   "difference_array %u - %u: %u ref %u", na, nb, got, rn);
		if (nb >= 2)
		{
			uint32_t	save = db[1];

			db[1] = db[0];		/* not strictly increasing */
			CHECK(gpx_union_array(&a.l, db, nb, out, na + nb, &got) == GPX_E_UNSORTED);
			CHECK(gpx_difference_array(&a.l, db, nb, out, na, &got) == GPX_E_UNSORTED);
			db[1] = save;
		}
		if (nb >= 1)
		{
			uint32_t	save = db[nb - 1];

			db[nb - 1] = 0x80000000u;
			CHECK(gpx_union_array(&a.l, db, nb, out, na + nb, &got) == GPX_E_RANGE ||
				  (nb >= 2 && db[nb - 2] >= 0x80000000u));
			db[nb - 1] = save;
		}
		if (na + nb > 0)
			CHECK(gpx_union_array(&a.l, db, nb, out, na + nb - 1, &got) == GPX_E_NOSPACE);
		/* an empty array, even a NULL one, leaves the list */
		CHECK(gpx_union_array(&a.l, NULL, 0, out, na, &got) == GPX_OK && got == na &&
			  memcmp(out, da, (size_t) na * 4) == 0);
		CHECK(gpx_difference_array(&a.l, NULL, 0, out, na, &got) == GPX_OK && got == na &&
			  memcmp(out, da, (size_t) na * 4) == 0);
		CHECK(gpx_union_array(&a.l, NULL, 1, out, na + 1, &got) == GPX_E_ARG);
		tl_free(&a);
	}
	free(da);
	free(db);
	free(ref);
	free(out);
}

/*
 * Append add[0..m) to d[0..n) in the encoding fmt: the docIDs of both, in
 * a valid format 2 blob (m > 0); byte for byte a fresh gpx_encode's when
 * the list was one (format 2 as written) or is rewritten whole (format 1);
 * a list with a directory keeps its blocks but the last as they were.
 * Then the same with one byte less of output room: refused.
 */
static void
check_append_fmt(int codec, const uint32_t *d, uint32_t n, const uint32_t *add,
				 uint32_t m, int fmt)
{
	tl			t;
	uint32_t   *all = unit_xmalloc(((size_t) n + m + 1) * 4);
	uint32_t   *back = unit_xmalloc(((size_t) n + m + 1) * 4);
	size_t		flen = 0,
				olen = 0,
				cap;
	uint8_t    *fresh,
			   *out;
	uint32_t	newlast = m ? add[m - 1] : (n ? d[n - 1] : 0);
	uint64_t	sc;
	uint32_t   *scratch;
	gpx_list	o;
	gpx_status	st;

	memcpy(all, d, (size_t) n * 4);
	memcpy(all + n, add, (size_t) m * 4);
	tl_make_fmt(&t, codec, d, n, fmt);
	fresh = unit_encode_exact(codec, all, n + m, &flen);
	cap = gpx_append_bound(&t.l, m, newlast);
	sc = gpx_append_scratch(&t.l, m, newlast);
	scratch = unit_xmalloc((size_t) (sc + 1) * 4);
	out = unit_xmalloc(cap);
	st = gpx_append(&t.l, add, m, scratch, sc, out, cap, &olen);
	CHECKF(st == GPX_OK, "append %s %s n %u + %u: %s", gpx_codec_name(codec),
		   fmt_name[fmt], n, m, gpx_status_str(st));
	if (st == GPX_OK)
	{
		CHECKF(unit_validate_exact(out, olen) == GPX_OK, "append %s %s n %u + %u: invalid",
			   gpx_codec_name(codec), fmt_name[fmt], n, m);
		CHECK(gpx_open(&o, out, olen) == GPX_OK && o.n == n + m);
		gpx_decode(&o, back);
		CHECKF(memcmp(back, all, ((size_t) n + m) * 4) == 0,
			   "append %s %s n %u + %u: docIDs differ", gpx_codec_name(codec),
			   fmt_name[fmt], n, m);
		if (m == 0)
			CHECK(olen == t.len && memcmp(out, t.blob, olen) == 0);
		else
		{
			CHECK(o.version == 2);
			if (fmt <= 1)
				CHECKF(olen == flen && memcmp(out, fresh, flen) == 0,
					   "append %s %s n %u + %u: len %zu, a fresh encode %zu",
					   gpx_codec_name(codec), fmt_name[fmt], n, m, olen, flen);
			if (t.l.version == 2 && t.l.nblocks >= 2)
			{
				/* blocks 0 .. nblocks - 2 kept: entries and payload bytes */
				uint32_t	kl = t.l.nblocks - 1;
				uint32_t	pk = gpx_dir_offset(&t.l, kl - 1) >> 2;

				CHECK(o.nblocks >= t.l.nblocks &&
					  memcmp(o.dir, t.l.dir, (size_t) kl * GPX_DIR_ENTRY_SIZE) == 0 &&
					  memcmp(o.payload, t.l.payload, pk) == 0);
			}
		}
	}
	/* one byte short: refused (the bound is exact or generous) */
	if (st == GPX_OK && m > 0)
	{
		size_t		olen2;

		CHECK(gpx_append(&t.l, add, m, scratch, sc, out, olen - 1, &olen2) == GPX_E_NOSPACE);
	}
	/* too little scratch: refused */
	if (st == GPX_OK && sc > 0)
	{
		size_t		olen2;

		CHECK(gpx_append(&t.l, add, m, scratch, sc - 1, out, cap, &olen2) == GPX_E_NOSPACE);
	}
	free(scratch);
	free(out);
	free(fresh);
	free(all);
	free(back);
	tl_free(&t);
}

/* Append docs to a list in every encoding (check_append_fmt). */
static void
check_append(int codec, const uint32_t *d, uint32_t n, const uint32_t *add,
			 uint32_t m)
{
	for (int fmt = 0; fmt < NFMT; fmt++)
		check_append_fmt(codec, d, n, add, m, fmt);
}

/*
 * A list grown one docID at a time from empty past four blocks, each step
 * appended to the previous result (one block growing into a list with a
 * directory, and the directory growing): always what gpx_encode writes
 * for the whole list.  Starting again from a format 1 list of 100.
 */
static void
test_append_grow(unit_rng *r)
{
	enum
	{
		NGROW = 1100
	};
	uint32_t   *d = unit_xmalloc(NGROW * 4);
	uint32_t   *scratch = unit_xmalloc((NGROW + GPX_MAX_BLOCK + 1) * 4);

	for (int codec = GPX_CODEC_MIN; codec <= GPX_CODEC_MAX; codec++)
		for (int start = 0; start < 2; start++)
		{
			uint32_t	n0 = start == 0 ? 0 : 100;
			uint64_t	v = unit_below(r, 1000);
			tl			t;
			uint8_t    *cur;
			size_t		len;
			int			bad = 0;

			/* stretches of different densities: every block form */
			for (uint32_t i = 0; i < NGROW; i++)
			{
				uint32_t	phase = (i / 97) % 3;

				v += phase == 0 ? 1 : phase == 1 ? 1 + unit_below(r, 3) :
					1 + unit_below(r, 5000);
				d[i] = (uint32_t) v;
			}
			tl_make_fmt(&t, codec, d, n0, start == 0 ? 0 : 1);
			cur = unit_xmalloc(t.len);
			memcpy(cur, t.blob, t.len);
			len = t.len;
			tl_free(&t);
			for (uint32_t n = n0; n < NGROW && bad < 3; n++)
			{
				gpx_list	l;
				size_t		cap,
							olen = 0,
							flen = 0;
				uint64_t	sc;
				uint8_t    *out,
						   *fresh;
				bool		ok;
				gpx_status	st;

				CHECK(gpx_open(&l, cur, len) == GPX_OK);
				cap = gpx_append_bound(&l, 1, d[n]);
				sc = gpx_append_scratch(&l, 1, d[n]);
				out = unit_xmalloc(cap);
				st = gpx_append(&l, d + n, 1, scratch, sc, out, cap, &olen);
				fresh = unit_encode_exact(codec, d, n + 1, &flen);
				ok = st == GPX_OK && olen == flen && memcmp(out, fresh, flen) == 0;
				CHECKF(ok, "grow %s from %s: n %u + 1: %s, len %zu, a fresh encode %zu",
					   gpx_codec_name(codec), start ? "v1" : "empty", n,
					   gpx_status_str(st), olen, flen);
				bad += !ok;
				free(fresh);
				free(cur);
				cur = out;
				len = olen;
			}
			CHECK(unit_validate_exact(cur, len) == GPX_OK);
			free(cur);
		}
	free(d);
	free(scratch);
}

/* Appends of every size at every block edge; the argument checks. */
static void
test_append(unit_rng *r)
{
	static const uint32_t sizes[] = {0, 1, 2, 100, 127, 128, 129, 255, 256, 257, 1000, 5000};
	static const uint32_t adds[] = {0, 1, 2, 30, 127, 128, 129, 256, 700};
	uint32_t   *d = unit_xmalloc(6000 * 4),
			   *add = unit_xmalloc(1000 * 4);

	for (int codec = GPX_CODEC_MIN; codec <= GPX_CODEC_MAX; codec++)
		for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++)
			for (size_t ai = 0; ai < sizeof(adds) / sizeof(adds[0]); ai++)
			{
				uint32_t	n = unit_make_list(r, (unit_dist) unit_below(r, 3),
											   sizes[si], 1u << 22, d);
				uint64_t	v = n ? d[n - 1] : 0;
				uint32_t	m = 0;
				/* gaps like the list's (same b for qs) or far larger */
				uint32_t	gap = unit_below(r, 4) == 0 ? 100000 :
					(n > 1 ? (d[n - 1] - d[0]) / n + 1 : 10);

				for (uint32_t i = 0; i < adds[ai]; i++)
				{
					v += 1 + unit_below(r, 2 * (uint64_t) gap);
					if (v > GPX_MAX_DOCID)
						break;
					add[m++] = (uint32_t) v;
				}
				check_append(codec, d, n, add, m);
			}
	/* argument checks */
	for (int codec = GPX_CODEC_MIN; codec <= GPX_CODEC_MAX; codec++)
	{
		uint32_t	base[] = {5, 9, 20};
		uint32_t	bad1[] = {20, 30};	/* not above last */
		uint32_t	bad2[] = {30, 30};	/* not increasing */
		uint32_t	bad3[] = {30, 0x80000000u};	/* out of range */
		uint32_t	scratch[GPX_MAX_BLOCK + 4];
		uint8_t		out[4096];
		size_t		olen;
		tl			t;

		tl_make(&t, codec, base, 3);
		CHECK(gpx_append(&t.l, bad1, 2, scratch, GPX_MAX_BLOCK + 4, out, sizeof(out), &olen) == GPX_E_UNSORTED);
		CHECK(gpx_append(&t.l, bad2, 2, scratch, GPX_MAX_BLOCK + 4, out, sizeof(out), &olen) == GPX_E_UNSORTED);
		CHECK(gpx_append(&t.l, bad3, 2, scratch, GPX_MAX_BLOCK + 4, out, sizeof(out), &olen) == GPX_E_RANGE);
		CHECK(gpx_append(&t.l, bad1, 2, NULL, 0, NULL, 0, &olen) == GPX_E_ARG);
		CHECK(gpx_append(&t.l, bad2 + 1, 1, scratch, 0, out, sizeof(out), &olen) == GPX_E_NOSPACE);
		tl_free(&t);
	}
	free(d);
	free(add);
}

/* Long lists: appends of one block-filling run to 10^5 docIDs. */
static void
test_append_long(unit_rng *r)
{
	uint32_t	n = 100000;
	uint32_t   *d = unit_xmalloc((size_t) n * 4);
	uint32_t	add[300];

	for (int codec = GPX_CODEC_MIN; codec <= GPX_CODEC_MAX; codec++)
	{
		uint32_t	got = unit_make_list(r, UNIT_UNIFORM, n, 1u << 26, d);

		for (uint32_t i = 0; i < 300; i++)
			add[i] = d[got - 1] + 1 + i * 700;
		check_append(codec, d, got, add, 300);
	}
	free(d);
}

int
main(int argc, char **argv)
{
	unit_rng	r = {0x5e7090u};
	int			rounds = argc > 1 ? atoi(argv[1]) : 60;

	UNIT_RUN(test_order_examples());
	UNIT_RUN(test_pairs(&r, rounds, 1500));
	UNIT_RUN(test_pairs(&r, rounds / 6 + 1, 40000));
	UNIT_RUN(test_cross_codec_identity(&r));
	UNIT_RUN(test_union_many(&r));
	UNIT_RUN(test_array_ops(&r));
	UNIT_RUN(test_cross_version(&r, rounds / 2 + 1));
	UNIT_RUN(test_append(&r));
	UNIT_RUN(test_append_long(&r));
	UNIT_RUN(test_append_grow(&r));
	return unit_finish();
}
