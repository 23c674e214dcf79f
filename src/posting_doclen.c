/*
 * posting_doclen.c - the SQL type posting_doclen: collection statistics
 * for BM25 (the number of documents, their total length and each one's
 * length), one gpx_doclen blob per value (src/codec/gpx_doclen.h).
 *
 *   text form         '{docid:length, ...}' (any order; a docID given twice
 *                     adds up), output in docID order
 *   binary form       the blob, validated in full on the way in
 *   posting_doclen(docids int4[], lengths int4[])   build from arrays
 *   posting_doclen_agg(docid int4, length int4)     build from rows
 *   posting_doclen_set(d, docids int4[], lengths int4[])
 *                     the value with those documents' lengths replaced
 *                     (a NULL length removes the document, unless the
 *                     same call also gives it a length)
 *   doc_count, total_length, avg_doclen, doclen(d, docid), unnest(d),
 *   size_bytes        reading
 *
 * Every builder sums the lengths given for one docID (so counting token
 * rows with length 1 gives each document's length); lengths are >= 0 and
 * at most 2^31 - 1 per document.
 *
 * posting_doclen_fetch keeps a few large stored values detoasted per
 * backend, so that a ranked query does not read a collection's statistics
 * (4 bytes a document at most) from TOAST every time.
 */
#include "posting.h"
#include "posting_doclen.h"

#include "access/detoast.h"
#include "catalog/pg_type.h"
#include "funcapi.h"
#include "libpq/pqformat.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "parser/scansup.h"
#include "utils/builtins.h"

/* A (docID, length) pair of a value being built. */
typedef struct DoclenPair
{
	uint32		doc;
	uint32		len;
} DoclenPair;

/* Sort pairs by docID (stable order of equal docIDs is irrelevant: they add). */
#define ST_SORT doclen_sort_pairs
#define ST_ELEMENT_TYPE DoclenPair
#define ST_COMPARE(a, b) ((a)->doc < (b)->doc ? -1 : (a)->doc > (b)->doc ? 1 : 0)
#define ST_CHECK_FOR_INTERRUPTS
#define ST_SCOPE static
#define ST_DECLARE
#define ST_DEFINE
#include "lib/sort_template.h"

/* Pairs collected by a builder (and the aggregate's transition state). */
typedef struct DoclenPairs
{
	DoclenPair *p;
	uint64		n;
	uint64		cap;
} DoclenPairs;

/* Most pairs one builder holds in memory. */
#define DOCLEN_MAX_PAIRS ((uint64) (MaxAllocHugeSize / sizeof(DoclenPair)))

/* Longest piece of an input literal quoted back in an error message. */
#define DOCLEN_QUOTE_MAX 60

/* Values the backend cache keeps. */
#define DOCLEN_CACHE_ENTRIES 4

/* Report a stored value that does not parse. */
static void
doclen_report_corrupt(gpx_status st)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("corrupt posting_doclen value"),
			 errdetail("The stored value failed to parse: %s.",
					   gpx_status_str(st))));
}

/* Open a detoasted value (trusted: header checks only). */
static void
doclen_open_varlena(const struct varlena *vl, gpx_doclen *dl)
{
	gpx_status	st = gpx_doclen_open(dl, (const uint8 *) VARDATA(vl),
									 VARSIZE(vl) - VARHDRSZ);

	if (st != GPX_OK)
		doclen_report_corrupt(st);
}

/* Append a pair, growing the array in cxt. */
static void
doclen_pairs_add(DoclenPairs *ps, MemoryContext cxt, int32 doc, int32 len)
{
	if (doc < 0)
		posting_report_negative(doc);
	if (len < 0)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("document length %d is out of range", len),
				 errdetail("Document lengths must be between 0 and %u.",
						   GPX_DOCLEN_MAX_LEN)));
	if (ps->n == ps->cap)
	{
		uint64		cap = Max(ps->cap * 2, 64);

		if (ps->n >= DOCLEN_MAX_PAIRS)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("too many documents for one posting_doclen value")));
		cap = Min(cap, DOCLEN_MAX_PAIRS);
		ps->p = ps->p == NULL ?
			MemoryContextAllocHuge(cxt, cap * sizeof(DoclenPair)) :
			repalloc_huge(ps->p, cap * sizeof(DoclenPair));
		ps->cap = cap;
	}
	ps->p[ps->n].doc = (uint32) doc;
	ps->p[ps->n].len = (uint32) len;
	ps->n++;
}

