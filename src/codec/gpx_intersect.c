/*
 * gpx_intersect.c - SvS intersection of compressed posting lists with
 * block skipping (see gpx_intersect.h for the algorithm and the API).
 *
 * Every longer list gets an isect_state: the block it is positioned on,
 * that block decoded into a buffer when a merge (or a PFor probe) needed
 * it, and the element last found by a probe.  All positions only move
 * forward, since the candidates arrive in increasing order.
 */
#include "gpx_intersect.h"
#include "gpx_internal.h"
#include "gpx_simd.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* Sentinels written past a decoded block: the scans read up to 32 ahead. */
#define ISECT_PAD 32

/* What follows a decoded block. */
static const uint32_t isect_sentinels[ISECT_PAD] = {
	[0 ... ISECT_PAD - 1] = GPX_MAX_DOCID
};

/* Position of one longer list. */
typedef struct isect_state
{
	const gpx_list *l;
	uint32_t	nb;				/* l->nblocks */
	uint32_t	blk;			/* current block; earlier blocks are all
								 * below every future candidate */
	uint32_t	cnt;			/* elements of blk decoded in buf; 0: none */
	uint32_t	pos;			/* buf[0..pos) below every future candidate */
	uint32_t	hits;			/* block_lower_bound calls into blk */
	uint32_t	nextv;			/* if has_next: an element, and the list
								 * has none in [last x looked up, nextv) */
	uint32_t	nextpos;		/* its index in the list (positions asked) */
	bool		has_next;
	bool		pfor;			/* a pfor list: PFor blocks have no random
								 * access, probes decode them */
	uint32_t	ratio;			/* AUTO probe threshold */
	uint32_t	buf[GPX_MAX_BLOCK + ISECT_PAD];	/* cnt values, then
												 * ISECT_PAD x GPX_MAX_DOCID */
} isect_state;

/* First index i in [lo, cnt) with a[i] >= x, or cnt (gallop from lo). */
static inline uint32_t
isect_search(const uint32_t *a, uint32_t lo, uint32_t cnt, uint32_t x)
{
	uint32_t	hi,
				step = 1;

	if (lo >= cnt || a[lo] >= x)
		return lo;
	for (;;)
	{
		uint32_t	p = lo + step;

		if (p >= cnt)
		{
			hi = cnt;
			break;
		}
		if (a[p] >= x)
		{
			hi = p;
			break;
		}
		lo = p;
		step <<= 1;
	}
	/* a[lo] < x, and a[hi] >= x or hi == cnt */
	while (hi - lo > 1)
	{
		uint32_t	mid = lo + (hi - lo) / 2;

		if (a[mid] < x)
			lo = mid;
		else
			hi = mid;
	}
	return hi;
}

/*
 * Probe passes: the block of the candidate ISECT_PROBE_AHEAD places on is
 * prefetched, its first ISECT_PROBE_LINES cache lines (a probe reads a
 * header and a few fields; farther or more lines measured slower on the
 * GOV2-calibrated queries, docs/bench/simd.md).  Merge passes prefetch
 * nothing: blocks decoded in turn gained nothing measurable from it.
 */
#ifndef ISECT_PROBE_AHEAD
#define ISECT_PROBE_AHEAD 2
#endif

#ifndef ISECT_PROBE_LINES
#define ISECT_PROBE_LINES 4
#endif

/*
 * Ask the memory system for the first `lines` cache lines of block b (a
 * hint: no fault, no read the caller sees), so that a probe two
 * candidates later finds them in cache and the probes' misses overlap:
 * lists read in place from a shared cache are mostly not in cache.
 */
static inline void
isect_prefetch_n(const gpx_list *l, uint32_t b, size_t lines)
{
	size_t		off,
				end;

	if (b >= l->nblocks || l->dir == NULL)
		return;
	if (l->version == GPX_FORMAT_V1)
	{
		off = (size_t) gpx_dir_loc_at(l, b) * 4;
		end = b + 1 < l->nblocks ? (size_t) gpx_dir_loc_at(l, b + 1) * 4 :
			l->payload_bytes;
	}
	else
	{
		off = gpx_dir_loc_at(l, b) >> 2;
		end = b + 1 < l->nblocks ? gpx_dir_loc_at(l, b + 1) >> 2 :
			l->payload_bytes;
	}
	if (end > l->payload_bytes)
		end = l->payload_bytes;
	if (end > off + lines * 64)
		end = off + lines * 64;
	/* every line the block's bytes touch */
	for (size_t a = off & ~(size_t) 63; a < end; a += 64)
		__builtin_prefetch(l->payload + a, 0, 3);
}

