/*
 * posting_stored.h - a posting list stored out of line, kept unread: its
 * TOAST pointer, and the list once read (src/posting_stored.c).  The
 * aggregates that can hand a list to the executor by key, or read it in
 * place from the shared cache, keep their large stored inputs this way
 * (posting_intersect.c, posting_rankagg.c); exec_client.h's GpxExecStored
 * is the part the executor client sees.
 */
#ifndef POSTING_STORED_H
#define POSTING_STORED_H

#include "posting.h"
#include "exec_client.h"

/* A stored input: the client's view first, then what reading it needs. */
typedef struct PostingStored
{
	GpxExecStored s;
	struct varlena *ptr;		/* copy of the TOAST pointer datum */
	MemoryContext cxt;			/* where the value goes once read */
	PostingList pl;				/* the value once read */
} PostingStored;

/*
 * Whether raw (a datum of a posting type) is stored on disk out of line
 * and large enough that the executor client keeps it unread.
 */
extern bool posting_stored_worth(const struct varlena *raw);

/* A new PostingStored in cxt for raw (posting_stored_worth said yes). */
extern PostingStored *posting_stored_new(MemoryContext cxt,
										 const struct varlena *raw);

/* The value of a stored input, read now if it was not. */
extern struct varlena *posting_stored_value(PostingStored *ps);

#endif							/* POSTING_STORED_H */
