/*
 * posting.c - glue shared by the three posting types: opening and peeking
 * at stored values, validating untrusted bytes, building datums and int4[]
 * results, sorting, and the error reports that several entry points share.
 */
#include "posting.h"

#include "access/detoast.h"
#include "catalog/pg_type.h"
#include "miscadmin.h"

/* Specialized, interruptible sort of uint32 values. */
#define ST_SORT posting_sort_u32
#define ST_ELEMENT_TYPE uint32
#define ST_COMPARE(a, b) (*(a) < *(b) ? -1 : *(a) > *(b) ? 1 : 0)
#define ST_CHECK_FOR_INTERRUPTS
#define ST_SCOPE static
#define ST_DECLARE
#define ST_DEFINE
#include "lib/sort_template.h"

/* Check for interrupts every this many blocks in decode loops. */
#define POSTING_INTERRUPT_BLOCKS 1024

/* SQL type name of a codec id. */
const char *
posting_type_name(int codec)
{
	switch (codec)
	{
		case GPX_CODEC_PFOR:
			return "posting_pfor";
		case GPX_CODEC_LRC:
			return "posting_lrc";
		case GPX_CODEC_QS:
			return "posting_qs";
	}
	return "posting list";
}

/* Report a stored (trusted) value that does not parse: data corruption. */
static void
posting_report_corrupt(gpx_status st, const uint8 *blob, Size len)
{
	int			codec = gpx_blob_codec(blob, len);

	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("corrupt %s value", posting_type_name(codec)),
			 errdetail("The stored value failed to parse: %s.",
					   gpx_status_str(st))));
}

/*
 * Open a trusted datum: full detoast (a short-header value is used in
 * place, not copied), then header and bounds checks.
 */
void
posting_open(Datum d, PostingList *pl)
{
	struct varlena *vl = PG_DETOAST_DATUM_PACKED(d);
	const uint8 *blob = (const uint8 *) VARDATA_ANY(vl);
	Size		len = VARSIZE_ANY_EXHDR(vl);
	gpx_status	st;

	st = gpx_open(&pl->l, blob, len);
	if (st != GPX_OK)
		posting_report_corrupt(st, blob, len);
	pl->vl = vl;
}

/*
 * Read the header of a trusted datum.  A value in memory is read in place;
 * one stored out of line or compressed through a slice of its first
 * GPX_PEEK_BYTES bytes, which hold every header (a one-block list keeps
 * its last docID at its end, so it is read whole: it is at most a few
 * hundred bytes).
 */
void
posting_peek(Datum d, gpx_list *l)
{
	struct varlena *raw = (struct varlena *) DatumGetPointer(d);
	struct varlena *s;
	Size		total,
				len;
	gpx_status	st;

	if (!VARATT_IS_EXTERNAL(raw) && !VARATT_IS_COMPRESSED(raw))
	{
		len = VARSIZE_ANY_EXHDR(raw);
		st = gpx_peek_header(l, (const uint8 *) VARDATA_ANY(raw), len, len);
		if (st != GPX_OK)
			posting_report_corrupt(st, (const uint8 *) VARDATA_ANY(raw), len);
		return;
	}
	total = toast_raw_datum_size(d) - VARHDRSZ;
	s = PG_DETOAST_DATUM_SLICE(d, 0, GPX_PEEK_BYTES);
	len = VARSIZE_ANY_EXHDR(s);
	st = gpx_peek_header(l, (const uint8 *) VARDATA_ANY(s), Min(len, total), total);
	if (st == GPX_E_TRUNCATED && len < total)
	{
		pfree(s);
		s = PG_DETOAST_DATUM_PACKED(d);
		len = VARSIZE_ANY_EXHDR(s);
		st = gpx_peek_header(l, (const uint8 *) VARDATA_ANY(s), len, len);
	}
	if (st != GPX_OK)
		posting_report_corrupt(st, (const uint8 *) VARDATA_ANY(s), len);
	/* the copy is freed: leave no pointer into it */
	l->base = NULL;
	l->len = 0;
	pfree(s);
}

