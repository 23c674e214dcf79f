/*
 * gpx_encode.c - encoding: the size bounds, the dispatch by format
 * version, and the version 2 writer (gpx_codec.h), which picks every
 * block's form by size: the codec's own packed form (pfor, lrc), Elias-
 * Fano (gpx_ef.c) or a bitmap (gpx_bitmap.c).  Version 1 blobs are
 * written by the codecs' own encoders (gpx_pfor.c, gpx_lrc.c, gpx_qs.c).
 */
#include "gpx_internal.h"
#include "gpx_simple8b.h"

static gpx_status encode_any(int codec, const uint32_t *docs,
							 const uint32_t *tfs, uint32_t n,
							 const gpx_encode_opts *opts, uint8_t *out,
							 size_t cap, size_t *outlen);

/* Bytes a version 2 header takes at most (tag, info, n, first, last). */
#define ENC_HDR_MAX		(2 + 3 * GPX_VARINT_MAX)
/* Slack after the last byte: gpx_put_bits writes whole words. */
#define ENC_SLACK		8

/* The format version and block kinds an options struct asks for. */
static void
enc_opts(int codec, const gpx_encode_opts *o, int *version, unsigned *kinds)
{
	*version = (o && o->version) ? o->version : GPX_FORMAT_VERSION;

	/*
	 * The default: bitmaps where they are smaller, else the codec's own
	 * form (Elias-Fano for qs): pfor and lrc lists keep their codec, its
	 * speed and its GPU path in every block of a directory; one-block
	 * lists, which have no own form, are Elias-Fano (encode_v2).
	 */
	*kinds = (o && o->kinds) ? o->kinds :
		(1u << GPX_KIND_BITMAP) |
		(codec == GPX_CODEC_QS ? 1u << GPX_KIND_EF : 1u << GPX_KIND_OWN);
	if (codec == GPX_CODEC_QS)
		*kinds &= ~(1u << GPX_KIND_OWN);	/* qs's own form is EF */
	if ((*kinds & ((1u << GPX_KIND_EF) | (1u << GPX_KIND_BITMAP) |
				   (1u << GPX_KIND_OWN))) == 0)
		*kinds = 1u << GPX_KIND_EF;
}

/*
 * The kinds a one-block list may take: Elias-Fano or bitmap, Elias-Fano
 * standing in for the codec's own form (one-block lists have none).
 */
static unsigned
enc_one_block_kinds(unsigned kinds)
{
	unsigned	k1 = kinds & ((1u << GPX_KIND_EF) | (1u << GPX_KIND_BITMAP));

	if (kinds & (1u << GPX_KIND_OWN))
		k1 |= 1u << GPX_KIND_EF;
	return k1 ? k1 : 1u << GPX_KIND_EF;
}

/*
 * Upper bound of the payload of n docIDs ending at last in blocks of a
 * directory list, from any starting byte, with the final padding to a
 * word and the writer's slack.  Every block is at most as large as one
 * allowed kind: Elias-Fano with b = w = bitwidth(last) takes <= 5 +
 * m (w + 1) bits, the own forms <= their v1 sizes (b or the deviation
 * width <= w), a bitmap <= its span; plus padding to words per block.
 */
static uint64_t
bound_v2_payload(int codec, uint32_t n, uint32_t last, unsigned kinds)
{
	uint64_t	nb = gpx_nblocks_for(n, gpx_ops(codec)->log2_block);
	uint64_t	w = gpx_bitwidth(last);

	if (kinds & ((1u << GPX_KIND_EF) | (1u << GPX_KIND_OWN)))
		return ((uint64_t) n * (w + 1) + 7) / 8 + nb * 24 + ENC_SLACK;
	return ((uint64_t) last + 7) / 8 + nb * 12 + ENC_SLACK;
}

/* Upper bound of a v2 blob: header, directory, payload. */
static size_t
bound_v2(int codec, uint32_t n, uint32_t last, unsigned kinds)
{
	uint32_t	lg = gpx_ops(codec)->log2_block;
	uint64_t	nb = gpx_nblocks_for(n, lg);

	if (n == 0)
		return 2;
	if (n <= (1u << lg))
		kinds = enc_one_block_kinds(kinds);
	return (size_t) (ENC_HDR_MAX + 4 + nb * GPX_DIR_ENTRY_SIZE +
					 bound_v2_payload(codec, n, last, kinds));
}

