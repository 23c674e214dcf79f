/*
 * test_simd.c - the vectorised variants (gpx_cpu.h) against the scalar
 * code and the naive reference, each variant this CPU supports forced in
 * turn: whole-list and per-block decode of every codec and block kind
 * (format 1, and format 2 with own, Elias-Fano and bitmap blocks forced),
 * on edge lists (0, 1, 2 elements, block boundaries, 0 and 2^31 - 1,
 * every field width from 1 to 31 bits), intersections (every strategy)
 * against a naive merge, and the kernels of the encoders, of the set
 * operations, of locate and of merge_pos against naive loops.
 *
 *   test_simd            run the tests (GPX_SIMD is ignored: all variants)
 *   test_simd --levels   print the names of the supported variants
 *                        (test/unit/run-unit.sh runs every unit test
 *                        under each of them)
 */
#include <string.h>

#include "gpx_codec.h"
#include "gpx_cpu.h"
#include "gpx_intersect.h"
#include "gpx_simd.h"
#include "unit.h"

static const int codecs[3] = {GPX_CODEC_PFOR, GPX_CODEC_LRC, GPX_CODEC_QS};

/* Encodings tried: format 1, format 2 default, and v2 forced kinds. */
typedef struct enc_mode
{
	int			version;
	unsigned	kinds;
	const char *name;
} enc_mode;

static const enc_mode modes[] = {
	{1, 0, "v1"},
	{2, 0, "v2"},
	{2, 1u << GPX_KIND_EF, "v2 ef"},
	{2, 1u << GPX_KIND_BITMAP, "v2 bitmap"},
	{2, 1u << GPX_KIND_OWN | 1u << GPX_KIND_EF, "v2 own"},
};

#define NMODES (sizeof(modes) / sizeof(modes[0]))

/* The widest span a list is forced into bitmap blocks with. */
#define SPAN_BITMAP_MAX (1u << 22)

static int	levels[GPX_SIMD_LEVELS];
static int	nlevels;

/* Encode into an exact-size blob (over-reads show under ASan); NULL: none. */
static uint8_t *
encode(int codec, const uint32_t *d, uint32_t n, const enc_mode *m, size_t *len)
{
	gpx_encode_opts o = {m->version, m->kinds};
	size_t		cap = gpx_encode_bound_ex(codec, n, n ? d[n - 1] : 0, &o);
	uint8_t    *buf = unit_xmalloc(cap),
			   *out;
	gpx_status	st = gpx_encode_ex(codec, d, n, &o, buf, cap, len);

	CHECKF(st == GPX_OK, "%s %s n=%u: encode %s", gpx_codec_name(codec), m->name, n,
		   gpx_status_str(st));
	if (st != GPX_OK)
	{
		free(buf);
		return NULL;
	}
	out = unit_xmalloc(*len);
	memcpy(out, buf, *len);
	free(buf);
	return out;
}

/* Decode d[0..n) in every codec and mode under every variant. */
static void
check_list(const uint32_t *d, uint32_t n, const char *what)
{
	uint32_t   *out = unit_xmalloc(sizeof(uint32_t) * (n + GPX_MAX_BLOCK));
	uint32_t	blk[GPX_MAX_BLOCK];

	for (int c = 0; c < 3; c++)
		for (size_t mi = 0; mi < NMODES; mi++)
		{
			size_t		len;
			uint8_t    *b;
			gpx_list	l;

			/* forced bitmaps only where their size stays reasonable */
			if (modes[mi].kinds == 1u << GPX_KIND_BITMAP && n > 0 &&
				d[n - 1] - d[0] > SPAN_BITMAP_MAX)
				continue;
			b = encode(codecs[c], d, n, &modes[mi], &len);
			if (b == NULL)
				continue;
			CHECK(unit_validate_exact(b, len) == GPX_OK);
			CHECK(gpx_open(&l, b, len) == GPX_OK);
			for (int v = 0; v < nlevels; v++)
			{
				bool		ok = true;

				CHECK(gpx_simd_force(levels[v]) == GPX_OK);
				gpx_decode(&l, out);
				CHECKF(memcmp(out, d, sizeof(uint32_t) * n) == 0,
					   "%s %s %s n=%u (%s): decode differs", gpx_simd_name(levels[v]),
					   gpx_codec_name(codecs[c]), modes[mi].name, n, what);
				for (uint32_t k = 0; k < l.nblocks && ok; k++)
				{
					uint32_t	cnt = gpx_decode_block(&l, k, blk);

					ok = cnt == gpx_block_count(&l, k) &&
						memcmp(blk, d + ((size_t) k << l.log2_block),
							   sizeof(uint32_t) * cnt) == 0;
				}
				CHECKF(ok, "%s %s %s n=%u (%s): a block decodes differently",
					   gpx_simd_name(levels[v]), gpx_codec_name(codecs[c]),
					   modes[mi].name, n, what);
			}
			free(b);
		}
	gpx_simd_force(-1);
	free(out);
}

