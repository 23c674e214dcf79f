/*
 * exec_plan.h - the planner hook that plans a GROUP BY of batching
 * intersection aggregates as a hash aggregate, so that all its groups
 * reach the executor as one batch (exec_plan.c).
 */
#ifndef EXEC_PLAN_H
#define EXEC_PLAN_H

/* Install the hook; called from _PG_init when the library is preloaded. */
extern void gpuidx_plan_init(void);

#endif							/* EXEC_PLAN_H */
