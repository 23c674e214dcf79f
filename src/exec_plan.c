/*
 * exec_plan.c - a GROUP BY of many intersection (or union) queries
 * reaches the executor as one batch, whichever grouping strategy the
 * planner would have preferred.
 *
 * posting_intersect's final function hands every group still pending in
 * its aggregate context to the executor as one batch (posting_intersect.c),
 * and so do the union aggregates' (posting_unionagg.c).
 * That needs every group's state complete before the first final call:
 * always true under a hash aggregate, never under a sorted GroupAggregate,
 * which finishes each group, and lets its consumer read the row, before
 * the next group's first input arrives.  No final function can wait for
 * groups that do not exist yet, so it is the plan that changes: with
 * gpuidx preloaded (so that there is an executor) this
 * create_upper_paths_hook replaces, in a grouping relation whose
 * aggregates include one that batches, every sorted AggPath by a hashed
 * one over the same input, less the sort that only served the grouping (a
 * Gather Merge becomes a Gather).
 *
 * It leaves the plan alone, so that each group of a sorted plan goes to the
 * executor alone, when the session does not use the executor
 * (gpuidx.use_executor off), hashing is disabled (enable_hashagg = off: the
 * way to ask for the sorted plan), the grouping cannot be hashed (an
 * aggregate with ORDER BY or DISTINCT inside, a key type without a hash
 * operator class), or the query has GROUPING SETS, ROLLUP or CUBE (their
 * GroupingSetsPaths mix strategies; PostgreSQL's choice stands).  A hash
 * aggregate that outgrows work_mem *
 * hash_mem_multiplier spills, and each part read back from disk is a batch
 * of its own.  posting_intersect_batch() is one batch in every case.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_language.h"
#include "catalog/pg_proc.h"
#include "fmgr.h"
#include "nodes/nodeFuncs.h"
#include "nodes/pathnodes.h"
#include "optimizer/cost.h"
#include "optimizer/pathnode.h"
#include "optimizer/planner.h"
#include "optimizer/prep.h"
#include "utils/syscache.h"

#include "exec_plan.h"
#include "exec_shmem.h"
#include "gpuidx.h"
#include "posting.h"

static create_upper_paths_hook_type gpuidx_plan_prev_hook = NULL;

/* Whether the aggregate aggfnoid hands its groups to the executor at once. */
static bool
plan_agg_batches(Oid aggfnoid)
{
	HeapTuple	tup;
	Oid			finalfn;
	Oid			lang;
	FmgrInfo	fl;

	tup = SearchSysCache1(AGGFNOID, ObjectIdGetDatum(aggfnoid));
	if (!HeapTupleIsValid(tup))
		return false;
	finalfn = ((Form_pg_aggregate) GETSTRUCT(tup))->aggfinalfn;
	ReleaseSysCache(tup);
	if (!OidIsValid(finalfn))
		return false;
	tup = SearchSysCache1(PROCOID, ObjectIdGetDatum(finalfn));
	if (!HeapTupleIsValid(tup))
		return false;
	lang = ((Form_pg_proc) GETSTRUCT(tup))->prolang;
	ReleaseSysCache(tup);
	if (lang != ClanguageId)
		return false;
	/* the C symbol decides, whatever the SQL name or schema */
	fmgr_info(finalfn, &fl);
	return posting_intersect_final_batches(fl.fn_addr) ||
		posting_union_final_batches(fl.fn_addr);
}

/* Expression walker: true at the first Aggref of a batching aggregate. */
static bool
plan_has_batching_agg(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Aggref))
		return plan_agg_batches(((Aggref *) node)->aggfnoid);
	return expression_tree_walker(node, plan_has_batching_agg, context);
}

/* Whether p is a sorted AggPath computing a batching aggregate. */
static bool
plan_sorted_batching_agg(Path *p)
{
	AggPath    *ap = (AggPath *) p;

	if (!IsA(p, AggPath) || ap->aggstrategy != AGG_SORTED)
		return false;
	if (ap->aggsplit != AGGSPLIT_SIMPLE && ap->aggsplit != AGGSPLIT_FINAL_DESERIAL)
		return false;			/* no final function runs here */
	return plan_has_batching_agg((Node *) p->pathtarget->exprs, NULL) ||
		plan_has_batching_agg((Node *) ap->qual, NULL);
}

/*
 * The input of a sorted aggregate without the ordering it only needed for
 * the grouping: sorts dropped, a Gather Merge made a Gather.
 */
static Path *
plan_unsorted_input(PlannerInfo *root, Path *p)
{
	while (IsA(p, SortPath) || IsA(p, IncrementalSortPath))
		p = ((SortPath *) p)->subpath;
	if (IsA(p, GatherMergePath))
	{
		GatherMergePath *gm = (GatherMergePath *) p;
		double		rows = gm->path.rows;

		return (Path *) create_gather_path(root, gm->path.parent,
										   plan_unsorted_input(root, gm->subpath),
										   gm->path.pathtarget,
										   PATH_REQ_OUTER(&gm->path), &rows);
	}
	return p;
}

/* The hashed counterpart of a sorted AggPath of rel. */
static Path *
plan_hashed(PlannerInfo *root, RelOptInfo *rel, AggPath *sorted)
{
	AggClauseCosts costs;

	MemSet(&costs, 0, sizeof(costs));
	get_agg_clause_costs(root, sorted->aggsplit, &costs);
	return (Path *) create_agg_path(root, rel,
									plan_unsorted_input(root, sorted->subpath),
									sorted->path.pathtarget, AGG_HASHED,
									sorted->aggsplit, sorted->groupClause,
									sorted->qual, &costs, sorted->numGroups);
}

/*
 * create_upper_paths_hook: in a grouping relation of batching aggregates,
 * hashed aggregation instead of sorted (see the head of this file).
 */
static void
gpuidx_plan_upper_paths(PlannerInfo *root, UpperRelationKind stage,
						RelOptInfo *input_rel, RelOptInfo *output_rel,
						void *extra)
{
	GroupPathExtraData *gextra = (GroupPathExtraData *) extra;
	List	   *old;
	ListCell   *lc;
	bool		any = false;

	if (gpuidx_plan_prev_hook)
		gpuidx_plan_prev_hook(root, stage, input_rel, output_rel, extra);
	if (stage != UPPERREL_GROUP_AGG || gextra == NULL)
		return;
	if (!enable_hashagg || !gpuidx_exec_use || gpuidx_exec_shm == NULL)
		return;
	if (root->parse->groupClause == NIL || root->parse->groupingSets != NIL ||
		(gextra->flags & GROUPING_CAN_USE_HASH) == 0)
		return;
	foreach(lc, output_rel->pathlist)
		if (plan_sorted_batching_agg((Path *) lfirst(lc)))
			any = true;
	if (!any)
		return;

	/* the same paths, the sorted aggregates hashed; add_path re-sorts them */
	old = output_rel->pathlist;
	output_rel->pathlist = NIL;
	foreach(lc, old)
	{
		Path	   *p = (Path *) lfirst(lc);

		if (plan_sorted_batching_agg(p))
			p = plan_hashed(root, output_rel, (AggPath *) p);
		add_path(output_rel, p);
	}
}

/* Install the planner hook (when the library is preloaded). */
void
gpuidx_plan_init(void)
{
	gpuidx_plan_prev_hook = create_upper_paths_hook;
	create_upper_paths_hook = gpuidx_plan_upper_paths;
}
