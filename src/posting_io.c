/*
 * posting_io.c - external forms of the posting types: text input/output
 * ('{1,5,9}'), binary send/receive (the raw blob bytes) and the bytea ->
 * type casts.  Everything that takes bytes from outside validates them.
 */
#include "posting.h"

#include "libpq/pqformat.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "parser/scansup.h"
#include "utils/builtins.h"

/* Longest piece of an input literal quoted back in an error message. */
#define POSTING_QUOTE_MAX 60

/* Most characters one docID takes in text output, with its separator. */
#define POSTING_MAX_DIGITS 11

static void posting_syntax_error(int codec, const char *str,
								 const char *detail) pg_attribute_noreturn();
static void posting_unexpected(int codec, const char *str,
							   const char *p) pg_attribute_noreturn();
static void posting_report_text_too_large(const gpx_list *l)
			pg_attribute_noreturn();

/* Report a malformed literal: errmsg quotes (a prefix of) the input. */
static void
posting_syntax_error(int codec, const char *str, const char *detail)
{
	int			len = strlen(str);
	int			clip = pg_mbcliplen(str, len, POSTING_QUOTE_MAX);

	ereport(ERROR,
			(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
			 errmsg("malformed %s literal: \"%.*s%s\"",
					posting_type_name(codec), clip, str,
					clip < len ? "..." : ""),
			 errdetail_internal("%s", detail)));
}

/* Report the character at p as unexpected (or the end of input). */
static void
posting_unexpected(int codec, const char *str, const char *p)
{
	if (*p == '\0')
		posting_syntax_error(codec, str, "Unexpected end of input.");
	if (*p == '{')
		posting_syntax_error(codec, str,
							 "Posting lists are one-dimensional: nested \"{\" is not allowed.");
	posting_syntax_error(codec, str,
						 psprintf("Unexpected \"%.*s\" character.",
								  pg_mblen(p), p));
}

/* Skip whitespace as array_in does. */
static const char *
posting_skip_space(const char *p)
{
	while (scanner_isspace(*p))
		p++;
	return p;
}

/*
 * Parse one docID (or, is_tf, a term frequency: the same syntax, its own
 * error text) at *pp (optional sign, then digits) and advance past it.
 * Anything else is a syntax error; a value outside [0, 2^31-1] is an
 * out-of-range error.  Both are invalid text representations.
 */
static uint32
posting_parse_docid(int codec, const char *str, const char **pp, bool is_tf)
{
	const char *p = *pp;
	const char *tok = p;
	bool		neg = false;
	uint64		v = 0;
	const char *digits;

	if (*p == '+' || *p == '-')
		neg = (*p++ == '-');
	digits = p;
	while (*p >= '0' && *p <= '9')
	{
		if (v <= GPX_MAX_DOCID)
			v = v * 10 + (*p - '0');
		p++;
	}
	if (p == digits)
	{
		if (p == tok && pg_strncasecmp(p, "null", 4) == 0 &&
			!((p[4] >= 'a' && p[4] <= 'z') || (p[4] >= 'A' && p[4] <= 'Z') ||
			  (p[4] >= '0' && p[4] <= '9') || p[4] == '_'))
			posting_syntax_error(codec, str,
								 "Posting lists cannot contain NULL elements.");
		posting_unexpected(codec, str, p);
	}
	if (v > GPX_MAX_DOCID || (neg && v != 0))
	{
		int			toklen = p - tok;

		posting_syntax_error(codec, str,
							 is_tf ?
							 psprintf("Term frequency %.*s%s is out of range: term frequencies must be between 1 and %u.",
									  Min(toklen, 20), tok,
									  toklen > 20 ? "..." : "",
									  GPX_MAX_DOCID) :
							 psprintf("DocID %.*s%s is out of range: docIDs must be between 0 and %u.",
									  Min(toklen, 20), tok,
									  toklen > 20 ? "..." : "",
									  GPX_MAX_DOCID));
	}
	*pp = p;
	return (uint32) v;
}

