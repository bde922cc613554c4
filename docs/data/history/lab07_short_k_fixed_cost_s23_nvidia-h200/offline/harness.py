#!/usr/bin/env python3
"""Lab 07 planner, offline: the plan each model build chooses at every timed shape, scored by the
measured time of that plan over the fastest measured plan (geometric mean per set)."""
import json, math, os, subprocess, sys
H = str(__import__('pathlib').Path(__file__).resolve().parents[2]) + '/'
SETS = {
  's21_calib64':  ['lab07_plans_calibration_s21_nvidia-h200/plans_calibration.json'],
  's21_earlier22': ['lab07_plans_calibration_s21_nvidia-h200/plans_worst.json',
                    'gemm_random_shapes_scratch_s21_nvidia-h200/lab07_plans.json',
                    'lab07_split_in_place_s21_nvidia-h200/lab07_plans.json'],
  's21_fill9':    ['lab07_plans_calibration_s21_nvidia-h200/plans_fill.json'],
  's22_thin18':   ['lab07_thin_slices_s22_nvidia-h200/plans_thin_slices.json'],
  's22_block39':  ['lab07_thin_slices_s22_nvidia-h200/block_start/plans_block_start.json'],
}
FIT = ['s22_thin18', 's22_block39']
HELD = ['s21_calib64', 's21_earlier22', 's21_fill9']

def load():
    out = {}
    for name, files in SETS.items():
        probs = []
        for f in files:
            d = json.load(open(H + f))
            for p in d['problems']:
                lab = p['problem']
                assert all(c.isdigit() or c == 'x' for c in lab), lab
                m, n, k = map(int, lab.split('x'))
                meas = {q['plan']: q['measured_us'] for q in p['plans'] if q['correct'] and q['written']}
                pred = {q['plan']: q['predicted_us'] for q in p['plans']}
                probs.append(dict(shape=(m, n, k), label=lab, meas=meas, rec_pred=pred,
                                  rec_chosen=p['chosen'], file=f))
        out[name] = probs
    return out

def vec(m, n, k):
    return int(k % 4 == 0 and n % 4 == 0)

def run_driver(exe, shapes, env=None):
    inp = ''.join(f'{m} {n} {k} {vec(m,n,k)}\n' for m, n, k in shapes)
    r = subprocess.run([exe], input=inp, capture_output=True, text=True, env={**os.environ, **(env or {})}, check=True)
    res, cur = {}, None
    for line in r.stdout.splitlines():
        t = line.split()
        if t[0] == 'S':
            cur = (int(t[1]), int(t[2]), int(t[3])); res[cur] = dict(chosen=t[5], pred={})
        else:
            res[cur]['pred'][t[1]] = float(t[2])
    return res

def loss(prob, plan):
    meas = prob['meas']; best = min(meas.values())
    if plan in meas: return meas[plan] / best, True
    return max(meas.values()) / best, False   # a pick not timed counts as the slowest

def gmean(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float('nan')

def evaluate(data, choices):
    """choices: shape -> plan name. Returns per-set gmean, per-shape losses."""
    per = {}
    for s, probs in data.items():
        per[s] = [(p, choices[p['shape']], *loss(p, choices[p['shape']])) for p in probs]
    return per

def summary(per):
    g = {s: gmean([x[2] for x in v]) for s, v in per.items()}
    g['FIT'] = gmean([x[2] for s in FIT for x in per[s]])
    g['HELD'] = gmean([x[2] for s in HELD for x in per[s]])
    g['ALL'] = gmean([x[2] for s in per for x in per[s]])
    return g

def shapes_of(data):
    return sorted({p['shape'] for v in data.values() for p in v})

if __name__ == '__main__':
    data = load()
    exes = sys.argv[1:] or ['./driver_base']
    shapes = shapes_of(data)
    base = run_driver(exes[0], shapes)
    pb = evaluate(data, {s: r['chosen'] for s, r in base.items()})
    gb = summary(pb)
    print('sets:', {s: len(v) for s, v in data.items()}, 'FIT=', FIT, 'HELD=', HELD)
    print('base', exes[0], ' '.join(f'{k}={v:.4f}' for k, v in gb.items()))
    print('  untimed picks:', [(x[0]['label'], x[1]) for v in pb.values() for x in v if not x[3]])
    for exe in exes[1:]:
        r = run_driver(exe, shapes)
        pn = evaluate(data, {s: q['chosen'] for s, q in r.items()})
        gn = summary(pn)
        print('new ', exe, ' '.join(f'{k}={v:.4f}' for k, v in gn.items()))
        for s in data:
            for a, b in zip(pb[s], pn[s]):
                if a[1] != b[1]:
                    print(f'  {s:14s} {a[0]["label"]:>18s}: {a[1]:>22s} {a[2]:.3f}{"" if a[3] else "*"} -> {b[1]:>22s} {b[2]:.3f}{"" if b[3] else "*"}  ratio new/old {b[2]/a[2]:.3f}')