/* Set up the state of list l, positioned on block blk. */
static void
isect_state_init(isect_state *st, const gpx_list *l, uint32_t blk,
				 const gpx_isect_opts *o)
{
	bool		simd = gpx_simd()->merge != NULL;

	st->l = l;
	st->nb = l->nblocks;
	st->blk = blk;
	st->cnt = 0;
	st->pos = 0;
	st->hits = 0;
	st->nextv = 0;
	st->has_next = false;
	st->pfor = l->codec == GPX_CODEC_PFOR;
	if (o->probe_ratio > 0)
		st->ratio = o->probe_ratio;
	else if (l->codec == GPX_CODEC_PFOR)
		st->ratio = simd ? GPX_ISECT_RATIO_SIMD_PFOR : GPX_ISECT_RATIO_PFOR;
	else if (l->codec == GPX_CODEC_LRC)
		st->ratio = simd ? GPX_ISECT_RATIO_SIMD_LRC : GPX_ISECT_RATIO_LRC;
	else
		st->ratio = simd ? GPX_ISECT_RATIO_SIMD_QS : GPX_ISECT_RATIO_QS;
}

/* Move the state forward to the last block whose first docID <= x. */
static inline void
isect_seek(isect_state *st, uint32_t x)
{
	uint32_t	b = gpx_dir_gallop(st->l, st->blk, x);

	if (b != st->blk)
	{
		st->blk = b;
		st->cnt = 0;
		st->pos = 0;
		st->hits = 0;
		st->has_next = false;
	}
}

/* Decode the current block into the state's buffer, sentinels after it. */
static inline void
isect_decode(isect_state *st, gpx_isect_stats *stats)
{
	st->cnt = gpx_blk_decode_at(st->l, st->blk, st->buf);
	/* one copy of whole vectors, not ISECT_PAD stores */
	memcpy(st->buf + st->cnt, isect_sentinels, sizeof(isect_sentinels));
	st->pos = 0;
	stats->blocks_decoded++;
}

#ifdef __SSE2__
/* Bit i set when b[i] < x (vx: x in every lane), for i < 16. */
static inline uint32_t
isect_lt_mask16(const uint32_t *b, __m128i vx)
{
	__m128i		m0 = _mm_cmplt_epi32(_mm_loadu_si128((const __m128i *) b), vx),
				m1 = _mm_cmplt_epi32(_mm_loadu_si128((const __m128i *) (b + 4)), vx),
				m2 = _mm_cmplt_epi32(_mm_loadu_si128((const __m128i *) (b + 8)), vx),
				m3 = _mm_cmplt_epi32(_mm_loadu_si128((const __m128i *) (b + 12)), vx);

	return (uint32_t) _mm_movemask_epi8(_mm_packs_epi16(_mm_packs_epi32(m0, m1),
													   _mm_packs_epi32(m2, m3)));
}
#endif

/*
 * First index >= p of a decoded buffer (sentinels included) whose value is
 * >= x.  With SSE2, 32 values per step and no branch on where x falls in
 * them, so the usual case (x within 32 values) costs no mispredicted
 * branch; values and x are at most GPX_MAX_DOCID, so signed comparisons
 * order them.
 */
static inline uint32_t
isect_scan(const uint32_t *buf, uint32_t p, uint32_t x)
{
#ifdef __SSE2__
	const __m128i vx = _mm_set1_epi32((int32_t) x);
	uint32_t	lt16 = isect_lt_mask16(buf + p, vx);

	/* dense lists: x usually lies within 16 values */
	if (lt16 != 0xFFFFu)
		return p + (uint32_t) __builtin_ctz(~lt16);
	p += 16;
	for (;;)
	{
		uint32_t	lt = isect_lt_mask16(buf + p, vx) |
			(isect_lt_mask16(buf + p + 16, vx) << 16);

		/* the values below x are a prefix: the first other one answers */
		if (lt != 0xFFFFFFFFu)
			return p + (uint32_t) __builtin_ctz(~lt);
		p += 32;
	}
#else
	while (buf[p] < x)
		p++;
	return p;
#endif
}

