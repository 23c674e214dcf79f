#!/usr/bin/env bash
# test/bench/backend_cg.sh [OUTDIR] - where a backend's instructions go,
# per query, on #21's acceptance queries: the "floor: stored answer only"
# path, the intersection in the backend, and the intersection sent to the
# executor, each as pipeline_bench.sh runs it (a prepared statement, text
# results).  The server runs under valgrind's callgrind (every process);
# each path runs twice in its own session, N1 and N2 queries, and the
# difference of the two backends' counts over N2 - N1 is the path's cost
# per query, startup and PREPARE cancelled out; the same difference per
# function (self and inclusive) says where it goes.  User-space
# instructions only: the kernel's share (syscalls, wake-ups) is not in
# them.  Each path first runs the set twice in a session not measured
# (the executor keeps a list the second time it arrives; the pages are
# then in the buffer cache), so the figures are of a warm server.  The
# executor runs on its CPU threads (no GPU needed: the backend's side of
# a request is the same for either device).
#
#   test/bench/backend_cg.sh [OUTDIR]       (root, after make install)
#
# Knobs (environment): CG_SCALE (0.3), CG_QUERIES (10000 generated, kept:
# shortest list >= 10^4, as pipeline_bench.sh), CG_N1 (0), CG_N2 (0: every
# query kept), CG_TYPE (pfor); a session of n queries runs the set's
# first n, from the start again when n is more than the set.
# Writes OUTDIR/summary.md (instructions per query, each path; the
# functions whose per-query cost differs most between the executor path
# and the floor) and the callgrind files; OUTDIR defaults to
# test/bench/out/backend-cg-UTCSTAMP (ignored by git).
set -u
OUTD=${1:-test/bench/out/backend-cg-$(date -u +%Y%m%d-%H%M%S)}
mkdir -p "$OUTD" || exit 1
OUTD=$(cd "$OUTD" && pwd)
SCALE=${CG_SCALE:-0.3}
NQ=${CG_QUERIES:-10000}
N1=${CG_N1:-0}
N2=${CG_N2:-0}
T=${CG_TYPE:-pfor}
command -v valgrind >/dev/null && command -v callgrind_annotate >/dev/null || { echo "needs valgrind"; exit 1; }
BL_TAG=cg; export BL_T0=$(date +%s.%N)
. test/bench/pgcluster.sh; . test/bench/benchlib.sh
BL_WORK=$(mktemp -d /tmp/cg.XXXXXX); chmod 755 "$BL_WORK"
trap 'pgc_stop; rm -rf "$BL_WORK"' EXIT

bl_step "building the benchmark tools"
make -s bench-tools >"$BL_WORK/tools.log" 2>&1 || { cat "$BL_WORK/tools.log"; exit 1; }
pgc_start "$BL_WORK/pg" 1 || exit 1
[ "$PGC_PRELOADED" = 1 ] || { echo "the server does not start with gpuidx preloaded"; exit 1; }
g=$BL_WORK/gen
bl_step "generating: scale $SCALE, $NQ queries; keeping shortest list >= 10000"
test/gen/bin/gpx_gen --scale "$SCALE" --queries "$NQ" --extra 0 --seed 1 --order random \
	--quiet --out "$g" >/dev/null || exit 1
read -r nkept _ < <(bl_prune_min_shortest "$g" 10000) || exit 1
[ "$N2" -gt 0 ] || N2=$nkept
[ "$N2" -gt "$N1" ] || { echo "CG_N2 ($N2) must be more than CG_N1 ($N1)"; exit 1; }
chmod -R a+rX "$g"
bl_load_synth d "$g" || exit 1
why=$(bl_exec_device d cpu)
[ -z "$why" ] || { echo "no cpu executor: $why"; exit 1; }
# (read at the restart below; under callgrind the executor is slow, so no
# time limit: no request may be given up and computed in the backend)
pgc_psql -d d -c "ALTER SYSTEM SET gpuidx.device = 'cpu'" \
	-c "ALTER SYSTEM SET gpuidx.executor_timeout = 0" >/dev/null || exit 1
pgc_psql -d d -c "VACUUM ANALYZE" >/dev/null
# the floor as every harness runs it
floor_sql=$(bl_floor_paths d | sed -n 's/^floor: stored answer only||//p')
[ -n "$floor_sql" ] || { echo "no stored answers for the floor"; exit 1; }

# the server again, every process under callgrind
bl_step "restarting under callgrind"
pgc_as "$PGC_BIN/pg_ctl" -D "$PGC_DIR/data" -m fast -w stop >/dev/null || exit 1
mkdir -p "$BL_WORK/cg" && chmod 777 "$BL_WORK/cg"
cat >"$BL_WORK/pg-cg" <<EOF
#!/bin/sh
exec valgrind --tool=callgrind --trace-children=yes --callgrind-out-file=$BL_WORK/cg/cg.%p \\
	--dump-instr=no --compress-strings=no $PGC_BIN/postgres "\$@"
EOF
chmod 755 "$BL_WORK/pg-cg"
pgc_as "$PGC_BIN/pg_ctl" -D "$PGC_DIR/data" -p "$BL_WORK/pg-cg" -l "$PGC_DIR/server-cg.log" -w -t 300 start >/dev/null \
	|| { tail "$PGC_DIR/server-cg.log"; exit 1; }
for i in $(seq 1 120); do [ "$(bl_executors d)" -gt 0 ] && break; sleep 1; done