/*
 * Sort pairs and add up the lengths of repeated docIDs, in place; returns
 * the number of distinct documents.
 */
static uint64
doclen_pairs_merge(DoclenPairs *ps)
{
	uint64		i,
				j = 0;
	bool		sorted = true;

	for (i = 1; i < ps->n; i++)
		if (ps->p[i].doc <= ps->p[i - 1].doc)
		{
			sorted = false;
			break;
		}
	if (!sorted)
		doclen_sort_pairs(ps->p, ps->n);
	for (i = 0; i < ps->n; i++)
	{
		if (j > 0 && ps->p[j - 1].doc == ps->p[i].doc)
		{
			uint64		sum = (uint64) ps->p[j - 1].len + ps->p[i].len;

			if (sum > GPX_DOCLEN_MAX_LEN)
				ereport(ERROR,
						(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
						 errmsg("length of document %u is out of range",
								ps->p[i].doc),
						 errdetail("The lengths given for it add up to more than %u.",
								   GPX_DOCLEN_MAX_LEN)));
			ps->p[j - 1].len = (uint32) sum;
		}
		else
			ps->p[j++] = ps->p[i];
	}
	ps->n = j;
	return j;
}

/* Encode merged pairs (sorted, distinct) as a datum. */
static Datum
doclen_build(const DoclenPairs *ps)
{
	uint32	   *docs,
			   *lens;
	uint32		n = (uint32) ps->n;
	size_t		size,
				outlen = 0;
	struct varlena *vl;
	gpx_status	st;

	if (ps->n > GPX_DOCLEN_MAX_SPAN)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("too many documents for one posting_doclen value")));
	docs = MemoryContextAllocHuge(CurrentMemoryContext, Max(n, 1) * sizeof(uint32));
	lens = MemoryContextAllocHuge(CurrentMemoryContext, Max(n, 1) * sizeof(uint32));
	for (uint32 i = 0; i < n; i++)
	{
		docs[i] = ps->p[i].doc;
		lens[i] = ps->p[i].len;
	}
	size = gpx_doclen_pairs_size(docs, lens, n);
	if (size == 0 || size > MaxAllocSize - VARHDRSZ)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("posting_doclen value is too large"),
				 errdetail("Statistics up to docID %u take more than 1 GB.",
						   n > 0 ? docs[n - 1] : 0),
				 errhint("Number the documents densely from 0.")));
	vl = (struct varlena *) palloc(VARHDRSZ + size);
	st = gpx_doclen_encode_pairs(docs, lens, n, (uint8 *) VARDATA(vl), size,
								 &outlen);
	if (st != GPX_OK || outlen != size)
		elog(ERROR, "gpuidx: encoding collection statistics failed: %s",
			 gpx_status_str(st));
	SET_VARSIZE(vl, VARHDRSZ + size);
	pfree(docs);
	pfree(lens);
	return PointerGetDatum(vl);
}

/* -------------------------------------------------------------- text -- */

/* A malformed literal. */
static void
doclen_syntax_error(const char *str, const char *detail)
{
	int			len = strlen(str);
	int			clip = pg_mbcliplen(str, len, DOCLEN_QUOTE_MAX);

	ereport(ERROR,
			(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
			 errmsg("malformed posting_doclen literal: \"%.*s%s\"",
					clip, str, clip < len ? "..." : ""),
			 errdetail_internal("%s", detail)));
}

