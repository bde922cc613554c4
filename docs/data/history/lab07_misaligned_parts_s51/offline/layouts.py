"""The layouts call.sh times: lab 07's 15 worst random shapes of each seed in session 51's H100 run of
main (history/lab07_deep_staging_s51/call_1/rs_base_SEED_times.json), those with a row of A, B or
C off 16 bytes (K % 4 or N % 4 not 0), each tight and with the padding that aligns the rows of B
alone (_ldb+P), of C alone (_ldc+P), of both, and of A, B and C (lda + Q where K % 4 != 0), in the
syntax of the drivers' --shapes. Writes ../scripts/layouts.txt (one per line). Run: python3 layouts.py"""
import json
from pathlib import Path

here = Path(__file__).parent
runs = here.parent.parent / "lab07_deep_staging_s51" / "call_1"
worst = []
for seed in ("4998064687210808757", "8444672377437012093"):
    shapes = json.loads((runs / f"rs_base_{seed}_times.json").read_text())["shapes"]
    lab07 = sorted((s for s in shapes if s["lab"] == "07"),
                   key=lambda s: s["reference_ms"] / s["best_ms"])
    worst += [s["shape"] for s in lab07[:15]]
lines = []
for shape in worst:
    m, n, k = map(int, shape.split("x"))
    p, q = -n % 4, -k % 4
    if p == 0 and q == 0:
        continue  # every row already aligned
    lines.append(shape)
    if p:
        lines += [f"{shape}_ldb+{p}", f"{shape}_ldc+{p}", f"{shape}_ldb+{p}_ldc+{p}"]
    if q:
        lines.append(f"{shape}_lda+{q}" + (f"_ldb+{p}_ldc+{p}" if p else ""))
(here.parent / "scripts" / "layouts.txt").write_text("\n".join(lines) + "\n")
print(f"{len(lines)} layouts of {len(set(l.split('_')[0] for l in lines))} shapes")
