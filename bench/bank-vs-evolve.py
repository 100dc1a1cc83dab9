#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# The bank's worth (issue #27): full-loo (or full) against evolve, the same
# Stage I and motifs without a bank, in tables bench_optimize wrote
# (BENCH_OUT.json), merged: a long table run as several processes over
# parts of the operator list, or one seed per run.  Prints Markdown: per
# level and overall, each arm's geometric mean over operators (an
# operator's speedup is the geometric mean over the seeds both arms have),
# the lead, how many operators each arm leads, the evaluations to 95% of
# the final best, then every operator.  A run found twice (the same
# operator, arm and seed) must give the same speedup, else it stops.
#   bench/bank-vs-evolve.py [--arm A] [--against B] [--seeds 1,2] [LABEL=]TABLE.json ...
# --arm: the arm measured (default full-loo, else full); --against: the arm
# it is measured against (default evolve); --seeds: only these seeds.
# LABEL=TABLE.json names that table's full and full-loo runs LABEL: the same
# arm run with another option (BENCH_TURN_PATIENCE, say) set beside it.
import json, math, sys, collections

args, opts = [], {}
argv = sys.argv[1:]
while argv:
    a = argv.pop(0)
    if a in ('--arm', '--against', '--seeds') and argv:
        opts[a] = argv.pop(0)
    else:
        args.append(a)
if not args:
    sys.exit("usage: bench/bank-vs-evolve.py [--arm A] [--against B] [--seeds 1,2] [LABEL=]TABLE.json ...")
only_seeds = {int(x) for x in opts['--seeds'].split(',')} if '--seeds' in opts else None
runs, budgets = {}, set()
for arg in args:
    label, path = arg.split('=', 1) if '=' in arg else (None, arg)
    doc = json.load(open(path))
    budgets.add(doc.get('budget'))
    for r in doc['runs']:
        if only_seeds and r['seed'] not in only_seeds:
            continue
        if label and r['arm'] in ('full', 'full-loo'):
            r = dict(r, arm=label)
        key = (r['operator'], r['arm'], r['seed'])
        if key in runs and abs(runs[key]['speedup'] - r['speedup']) > 1e-9:
            sys.exit("%s: %s %s seed %d gives %.4fx here and %.4fx in an earlier table"
                     % (path, r['operator'], r['arm'], r['seed'], r['speedup'], runs[key]['speedup']))
        runs[key] = r
if len(budgets) != 1:
    sys.exit("the tables have different budgets: %s" % sorted(budgets, key=str))
arms = {a for _, a, _ in runs}
bank = opts.get('--arm') or ('full-loo' if 'full-loo' in arms else 'full')
other = opts.get('--against', 'evolve')
if bank not in arms or other not in arms:
    sys.exit("the tables need the arms %s and %s; they have %s" % (bank, other, sorted(arms)))

by = collections.defaultdict(lambda: collections.defaultdict(dict))
for (op, arm, seed), r in runs.items():
    by[op][arm][seed] = r
gm = lambda xs: math.exp(sum(math.log(x) for x in xs) / len(xs))
rows = {}
for op, a in sorted(by.items()):
    seeds = sorted(set(a[bank]) & set(a[other]))
    if seeds:
        rows[op] = (seeds, gm([a[bank][s]['speedup'] for s in seeds]),
                    gm([a[other][s]['speedup'] for s in seeds]),
                    sum(a[bank][s]['evals_to_95'] for s in seeds) / len(seeds),
                    sum(a[other][s]['evals_to_95'] for s in seeds) / len(seeds),
                    a[bank][seeds[0]]['group'])
seed_counts = sorted({len(v[0]) for v in rows.values()})
print("Budget %s, %d operators with both arms, %s seed(s) each; `%s` against `%s`.\n"
      % (budgets.pop(), len(rows), "/".join(map(str, seed_counts)), bank, other))
print("| group | operators | %s | %s | %s ahead by | ahead / level / behind | evals to 95%%: %s / %s |"
      % (bank, other, bank, bank, other))
print("|---|---:|---:|---:|---:|---|---:|")
groups = sorted({v[5] for v in rows.values()}) + [None]
for g in groups:
    sel = [v for v in rows.values() if g is None or v[5] == g]
    b, e = gm([v[1] for v in sel]), gm([v[2] for v in sel])
    ahead = sum(v[1] > v[2] * 1.001 for v in sel)
    behind = sum(v[2] > v[1] * 1.001 for v in sel)
    print("| %s | %d | %.3fx | %.3fx | %+.1f%% | %d / %d / %d | %.1f / %.1f |"
          % (g or "overall", len(sel), b, e, 100 * (b / e - 1), ahead, len(sel) - ahead - behind,
             behind, sum(v[3] for v in sel) / len(sel), sum(v[4] for v in sel) / len(sel)))
print("\n| operator | seeds | %s | %s |\n|---|---:|---:|---:|" % (bank, other))
for op, v in rows.items():
    print("| %s | %d | %.3fx | %.3fx |" % (op, len(v[0]), v[1], v[2]))
