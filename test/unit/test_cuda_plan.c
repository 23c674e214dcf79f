/*
 * test_cuda_plan.c - unit tests of the CUDA back end's host-only planning
 * (cuda/gpx_cuda_plan.c), on the CPU with no GPU and no emulator:
 *
 *   list_ok    real blobs of every codec, in format versions 2 and 1,
 *              pass; views with a wrong block size, codec, block count,
 *              directory or payload place, length, or v1 qs parameter
 *              fail;
 *   plan       random batches (1-6 lists, empty lists, disjoint ranges,
 *              repeated lists, equal lengths, bad arguments, a list the
 *              kernels cannot take) against a naive planner: statuses,
 *              source, probe order, [lo, hi], source block range and
 *              candidate count, and that the block range holds every
 *              source docID in [lo, hi];
 *   assign     longest-processing-time spread against a naive one, over
 *              1-5 devices, and its balance bound;
 *   piece      queries cut into pieces under random room: the pieces tile
 *              the block range, never exceed the room, and stop only when
 *              not one more block fits;
 *   footprint  hash-table geometry (smallest shift with at most two
 *              buckets per block) and an aligned, non-overlapping layout.
 */
#include <stdlib.h>
#include <string.h>

#include "gpx_batch.h"
#include "gpx_cuda_plan.h"
#include "unit.h"

static const int codecs[] = {GPX_CODEC_PFOR, GPX_CODEC_LRC, GPX_CODEC_QS};

/* Subkeys of list identity for the tests: all zero (any keyset will do). */
static const gpx_keyset plan_keys;

/* A list of the test pool: its docIDs and its blob. */
typedef struct plan_list
{
	uint32_t   *docs;
	uint32_t	n;
	uint8_t    *blob;
	size_t		len;
	gpx_batch_list bl;
} plan_list;

/* Make a list of n docIDs in [base, base + span) with codec; n may be 0. */
static void
make_list(unit_rng *r, plan_list *pl, int codec, uint32_t n, uint32_t base,
		  uint64_t span)
{
	unit_dist	d = (unit_dist) unit_below(r, 3);

	pl->docs = unit_xmalloc(sizeof(uint32_t) * (n + 1));
	pl->n = n > 0 ? unit_make_list(r, d, n, span, pl->docs) : 0;
	for (uint32_t i = 0; i < pl->n; i++)
		pl->docs[i] += base;
	pl->blob = unit_encode_exact(codec, pl->docs, pl->n, &pl->len);
	CHECK(pl->blob != NULL && gpx_open(&pl->bl.list, pl->blob, pl->len) == GPX_OK);
	pl->bl.key = gpx_key_content(&plan_keys, 0, pl->blob, pl->len);
}

/* Make a list of the given docIDs with codec. */
static void
make_list_of(plan_list *pl, int codec, const uint32_t *docs, uint32_t n)
{
	pl->docs = unit_xmalloc(sizeof(uint32_t) * (n + 1));
	memcpy(pl->docs, docs, sizeof(uint32_t) * n);
	pl->n = n;
	pl->blob = unit_encode_exact(codec, pl->docs, pl->n, &pl->len);
	CHECK(pl->blob != NULL && gpx_open(&pl->bl.list, pl->blob, pl->len) == GPX_OK);
	pl->bl.key = gpx_key_content(&plan_keys, 0, pl->blob, pl->len);
}

/* Free a test list. */
static void
free_list(plan_list *pl)
{
	free(pl->docs);
	free(pl->blob);
}

/* Naive probe order: a before b (shorter, then narrower, then index). */
static bool
ref_before(const gpx_batch *b, uint32_t x, uint32_t y)
{
	const gpx_list *a = &b->lists[x].list,
			   *c = &b->lists[y].list;

	if (a->n != c->n)
		return a->n < c->n;
	if (a->last - a->first != c->last - c->first)
		return a->last - a->first < c->last - c->first;
	return x < y;
}

/* Naive directory search: the last block whose first docID is <= x, or 0. */
static uint32_t
ref_block(const gpx_list *l, uint32_t x)
{
	uint32_t	blk = 0;

	for (uint32_t i = 0; i < l->nblocks; i++)
		if (gpx_dir_first(l, i) <= x)
			blk = i;
	return blk;
}

/*
 * Views the kernels must refuse, and real blobs they must take, in both
 * format versions (v2 one-block lists have no directory).
 */