/*
 * The list's first element >= x (x not below earlier lookups), through
 * the probe cache, the decoded buffer or the codec's in-block search;
 * false if every element is below x.  allow_decode: decode a block after
 * GPX_ISECT_DECODE_AFTER probes into it.  posp (NULL: not asked; a
 * constant at each call, so that the plain intersection compiles without
 * it): the element's index in the list.
 */
static inline bool
isect_lower_bound(isect_state *st, uint32_t x, bool allow_decode,
				  uint32_t *val, uint32_t *posp, gpx_isect_stats *stats)
{
	const gpx_list *l = st->l;
	uint32_t	f,
				j,
				v = 0,
				at = 0;			/* v's index in block st->blk */

	if (st->has_next && x <= st->nextv)
	{
		*val = st->nextv;
		if (posp)
			*posp = st->nextpos;
		return true;
	}
	if (x > l->last)
		return false;
	isect_seek(st, x);
	f = gpx_dir_first_at(l, st->blk);
	if (x <= f)
		v = f;
	else
	{
		if (st->cnt == 0 &&
			((st->pfor && gpx_form_at(l, st->blk) == GPX_FORM_PFOR) ||
			 (allow_decode && ++st->hits > GPX_ISECT_DECODE_AFTER)))
			isect_decode(st, stats);
		if (st->cnt > 0)
		{
			j = isect_search(st->buf, st->pos, st->cnt, x);
			st->pos = j;
			at = j;
			if (j < st->cnt)
				v = st->buf[j];
			else
				v = gpx_dir_first_at(l, st->blk + 1);
		}
		else if (gpx_form_at(l, st->blk) == GPX_FORM_BITMAP && !posp)
		{
			/* a bitmap block: the next one bit, no rank needed */
			gpx_blk		k;

			stats->probes++;
			gpx_blk_at(l, st->blk, &k);
			if (!gpx_bm_blk_next(&k, x, &v))
				v = gpx_dir_first_at(l, st->blk + 1);
		}
		else
		{
			stats->probes++;
			j = gpx_blk_lower_bound_at(l, st->blk, x, &v);
			at = j;
			/* all of blk below x <= last: the next block starts above x */
			if (j >= gpx_block_count_at(l, st->blk))
				v = gpx_dir_first_at(l, st->blk + 1);
		}
	}
	st->nextv = v;
	st->has_next = true;
	*val = v;
	if (posp)
	{
		/* at == the block's count: the next block's first element */
		st->nextpos = (st->blk << l->log2_block) + at;
		*posp = st->nextpos;
	}
	return true;
}

/*
 * Probe pass: keep the candidates cand[0..m) found in the list.  With
 * positions asked (row not NULL): orig[] moves with cand[], and
 * row[orig[i]] gets each candidate's index in the list.
 */
static inline uint32_t
isect_probe(isect_state *st, uint32_t *cand, uint32_t m, bool allow_decode,
			uint32_t *orig, uint32_t *row, gpx_isect_stats *stats)
{
	uint32_t	i,
				w = 0,
				v,
				pf = st->blk,
				pfdone = UINT32_MAX;

	for (i = 0; i < m; i++)
	{
		uint32_t	x = cand[i];

		/*
		 * The block of the candidate ISECT_PROBE_AHEAD places on, asked
		 * for now: the probes' cache misses overlap instead of each
		 * waiting for the last.
		 */
		if (i + ISECT_PROBE_AHEAD < m)
		{
			pf = gpx_dir_gallop(st->l, pf, cand[i + ISECT_PROBE_AHEAD]);
			if (pf != pfdone)
			{
				isect_prefetch_n(st->l, pf, ISECT_PROBE_LINES);
				pfdone = pf;
			}
		}
		if (row)
		{
			uint32_t	oi = orig[i];

			if (!isect_lower_bound(st, x, allow_decode, &v, &row[oi], stats))
				break;
			orig[w] = oi;
		}
		else if (!isect_lower_bound(st, x, allow_decode, &v, NULL, stats))
			break;
		cand[w] = x;
		w += (v == x);
	}
	return w;
}