/*
 * What a tf section adds to a v2 blob at most: two header varints, the
 * padding before the section, 8 directory bytes per block and the
 * Simple-8b words (at most one per value).
 */
static size_t
bound_tf(int codec, uint32_t n)
{
	uint64_t	nb = gpx_nblocks_for(n, gpx_ops(codec)->log2_block);

	return (size_t) (2 * GPX_VARINT_MAX + 4 + nb * 8 + gpx_s8b_encode_bound(n));
}

/* Upper bound on the blob size in the current format. */
size_t
gpx_encode_bound(int codec, uint32_t n, uint32_t last)
{
	return gpx_encode_bound_ex(codec, n, last, NULL);
}

/* Upper bound on the blob size for these options (0: unknown codec). */
size_t
gpx_encode_bound_ex(int codec, uint32_t n, uint32_t last,
					const gpx_encode_opts *opts)
{
	const gpx_codec_ops *ops = gpx_ops(codec);
	int			version;
	unsigned	kinds;

	if (ops == NULL)
		return 0;
	enc_opts(codec, opts, &version, &kinds);
	if (version == GPX_FORMAT_V1)
		return n == 0 ? GPX_V1_HEADER_SIZE : ops->encode_bound(n, last);
	if (version != 2)
		return 0;
	return bound_v2(codec, n, last, kinds);
}

/* Upper bound on the size of gpx_encode_tf_ex's blob (0: not encodable). */
size_t
gpx_encode_bound_tf_ex(int codec, uint32_t n, uint32_t last,
					   const gpx_encode_opts *opts)
{
	size_t		b = gpx_encode_bound_ex(codec, n, last, opts);
	int			version;
	unsigned	kinds;

	if (b == 0)
		return 0;
	enc_opts(codec, opts, &version, &kinds);
	if (version != 2)
		return 0;
	return n == 0 ? b : b + bound_tf(codec, n);
}

/* Upper bound on the size of gpx_encode_tf's blob. */
size_t
gpx_encode_bound_tf(int codec, uint32_t n, uint32_t last)
{
	return gpx_encode_bound_tf_ex(codec, n, last, NULL);
}

/*
 * The smallest allowed form of block d[0..cnt) starting at byte `off` of
 * the payload (own forms need a word boundary: their padding counts);
 * sets *kind and the form's plan; returns the bytes it takes from off.
 */
static uint64_t
enc_choose(int codec, const uint32_t *d, uint32_t cnt, uint64_t off,
		   unsigned kinds, bool one_block, uint32_t *kind, uint32_t *pfor_hdr,
		   gpx_lrc_plan *lrc, uint32_t *ef_b)
{
	uint64_t	best = UINT64_MAX;

	if (!one_block && (kinds & (1u << GPX_KIND_OWN)))
	{
		uint64_t	pad = (4 - (off & 3)) & 3,
					bytes;

		if (codec == GPX_CODEC_PFOR)
			bytes = 4 * gpx_pfor_blk_plan(d, cnt, pfor_hdr);
		else
		{
			gpx_lrc_blk_plan(d, cnt, lrc);
			bytes = 4 * lrc->words;
		}
		best = pad + bytes;
		*kind = GPX_KIND_OWN;
	}
	if (kinds & (1u << GPX_KIND_EF))
	{
		uint64_t	bytes = (gpx_ef_blk_plan(d, cnt, ef_b) + 7) / 8;

		if (bytes < best)
		{
			best = bytes;
			*kind = GPX_KIND_EF;
		}
	}
	if (kinds & (1u << GPX_KIND_BITMAP))
	{
		uint64_t	bits = gpx_bm_blk_plan(d, cnt);
		uint64_t	bytes = (bits + 7) / 8;

		/*
		 * Against the codec's own form a bitmap must also be dense enough:
		 * its docIDs span at most twice their count.  Sparser, a PFor or
		 * LRC block decodes faster than the bitmap's words (measured: an
		 * LRC segment 1.4x at density 0.3, the bitmap faster from 0.5).
		 */
		if (bytes < best &&
			(best == UINT64_MAX || *kind != GPX_KIND_OWN || bits <= 2 * (uint64_t) cnt))
		{
			best = bytes;
			*kind = GPX_KIND_BITMAP;
		}
	}
	return best;
}

