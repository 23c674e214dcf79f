/*
 * gpx_cpu.h - which vectorised variant of the codec's inner loops runs
 * (public API; pure C, no postgres.h).
 *
 * One library build holds every variant the compiler can emit for the
 * target: scalar always; on x86-64 also SSE4.1, AVX2 and AVX-512 (F, BW,
 * VL, DQ, VBMI, VBMI2), each function compiled with its own target
 * attribute.
 * At first use the library picks the best variant the CPU supports
 * (__builtin_cpu_supports) and keeps it in a function-pointer table; the
 * choice is a single pointer-sized store, so concurrent first uses pick
 * the same table and no lock is needed.  Every variant decodes and
 * intersects bit-identically to the scalar code (test/unit/test_simd.c
 * and every unit test under GPX_SIMD=level check that).
 *
 * gpx_simd_force() replaces the choice for the whole process (tests and
 * benchmarks; not meant for concurrent use with running decodes, though a
 * switch mid-way only changes the speed of the calls after it).  The test
 * and benchmark programs honour the environment variable GPX_SIMD (a name
 * below, or "auto"); the library itself reads no environment.
 */
#ifndef GPX_CPU_H
#define GPX_CPU_H

#include "gpx_codec.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gpx_simd_level
{
	GPX_SIMD_SCALAR = 0,		/* portable C, always available */
	GPX_SIMD_SSE41 = 1,			/* x86-64 SSE4.1 (128-bit) */
	GPX_SIMD_AVX2 = 2,			/* x86-64 AVX2 (256-bit) */
	GPX_SIMD_AVX512 = 3			/* x86-64 AVX-512 F/BW/VL/DQ/VBMI/VBMI2 */
} gpx_simd_level;

#define GPX_SIMD_LEVELS 4

/* The best level this CPU supports and this build holds. */
gpx_simd_level gpx_simd_detect(void);

/* Whether this CPU and build can run level (false for unknown levels). */
bool		gpx_simd_supported(int level);

/* The level in use now (chosen at first use unless forced). */
gpx_simd_level gpx_simd_active(void);

/*
 * Use level from now on (GPX_E_ARG when it is unknown or not supported
 * here); level -1 returns to the automatic choice.
 */
gpx_status	gpx_simd_force(int level);

/* "scalar", "sse4.1", "avx2", "avx512"; NULL for an unknown level. */
const char *gpx_simd_name(int level);

/*
 * The level named s ("scalar", "sse4.1" or "sse41", "avx2", "avx512"),
 * -1 for "auto" or an empty string, -2 for anything else.
 */
int			gpx_simd_parse(const char *s);

#ifdef __cplusplus
}
#endif

#endif							/* GPX_CPU_H */
