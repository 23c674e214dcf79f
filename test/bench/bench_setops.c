/*
 * bench_setops.c - library-level benchmark of the set algebra and of
 * appends (src/codec/gpx_setops.h, gpx_append.h), in one run, with ratios:
 *
 *   union     gpx_union of two compressed lists (the block-plan merge)
 *             against decoding both lists and merging the arrays, and
 *             against merging two plain arrays (what intarray's | does
 *             once its int4[] inputs are in memory); the counts
 *             (gpx_union_count: no merge at all) beside them; the union
 *             encoded as it is merged (gpx_setop_encode, what T | T runs)
 *             and, apart, gpx_encode of the union's array;
 *   k-way     gpx_union_many of 8 lists against decoding them all,
 *             sorting and deduplicating;
 *   append    gpx_append of 1 and of 1000 docIDs to a list of N docIDs
 *             against decoding the list and encoding it again whole.
 *
 *   bench_setops [N]     N: docIDs of the long lists (default 10^7)
 *
 * Every result is checked against the reference path before it is timed;
 * times are the median of repetitions, in CPU time of the process (one
 * thread: what the work costs, whatever else the machine runs).  Output:
 * Markdown tables.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "gpx_append.h"
#include "gpx_codec.h"
#include "gpx_setops.h"

#define REPS_MAX 15

/* CPU seconds of the process (the benchmark is one thread). */
static double
cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static uint64_t rng_state = 0x5e7b3c41ull;

