#!/usr/bin/env python3
"""The sliced short-K model's two constants (best_plan.h: kSlicedStartUs, kSlicedChunkUs) fitted
again to session 37's H200 bench, with the short-K kernel's chunk and memory constants as session
47 refitted them (fit_short_k_norm.py) in place of those session 37 fitted against: the sliced
model adds its own costs to short_k_chunk_us, so its two constants must follow that function's.
Session 37's fit_sliced.py does the work; this sets its module's constants first.

    python3 refit_sliced.py SM_GFLOPS WORD_NS ELEMENT_NS DRAM_SHARE \
        ../../lab11_cluster_slices_s37_nvidia-h200/call_1/bench_*.txt
"""
import importlib.util
import pathlib
import sys

here = pathlib.Path(__file__).resolve().parent
source = here.parents[1] / "lab11_cluster_slices_s37_nvidia-h200" / "offline" / "fit_sliced.py"
spec = importlib.util.spec_from_file_location("fit_sliced", source)
fit_sliced = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fit_sliced)
sm_gflops, word_ns, element_ns, dram_share = (float(x) for x in sys.argv[1:5])
fit_sliced.SM_GFLOPS, fit_sliced.WORD_NS = sm_gflops, word_ns
fit_sliced.ELEMENT_NS, fit_sliced.DRAM_SHARE = element_ns, dram_share
sys.argv = [str(source)] + sys.argv[5:]
fit_sliced.main()