static void
test_list_ok(unit_rng *r)
{
	static const uint32_t sizes[] = {1, 2, 127, 128, 129, 255, 256, 257, 1000, 5000};
	static const int versions[] = {2, GPX_FORMAT_V1};

	for (int ver = 0; ver < 2; ver++)
		for (int c = 0; c < 3; c++)
			for (int k = 0; k < (int) (sizeof(sizes) / sizeof(sizes[0])); k++)
			{
				plan_list	pl;
				gpx_list	v;

				unit_format_version = versions[ver];
				make_list(r, &pl, codecs[c], sizes[k], 0, (uint64_t) GPX_MAX_DOCID + 1);
				unit_format_version = 0;
				CHECKF(gpx_cuda_list_ok(&pl.bl.list), "v%d codec %d n %u",
					   versions[ver], codecs[c], sizes[k]);
				v = pl.bl.list;
				v.log2_block++;
				CHECK(!gpx_cuda_list_ok(&v));
				v = pl.bl.list;
				v.codec = GPX_CODEC_MAX + 1;
				CHECK(!gpx_cuda_list_ok(&v));
				v = pl.bl.list;
				v.nblocks++;
				CHECK(!gpx_cuda_list_ok(&v));
				if (pl.bl.list.dir != NULL)
				{
					v = pl.bl.list;
					v.dir += 8;
					CHECK(!gpx_cuda_list_ok(&v));
					v = pl.bl.list;
					v.dir += 1;
					CHECK(!gpx_cuda_list_ok(&v));
				}
				v = pl.bl.list;
				v.payload += 4;
				CHECK(!gpx_cuda_list_ok(&v));
				v = pl.bl.list;
				v.len += 4;
				CHECK(!gpx_cuda_list_ok(&v));
				v = pl.bl.list;
				v.len -= 1;
				CHECK(!gpx_cuda_list_ok(&v));
				v = pl.bl.list;
				v.base = NULL;
				CHECK(!gpx_cuda_list_ok(&v));
				if (codecs[c] == GPX_CODEC_QS && versions[ver] == GPX_FORMAT_V1)
				{
					v = pl.bl.list;
					v.param = 32;
					CHECK(!gpx_cuda_list_ok(&v));
				}
				free_list(&pl);
			}
	{
		gpx_list	empty;

		memset(&empty, 0, sizeof(empty));
		CHECK(gpx_cuda_list_ok(&empty));
	}
}

/* Cost of a plan for the device spread. */
static uint64_t
plan_cost(const gpx_cuda_qplan *p)
{
	return p->ncand * (uint64_t) (p->ocount + 1);
}

/* gpx_cuda_plan_assign against a naive LPT, for 1-5 devices. */
static void
check_assign(const gpx_cuda_qplan *plan, uint32_t np)
{
	gpx_cuda_skey *keys = unit_xmalloc(sizeof(*keys) * (np + 1));
	uint32_t   *dev_of = unit_xmalloc(sizeof(uint32_t) * (np + 1));
	bool	   *done = unit_xmalloc(np + 1);

	for (uint32_t nd = 1; nd <= 5; nd++)
	{
		uint64_t	load[5],
					ref_load[5] = {0, 0, 0, 0, 0},
					max_cost = 0,
					lmin,
					lmax;
		uint32_t	diff = 0;

		for (uint32_t i = 0; i < np; i++)
			dev_of[i] = 99;
		gpx_cuda_plan_assign(plan, np, nd, keys, load, dev_of);
		memset(done, 0, np + 1);
		for (uint32_t step = 0; step < np; step++)
		{
			uint32_t	best = np,
						dev = 0;

			for (uint32_t i = 0; i < np; i++)
				if (!done[i] && (best == np || plan_cost(&plan[i]) > plan_cost(&plan[best])))
					best = i;
			done[best] = true;
			for (uint32_t d = 1; d < nd; d++)
				if (ref_load[d] < ref_load[dev])
					dev = d;
			diff += dev_of[best] != (nd == 1 ? 0 : dev);
			ref_load[dev] += plan_cost(&plan[best]) + 1;
			max_cost = plan_cost(&plan[best]) > max_cost ? plan_cost(&plan[best]) : max_cost;
		}
		CHECKF(diff == 0, "%u devices: %u plans on another device than naive LPT", nd, diff);
		lmin = lmax = ref_load[0];
		for (uint32_t d = 1; d < nd; d++)
		{
			lmin = ref_load[d] < lmin ? ref_load[d] : lmin;
			lmax = ref_load[d] > lmax ? ref_load[d] : lmax;
		}
		CHECKF(lmax - lmin <= max_cost + 1, "%u devices: loads %llu .. %llu", nd,
			   (unsigned long long) lmin, (unsigned long long) lmax);
	}
	free(keys);
	free(dev_of);
	free(done);
}