/* splitmix64 */
static uint64_t
rnd(void)
{
	uint64_t	z = (rng_state += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* malloc or die */
static void *
xmalloc(size_t n)
{
	void	   *p = malloc(n ? n : 1);

	if (p == NULL)
	{
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	return p;
}

/* n sorted distinct docIDs: gaps uniform in [1, 2 * avg_gap - 1]. */
static void
make_list(uint32_t *out, uint32_t n, uint32_t avg_gap, uint32_t start)
{
	uint64_t	v = start;

	for (uint32_t i = 0; i < n; i++)
	{
		out[i] = (uint32_t) v;
		v += 1 + rnd() % (2 * (uint64_t) avg_gap - 1);
	}
}

/* Encode docs into a new exact blob, opened into l. */
static uint8_t *
encode(int codec, const uint32_t *docs, uint32_t n, gpx_list *l)
{
	size_t		cap = gpx_encode_bound(codec, n, n ? docs[n - 1] : 0),
				len = 0;
	uint8_t    *b = xmalloc(cap);

	if (gpx_encode(codec, docs, n, b, cap, &len) != GPX_OK ||
		gpx_open(l, b, len) != GPX_OK)
	{
		fprintf(stderr, "encode failed\n");
		exit(1);
	}
	return b;
}

/* Plain merge-union of two sorted arrays (the array path). */
static uint32_t
merge_arrays(const uint32_t *a, uint32_t na, const uint32_t *b, uint32_t nb,
			 uint32_t *out)
{
	uint32_t	i = 0,
				j = 0,
				k = 0;

	while (i < na && j < nb)
	{
		if (a[i] < b[j])
			out[k++] = a[i++];
		else if (b[j] < a[i])
			out[k++] = b[j++];
		else
		{
			out[k++] = a[i++];
			j++;
		}
	}
	while (i < na)
		out[k++] = a[i++];
	while (j < nb)
		out[k++] = b[j++];
	return k;
}

/* qsort comparator */
static int
cmp_u32(const void *x, const void *y)
{
	uint32_t	a = *(const uint32_t *) x,
				b = *(const uint32_t *) y;

	return a < b ? -1 : a > b;
}

/* What one timed operation needs. */
typedef struct bctx
{
	const gpx_list *la,
			   *lb;
	const gpx_list *const *ls;
	int			k;
	const uint32_t *a,
			   *b;
	uint32_t	na,
				nb;
	uint32_t   *out,
			   *tmpa,
			   *tmpb;
	uint64_t	total;
	void	   *work;
	size_t		workbytes;
	const uint32_t *add;
	uint32_t	m;
	uint32_t   *scratch;
	uint64_t	scap;
	uint8_t    *blob;
	size_t		bcap;
	uint64_t	result;			/* consumed: a count or a length */
} bctx;

typedef void (*bfn) (bctx *c);

/* Median seconds of reps runs of f. */
static double
timeit(bfn f, bctx *c, int reps)
{
	double		t[REPS_MAX];

	if (reps > REPS_MAX)
		reps = REPS_MAX;
	f(c);						/* warm-up */
	for (int r = 0; r < reps; r++)
	{
		double		t0 = cpu_now();

		f(c);
		t[r] = cpu_now() - t0;
	}
	qsort(t, reps, sizeof(double), cmp_double);
	return t[reps / 2];
}

static void
b_union(bctx *c)
{
	uint32_t	n;

	gpx_union(c->la, c->lb, c->out, gpx_union_bound(c->la, c->lb), &n);
	c->result = n;
}

static void
b_decode_merge(bctx *c)
{
	gpx_decode(c->la, c->tmpa);
	gpx_decode(c->lb, c->tmpb);
	c->result = merge_arrays(c->tmpa, c->la->n, c->tmpb, c->lb->n, c->out);
}

static void
b_array_merge(bctx *c)
{
	c->result = merge_arrays(c->a, c->na, c->b, c->nb, c->out);
}

static void
b_encode_result(bctx *c)
{
	size_t		len = 0;

	gpx_encode(c->la->codec, c->out, (uint32_t) c->total, c->blob, c->bcap, &len);
	c->result = len;
}

static void
b_union_encode(bctx *c)
{
	size_t		len = 0;
	uint32_t	n;

	gpx_setop_encode(GPX_SETOP_UNION, c->la, c->lb, c->la->codec, c->blob, c->bcap,
					 &len, &n);
	c->result = len;
}

static void
b_union_count(bctx *c)
{
	uint32_t	n;

	gpx_union_count(c->la, c->lb, &n);
	c->result = n;
}

static void
b_union_many(bctx *c)
{
	uint32_t	n;

	gpx_union_many(c->ls, c->k, c->work, c->workbytes, c->out, (uint32_t) c->total, &n);
	c->result = n;
}

static void
b_decode_sort(bctx *c)
{
	uint64_t	pos = 0,
				m = 0;

	for (int i = 0; i < c->k; i++)
	{
		gpx_decode(c->ls[i], c->tmpa + pos);
		pos += c->ls[i]->n;
	}
	qsort(c->tmpa, pos, sizeof(uint32_t), cmp_u32);
	for (uint64_t i = 0; i < pos; i++)
		if (m == 0 || c->tmpa[i] != c->tmpa[m - 1])
			c->tmpa[m++] = c->tmpa[i];
	c->result = m;
}

static void
b_append(bctx *c)
{
	size_t		len = 0;

	gpx_append(c->la, c->add, c->m, c->scratch, c->scap, c->blob, c->bcap, &len);
	c->result = len;
}

static void
b_reencode(bctx *c)
{
	size_t		len = 0;

	gpx_decode(c->la, c->tmpa);
	memcpy(c->tmpa + c->la->n, c->add, (size_t) c->m * 4);
	gpx_encode(c->la->codec, c->tmpa, c->la->n + c->m, c->blob, c->bcap, &len);
	c->result = len;
}

/* Two lists of n: union against the array paths. */
static void
bench_union(uint32_t n, uint32_t gap_a, uint32_t gap_b, const char *what)
{
	uint32_t   *a = xmalloc((size_t) n * 4),
			   *b = xmalloc((size_t) n * 4);
	uint32_t   *out = xmalloc((size_t) 2 * n * 4 + 1024),
			   *rf = xmalloc((size_t) 2 * n * 4 + 1024),
			   *ta = xmalloc((size_t) n * 4 + 1024),
			   *tb = xmalloc((size_t) n * 4 + 1024);
	int			reps = n >= 5000000 ? 5 : 11;

	make_list(a, n, gap_a, 0);
	make_list(b, n, gap_b, gap_b / 2);
	printf("\n%s: two lists of %u docIDs (average gaps %u and %u)\n\n", what, n,
		   gap_a, gap_b);
	printf("| codec | union (merge plan) ms | decode + merge ms | merge of int arrays ms | union count ms | union encoded as merged ms | encoding the union ms | union / decode+merge | union / int arrays | count / int arrays | encoded / int arrays |\n");
	printf("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
	for (int codec = GPX_CODEC_MIN; codec <= GPX_CODEC_MAX; codec++)
	{
		gpx_list	la,
					lb;
		uint8_t    *ba = encode(codec, a, n, &la),
				   *bb = encode(codec, b, n, &lb);
		bctx		c = {0};
		double		tu,
					tdm,
					tam,
					tc,
					te,
					tx;
		uint64_t	ref;
		size_t		elen;
		uint8_t    *eblob;

		c.la = &la;
		c.lb = &lb;
		c.a = a;
		c.b = b;
		c.na = n;
		c.nb = n;
		c.out = out;
		c.tmpa = ta;
		c.tmpb = tb;
		b_array_merge(&c);
		ref = c.result;
		memcpy(rf, out, ref * 4);
		b_union(&c);
		if (c.result != ref || memcmp(out, rf, ref * 4) != 0)
		{
			fprintf(stderr, "union mismatch\n");
			exit(1);
		}
		b_union_count(&c);
		if (c.result != ref)
		{
			fprintf(stderr, "union count mismatch\n");
			exit(1);
		}
		tu = timeit(b_union, &c, reps);
		tdm = timeit(b_decode_merge, &c, reps);
		tam = timeit(b_array_merge, &c, reps);
		tc = timeit(b_union_count, &c, reps);
		/* what T | T adds: encoding the union (out holds it now) */
		c.total = ref;
		c.bcap = gpx_encode_bound(codec, (uint32_t) ref, out[ref - 1]);
		c.blob = xmalloc(c.bcap);
		te = timeit(b_encode_result, &c, reps);
		b_encode_result(&c);
		elen = c.result;
		eblob = xmalloc(elen);
		memcpy(eblob, c.blob, elen);
		free(c.blob);
		/* T | T: encoded as merged, gpx_encode's bytes */
		c.bcap = gpx_setop_encode_bound(GPX_SETOP_UNION, &la, &lb, codec);
		c.blob = xmalloc(c.bcap);
		b_union_encode(&c);
		if (c.result != elen || memcmp(c.blob, eblob, elen) != 0)
		{
			fprintf(stderr, "union encoded as merged differs from gpx_encode\n");
			exit(1);
		}
		tx = timeit(b_union_encode, &c, reps);
		free(c.blob);
		free(eblob);
		printf("| %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |\n",
			   gpx_codec_name(codec), tu * 1e3, tdm * 1e3, tam * 1e3, tc * 1e3,
			   tx * 1e3, te * 1e3, tu / tdm, tu / tam, tc / tam, tx / tam);
		free(ba);
		free(bb);
	}
	free(a);
	free(b);
	free(out);
	free(rf);
	free(ta);
	free(tb);
}

/* k lists: gpx_union_many against decode + sort + dedupe. */
static void
bench_union_many(uint32_t n, int k)
{
	uint32_t  **d = xmalloc(sizeof(uint32_t *) * k);
	gpx_list   *l = xmalloc(sizeof(gpx_list) * k);
	const gpx_list **lp = xmalloc(sizeof(gpx_list *) * k);
	uint8_t   **blobs = xmalloc(sizeof(uint8_t *) * k);
	uint64_t	total = (uint64_t) n * k;
	uint32_t   *out = xmalloc(total * 4 + 1024),
			   *tmp = xmalloc(total * 4 + 1024);
	int			reps = total >= 5000000 ? 5 : 11;

	printf("\nk-way union: %d lists of %u docIDs, random (average gap %d)\n\n", k, n, 4 * k);
	printf("| codec | union_many ms | decode + sort + dedupe ms | ratio |\n");
	printf("| --- | ---: | ---: | ---: |\n");
	for (int i = 0; i < k; i++)
	{
		d[i] = xmalloc((size_t) n * 4);
		make_list(d[i], n, 4 * k, (uint32_t) i);
	}
	for (int codec = GPX_CODEC_MIN; codec <= GPX_CODEC_MAX; codec++)
	{
		bctx		c = {0};
		double		tu,
					ts;
		uint64_t	ref;

		for (int i = 0; i < k; i++)
		{
			blobs[i] = encode(codec, d[i], n, &l[i]);
			lp[i] = &l[i];
		}
		c.ls = lp;
		c.k = k;
		c.out = out;
		c.tmpa = tmp;
		c.total = total;
		c.workbytes = gpx_union_many_work(k);
		c.work = xmalloc(c.workbytes);
		b_decode_sort(&c);
		ref = c.result;
		b_union_many(&c);
		if (c.result != ref || memcmp(out, tmp, ref * 4) != 0)
		{
			fprintf(stderr, "union_many mismatch\n");
			exit(1);
		}
		tu = timeit(b_union_many, &c, reps);
		ts = timeit(b_decode_sort, &c, reps);
		printf("| %s | %.2f | %.2f | %.2f |\n", gpx_codec_name(codec), tu * 1e3,
			   ts * 1e3, tu / ts);
		free(c.work);
		for (int i = 0; i < k; i++)
			free(blobs[i]);
	}
	for (int i = 0; i < k; i++)
		free(d[i]);
	free(d);
	free(l);
	free(lp);
	free(blobs);
	free(out);
	free(tmp);
}

/* Appending to a list of n: gpx_append against decode + encode. */
static void
bench_append(uint32_t n, uint32_t gap)
{
	uint32_t   *d = xmalloc((size_t) n * 4);
	uint32_t	add[1000];
	int			reps = n >= 5000000 ? 7 : 11;

	make_list(d, n, gap, 0);
	printf("\nappend to a list of %u docIDs (average gap %u)\n\n", n, gap);
	printf("| codec | docIDs added | list bytes | gpx_append ms | decode + encode ms | ratio | same bytes as a fresh encode |\n");
	printf("| --- | ---: | ---: | ---: | ---: | ---: | --- |\n");
	for (int codec = GPX_CODEC_MIN; codec <= GPX_CODEC_MAX; codec++)
	{
		gpx_list	l;
		uint8_t    *blob = encode(codec, d, n, &l);

		for (int mi = 0; mi < 2; mi++)
		{
			uint32_t	m = mi == 0 ? 1 : 1000;
			bctx		c = {0};
			uint8_t    *fresh;
			size_t		flen;
			double		ta,
						tr;
			bool		same;

			for (uint32_t i = 0; i < m; i++)
				add[i] = d[n - 1] + 1 + i * gap;
			c.la = &l;
			c.add = add;
			c.m = m;
			c.scap = gpx_append_scratch(&l, m, add[m - 1]);
			c.scratch = xmalloc((size_t) (c.scap + 1) * 4);
			c.bcap = gpx_encode_bound(codec, n + m, add[m - 1]);
			if (gpx_append_bound(&l, m, add[m - 1]) > c.bcap)
				c.bcap = gpx_append_bound(&l, m, add[m - 1]);
			c.blob = xmalloc(c.bcap);
			c.tmpa = xmalloc(((size_t) n + m) * 4 + 1024);
			fresh = xmalloc(c.bcap);
			b_reencode(&c);
			flen = c.result;
			memcpy(fresh, c.blob, flen);
			b_append(&c);
			same = c.result == flen && memcmp(fresh, c.blob, flen) == 0;
			ta = timeit(b_append, &c, reps);
			tr = timeit(b_reencode, &c, reps);
			printf("| %s | %u | %zu | %.3f | %.2f | %.4f | %s |\n",
				   gpx_codec_name(codec), m, l.len, ta * 1e3, tr * 1e3, ta / tr,
				   same ? "yes" : "NO");
			free(c.scratch);
			free(c.blob);
			free(c.tmpa);
			free(fresh);
		}
		free(blob);
	}
	free(d);
}

int
main(int argc, char **argv)
{
	uint32_t	n = argc > 1 ? (uint32_t) strtoul(argv[1], NULL, 10) : 10000000;

	printf("# bench_setops (N = %u)\n", n);
	bench_union(n / 10, 16, 16, "interleaved");
	bench_union(n / 10, 2, 64, "dense with sparse");
	bench_union(n, 16, 16, "interleaved, long");
	bench_union_many(n / 10, 8);
	bench_append(n, 16);
	return 0;
}
