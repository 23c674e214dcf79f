/*
 * gpx_cuda_plan.h - the host-only planning of the CUDA back end: which
 * lists the kernels take, the plan of each query of a batch, the spread of
 * the planned queries over the devices, how much of a query fits in a
 * chunk, and where a cached list's side tables go in the device cache.
 *
 * Plain C with no CUDA call: the back end (gpx_cuda.cu) calls it, and the
 * unit test test/unit/test_cuda_plan.c runs it on the CPU.  Like the codec
 * core it never allocates or prints: callers pass every array.
 */
#ifndef GPX_CUDA_PLAN_H
#define GPX_CUDA_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "gpx_batch.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes of a list's per-block skip entry in the device cache (one uint4). */
#define GPX_CUDA_SKIP_ENTRY 16
/* Alignment of everything placed in the device cache pool. */
#define GPX_CUDA_POOL_ALIGN 256

/*
 * One query of a batch, as planned: its source is the batch's shortest list
 * (src), the others are olist[obeg .. obeg + ocount) in probe order
 * (shortest first); only candidates in [lo, hi] can match, which confines
 * the source to blocks [b0, b1) with ncand docIDs.  total and written are
 * the pipeline's progress (0 after planning).
 */
typedef struct gpx_cuda_qplan
{
	uint32_t	q;				/* index in batch->queries */
	uint32_t	src;			/* batch list index of the shortest list */
	uint32_t	obeg,
				ocount;
	uint32_t	lo,
				hi;
	uint32_t	b0,
				b1;
	uint64_t	ncand;
	uint64_t	total;			/* matches found so far */
	uint32_t	written;		/* results copied so far (staged pieces) */
} gpx_cuda_qplan;

/* A sort key of the planner's scratch: ascending by (k1, k2, idx). */
typedef struct gpx_cuda_skey
{
	uint64_t	k1;
	uint32_t	k2;
	uint32_t	idx;
} gpx_cuda_skey;

/* Where a list and its side tables go in a cache allocation (bytes). */
typedef struct gpx_cuda_footprint
{
	size_t		tbl_off;		/* hash-segmentation table (if tbl_nb) */
	size_t		skip_off;		/* skip entries (if skip_bytes) */
	size_t		skip_bytes;
	size_t		bytes;			/* the whole allocation */
	uint32_t	tbl_shift;		/* bucket of x: x >> tbl_shift */
	uint32_t	tbl_nb;			/* buckets (0: no table) */
} gpx_cuda_footprint;

/* Whether the kernels can take a list's view (codec and geometry). */
bool		gpx_cuda_list_ok(const gpx_list *l);

/* Room gpx_cuda_plan_batch needs: *olist words and *keys scratch keys. */
void		gpx_cuda_plan_room(const gpx_batch *b, size_t *olist, size_t *keys);

/*
 * Plan every query of b: queries with bad arguments get GPX_E_ARG, those
 * with a list the kernels cannot take GPX_E_CODEC, empty answers GPX_OK at
 * once (out_count 0); the rest get GPX_OK and a plan.  plan has room for
 * b->nqueries, olist and keys as gpx_cuda_plan_room says.  Returns the
 * number of plans; *nolist gets the olist words used.
 */
uint32_t	gpx_cuda_plan_batch(gpx_batch *b, gpx_cuda_qplan *plan,
								uint32_t *olist, size_t *nolist,
								gpx_cuda_skey *keys);

/*
 * Spread plans over ndev devices, longest processing time first (cost:
 * candidates times lists; ties to the lower device and the earlier plan):
 * dev_of[i] gets plan i's device.  keys has room for nplan, load for ndev.
 */
void		gpx_cuda_plan_assign(const gpx_cuda_qplan *plan, uint32_t nplan,
								 uint32_t ndev, gpx_cuda_skey *keys,
								 uint64_t *load, uint32_t *dev_of);

/*
 * The next piece of a planned query for a chunk: source blocks
 * [start, *end) of src, *cands candidates, within room candidates and
 * work_room source blocks (a piece cut short ends on a block boundary).
 * False when not even one block fits.
 */
bool		gpx_cuda_plan_piece(const gpx_cuda_qplan *qp, const gpx_list *src,
								uint32_t start, uint64_t room, uint32_t work_room,
								uint32_t *end, uint32_t *cands);

/* Where list l and its side tables go in a device cache allocation. */
void		gpx_cuda_plan_footprint(const gpx_list *l, gpx_cuda_footprint *fp);

#ifdef __cplusplus
}
#endif

#endif							/* GPX_CUDA_PLAN_H */