/* Every plan cut into pieces under random candidate and block room. */
static void
check_pieces(unit_rng *r, const gpx_batch *b, const gpx_cuda_qplan *plan, uint32_t np)
{
	for (uint32_t i = 0; i < np; i++)
	{
		const gpx_cuda_qplan *p = &plan[i];
		const gpx_list *src = &b->lists[p->src].list;
		uint32_t	lg = src->log2_block;
		uint32_t	start = p->b0;
		uint64_t	sum = 0;
		int			bad = 0,
					guard = 0;

		while (start < p->b1 && guard++ < 100000)
		{
			uint32_t	end = 0,
						cands = 0;
			uint64_t	room = unit_below(r, 4) == 0 ? unit_below(r, 1u << lg) :
				unit_below(r, 6u << lg);
			uint32_t	work = unit_below(r, 5) == 0 ? 0 : unit_below(r, 5);
			uint64_t	s_elem = (uint64_t) start << lg;
			uint64_t	rest = ((uint64_t) p->b1 << lg < src->n ?
								(uint64_t) p->b1 << lg : src->n) - s_elem;
			bool		fits = (rest <= room || (room >> lg) > 0) && work > 0;

			if (!gpx_cuda_plan_piece(p, src, start, room, work, &end, &cands))
			{
				bad += fits;
				continue;
			}
			bad += !fits;
			bad += !(end > start && end <= p->b1);
			bad += end - start > work;
			bad += cands > room;
			bad += cands != (((uint64_t) end << lg) < src->n ?
							 ((uint64_t) end << lg) : src->n) - s_elem;
			/* cut short only by the room: not one more block would fit */
			if (end < p->b1)
				bad += !(end - start == work || (uint64_t) (end - start + 1) << lg > room);
			sum += cands;
			start = end;
		}
		CHECKF(bad == 0 && start == p->b1, "plan %u: %d bad pieces, stopped at block %u of [%u, %u)",
			   i, bad, start, p->b0, p->b1);
		CHECKF(sum == p->ncand, "plan %u: pieces hold %llu candidates, want %llu", i,
			   (unsigned long long) sum, (unsigned long long) p->ncand);
	}
}

static int	many_planned;		/* planned queries of many lists */

/*
 * One random batch, planned and checked against the naive planner; the
 * plans go on to the assignment and piece tests.
 */