/*
 * The candidates cand[i..) that fall in the state's current block, a
 * bitmap: each kept (at cand[*w]) iff its bit is set.  Returns the index
 * of the first candidate past the block.
 */
static uint32_t
isect_bitmap_pass(isect_state *st, uint32_t *cand, uint32_t i, uint32_t m,
				  uint32_t *w, gpx_isect_stats *stats)
{
	const gpx_list *l = st->l;
	uint64_t	limit = st->blk + 1 < st->nb ?
		gpx_dir_first_at(l, st->blk + 1) : (uint64_t) l->last + 1;
	gpx_blk		k;
	uint32_t	o = *w;

	(void) stats;
	gpx_blk_at(l, st->blk, &k);
	for (; i < m && cand[i] < limit; i++)
	{
		uint32_t	x = cand[i];

		cand[o] = x;
		o += gpx_bm_blk_contains(&k, x);
	}
	*w = o;
	return i;
}

/*
 * Merge pass: keep the candidates cand[0..m) found in the list.  Blocks
 * that hold no candidate are skipped through the directory; the others
 * are decoded once.  dense (list and candidates about as dense): a
 * two-way merge without branches on the comparison, else for each
 * candidate a forward scan of the buffer, whose branch predicts well when
 * the list is the denser side.  With positions asked (row not NULL, as in
 * isect_probe): every block decoded, bitmap ones too, and the
 * candidates of a block placed by gpx_simd_merge_pos.
 */
static inline uint32_t
isect_merge(isect_state *st, uint32_t *cand, uint32_t m, bool dense,
			uint32_t *orig, uint32_t *row, gpx_isect_stats *stats)
{
	const gpx_list *l = st->l;
	const gpx_simd_ops *o = gpx_simd();
	uint32_t	(*scan) (const uint32_t *, uint32_t, uint32_t) = o->scan;
	uint32_t	i = 0,
				w = 0;

	st->has_next = false;
	while (i < m)
	{
		uint32_t	x = cand[i];
		const uint32_t *buf;
		uint32_t	p,
					f,
					last;

		if (st->cnt > 0 && st->buf[st->cnt - 1] < x)
		{
			/* the decoded block ends below x */
			if (st->blk + 1 >= st->nb)
				break;			/* list exhausted */
			f = gpx_dir_first_at(l, st->blk + 1);
			if (x < f)
			{
				/* x falls in the gap before the next block */
				i = isect_search(cand, i, m, f);
				continue;
			}
			isect_seek(st, x);	/* moves on: cnt = 0 */
		}
		if (st->cnt == 0)
		{
			if (x > l->last)
				break;			/* list exhausted */
			isect_seek(st, x);
			f = gpx_dir_first_at(l, st->blk);
			if (x < f)
			{
				/* only before the list's first block */
				i = isect_search(cand, i, m, f);
				continue;
			}
			if (!row && gpx_form_at(l, st->blk) == GPX_FORM_BITMAP)
			{
				/* a bitmap block: one bit test per candidate, no decode */
				i = isect_bitmap_pass(st, cand, i, m, &w, stats);
				continue;
			}
			isect_decode(st, stats);
			if (st->buf[st->cnt - 1] < x)
				continue;		/* x is in the gap after this block */
		}
		buf = st->buf;
		p = st->pos;
		if (row)
		{
			i = gpx_simd_merge_pos(o, buf, st->cnt, cand, orig, i, m, &w, row,
								   st->blk << l->log2_block);
			continue;
		}
		if (o->merge != NULL)
		{
			/* a vectorised variant: windows of values, both densities */
			i = o->merge(buf, st->cnt, &p, cand, i, m, &w);
			st->pos = p;
			continue;
		}
		if (dense)
		{
			uint32_t	cnt = st->cnt;

			/* two-way merge without branches on the comparison */
			while (i < m && p < cnt)
			{
				uint32_t	a = cand[i],
							b = buf[p];

				cand[w] = a;
				w += (a == b);
				i += (a <= b);
				p += (a >= b);
			}
			st->pos = p;
			continue;
		}
		last = buf[st->cnt - 1];
		/* last >= every x merged here: the scans stop inside the block */
		do
		{
			x = cand[i++];
			p = scan != NULL ? scan(buf, p, x) : isect_scan(buf, p, x);
			cand[w] = x;
			w += (buf[p] == x);
		} while (i < m && cand[i] <= last);
		st->pos = p;
	}
	return w;
}

