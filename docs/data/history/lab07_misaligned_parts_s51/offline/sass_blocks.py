"""Lab 07 best's tile kernel at 13807 x 8579 x 256, C tight against C padded (call_2, Nsight Compute source
pages, since reduced to this table): per block of 500 SASS lines, instructions executed, stall samples,
no-instruction samples and the share of FFMAs, STGs, LDSs and SHFLs. Run: python3 sass_blocks.py TIGHT.csv PADDED.csv
(the CSVs were not kept: 4 MB each; sass_blocks.txt is its output)"""
import csv, sys
def load(p):
    rows = list(csv.reader(open(p)))
    hdr = rows[1]; idx = {h: i for i, h in enumerate(hdr)}
    return idx, [r for r in rows[2:] if len(r) == len(hdr)]
ia, a = load(sys.argv[1]); ib, b = load(sys.argv[2])
E = "Instructions Executed"
# blocks of 500 instructions: executed counts and no_inst / total samples in both
print("block  exec_tight exec_aligned  samples_tight samples_aligned  noinst_tight noinst_aligned  FFMA-share  STG LDS SHFL")
for s in range(0, len(a), 500):
    rg = range(s, min(s + 500, len(a)))
    f = lambda rows, idx, col: sum(int(rows[i][idx[col]] or 0) for i in rg)
    src = [a[i][ia["Source"]] for i in rg]
    print(f"{s:5d} {f(a,ia,E):12d} {f(b,ib,E):12d} {f(a,ia,'Warp Stall Sampling (All Samples)'):8d} {f(b,ib,'Warp Stall Sampling (All Samples)'):8d} {f(a,ia,'stall_no_inst'):8d} {f(b,ib,'stall_no_inst'):8d}  {sum('FFMA' in x for x in src)/len(src):.2f}  {sum('STG' in x for x in src)} {sum('LDS' in x for x in src)} {sum('SHFL' in x for x in src)}")