/* Parse a non-negative int4 at *pp; what names it in errors. */
static int32
doclen_parse_int(const char *str, const char **pp, const char *what)
{
	const char *p = *pp;
	uint64		v = 0;

	if (*p == '+')
		p++;
	if (*p < '0' || *p > '9')
	{
		if (*p == '\0')
			doclen_syntax_error(str, "Unexpected end of input.");
		doclen_syntax_error(str, psprintf("Expected a %s, found \"%.*s\".",
										  what, pg_mblen(p), p));
	}
	while (*p >= '0' && *p <= '9')
	{
		if (v <= PG_INT32_MAX)
			v = v * 10 + (*p - '0');
		p++;
	}
	if (v > PG_INT32_MAX)
		doclen_syntax_error(str, psprintf("The %s is out of range: it must be between 0 and %d.",
										  what, PG_INT32_MAX));
	*pp = p;
	return (int32) v;
}

/* Text input: '{docid:length, ...}'. */
PG_FUNCTION_INFO_V1(posting_doclen_in);
Datum
posting_doclen_in(PG_FUNCTION_ARGS)
{
	const char *str = PG_GETARG_CSTRING(0);
	const char *p = str;
	DoclenPairs ps = {NULL, 0, 0};

	while (scanner_isspace(*p))
		p++;
	if (*p != '{')
		doclen_syntax_error(str, "Statistics must start with \"{\".");
	p++;
	while (scanner_isspace(*p))
		p++;
	if (*p != '}')
	{
		for (;;)
		{
			int32		doc,
						len;

			doc = doclen_parse_int(str, &p, "docID");
			while (scanner_isspace(*p))
				p++;
			if (*p != ':')
				doclen_syntax_error(str, "Expected \":\" after a docID.");
			p++;
			while (scanner_isspace(*p))
				p++;
			len = doclen_parse_int(str, &p, "document length");
			doclen_pairs_add(&ps, CurrentMemoryContext, doc, len);
			while (scanner_isspace(*p))
				p++;
			if (*p == ',')
			{
				p++;
				while (scanner_isspace(*p))
					p++;
				continue;
			}
			if (*p == '}')
				break;
			if (*p == '\0')
				doclen_syntax_error(str, "Unexpected end of input.");
			doclen_syntax_error(str, psprintf("Unexpected \"%.*s\" character.",
											  pg_mblen(p), p));
		}
	}
	p++;
	while (scanner_isspace(*p))
		p++;
	if (*p != '\0')
		doclen_syntax_error(str, "Junk after closing right brace.");
	doclen_pairs_merge(&ps);
	PG_RETURN_DATUM(doclen_build(&ps));
}

/* Text output: '{docid:length, ...}' in docID order. */
PG_FUNCTION_INFO_V1(posting_doclen_out);
Datum
posting_doclen_out(PG_FUNCTION_ARGS)
{
	struct varlena *vl = PG_DETOAST_DATUM(PG_GETARG_DATUM(0));
	gpx_doclen	dl;
	StringInfoData buf;
	bool		first = true;

	doclen_open_varlena(vl, &dl);
	if (dl.ndocs > (MaxAllocSize - 16) / 22)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("posting_doclen value is too large for its text form"),
				 errdetail("It holds " UINT64_FORMAT " documents.", dl.ndocs),
				 errhint("Use the binary form (COPY ... BINARY, pg_dump custom format).")));
	initStringInfo(&buf);
	appendStringInfoChar(&buf, '{');
	for (uint32 d = 0; d < dl.span; d++)
	{
		uint32		e = gpx_doclen_get(&dl, d);

		if ((d & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		if (e == 0)
			continue;
		appendStringInfo(&buf, "%s%u:%u", first ? "" : ",", d, e - 1);
		first = false;
	}
	appendStringInfoChar(&buf, '}');
	PG_RETURN_CSTRING(buf.data);
}

/* Validate untrusted bytes held by a varlena as a statistics blob. */
static void
doclen_check_external(const struct varlena *vl, int sqlstate)
{
	gpx_status	st = gpx_doclen_validate((const uint8 *) VARDATA(vl),
										 VARSIZE(vl) - VARHDRSZ);

	if (st != GPX_OK)
		ereport(ERROR,
				(errcode(sqlstate),
				 errmsg("invalid posting_doclen value"),
				 errdetail("The value failed validation: %s.",
						   gpx_status_str(st))));
}

/* posting_doclen(bytea): the blob, validated in full. */
PG_FUNCTION_INFO_V1(posting_doclen_from_bytea);
Datum
posting_doclen_from_bytea(PG_FUNCTION_ARGS)
{
	struct varlena *vl = (struct varlena *) PG_DETOAST_DATUM_COPY(PG_GETARG_DATUM(0));

	doclen_check_external(vl, ERRCODE_INVALID_BINARY_REPRESENTATION);
	PG_RETURN_POINTER(vl);
}

/* Binary input: the blob, validated in full. */
PG_FUNCTION_INFO_V1(posting_doclen_recv);
Datum
posting_doclen_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	int			len = buf->len - buf->cursor;
	struct varlena *vl;

	vl = (struct varlena *) palloc(VARHDRSZ + len);
	SET_VARSIZE(vl, VARHDRSZ + len);
	pq_copymsgbytes(buf, VARDATA(vl), len);
	doclen_check_external(vl, ERRCODE_INVALID_BINARY_REPRESENTATION);
	PG_RETURN_POINTER(vl);
}