/*
 * Filter cand[0..m) by one list, choosing the strategy; returns the rest.
 * orig, row: positions asked (see isect_probe), or both NULL.
 */
static inline uint32_t
isect_filter(isect_state *st, uint32_t *cand, uint32_t m,
			 const gpx_isect_opts *o, uint32_t *orig, uint32_t *row,
			 gpx_isect_stats *stats)
{
	uint64_t	elems;
	uint32_t	b1;
	bool		probe;

	/* list elements in [cand[0], cand[m-1]], counted in blocks */
	isect_seek(st, cand[0]);
	b1 = gpx_dir_gallop(st->l, st->blk, cand[m - 1]);
	elems = (uint64_t) (b1 - st->blk + 1) << st->l->log2_block;
	if (o->strategy == GPX_ISECT_MERGE)
		probe = false;
	else if (o->strategy == GPX_ISECT_PROBE)
		probe = true;
	else
		probe = elems > (uint64_t) st->ratio * m;
	if (probe)
	{
		stats->probe_passes++;
		stats->probe_cands += m;
		return isect_probe(st, cand, m, o->strategy == GPX_ISECT_AUTO,
						   orig, row, stats);
	}
	stats->merge_passes++;
	stats->merge_cands += m;
	return isect_merge(st, cand, m,
					   elems < (uint64_t) GPX_ISECT_DENSE_RATIO * m, orig, row,
					   stats);
}

/* Ordering key of the SvS order: n, then span, then position. */
static inline bool
isect_before(const gpx_list *a, int ia, const gpx_list *b, int ib)
{
	uint32_t	sa,
				sb;

	if (a->n != b->n)
		return a->n < b->n;
	sa = a->last - a->first;
	sb = b->last - b->first;
	if (sa != sb)
		return sa < sb;
	return ia < ib;
}

/*
 * The common driver.  out == NULL: count only.  first_only: stop after the
 * first candidate block that survives every list (overlap test).  pos: the
 * results' indexes in every list (gpx_intersect_pos; k <=
 * GPX_ISECT_POS_LISTS, out not NULL), or NULL.
 */
