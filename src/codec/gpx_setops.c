/*
 * gpx_setops.c - set algebra on compressed posting lists through the
 * public list API (see gpx_setops.h for the merge plan, the order and the
 * hash).
 *
 * The two-list operations keep one decoded block per list (an so_side);
 * the plan says which block each segment needs and the side decodes it on
 * first use, so every block is decoded at most once and never when the
 * operation does not need it.  Merges inside a segment are branchless:
 * both heads are compared, the smaller is written and each index moves by
 * a comparison result.
 */
#include <string.h>

#include "gpx_setops.h"
#include "gpx_intersect.h"
#include "gpx_simd.h"

/* ---------------------------------------------------------------- helpers */

/* First index i in [lo, n) with a[i] >= x, or n. */
static inline uint32_t
so_lower(const uint32_t *a, uint32_t lo, uint32_t n, uint32_t x)
{
	return x == 0 ? lo : gpx_simd_upper(a, lo, n, x - 1);
}

/*
 * Decode the whole list into out[0..l->n) without writing past out[n-1]:
 * a codec may fill all GPX_MAX_BLOCK slots of a block's output, so blocks
 * near the end go through a scratch buffer.
 */
static void
so_decode_all(const gpx_list *l, uint32_t *out)
{
	uint32_t	tmp[GPX_MAX_BLOCK];
	uint64_t	pos = 0;

	for (uint32_t k = 0; k < l->nblocks; k++)
	{
		uint32_t	cnt;

		if (pos + GPX_MAX_BLOCK <= l->n)
			cnt = gpx_decode_block(l, k, out + pos);
		else
		{
			cnt = gpx_decode_block(l, k, tmp);
			if (cnt > l->n - pos)
				cnt = (uint32_t) (l->n - pos);
			memcpy(out + pos, tmp, (size_t) cnt * sizeof(uint32_t));
		}
		pos += cnt;
	}
}

/*
 * Runs this many times longer than the other one are merged by galloping:
 * each element of the short run is placed by a search in the long one and
 * the long one is copied between them (a branchless merge pays about the
 * same for every element of both runs; a branchy one mispredicts on runs
 * that interleave).
 */
#define SO_GALLOP 8

/* a | b when b is much shorter: b placed into a by galloping. */
static uint32_t
so_union_gallop(const uint32_t *a, uint32_t na, const uint32_t *b,
				uint32_t nb, uint32_t *out)
{
	uint32_t	i = 0,
				k = 0;

	for (uint32_t j = 0; j < nb; j++)
	{
		uint32_t	x = b[j],
					p = so_lower(a, i, na, x);

		memcpy(out + k, a + i, (size_t) (p - i) * sizeof(uint32_t));
		k += p - i;
		i = p;
		if (i < na && a[i] == x)
			i++;
		out[k++] = x;
	}
	memcpy(out + k, a + i, (size_t) (na - i) * sizeof(uint32_t));
	return k + (na - i);
}

/* a # b when b is much shorter: like so_union_gallop, common ones dropped. */
static uint32_t
so_symdiff_gallop(const uint32_t *a, uint32_t na, const uint32_t *b,
				  uint32_t nb, uint32_t *out)
{
	uint32_t	i = 0,
				k = 0;

	for (uint32_t j = 0; j < nb; j++)
	{
		uint32_t	x = b[j],
					p = so_lower(a, i, na, x);

		memcpy(out + k, a + i, (size_t) (p - i) * sizeof(uint32_t));
		k += p - i;
		i = p;
		if (i < na && a[i] == x)
			i++;
		else
			out[k++] = x;
	}
	memcpy(out + k, a + i, (size_t) (na - i) * sizeof(uint32_t));
	return k + (na - i);
}

/* a | b of two sorted runs into out; returns the count. */
static inline uint32_t
so_merge_union(const uint32_t *a, uint32_t na, const uint32_t *b, uint32_t nb,
			   uint32_t *out)
{
	uint32_t	i = 0,
				j = 0,
				k = 0;

	if (na > 0 && nb > 0 && a[na - 1] >= b[0] && b[nb - 1] >= a[0])
	{
		if (na > (uint64_t) SO_GALLOP * nb)
			return so_union_gallop(a, na, b, nb, out);
		if (nb > (uint64_t) SO_GALLOP * na)
			return so_union_gallop(b, nb, a, na, out);
		/* the vectorised variant's share, then the scalar loop's */
		if (gpx_simd()->setop != NULL)
			k = gpx_simd()->setop(GPX_SIMD_UNION, a, na, b, nb, &i, &j, out);
		while (i < na && j < nb)
		{
			uint32_t	va = a[i],
						vb = b[j];

			out[k++] = va < vb ? va : vb;
			i += va <= vb;
			j += vb <= va;
		}
	}
	else if (na > 0 && nb > 0 && b[nb - 1] < a[0])
	{
		/* b wholly first */
		memcpy(out, b, (size_t) nb * sizeof(uint32_t));
		k = nb;
		j = nb;
	}
	memcpy(out + k, a + i, (size_t) (na - i) * sizeof(uint32_t));
	k += na - i;
	memcpy(out + k, b + j, (size_t) (nb - j) * sizeof(uint32_t));
	return k + (nb - j);
}

