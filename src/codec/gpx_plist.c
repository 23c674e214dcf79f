/*
 * gpx_plist.c - lists with frequencies for ranking: block access in both
 * forms, and the forward cursor with its shallow block pointer
 * (gpx_plist.h).
 */
#include <string.h>

#include "gpx_plist.h"
#include "gpx_simd.h"

/* The array form. */
gpx_status
gpx_plist_arrays(gpx_plist *p, const uint32_t *docs, const uint32_t *tfs,
				 uint32_t n, uint32_t block)
{
	if (p == NULL || block == 0 || block > GPX_MAX_BLOCK ||
		(n > 0 && docs == NULL))
		return GPX_E_ARG;
	memset(p, 0, sizeof(*p));
	p->docs = docs;
	p->tfs = tfs;
	p->n = n;
	p->block = block;
	p->nblocks = (uint32_t) (((uint64_t) n + block - 1) / block);
	p->last = n > 0 ? docs[n - 1] : 0;
	p->max_tf = 0;
	for (uint32_t i = 0; i < n; i++)
	{
		uint32_t	tf = tfs ? tfs[i] : 1;

		if (tf > p->max_tf)
			p->max_tf = tf;
	}
	return GPX_OK;
}

/*
 * The blob form: frequencies from the list's tf section (every tf 1 for a
 * list stored without them); the list's largest tf is the largest of its
 * blocks' stored maxima (the directory, nothing decoded).
 */
gpx_status
gpx_plist_blob(gpx_plist *p, const gpx_list *l)
{
	if (p == NULL || l == NULL)
		return GPX_E_ARG;
	memset(p, 0, sizeof(*p));
	p->list = l;
	p->n = l->n;
	p->nblocks = l->nblocks;
	p->last = l->last;
	/* found by gpx_plist_max_tf when asked: ranked AND never asks */
	p->max_tf = 0;
	return GPX_OK;
}

/* Largest tf of the list (see gpx_plist.h). */
uint32_t
gpx_plist_max_tf(const gpx_plist *p)
{
	uint32_t	mx = 0;

	if (p->list == NULL)
		return p->max_tf;
	for (uint32_t b = 0; b < p->list->nblocks && p->list->n > 0; b++)
	{
		uint32_t	m = gpx_block_tf_max(p->list, b);

		if (m > mx)
			mx = m;
	}
	return mx;
}

/* First docID of a block. */
uint32_t
gpx_plist_block_first(const gpx_plist *p, uint32_t blk)
{
	if (p->list)
		return gpx_dir_first(p->list, blk);
	return p->docs[(size_t) blk * p->block];
}

/* Postings of a block. */
uint32_t
gpx_plist_block_count(const gpx_plist *p, uint32_t blk)
{
	uint64_t	start;

	if (p->list)
		return gpx_block_count(p->list, blk);
	start = (uint64_t) blk * p->block;
	return p->n - start < p->block ? (uint32_t) (p->n - start) : p->block;
}

/* Largest tf of a block. */
uint32_t
gpx_plist_block_max_tf(const gpx_plist *p, uint32_t blk)
{
	uint32_t	m = 0,
				cnt;
	const uint32_t *t;

	if (p->list)
		return gpx_block_tf_max(p->list, blk);
	if (p->tfs == NULL)
		return 1;
	cnt = gpx_plist_block_count(p, blk);
	t = p->tfs + (size_t) blk * p->block;
	for (uint32_t i = 0; i < cnt; i++)
		if (t[i] > m)
			m = t[i];
	return m;
}

/* Decode a block's docIDs. */
uint32_t
gpx_plist_block_docs(const gpx_plist *p, uint32_t blk, uint32_t *out)
{
	uint32_t	cnt;

	if (p->list)
		return gpx_decode_block(p->list, blk, out);
	cnt = gpx_plist_block_count(p, blk);
	memcpy(out, p->docs + (size_t) blk * p->block, cnt * sizeof(uint32_t));
	return cnt;
}