static void
test_plan_batch(unit_rng *r)
{
	enum
	{
		NPOOL = 24, NQ = 60, MAXL = 6, MANY = 40
	};
	plan_list	pool[NPOOL];
	gpx_batch_list lists[NQ * MAXL + MANY];
	gpx_batch_query q[NQ];
	int			expect[NQ];		/* expected status */
	gpx_cuda_qplan plan[NQ];
	uint32_t	olist[NQ * MAXL + MANY];
	gpx_cuda_skey keys[NQ * MAXL + MANY];
	size_t		room_o,
				room_k,
				want_o = 0,
				want_k = 0,
				nolist = 0;
	uint32_t	nl = 0,
				np,
				k = 0;
	gpx_batch	b;
	gpx_list	bad;

	/* the pool: lengths with ties, some empty, ranges that overlap or not */
	for (int i = 0; i < NPOOL; i++)
	{
		uint32_t	n = i % 8 == 7 ? 0 : (i % 5 == 0 ? 300 : 1 + unit_below(r, 3000));
		uint32_t	base = i % 6 == 5 ? 1500000000u : unit_below(r, 1000);
		uint64_t	span = i % 4 == 3 ? 20000 : 1000000;

		make_list(r, &pool[i], codecs[i % 3], n, base, span);
	}
	bad = pool[1].bl.list;
	bad.log2_block = 5;
	/* two lists that share one docID only, their last and first: lo == hi */
	{
		uint32_t	d[2000];

		free_list(&pool[NPOOL - 2]);
		free_list(&pool[NPOOL - 1]);
		for (uint32_t i = 0; i < 2000; i++)
			d[i] = 10 * i + 10;
		make_list_of(&pool[NPOOL - 2], codecs[unit_below(r, 3)], d, 2000);
		for (uint32_t i = 0; i < 700; i++)
			d[i] = 20000 + 3 * i;
		make_list_of(&pool[NPOOL - 1], codecs[unit_below(r, 3)], d, 700);
	}

	memset(q, 0, sizeof(q));
	for (int i = 0; i < NQ; i++)
	{
		uint32_t	m = 1 + unit_below(r, MAXL);

		q[i].first_list = nl;
		q[i].nlists = m;
		q[i].out_offset = (uint64_t) i * 4000;
		q[i].out_capacity = 4000;
		q[i].out_count = 77;
		expect[i] = GPX_OK;
		for (uint32_t j = 0; j < m; j++)
			lists[nl++] = pool[unit_below(r, NPOOL)].bl;
		if (i % 10 == 3)
		{
			lists[q[i].first_list + m - 1].list = bad;
			expect[i] = GPX_E_CODEC;
		}
		if (i % 10 == 4)
		{
			/* repeated list: the same view twice */
			lists[q[i].first_list] = pool[2].bl;
			if (m > 1)
				lists[q[i].first_list + 1] = pool[2].bl;
		}
	}
	/* the single-docID range, source longer than a block */
	q[7].nlists = 2;
	lists[q[7].first_list] = pool[NPOOL - 2].bl;
	lists[q[7].first_list + 1] = pool[NPOOL - 1].bl;
	expect[7] = GPX_OK;
	/* a query of many lists (sorted by the planner's other method) */
	q[9].first_list = nl;
	q[9].nlists = 20 + unit_below(r, MANY - 20);
	expect[9] = GPX_OK;
	for (uint32_t j = 0; j < q[9].nlists; j++)
	{
		/* lists that span [5000, 15000] (there are some), so [lo, hi] is not empty */
		int			i,
					tries = 0;

		do
			i = (int) unit_below(r, NPOOL);
		while ((pool[i].n == 0 || pool[i].docs[0] > 5000 ||
				pool[i].docs[pool[i].n - 1] < 15000) && ++tries < 1000);
		lists[nl++] = pool[i].bl;
	}
	/* bad arguments */
	q[5].nlists = 0;
	expect[5] = GPX_E_ARG;
	q[15].first_list = nl - 1;
	q[15].nlists = 2;
	expect[15] = GPX_E_ARG;
	q[25].out_offset = (uint64_t) NQ * 4000 + 1;
	expect[25] = GPX_E_ARG;
	q[35].out_capacity = 4001;
	q[35].out_offset = (uint64_t) (NQ - 1) * 4000;
	expect[35] = GPX_E_ARG;

	memset(&b, 0, sizeof(b));
	b.nqueries = NQ;
	b.nlists = nl;
	b.queries = q;
	b.lists = lists;
	b.out_words = (uint64_t) NQ * 4000;

	for (int i = 0; i < NQ; i++)
		if (expect[i] != GPX_E_ARG)
		{
			want_o += q[i].nlists - 1;
			want_k = q[i].nlists > want_k ? q[i].nlists : want_k;
		}
	gpx_cuda_plan_room(&b, &room_o, &room_k);
	CHECKF(room_o == want_o && room_k == want_k, "room %zu/%zu, want %zu/%zu",
		   room_o, room_k, want_o, want_k);

	np = gpx_cuda_plan_batch(&b, plan, olist, &nolist, keys);
	CHECK(nolist <= room_o);
	for (int i = 0; i < NQ; i++)
	{
		gpx_batch_query *qi = &q[i];
		uint32_t	lo = 0,
					hi = GPX_MAX_DOCID,
					order[MANY];
		bool		empty = false;

		CHECKF(qi->status == expect[i], "query %d status %d, want %d", i, qi->status, expect[i]);
		CHECK(qi->out_count == 0);
		if (expect[i] != GPX_OK)
			continue;
		for (uint32_t j = 0; j < qi->nlists; j++)
		{
			const gpx_list *l = &lists[qi->first_list + j].list;

			if (l->n == 0)
				empty = true;
			else
			{
				lo = l->first > lo ? l->first : lo;
				hi = l->last < hi ? l->last : hi;
			}
		}
		if (empty || lo > hi)
			continue;
		/* naive order: selection of the first remaining by ref_before */
		for (uint32_t j = 0; j < qi->nlists; j++)
			order[j] = qi->first_list + j;
		for (uint32_t a = 0; a < qi->nlists; a++)
			for (uint32_t c = a + 1; c < qi->nlists; c++)
				if (ref_before(&b, order[c], order[a]))
				{
					uint32_t	t = order[a];

					order[a] = order[c];
					order[c] = t;
				}
		if (i == 9)
			many_planned++;
		if (k >= np)
		{
			CHECKF(false, "query %d has no plan", i);
			continue;
		}
		{
			const gpx_cuda_qplan *p = &plan[k++];
			const gpx_list *src = &lists[p->src].list;
			uint32_t	lg = src->log2_block;
			uint32_t	b0 = ref_block(src, lo),
						b1 = ref_block(src, hi) + 1;
			uint64_t	end = (uint64_t) b1 << lg < src->n ? (uint64_t) b1 << lg : src->n;
			bool		same = p->ocount == qi->nlists - 1;
			uint32_t   *docs = unit_xmalloc(sizeof(uint32_t) * (src->n + 1));
			uint32_t	outside = 0;

			CHECKF(p->q == (uint32_t) i, "plan %u is for query %u, want %d", k - 1, p->q, i);
			CHECKF(p->src == order[0], "query %d source %u, want %u", i, p->src, order[0]);
			for (uint32_t j = 1; same && j < qi->nlists; j++)
				same = olist[p->obeg + j - 1] == order[j];
			CHECKF(same, "query %d probe order", i);
			CHECK(p->obeg + p->ocount <= nolist);
			CHECKF(p->lo == lo && p->hi == hi, "query %d range [%u, %u], want [%u, %u]",
				   i, p->lo, p->hi, lo, hi);
			CHECKF(p->b0 == b0 && p->b1 == b1, "query %d blocks [%u, %u), want [%u, %u)",
				   i, p->b0, p->b1, b0, b1);
			CHECK(p->ncand == end - ((uint64_t) b0 << lg));
			CHECK(p->total == 0 && p->written == 0);
			/* no source docID in [lo, hi] lies outside the block range */
			gpx_decode(src, docs);
			for (uint32_t j = 0; j < src->n; j++)
				if (docs[j] >= lo && docs[j] <= hi &&
					(j < ((uint64_t) b0 << lg) || j >= end))
					outside++;
			CHECKF(outside == 0, "query %d: %u candidates outside the block range", i, outside);
			free(docs);
		}
	}
	CHECKF(k == np, "%u plans, want %u", np, k);

	/* the plans of this batch, spread and cut */
	check_assign(plan, np);
	check_pieces(r, &b, plan, np);
	for (int i = 0; i < NPOOL; i++)
		free_list(&pool[i]);
}