/* a - b of two sorted runs into out (out may not alias b); the count. */
static inline uint32_t
so_merge_difference(const uint32_t *a, uint32_t na, const uint32_t *b,
					uint32_t nb, uint32_t *out)
{
	uint32_t	i = 0,
				j = 0,
				k = 0;

	if (na > (uint64_t) SO_GALLOP * nb)
	{
		/* few to remove: copy a between them */
		for (j = 0; j < nb; j++)
		{
			uint32_t	p = so_lower(a, i, na, b[j]);

			memmove(out + k, a + i, (size_t) (p - i) * sizeof(uint32_t));
			k += p - i;
			i = p;
			if (i < na && a[i] == b[j])
				i++;
		}
	}
	else if (nb > (uint64_t) SO_GALLOP * na)
	{
		/* few to keep: look each up in b */
		for (i = 0; i < na; i++)
		{
			j = so_lower(b, j, nb, a[i]);
			if (j >= nb || b[j] != a[i])
				out[k++] = a[i];
		}
		return k;
	}
	else
	{
		if (gpx_simd()->setop != NULL)
			k = gpx_simd()->setop(GPX_SIMD_DIFFERENCE, a, na, b, nb, &i, &j, out);
		while (i < na && j < nb)
		{
			uint32_t	va = a[i],
						vb = b[j];

			out[k] = va;
			k += va < vb;
			i += va <= vb;
			j += vb <= va;
		}
	}
	memmove(out + k, a + i, (size_t) (na - i) * sizeof(uint32_t));
	return k + (na - i);
}

/* a # b of two sorted runs into out; the count. */
static inline uint32_t
so_merge_symdiff(const uint32_t *a, uint32_t na, const uint32_t *b,
				 uint32_t nb, uint32_t *out)
{
	uint32_t	i = 0,
				j = 0,
				k = 0;

	if (na > (uint64_t) SO_GALLOP * nb)
		return so_symdiff_gallop(a, na, b, nb, out);
	if (nb > (uint64_t) SO_GALLOP * na)
		return so_symdiff_gallop(b, nb, a, na, out);
	if (gpx_simd()->setop != NULL)
		k = gpx_simd()->setop(GPX_SIMD_SYMDIFF, a, na, b, nb, &i, &j, out);
	while (i < na && j < nb)
	{
		uint32_t	va = a[i],
					vb = b[j];

		out[k] = va < vb ? va : vb;
		k += va != vb;
		i += va <= vb;
		j += vb <= va;
	}
	memcpy(out + k, a + i, (size_t) (na - i) * sizeof(uint32_t));
	k += na - i;
	memcpy(out + k, b + j, (size_t) (nb - j) * sizeof(uint32_t));
	return k + (nb - j);
}

/* ------------------------------------------------------------------- plan */

/* Most segments of the plan of a and b. */
uint64_t
gpx_mplan_max(const gpx_list *a, const gpx_list *b)
{
	return (uint64_t) a->nblocks + b->nblocks;
}

/* Start the plan of a and b. */
void
gpx_mplan_init(gpx_mplan *p, const gpx_list *a, const gpx_list *b)
{
	p->l[0] = a;
	p->l[1] = b;
	p->cur[0] = 0;
	p->cur[1] = 0;
	p->done = false;
	if (a->n == 0 && b->n == 0)
	{
		p->done = true;
		p->lo = 0;
		p->end = 0;
	}
	else if (a->n == 0)
	{
		p->lo = b->first;
		p->end = b->last;
	}
	else if (b->n == 0)
	{
		p->lo = a->first;
		p->end = a->last;
	}
	else
	{
		p->lo = a->first < b->first ? a->first : b->first;
		p->end = a->last > b->last ? a->last : b->last;
	}
}

/*
 * The next segment: it starts at the current cut and ends before the
 * nearest later cut (the next block's first docID of either list, or a
 * list's first docID not reached yet), or at the end of both lists.
 */
bool
gpx_mplan_next(gpx_mplan *p, gpx_mseg *s)
{
	uint32_t	lo = p->lo;
	uint64_t	cut = (uint64_t) p->end + 1;

	if (p->done)
		return false;
	s->lo = lo;
	for (int x = 0; x < 2; x++)
	{
		const gpx_list *l = p->l[x];
		uint32_t	k;

		if (l->n == 0 || lo > l->last)
		{
			s->blk[x] = GPX_MSEG_NONE;
			continue;
		}
		if (lo < l->first)
		{
			s->blk[x] = GPX_MSEG_NONE;
			if (l->first < cut)
				cut = l->first;
			continue;
		}
		k = p->cur[x];
		while (k + 1 < l->nblocks && gpx_dir_first(l, k + 1) <= lo)
			k++;
		p->cur[x] = k;
		s->blk[x] = k;
		if (k + 1 < l->nblocks && gpx_dir_first(l, k + 1) < cut)
			cut = gpx_dir_first(l, k + 1);
	}
	s->hi = (uint32_t) (cut - 1);
	if (cut > p->end)
		p->done = true;
	else
		p->lo = (uint32_t) cut;
	return true;
}

/* The whole plan into segs. */
gpx_status
gpx_merge_plan(const gpx_list *a, const gpx_list *b, gpx_mseg *segs,
			   uint64_t cap, uint32_t *nseg)
{
	gpx_mplan	p;
	uint32_t	n = 0;

	if (a == NULL || b == NULL || nseg == NULL || (segs == NULL && cap > 0))
		return GPX_E_ARG;
	if (cap < gpx_mplan_max(a, b))
		return GPX_E_NOSPACE;
	gpx_mplan_init(&p, a, b);
	while (gpx_mplan_next(&p, &segs[n]))
		n++;
	*nseg = n;
	return GPX_OK;
}

/* ------------------------------------------------------- two-list walker */

/* One list's decoded block during a plan walk. */
typedef struct so_side
{
	const gpx_list *l;
	uint32_t	blk;			/* block in buf, or GPX_MSEG_NONE */
	uint32_t	cnt;
	uint32_t	pos;			/* buf[0..pos) are below the segment */
	uint32_t	buf[GPX_MAX_BLOCK];
} so_side;