/* Binary output: the blob. */
PG_FUNCTION_INFO_V1(posting_doclen_send);
Datum
posting_doclen_send(PG_FUNCTION_ARGS)
{
	struct varlena *vl = PG_DETOAST_DATUM(PG_GETARG_DATUM(0));
	StringInfoData buf;

	pq_begintypsend(&buf);
	pq_sendbytes(&buf, VARDATA(vl), VARSIZE(vl) - VARHDRSZ);
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

/* ----------------------------------------------------------- builders -- */

/* Elements of a one-dimensional int4[] without NULLs (nulls allowed: out). */
static int32 *
doclen_int_array(ArrayType *a, const char *what, bool **nulls, int *n)
{
	Datum	   *elems;
	bool	   *isnull;
	int32	   *out;

	if (ARR_NDIM(a) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("%s must be a one-dimensional array", what)));
	deconstruct_array(a, INT4OID, 4, true, TYPALIGN_INT, &elems, &isnull, n);
	out = palloc(sizeof(int32) * Max(*n, 1));
	for (int i = 0; i < *n; i++)
	{
		if (isnull[i] && nulls == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("%s must not contain nulls", what)));
		out[i] = isnull[i] ? 0 : DatumGetInt32(elems[i]);
	}
	if (nulls)
		*nulls = isnull;
	return out;
}

/* posting_doclen(docids int4[], lengths int4[]). */
PG_FUNCTION_INFO_V1(posting_doclen_from_arrays);
Datum
posting_doclen_from_arrays(PG_FUNCTION_ARGS)
{
	int			nd,
				nl;
	int32	   *docs = doclen_int_array(PG_GETARG_ARRAYTYPE_P(0), "docID array", NULL, &nd);
	int32	   *lens = doclen_int_array(PG_GETARG_ARRAYTYPE_P(1), "length array", NULL, &nl);
	DoclenPairs ps = {NULL, 0, 0};

	if (nd != nl)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("docID and length arrays must have the same length"),
				 errdetail("There are %d docIDs and %d lengths.", nd, nl)));
	for (int i = 0; i < nd; i++)
		doclen_pairs_add(&ps, CurrentMemoryContext, docs[i], lens[i]);
	doclen_pairs_merge(&ps);
	PG_RETURN_DATUM(doclen_build(&ps));
}

/*
 * posting_doclen_set(d, docids int4[], lengths int4[]): the documents of
 * d, with each given docID's length replaced by the given one (repeats
 * add up) or removed where the length is NULL.
 */
