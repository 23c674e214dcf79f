/*
 * gpx_append.h - appending docIDs above a list's last one, re-encoding only
 * the tail (pure C, no postgres.h).
 *
 * The common update of a posting list: new documents get new, larger ids.
 * gpx_append copies the blocks of l that the new docIDs cannot change as
 * bytes and encodes only the tail, so the encoding work does not grow
 * with the list (copying the untouched prefix, a memcpy, still does).  The
 * result is l followed by docs in l's codec, byte for byte what
 * gpx_encode writes for the whole sequence.
 *
 * How, per codec (format version 1):
 *   pfor, lrc  blocks are self-contained and laid out one after the other
 *              (directory offsets are payload word indices), so the last
 *              block is decoded, joined with docs and encoded as a list of
 *              its own, whose blocks are spliced after the copied prefix
 *              with their offsets shifted;
 *   qs         one Elias-Fano sequence whose low-bit width b is a function
 *              of (n, last): when the longer list keeps l's b, the low and
 *              upper bit arrays are copied and extended and directory
 *              entries added for the new blocks; when b changes, the whole
 *              list is decoded and encoded again (the scratch asked for is
 *              then n + m values).
 * Only this file knows these layouts; a new format version replaces the
 * per-codec parts behind the same three functions.
 *
 * gpx_append_scratch: uint32 values of scratch a call needs;
 * gpx_append_bound: bytes of out that always suffice.  Errors: docs not
 * strictly increasing or not above l's last docID (GPX_E_UNSORTED), a
 * docID above GPX_MAX_DOCID (GPX_E_RANGE), n + m > GPX_MAX_N or a payload
 * beyond 4 GB (GPX_E_TOOBIG), small buffers (GPX_E_NOSPACE), NULL
 * pointers (GPX_E_ARG).  l must be valid and must not overlap out.
 */
#ifndef GPX_APPEND_H
#define GPX_APPEND_H

#include "gpx_codec.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Scratch values gpx_append needs to add m docIDs ending at newlast. */
uint64_t	gpx_append_scratch(const gpx_list *l, uint32_t m, uint32_t newlast);

/* Bytes of out that suffice to add m docIDs ending at newlast. */
size_t		gpx_append_bound(const gpx_list *l, uint32_t m, uint32_t newlast);

/*
 * l followed by docs[0..m) (strictly increasing, docs[0] > l's last) into
 * out[0..cap), *outlen bytes; scratch holds scratch_cap uint32 values.
 */
gpx_status	gpx_append(const gpx_list *l, const uint32_t *docs, uint32_t m,
					   uint32_t *scratch, uint64_t scratch_cap, uint8_t *out,
					   size_t cap, size_t *outlen);

#ifdef __cplusplus
}
#endif

#endif							/* GPX_APPEND_H */