/* Set up a side of list l with nothing decoded. */
static inline void
so_side_init(so_side *sd, const gpx_list *l)
{
	sd->l = l;
	sd->blk = GPX_MSEG_NONE;
	sd->cnt = 0;
	sd->pos = 0;
}

/*
 * The side's docIDs in segment s (its block blk), decoding the block on
 * first use; *run points into the side's buffer.  Returns the count.
 */
static inline uint32_t
so_side_run(so_side *sd, uint32_t blk, const gpx_mseg *s, const uint32_t **run)
{
	uint32_t	start,
				end;

	*run = sd->buf;
	if (blk == GPX_MSEG_NONE)
		return 0;
	if (blk != sd->blk)
	{
		sd->cnt = gpx_decode_block(sd->l, blk, sd->buf);
		sd->blk = blk;
		sd->pos = 0;
	}
	/* segments skipped since the last call leave pos behind: catch up */
	start = sd->pos;
	if (start < sd->cnt && sd->buf[start] < s->lo)
		start = so_lower(sd->buf, start, sd->cnt, s->lo);
	if (start < sd->cnt && sd->buf[sd->cnt - 1] <= s->hi)
		end = sd->cnt;
	else
		end = gpx_simd_upper(sd->buf, start, sd->cnt, s->hi);
	sd->pos = end;
	*run = sd->buf + start;
	return end - start;
}

/* The operation a plan walk performs. */
typedef enum so_op
{
	SO_UNION,
	SO_DIFFERENCE,
	SO_SYMDIFF
} so_op;

/* One segment's result of op from two runs into out; the count. */
static inline uint32_t
so_merge(so_op op, const uint32_t *ra, uint32_t na, const uint32_t *rb,
		 uint32_t nb, uint32_t *out)
{
	if (op == SO_UNION)
		return so_merge_union(ra, na, rb, nb, out);
	if (op == SO_DIFFERENCE)
		return so_merge_difference(ra, na, rb, nb, out);
	return so_merge_symdiff(ra, na, rb, nb, out);
}

/*
 * Walk the plan of a and b, writing op's result into out[0..outcap).  A
 * segment that might not fit is merged into a buffer first, so outcap only
 * has to hold the result: GPX_E_NOSPACE when it does not.
 */
static gpx_status
so_walk(const gpx_list *a, const gpx_list *b, so_op op, uint32_t *out,
		uint32_t outcap, uint32_t *outn)
{
	so_side		sa,
				sb;
	gpx_mplan	p;
	gpx_mseg	s;
	uint32_t	k = 0;

	so_side_init(&sa, a);
	so_side_init(&sb, b);
	gpx_mplan_init(&p, a, b);
	while (gpx_mplan_next(&p, &s))
	{
		const uint32_t *ra,
				   *rb;
		uint32_t	na,
					nb;

		na = so_side_run(&sa, s.blk[0], &s, &ra);
		/* a difference never needs b's block where a has nothing */
		if (op == SO_DIFFERENCE && na == 0)
			continue;
		nb = so_side_run(&sb, s.blk[1], &s, &rb);
		if ((uint64_t) k + na + nb <= outcap)
			k += so_merge(op, ra, na, rb, nb, out + k);
		else
		{
			uint32_t	tmp[2 * GPX_MAX_BLOCK];
			uint32_t	c = so_merge(op, ra, na, rb, nb, tmp);

			if ((uint64_t) k + c > outcap)
				return GPX_E_NOSPACE;
			memcpy(out + k, tmp, (size_t) c * sizeof(uint32_t));
			k += c;
		}
	}
	*outn = k;
	return GPX_OK;
}

/* ------------------------------------------------------- two-list ops */

/* min(a.n + b.n, GPX_MAX_N). */
uint32_t
gpx_union_bound(const gpx_list *a, const gpx_list *b)
{
	uint64_t	s = (uint64_t) a->n + b->n;

	return s > GPX_MAX_N ? GPX_MAX_N : (uint32_t) s;
}

/* Whether the docID ranges of two non-empty lists are disjoint. */
static inline bool
so_disjoint(const gpx_list *a, const gpx_list *b)
{
	return a->last < b->first || b->last < a->first;
}

/* a | b. */
gpx_status
gpx_union(const gpx_list *a, const gpx_list *b, uint32_t *out,
		  uint32_t outcap, uint32_t *outn)
{
	if (a == NULL || b == NULL || outn == NULL || (out == NULL && outcap > 0))
		return GPX_E_ARG;
	if (a->n == 0 && b->n == 0)
	{
		*outn = 0;
		return GPX_OK;
	}
	if (a->n == 0 || b->n == 0 || so_disjoint(a, b))
	{
		/* a concatenation in docID order */
		const gpx_list *lo = a,
				   *hi = b;

		if (a->n == 0 || (b->n > 0 && b->last < a->first))
		{
			lo = b;
			hi = a;
		}
		if ((uint64_t) lo->n + hi->n > outcap)
			return GPX_E_NOSPACE;
		so_decode_all(lo, out);
		so_decode_all(hi, out + lo->n);
		*outn = lo->n + hi->n;
		return GPX_OK;
	}
	return so_walk(a, b, SO_UNION, out, outcap, outn);
}

/* a - b. */
gpx_status
gpx_difference(const gpx_list *a, const gpx_list *b, uint32_t *out,
			   uint32_t outcap, uint32_t *outn)
{
	if (a == NULL || b == NULL || outn == NULL || (out == NULL && outcap > 0))
		return GPX_E_ARG;
	if (a->n == 0 || b->n == 0 || so_disjoint(a, b))
	{
		if (a->n > outcap)
			return GPX_E_NOSPACE;
		if (a->n > 0)
			so_decode_all(a, out);
		*outn = a->n;
		return GPX_OK;
	}
	return so_walk(a, b, SO_DIFFERENCE, out, outcap, outn);
}

