/*
 * posting_doclen.h - the SQL type posting_doclen (collection statistics
 * for BM25: N, total length, each document's length; the value is one
 * gpx_doclen blob) as the ranking functions read it.
 */
#ifndef POSTING_DOCLEN_H
#define POSTING_DOCLEN_H

#include "postgres.h"

#include "fmgr.h"

#include "gpx_doclen.h"

/*
 * Open a posting_doclen datum for reading.  A value stored out of line is
 * detoasted once per backend and kept (a few values, least recently used
 * dropped): later calls compare its TOAST pointer and re-read only its
 * 40-byte header, which carries a checksum of the contents, so a value
 * that changed, even at a recycled TOAST location, is read afresh.  The
 * view stays valid until the next call (which may drop a cached value).
 */
extern void posting_doclen_fetch(Datum d, gpx_doclen *dl);

#endif							/* POSTING_DOCLEN_H */