/* Write block d[0..cnt) of a chosen kind at byte off of the zeroed payload. */
static void
enc_write(int codec, uint8_t *payload, uint64_t off, const uint32_t *d,
		  uint32_t cnt, uint32_t kind, uint32_t pfor_hdr,
		  const gpx_lrc_plan *lrc, uint32_t ef_b)
{
	if (kind == GPX_KIND_OWN)
	{
		if (codec == GPX_CODEC_PFOR)
			gpx_pfor_blk_write(payload, off / 4, d, cnt, pfor_hdr);
		else
			gpx_lrc_blk_write(payload, off / 4, d, cnt, lrc);
	}
	else if (kind == GPX_KIND_EF)
		gpx_ef_blk_write(payload, off * 8, d, cnt, ef_b);
	else
		gpx_bm_blk_write(payload, off * 8, d, cnt);
}

/*
 * Write the header of a v2 list with a directory (n docIDs from first to
 * last) at out, and zero bytes up to the directory's offset (the header
 * rounded up to a word), which it returns.
 */
size_t
gpx_enc_v2_dir_header(uint8_t *out, int codec, uint32_t n, uint32_t first,
					  uint32_t last)
{
	size_t		pos = 0;

	out[pos++] = (uint8_t) (GPX_TAG_V2 | ((unsigned) codec << 5));
	pos += gpx_varint_put(out + pos, GPX_SHAPE_BLOCKS);
	pos += gpx_varint_put(out + pos, n);
	pos += gpx_varint_put(out + pos, first);
	pos += gpx_varint_put(out + pos, last - first);
	while (pos & 3)
		out[pos++] = 0;
	return pos;
}

/* Bytes the payload is zeroed ahead of the block being written, at least. */
#define ENC_ZERO_AHEAD	4096

/*
 * One block d[0..cnt) of a directory list at payload byte *o (the
 * payload zeroed over [.., *z), extended here as the block needs, never
 * past room): its form chosen by size among kinds, its entry's first 8
 * bytes written at e; *o moves past it (unpadded).
 */
static gpx_status
enc_v2_block(int codec, const uint32_t *d, uint32_t cnt, unsigned kinds,
			 uint8_t *e, uint8_t *payload, size_t room, uint64_t *o,
			 uint64_t *z)
{
	uint32_t	kind = 0,
				pfor_hdr = 0,
				ef_b = 0;
	gpx_lrc_plan lrc;
	uint64_t	at = *o,
				bytes;

	memset(&lrc, 0, sizeof(lrc));
	bytes = enc_choose(codec, d, cnt, at, kinds, false, &kind, &pfor_hdr,
					   &lrc, &ef_b);
	if (kind == GPX_KIND_OWN)
	{
		uint64_t	pad = (4 - (at & 3)) & 3;

		at += pad;
		bytes -= pad;
	}
	if (at + bytes + 3 >= ((uint64_t) 1 << 30))
		return GPX_E_TOOBIG;
	if (at + bytes + ENC_SLACK > room)
		return GPX_E_NOSPACE;
	if (at + bytes + ENC_SLACK > *z)
	{
		uint64_t	nz = at + bytes + ENC_SLACK;

		nz = nz < *z + ENC_ZERO_AHEAD ? *z + ENC_ZERO_AHEAD : nz;
		nz = nz > room ? room : nz;
		memset(payload + *z, 0, (size_t) (nz - *z));
		*z = nz;
	}
	gpx_store32(e, d[0]);
	gpx_store32(e + 4, (uint32_t) (at << 2) | kind);
	enc_write(codec, payload, at, d, cnt, kind, pfor_hdr, &lrc, ef_b);
	*o = at + bytes;
	return GPX_OK;
}

/*
 * Blocks k0, k0 + 1, ... of a directory list: docs[0..n) are the docIDs
 * from block k0's first on (block k0 starts at byte *off of the payload);
 * each block's form chosen by size among kinds, its entry's first 8 bytes
 * written at dir (entry 0 of the list, entries of stride bytes).  room:
 * payload bytes writable.  The payload is zeroed from *off on as the
 * blocks reach it (a few kB ahead, never past room), so that only the
 * memory the blob takes is touched, not the whole bound.  On success *off
 * is the payload's end, padded to a word, with ENC_SLACK zero bytes after
 * the last block.
 */