PG_FUNCTION_INFO_V1(posting_doclen_set);
Datum
posting_doclen_set(PG_FUNCTION_ARGS)
{
	struct varlena *vl = PG_DETOAST_DATUM(PG_GETARG_DATUM(0));
	int			nd,
				nl;
	int32	   *docs = doclen_int_array(PG_GETARG_ARRAYTYPE_P(1), "docID array", NULL, &nd);
	bool	   *lnull;
	int32	   *lens = doclen_int_array(PG_GETARG_ARRAYTYPE_P(2), "length array", &lnull, &nl);
	DoclenPairs ch = {NULL, 0, 0},
				out = {NULL, 0, 0};
	DoclenPair *del;
	uint64		ndel = 0,
				i = 0,
				j = 0,
				k = 0;
	gpx_doclen	dl;

	if (nd != nl)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("docID and length arrays must have the same length"),
				 errdetail("There are %d docIDs and %d lengths.", nd, nl)));
	doclen_open_varlena(vl, &dl);
	/* the changes: lengths to set (summed), and docIDs to remove */
	del = palloc(sizeof(DoclenPair) * Max(nd, 1));
	for (int c = 0; c < nd; c++)
	{
		if (lnull[c])
		{
			if (docs[c] < 0)
				posting_report_negative(docs[c]);
			del[ndel].doc = (uint32) docs[c];
			del[ndel++].len = 0;
		}
		else
			doclen_pairs_add(&ch, CurrentMemoryContext, docs[c], lens[c]);
	}
	doclen_pairs_merge(&ch);
	if (ndel > 1)
		doclen_sort_pairs(del, ndel);
	/* merge the present documents with the changes, all in docID order */
	for (uint64 step = 0;; step++)
	{
		bool		has_old,
					has_ch;

		if ((step & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		while (i < dl.span && gpx_doclen_get(&dl, (uint32) i) == 0)
			i++;
		has_old = i < dl.span;
		has_ch = j < ch.n;
		if (!has_old && !has_ch)
			break;
		if (has_ch && (!has_old || ch.p[j].doc <= i))
		{
			/* a given length replaces the old one (a removal included) */
			if (has_old && ch.p[j].doc == i)
				i++;
			doclen_pairs_add(&out, CurrentMemoryContext, (int32) ch.p[j].doc,
							 (int32) ch.p[j].len);
			j++;
			continue;
		}
		while (k < ndel && del[k].doc < i)
			k++;
		if (!(k < ndel && del[k].doc == i))
			doclen_pairs_add(&out, CurrentMemoryContext, (int32) i,
							 (int32) (gpx_doclen_get(&dl, (uint32) i) - 1));
		i++;
	}
	PG_RETURN_DATUM(doclen_build(&out));
}

/* The aggregate memory context, or an error outside an aggregate. */
static MemoryContext
doclen_agg_context(FunctionCallInfo fcinfo)
{
	MemoryContext cxt;

	if (!AggCheckCallContext(fcinfo, &cxt))
		elog(ERROR, "posting_doclen_agg support function called in non-aggregate context");
	return cxt;
}

/* Transition: collect (docid, length); a NULL docID skips the row. */
PG_FUNCTION_INFO_V1(posting_doclen_agg_trans);
Datum
posting_doclen_agg_trans(PG_FUNCTION_ARGS)
{
	MemoryContext cxt = doclen_agg_context(fcinfo);
	DoclenPairs *ps = PG_ARGISNULL(0) ? NULL : (DoclenPairs *) PG_GETARG_POINTER(0);

	if (PG_ARGISNULL(1))
	{
		if (ps == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(ps);
	}
	if (PG_ARGISNULL(2))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("document length must not be null"),
				 errdetail("DocID %d has a NULL length.", PG_GETARG_INT32(1))));
	if (ps == NULL)
		ps = MemoryContextAllocZero(cxt, sizeof(DoclenPairs));
	doclen_pairs_add(ps, cxt, PG_GETARG_INT32(1), PG_GETARG_INT32(2));
	PG_RETURN_POINTER(ps);
}

