#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Stage I against Best-of-N in a table bench_optimize wrote (BENCH_OUT.json,
# e.g. from bench/realops-table.sh), for issue #26: both arms over every
# seed, the best any run found on each operator (a lower bound on what the
# space holds, so a ceiling on any lead over Best-of-N), failures as a share
# of the budget, and the operators where any run found something.
#   bench/stage1-vs-bon.py TABLE.json
import json, math, sys, collections
d = json.load(open(sys.argv[1]))
by = collections.defaultdict(lambda: collections.defaultdict(list))
for r in d['runs']:
    by[r['operator']][r['arm']].append(r)
ops = sorted(op for op, a in by.items() if len(a['stage1']) == len(a['bon']) == d['seeds'])
gm = lambda xs: math.exp(sum(math.log(x) for x in xs) / len(xs))
s1 = gm([r['speedup'] for op in ops for r in by[op]['stage1']])
bn = gm([r['speedup'] for op in ops for r in by[op]['bon']])
best = gm([max(r['speedup'] for r in by[op]['stage1'] + by[op]['bon']) for op in ops])
print("operators with every seed of both arms: %d" % len(ops))
print("Stage I %.3fx, Best-of-N %.3fx: Stage I %+.1f%%" % (s1, bn, 100 * (s1 / bn - 1)))
print("best any run found, per operator: %.3fx, %+.1f%% over Best-of-N; Stage I takes %.0f%% of that gap"
      % (best, 100 * (best / bn - 1), 100 * math.log(s1 / bn) / math.log(best / bn) if best > bn else 0))
for arm in ('stage1', 'bon'):
    rs = [r for op in ops for r in by[op][arm]]
    f = sum(r['failures'] for r in rs); e = sum(r['evaluations'] for r in rs)
    print("%s: %d failed of %d evaluated (%.1f%%), %.1f%% of the budget %d x %d; frozen changed %d of %d"
          % (arm, f, e, 100 * f / max(e, 1), 100 * f / (d['budget'] * len(rs)), len(rs), d['budget'],
             sum(max(r.get('frozen_changed', 0), 0) for r in rs), sum(max(r.get('frozen_checked', 0), 0) for r in rs)))
gain = [op for op in ops if max(r['speedup'] for r in by[op]['stage1'] + by[op]['bon']) > 1.001]
print("operators any run sped up: %d; on them Stage I %.3fx, Best-of-N %.3fx, best %.3fx" % (
    len(gain), gm([r['speedup'] for op in gain for r in by[op]['stage1']]),
    gm([r['speedup'] for op in gain for r in by[op]['bon']]),
    gm([max(r['speedup'] for r in by[op]['stage1'] + by[op]['bon']) for op in gain])))
w = sum(gm([r['speedup'] for r in by[op]['stage1']]) > gm([r['speedup'] for r in by[op]['bon']]) * 1.001 for op in gain)
l = sum(gm([r['speedup'] for r in by[op]['stage1']]) * 1.001 < gm([r['speedup'] for r in by[op]['bon']]) for op in gain)
print("of those, Stage I ahead on %d, behind on %d, level on %d" % (w, l, len(gain) - w - l))
print("\n| operator | stage1 (3 seeds) | bon (3 seeds) | best any run | stage1 failures / evaluated |")
print("|---|---:|---:|---:|---:|")
for op in gain:
    a = by[op]
    print("| %s | %.3fx | %.3fx | %.3fx | %d / %d |" % (op, gm([r['speedup'] for r in a['stage1']]),
          gm([r['speedup'] for r in a['bon']]), max(r['speedup'] for r in a['stage1'] + a['bon']),
          sum(r['failures'] for r in a['stage1']), sum(r['evaluations'] for r in a['stage1'])))