/* a # b. */
gpx_status
gpx_symdiff(const gpx_list *a, const gpx_list *b, uint32_t *out,
			uint32_t outcap, uint32_t *outn)
{
	if (a == NULL || b == NULL || outn == NULL || (out == NULL && outcap > 0))
		return GPX_E_ARG;
	if (a->n == 0 || b->n == 0 || so_disjoint(a, b))
		return gpx_union(a, b, out, outcap, outn);
	return so_walk(a, b, SO_SYMDIFF, out, outcap, outn);
}

/* ------------------------------------------- two-list ops, encoded */

/*
 * Docs go to the encoder in batches of at least this many (so that its
 * per-call work is spread thin and it encodes most blocks in place).
 */
#define SO_PUSH_AT		2048

/* A batch of docIDs on its way to the encoder. */
typedef struct so_batch
{
	gpx_encstream *es;
	uint32_t	n;
	uint32_t	d[SO_PUSH_AT + 2 * GPX_MAX_BLOCK];
} so_batch;

/* Push the batch once it holds SO_PUSH_AT docIDs (always when flush). */
static inline gpx_status
so_batch_push(so_batch *b, bool flush)
{
	gpx_status	st = GPX_OK;

	if (b->n >= SO_PUSH_AT || (flush && b->n > 0))
	{
		st = gpx_encstream_push(b->es, b->d, b->n);
		b->n = 0;
	}
	return st;
}

/* Push every docID of l to the encoder, a block at a time. */
static gpx_status
so_push_all(so_batch *b, const gpx_list *l)
{
	gpx_status	st = GPX_OK;

	for (uint32_t k = 0; k < l->nblocks && st == GPX_OK; k++)
	{
		uint32_t	c = gpx_decode_block(l, k, b->d + b->n);

		b->n += c;
		st = so_batch_push(b, false);
	}
	return st;
}

/* The largest result of a op b and its largest docID, from the headers. */
static void
so_result_max(gpx_setop op, const gpx_list *a, const gpx_list *b,
			  uint32_t *nmax, uint32_t *lastmax)
{
	if (op == GPX_SETOP_DIFFERENCE)
	{
		*nmax = a->n;
		*lastmax = a->n > 0 ? a->last : 0;
		return;
	}
	*nmax = gpx_union_bound(a, b);
	*lastmax = a->n == 0 ? (b->n > 0 ? b->last : 0) :
		b->n == 0 || a->last > b->last ? a->last : b->last;
}

/* Bytes of out gpx_setop_encode may need. */
size_t
gpx_setop_encode_bound(gpx_setop op, const gpx_list *a, const gpx_list *b,
					   int codec)
{
	uint32_t	nmax,
				lastmax;

	so_result_max(op, a, b, &nmax, &lastmax);
	return gpx_encstream_bound(codec, nmax, lastmax);
}

/*
 * a op b encoded: the plan walked as in so_walk, the segments merged into
 * a batch that goes to the encoder every SO_PUSH_AT docIDs; empty
 * operands and disjoint ranges are the lists' blocks pushed in docID
 * order.
 */
gpx_status
gpx_setop_encode(gpx_setop op, const gpx_list *a, const gpx_list *b,
				 int codec, uint8_t *out, size_t cap, size_t *outlen,
				 uint32_t *outn)
{
	gpx_encstream es;
	so_batch	bt;
	uint32_t	nmax,
				lastmax;
	gpx_status	st;

	if (a == NULL || b == NULL || outlen == NULL || outn == NULL ||
		op < GPX_SETOP_UNION || op > GPX_SETOP_SYMDIFF)
		return GPX_E_ARG;
	so_result_max(op, a, b, &nmax, &lastmax);
	st = gpx_encstream_init(&es, codec, nmax, lastmax, out, cap);
	if (st != GPX_OK)
		return st;
	bt.es = &es;
	bt.n = 0;
	if (a->n == 0 || b->n == 0 || so_disjoint(a, b))
	{
		/* a, or a concatenation in docID order */
		const gpx_list *lo = a,
				   *hi = op == GPX_SETOP_DIFFERENCE ? NULL : b;

		if (hi != NULL && (a->n == 0 || (b->n > 0 && b->last < a->first)))
		{
			lo = b;
			hi = a;
		}
		st = so_push_all(&bt, lo);
		if (st == GPX_OK && hi != NULL)
			st = so_push_all(&bt, hi);
	}
	else
	{
		so_op		sop = op == GPX_SETOP_UNION ? SO_UNION :
			op == GPX_SETOP_DIFFERENCE ? SO_DIFFERENCE : SO_SYMDIFF;
		so_side		sa,
					sb;
		gpx_mplan	p;
		gpx_mseg	sg;

		so_side_init(&sa, a);
		so_side_init(&sb, b);
		gpx_mplan_init(&p, a, b);
		while (st == GPX_OK && gpx_mplan_next(&p, &sg))
		{
			const uint32_t *ra,
					   *rb;
			uint32_t	na,
						nb;

			na = so_side_run(&sa, sg.blk[0], &sg, &ra);
			if (sop == SO_DIFFERENCE && na == 0)
				continue;
			nb = so_side_run(&sb, sg.blk[1], &sg, &rb);
			bt.n += so_merge(sop, ra, na, rb, nb, bt.d + bt.n);
			st = so_batch_push(&bt, false);
		}
	}
	if (st == GPX_OK)
		st = so_batch_push(&bt, true);
	if (st == GPX_OK)
		st = gpx_encstream_finish(&es, outlen);
	*outn = es.n;
	return st;
}