/* Combine two partial states. */
PG_FUNCTION_INFO_V1(posting_doclen_agg_combine);
Datum
posting_doclen_agg_combine(PG_FUNCTION_ARGS)
{
	MemoryContext cxt = doclen_agg_context(fcinfo);
	DoclenPairs *a = PG_ARGISNULL(0) ? NULL : (DoclenPairs *) PG_GETARG_POINTER(0);
	DoclenPairs *b = PG_ARGISNULL(1) ? NULL : (DoclenPairs *) PG_GETARG_POINTER(1);

	if (b == NULL || b->n == 0)
	{
		if (a == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(a);
	}
	if (a == NULL)
		a = MemoryContextAllocZero(cxt, sizeof(DoclenPairs));
	for (uint64 i = 0; i < b->n; i++)
		doclen_pairs_add(a, cxt, (int32) b->p[i].doc, (int32) b->p[i].len);
	PG_RETURN_POINTER(a);
}

/* Serialize: the pairs as native uint32 pairs. */
PG_FUNCTION_INFO_V1(posting_doclen_agg_serialize);
Datum
posting_doclen_agg_serialize(PG_FUNCTION_ARGS)
{
	DoclenPairs *ps = (DoclenPairs *) PG_GETARG_POINTER(0);
	Size		nbytes;
	bytea	   *b;

	(void) doclen_agg_context(fcinfo);
	if (ps->n > (MaxAllocSize - VARHDRSZ) / sizeof(DoclenPair))
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("posting_doclen_agg state is too large to pass between parallel workers"),
				 errhint("Run the query without parallelism.")));
	nbytes = ps->n * sizeof(DoclenPair);
	b = palloc(VARHDRSZ + nbytes);
	SET_VARSIZE(b, VARHDRSZ + nbytes);
	memcpy(VARDATA(b), ps->p, nbytes);
	PG_RETURN_BYTEA_P(b);
}

/* Deserialize a state written by posting_doclen_agg_serialize. */
PG_FUNCTION_INFO_V1(posting_doclen_agg_deserialize);
Datum
posting_doclen_agg_deserialize(PG_FUNCTION_ARGS)
{
	MemoryContext cxt = doclen_agg_context(fcinfo);
	bytea	   *b = PG_GETARG_BYTEA_P(0);
	Size		nbytes = VARSIZE(b) - VARHDRSZ;
	DoclenPairs *ps = MemoryContextAllocZero(cxt, sizeof(DoclenPairs));
	const DoclenPair *src = (const DoclenPair *) VARDATA(b);

	if (nbytes % sizeof(DoclenPair) != 0)
		elog(ERROR, "gpuidx: invalid serialized posting_doclen_agg state");
	for (Size i = 0; i < nbytes / sizeof(DoclenPair); i++)
	{
		DoclenPair	pr;

		memcpy(&pr, &src[i], sizeof(pr));
		if (pr.doc > GPX_MAX_DOCID || pr.len > GPX_DOCLEN_MAX_LEN)
			elog(ERROR, "gpuidx: invalid serialized posting_doclen_agg state");
		doclen_pairs_add(ps, cxt, (int32) pr.doc, (int32) pr.len);
	}
	PG_RETURN_POINTER(ps);
}

/* Final: merge and encode; no rows gives NULL. */
PG_FUNCTION_INFO_V1(posting_doclen_agg_final);
Datum
posting_doclen_agg_final(PG_FUNCTION_ARGS)
{
	DoclenPairs *ps;

	(void) doclen_agg_context(fcinfo);
	ps = PG_ARGISNULL(0) ? NULL : (DoclenPairs *) PG_GETARG_POINTER(0);
	if (ps == NULL)
		PG_RETURN_NULL();
	/* merging in place leaves the same multiset's sums: a valid state */
	doclen_pairs_merge(ps);
	PG_RETURN_DATUM(doclen_build(ps));
}

/* ------------------------------------------------------------ reading -- */

