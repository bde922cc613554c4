# Paired estimate of wide_128x64's fixed cost against wide_64x64's (5 us): at each shape where both
# ran whole, (measured - the model's time without its fixed cost) of 128x64 minus that of 64x64, plus 5.
from harness import *
import statistics as st
data = load(); SH = shapes_of(data)
base = run_driver('./driver_base', SH)
seen = set(); d = []
for s in data:
    for p in data[s]:
        if p['shape'] in seen: continue
        seen.add(p['shape']); m, n, k = p['shape']; me = p['meas']; pr = base[p['shape']]['pred']
        if 'wide_128x64' in me and 'wide_64x64' in me:
            d.append((k, vec(m, n, k), (me['wide_128x64'] - (pr['wide_128x64'] - 8)) - (me['wide_64x64'] - (pr['wide_64x64'] - 5)) + 5))
for kmax in [64, 100, 160, 600, 10**6]:
    for v in [None, 1, 0]:
        x = [e for k, vv, e in d if k <= kmax and (v is None or vv == v)]
        if x: print(f'K<={kmax:7d} vec={v}: n={len(x):3d} fixed(128x64) = {st.median(x):5.2f} (quartiles {st.quantiles(x, n=4)[0]:5.2f} {st.quantiles(x, n=4)[2]:5.2f})')