/* Lists of n gaps of exactly w bits (2^(w-1) .. 2^w - 1), from `start`. */
static uint32_t
make_width(unit_rng *r, uint32_t w, uint32_t n, uint32_t start, uint32_t *d)
{
	uint64_t	v = start;
	uint32_t	i;

	for (i = 0; i < n; i++)
	{
		uint64_t	g = w == 0 ? 0 : (1ull << (w - 1)) + unit_below(r, 1ull << (w - 1));

		v += (i ? g + 1 : 0);
		if (v > GPX_MAX_DOCID)
			break;
		d[i] = (uint32_t) v;
	}
	return i;
}

/* Edge lists: sizes around the block sizes, 0 and 2^31 - 1, widths. */
static void
test_decode(unit_rng *r)
{
	static const uint32_t sizes[] = {0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 33, 127,
		128, 129, 130, 255, 256, 257, 258, 511, 513, 1000, 4099};
	uint32_t   *d = unit_xmalloc(sizeof(uint32_t) * 5000);

	for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++)
	{
		uint32_t	n = sizes[si],
					m;

		/* consecutive from 0 (bitmap-dense) and up to 2^31 - 1 */
		for (uint32_t i = 0; i < n; i++)
			d[i] = i;
		check_list(d, n, "0, 1, 2, ...");
		for (uint32_t i = 0; i < n; i++)
			d[i] = GPX_MAX_DOCID - (n - 1 - i);
		check_list(d, n, "..., 2^31 - 1");
		/* every third docID, ending at 2^31 - 1 */
		for (uint32_t i = 0; i < n; i++)
			d[i] = GPX_MAX_DOCID - 3 * (n - 1 - i);
		check_list(d, n, "stride 3 to 2^31 - 1");
		m = unit_make_list(r, UNIT_UNIFORM, n, 1ull << 31, d);
		check_list(d, m, "uniform in [0, 2^31)");
		m = unit_make_list(r, UNIT_CLUSTERED, n, 1u << 24, d);
		check_list(d, m, "clustered");
		m = unit_make_list(r, UNIT_EXTREME, n, 1ull << 31, d);
		check_list(d, m, "extreme");
	}
	/* every field width the kernels take, and the wider ones they leave */
	for (uint32_t w = 1; w <= 31; w++)
	{
		uint32_t	n = make_width(r, w, 700, w & 1 ? 0 : 5, d);

		check_list(d, n, "gaps of one width");
		/* one wide gap among narrow ones (pfor exceptions) */
		n = make_width(r, 2, 700, 0, d);
		for (uint32_t i = 300; i < n && w < 30; i++)
			d[i] += 1u << w;
		check_list(d, n, "an exception");
	}
	free(d);
}