/*
 * Text input: '{d1, d2, ...}' in any order, duplicates allowed; or, for a
 * list with term frequencies, '{d1:tf1, d2:tf2, ...}' (every element with
 * one; a repeated docID adds its frequencies).
 */
static Datum
posting_in_common(FunctionCallInfo fcinfo, int codec)
{
	const char *str = PG_GETARG_CSTRING(0);
	const char *p = posting_skip_space(str);
	uint32	   *docs,
			   *tfs = NULL;
	uint32		n = 0,
				cap = 16;
	int			with_tf = -1;	/* unknown until the first element */

	if (*p != '{')
		posting_syntax_error(codec, str,
							 "A posting list literal must start with \"{\".");
	p = posting_skip_space(p + 1);
	docs = (uint32 *) palloc(cap * sizeof(uint32));
	if (*p == '}')
		p++;
	else
	{
		for (;;)
		{
			uint32		v;

			uint32		tf = 1;
			int			has;

			p = posting_skip_space(p);
			v = posting_parse_docid(codec, str, &p, false);
			p = posting_skip_space(p);
			has = *p == ':';
			if (has)
			{
				p = posting_skip_space(p + 1);
				tf = posting_parse_docid(codec, str, &p, true);
				if (tf == 0)
					posting_syntax_error(codec, str,
										 "Term frequencies must be between 1 and 2147483647.");
			}
			if (with_tf < 0)
			{
				with_tf = has;
				if (has)
					tfs = (uint32 *) palloc(cap * sizeof(uint32));
			}
			else if (with_tf != has)
				posting_syntax_error(codec, str,
									 "Either every element or none has a term frequency.");
			if (n == cap)
			{
				if (cap >= POSTING_MAX_ELEMS)
					posting_report_too_many(psprintf("in %s literal",
													 posting_type_name(codec)),
											0);
				cap = (uint32) Min((uint64) cap * 2, (uint64) POSTING_MAX_ELEMS);
				docs = (uint32 *) repalloc(docs, cap * sizeof(uint32));
				if (tfs)
					tfs = (uint32 *) repalloc(tfs, cap * sizeof(uint32));
			}
			if (tfs)
				tfs[n] = tf;
			docs[n++] = v;
			p = posting_skip_space(p);
			if (*p == ',')
				p++;
			else if (*p == '}')
			{
				p++;
				break;
			}
			else
				posting_unexpected(codec, str, p);
		}
	}
	p = posting_skip_space(p);
	if (*p != '\0')
		posting_syntax_error(codec, str, "Junk after closing right brace.");
	if (tfs)
		PG_RETURN_DATUM(posting_build_pairs(codec, docs, tfs, n));
	n = posting_sort_unique(docs, n);
	PG_RETURN_DATUM(posting_build(codec, docs, n));
}

/*
 * Shortest possible text form of n distinct docIDs: the values 0..n-1,
 * with n - 1 commas and the braces.  A lower bound used to refuse lists
 * whose text cannot fit in 1 GB before decoding anything.
 */
static uint64
posting_min_text_len(uint32 n)
{
	uint64		total = 2 + (n > 0 ? n - 1 : 0);
	uint64		left = n;
	uint64		lo = 0,
				hi = 10;
	int			digits = 1;

	while (left > 0)
	{
		uint64		c = Min(left, hi - lo);

		total += c * digits;
		left -= c;
		lo = hi;
		hi *= 10;
		digits++;
	}
	return total;
}

/* Report a list whose text form does not fit in a string. */
static void
posting_report_text_too_large(const gpx_list *l)
{
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("%s value is too large for text output",
					posting_type_name(l->codec)),
			 errdetail("The text form of a list of %u docIDs does not fit in 1 GB.",
					   l->n)));
}

/*
 * Text output: the decoded list as '{d1,d2,...}' (any of the types), or
 * '{d1:tf1,d2:tf2,...}' for a list with term frequencies.
 */