static gpx_status
enc_v2_blocks(int codec, const uint32_t *docs, uint32_t n, uint32_t k0,
			  unsigned kinds, uint8_t *dir, size_t stride, uint8_t *payload,
			  size_t room, uint64_t *off)
{
	uint32_t	lg = gpx_ops(codec)->log2_block;
	uint32_t	bs = 1u << lg;
	uint32_t	nb = gpx_nblocks_for(n, lg);
	uint64_t	o = *off,
				z = o;			/* payload zeroed over [*off, z) */

	for (uint32_t k = 0; k < nb; k++)
	{
		gpx_status	st = enc_v2_block(codec, docs + ((size_t) k << lg),
									  k + 1 < nb ? bs : n - (k << lg), kinds,
									  dir + (size_t) (k0 + k) * stride,
									  payload, room, &o, &z);

		if (st != GPX_OK)
			return st;
	}
	*off = (o + 3) & ~(uint64_t) 3;
	return GPX_OK;
}

/* Encode docs[0..n) (checked, n >= 1) as a v2 blob into out (any contents). */
static gpx_status
encode_v2(int codec, const uint32_t *docs, uint32_t n, unsigned kinds,
		  uint8_t *out, size_t cap, size_t *outlen)
{
	uint32_t	lg = gpx_ops(codec)->log2_block;
	uint32_t	bs = 1u << lg;
	uint8_t		tag = (uint8_t) (GPX_TAG_V2 | ((unsigned) codec << 5));
	size_t		pos = 0;
	uint32_t	kind = 0,
				pfor_hdr = 0,
				ef_b = 0;
	gpx_lrc_plan lrc;
	uint64_t	bytes;

	memset(&lrc, 0, sizeof(lrc));
	if (n <= bs)
	{
		/* one block, Elias-Fano or bitmap, no directory, no padding */
		bytes = enc_choose(codec, docs, n, 0, enc_one_block_kinds(kinds),
						   true, &kind, &pfor_hdr, &lrc, &ef_b);
		if (n == 1)
			kind = GPX_KIND_EF;
		if (n <= GPX_SMALL_MAX)
			out[pos++] = (uint8_t) (tag | (kind << 4) | n);
		else
		{
			out[pos++] = tag;
			pos += gpx_varint_put(out + pos, GPX_SHAPE_ONE | (kind << 2));
			pos += gpx_varint_put(out + pos, n);
		}
		pos += gpx_varint_put(out + pos, docs[0]);
		if (pos + bytes + ENC_SLACK > cap)
			return GPX_E_NOSPACE;
		memset(out + pos, 0, (size_t) bytes + ENC_SLACK);
		enc_write(codec, out + pos, 0, docs, n, kind, pfor_hdr, &lrc, ef_b);
		*outlen = pos + bytes;
		return GPX_OK;
	}
	else
	{
		uint32_t	nb = gpx_nblocks_for(n, lg);
		size_t		dir_off = gpx_enc_v2_dir_header(out, codec, n, docs[0],
													docs[n - 1]);
		uint8_t    *dir = out + dir_off,
				   *payload = dir + (size_t) nb * GPX_DIR_ENTRY_SIZE;
		uint64_t	off = 0;
		gpx_status	st;

		if ((size_t) (payload - out) > cap)
			return GPX_E_NOSPACE;
		st = enc_v2_blocks(codec, docs, n, 0, kinds, dir, GPX_DIR_ENTRY_SIZE,
						   payload, cap - (size_t) (payload - out), &off);
		if (st != GPX_OK)
			return st;
		*outlen = (size_t) (payload - out) + (size_t) off;
		return GPX_OK;
	}
}

/*
 * The tf section of tfs[0..n) (checked) in blocks of 1 << lg, written at
 * out[0..cap) when out is not NULL (else only sized); with a directory
 * (dir not NULL, entries of stride bytes) each block's offset and largest
 * tf go to its entry's bytes 8..15.  *bytes gets the section's size,
 * *max the list's largest tf.
 */
