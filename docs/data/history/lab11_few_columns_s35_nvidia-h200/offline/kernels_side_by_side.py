#!/usr/bin/env python3
"""Two bench_few_columns11 outputs of the same shapes, tightly packed operands (new, base), as a markdown table:
the fastest slice of each kernel, base's `best` and cuBLAS.  Usage: kernels_side_by_side.py NEW BASE"""
import sys
def load(f):
    d={}
    for l in open(f):
        x=l.split()
        if len(x)==7 and x[0].isdigit(): d.setdefault("x".join(x[:3]),{})[x[3]]=float(x[5])
    return d
n=load(sys.argv[1]); b=load(sys.argv[2])
print("| shape | A's loads | FMA kernel (main), fastest slice | mma.sync kernel, fastest slice | `best` before | cuBLAS |")
print("| --- | --- | ---: | ---: | ---: | ---: |")
for s in n:
    if s not in b: continue
    m_,nn,k=map(int,s.split("x"))
    bytes_=2*k
    w=16 if bytes_%16==0 else 8 if bytes_%8==0 else 4 if bytes_%4==0 else 2
    fs=lambda d:min((v,kk) for kk,v in d.items() if kk.startswith("s"))
    nv,nk=fs(n[s]); bv,bk=fs(b[s])
    print(f"| {s.replace('x',' x ')} | {w} bytes | {bv:.2f} ({bk}) | {nv:.2f} ({nk}) | {b[s]['best']:.2f} | {b[s]['cublas']:.2f} |")
