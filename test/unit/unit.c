/*
 * unit.c - the unit-test harness (unit.h): assertion and case counters,
 * the case and closing lines, and the exact-size encode/validate helpers.
 */
#include <stdarg.h>
#include <string.h>
#include <time.h>

#include "gpx_codec.h"
#include "gpx_cpu.h"
#include "unit.h"

long		unit_passed = 0;
long		unit_failed = 0;
int			unit_format_version = 0;

static long cases_passed = 0;
static long cases_failed = 0;
static char case_name[256];
static int	case_open = 0;
static long case_p0,
			case_f0;
static double case_t0;

/* Monotonic seconds. */
static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Print a failed check at once (stderr is unbuffered), the first 50 only. */
void
unit_report_failure(const char *file, int line, const char *expr,
					const char *fmt,...)
{
	va_list		ap;
	char		why[1024];

	if (unit_failed > 50)
		return;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	fprintf(stderr, "FAIL %s:%d: %s%s%s\n", file, line, expr, why[0] ? ": " : "", why);
	if (unit_failed == 50)
		fputs("(further failures are counted, not printed)\n", stderr);
}

/* Open a case; the previous one, if still open, ends first. */
void
unit_case_begin(const char *fmt,...)
{
	va_list		ap;

	if (case_open)
		unit_case_end();
	va_start(ap, fmt);
	vsnprintf(case_name, sizeof(case_name), fmt, ap);
	va_end(ap);
	case_open = 1;
	case_p0 = unit_passed;
	case_f0 = unit_failed;
	case_t0 = now_s();
}

/* Close the open case and print its line. */
void
unit_case_end(void)
{
	long		p = unit_passed - case_p0,
				f = unit_failed - case_f0;
	double		t = now_s() - case_t0;

	if (!case_open)
		return;
	case_open = 0;
	if (f == 0)
	{
		cases_passed++;
		printf("ok - %s (%ld assertions, %.2f s)\n", case_name, p, t);
	}
	else
	{
		cases_failed++;
		printf("not ok - %s (%ld of %ld assertions failed, %.2f s)\n",
			   case_name, f, p + f, t);
	}
	fflush(stdout);
}

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

/* Print the assertion and case totals; exit status 1 on any failure. */
int
unit_finish(void)
{
	if (case_open)
		unit_case_end();
	/* a program without cases is one case */
	if (cases_passed + cases_failed == 0)
	{
		if (unit_failed)
			cases_failed = 1;
		else
			cases_passed = 1;
	}
	printf("simd variant: %s\n", gpx_simd_name(gpx_simd_active()));
	printf("assertions: %ld passed, %ld failed\n", unit_passed, unit_failed);
	printf("%ld passed, %ld failed\n", cases_passed, cases_failed);
	fflush(stdout);
	return (unit_failed || cases_failed) ? 1 : 0;
}

/* Encode into an exact-size blob; NULL on failure (recorded as a check). */
uint8_t *
unit_encode_exact(int codec, const uint32_t *docs, uint32_t n, size_t *len)
{
	gpx_encode_opts o = {unit_format_version, 0};
	size_t		cap = gpx_encode_bound_ex(codec, n, n ? docs[n - 1] : 0, &o);
	uint8_t    *buf = ref_xmalloc(cap);
	uint8_t    *out;
	gpx_status	st;

	/* the encoder owes nothing to what the buffer held: poison it */
	memset(buf, 0x5A, cap);
	st = gpx_encode_ex(codec, docs, n, &o, buf, cap, len);

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
	out = ref_xmalloc(*len);
	memcpy(out, buf, *len);
	free(buf);
	return out;
}

/* gpx_validate on an exact-size copy. */
gpx_status
unit_validate_exact(const uint8_t *blob, size_t len)
{
	uint8_t    *c = ref_xmalloc(len);
	uint32_t	scratch[GPX_MAX_BLOCK];
	gpx_status	st;

	memcpy(c, blob, len);
	st = gpx_validate(c, len, scratch);
	free(c);
	return st;
}
