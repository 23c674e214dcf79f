#!/usr/bin/env python3
"""test/gpu/sass_paths.py - instruction counts of paths through a kernel's SASS.

    cuobjdump -sass KERNEL.cubin > k.sass
    sass_paths.py k.sass KERNEL_SUBSTRING --list          basic blocks: address,
                                                          size, successors, opcodes
    sass_paths.py k.sass KERNEL_SUBSTRING VIA ...         instructions on the
                                                          shortest entry -> EXIT path
                                                          through the VIA blocks, in order
    (V=1 in the environment prints the path's blocks)

A VIA is @0xADDR (the block starting there) or a regex matched against a
block's instructions (the first block, by address, that matches).  Paths
are node-weighted shortest paths: a loop body on the path counts once,
BRA.DIV (the divergent fallback of a warp collective) is taken as not
taken, a predicated branch both ways.  With one warp per list block (the
decode kernels' grid), the path from entry to EXIT through a form's
blocks is that form's warp instructions per block, loops aside.  Used for
docs/bench/gpu-decode-fast.md.
"""
import re, sys, heapq
txt = open(sys.argv[1]).read().split('\n'); want = sys.argv[2]; vias = [v for v in sys.argv[3:] if v != '--list']
ins = []; cur = None
for line in txt:
    m = re.search(r'Function : (\S+)', line)
    if m: cur = m.group(1); continue
    if cur is None or want not in cur: continue
    m = re.match(r'\s+/\*([0-9a-f]+)\*/\s+(.*?)\s*;', line)
    if m: ins.append((int(m.group(1), 16), m.group(2)))
while ins and (ins[-1][1].startswith('NOP') or re.match(r'BRA 0x%x$' % ins[-1][0], ins[-1][1])):
    ins.pop()
addrs = [a for a, _ in ins]
lead = {addrs[0]}
for i, (a, s) in enumerate(ins):
    if re.search(r'\b(BRA|EXIT|RET|BSYNC|WARPSYNC|CALL)\b', s) and i + 1 < len(ins): lead.add(ins[i+1][0])
    m = re.search(r'\bBRA\b(?!\.DIV).*?(0x[0-9a-f]+)', s)
    if m: lead.add(int(m.group(1), 16))
L = sorted(lead); bb = {}; order = []
for k, a in enumerate(L):
    b = L[k+1] if k + 1 < len(L) else addrs[-1] + 16
    body = [s for x, s in ins if a <= x < b]
    if not body: continue
    last = body[-1]; succ = []
    nxt = L[k+1] if k + 1 < len(L) else None
    m = re.search(r'\bBRA\b(?!\.DIV).*?(0x[0-9a-f]+)', last)
    pred = last.startswith('@')
    if m and 'BRA.DIV' not in last:
        succ.append(int(m.group(1), 16))
        if pred and nxt is not None: succ.append(nxt)
    elif re.search(r'\bEXIT\b', last) and not pred:
        succ = []
    elif nxt is not None:
        succ.append(nxt)
    if re.search(r'\bEXIT\b', last) and pred: succ.append('EXIT')
    if re.search(r'\bEXIT\b', last) and not pred: succ = ['EXIT']
    bb[a] = (len(body), succ, ' ; '.join(body)); order.append(a)
def sp(src, dst):
    # node-weighted shortest path src->dst (dst inclusive); dst may be 'EXIT'
    dist = {src: bb[src][0]}; prev = {}; pq = [(bb[src][0], src)]
    while pq:
        d, u = heapq.heappop(pq)
        if u == dst: break
        if d > dist.get(u, 1e18) or u == 'EXIT': continue
        for v in bb[u][1]:
            w = 0 if v == 'EXIT' else bb[v][0]
            if d + w < dist.get(v, 1e18):
                dist[v] = d + w; prev[v] = u; heapq.heappush(pq, (d + w, v))
    if dst not in dist: return None, []
    p = [dst]
    while p[-1] != src: p.append(prev[p[-1]])
    return dist[dst], p[::-1]
if '--list' in sys.argv:
    for a in order:
        print('0x%04x n=%3d -> %-22s | %s' % (a, bb[a][0], ','.join(x if x == 'EXIT' else hex(x) for x in bb[a][1]),
              ' '.join(s.split()[1] if s.startswith('@') else s.split()[0] for s in bb[a][2].split(' ; '))[:160]))
    sys.exit(0)
pts = [order[0]]
for v in vias:
    hit = [int(v[1:], 16)] if v.startswith('@') else [a for a in order if re.search(v, bb[a][2])]
    if not hit: print('no BB matches', v); sys.exit(1)
    pts.append(hit[0])
pts.append('EXIT')
tot = 0; path = []
for i in range(len(pts) - 1):
    d, p = sp(pts[i], pts[i+1])
    if d is None: print('no path', pts[i], pts[i+1]); sys.exit(1)
    tot += d - (bb[pts[i]][0] if i > 0 else 0)
    path += p if i == 0 else p[1:]
print(tot)
import os
if os.environ.get("V"):
    for a in path:
        if a != "EXIT": print(hex(a), bb[a][0], bb[a][2][:150])