static gpx_status
enc_tf_section(const uint32_t *tfs, uint32_t n, uint32_t lg, uint8_t *dir,
			   size_t stride, uint8_t *out, size_t cap, uint64_t *bytes,
			   uint32_t *max)
{
	uint8_t		tmp[GPX_MAX_BLOCK * GPX_S8B_WORD_BYTES];
	uint32_t	nb = gpx_nblocks_for(n, lg);
	uint64_t	o = 0;

	*max = 0;
	for (uint32_t k = 0; k < nb; k++)
	{
		const uint32_t *t = tfs + ((size_t) k << lg);
		uint32_t	cnt = k + 1 < nb ? 1u << lg : n - (k << lg);
		uint32_t	bmax = 0;
		size_t		len;
		gpx_status	st;

		st = gpx_s8b_encode_block(t, cnt, GPX_S8B_TF_BASE,
								  GPX_S8B_DEFAULT_PACKING, tmp, sizeof(tmp), &len);
		if (st != GPX_OK)
			return st;
		for (uint32_t i = 0; i < cnt; i++)
			if (t[i] > bmax)
				bmax = t[i];
		if (out != NULL)
		{
			if (o + len > cap)
				return GPX_E_NOSPACE;
			memcpy(out + o, tmp, len);
		}
		if (dir != NULL)
		{
			gpx_store32(dir + (size_t) k * stride + 8, (uint32_t) o);
			gpx_store32(dir + (size_t) k * stride + 12, bmax);
		}
		if (bmax > *max)
			*max = bmax;
		o += len;
		if (o > UINT32_MAX - 8)
			return GPX_E_TOOBIG;
	}
	*bytes = o;
	return GPX_OK;
}

/*
 * Encode docs[0..n) (checked, n >= 1) with their frequencies tfs (each
 * 1 .. 2^31-1, checked here) as a v2 blob with a tf section into
 * out[0..cap) (any contents): always the extended header (shape 1 or 2).
 */
static gpx_status
encode_v2_tf(int codec, const uint32_t *docs, const uint32_t *tfs, uint32_t n,
			 unsigned kinds, uint8_t *out, size_t cap, size_t *outlen)
{
	uint32_t	lg = gpx_ops(codec)->log2_block;
	uint8_t		tag = (uint8_t) (GPX_TAG_V2 | ((unsigned) codec << 5));
	uint64_t	t;
	uint32_t	tmax;
	size_t		pos = 0;
	gpx_status	st;

	for (uint32_t i = 0; i < n; i++)
		if (tfs[i] < 1 || tfs[i] > GPX_S8B_MAX_VALUE)
			return GPX_E_RANGE;
	/* size the section first: the header holds its length */
	st = enc_tf_section(tfs, n, lg, NULL, 0, NULL, 0, &t, &tmax);
	if (st != GPX_OK)
		return st;
	if (n <= (1u << lg))
	{
		uint32_t	kind = 0,
					pfor_hdr = 0,
					ef_b = 0;
		gpx_lrc_plan lrc;
		uint64_t	bytes;

		memset(&lrc, 0, sizeof(lrc));
		bytes = enc_choose(codec, docs, n, 0, enc_one_block_kinds(kinds),
						   true, &kind, &pfor_hdr, &lrc, &ef_b);
		if (n == 1)
		{
			kind = GPX_KIND_EF;
			bytes = 0;
		}
		out[pos++] = tag;
		pos += gpx_varint_put(out + pos, GPX_SHAPE_ONE | (kind << 2) | GPX_F_TF);
		pos += gpx_varint_put(out + pos, n);
		pos += gpx_varint_put(out + pos, docs[0]);
		pos += gpx_varint_put(out + pos, (uint32_t) t);
		pos += gpx_varint_put(out + pos, tmax);
		if (pos + bytes + ENC_SLACK > cap)
			return GPX_E_NOSPACE;
		memset(out + pos, 0, (size_t) bytes + ENC_SLACK);
		enc_write(codec, out + pos, 0, docs, n, kind, pfor_hdr, &lrc, ef_b);
		/* the slack the block writer may have dirtied is zero again */
		pos += bytes;
		memset(out + pos, 0, ENC_SLACK);
		pos = (pos + 3) & ~(size_t) 3;
		if (pos + t > cap)
			return GPX_E_NOSPACE;
		st = enc_tf_section(tfs, n, lg, NULL, 0, out + pos, cap - pos, &t, &tmax);
		if (st != GPX_OK)
			return st;
		*outlen = pos + t;
		return GPX_OK;
	}
	else
	{
		uint32_t	nb = gpx_nblocks_for(n, lg);
		size_t		stride = GPX_DIR_ENTRY_SIZE + 8;
		uint8_t    *dir,
				   *payload;
		uint64_t	off = 0;

		out[pos++] = tag;
		pos += gpx_varint_put(out + pos, GPX_SHAPE_BLOCKS | GPX_F_TF | GPX_F_DIREXTRA);
		pos += gpx_varint_put(out + pos, n);
		pos += gpx_varint_put(out + pos, docs[0]);
		pos += gpx_varint_put(out + pos, docs[n - 1] - docs[0]);
		pos += gpx_varint_put(out + pos, 8);
		pos += gpx_varint_put(out + pos, (uint32_t) t);
		while (pos & 3)
			out[pos++] = 0;
		dir = out + pos;
		payload = dir + (size_t) nb * stride;
		if ((size_t) (payload - out) > cap)
			return GPX_E_NOSPACE;
		st = enc_v2_blocks(codec, docs, n, 0, kinds, dir, stride, payload,
						   cap - (size_t) (payload - out), &off);
		if (st != GPX_OK)
			return st;
		pos = (size_t) (payload - out) + (size_t) off;
		/* enc_v2_blocks leaves its slack zero: a word pad, zeroed memory */
		if (pos + t > cap)
			return GPX_E_NOSPACE;
		st = enc_tf_section(tfs, n, lg, dir, stride, out + pos, cap - pos, &t, &tmax);
		if (st != GPX_OK)
			return st;
		*outlen = pos + t;
		return GPX_OK;
	}
}

