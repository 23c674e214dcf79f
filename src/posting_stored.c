/*
 * posting_stored.c - posting lists stored out of line, kept unread until
 * something needs their bytes (see posting_stored.h).  Their identity is
 * the TOAST pointer, immutable for the statement.
 */
#include "posting_stored.h"

#include "access/detoast.h"

/* GpxExecStored.read of a PostingStored: detoast it into its context. */
static void
stored_read(GpxExecStored *s)
{
	PostingStored *ps = (PostingStored *) s;
	MemoryContext old = MemoryContextSwitchTo(ps->cxt);

	posting_open(PointerGetDatum(ps->ptr), &ps->pl);
	MemoryContextSwitchTo(old);
	s->l = ps->pl.l;
}

/* Whether raw is stored on disk out of line and worth keeping unread. */
bool
posting_stored_worth(const struct varlena *raw)
{
	struct varatt_external ptr;

	if (!VARATT_IS_EXTERNAL_ONDISK(raw))
		return false;
	VARATT_EXTERNAL_GET_POINTER(ptr, raw);
	return ptr.va_rawsize > VARHDRSZ &&
		gpuidx_exec_keeps_stored((uint32) (ptr.va_rawsize - VARHDRSZ));
}

/* A stored input of cxt: its TOAST pointer, copied. */
PostingStored *
posting_stored_new(MemoryContext cxt, const struct varlena *raw)
{
	PostingStored *ps = MemoryContextAllocZero(cxt, sizeof(PostingStored));
	struct varatt_external ptr;

	VARATT_EXTERNAL_GET_POINTER(ptr, raw);
	ps->ptr = MemoryContextAlloc(cxt, VARSIZE_ANY(raw));
	memcpy(ps->ptr, raw, VARSIZE_ANY(raw));
	ps->cxt = cxt;
	ps->s.toastrelid = ptr.va_toastrelid;
	ps->s.valueid = ptr.va_valueid;
	ps->s.len = (uint32) (ptr.va_rawsize - VARHDRSZ);
	ps->s.read = stored_read;
	return ps;
}

/* The detoasted value of a stored input (read now if need be). */
struct varlena *
posting_stored_value(PostingStored *ps)
{
	gpuidx_exec_read_stored(&ps->s);
	return ps->pl.vl;
}
