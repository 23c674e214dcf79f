#!/usr/bin/env python3
"""test/gpu/sass_src_top.py - where a kernel's executed instructions go,
from the CSV that test/gpu/decode_src_ncu.sh writes (Nsight Compute's
source page, SASS, one launch).

    sass_src_top.py SRC.csv [N] [--per DOCS]

Prints the kernel's total executed warp instructions (and per docID with
--per), then its straight-line runs of SASS (split at every branch and
every change of execution count) with the N (default 25) largest totals
first: count per instruction, instructions in the run, total, share, and
the run's opcodes.
"""
import csv, re, sys

args = list(sys.argv[1:])
per = None
if '--per' in args:
    i = args.index('--per'); per = float(args[i + 1]); del args[i:i + 2]
path = args[0]; top = int(args[1]) if len(args) > 1 else 25
rows = []; name = '?'; hdr = None
with open(path, newline='') as f:
    for rec in csv.reader(f):
        if not rec: continue
        if rec[0] == 'Kernel Name': name = rec[1]; continue
        if rec[0] == 'Address': hdr = rec; continue
        if hdr and rec[0].startswith('0x'):
            d = dict(zip(hdr, rec))
            rows.append((int(d['Address'], 16), d['Source'].strip(), int(d['Instructions Executed'] or 0)))
if not rows:
    sys.exit(f"{path}: no SASS rows (was a kernel profiled?)")
total = sum(r[2] for r in rows)
print(f"{name}: {total:,} warp instructions executed" + (f", {total / per:.3f} per docID" if per else ""))
runs = []; cur = []
for a, s, n in rows:
    if cur and (n != cur[-1][2] or re.match(r'(@!?U?P\w+\s+)?(BRA|EXIT|RET|BSYNC|WARPSYNC|CALL)', cur[-1][1])):
        runs.append(cur); cur = []
    cur.append((a, s, n))
if cur: runs.append(cur)
runs = [r for r in runs if r[0][2] > 0]
runs.sort(key=lambda r: -r[0][2] * len(r))
print(f"| start | exec each | instrs | total | share | opcodes |\n|---|---|---|---|---|---|")
for r in runs[:top]:
    ops = ' '.join(re.sub(r'^@!?U?P\w+\s+', '', s).split(' ')[0] for _, s, _ in r)
    t = r[0][2] * len(r)
    print(f"| {r[0][0] - rows[0][0]:#x} | {r[0][2]:,} | {len(r)} | {t:,} | {100.0 * t / total:.1f}% | {ops[:160]} |")