/* Decode a block's tfs. */
void
gpx_plist_block_tfs(const gpx_plist *p, uint32_t blk, uint32_t count,
					uint32_t *out)
{
	if (p->list != NULL)
	{
		/* count is the block's own (gpx_block_count): one decode */
		(void) gpx_decode_block_tfs(p->list, blk, out);
		return;
	}
	if (p->tfs != NULL)
	{
		memcpy(out, p->tfs + (size_t) blk * p->block, count * sizeof(uint32_t));
		return;
	}
	for (uint32_t i = 0; i < count; i++)
		out[i] = 1;
}

/* Decode block blk into the cursor (or mark it exhausted) at position 0. */
static void
pcursor_load(gpx_pcursor *c, uint32_t blk)
{
	c->blk = blk;
	c->pos = 0;
	if (blk >= c->p->nblocks)
	{
		c->blk = c->p->nblocks;
		c->cnt = 0;
		c->doc = GPX_PLIST_END;
		return;
	}
	c->cnt = gpx_plist_block_docs(c->p, blk, c->docs);
	c->doc = c->docs[0];
	if (c->counts)
		c->counts->blocks_decoded++;
}

/* Position at the first posting. */
void
gpx_pcursor_init(gpx_pcursor *c, const gpx_plist *p, gpx_plist_counts *counts)
{
	c->p = p;
	c->counts = counts;
	c->tf_blk = ~0u;
	c->sblk = 0;
	c->send = 0;
	c->smax_tf = 0;
	pcursor_load(c, 0);
	if (p->nblocks > 0)
	{
		c->send = p->nblocks > 1 ? gpx_plist_block_first(p, 1) - 1 : p->last;
		c->smax_tf = gpx_plist_block_max_tf(p, 0);
	}
}

/* Next posting. */
void
gpx_pcursor_next(gpx_pcursor *c)
{
	if (c->doc == GPX_PLIST_END)
		return;
	if (++c->pos < c->cnt)
	{
		c->doc = c->docs[c->pos];
		return;
	}
	pcursor_load(c, c->blk + 1);
}

/*
 * The last block in [lo, nblocks) whose first docID <= x, or lo - 1 when
 * block lo starts above x (lo >= 1 then): galloping, then binary search.
 */
