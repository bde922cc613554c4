#!/usr/bin/env bash
# What a record's device call script shares, sourced from the repository root after it sets NAME
# (the call's name); OUT is the device's return folder. `unpack PACK` extracts PACK/bin.tar.xz into
# a scratch folder S (its lib/ on the library path), makes the output folder O and writes the
# device and date to O/environment.txt. `packed` packs O into $OUT/NAME.tar.gz and
# copies the steps' lines to $OUT/NAME_steps.txt (run after every step, so that a call cut short
# keeps what it did); `step STEP LIMIT CMD...` runs CMD under a time limit into O/STEP.txt and
# appends its line (exit code, seconds, test and sanitizer summaries); `random_shapes SEED DIR SIDE...`
# runs scripts/gemm-random-shapes for lab 07 with each side's build (DIR/SIDE) in turn, keeping each
# run's summary and times.
unpack() {
  S=$(mktemp -d) O=$(mktemp -d)
  tar -xJf "$1/bin.tar.xz" -C "$S"
  export LD_LIBRARY_PATH=$S/lib:${LD_LIBRARY_PATH:-}
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$O/environment.txt" 2>&1
  date -u >> "$O/environment.txt"
}
packed() {
  cp "$O/${NAME}_steps.txt" "$OUT/" 2>/dev/null
  tar -czf "$OUT/$NAME.tar.gz" -C "$O" .
}
step() {
  local name=$1 limit=$2 s=$SECONDS
  shift 2
  timeout "$limit" "$@" > "$O/$name.txt" 2>&1
  echo "$name rc=$? $((SECONDS - s)) s $(grep -E '^\[  (PASSED|FAILED) |ERROR SUMMARY|RACECHECK SUMMARY' "$O/$name.txt" | tr '\n' ' ')" |
    tee -a "$O/${NAME}_steps.txt"
  packed
}
random_shapes() {
  local seed=$1 dir=$2 side s r
  shift 2
  for side in "$@"; do
    s=$SECONDS r=rs_${side}_$seed
    timeout 60 scripts/gemm-random-shapes --labs 07 --seed "$seed" "$dir/$side" "$dir/$r" > "$O/$r.log" 2>&1
    echo "$r rc=$? $((SECONDS - s)) s" | tee -a "$O/${NAME}_steps.txt"
    cp "$dir/$r"/gemm_random_shapes_nvidia-h*.txt "$O/${r}_summary.txt" 2>/dev/null
    cp "$dir/$r/gemm_random_shapes_times.json" "$O/${r}_times.json" 2>/dev/null
    packed
  done
}
