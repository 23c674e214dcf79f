/*
 * gpx_cpu.c - choosing the vectorised variant at run time (gpx_cpu.h):
 * CPU feature detection, the table in use, forcing a level.
 */
#include <string.h>

#include "gpx_simd.h"

const gpx_simd_ops *gpx_simd_cur = NULL;

/* Scalar: no kernels, the block forms' own loops do all the work. */
const gpx_simd_ops gpx_simd_scalar_ops = {
	.level = GPX_SIMD_SCALAR,
};

/* The table of a level, or NULL when this build has none. */
static const gpx_simd_ops *
simd_table(int level)
{
	switch (level)
	{
		case GPX_SIMD_SCALAR:
			return &gpx_simd_scalar_ops;
#if GPX_SIMD_X86
		case GPX_SIMD_SSE41:
			return &gpx_simd_sse41_ops;
		case GPX_SIMD_AVX2:
			return &gpx_simd_avx2_ops;
		case GPX_SIMD_AVX512:
			return &gpx_simd_avx512_ops;
#endif
	}
	return NULL;
}

/* Whether this CPU and build can run level. */
bool
gpx_simd_supported(int level)
{
	if (level == GPX_SIMD_SCALAR)
		return true;
#if GPX_SIMD_X86
	__builtin_cpu_init();
	switch (level)
	{
		case GPX_SIMD_SSE41:
			return __builtin_cpu_supports("sse4.1") &&
				__builtin_cpu_supports("popcnt");
		case GPX_SIMD_AVX2:
			return __builtin_cpu_supports("avx2") &&
				__builtin_cpu_supports("bmi2") &&
				__builtin_cpu_supports("popcnt");
		case GPX_SIMD_AVX512:
			return __builtin_cpu_supports("avx512f") &&
				__builtin_cpu_supports("avx512bw") &&
				__builtin_cpu_supports("avx512vl") &&
				__builtin_cpu_supports("avx512dq") &&
				__builtin_cpu_supports("avx512vbmi") &&
				__builtin_cpu_supports("avx512vbmi2") &&
				__builtin_cpu_supports("bmi2") &&
				__builtin_cpu_supports("popcnt");
	}
#endif
	return false;
}

/* The best level this CPU supports. */
gpx_simd_level
gpx_simd_detect(void)
{
	for (int l = GPX_SIMD_LEVELS - 1; l > GPX_SIMD_SCALAR; l--)
		if (gpx_simd_supported(l))
			return (gpx_simd_level) l;
	return GPX_SIMD_SCALAR;
}

/* Pick the detected table unless one is set; every caller gets the same. */
const gpx_simd_ops *
gpx_simd_init(void)
{
	const gpx_simd_ops *o = __atomic_load_n(&gpx_simd_cur, __ATOMIC_ACQUIRE);

	if (o == NULL)
	{
		const gpx_simd_ops *want = simd_table(gpx_simd_detect());

		/* the first store wins; a racing init computed the same table */
		if (!__atomic_compare_exchange_n(&gpx_simd_cur, &o, want, false,
										 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			return o;
		o = want;
	}
	return o;
}

/* The level in use. */
gpx_simd_level
gpx_simd_active(void)
{
	return gpx_simd()->level;
}

/* Force a level (-1: back to the automatic choice). */
gpx_status
gpx_simd_force(int level)
{
	if (level == -1)
	{
		__atomic_store_n(&gpx_simd_cur, simd_table(gpx_simd_detect()),
						 __ATOMIC_RELEASE);
		return GPX_OK;
	}
	if (simd_table(level) == NULL || !gpx_simd_supported(level))
		return GPX_E_ARG;
	__atomic_store_n(&gpx_simd_cur, simd_table(level), __ATOMIC_RELEASE);
	return GPX_OK;
}

/* Name of a level. */
const char *
gpx_simd_name(int level)
{
	static const char *const names[GPX_SIMD_LEVELS] = {
		"scalar", "sse4.1", "avx2", "avx512"
	};

	if (level < 0 || level >= GPX_SIMD_LEVELS)
		return NULL;
	return names[level];
}

/* Level named s; -1 for auto or empty, -2 for unknown. */
int
gpx_simd_parse(const char *s)
{
	if (s == NULL || s[0] == '\0' || strcmp(s, "auto") == 0)
		return -1;
	if (strcmp(s, "sse41") == 0)
		return GPX_SIMD_SSE41;
	for (int l = 0; l < GPX_SIMD_LEVELS; l++)
		if (strcmp(s, gpx_simd_name(l)) == 0)
			return l;
	return -2;
}