static uint32_t
pcursor_find_block(const gpx_plist *p, uint32_t lo, uint32_t x)
{
	uint32_t	nb = p->nblocks,
				hi,
				step = 1;

	if (lo >= nb || gpx_plist_block_first(p, lo) > x)
		return lo - 1;
	/* first(lo) <= x: gallop for a block starting above x */
	for (;;)
	{
		uint64_t	q = (uint64_t) lo + step;

		if (q >= nb)
		{
			hi = nb;
			break;
		}
		if (gpx_plist_block_first(p, (uint32_t) q) > x)
		{
			hi = (uint32_t) q;
			break;
		}
		lo = (uint32_t) q;
		step <<= 1;
	}
	/* first(lo) <= x, and hi == nb or first(hi) > x */
	while (hi - lo > 1)
	{
		uint32_t	mid = lo + (hi - lo) / 2;

		if (gpx_plist_block_first(p, mid) <= x)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* First index i in [lo, cnt) with a[i] >= x (a[cnt - 1] >= x). */
static inline uint32_t
pcursor_search(const uint32_t *a, uint32_t lo, uint32_t cnt, uint32_t x)
{
	uint32_t	hi = cnt - 1;

	/* a short forward scan first: consecutive targets are often close */
	for (uint32_t e = lo + 8 < hi ? lo + 8 : hi; lo < e; lo++)
		if (a[lo] >= x)
			return lo;
	while (lo < hi)
	{
		uint32_t	mid = lo + (hi - lo) / 2;

		if (a[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* First posting with docID >= x. */
void
gpx_pcursor_next_geq(gpx_pcursor *c, uint32_t x)
{
	uint32_t	b;

	if (x <= c->doc)
		return;					/* also when exhausted */
	if (x > c->docs[c->cnt - 1])
	{
		if (x > c->p->last)
		{
			pcursor_load(c, c->p->nblocks);
			return;
		}
		/* x is in a later block: the last one starting at or below x */
		b = pcursor_find_block(c->p, c->blk + 1, x);
		pcursor_load(c, b);
		if (x > c->docs[c->cnt - 1])
		{
			/* b ends below x, so block b + 1 starts above it */
			pcursor_load(c, b + 1);
			return;
		}
	}
	c->pos = pcursor_search(c->docs, c->pos, c->cnt, x);
	c->doc = c->docs[c->pos];
}

/* Frequencies of the postings at positions pos[0..n) of block blk. */
static void
plist_block_tfs_at(const gpx_plist *p, uint32_t blk, const uint32_t *pos,
				   uint32_t n, uint32_t *out)
{
	const uint32_t *t;

	if (p->list != NULL)
	{
		gpx_block_tfs_at(p->list, blk, pos, n, out);
		return;
	}
	if (p->tfs == NULL)
	{
		for (uint32_t i = 0; i < n; i++)
			out[i] = 1;
		return;
	}
	t = p->tfs + (size_t) blk * p->block;
	for (uint32_t i = 0; i < n; i++)
		out[i] = t[pos[i]];
}

/* Frequencies of docIDs of p, block by block (see gpx_plist.h). */
gpx_status
gpx_plist_tfs_of(const gpx_plist *p, const uint32_t *x, uint32_t n,
				 uint32_t *tf, gpx_plist_counts *counts)
{
	const gpx_simd_ops *o = gpx_simd();
	uint32_t	docs[GPX_MAX_BLOCK],
				pos[GPX_MAX_BLOCK],
				lo = 0,			/* first block that may hold x[i] */
				i = 0;

	while (i < n)
	{
		uint32_t	b,
					cnt,
					e;

		if (lo >= p->nblocks)
			return GPX_E_PAYLOAD;
		b = pcursor_find_block(p, lo, x[i]);
		if (b + 1 == lo)
			return GPX_E_PAYLOAD;	/* x[i] is below block lo's first */
		cnt = gpx_plist_block_docs(p, b, docs);
		if (counts)
			counts->blocks_decoded++;
		/* x[i..e): the ones this block can hold */
		for (e = i; e < n && e - i < cnt && x[e] <= docs[cnt - 1]; e++)
			;
		if (e == i)
			return GPX_E_PAYLOAD;	/* x[i] falls after block b's last */
		/* their positions in the block, every one of them there */
		if (gpx_simd_locate(o, docs, cnt, x + i, e - i, pos) != e - i)
			return GPX_E_PAYLOAD;
		plist_block_tfs_at(p, b, pos, e - i, tf + i);
		if (counts)
			counts->tf_blocks++;
		i = e;
		lo = b + 1;
	}
	return GPX_OK;
}

/* Frequencies of postings given by index, block by block (gpx_plist.h). */
gpx_status
gpx_plist_tfs_at(const gpx_plist *p, const uint32_t *at, uint32_t n,
				 uint32_t *tf, gpx_plist_counts *counts)
{
	uint32_t	off[GPX_MAX_BLOCK],
				bsize = p->list != NULL ? 1u << p->list->log2_block : p->block,
				i = 0;

	while (i < n)
	{
		uint32_t	b,
					base,
					e;

		if (i > 0 && at[i] <= at[i - 1])
			return GPX_E_PAYLOAD;
		b = at[i] / bsize;
		base = b * bsize;
		/* at[i..e): the ones in block b (at most bsize: increasing) */
		for (e = i; e < n && at[e] - base < bsize; e++)
		{
			if (at[e] >= p->n || (e > i && at[e] <= at[e - 1]))
				return GPX_E_PAYLOAD;
			off[e - i] = at[e] - base;
		}
		plist_block_tfs_at(p, b, off, e - i, tf + i);
		if (counts)
			counts->tf_blocks++;
		i = e;
	}
	return GPX_OK;
}

/* Move the shallow pointer to the block that may hold x. */
bool
gpx_pcursor_shallow_move(gpx_pcursor *c, uint32_t x)
{
	const gpx_plist *p = c->p;
	uint32_t	b;

	if (p->nblocks == 0 || x > p->last)
		return false;
	if (x <= c->send)
		return true;
	b = pcursor_find_block(p, c->sblk + 1, x);
	c->sblk = b;
	c->send = b + 1 < p->nblocks ? gpx_plist_block_first(p, b + 1) - 1 : p->last;
	c->smax_tf = gpx_plist_block_max_tf(p, b);
	if (c->counts)
		c->counts->shallow_moves++;
	return true;
}