/* Open an argument for the header-only accessors (a 40-byte slice). */
static void
doclen_peek(Datum d, gpx_doclen *dl)
{
	struct varlena *s = PG_DETOAST_DATUM_SLICE(d, 0, GPX_DOCLEN_HEADER);
	Size		len = VARSIZE(s) - VARHDRSZ;
	Size		full = toast_raw_datum_size(d) - VARHDRSZ;
	gpx_status	st;

	if (len < GPX_DOCLEN_HEADER)
		doclen_report_corrupt(GPX_E_TRUNCATED);
	/* the header alone, checked against the full length */
	st = gpx_doclen_open(dl, (const uint8 *) VARDATA(s), full);
	if (st != GPX_OK)
		doclen_report_corrupt(st);
	dl->base = NULL;
	dl->entries = NULL;
}

/* doc_count(d) bigint: N. */
PG_FUNCTION_INFO_V1(posting_doclen_doc_count);
Datum
posting_doclen_doc_count(PG_FUNCTION_ARGS)
{
	gpx_doclen	dl;

	doclen_peek(PG_GETARG_DATUM(0), &dl);
	PG_RETURN_INT64((int64) dl.ndocs);
}

/* total_length(d) bigint: the sum of the lengths. */
PG_FUNCTION_INFO_V1(posting_doclen_total_length);
Datum
posting_doclen_total_length(PG_FUNCTION_ARGS)
{
	gpx_doclen	dl;

	doclen_peek(PG_GETARG_DATUM(0), &dl);
	PG_RETURN_INT64((int64) dl.total);
}

/* avg_doclen(d) float8: total / N as BM25 uses it; NULL without documents. */
PG_FUNCTION_INFO_V1(posting_doclen_avg);
Datum
posting_doclen_avg(PG_FUNCTION_ARGS)
{
	gpx_doclen	dl;

	doclen_peek(PG_GETARG_DATUM(0), &dl);
	if (dl.ndocs == 0)
		PG_RETURN_NULL();
	PG_RETURN_FLOAT8((double) dl.total / (double) dl.ndocs);
}

/* doclen(d, docid) int4: a document's length, NULL if it is not one. */
PG_FUNCTION_INFO_V1(posting_doclen_get);
Datum
posting_doclen_get(PG_FUNCTION_ARGS)
{
	int32		doc = PG_GETARG_INT32(1);
	gpx_doclen	dl;
	uint32		e;

	if (doc < 0)
		PG_RETURN_NULL();
	posting_doclen_fetch(PG_GETARG_DATUM(0), &dl);
	e = gpx_doclen_get(&dl, (uint32) doc);
	if (e == 0)
		PG_RETURN_NULL();
	PG_RETURN_INT32((int32) (e - 1));
}

/* size_bytes(d) int4: bytes of the blob, without detoasting. */
PG_FUNCTION_INFO_V1(posting_doclen_size_bytes);
Datum
posting_doclen_size_bytes(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT32((int32) (toast_raw_datum_size(PG_GETARG_DATUM(0)) - VARHDRSZ));
}

/* unnest(d) -> setof (docid, length), in docID order. */
typedef struct DoclenUnnest
{
	struct varlena *vl;
	gpx_doclen	dl;
	uint32		next;
} DoclenUnnest;

PG_FUNCTION_INFO_V1(posting_doclen_unnest);
Datum
posting_doclen_unnest(PG_FUNCTION_ARGS)
{
	FuncCallContext *fctx;
	DoclenUnnest *st;

	if (SRF_IS_FIRSTCALL())
	{
		MemoryContext old;
		TupleDesc	td;

		fctx = SRF_FIRSTCALL_INIT();
		old = MemoryContextSwitchTo(fctx->multi_call_memory_ctx);
		st = palloc(sizeof(DoclenUnnest));
		st->vl = PG_DETOAST_DATUM_COPY(PG_GETARG_DATUM(0));
		doclen_open_varlena(st->vl, &st->dl);
		st->next = 0;
		if (get_call_result_type(fcinfo, NULL, &td) != TYPEFUNC_COMPOSITE)
			elog(ERROR, "gpuidx: unnest(posting_doclen) must return a row type");
		fctx->tuple_desc = BlessTupleDesc(td);
		fctx->user_fctx = st;
		MemoryContextSwitchTo(old);
	}
	fctx = SRF_PERCALL_SETUP();
	st = (DoclenUnnest *) fctx->user_fctx;
	while (st->next < st->dl.span)
	{
		uint32		d = st->next++;
		uint32		e = gpx_doclen_get(&st->dl, d);

		if (e != 0)
		{
			Datum		values[2];
			bool		nulls[2] = {false, false};

			values[0] = Int32GetDatum((int32) d);
			values[1] = Int32GetDatum((int32) (e - 1));
			SRF_RETURN_NEXT(fctx, HeapTupleGetDatum(heap_form_tuple(fctx->tuple_desc,
																	values, nulls)));
		}
	}
	SRF_RETURN_DONE(fctx);
}