static gpx_status
isect_run(const gpx_list *const *lists, int k, const gpx_isect_opts *opts,
		  uint32_t *out, uint32_t outcap, uint32_t *outn, bool first_only,
		  uint32_t *const *pos, gpx_isect_stats *stats)
{
	static const gpx_isect_opts defopts = {GPX_ISECT_AUTO, 0};
	gpx_isect_stats dummy;
	int			order[GPX_ISECT_STATE_LISTS + 1];
	isect_state st[GPX_ISECT_STATE_LISTS + 1];	/* last: overflow lists */
	uint32_t	cand[GPX_MAX_BLOCK];
	/* positions asked: each candidate's index in its source block, and
	 * per list the candidates' indexes in it, by that source index */
	uint32_t	orig[GPX_MAX_BLOCK],
				rows[GPX_ISECT_POS_LISTS][GPX_MAX_BLOCK];
	const gpx_list *src;
	int			nord = 0,
				cap,
				i,
				j;
	bool		overflow;
	uint32_t	lo = 0,
				hi = GPX_MAX_DOCID,
				b,
				total = 0;

	if (stats == NULL)
		stats = &dummy;
	memset(stats, 0, sizeof(*stats));
	if (opts == NULL)
		opts = &defopts;
	if (outn == NULL || k < 0 || (k > 0 && lists == NULL) ||
		opts->strategy > GPX_ISECT_PROBE)
		return GPX_E_ARG;
	if (pos != NULL)
	{
		if (k > GPX_ISECT_POS_LISTS || out == NULL || first_only)
			return GPX_E_ARG;
		for (i = 0; i < k; i++)
			if (pos[i] == NULL)
				return GPX_E_ARG;
	}
	*outn = 0;
	stats->lists = (uint32_t) k;
	for (i = 0; i < k; i++)
	{
		const gpx_list *l = lists[i];

		if (l == NULL)
			return GPX_E_ARG;
		if (gpx_ops(l->codec) == NULL)
			return GPX_E_CODEC;
		if (l->n == 0)
		{
			stats->range_empty = 1;
			lo = 1;
			hi = 0;
			continue;
		}
		if (l->first > lo)
			lo = l->first;
		if (l->last < hi)
			hi = l->last;
	}
	if (k == 0)
		return GPX_OK;
	if (lo > hi)
	{
		stats->range_empty = 1;
		return GPX_OK;
	}
	if (k == 1)
	{
		src = lists[0];
		if (out != NULL)
		{
			if (src->n > outcap)
				return GPX_E_NOSPACE;
			gpx_decode(src, out);
			stats->source_blocks = src->nblocks;
			for (uint32_t r = 0; pos != NULL && r < src->n; r++)
				pos[0][r] = r;
		}
		stats->candidates = stats->result = src->n;
		*outn = src->n;
		return GPX_OK;
	}

	/* SvS order: the GPX_ISECT_STATE_LISTS + 1 first lists, sorted */
	cap = k < GPX_ISECT_STATE_LISTS + 1 ? k : GPX_ISECT_STATE_LISTS + 1;
	for (i = 0; i < k; i++)
	{
		if (nord == cap)
		{
			if (!isect_before(lists[i], i, lists[order[cap - 1]], order[cap - 1]))
				continue;
			nord--;
		}
		for (j = nord; j > 0 &&
			 isect_before(lists[i], i, lists[order[j - 1]], order[j - 1]); j--)
			order[j] = order[j - 1];
		order[j] = i;
		nord++;
	}
	overflow = k > nord;
	src = lists[order[0]];
	for (j = 1; j < nord; j++)
	{
		const gpx_list *l = lists[order[j]];

		isect_state_init(&st[j - 1], l, gpx_dir_gallop(l, 0, lo),
						 opts);
	}

	b = gpx_dir_gallop(src, 0, lo);
	while (b < src->nblocks)
	{
		isect_state *emptied = NULL;
		uint32_t   *c;
		uint32_t	m,
					s = 0,
					cmax = 0;
		bool		at_end = false;

		if (gpx_dir_first_at(src, b) > hi)
			break;
		m = gpx_blk_decode_at(src, b, cand);
		stats->source_blocks++;
		if (m == 0)
			break;				/* cannot happen for a valid blob */
		if (cand[0] < lo)
			s = isect_search(cand, 0, m, lo);
		if (cand[m - 1] > hi)
		{
			m = isect_search(cand, s, m, hi + 1);
			at_end = true;
		}
		if (s >= m)
		{
			if (at_end)
				break;
			b++;
			continue;
		}
		c = cand + s;
		m -= s;
		stats->candidates += m;

		if (pos != NULL)
		{
			uint32_t	base = (b << src->log2_block) + s;

			for (uint32_t r = 0; r < m; r++)
			{
				orig[r] = r;
				rows[order[0]][r] = base + r;
			}
			for (j = 1; j < nord && m > 0; j++)
			{
				cmax = c[m - 1];
				m = isect_filter(&st[j - 1], c, m, opts, orig, rows[order[j]], stats);
				if (m == 0)
					emptied = &st[j - 1];
			}
		}
		else
			for (j = 1; j < nord && m > 0; j++)
			{
				cmax = c[m - 1];
				m = isect_filter(&st[j - 1], c, m, opts, NULL, NULL, stats);
				if (m == 0)
					emptied = &st[j - 1];
			}
		for (i = 0; overflow && i < k && m > 0; i++)
		{
			const gpx_list *l = lists[i];
			isect_state *os = &st[GPX_ISECT_STATE_LISTS];

			/* lists outside the sorted prefix come after it */
			if (!isect_before(lists[order[nord - 1]], order[nord - 1], l, i))
				continue;
			isect_state_init(os, l, gpx_find_block(l, c[0]), opts);
			cmax = c[m - 1];
			m = isect_filter(os, c, m, opts, NULL, NULL, stats);
			if (m == 0)
				emptied = os;
		}

		if (m > 0)
		{
			stats->result += m;
			if (out != NULL)
			{
				if (m > outcap - total)
					return GPX_E_NOSPACE;
				memcpy(out + total, c, (size_t) m * sizeof(uint32_t));
				for (i = 0; pos != NULL && i < k; i++)
					for (uint32_t r = 0; r < m; r++)
						pos[i][total + r] = rows[i][orig[r]];
			}
			total += m;
			if (first_only || at_end)
				break;
			b++;
		}
		else
		{
			uint32_t	nx,
						nxpos,
						nb2;

			/*
			 * Nothing in (cmax, nx) is in the list that emptied the block:
			 * skip the source's blocks that end below nx undecoded.
			 */
			if (at_end || b + 1 >= src->nblocks ||
				!(pos != NULL ?
				  isect_lower_bound(emptied, cmax + 1, false, &nx, &nxpos, stats) :
				  isect_lower_bound(emptied, cmax + 1, false, &nx, NULL, stats)) ||
				nx > hi)
				break;
			if (nx > lo)
				lo = nx;
			nb2 = gpx_dir_gallop(src, b + 1, nx);
			stats->source_skipped += nb2 - (b + 1);
			b = nb2;
		}
	}
	*outn = total;
	return GPX_OK;
}

