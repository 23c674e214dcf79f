/*
 * unit.h - the harness of the C unit tests: checks (assertions) grouped
 * into named cases, and the reference library (test/ref/gpx_ref.h) under
 * the names the tests use.
 *
 * A case is one named scenario, usually one test function:
 *
 *     int main(void)
 *     {
 *         UNIT_RUN(test_roundtrips());
 *         unit_case_begin("pool of %d threads", nt); ...; unit_case_end();
 *         return unit_finish();
 *     }
 *
 * Each case prints "ok - NAME (N assertions, T s)" or "not ok - NAME (F of
 * N assertions failed, T s)" as it ends; a failing check prints its
 * expression and location at once (the first 50).  unit_finish prints
 *
 *     assertions: N passed, N failed
 *     N passed, N failed            <- cases
 *
 * and returns the exit status.  A program that declares no case counts as
 * one case.
 */
#ifndef GPX_UNIT_H
#define GPX_UNIT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "gpx_codec.h"
#include "gpx_ref.h"

#ifdef __cplusplus
extern "C"
{
#endif

/* Assertions passed and failed so far (the whole program). */
extern long unit_passed;
extern long unit_failed;

/* Print one failed check (the first 50 of the program); fmt explains it. */
void		unit_report_failure(const char *file, int line, const char *expr,
								const char *fmt,...)
			__attribute__((format(printf, 4, 5)));

/* Record one check; print the failing expression with its location. */
#define CHECK(cond) do { \
	if (cond) unit_passed++; \
	else { unit_failed++; unit_report_failure(__FILE__, __LINE__, #cond, "%s", ""); } \
} while (0)

/* Like CHECK with a printf-style explanation on failure. */
#define CHECKF(cond, ...) do { \
	if (cond) unit_passed++; \
	else { unit_failed++; unit_report_failure(__FILE__, __LINE__, #cond, __VA_ARGS__); } \
} while (0)

/* Start a case named by a printf format (ends the open case, if any). */
void		unit_case_begin(const char *fmt,...);

/* End the open case: print its line and count it passed or failed. */
void		unit_case_end(void);

/* Run one call as a case named after the call's text. */
#define UNIT_RUN(call) do { unit_case_begin("%s", #call); call; unit_case_end(); } while (0)

/* End the open case, print the closing lines and return the exit code. */
int			unit_finish(void);

/* Format version unit_encode_exact writes (0: the current one). */
extern int	unit_format_version;

/*
 * Encode docs with codec into a fresh exact-size malloc'd blob, so that any
 * over-read shows under ASan; records the encode as a check.  NULL (and
 * *len = 0) on failure.
 */
uint8_t    *unit_encode_exact(int codec, const uint32_t *docs, uint32_t n,
							  size_t *len);

/* gpx_validate on an exact-size copy of blob[0..len). */
gpx_status	unit_validate_exact(const uint8_t *blob, size_t len);

/* The reference library under the unit tests' names. */
typedef ref_rng unit_rng;
typedef ref_dist unit_dist;
#define UNIT_UNIFORM REF_UNIFORM
#define UNIT_CLUSTERED REF_CLUSTERED
#define UNIT_EXTREME REF_EXTREME
#define unit_next ref_next
#define unit_below ref_below
#define unit_make_list ref_make_list
#define unit_xmalloc ref_xmalloc

#ifdef __cplusplus
}
#endif

#endif
