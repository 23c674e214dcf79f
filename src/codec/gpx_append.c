/*
 * gpx_append.c - appending docIDs above a list's last one (see
 * gpx_append.h): the untouched prefix copied as bytes, only the tail
 * encoded.  The per-codec parts know format version 1's layouts
 * (gpx_pfor.c, gpx_lrc.c, gpx_qs.c).
 */
#include <string.h>

#include "gpx_append.h"
#include "gpx_internal.h"

/* qs: the low-bit width of n docIDs ending at last (gpx_qs.c's formula). */
static uint32_t
app_qs_low_bits(uint32_t n, uint32_t last)
{
	uint64_t	q;

	if (n == 0)
		return 0;
	q = ((uint64_t) last + 1) / n;
	if (q < 2)
		return 0;
	return 63 - (uint32_t) __builtin_clzll(q);
}

/* Check the arguments: docs strictly increasing, above l's last, in range. */
static gpx_status
app_check(const gpx_list *l, const uint32_t *docs, uint32_t m)
{
	gpx_status	st;

	if (m == 0)
		return GPX_OK;
	if (docs == NULL)
		return GPX_E_ARG;
	if (l->n > 0 && docs[0] <= l->last)
		return GPX_E_UNSORTED;
	st = gpx_check_sorted(docs, m);
	if (st != GPX_OK)
		return st;
	if ((uint64_t) l->n + m > GPX_MAX_N)
		return GPX_E_TOOBIG;
	return GPX_OK;
}

/* Whether appending to l rewrites it whole (a qs list whose b changes). */
static bool
app_rewrites(const gpx_list *l, uint32_t m, uint32_t newlast)
{
	return l->codec == GPX_CODEC_QS &&
		app_qs_low_bits(l->n + m, newlast) != l->param;
}

/* Scratch values needed. */
uint64_t
gpx_append_scratch(const gpx_list *l, uint32_t m, uint32_t newlast)
{
	if (l->n == 0 || m == 0)
		return 0;
	if (l->codec == GPX_CODEC_QS)
		return app_rewrites(l, m, newlast) ? (uint64_t) l->n + m : 0;
	return (uint64_t) GPX_MAX_BLOCK + m;
}

/* Output bytes that suffice. */
size_t
gpx_append_bound(const gpx_list *l, uint32_t m, uint32_t newlast)
{
	uint32_t	kl;
	uint64_t	b;
	size_t		tb;

	if (m == 0)
		return l->len;
	if (l->n == 0 || l->codec == GPX_CODEC_QS)
		return gpx_encode_bound(l->codec, (uint32_t) ((uint64_t) l->n + m),
								newlast);
	/* the tail is encoded kl entries into out, then moved up past the prefix */
	kl = l->nblocks - 1;
	tb = gpx_encode_bound(l->codec, gpx_block_count(l, kl) + m, newlast);
	b = (uint64_t) kl * GPX_DIR_ENTRY_SIZE + 4 * (uint64_t) gpx_dir_offset(l, kl) + tb;
	return b > SIZE_MAX ? SIZE_MAX : (size_t) b;
}

/*
 * pfor, lrc: encode (last block + docs) as a list of its own at
 * out + kl * 8, so that its directory lands right after the kl entries
 * kept; move its payload up past the kept payload prefix, shift its
 * offsets, then copy the kept entries and prefix and write the header.
 */
static gpx_status
app_splice(const gpx_list *l, const uint32_t *docs, uint32_t m,
		   uint32_t *scratch, uint64_t scratch_cap, uint8_t *out, size_t cap,
		   size_t *outlen)
{
	uint32_t	kl = l->nblocks - 1;
	uint32_t	c = gpx_block_count(l, kl);
	uint32_t	pw = gpx_dir_offset(l, kl);	/* payload words kept */
	size_t		dir_keep = (size_t) kl * GPX_DIR_ENTRY_SIZE;
	size_t		pkeep = (size_t) pw * 4;
	uint32_t	newlast = docs[m - 1];
	gpx_list	t;
	size_t		tlen;
	uint8_t    *tb;
	uint64_t	payload;
	gpx_status	st;

	if (scratch == NULL || scratch_cap < (uint64_t) GPX_MAX_BLOCK + m)
		return GPX_E_NOSPACE;
	if (cap < gpx_append_bound(l, m, newlast))
		return GPX_E_NOSPACE;
	if (gpx_decode_block(l, kl, scratch) != c)
		return GPX_E_PAYLOAD;
	memcpy(scratch + c, docs, (size_t) m * sizeof(uint32_t));

	tb = out + dir_keep;
	st = gpx_encode(l->codec, scratch, c + m, tb, cap - dir_keep, &tlen);
	if (st != GPX_OK)
		return st;
	st = gpx_open(&t, tb, tlen);
	if (st != GPX_OK)
		return st;
	payload = (uint64_t) pkeep + t.payload_bytes;
	if (payload > UINT32_MAX || (uint64_t) kl + t.nblocks > UINT32_MAX)
		return GPX_E_TOOBIG;

	/* the tail's payload up past the prefix (regions may overlap) */
	memmove(out + gpx_payload_offset(kl + t.nblocks) + pkeep,
			tb + gpx_payload_offset(t.nblocks), t.payload_bytes);
	for (uint32_t i = 0; i < t.nblocks; i++)
	{
		uint8_t    *e = out + GPX_HEADER_SIZE +
			(size_t) (kl + i) * GPX_DIR_ENTRY_SIZE + 4;

		gpx_store32(e, gpx_load32(e) + pw);
	}
	/* the kept entries overwrite the tail's header, read above */
	memcpy(out + GPX_HEADER_SIZE, l->dir, dir_keep);
	memcpy(out + gpx_payload_offset(kl + t.nblocks), l->payload, pkeep);
	gpx_write_header(out, l->codec, l->log2_block, 0, l->n + m, l->first,
					 newlast, kl + t.nblocks, (uint32_t) payload);
	*outlen = gpx_payload_offset(kl + t.nblocks) + (size_t) payload;
	return GPX_OK;
}