/* Intersections under every variant and strategy against a naive merge. */
static void
test_intersect(unit_rng *r)
{
	uint32_t   *a = unit_xmalloc(sizeof(uint32_t) * 20000),
			   *b = unit_xmalloc(sizeof(uint32_t) * 20000),
			   *ref = unit_xmalloc(sizeof(uint32_t) * 20000),
			   *out = unit_xmalloc(sizeof(uint32_t) * 20000);

	for (int round = 0; round < 60; round++)
	{
		uint32_t	na = 1 + unit_below(r, round < 30 ? 300 : 20000),
					nb = 1 + unit_below(r, 20000);
		uint64_t	u = round % 3 == 0 ? 40000 : round % 3 == 1 ? 1u << 20 : 1ull << 31;
		uint32_t	nref;

		na = unit_make_list(r, round & 1 ? UNIT_CLUSTERED : UNIT_UNIFORM, na, u, a);
		nb = unit_make_list(r, UNIT_UNIFORM, nb, u, b);
		if (round % 4 == 0 && nb > 0)
			b[nb - 1] = GPX_MAX_DOCID;	/* the largest docID on one side */
		nref = ref_intersect2(a, na, b, nb, ref);
		for (int ca = 0; ca < 3; ca++)
		{
			const enc_mode *m = &modes[1 + (round + ca) % (NMODES - 1)];

			if (m->kinds == 1u << GPX_KIND_BITMAP && u > SPAN_BITMAP_MAX)
				m = &modes[1];
			size_t		la,
						lb;
			uint8_t    *ba = encode(codecs[ca], a, na, m, &la),
					   *bb = encode(codecs[(ca + round) % 3], b, nb, &modes[1], &lb);
			gpx_list	xa,
						xb;
			const gpx_list *ls[2] = {&xa, &xb};

			if (ba == NULL || bb == NULL || gpx_open(&xa, ba, la) != GPX_OK ||
				gpx_open(&xb, bb, lb) != GPX_OK)
			{
				CHECK(false);
				free(ba);
				free(bb);
				continue;
			}
			for (int v = 0; v < nlevels; v++)
				for (int s = GPX_ISECT_AUTO; s <= GPX_ISECT_PROBE; s++)
				{
					gpx_isect_opts o = {(gpx_isect_strategy) s, 0};
					uint32_t	n = 0;

					gpx_simd_force(levels[v]);
					CHECK(gpx_intersect_ex(ls, 2, &o, out, 20000, &n, NULL) == GPX_OK);
					CHECKF(n == nref && memcmp(out, ref, sizeof(uint32_t) * n) == 0,
						   "%s strategy %d %s(%s) x %s: %u docIDs, want %u",
						   gpx_simd_name(levels[v]), s, gpx_codec_name(codecs[ca]),
						   m->name, gpx_codec_name(codecs[(ca + round) % 3]), n, nref);
				}
			free(ba);
			free(bb);
		}
	}
	gpx_simd_force(-1);
	free(a);
	free(b);
	free(ref);
	free(out);
}

/* A strictly increasing run of n docIDs, gaps from a random scale. */
static void
kernel_run(unit_rng *r, uint32_t *d, uint32_t n, uint64_t start, uint32_t scale)
{
	uint64_t	v = start;

	for (uint32_t i = 0; i < n; i++)
	{
		d[i] = (uint32_t) (v > GPX_MAX_DOCID ? GPX_MAX_DOCID : v);
		v += 1 + unit_below(r, scale);
	}
}

/* The naive a op b (0 union, 1 difference, 2 symmetric difference). */
static uint32_t
naive_setop(int op, const uint32_t *a, uint32_t na, const uint32_t *b,
			uint32_t nb, uint32_t *out)
{
	uint32_t	i = 0,
				j = 0,
				k = 0;

	while (i < na || j < nb)
	{
		if (j >= nb || (i < na && a[i] < b[j]))
		{
			out[k++] = a[i++];
			continue;
		}
		if (i >= na || b[j] < a[i])
		{
			if (op != 1)
				out[k++] = b[j];
			j++;
			continue;
		}
		if (op == 0)
			out[k++] = a[i];
		i++;
		j++;
	}
	return k;
}

/*
 * One locate call (the variant's, or the scalar fallback when o is the
 * scalar table) against a naive search: a block of 1..256 docIDs in an
 * exact-size buffer (an over-read shows under ASan), low or near
 * GPX_MAX_DOCID, and an increasing run of values, most of them the
 * block's, some between two of its docIDs, before its first or after its
 * last.
 */