# one session: its backend's pid, PREPARE, n executions of the query set's first n queries
session() {
	local name=$1 setup=$2 sql=$3 n=$4
	{
		echo "\\o $BL_WORK/$name-$n.pid"
		echo "SELECT pg_backend_pid();"
		echo "\\o /dev/null"
		echo "$setup"
		echo "PREPARE q(int[]) AS $sql;"
		pgc_psql -d d -At -c "SELECT 'EXECUTE q(''' || term_ids::text || ''');'
			FROM generate_series(1, $n / greatest((SELECT count(*) FROM queries), 1) + 1) r, queries
			ORDER BY r, qid LIMIT $n"
	} >"$BL_WORK/$name-$n.sql"
	pgc_psql -d d -At -f "$BL_WORK/$name-$n.sql" || return 1
	tr -d ' \n' <"$BL_WORK/$name-$n.pid"
}
isect="SELECT posting_intersect(docs_$T) FROM postings WHERE term_id = ANY (\$1::int[])"
PATHS=("floor|SET gpuidx.use_executor = off;|$floor_sql"
	"backend|SET gpuidx.use_executor = off;|$isect"
	"executor|SET gpuidx.use_executor = on; SET gpuidx.executor_fallback = off; SET gpuidx.device = 'cpu';|$isect")
declare -A PID
for p in "${PATHS[@]}"; do
	IFS='|' read -r name setup sql <<<"$p"
	# warm-up (not measured): the set twice, so that the executor, which
	# keeps a list the second time it arrives, holds every list, and the
	# buffer cache every page
	bl_step "$name, warm-up: $((2 * nkept)) queries"
	session "$name-warm" "$setup" "$sql" $((2 * nkept)) >/dev/null || exit 1
	for n in "$N1" "$N2"; do
		bl_step "$name, $n queries"
		PID[$name-$n]=$(session "$name" "$setup" "$sql" "$n") || exit 1
	done
done
pgc_as "$PGC_BIN/pg_ctl" -D "$PGC_DIR/data" -m fast -w -t 300 stop >/dev/null
cp "$BL_WORK"/cg/cg.* "$OUTD/" 2>/dev/null
for k in "${!PID[@]}"; do echo "$k ${PID[$k]}"; done | sort >"$OUTD/pids.txt"

# per path: (N2 run - N1 run) / (N2 - N1), in total and per function
for p in "${PATHS[@]}"; do
	IFS='|' read -r name _ _ <<<"$p"
	for n in "$N1" "$N2"; do
		callgrind_annotate --auto=no --inclusive=no --threshold=100 "$OUTD/cg.${PID[$name-$n]}" >"$BL_WORK/$name-$n.self" 2>/dev/null
		callgrind_annotate --auto=no --inclusive=yes --threshold=100 "$OUTD/cg.${PID[$name-$n]}" >"$BL_WORK/$name-$n.incl" 2>/dev/null
	done
done
python3 - "$BL_WORK" "$N1" "$N2" "$T" floor backend executor >"$OUTD/summary.md" <<'EOF'
import re, sys
w, n1, n2, typ = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
paths = sys.argv[5:]
def load(f):
    tot, fn = 0, {}
    for ln in open(f):
        m = re.match(r"\s*([\d,]+)\s+(?:\([\s\d.%]+\)\s+)?(?:\S+:)?(\S.*?)(?: \[.*\])?$", ln)
        if "PROGRAM TOTALS" in ln:
            tot = int(ln.split()[0].replace(",", ""))
        elif m and not ln.strip().startswith("Ir"):
            v = int(m.group(1).replace(",", ""))
            fn[m.group(2)] = fn.get(m.group(2), 0) + v
    return tot, fn
per = {}
for p in paths:
    t1, s1 = load(f"{w}/{p}-{n1}.self"); t2, s2 = load(f"{w}/{p}-{n2}.self")
    _, i1 = load(f"{w}/{p}-{n1}.incl"); _, i2 = load(f"{w}/{p}-{n2}.incl")
    d = n2 - n1
    per[p] = ((t2 - t1) / d,
              {k: (s2.get(k, 0) - s1.get(k, 0)) / d for k in set(s1) | set(s2)},
              {k: (i2.get(k, 0) - i1.get(k, 0)) / d for k in set(i1) | set(i2)})
print(f"# A backend's user-space instructions per query (callgrind), {typ}\n")
print(f"Each path: two sessions of {n1} and {n2} queries (the acceptance set's first), the difference / {n2 - n1}.")
print("The server's processes are forked from the postmaster, whose counts before the fork are in every file: they cancel out in the difference.\n")
print("| path | instructions per query | x floor |\n|---|---:|---:|")
for p in paths:
    print(f"| {p} | {per[p][0]:,.0f} | {per[p][0] / per['floor'][0]:.2f} |")
for p in paths:
    print(f"\n## {p}: the 25 functions with the most instructions per query (self)\n")
    print("| function | self | inclusive |\n|---|---:|---:|")
    for k, v in sorted(per[p][1].items(), key=lambda kv: -kv[1])[:25]:
        print(f"| `{k}` | {v:,.0f} | {per[p][2].get(k, 0):,.0f} |")
print("\n## executor path against the floor: the 30 largest differences per query (self)\n")
print("| function | executor | floor | difference |\n|---|---:|---:|---:|")
e, f = per["executor"][1], per["floor"][1]
for k in sorted(set(e) | set(f), key=lambda k: -abs(e.get(k, 0) - f.get(k, 0)))[:30]:
    print(f"| `{k}` | {e.get(k, 0):,.0f} | {f.get(k, 0):,.0f} | {e.get(k, 0) - f.get(k, 0):+,.0f} |")
EOF
cat "$OUTD/summary.md"