/* Blob size of a datum from its varlena / toast pointer header. */
Size
posting_blob_size(Datum d)
{
	return toast_raw_datum_size(d) - VARHDRSZ;
}

/* Validate an untrusted blob held by a varlena; errors name the problem. */
void
posting_check_external(int codec, const struct varlena *vl, int sqlstate)
{
	const uint8 *blob = (const uint8 *) VARDATA_ANY(vl);
	Size		len = VARSIZE_ANY_EXHDR(vl);
	const char *tname = posting_type_name(codec);
	uint32		scratch[GPX_MAX_BLOCK];
	int			version = gpx_blob_version(blob, len);
	int			named = gpx_blob_codec(blob, len);
	gpx_status	st;

	/* a value of another codec: say so before anything else */
	if (((version == GPX_FORMAT_V1 && len >= GPX_V1_HEADER_SIZE) ||
		 version == GPX_FORMAT_VERSION) && named != codec)
	{
		const char *other = gpx_codec_name(named);

		if (other != NULL)
			ereport(ERROR,
					(errcode(sqlstate),
					 errmsg("invalid %s value", tname),
					 errdetail("The value holds a %s list (codec \"%s\"), but type %s requires codec \"%s\".",
							   posting_type_name(named), other,
							   tname, gpx_codec_name(codec))));
		ereport(ERROR,
				(errcode(sqlstate),
				 errmsg("invalid %s value", tname),
				 errdetail("The value names codec %d, which is unknown.",
						   named)));
	}
	st = gpx_validate(blob, len, scratch);
	if (st != GPX_OK)
		ereport(ERROR,
				(errcode(sqlstate),
				 errmsg("invalid %s value", tname),
				 errdetail("The value failed validation: %s.",
						   gpx_status_str(st))));
}

/* Copy untrusted bytes into a new varlena and validate them. */
struct varlena *
posting_from_bytes(int codec, const char *data, Size len, int sqlstate)
{
	struct varlena *vl;

	if (len > MaxAllocSize - VARHDRSZ)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s value is too large", posting_type_name(codec)),
				 errdetail("The value has %zu bytes; at most %zu are allowed.",
						   (size_t) len, (size_t) (MaxAllocSize - VARHDRSZ))));
	vl = (struct varlena *) palloc(VARHDRSZ + len);
	SET_VARSIZE(vl, VARHDRSZ + len);
	memcpy(VARDATA(vl), data, len);
	posting_check_external(codec, vl, sqlstate);
	return vl;
}

/* Report an encoder failure: too large is a user error, the rest are bugs. */
static void
posting_report_encode(gpx_status st, int codec, uint32 n)
{
	if (st == GPX_E_TOOBIG)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s value is too large", posting_type_name(codec)),
				 errdetail("A list of %u docIDs does not fit in one value.", n)));
	elog(ERROR, "gpuidx: encoding %u docIDs as %s failed: %s",
		 n, posting_type_name(codec), gpx_status_str(st));
}

/*
 * The datum of a blob of len bytes an encoder wrote into the data of vl
 * (palloc'd with room for cap): its size set, a large over-estimate given
 * back.
 */
static Datum
posting_finish_blob(struct varlena *vl, size_t cap, size_t len)
{
	if (cap - len > 8192 && cap - len > len / 4)
		vl = (struct varlena *) repalloc(vl, VARHDRSZ + len);
	SET_VARSIZE(vl, VARHDRSZ + len);
	return PointerGetDatum(vl);
}