/* Encode docIDs with their term frequencies, current format. */
gpx_status
gpx_encode_tf(int codec, const uint32_t *docs, const uint32_t *tfs,
			  uint32_t n, uint8_t *out, size_t cap, size_t *outlen)
{
	return gpx_encode_tf_ex(codec, docs, tfs, n, NULL, out, cap, outlen);
}

/* Encode docIDs with their term frequencies, with options. */
gpx_status
gpx_encode_tf_ex(int codec, const uint32_t *docs, const uint32_t *tfs,
				 uint32_t n, const gpx_encode_opts *opts, uint8_t *out,
				 size_t cap, size_t *outlen)
{
	if (n > 0 && tfs == NULL)
		return GPX_E_ARG;
	return encode_any(codec, docs, tfs, n, opts, out, cap, outlen);
}

/* Payload bytes (with slack) gpx_enc_v2_tail may use from its start. */
uint64_t
gpx_enc_v2_tail_bound(int codec, uint32_t n, uint32_t last)
{
	unsigned	kinds;
	int			version;

	enc_opts(codec, NULL, &version, &kinds);
	return bound_v2_payload(codec, n, last, kinds) + 4;
}

/*
 * The default encoder's blocks k0, ... of a directory list (see
 * enc_v2_blocks): what gpx_encode writes for them when the blocks before
 * end at byte *off.
 */
gpx_status
gpx_enc_v2_tail(int codec, const uint32_t *docs, uint32_t n, uint32_t k0,
				uint8_t *dir, uint8_t *payload, size_t room, uint64_t *off)
{
	unsigned	kinds;
	int			version;

	enc_opts(codec, NULL, &version, &kinds);
	return enc_v2_blocks(codec, docs, n, k0, kinds, dir, GPX_DIR_ENTRY_SIZE,
						 payload, room, off);
}

/* ------------------------------------------------- incremental encoding */

/* Where the directory goes while the header's size is unknown. */
#define ENC_STREAM_DIR	((ENC_HDR_MAX + 3) & ~3)

