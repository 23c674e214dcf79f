/*
 * gpx_ref.c - the reference library (gpx_ref.h): test-list generators and
 * the naive algorithms results are compared with.  Written for obviousness,
 * not speed.
 */
#include <stdio.h>
#include <stdlib.h>

#include "gpx_ref.h"

/* Allocate or die (tests and tools only). */
void *
ref_xmalloc(size_t sz)
{
	void	   *p = malloc(sz ? sz : 1);

	if (p == NULL)
	{
		fprintf(stderr, "out of memory\n");
		exit(2);
	}
	return p;
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

/* Selection sampling: keep v with probability (still needed) / (values left). */
uint32_t
ref_uniform_sample(ref_rng *r, uint32_t n, uint64_t universe, uint32_t *out)
{
	uint64_t	v;
	uint32_t	m = 0;

	for (v = 0; v < universe && m < n; v++)
		if (ref_below(r, universe - v) < n - m)
			out[m++] = (uint32_t) v;
	return m;
}

/* Generate a strictly increasing list of one shape. */
uint32_t
ref_make_list(ref_rng *r, ref_dist dist, uint32_t n, uint64_t universe,
			  uint32_t *out)
{
	uint32_t	m = 0;

	if (n == 0 || universe == 0)
		return 0;
	if (n > universe)
		n = (uint32_t) universe;
	switch (dist)
	{
		case REF_UNIFORM:
			/* dense: selection sampling, exact count */
			if ((uint64_t) n * 2 > universe)
				return ref_uniform_sample(r, n, universe, out);
			/* sparse: draw the missing values, sort, de-duplicate, repeat */
			while (m < n)
			{
				uint32_t	i,
							k = n - m;

				for (i = 0; i < k; i++)
					out[m + i] = ref_below(r, universe);
				m = ref_sort_unique(out, m + k);
			}
			return m;
		case REF_CLUSTERED:
			{
				uint64_t	v = ref_below(r, 1000);

				while (m < n && v < universe)
				{
					uint32_t	run = 1 + ref_below(r, 300);
					uint64_t	gap;

					while (run-- > 0 && m < n && v < universe)
					{
						out[m++] = (uint32_t) v;
						v += 1 + (ref_below(r, 8) == 0 ? ref_below(r, 4) : 0);
					}
					gap = ref_below(r, 4) == 0 ? ref_below(r, 1u << 20) : ref_below(r, 5000);
					v += gap;
				}
				return m;
			}
		case REF_EXTREME:
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
					else if (ref_below(r, 3) == 0)
						step = 1 + ref_below(r, (room - left) / 2 + 1);
					else
						step = 1 + ref_below(r, 3);
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

/* FNV-1a 64 over little-endian docIDs. */
uint64_t
ref_hash_docs(const uint32_t *d, size_t n)
{
	uint64_t	h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n; i++)
		for (int b = 0; b < 4; b++)
		{
			h ^= (d[i] >> (8 * b)) & 0xFF;
			h *= 0x100000001b3ull;
		}
	return h;
}