/* |a & b| (0 without decoding when a list is empty or the ranges are apart). */
static gpx_status
so_isect_count(const gpx_list *a, const gpx_list *b, uint32_t *count)
{
	const gpx_list *ls[2] = {a, b};

	if (a->n == 0 || b->n == 0 || so_disjoint(a, b))
	{
		*count = 0;
		return GPX_OK;
	}
	return gpx_intersect_count(ls, 2, count, NULL);
}

/* |a | b| = |a| + |b| - |a & b|. */
gpx_status
gpx_union_count(const gpx_list *a, const gpx_list *b, uint32_t *count)
{
	uint32_t	c;
	gpx_status	st;

	if (a == NULL || b == NULL || count == NULL)
		return GPX_E_ARG;
	st = so_isect_count(a, b, &c);
	if (st == GPX_OK)
		*count = (uint32_t) ((uint64_t) a->n + b->n - c);
	return st;
}

/* |a - b| = |a| - |a & b|. */
gpx_status
gpx_difference_count(const gpx_list *a, const gpx_list *b, uint32_t *count)
{
	uint32_t	c;
	gpx_status	st;

	if (a == NULL || b == NULL || count == NULL)
		return GPX_E_ARG;
	st = so_isect_count(a, b, &c);
	if (st == GPX_OK)
		*count = a->n - c;
	return st;
}

/* |a # b| = |a| + |b| - 2 |a & b|. */
gpx_status
gpx_symdiff_count(const gpx_list *a, const gpx_list *b, uint32_t *count)
{
	uint32_t	c;
	gpx_status	st;

	if (a == NULL || b == NULL || count == NULL)
		return GPX_E_ARG;
	st = so_isect_count(a, b, &c);
	if (st == GPX_OK)
		*count = (uint32_t) ((uint64_t) a->n + b->n - 2 * (uint64_t) c);
	return st;
}

/* ------------------------------------------------- order, equality, hash */

/* A list read block by block from a given block on. */
typedef struct so_stream
{
	const gpx_list *l;
	uint32_t	blk;			/* next block to decode */
	uint32_t	pos;
	uint32_t	cnt;
	uint32_t	buf[GPX_MAX_BLOCK];
} so_stream;

/* Make the stream hold an element at pos; false at the end of the list. */
static inline bool
so_stream_fill(so_stream *s)
{
	if (s->pos < s->cnt)
		return true;
	if (s->blk >= s->l->nblocks)
		return false;
	s->cnt = gpx_decode_block(s->l, s->blk++, s->buf);
	s->pos = 0;
	return s->cnt > 0;
}

/*
 * Compare two lists element by element, a block of each decoded at a time
 * (a difference can lie anywhere, so nothing is skipped).
 */
static int
so_compare_streams(const gpx_list *a, const gpx_list *b)
{
	so_stream	sa,
				sb;

	sa.l = a;
	sa.blk = 0;
	sa.pos = sa.cnt = 0;
	sb.l = b;
	sb.blk = 0;
	sb.pos = sb.cnt = 0;
	for (;;)
	{
		bool		ha = so_stream_fill(&sa),
					hb = so_stream_fill(&sb);
		uint32_t	m,
					i;

		if (!ha || !hb)
			return (int) ha - (int) hb;
		m = sa.cnt - sa.pos;
		if (sb.cnt - sb.pos < m)
			m = sb.cnt - sb.pos;
		for (i = 0; i < m; i++)
		{
			uint32_t	x = sa.buf[sa.pos + i],
						y = sb.buf[sb.pos + i];

			if (x != y)
				return x < y ? -1 : 1;
		}
		sa.pos += m;
		sb.pos += m;
	}
}

/* Lexicographic order on the docID sequences, a proper prefix first. */
int
gpx_compare(const gpx_list *a, const gpx_list *b)
{
	if (a->n == 0 || b->n == 0)
		return (int) (a->n > 0) - (int) (b->n > 0);
	if (a->first != b->first)
		return a->first < b->first ? -1 : 1;
	if (a->n == 1 || b->n == 1)
		return a->n == b->n ? 0 : (a->n < b->n ? -1 : 1);
	return so_compare_streams(a, b);
}

/*
 * Same docIDs?  Differing n, first or last answer at once; so does a
 * differing directory entry between lists of one block size (entry k is
 * element k * B of both).
 */
bool
gpx_equal(const gpx_list *a, const gpx_list *b)
{
	if (a->n != b->n || a->first != b->first || a->last != b->last)
		return false;
	if (a->n <= 2)
		return true;
	if (a->len == b->len && a->base != NULL && b->base != NULL &&
		memcmp(a->base, b->base, a->len) == 0)
		return true;
	if (a->log2_block == b->log2_block)
	{
		for (uint32_t k = 1; k < a->nblocks; k++)
			if (gpx_dir_first(a, k) != gpx_dir_first(b, k))
				return false;
	}
	return so_compare_streams(a, b) == 0;
}

#define SO_K1 0x9E3779B185EBCA87ull
#define SO_K2 0xC2B2AE3D27D4EB4Full
#define SO_K3 0x165667B19E3779F9ull

/* splitmix64's finalizer. */
static inline uint64_t
so_fmix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* One element into a lane. */
static inline uint64_t
so_lane(uint64_t h, uint32_t v)
{
	h ^= (uint64_t) v * SO_K1;
	h = (h << 31) | (h >> 33);
	return h * SO_K2;
}

