/*
 * gpuidx.c - module entry point of the gpuidx extension.
 *
 * The SQL surface of the posting types lives in posting*.c; the executor
 * (background worker, shared memory, GUCs) in exec_*.c.  _PG_init only
 * hands over to the executor's initialisation.
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/guc.h"

#include "exec_client.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

/* Module load hook: register the executor's GUCs, shared memory and worker. */
void
_PG_init(void)
{
	gpuidx_exec_init();
	/* every gpuidx.* setting is defined by now: reject misspelt ones */
	MarkGUCPrefixReserved("gpuidx");
}
