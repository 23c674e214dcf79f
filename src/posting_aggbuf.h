/*
 * posting_aggbuf.h - the transition state the posting aggregates share:
 * their inputs as fixed-size elements in arrival order (docIDs for
 * T_agg(int4), (docID, tf) pairs for T_agg(int4, int4)), grown in the
 * aggregate context, with the combine / serialize / deserialize support
 * functions that parallel aggregation needs.  posting_doclen_agg keeps a
 * state of its own: it holds more documents than POSTING_MAX_ELEMS and
 * checks every pair it takes from another worker.
 */
#ifndef POSTING_AGGBUF_H
#define POSTING_AGGBUF_H

#include "postgres.h"
#include "fmgr.h"

typedef struct PostingAggBuf
{
	char	   *data;			/* n elements of elem bytes, room for cap */
	uint32		n;
	uint32		cap;
	uint32		elem;
} PostingAggBuf;

/* Element i of b, as a pointer to type. */
#define POSTING_AGGBUF_AT(b, type, i) (((type *) (b)->data) + (i))

/* The aggregate memory context, or an error outside an aggregate. */
extern MemoryContext posting_aggbuf_context(FunctionCallInfo fcinfo,
											const char *fname);

/* A new, empty buffer of elements of elem bytes with room for cap, in ctx. */
extern PostingAggBuf *posting_aggbuf_new(MemoryContext ctx, uint32 elem,
										 uint32 cap);

/* Room for `more` elements, within POSTING_MAX_ELEMS. */
extern void posting_aggbuf_reserve(PostingAggBuf *b, uint64 more);

/* Append one element (room made); returns where to write it. */
extern void *posting_aggbuf_push(PostingAggBuf *b);

/*
 * The combine, serialize and deserialize functions of an aggregate whose
 * state is a PostingAggBuf of elem-byte elements; fname names the
 * caller in the error raised outside an aggregate.
 */
extern Datum posting_aggbuf_combine(FunctionCallInfo fcinfo, uint32 elem,
									const char *fname);
extern Datum posting_aggbuf_serialize(FunctionCallInfo fcinfo,
									  const char *fname);
extern Datum posting_aggbuf_deserialize(FunctionCallInfo fcinfo, uint32 elem,
										const char *fname);

#endif							/* POSTING_AGGBUF_H */
