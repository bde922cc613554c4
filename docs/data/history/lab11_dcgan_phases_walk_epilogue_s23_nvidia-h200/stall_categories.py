# Warp-stall samples of an Nsight Compute source page (--page source --csv --print-source sass), grouped by
# what the instruction does; a kernel per section.
#   stall_categories.py SOURCE.csv
import csv,sys,collections,re
rows=list(csv.reader(open(sys.argv[1])))
secs=[]; cur=None
for r in rows:
    if r and r[0]=="Kernel Name":
        cur={'name':r[1],'hdr':None,'rows':[]}; secs.append(cur); continue
    if cur is None or not r: continue
    if cur['hdr'] is None: cur['hdr']=r; continue
    cur['rows'].append(r)
seen=set()
def num(x):
    try: return float(x)
    except: return 0.0
for s in secs:
    n=re.search(r'kernel<([^>]*)>',s['name']).group(1)
    if n in seen: continue
    seen.add(n)
    h=s['hdr']; idx={k:i for i,k in enumerate(h)}
    cat=collections.Counter(); total=0; prev=''
    for r in s['rows']:
        sm=num(r[idx['Warp Stall Sampling (All Samples)']]); total+=sm
        src=r[idx['Source']].strip()
        op=re.sub(r'^@!?U?P\w+\s+','',src).split()[0] if src else ''
        if 'DEPBAR' in op: c='wgmma wait'
        elif 'HGMMA' in op or 'WARPGROUP' in op: c='wgmma issue/arrive'
        elif 'SYNCS' in op or (op=='BRA' and 'SYNCS' in prev): c='mbarrier'
        elif op=='BRA': c='bra (loop)'
        elif op in ('STG','STS','LDG','LDS','F2FP','FFMA','FMNMX','FMUL','FADD','MOVM','PRMT'): c='epilogue-ish '+op
        else: c='other '+op
        cat[c]+=sm; prev=src
    print("==",n,"samples",int(total))
    for c,v in cat.most_common(14): print(f"   {v/total*100:5.1f}% {c}")