/* Table geometry and layout of lists of many lengths and spans. */
static void
test_footprint(unit_rng *r)
{
	for (int t = 0; t < 200; t++)
	{
		plan_list	pl;
		gpx_cuda_footprint fp;
		const gpx_list *l;
		uint32_t	n = t < 10 ? (uint32_t) t : 1 + unit_below(r, t < 150 ? 4000 : 200000);
		uint64_t	span = unit_below(r, 2) ? (uint64_t) GPX_MAX_DOCID + 1 : (uint64_t) n * 3 + 1;

		make_list(r, &pl, codecs[t % 3], n, 0, span);
		l = &pl.bl.list;
		gpx_cuda_plan_footprint(l, &fp);
		if (l->nblocks < 4)
			CHECK(fp.tbl_nb == 0 && fp.skip_off == fp.tbl_off);
		else
		{
			uint32_t	s = fp.tbl_shift;

			CHECK(fp.tbl_nb == (l->last >> s) + 1);
			CHECKF(s == 31 || fp.tbl_nb <= 2 * (uint64_t) l->nblocks,
				   "n %u: %u buckets for %u blocks", l->n, fp.tbl_nb, l->nblocks);
			CHECK(s == 0 || (uint64_t) (l->last >> (s - 1)) + 1 > 2 * (uint64_t) l->nblocks);
			CHECK(fp.skip_off >= fp.tbl_off + 4 * ((size_t) fp.tbl_nb + 1));
		}
		CHECK(fp.tbl_off >= l->len);
		CHECK(l->codec == GPX_CODEC_LRC ? fp.skip_bytes == 0 :
			  fp.skip_bytes >= (size_t) GPX_CUDA_SKIP_ENTRY * l->nblocks);
		CHECK(fp.bytes == fp.skip_off + fp.skip_bytes);
		CHECK(fp.tbl_off % GPX_CUDA_POOL_ALIGN == 0 && fp.skip_off % GPX_CUDA_POOL_ALIGN == 0 &&
			  fp.bytes % GPX_CUDA_POOL_ALIGN == 0);
		free_list(&pl);
	}
}

int
main(void)
{
	unit_rng	r = {20261125};

	UNIT_RUN(test_list_ok(&r));
	unit_case_begin("20 random batches planned (test_plan_batch)");
	for (int rep = 0; rep < 20; rep++)
		test_plan_batch(&r);
	CHECKF(many_planned >= 10, "only %d of 20 queries of many lists were planned", many_planned);
	unit_case_end();
	UNIT_RUN(test_footprint(&r));
	return unit_finish();
}