static void
check_locate(unit_rng *r, const gpx_simd_ops *o, int level, int it)
{
	uint32_t	cnt = 1 + unit_below(r, it % 3 == 0 ? 256 : 40),
				scale = 1 + unit_below(r, it % 2 ? 4 : 1000),
			   *buf = unit_xmalloc(sizeof(uint32_t) * cnt),
				x[600],
				pos[600],
				want[600],
				n = 0,
				nwant = 0,
				got;
	uint64_t	start = it % 5 == 0 ? GPX_MAX_DOCID - (uint64_t) cnt * scale :
		1 + unit_below(r, 1000);

	kernel_run(r, buf, cnt, start, scale);
	if (it % 4 == 1 && buf[0] > 0)
	{
		want[n] = GPX_SIMD_NOPOS;	/* before the block */
		x[n++] = buf[0] - 1 - unit_below(r, buf[0]);
	}
	for (uint32_t i = 0; i < cnt; i++)
	{
		if (it % 2 == 1 && i > 0 && buf[i] > buf[i - 1] + 1 && unit_below(r, 6) == 0)
		{
			want[n] = GPX_SIMD_NOPOS;	/* between buf[i - 1] and buf[i] */
			x[n++] = buf[i - 1] + 1;
		}
		if (unit_below(r, 3) != 0 || it % 7 == 0)
		{
			want[n] = i;
			x[n++] = buf[i];
			nwant++;
		}
	}
	if (it % 6 == 2 && buf[cnt - 1] < GPX_MAX_DOCID)
	{
		want[n] = GPX_SIMD_NOPOS;	/* after the block */
		x[n++] = buf[cnt - 1] + 1;
	}
	memset(pos, 0xEE, sizeof(pos));
	got = gpx_simd_locate(o, buf, cnt, x, n, pos);
	CHECKF(got == nwant, "%s locate cnt %u n %u: found %u, want %u",
		   gpx_simd_name(level), cnt, n, got, nwant);
	for (uint32_t k = 0; k < n; k++)
		CHECKF(pos[k] == want[k], "%s locate cnt %u: x[%u] = %u at %u, not %u",
			   gpx_simd_name(level), cnt, k, x[k], pos[k], want[k]);
	CHECK(pos[n] == 0xEEEEEEEEu);
	free(buf);
}

/*
 * One merge_pos call (the variant's, or the locate fallback when the
 * table has none) against a naive merge: a block of 1..256 docIDs
 * followed by 32 GPX_MAX_DOCID slots (as the intersection's buffer), and
 * candidates from c[i] on: the block's, others between or around them,
 * some past its last (where the call must stop), with orig[] a
 * permutation to move along and positions to record by it.
 */
static void
check_merge_pos(unit_rng *r, const gpx_simd_ops *o, int level, int it)
{
	uint32_t	cnt = 1 + unit_below(r, it % 3 == 0 ? 256 : 40),
				scale = 1 + unit_below(r, it % 2 ? 4 : 1000),
				buf[GPX_MAX_BLOCK + 32],
				c[600],
				orig[600],
				orig0[600],
				row[600],
				wc[600],
				worig[600],
				m = 0,
				i0 = unit_below(r, 4),
				e,
				nw,
				w,
				got,
				base = unit_below(r, 1u << 20);
	int			isin[600];
	uint64_t	start = it % 5 == 0 ? GPX_MAX_DOCID - (uint64_t) cnt * scale :
		1 + unit_below(r, 1000);

	kernel_run(r, buf, cnt, start, scale);
	for (uint32_t j = cnt; j < cnt + 32; j++)
		buf[j] = GPX_MAX_DOCID;
	for (uint32_t j = 0; j < i0; j++)
		c[m++] = 0;				/* before i: not looked at */
	if (buf[0] > 0 && unit_below(r, 2) == 0)
		c[m++] = buf[0] - 1;
	for (uint32_t j = 0; j < cnt; j++)
	{
		if (j > 0 && buf[j] > buf[j - 1] + 1 && unit_below(r, 5) == 0)
			c[m++] = buf[j - 1] + 1;
		if (unit_below(r, 3) != 0 || it % 7 == 0)
			c[m++] = buf[j];
	}
	for (uint32_t j = 1; j <= 3 && (uint64_t) buf[cnt - 1] + j <= GPX_MAX_DOCID; j++)
		if (unit_below(r, 2) == 0)
			c[m++] = buf[cnt - 1] + j;
	for (uint32_t j = 0; j < m; j++)
		orig[j] = j;
	for (uint32_t j = m; j > 1; j--)
	{
		uint32_t	k = unit_below(r, j),
					t = orig[j - 1];

		orig[j - 1] = orig[k];
		orig[k] = t;
	}
	memcpy(orig0, orig, sizeof(uint32_t) * m);
	/* the naive answer: kept ones moved down to w on, stop past the last */
	memcpy(wc, c, sizeof(uint32_t) * m);
	memcpy(worig, orig, sizeof(uint32_t) * m);
	nw = w = unit_below(r, i0 + 1);
	for (e = i0; e < m && c[e] <= buf[cnt - 1]; e++)
	{
		uint32_t	p = 0;

		while (buf[p] < c[e])
			p++;
		isin[e] = buf[p] == c[e] ? (int) p : -1;
		if (isin[e] >= 0)
		{
			wc[nw] = c[e];
			worig[nw++] = orig[e];
		}
	}
	memset(row, 0xEE, sizeof(row));
	got = gpx_simd_merge_pos(o, buf, cnt, c, orig, i0, m, &w, row, base);
	CHECKF(got == e && w == nw, "%s merge_pos cnt %u: stopped at %u, want %u; kept to %u, want %u",
		   gpx_simd_name(level), cnt, got, e, w, nw);
	CHECKF(memcmp(c, wc, sizeof(uint32_t) * nw) == 0 &&
		   memcmp(orig, worig, sizeof(uint32_t) * nw) == 0,
		   "%s merge_pos cnt %u: kept candidates or their orig", gpx_simd_name(level), cnt);
	for (uint32_t j = i0; j < e; j++)
		if (isin[j] >= 0)
			CHECKF(row[orig0[j]] == base + (uint32_t) isin[j],
				   "%s merge_pos cnt %u: %u at %u, not %u", gpx_simd_name(level), cnt,
				   c[j], row[orig0[j]] - base, isin[j]);
}