/* Hash of the docID sequence: four lanes by position, then mixed. */
uint64_t
gpx_hash(const gpx_list *l, uint64_t seed)
{
	uint64_t	h[4],
				r;
	uint32_t	buf[GPX_MAX_BLOCK];
	uint64_t	gi = 0;

	for (int i = 0; i < 4; i++)
		h[i] = so_fmix(seed + (uint64_t) (i + 1) * SO_K3);
	for (uint32_t k = 0; k < l->nblocks; k++)
	{
		uint32_t	cnt = gpx_decode_block(l, k, buf),
					j = 0;

		if ((gi & 3) == 0)
		{
			for (; j + 4 <= cnt; j += 4)
			{
				h[0] = so_lane(h[0], buf[j]);
				h[1] = so_lane(h[1], buf[j + 1]);
				h[2] = so_lane(h[2], buf[j + 2]);
				h[3] = so_lane(h[3], buf[j + 3]);
			}
		}
		for (; j < cnt; j++)
			h[(gi + j) & 3] = so_lane(h[(gi + j) & 3], buf[j]);
		gi += cnt;
	}
	r = so_fmix(seed ^ ((uint64_t) l->n * SO_K1));
	for (int i = 0; i < 4; i++)
		r = so_fmix(r ^ h[i]) * SO_K2 + SO_K3;
	return so_fmix(r);
}

/* Number of docIDs <= x. */
uint32_t
gpx_rank(const gpx_list *l, uint32_t x)
{
	if (l->n == 0 || x < l->first)
		return 0;
	if (x >= l->last)
		return l->n;
	/* first <= x < last <= GPX_MAX_DOCID: x + 1 does not overflow */
	return gpx_lower_bound(l, x + 1, NULL);
}

/* ------------------------------------------------------------ containment */

/* Every docID of b in a? */
bool
gpx_contains_all(const gpx_list *a, const gpx_list *b)
{
	gpx_cursor	c;
	uint32_t	buf[GPX_MAX_BLOCK];

	if (b->n == 0)
		return true;
	if (a->n < b->n || b->first < a->first || b->last > a->last)
		return false;
	if (a->n == b->n)
		return gpx_equal(a, b);
	gpx_cursor_init(&c, a);
	for (uint32_t k = 0; k < b->nblocks; k++)
	{
		uint32_t	cnt = gpx_decode_block(b, k, buf);

		for (uint32_t i = 0; i < cnt; i++)
		{
			uint32_t	v;

			if (!gpx_cursor_next_geq(&c, buf[i], &v) || v != buf[i])
				return false;
		}
	}
	return true;
}

/* ---------------------------------------------------------------- k lists */

/* Work area bytes for k lists: the tree's k leaves and k - 1 inner nodes. */
size_t
gpx_union_many_work(int k)
{
	return k <= 0 ? 0 : (size_t) (2 * k - 1) * sizeof(gpx_unode);
}

/* min(sum n, GPX_MAX_N). */
uint32_t
gpx_union_many_bound(const gpx_list *const *lists, int k)
{
	uint64_t	s = 0;

	for (int i = 0; i < k; i++)
		s += lists[i]->n;
	return s > GPX_MAX_N ? GPX_MAX_N : (uint32_t) s;
}

static uint32_t so_unode_produce(gpx_unode *x, uint32_t *dst, uint32_t room);

/* Whether node x has an untaken docID in its buffer, refilling it if not. */
static bool
so_unode_avail(gpx_unode *x)
{
	if (x->pos < x->cnt)
		return true;
	if (x->done)
		return false;
	x->pos = 0;
	if (x->l != NULL)
		x->cnt = x->blk < x->l->nblocks ?
			gpx_decode_block(x->l, x->blk++, x->buf) : 0;
	else
		x->cnt = so_unode_produce(x, x->buf, GPX_MAX_BLOCK);
	x->done = x->cnt == 0;
	return !x->done;
}

/*
 * Union of the runs a[*ia..na) and b[*ib..nb) into out[0..room) until one
 * run or the room is spent (equal docIDs are taken together); the runs'
 * positions move past what was taken.  Returns the count written.
 */
static uint32_t
so_union_step(const uint32_t *a, uint32_t *ia, uint32_t na, const uint32_t *b,
			  uint32_t *ib, uint32_t nb, uint32_t *out, uint32_t room)
{
	const gpx_simd_ops *o = gpx_simd();
	uint32_t	i = *ia,
				j = *ib,
				k = 0;

	if (o->setop != NULL)
	{
		/* windows of at most room / 2 each: the output fits whatever comes */
		uint32_t	wa = na - i < room / 2 ? na - i : room / 2,
					wb = nb - j < room / 2 ? nb - j : room / 2;

		k = o->setop(GPX_SIMD_UNION, a, i + wa, b, j + wb, &i, &j, out);
	}
	while (i < na && j < nb && k < room)
	{
		uint32_t	va = a[i],
					vb = b[j];

		out[k++] = va < vb ? va : vb;
		i += va <= vb;
		j += vb <= va;
	}
	*ia = i;
	*ib = j;
	return k;
}

/* Move up to room docIDs of x's buffer to dst. */
static inline uint32_t
so_unode_take(gpx_unode *x, uint32_t *dst, uint32_t room)
{
	uint32_t	m = x->cnt - x->pos < room ? x->cnt - x->pos : room;

	memcpy(dst, x->buf + x->pos, (size_t) m * sizeof(uint32_t));
	x->pos += m;
	return m;
}

/*
 * Up to room docIDs of inner node x's output (the union of its children's)
 * into dst; fewer only when both children are spent.
 */