/* -------------------------------------------------------------- cache -- */

/* A stored value kept detoasted by this backend. */
typedef struct DoclenCacheEntry
{
	Oid			toastrelid;		/* InvalidOid: free slot */
	Oid			valueid;
	int32		rawsize;
	uint64		last_use;
	uint8		header[GPX_DOCLEN_HEADER];
	struct varlena *vl;			/* in doclen_cache_cxt */
} DoclenCacheEntry;

static DoclenCacheEntry doclen_cache[DOCLEN_CACHE_ENTRIES];
static MemoryContext doclen_cache_cxt = NULL;
static uint64 doclen_cache_clock = 0;

/* Open a datum, through the backend cache when it is stored out of line. */
void
posting_doclen_fetch(Datum d, gpx_doclen *dl)
{
	struct varlena *raw = (struct varlena *) DatumGetPointer(d);
	struct varatt_external ptr;
	struct varlena *hdr;
	DoclenCacheEntry *e = NULL,
			   *victim = &doclen_cache[0];
	MemoryContext old;

	if (!VARATT_IS_EXTERNAL_ONDISK(raw))
	{
		doclen_open_varlena(PG_DETOAST_DATUM(d), dl);
		return;
	}
	VARATT_EXTERNAL_GET_POINTER(ptr, raw);
	hdr = PG_DETOAST_DATUM_SLICE(d, 0, GPX_DOCLEN_HEADER);
	if (VARSIZE(hdr) - VARHDRSZ < GPX_DOCLEN_HEADER)
		doclen_report_corrupt(GPX_E_TRUNCATED);
	for (int i = 0; i < DOCLEN_CACHE_ENTRIES; i++)
	{
		DoclenCacheEntry *c = &doclen_cache[i];

		if (c->vl != NULL && c->toastrelid == ptr.va_toastrelid &&
			c->valueid == ptr.va_valueid && c->rawsize == ptr.va_rawsize &&
			memcmp(c->header, VARDATA(hdr), GPX_DOCLEN_HEADER) == 0)
		{
			e = c;
			break;
		}
		if (c->vl == NULL || (victim->vl != NULL && c->last_use < victim->last_use))
			victim = c;
	}
	pfree(hdr);
	if (e == NULL)
	{
		struct varlena *vl;

		if (doclen_cache_cxt == NULL)
			doclen_cache_cxt = AllocSetContextCreate(TopMemoryContext,
													 "gpuidx posting_doclen cache",
													 ALLOCSET_DEFAULT_SIZES);
		/* read first, so that an error leaves the cache as it was */
		old = MemoryContextSwitchTo(doclen_cache_cxt);
		vl = (struct varlena *) PG_DETOAST_DATUM_COPY(d);
		MemoryContextSwitchTo(old);
		if (victim->vl != NULL)
			pfree(victim->vl);
		victim->vl = vl;
		victim->toastrelid = ptr.va_toastrelid;
		victim->valueid = ptr.va_valueid;
		victim->rawsize = ptr.va_rawsize;
		memcpy(victim->header, VARDATA(vl),
			   Min(GPX_DOCLEN_HEADER, VARSIZE(vl) - VARHDRSZ));
		e = victim;
	}
	e->last_use = ++doclen_cache_clock;
	doclen_open_varlena(e->vl, dl);
}