/*
 * The kernels of the encoders and of the set operations, variant by
 * variant, against naive loops over the share each says it did: the
 * extremes of gaps and of the LRC terms, the sortedness flag, and the set
 * operations (which must cut the runs between docIDs, never between two
 * equal ones, and write nothing past their result).
 */
static void
test_kernels(unit_rng *r)
{
	uint32_t	a[600],
				b[600],
				out[1300],
				want[1300];

	for (int v = 0; v < nlevels; v++)
	{
		const gpx_simd_ops *o;

		gpx_simd_force(levels[v]);
		o = gpx_simd();
		for (int it = 0; it < 3000; it++)
		{
			uint32_t	cnt = 1 + unit_below(r, it % 3 == 0 ? 300 : 40),
						scale = 1u << unit_below(r, it % 2 ? 8 : 31),
						got;

			kernel_run(r, a, cnt, unit_below(r, 1000), scale);
			if (o->gap_range != NULL)
			{
				uint32_t	mn = UINT32_MAX,
							mx = 0,
							wmn = UINT32_MAX,
							wmx = 0;

				got = o->gap_range(a, cnt, &mn, &mx);
				CHECK(got < cnt || (cnt == 1 && got == 0));
				for (uint32_t j = 1; j <= got; j++)
				{
					wmn = a[j] - a[j - 1] < wmn ? a[j] - a[j - 1] : wmn;
					wmx = a[j] - a[j - 1] > wmx ? a[j] - a[j - 1] : wmx;
				}
				CHECKF(mn == wmn && mx == wmx, "%s gap_range n %u", gpx_simd_name(levels[v]), cnt);
			}
			if (o->sorted_flag != NULL)
			{
				uint32_t	f = 0,
							wf = 0;

				if (it % 4 == 0)
					a[unit_below(r, cnt)] ^= 1u << unit_below(r, 32);
				got = (uint32_t) o->sorted_flag(a, cnt, &f);
				for (uint32_t j = 1; j <= got; j++)
					wf |= a[j] | (a[j] - a[j - 1] - 1);
				CHECKF(got < cnt && f == wf, "%s sorted_flag n %u", gpx_simd_name(levels[v]), cnt);
				kernel_run(r, a, cnt, unit_below(r, 1000), scale);
			}
			if (o->lrc_ext != NULL && cnt >= 2 && a[cnt - 1] - a[0] < (1u << 23))
			{
				uint32_t	k = 2 + (uint32_t) (it & 1),
							s = (uint32_t) unit_below(r, (uint64_t) INT32_MAX / (cnt - 1) - k + 1);
				int32_t		mx[3],
							mn[3];

				got = o->lrc_ext(a, cnt, s, k, mx, mn);
				CHECK(got <= cnt);
				for (uint32_t i = 0; i < k && got > 0; i++)
				{
					int64_t		wx = INT64_MIN,
								wn = INT64_MAX;

					for (uint32_t j = 0; j < got; j++)
					{
						int64_t		t = ((int64_t) (a[j] - a[0]) << 8) - (int64_t) (s + i) * j;

						wx = t > wx ? t : wx;
						wn = t < wn ? t : wn;
					}
					CHECKF(mx[i] == wx && mn[i] == wn, "%s lrc_ext n %u s %u slope +%u",
						   gpx_simd_name(levels[v]), cnt, s, i);
				}
			}
			check_locate(r, o, levels[v], it);
			check_merge_pos(r, o, levels[v], it);
			if (o->setop != NULL)
			{
				uint32_t	na = cnt + unit_below(r, 300),
							nb = 1 + unit_below(r, 600),
							ia = 0,
							ib = 0,
							op = unit_below(r, 3),
							nw;
				uint64_t	top = it % 5 == 0 ? GPX_MAX_DOCID - 4 * 600 : 0;

				/* b: a's docIDs, some dropped, others added between */
				kernel_run(r, a, na, top + unit_below(r, 3), 1 + unit_below(r, 4));
				nb = 0;
				for (uint32_t i = 0; i < na && nb < 600; i++)
				{
					if (unit_below(r, 3) != 0)
						b[nb++] = a[i];
					if (nb < 600 && unit_below(r, 3) == 0 && i + 1 < na && a[i + 1] > a[i] + 1)
						b[nb++] = a[i] + 1;
				}
				if (it % 7 == 0)
				{
					uint32_t	t[600];

					memcpy(t, a, sizeof(uint32_t) * na);
					memcpy(a, b, sizeof(uint32_t) * nb);
					memcpy(b, t, sizeof(uint32_t) * na);
					nw = na;
					na = nb;
					nb = nw;
				}
				memset(out, 0xEE, sizeof(out));
				got = o->setop((int) op, a, na, b, nb, &ia, &ib, out);
				nw = naive_setop((int) op, a, ia, b, ib, want);
				CHECKF(ia <= na && ib <= nb && got == nw &&
					   memcmp(out, want, sizeof(uint32_t) * nw) == 0 &&
					   out[got] == 0xEEEEEEEEu,
					   "%s setop %u: %u + %u, took %u + %u, %u docIDs, want %u",
					   gpx_simd_name(levels[v]), op, na, nb, ia, ib, got, nw);
				/* the cut: no docID taken from one run is left in the other */
				CHECK(ia == 0 || ib >= nb || b[ib] > a[ia - 1]);
				CHECK(ib == 0 || ia >= na || a[ia] > b[ib - 1]);
			}
		}
	}
	gpx_simd_force(-1);
}