static uint32_t
so_unode_produce(gpx_unode *x, uint32_t *dst, uint32_t room)
{
	gpx_unode  *a = x->a,
			   *b = x->b;
	uint32_t	k = 0;

	while (k < room)
	{
		bool		ha = so_unode_avail(a),
					hb = so_unode_avail(b);

		if (!ha || !hb)
		{
			if (!ha && !hb)
				break;
			k += so_unode_take(ha ? a : b, dst + k, room - k);
			continue;
		}
		/* a buffered run below the other child's next docID passes whole */
		if (a->buf[a->cnt - 1] < b->buf[b->pos])
			k += so_unode_take(a, dst + k, room - k);
		else if (b->buf[b->cnt - 1] < a->buf[a->pos])
			k += so_unode_take(b, dst + k, room - k);
		else
			k += so_union_step(a->buf, &a->pos, a->cnt, b->buf, &b->pos, b->cnt,
							   dst + k, room - k);
	}
	return k;
}

/* One list's position in the heap of a k-way union (in the work area). */
typedef struct so_hstream
{
	const gpx_list *l;
	uint32_t	blk;			/* block decoded in buf */
	uint32_t	pos;			/* next element of buf */
	uint32_t	cnt;			/* elements in buf */
	uint32_t	buf[GPX_MAX_BLOCK];
} so_hstream;

/* Head (smallest unread docID) of a stream. */
static inline uint32_t
so_head(const so_hstream *s)
{
	return s->buf[s->pos];
}

/* Restore the heap below position i. */
static inline void
so_sift_down(so_hstream **h, int n, int i)
{
	so_hstream *x = h[i];
	uint32_t	xv = so_head(x);

	for (;;)
	{
		int			c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && so_head(h[c + 1]) < so_head(h[c]))
			c++;
		if (so_head(h[c]) >= xv)
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = x;
}

/*
 * Union (or its size) of the m >= 3 non-empty lists among lists[0..k)
 * through a heap of the lists' heads that emits whole runs: the list at
 * the top gives every buffered docID below the next list's head at once,
 * so lists that interleave little cost about one heap step per block.
 * work holds k streams and k pointers (less than the tree's area).
 */
static gpx_status
so_union_heap(const gpx_list *const *lists, int k, void *work, uint32_t *out,
			  uint32_t outcap, uint32_t *outn)
{
	so_hstream *st = (so_hstream *) work;
	so_hstream **heap = (so_hstream **) (st + k);
	int			m = 0;
	uint32_t	k_out = 0;
	uint32_t	lastv = 0;
	bool		have_last = false;

	for (int i = 0; i < k; i++)
	{
		so_hstream *s;

		if (lists[i]->n == 0)
			continue;
		s = &st[m];
		s->l = lists[i];
		s->blk = 0;
		s->pos = 0;
		s->cnt = gpx_decode_block(s->l, 0, s->buf);
		heap[m++] = s;
	}
	for (int i = m / 2 - 1; i >= 0; i--)
		so_sift_down(heap, m, i);

	while (m > 0)
	{
		so_hstream *r = heap[0];
		uint32_t	p = r->pos,
					e;

		/* r gives every buffered docID below the next smallest head */
		if (m == 1)
			e = r->cnt;
		else
		{
			uint32_t	lim = so_head(heap[1]);

			if (m > 2 && so_head(heap[2]) < lim)
				lim = so_head(heap[2]);
			e = r->buf[r->cnt - 1] < lim ? r->cnt :
				so_lower(r->buf, p, r->cnt, lim);
			if (e == p)
				e = p + 1;		/* r's head equals lim: give it, dedupe */
		}
		if (have_last && r->buf[p] == lastv)
			p++;
		if (e > p)
		{
			if (out != NULL && (uint64_t) k_out + (e - p) > outcap)
				return GPX_E_NOSPACE;
			if (out != NULL)
				memcpy(out + k_out, r->buf + p, (size_t) (e - p) * sizeof(uint32_t));
			k_out += e - p;
			lastv = r->buf[e - 1];
			have_last = true;
		}
		r->pos = e;
		if (r->pos >= r->cnt)
		{
			if (r->blk + 1 < r->l->nblocks)
			{
				r->cnt = gpx_decode_block(r->l, ++r->blk, r->buf);
				r->pos = 0;
			}
			else
			{
				heap[0] = heap[--m];
				if (m == 0)
					break;
			}
		}
		so_sift_down(heap, m, 0);
	}
	*outn = k_out;
	return GPX_OK;
}

/*
 * The merge tree over leaves nodes[lo..hi) (hi > lo): a leaf, or an inner
 * node taken at nodes[*next] over the two halves.
 */
static gpx_unode *
so_unode_tree(gpx_unode *nodes, int lo, int hi, int *next)
{
	gpx_unode  *x;
	int			mid = lo + (hi - lo) / 2;

	if (hi - lo == 1)
		return &nodes[lo];
	x = &nodes[(*next)++];
	x->l = NULL;
	x->a = so_unode_tree(nodes, lo, mid, next);
	x->b = so_unode_tree(nodes, mid, hi, next);
	x->pos = x->cnt = 0;
	x->done = false;
	return x;
}

