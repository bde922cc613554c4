#!/usr/bin/env python3
"""One line a shape of bench_few_columns11 outputs: the fastest slice timed, the planned one (its model time),
`best` and cuBLAS, GPU time a launch in us.  Usage: bench_summary.py BENCH_OUTPUT [...]"""
import sys
for f in sys.argv[1:]:
    print("==",f)
    d={}
    for l in open(f):
        x=l.split()
        if len(x)==7 and x[0].isdigit(): d.setdefault("x".join(x[:3]),{})[x[3]]=(float(x[4]),float(x[5]))
    for s,p in d.items():
        sl={k:v for k,v in p.items() if k.startswith("s")}
        bs=min(sl,key=lambda k:sl[k][1])
        print(f"{s:15s} fastest {bs:6s} {sl[bs][1]:7.2f} planned {p['planned'][1]:7.2f} (model {p['planned'][0]:7.2f}) best {p['best'][1]:7.2f} cublas {p['cublas'][1]:7.2f}")
