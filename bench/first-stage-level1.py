#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Stage I first against Stage II first (episode.first_stage) on the corpus's
# level 1, full-loo at budget 40, over seeds 1-3 (issue #27, stop 47): seed 1
# from corpus-full-loo-first{1,2}-4c934e3.json, seeds 2 and 3 from the
# corpus{4,9}-first{1,2}-seeds23-4c934e3.json runs.  Prints each seed's
# geometric mean, each operator's, and the whole over the three seeds.
#   bench/first-stage-level1.py   (from the repository's root)
import json,math
def load(paths):
    runs={}
    for p in paths:
        try: d=json.load(open(p))
        except Exception: continue
        for r in d['runs']:
            o=r['operator'].rstrip('/').split('/')[-1]
            if '/level1/' not in r['operator']: continue
            runs[(o,r['seed'])]=r
    return runs
R=B='bench/results/'
a=load([B+'corpus-full-loo-first1-4c934e3.json',R+'corpus4-first1-seeds23-4c934e3.json',R+'corpus9-first1-seeds23-4c934e3.json'])
b=load([B+'corpus-full-loo-first2-4c934e3.json',R+'corpus4-first2-seeds23-4c934e3.json',R+'corpus9-first2-seeds23-4c934e3.json'])
ops=sorted({o for o,s in a}&{o for o,s in b})
g=lambda x: math.exp(sum(map(math.log,x))/len(x)) if x else float('nan')
tot_a=[];tot_b=[];ahead=level=behind=0
for s in (1,2,3):
    ks=[(o,s) for o in ops if (o,s) in a and (o,s) in b]
    print('seed',s,len(ks), round(g([a[k]['speedup'] for k in ks]),3), round(g([b[k]['speedup'] for k in ks]),3))
for o in ops:
    seeds=[s for s in (1,2,3) if (o,s) in a and (o,s) in b]
    x=g([a[(o,s)]['speedup'] for s in seeds]); y=g([b[(o,s)]['speedup'] for s in seeds])
    if len(seeds)==3:
        tot_a.append(x); tot_b.append(y)
        if abs(y/x-1)<=0.001: level+=1
        elif y>x: ahead+=1
        else: behind+=1
    e1=sum(a[(o,s)]['evals_to_95'] for s in seeds)/len(seeds); e2=sum(b[(o,s)]['evals_to_95'] for s in seeds)/len(seeds)
    print(f"{o:12s} seeds {seeds} fs1 {x:.3f} fs2 {y:.3f} e95 {e1:.1f} {e2:.1f}", [round(a[(o,s)]['speedup'],3) for s in seeds], [round(b[(o,s)]['speedup'],3) for s in seeds])
print('3 seeds:', len(tot_a), round(g(tot_a),3), round(g(tot_b),3), round(100*(g(tot_b)/g(tot_a)-1),1), 'ahead/level/behind', ahead, level, behind)