/* Union (or its size) of k lists. */
gpx_status
gpx_union_many(const gpx_list *const *lists, int k, void *work,
			   size_t workbytes, uint32_t *out, uint32_t outcap,
			   uint32_t *outn)
{
	gpx_unode  *nodes = (gpx_unode *) work;
	const gpx_list *ne[2] = {NULL, NULL};
	int			m = 0,
				next;
	uint32_t	k_out = 0;
	gpx_unode  *root;

	if (outn == NULL || (k > 0 && lists == NULL))
		return GPX_E_ARG;
	if (k <= 0)
	{
		*outn = 0;
		return GPX_OK;
	}
	for (int i = 0; i < k; i++)
		if (lists[i] == NULL)
			return GPX_E_ARG;
	for (int i = 0; i < k; i++)
		if (lists[i]->n > 0)
		{
			if (m < 2)
				ne[m] = lists[i];
			m++;
		}
	if (m == 0)
	{
		*outn = 0;
		return GPX_OK;
	}
	if (m == 1)
	{
		if (out != NULL && ne[0]->n > outcap)
			return GPX_E_NOSPACE;
		if (out != NULL)
			so_decode_all(ne[0], out);
		*outn = ne[0]->n;
		return GPX_OK;
	}
	if (m == 2)
		return out != NULL ? gpx_union(ne[0], ne[1], out, outcap, outn) :
			gpx_union_count(ne[0], ne[1], outn);

	if (work == NULL || workbytes < gpx_union_many_work(k))
		return GPX_E_NOSPACE;

	/*
	 * Lists whose docID ranges overlap little pass through the heap in
	 * whole runs; a tree would copy each docID once per level.  Ranges
	 * that cover the union's span more than twice over on average
	 * interleave: the tree merges them a vector at a time.
	 */
	{
		uint64_t	cover = 0;
		uint32_t	lo = GPX_MAX_DOCID,
					hi = 0;

		for (int i = 0; i < k; i++)
			if (lists[i]->n > 0)
			{
				cover += (uint64_t) (lists[i]->last - lists[i]->first) + 1;
				lo = lists[i]->first < lo ? lists[i]->first : lo;
				hi = lists[i]->last > hi ? lists[i]->last : hi;
			}
		if (cover <= 2 * ((uint64_t) hi - lo + 1))
			return so_union_heap(lists, k, work, out, outcap, outn);
	}
	/* the leaves nodes[0..m), then the inner nodes of a balanced tree */
	m = 0;
	for (int i = 0; i < k; i++)
		if (lists[i]->n > 0)
		{
			gpx_unode  *x = &nodes[m++];

			x->l = lists[i];
			x->a = x->b = NULL;
			x->blk = 0;
			x->pos = x->cnt = 0;
			x->done = false;
		}
	next = m;
	root = so_unode_tree(nodes, 0, m, &next);
	for (;;)
	{
		uint32_t	c;

		if (out == NULL)
			c = so_unode_produce(root, root->buf, GPX_MAX_BLOCK);
		else if (k_out < outcap)
			c = so_unode_produce(root, out + k_out, outcap - k_out);
		else
		{
			if (so_unode_avail(root->a) || so_unode_avail(root->b))
				return GPX_E_NOSPACE;
			break;
		}
		if (c == 0)
			break;
		k_out += c;
	}
	*outn = k_out;
	return GPX_OK;
}

/* --------------------------------------------------- a list and an array */

/* Check a docID array for the array operations. */
static gpx_status
so_check_array(const uint32_t *docs, uint32_t m)
{
	if (m > 0 && docs == NULL)
		return GPX_E_ARG;
	return gpx_check_sorted(docs, m);
}

/* l | docs. */
gpx_status
gpx_union_array(const gpx_list *l, const uint32_t *docs, uint32_t m,
				uint32_t *out, uint32_t outcap, uint32_t *outn)
{
	uint32_t	buf[GPX_MAX_BLOCK];
	uint64_t	bound;
	uint32_t	j = 0,
				k = 0;
	gpx_status	st;

	if (l == NULL || outn == NULL || out == NULL)
		return GPX_E_ARG;
	st = so_check_array(docs, m);
	if (st != GPX_OK)
		return st;
	bound = (uint64_t) l->n + m;
	if (bound > GPX_MAX_N)
		bound = GPX_MAX_N;
	if (outcap < bound)
		return GPX_E_NOSPACE;
	if (m == 0)
	{
		so_decode_all(l, out);
		*outn = l->n;
		return GPX_OK;
	}
	for (uint32_t b = 0; b < l->nblocks; b++)
	{
		uint32_t	cnt = gpx_decode_block(l, b, buf);
		uint32_t	e = gpx_simd_upper(docs, j, m, buf[cnt - 1]);

		k += so_merge_union(buf, cnt, docs + j, e - j, out + k);
		j = e;
	}
	memcpy(out + k, docs + j, (size_t) (m - j) * sizeof(uint32_t));
	*outn = k + (m - j);
	return GPX_OK;
}

/* l - docs. */
gpx_status
gpx_difference_array(const gpx_list *l, const uint32_t *docs, uint32_t m,
					 uint32_t *out, uint32_t outcap, uint32_t *outn)
{
	uint32_t	buf[GPX_MAX_BLOCK];
	uint32_t	j = 0,
				k = 0;
	gpx_status	st;

	if (l == NULL || outn == NULL || (out == NULL && l->n > 0))
		return GPX_E_ARG;
	st = so_check_array(docs, m);
	if (st != GPX_OK)
		return st;
	if (outcap < l->n)
		return GPX_E_NOSPACE;
	if (m == 0 || l->n == 0 || docs[m - 1] < l->first || docs[0] > l->last)
	{
		so_decode_all(l, out);
		*outn = l->n;
		return GPX_OK;
	}
	for (uint32_t b = 0; b < l->nblocks; b++)
	{
		uint32_t	cnt = gpx_decode_block(l, b, buf);
		uint32_t	s = so_lower(docs, j, m, buf[0]);
		uint32_t	e = gpx_simd_upper(docs, s, m, buf[cnt - 1]);

		k += so_merge_difference(buf, cnt, docs + s, e - s, out + k);
		j = e;
	}
	*outn = k;
	return GPX_OK;
}