/* Intersection with each result's index in every list (gpx_intersect.h). */
gpx_status
gpx_intersect_pos(const gpx_list *const *lists, int k,
				  const gpx_isect_opts *opts, uint32_t *out, uint32_t outcap,
				  uint32_t *outn, uint32_t *const *pos, gpx_isect_stats *stats)
{
	if (k > 0 && (pos == NULL || out == NULL))
		return GPX_E_ARG;
	return isect_run(lists, k, opts, out, outcap, outn, false,
					 k > 0 ? pos : NULL, stats);
}

/* The smallest n of the lists: the room gpx_intersect's out needs. */
uint32_t
gpx_intersect_bound(const gpx_list *const *lists, int k)
{
	uint32_t	m = 0;
	int			i;

	if (lists == NULL || k <= 0)
		return 0;
	for (i = 0; i < k; i++)
	{
		if (lists[i] == NULL)
			return 0;
		if (i == 0 || lists[i]->n < m)
			m = lists[i]->n;
	}
	return m;
}

/* Intersect into out, which has room for gpx_intersect_bound() values. */
gpx_status
gpx_intersect(const gpx_list *const *lists, int k, uint32_t *out,
			  uint32_t *outn, gpx_isect_stats *stats)
{
	return gpx_intersect_ex(lists, k, NULL, out, gpx_intersect_bound(lists, k),
							outn, stats);
}

/* Intersect into out[0..outcap) with options. */
gpx_status
gpx_intersect_ex(const gpx_list *const *lists, int k,
				 const gpx_isect_opts *opts, uint32_t *out, uint32_t outcap,
				 uint32_t *outn, gpx_isect_stats *stats)
{
	if (out == NULL)
	{
		if (stats != NULL)
			memset(stats, 0, sizeof(*stats));
		return GPX_E_ARG;
	}
	return isect_run(lists, k, opts, out, outcap, outn, false, NULL, stats);
}

/* Count the intersection without materializing it. */
gpx_status
gpx_intersect_count(const gpx_list *const *lists, int k, uint32_t *count,
					gpx_isect_stats *stats)
{
	return isect_run(lists, k, NULL, NULL, 0, count, false, NULL, stats);
}

/* Count the intersection with options. */
gpx_status
gpx_intersect_count_ex(const gpx_list *const *lists, int k,
					   const gpx_isect_opts *opts, uint32_t *count,
					   gpx_isect_stats *stats)
{
	return isect_run(lists, k, opts, NULL, 0, count, false, NULL, stats);
}

/* True iff the two lists share an element. */
bool
gpx_overlaps(const gpx_list *a, const gpx_list *b)
{
	const gpx_list *ls[2];
	uint32_t	n = 0;

	if (a == NULL || b == NULL)
		return false;
	ls[0] = a;
	ls[1] = b;
	return isect_run(ls, 2, NULL, NULL, 0, &n, true, NULL, NULL) == GPX_OK && n > 0;
}