PG_FUNCTION_INFO_V1(posting_out);
Datum
posting_out(PG_FUNCTION_ARGS)
{
	PostingList pl;
	StringInfoData buf;
	uint32		vals[GPX_MAX_BLOCK],
				tfs[GPX_MAX_BLOCK];
	uint32		k;
	bool		has;

	posting_open(PG_GETARG_DATUM(0), &pl);
	if (posting_min_text_len(pl.l.n) >= MaxAllocSize)
		posting_report_text_too_large(&pl.l);
	has = gpx_has_tfs(&pl.l);
	initStringInfo(&buf);
	appendStringInfoChar(&buf, '{');
	for (k = 0; k < pl.l.nblocks; k++)
	{
		uint32		cnt;
		uint32		i;
		uint32		per = has ? 2 * POSTING_MAX_DIGITS : POSTING_MAX_DIGITS;
		char	   *out;

		CHECK_FOR_INTERRUPTS();
		cnt = gpx_decode_block(&pl.l, k, vals);
		if (has)
			(void) gpx_decode_block_tfs(&pl.l, k, tfs);
		if ((Size) buf.len + (Size) cnt * per + 2 >= MaxAllocSize)
			posting_report_text_too_large(&pl.l);
		enlargeStringInfo(&buf, cnt * per + 2);
		out = buf.data + buf.len;
		for (i = 0; i < cnt; i++)
		{
			if (k > 0 || i > 0)
				*out++ = ',';
			out += pg_ultoa_n(vals[i], out);
			if (has)
			{
				*out++ = ':';
				out += pg_ultoa_n(tfs[i], out);
			}
		}
		buf.len = out - buf.data;
		*out = '\0';
	}
	appendStringInfoChar(&buf, '}');
	PG_RETURN_CSTRING(buf.data);
}

/* Binary receive: the raw blob, validated for the type's codec. */
static Datum
posting_recv_common(FunctionCallInfo fcinfo, int codec)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	int			len = buf->len - buf->cursor;
	const char *data = pq_getmsgbytes(buf, len);

	PG_RETURN_POINTER(posting_from_bytes(codec, data, len,
										 ERRCODE_INVALID_BINARY_REPRESENTATION));
}

/* Binary send: the raw blob bytes (any of the types). */
PG_FUNCTION_INFO_V1(posting_send);
Datum
posting_send(PG_FUNCTION_ARGS)
{
	/* a posting value is a bytea holding the blob: copy it as it is */
	PG_RETURN_BYTEA_P((bytea *) PG_DETOAST_DATUM_COPY(PG_GETARG_DATUM(0)));
}

/* bytea -> type cast: validate the bytes as a blob of the type's codec. */
static Datum
posting_from_bytea_common(FunctionCallInfo fcinfo, int codec)
{
	struct varlena *vl = PG_DETOAST_DATUM(PG_GETARG_DATUM(0));

	posting_check_external(codec, vl, ERRCODE_INVALID_BINARY_REPRESENTATION);
	PG_RETURN_POINTER(vl);
}

/* Per-type wrappers: the codec comes from the type. */
#define POSTING_IO_WRAPPERS(name, codec) \
PG_FUNCTION_INFO_V1(posting_##name##_in); \
Datum \
posting_##name##_in(PG_FUNCTION_ARGS) \
{ \
	return posting_in_common(fcinfo, codec); \
} \
PG_FUNCTION_INFO_V1(posting_##name##_recv); \
Datum \
posting_##name##_recv(PG_FUNCTION_ARGS) \
{ \
	return posting_recv_common(fcinfo, codec); \
} \
PG_FUNCTION_INFO_V1(posting_##name##_from_bytea); \
Datum \
posting_##name##_from_bytea(PG_FUNCTION_ARGS) \
{ \
	return posting_from_bytea_common(fcinfo, codec); \
}

POSTING_FOR_EACH_CODEC(POSTING_IO_WRAPPERS)