/* Bytes of out an incremental encode of at most nmax docIDs may need. */
size_t
gpx_encstream_bound(int codec, uint32_t nmax, uint32_t lastmax)
{
	const gpx_codec_ops *ops = gpx_ops(codec);
	int			version;
	unsigned	kinds;
	uint64_t	b;

	if (ops == NULL)
		return 0;
	enc_opts(codec, NULL, &version, &kinds);
	b = ENC_STREAM_DIR + (uint64_t) gpx_nblocks_for(nmax, ops->log2_block) *
		GPX_DIR_ENTRY_SIZE + bound_v2_payload(codec, nmax, lastmax, kinds);
	return b > SIZE_MAX ? SIZE_MAX : (size_t) b;
}

/* Start an incremental encode into out[0..cap). */
gpx_status
gpx_encstream_init(gpx_encstream *s, int codec, uint32_t nmax,
				   uint32_t lastmax, uint8_t *out, size_t cap)
{
	const gpx_codec_ops *ops = gpx_ops(codec);
	int			version;

	if (s == NULL)
		return GPX_E_ARG;
	memset(s, 0, offsetof(gpx_encstream, pend));
	s->st = GPX_E_ARG;
	if (ops == NULL)
		return s->st = GPX_E_CODEC;
	if (out == NULL || nmax > GPX_MAX_N || lastmax > GPX_MAX_DOCID)
		return GPX_E_ARG;
	if (cap < gpx_encstream_bound(codec, nmax, lastmax))
		return s->st = GPX_E_NOSPACE;
	s->codec = codec;
	enc_opts(codec, NULL, &version, &s->kinds);
	s->lg = ops->log2_block;
	s->out = out;
	s->cap = cap;
	s->nmax = nmax;
	s->nbmax = gpx_nblocks_for(nmax, s->lg);
	s->dir_off = ENC_STREAM_DIR;
	return s->st = GPX_OK;
}

/* Encode d[0..cnt) as the next block of the directory list. */
static void
encstream_block(gpx_encstream *s, const uint32_t *d, uint32_t cnt)
{
	uint8_t    *payload = s->out + s->dir_off +
		(size_t) s->nbmax * GPX_DIR_ENTRY_SIZE;

	s->st = enc_v2_block(s->codec, d, cnt, s->kinds,
						 s->out + s->dir_off + (size_t) s->nb * GPX_DIR_ENTRY_SIZE,
						 payload, s->cap - (size_t) (payload - s->out),
						 &s->off, &s->zeroed);
	s->nb++;
}

/*
 * The next docs[0..m).  A block is written only once a docID beyond it
 * has come (a list of at most one block has another layout): a full
 * block waits in pend until then, and so do the docIDs of a partial one.
 */
gpx_status
gpx_encstream_push(gpx_encstream *s, const uint32_t *docs, uint32_t m)
{
	uint32_t	bs;
	gpx_status	st;

	if (s->st != GPX_OK || m == 0)
		return s->st;
	if (docs == NULL)
		return s->st = GPX_E_ARG;
	st = gpx_check_sorted(docs, m);
	if (st == GPX_OK && s->n > 0 && docs[0] <= s->last)
		st = GPX_E_UNSORTED;
	if (st == GPX_OK && (uint64_t) s->n + m > s->nmax)
		st = GPX_E_NOSPACE;
	if (st != GPX_OK)
		return s->st = st;
	if (s->n == 0)
		s->first = docs[0];
	s->n += m;
	s->last = docs[m - 1];
	bs = 1u << s->lg;
	while (m > 0 && s->st == GPX_OK)
	{
		uint32_t	take;

		if (s->npend == bs)
		{
			encstream_block(s, s->pend, bs);
			s->npend = 0;
		}
		/* whole blocks straight from docs while more follow them */
		while (s->npend == 0 && m > bs && s->st == GPX_OK)
		{
			encstream_block(s, docs, bs);
			docs += bs;
			m -= bs;
		}
		take = bs - s->npend < m ? bs - s->npend : m;
		memcpy(s->pend + s->npend, docs, (size_t) take * sizeof(uint32_t));
		s->npend += take;
		docs += take;
		m -= take;
	}
	return s->st;
}

/*
 * The last block, then the header for the docIDs given, the directory and
 * the payload moved up behind it: out[0..*outlen) is gpx_encode's blob.
 */
