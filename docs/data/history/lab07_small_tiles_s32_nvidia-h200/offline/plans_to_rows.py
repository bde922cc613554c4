"""Rows for fit_tile (m n k splits stream vector measured_us) from lab07_plans JSON files, for one
kernel's plans; and a table of each shape's fastest plan, async_64x64's and wide_64x64's fastest.

  python3 plans_to_rows.py KERNEL ROWS_OUT PLANS.json ...
"""
import json, sys, re
kernel = sys.argv[1]
out = open(sys.argv[2], 'w')
files = sys.argv[3:]
for f in files:
    d = json.load(open(f))
    for p in d['problems']:
        m, n, k = map(int, re.match(r'(\d+)x(\d+)x(\d+)', p['problem']).groups())
        vector = int(n % 4 == 0)  # tight layout: B's rows aligned when N % 4 == 0 (async reads A at any)
        if not kernel.startswith('async'):
            vector = int(n % 4 == 0 and k % 4 == 0)
        best = {}
        for r in p['plans']:
            if not r.get('correct') or r.get('measured_us') is None:
                continue
            name = r['plan'].split('/')[0]
            best.setdefault(name, r)
            if r['measured_us'] < best[name]['measured_us']:
                best[name] = r
            if name == kernel:
                splits = 1
                mm = re.search(r'/split(\d+)', r['plan'])
                if mm:
                    splits = int(mm.group(1))
                out.write(f"{m} {n} {k} {splits} {r['stream_blocks']} {vector} {r['measured_us']}\n")
        fastest = min(best.values(), key=lambda r: r['measured_us'])
        a = best.get('async_64x64'); w = best.get('wide_64x64')
        print(f"{p['problem']:>16} cublas {p['cublas_us']:6.1f} chosen {p['chosen']:>26} fastest {fastest['plan']:>24} {fastest['measured_us']:6.1f}"
              f" async {a['plan'] if a else '-':>22} {a['measured_us'] if a else 0:6.1f} wide64 {w['plan'] if w else '-':>21} {w['measured_us'] if w else 0:6.1f}")
