/*
 * gpx_ref.c - the unit-test harness and the naive references the codec and
 * intersection results are compared with.
 */
#include <string.h>
#include "gpx_codec.h"
#include "gpx_cpu.h"
#include "unit.h"

long		unit_passed = 0;
long		unit_failed = 0;

/*
 * Before main: force the vectorised variant named by GPX_SIMD (unset or
 * "auto": the library's own choice), so that every unit test runs under
 * each variant (test/unit/run-unit.sh).  An unknown or unsupported name
 * is an error, never a silent fallback.
 */
__attribute__((constructor)) static void
unit_simd_env(void)
{
	const char *s = getenv("GPX_SIMD");
	int			level = gpx_simd_parse(s);

	if (level == -2 || (level >= 0 && gpx_simd_force(level) != GPX_OK))
	{
		fprintf(stderr, "GPX_SIMD=%s: unknown or not supported on this CPU\n", s);
		exit(2);
	}
}

/* Print the totals line; exit status 1 on any failure. */
int
unit_finish(void)
{
	printf("simd variant: %s\n", gpx_simd_name(gpx_simd_active()));
	printf("%ld passed, %ld failed\n", unit_passed, unit_failed);
	return unit_failed ? 1 : 0;
}

/* Allocate or die (tests only). */
void *
unit_xmalloc(size_t sz)
{
	void	   *p = malloc(sz ? sz : 1);

	if (p == NULL)
	{
		fprintf(stderr, "out of memory\n");
		exit(2);
	}
	return p;
}

/* splitmix64 step. */
uint64_t
unit_next(unit_rng *r)
{
	uint64_t	z = (r->s += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* Uniform value below bound. */
uint32_t
unit_below(unit_rng *r, uint64_t bound)
{
	return (uint32_t) (unit_next(r) % bound);
}

/* qsort comparator for uint32. */
static int
cmp_u32(const void *a, const void *b)
{
	uint32_t	x = *(const uint32_t *) a,
				y = *(const uint32_t *) b;

	return x < y ? -1 : x > y;
}

/* Sort and de-duplicate. */
uint32_t
ref_sort_unique(uint32_t *a, uint32_t n)
{
	uint32_t	i,
				m = 0;

	qsort(a, n, sizeof(uint32_t), cmp_u32);
	for (i = 0; i < n; i++)
		if (m == 0 || a[i] != a[m - 1])
			a[m++] = a[i];
	return m;
}

/* Generate a strictly increasing list of one distribution. */
uint32_t
unit_make_list(unit_rng *r, unit_dist dist, uint32_t n, uint64_t universe,
			   uint32_t *out)
{
	uint32_t	m = 0;

	if (n == 0 || universe == 0)
		return 0;
	if (n > universe)
		n = (uint32_t) universe;
	switch (dist)
	{
		case UNIT_UNIFORM:
			if ((uint64_t) n * 2 > universe)
			{
				/* dense: selection sampling, exact count */
				uint64_t	v,
							need = n;

				for (v = 0; v < universe && need > 0; v++)
					if (unit_below(r, universe - v) < need)
					{
						out[m++] = (uint32_t) v;
						need--;
					}
				return m;
			}
			while (m < n)
			{
				uint32_t	i,
							k = n - m;

				for (i = 0; i < k; i++)
					out[m + i] = unit_below(r, universe);
				m = ref_sort_unique(out, m + k);
			}
			return m;
		case UNIT_CLUSTERED:
			{
				uint64_t	v = unit_below(r, 1000);

				while (m < n && v < universe)
				{
					uint32_t	run = 1 + unit_below(r, 300);
					uint64_t	gap;

					while (run-- > 0 && m < n && v < universe)
					{
						out[m++] = (uint32_t) v;
						v += 1 + (unit_below(r, 8) == 0 ? unit_below(r, 4) : 0);
					}
					gap = unit_below(r, 4) == 0 ? unit_below(r, 1u << 20) : unit_below(r, 5000);
					v += gap;
				}
				return m;
			}
		case UNIT_EXTREME:
			{
				uint64_t	v = 0;
				uint64_t	top = universe - 1;

				out[m++] = 0;
				while (m + 1 < n)
				{
					uint64_t	room = top - v;
					uint64_t	left = n - m;	/* values still to place incl. top */
					uint64_t	step;

					if (room <= left)
						step = 1;
					else if (unit_below(r, 3) == 0)
						step = 1 + unit_below(r, (room - left) / 2 + 1);
					else
						step = 1 + unit_below(r, 3);
					v += step;
					if (v >= top)
						break;
					out[m++] = (uint32_t) v;
				}
				if (n > 1 && out[m - 1] < top)
					out[m++] = (uint32_t) top;
				return m;
			}
	}
	return 0;
}

/* First index with a[i] >= x (plain binary search over the input array). */
uint32_t
ref_lower_bound(const uint32_t *a, uint32_t n, uint32_t x)
{
	uint32_t	lo = 0,
				hi = n;

	while (lo < hi)
	{
		uint32_t	mid = lo + (hi - lo) / 2;

		if (a[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Merge intersection. */
uint32_t
ref_intersect2(const uint32_t *a, uint32_t na, const uint32_t *b, uint32_t nb,
			   uint32_t *out)
{
	uint32_t	i = 0,
				j = 0,
				m = 0;

	while (i < na && j < nb)
	{
		if (a[i] < b[j])
			i++;
		else if (a[i] > b[j])
			j++;
		else
		{
			out[m++] = a[i];
			i++;
			j++;
		}
	}
	return m;
}

int			unit_format_version = 0;

/* Encode into an exact-size blob; NULL on failure (recorded as a check). */
uint8_t *
unit_encode_exact(int codec, const uint32_t *docs, uint32_t n, size_t *len)
{
	gpx_encode_opts o = {unit_format_version, 0};
	size_t		cap = gpx_encode_bound_ex(codec, n, n ? docs[n - 1] : 0, &o);
	uint8_t    *buf = unit_xmalloc(cap);
	uint8_t    *out;
	gpx_status	st = gpx_encode_ex(codec, docs, n, &o, buf, cap, len);

	CHECKF(st == GPX_OK, "%s encode n=%u: %s", gpx_codec_name(codec), n,
		   gpx_status_str(st));
	if (st != GPX_OK)
	{
		free(buf);
		*len = 0;
		return NULL;
	}
	CHECKF(*len <= cap, "%s n=%u: %zu bytes over the bound %zu",
		   gpx_codec_name(codec), n, *len, cap);
	out = unit_xmalloc(*len);
	memcpy(out, buf, *len);
	free(buf);
	return out;
}

/* gpx_validate on an exact-size copy. */
gpx_status
unit_validate_exact(const uint8_t *blob, size_t len)
{
	uint8_t    *c = unit_xmalloc(len);
	uint32_t	scratch[GPX_MAX_BLOCK];
	gpx_status	st;

	memcpy(c, blob, len);
	st = gpx_validate(c, len, scratch);
	free(c);
	return st;
}