gpx_status
gpx_encstream_finish(gpx_encstream *s, size_t *outlen)
{
	uint8_t		hdr[ENC_STREAM_DIR];
	uint8_t    *payload;
	size_t		h,
				dirb;
	uint64_t	pend;

	if (outlen == NULL)
		return GPX_E_ARG;
	if (s->st != GPX_OK)
		return s->st;
	if (s->n == 0)
	{
		s->out[0] = (uint8_t) (GPX_TAG_V2 | ((unsigned) s->codec << 5));
		s->out[1] = GPX_SHAPE_EMPTY;
		*outlen = 2;
		return GPX_OK;
	}
	if (s->nb == 0)				/* one block: the layout without a directory */
		return s->st = encode_v2(s->codec, s->pend, s->n, s->kinds, s->out,
								 s->cap, outlen);
	if (s->npend > 0)
		encstream_block(s, s->pend, s->npend);
	if (s->st != GPX_OK)
		return s->st;
	payload = s->out + s->dir_off + (size_t) s->nbmax * GPX_DIR_ENTRY_SIZE;
	pend = (s->off + 3) & ~(uint64_t) 3;
	h = gpx_enc_v2_dir_header(hdr, s->codec, s->n, s->first, s->last);
	dirb = (size_t) s->nb * GPX_DIR_ENTRY_SIZE;
	memmove(s->out + h, s->out + s->dir_off, dirb);
	memmove(s->out + h + dirb, payload, (size_t) pend);
	memcpy(s->out, hdr, h);
	*outlen = h + dirb + (size_t) pend;
	return GPX_OK;
}

/* Encode docs with a codec into out[0..cap), current format. */
gpx_status
gpx_encode(int codec, const uint32_t *docs, uint32_t n,
		   uint8_t *out, size_t cap, size_t *outlen)
{
	return gpx_encode_ex(codec, docs, n, NULL, out, cap, outlen);
}

/* Encode with options: format version, allowed block kinds. */
gpx_status
gpx_encode_ex(int codec, const uint32_t *docs, uint32_t n,
			  const gpx_encode_opts *opts, uint8_t *out, size_t cap,
			  size_t *outlen)
{
	return encode_any(codec, docs, NULL, n, opts, out, cap, outlen);
}

/* Encode docs (and tfs, when not NULL) with options into out[0..cap). */
static gpx_status
encode_any(int codec, const uint32_t *docs, const uint32_t *tfs, uint32_t n,
		   const gpx_encode_opts *opts, uint8_t *out, size_t cap,
		   size_t *outlen)
{
	const gpx_codec_ops *ops = gpx_ops(codec);
	gpx_status	st;
	size_t		bound;
	int			version;
	unsigned	kinds;

	if (ops == NULL)
		return GPX_E_CODEC;
	if (out == NULL || outlen == NULL || (n > 0 && docs == NULL))
		return GPX_E_ARG;
	enc_opts(codec, opts, &version, &kinds);
	if (version != GPX_FORMAT_V1 && version != 2)
		return GPX_E_VERSION;
	if (tfs != NULL && version == GPX_FORMAT_V1)
		return GPX_E_VERSION;	/* version 1 has no tf section */
	st = gpx_check_sorted(docs, n);
	if (st != GPX_OK)
		return st;
	bound = tfs != NULL ? gpx_encode_bound_tf_ex(codec, n, n ? docs[n - 1] : 0, opts) :
		gpx_encode_bound_ex(codec, n, n ? docs[n - 1] : 0, opts);
	if (cap < bound)
		return GPX_E_NOSPACE;
	if (version == GPX_FORMAT_V1)
	{
		/* the v1 encoders write into zeroed memory; v2 zeroes as it goes */
		memset(out, 0, bound);
		if (n == 0)
		{
			gpx_write_header(out, codec, ops->log2_block, 0, 0, 0, 0, 0, 0);
			*outlen = GPX_V1_HEADER_SIZE;
			return GPX_OK;
		}
		return ops->encode(docs, n, out, bound, outlen);
	}
	if (n == 0)
	{
		out[0] = (uint8_t) (GPX_TAG_V2 | ((unsigned) codec << 5));
		out[1] = GPX_SHAPE_EMPTY;
		*outlen = 2;
		return GPX_OK;
	}
	if (tfs != NULL)
		return encode_v2_tf(codec, docs, tfs, n, kinds, out, bound, outlen);
	return encode_v2(codec, docs, n, kinds, out, bound, outlen);
}