/* a op b encoded into a new datum as it is merged (posting.h). */
Datum
posting_setop_encode(gpx_setop op, const gpx_list *a, const gpx_list *b, int codec,
					 uint32 *n, gpx_status *st)
{
	size_t		cap = gpx_setop_encode_bound(op, a, b, codec),
				len = 0;
	struct varlena *vl;

	*n = 0;
	*st = GPX_OK;
	if (cap == 0 || cap > MaxAllocSize - VARHDRSZ)
		return (Datum) 0;
	vl = (struct varlena *) palloc(VARHDRSZ + cap);
	*st = gpx_setop_encode(op, a, b, codec, (uint8_t *) VARDATA(vl), cap, &len, n);
	if (*st != GPX_OK)
	{
		pfree(vl);
		return (Datum) 0;
	}
	return posting_finish_blob(vl, cap, len);
}

/* Encode sorted unique docs as a datum of codec. */
Datum
posting_build(int codec, const uint32 *docs, uint32 n)
{
	return posting_build_tf(codec, docs, NULL, n);
}

/*
 * Encode docs[0..n) (sorted, unique) with their term frequencies tfs
 * (each 1 .. 2^31-1; NULL: a list without frequencies) as a new datum.
 */
Datum
posting_build_tf(int codec, const uint32 *docs, const uint32 *tfs, uint32 n)
{
	size_t		bound = tfs ? gpx_encode_bound_tf(codec, n, n ? docs[n - 1] : 0) :
		gpx_encode_bound(codec, n, n ? docs[n - 1] : 0);
	size_t		outlen = 0;
	struct varlena *vl;
	gpx_status	st;

	if (bound == 0)
		elog(ERROR, "gpuidx: unknown codec %d", codec);
	if (bound <= MaxAllocSize - VARHDRSZ)
	{
		vl = (struct varlena *) palloc(VARHDRSZ + bound);
		st = tfs ? gpx_encode_tf(codec, docs, tfs, n, (uint8_t *) VARDATA(vl),
								 bound, &outlen) :
			gpx_encode(codec, docs, n, (uint8_t *) VARDATA(vl), bound, &outlen);
		if (st != GPX_OK)
			posting_report_encode(st, codec, n);
		return posting_finish_blob(vl, bound, outlen);
	}
	else
	{
		/* the bound is above 1 GB; the real size may still fit */
		uint8	   *tmp = MemoryContextAllocHuge(CurrentMemoryContext, bound);

		st = tfs ? gpx_encode_tf(codec, docs, tfs, n, tmp, bound, &outlen) :
			gpx_encode(codec, docs, n, tmp, bound, &outlen);
		if (st != GPX_OK)
			posting_report_encode(st, codec, n);
		if (outlen > MaxAllocSize - VARHDRSZ)
			posting_report_encode(GPX_E_TOOBIG, codec, n);
		vl = (struct varlena *) palloc(VARHDRSZ + outlen);
		memcpy(VARDATA(vl), tmp, outlen);
		pfree(tmp);
	}
	SET_VARSIZE(vl, VARHDRSZ + outlen);
	return PointerGetDatum(vl);
}

/* Sort and deduplicate docs in place; returns the new count. */
uint32
posting_sort_unique(uint32 *docs, uint32 n)
{
	uint32		i,
				j;

	/* already strictly increasing (the common case): nothing to do */
	for (i = 1; i < n; i++)
		if (docs[i] <= docs[i - 1])
			break;
	if (i >= n)
		return n;
	posting_sort_u32(docs, n);
	for (i = 1, j = 1; i < n; i++)
		if (docs[i] != docs[j - 1])
			docs[j++] = docs[i];
	return j;
}

/* A negative int4 docID. */
void
posting_report_negative(int32 v)
{
	ereport(ERROR,
			(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
			 errmsg("docID %d is out of range", v),
			 errdetail("DocIDs must be between 0 and %u.", GPX_MAX_DOCID)));
}

/* More docIDs than an in-memory path may hold. */
void
posting_report_too_many(const char *context, uint64 n)
{
	if (n > 0)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("too many docIDs %s", context),
				 errdetail("The list has " UINT64_FORMAT " docIDs, but at most %u can be held in memory at once.",
						   n, POSTING_MAX_ELEMS)));
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("too many docIDs %s", context),
			 errdetail("At most %u docIDs can be held in memory at once.",
					   POSTING_MAX_ELEMS)));
}

