/*
 * gpx_plist.h - a posting list with term frequencies as the ranking code
 * reads it: blocks of (docID, tf) pairs, each block with its first docID
 * and its largest tf known without decoding it, and a forward cursor with
 * a separate "shallow" block pointer for block-max pruning.
 *
 * Two forms behind one interface:
 *   blob   a codec blob (gpx_list); its blocks are the codec's blocks, the
 *          frequencies those of its frequency section, or 1 for every
 *          posting of a list stored without frequencies;
 *   arrays docs[0..n) and tfs[0..n) (tfs NULL: every tf 1) cut into
 *          blocks of `block` postings: decoded lists, for tests and for
 *          callers that hold lists decoded already.
 * The block metadata both forms expose (first docID, count, largest tf,
 * the docID range a block may cover) is what MaxScore and BlockMax-WAND
 * need; a GPU kernel reads the same quantities from the blob's directory.
 *
 * Ownership: nothing is allocated; a cursor (about 2 KiB, two decoded
 * blocks) lives wherever the caller puts it.
 */
#ifndef GPX_PLIST_H
#define GPX_PLIST_H

#include "gpx_codec.h"

#ifdef __cplusplus
extern "C" {
#endif

/* docID of an exhausted cursor (above every docID) */
#define GPX_PLIST_END 0xFFFFFFFFu

/* A list with frequencies (see above). */
typedef struct gpx_plist
{
	const gpx_list *list;		/* blob form, or NULL */
	const uint32_t *docs;		/* array form */
	const uint32_t *tfs;		/* array form; NULL: every tf is 1 */
	uint32_t	n;				/* postings (the term's df) */
	uint32_t	nblocks;
	uint32_t	block;			/* array form: postings per block */
	uint32_t	last;			/* last docID (0 when empty) */
	uint32_t	max_tf;			/* array form: largest tf of the list (0
								 * when empty); read gpx_plist_max_tf */
} gpx_plist;

/*
 * The array form over docs[0..n) (strictly increasing) and tfs[0..n)
 * (each >= 1, or tfs NULL) in blocks of `block` postings (1 ..
 * GPX_MAX_BLOCK).  GPX_E_ARG for a bad block size; the data are trusted.
 */
gpx_status	gpx_plist_arrays(gpx_plist *p, const uint32_t *docs,
							 const uint32_t *tfs, uint32_t n, uint32_t block);

/* The blob form over an opened, valid list. */
gpx_status	gpx_plist_blob(gpx_plist *p, const gpx_list *l);

/*
 * Largest tf of the list (0 when empty): the array form's, or the largest
 * of the blob's per-block maxima (its directory read, nothing decoded).
 */
uint32_t	gpx_plist_max_tf(const gpx_plist *p);

/* First docID of block blk. */
uint32_t	gpx_plist_block_first(const gpx_plist *p, uint32_t blk);

/* Postings of block blk. */
uint32_t	gpx_plist_block_count(const gpx_plist *p, uint32_t blk);

/* Largest tf of block blk, without decoding the block in the blob form. */
uint32_t	gpx_plist_block_max_tf(const gpx_plist *p, uint32_t blk);

/* Decode the docIDs of block blk into out (GPX_MAX_BLOCK); returns count. */
uint32_t	gpx_plist_block_docs(const gpx_plist *p, uint32_t blk, uint32_t *out);

/* Decode the tfs of block blk (count postings) into out. */
void		gpx_plist_block_tfs(const gpx_plist *p, uint32_t blk, uint32_t count,
								uint32_t *out);

/* Work counters of cursors (added to, never reset, by the cursor code). */
typedef struct gpx_plist_counts
{
	uint64_t	blocks_decoded; /* docID blocks decoded */
	uint64_t	tf_blocks;		/* frequency blocks decoded */
	uint64_t	shallow_moves;	/* block pointer moves without decoding */
} gpx_plist_counts;

/*
 * The frequencies of docIDs x[0..n) (strictly increasing, each in p) into
 * tf[0..n): block by block, each block that holds some of them decoded
 * once (counted in counts, which may be NULL) and only their frequencies
 * read.  GPX_E_PAYLOAD when some x[i] is not in p.
 */
gpx_status	gpx_plist_tfs_of(const gpx_plist *p, const uint32_t *x, uint32_t n,
							 uint32_t *tf, gpx_plist_counts *counts);

/*
 * The frequencies of the postings at indexes at[0..n) of p (strictly
 * increasing, each < p->n: where an intersection found them) into
 * tf[0..n): each block that holds some read once, only their frequencies
 * (counted in counts' tf_blocks; counts may be NULL); no docID decoded.
 * GPX_E_PAYLOAD when an index is out of order or past the list.
 */
gpx_status	gpx_plist_tfs_at(const gpx_plist *p, const uint32_t *at, uint32_t n,
							 uint32_t *tf, gpx_plist_counts *counts);

/*
 * A forward cursor.  doc is the current posting's docID (GPX_PLIST_END
 * once exhausted); next / next_geq move it forward; tf reads its
 * frequency (decoding the block's frequencies on first use).  The shallow
 * pointer (sblk) moves independently and never decodes: it names the block
 * that may hold a given docID, for its largest tf and the docID range
 * [first of sblk, send] it covers.
 */
typedef struct gpx_pcursor
{
	const gpx_plist *p;
	gpx_plist_counts *counts;	/* may be NULL */
	uint32_t	doc;
	uint32_t	blk;			/* block in docs[], nblocks when exhausted */
	uint32_t	pos;
	uint32_t	cnt;
	uint32_t	tf_blk;			/* block whose tfs are in tfs[], or ~0 */
	uint32_t	sblk;			/* shallow block */
	uint32_t	send;			/* last docID sblk may hold */
	uint32_t	smax_tf;		/* largest tf of sblk */
	uint32_t	docs[GPX_MAX_BLOCK];
	uint32_t	tfs[GPX_MAX_BLOCK];
} gpx_pcursor;

/* Position c on the first posting of p (counts may be NULL). */
void		gpx_pcursor_init(gpx_pcursor *c, const gpx_plist *p,
							 gpx_plist_counts *counts);

/* Move to the next posting. */
void		gpx_pcursor_next(gpx_pcursor *c);

/* Move to the first posting with docID >= x (no move when doc >= x). */
void		gpx_pcursor_next_geq(gpx_pcursor *c, uint32_t x);

/* Frequency of the current posting (c->doc != GPX_PLIST_END). */
static inline uint32_t
gpx_pcursor_tf(gpx_pcursor *c)
{
	if (c->tf_blk != c->blk)
	{
		gpx_plist_block_tfs(c->p, c->blk, c->cnt, c->tfs);
		c->tf_blk = c->blk;
		if (c->counts)
			c->counts->tf_blocks++;
	}
	return c->tfs[c->pos];
}

/*
 * Move the shallow pointer forward to the block that may hold x (the last
 * block whose first docID <= x, not before the current shallow block);
 * sets send and smax_tf.  Returns false when x is past the list's last
 * docID (no block can hold it).
 */
bool		gpx_pcursor_shallow_move(gpx_pcursor *c, uint32_t x);

/* gpx_pcursor_shallow_move, with the common case (x in sblk) inline. */
static inline bool
gpx_pcursor_shallow(gpx_pcursor *c, uint32_t x)
{
	if (x <= c->send && c->p->nblocks > 0)
		return true;
	return gpx_pcursor_shallow_move(c, x);
}

#ifdef __cplusplus
}
#endif

#endif							/* GPX_PLIST_H */
