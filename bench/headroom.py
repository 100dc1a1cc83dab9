#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# How much any ordering of the same moves could add (issue #27): for each
# operator, the best speedup any run in the given tables reached (any arm,
# budget or seed: what the optimizer's transformations are known to hold)
# against ARM's speedup at BUDGET (the geometric mean over its seeds).  A
# bank only reorders the moves Stage I and Stage II already have, so an
# arm that reached every best-known speedup leaves it nothing to win: the
# overall ratio bounds what `full` can lead ARM by at that budget until
# new transformations raise the best known.  Tables must come from one
# cycle model (the frozen one of #27).  Prints Markdown.
#   bench/headroom.py ARM BUDGET TABLE.json [TABLE.json ...]
import json, math, sys, collections

if len(sys.argv) < 4:
    sys.exit("usage: bench/headroom.py ARM BUDGET TABLE.json [TABLE.json ...]")
arm, budget = sys.argv[1], int(sys.argv[2])
best, ref, where = {}, collections.defaultdict(dict), {}
for path in sys.argv[3:]:
    doc = json.load(open(path))
    for r in doc['runs']:
        op = r['operator']
        if r['speedup'] > best.get(op, 0):
            best[op] = r['speedup']
            where[op] = "%s, budget %s, seed %d (%s)" % (r['arm'], doc.get('budget'), r['seed'],
                                                         path.split('/')[-1])
        if r['arm'] == arm and doc.get('budget') == budget:
            ref[op][r['seed']] = r['speedup']
if not ref:
    sys.exit("no run of %s at budget %d in these tables" % (arm, budget))
gm = lambda xs: math.exp(sum(math.log(x) for x in xs) / len(xs))
ops = sorted(ref)
mine = {op: gm(list(ref[op].values())) for op in ops}
b, a = gm([best[op] for op in ops]), gm([mine[op] for op in ops])
at_best = sum(mine[op] >= best[op] / 1.001 for op in ops)
print("%d operators: `%s` at budget %d %.3fx, the best known %.3fx: **headroom %+.1f%%**; "
      "`%s` is at the best known on %d of them.\n" % (len(ops), arm, budget, a, b,
                                                        100 * (b / a - 1), arm, at_best))
print("| operator | seeds | `%s` | best known | where |\n|---|---:|---:|---:|---|" % arm)
for op in ops:
    if best[op] > mine[op] * 1.001:
        print("| %s | %d | %.3fx | %.3fx | %s |" % (op, len(ref[op]), mine[op], best[op], where[op]))