/* A one-dimensional int4[] of n elements, its data left to the caller. */
ArrayType *
posting_array_alloc(uint32 n)
{
	ArrayType  *r;
	Size		nbytes;

	if (n == 0)
		return construct_empty_array(INT4OID);
	if (n > POSTING_MAX_ELEMS)
		posting_report_too_many("for an integer[]", n);
	nbytes = ARR_OVERHEAD_NONULLS(1) + (Size) n * sizeof(int32);
	r = (ArrayType *) palloc(nbytes);
	memset(r, 0, ARR_OVERHEAD_NONULLS(1));
	SET_VARSIZE(r, nbytes);
	r->ndim = 1;
	r->dataoffset = 0;
	r->elemtype = INT4OID;
	ARR_DIMS(r)[0] = (int) n;
	ARR_LBOUND(r)[0] = 1;
	return r;
}

/* An array from posting_array_alloc cut to its first n elements. */
ArrayType *
posting_array_truncate(ArrayType *r, uint32 n)
{
	uint32		cap = ARR_NDIM(r) == 0 ? 0 : (uint32) ARR_DIMS(r)[0];
	Size		nbytes = ARR_OVERHEAD_NONULLS(1) + (Size) n * sizeof(int32);

	Assert(n <= cap);
	if (n == cap)
		return r;
	if (n == 0)
	{
		pfree(r);
		return construct_empty_array(INT4OID);
	}
	/* give back a large over-estimate (e.g. two long lists, few matches) */
	if ((Size) (cap - n) * sizeof(int32) > 8192 && cap - n > n / 4)
		r = (ArrayType *) repalloc(r, nbytes);
	SET_VARSIZE(r, nbytes);
	ARR_DIMS(r)[0] = (int) n;
	return r;
}

/* An int4[] holding docs[0..n). */
ArrayType *
posting_array_from(const uint32 *docs, uint32 n)
{
	ArrayType  *r = posting_array_alloc(n);

	memcpy(ARR_DATA_PTR(r), docs, (Size) n * sizeof(int32));
	return r;
}

/*
 * Decode a whole list into out[0..n), block by block and interruptible.
 * Blocks that end within GPX_MAX_BLOCK slots of the end go through a
 * scratch buffer, so a codec that fills all GPX_MAX_BLOCK slots of its
 * output can never write past out[n - 1].
 */
void
posting_decode_into(const gpx_list *l, uint32 *out)
{
	uint32		scratch[GPX_MAX_BLOCK];
	uint64		pos = 0;
	uint32		k;

	for (k = 0; k < l->nblocks; k++)
	{
		uint32		cnt;

		if (k % POSTING_INTERRUPT_BLOCKS == 0)
			CHECK_FOR_INTERRUPTS();
		if (pos + GPX_MAX_BLOCK <= l->n)
			cnt = gpx_decode_block(l, k, out + pos);
		else
		{
			cnt = gpx_decode_block(l, k, scratch);
			if (cnt > l->n - pos)
				elog(ERROR, "gpuidx: block %u decoded to too many docIDs", k);
			memcpy(out + pos, scratch, cnt * sizeof(uint32));
		}
		pos += cnt;
	}
	if (pos != l->n)
		elog(ERROR, "gpuidx: list decoded to " UINT64_FORMAT " docIDs, expected %u",
			 pos, l->n);
}

/* Decode a whole list into a new palloc'd array. */
uint32 *
posting_decode_all(const PostingList *pl, const char *context)
{
	uint32	   *out;

	if (pl->l.n > POSTING_MAX_ELEMS)
		posting_report_too_many(context, pl->l.n);
	out = (uint32 *) palloc(Max(pl->l.n, 1) * sizeof(uint32));
	posting_decode_into(&pl->l, out);
	return out;
}