/* The dispatch API itself. */
static void
test_api(void)
{
	CHECK(gpx_simd_supported(GPX_SIMD_SCALAR));
	CHECK(gpx_simd_supported(gpx_simd_detect()));
	CHECK(!gpx_simd_supported(GPX_SIMD_LEVELS) && !gpx_simd_supported(-1));
	CHECK(gpx_simd_force(GPX_SIMD_LEVELS) == GPX_E_ARG);
	CHECK(gpx_simd_force(GPX_SIMD_SCALAR) == GPX_OK &&
		  gpx_simd_active() == GPX_SIMD_SCALAR);
	CHECK(gpx_simd_force(-1) == GPX_OK && gpx_simd_active() == gpx_simd_detect());
	CHECK(gpx_simd_parse("auto") == -1 && gpx_simd_parse("") == -1 &&
		  gpx_simd_parse("sse41") == GPX_SIMD_SSE41 &&
		  gpx_simd_parse("avx512") == GPX_SIMD_AVX512 &&
		  gpx_simd_parse("avx3") == -2);
	for (int l = 0; l < GPX_SIMD_LEVELS; l++)
		CHECK(gpx_simd_parse(gpx_simd_name(l)) == l);
	CHECK(gpx_simd_name(-1) == NULL && gpx_simd_name(GPX_SIMD_LEVELS) == NULL);
}

int
main(int argc, char **argv)
{
	unit_rng	r = {20261125};

	for (int l = 0; l < GPX_SIMD_LEVELS; l++)
		if (gpx_simd_supported(l))
			levels[nlevels++] = l;
	if (argc > 1 && strcmp(argv[1], "--levels") == 0)
	{
		for (int v = 0; v < nlevels; v++)
			printf("%s%s", v ? " " : "", gpx_simd_name(levels[v]));
		printf("\n");
		return 0;
	}
	printf("variants compared:");
	for (int v = 0; v < nlevels; v++)
		printf(" %s", gpx_simd_name(levels[v]));
	printf("\n");
	test_api();
	test_decode(&r);
	test_intersect(&r);
	test_kernels(&r);
	return unit_finish();
}