/*
 * qs with an unchanged b: the directory, the low bits and the upper bits
 * of l copied into the longer arrays, the new docIDs' bits and samples
 * added (bit positions of old elements do not change).
 */
static gpx_status
app_qs_extend(const gpx_list *l, const uint32_t *docs, uint32_t m,
			  uint8_t *out, size_t cap, size_t *outlen)
{
	uint32_t	b = l->param;
	uint32_t	n2 = l->n + m;
	uint32_t	newlast = docs[m - 1];
	uint32_t	nb2 = gpx_nblocks_for(n2, l->log2_block);
	uint64_t	lw_old = gpx_words_for_bits((uint64_t) l->n * b);
	uint64_t	uw_old = l->payload_bytes / 4 - lw_old;
	uint64_t	lw = gpx_words_for_bits((uint64_t) n2 * b);
	uint64_t	uw = gpx_words_for_bits((uint64_t) (newlast >> b) + n2);
	uint64_t	payload = 4 * (lw + uw);
	uint64_t	total = gpx_payload_offset(nb2) + payload;
	uint32_t	mask = gpx_mask(b);
	uint8_t    *low,
			   *upper;

	if (payload > UINT32_MAX)
		return GPX_E_TOOBIG;
	if (total > cap)
		return GPX_E_NOSPACE;
	memset(out, 0, (size_t) total);
	memcpy(out + GPX_HEADER_SIZE, l->dir, (size_t) l->nblocks * GPX_DIR_ENTRY_SIZE);
	low = out + gpx_payload_offset(nb2);
	upper = low + 4 * lw;
	memcpy(low, l->payload, (size_t) (4 * lw_old));
	memcpy(upper, l->payload + 4 * lw_old, (size_t) (4 * uw_old));
	for (uint32_t i = 0; i < m; i++)
	{
		uint32_t	idx = l->n + i;
		uint32_t	d = docs[i];
		uint64_t	pos = (uint64_t) (d >> b) + idx;
		uint8_t    *w = upper + 4 * (pos >> 5);

		gpx_put_bits(low, (uint64_t) idx * b, b, d & mask);
		gpx_store32(w, gpx_load32(w) | (1u << (pos & 31)));
		if ((idx & ((1u << l->log2_block) - 1)) == 0)
			gpx_write_dir(out, idx >> l->log2_block, d, (uint32_t) pos);
	}
	gpx_write_header(out, GPX_CODEC_QS, l->log2_block, b, n2, l->first,
					 newlast, nb2, (uint32_t) payload);
	*outlen = (size_t) total;
	return GPX_OK;
}

/* Decode l and docs into scratch and encode the whole sequence. */
static gpx_status
app_rewrite(const gpx_list *l, const uint32_t *docs, uint32_t m,
			uint32_t *scratch, uint64_t scratch_cap, uint8_t *out, size_t cap,
			size_t *outlen)
{
	uint32_t	tmp[GPX_MAX_BLOCK];
	uint64_t	pos = 0;

	if (scratch == NULL || scratch_cap < (uint64_t) l->n + m)
		return GPX_E_NOSPACE;
	for (uint32_t k = 0; k < l->nblocks; k++)
	{
		uint32_t	cnt = gpx_decode_block(l, k, tmp);

		if (cnt > l->n - pos)
			return GPX_E_PAYLOAD;
		memcpy(scratch + pos, tmp, (size_t) cnt * sizeof(uint32_t));
		pos += cnt;
	}
	memcpy(scratch + pos, docs, (size_t) m * sizeof(uint32_t));
	return gpx_encode(l->codec, scratch, (uint32_t) (pos + m), out, cap, outlen);
}

/* l followed by docs. */
gpx_status
gpx_append(const gpx_list *l, const uint32_t *docs, uint32_t m,
		   uint32_t *scratch, uint64_t scratch_cap, uint8_t *out, size_t cap,
		   size_t *outlen)
{
	gpx_status	st;

	if (l == NULL || out == NULL || outlen == NULL)
		return GPX_E_ARG;
	st = app_check(l, docs, m);
	if (st != GPX_OK)
		return st;
	if (m == 0)
	{
		if (cap < l->len)
			return GPX_E_NOSPACE;
		memcpy(out, l->base, l->len);
		*outlen = l->len;
		return GPX_OK;
	}
	if (l->n == 0)
		return gpx_encode(l->codec, docs, m, out, cap, outlen);
	switch (l->codec)
	{
		case GPX_CODEC_PFOR:
		case GPX_CODEC_LRC:
			return app_splice(l, docs, m, scratch, scratch_cap, out, cap,
							  outlen);
		case GPX_CODEC_QS:
			if (app_rewrites(l, m, docs[m - 1]))
				return app_rewrite(l, docs, m, scratch, scratch_cap, out,
								   cap, outlen);
			return app_qs_extend(l, docs, m, out, cap, outlen);
	}
	return GPX_E_CODEC;
}
