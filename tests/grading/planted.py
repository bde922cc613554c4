"""Planted submissions for the grader's GPU self-test, one per way a submission could take points it
did not earn or do harm, each with what its report must say. Each starts from a solution as a student
hands it in (one kernels.cu) and names the text it replaces, failing loudly when the text is gone.

The ways in, as the grader sees them (the instructor's guide says which boundary stops each):
  includes     a file reached through the lab folder, a split or digraph directive   -> build or integrity
  names        a library call spelled by token pasting, a redefined suite name         -> integrity
  content      a file pulled into the object by the assembler (.incbin)               -> integrity
  evidence     reports written by the process, unavailable reasons of its own          -> never read
  confinement  functions found by address (dlopen of cuBLAS, fopen of a tool's report, a
               kill of the tool), a system call hidden inside another instruction      -> the runner's Landlock
  timing       a kernel that tells timed calls from checked ones                       -> checked timed runs
  technique    the lab's technique missing, kernels in another namespace               -> technique rules
  sandbox      system calls of its own                                                  -> integrity, sandbox
  faults       no compile, a hang, out-of-bounds reads, a race, a wrong edge case        -> build, tests, sanitizers
  evidence     results kept between calls, one kernel under four names, serial GPUs     -> timed checks, profiles
"""
from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

from cudalabs.grading import predictions
from cudalabs.grading.solution_file import single_file
from cudalabs.paths import REPO

from by_address import FIND_BY_ADDRESS, HIDDEN_SYSCALL
from padded_plants import padded_plants
from plants import replace_once

LAB05_KERNEL_START = "template <int BM, int BN, int BK, int TM, int TN>\n__global__ void __launch_bounds__((BM / TM) * (BN / TN))\n    register_tiled_kernel(cudalabs::GemmArgs args) {\n"


@dataclass(frozen=True)
class Plant:
    name: str
    folder: str
    source: str  # the whole kernels.cu
    expect: str  # what grade-report.json must show: a fatal class, "state:<variant>=<state>", "full marks",
    # "not implemented yet" or "whole core"


# The report's line for a lab's predictions (a file handed in, not a kernel): what a planted lab shows is
# read from its kernels' lines, and the skeletons and student versions hand in no predictions.
PREDICTIONS = predictions.read_rule(REPO / "tests" / "grading" / "rubric.json").file


def expectation_problem(lab: dict, expect: str) -> str | None:
    """Why one lab of a grade-report.json does not show `expect`, or None when it does."""
    lab = {**lab, "variants": [v for v in lab["variants"] if v["name"] != PREDICTIONS]}
    if expect == "full marks":
        # The solutions' speed against themselves: a noisy pair may cost a few hundredths.
        ok = lab["fatal"] is None and lab["points"] >= 0.97 * lab["max_points"]
        return (
            None
            if ok
            else f"{lab['points']} / {lab['max_points']} ({lab['fatal']}: {lab['reason']}), expected full marks"
        )
    if expect == "whole core":
        # A student version written from the handout alone: no fatal, every variant of the core written
        # and passing all its tests with its technique (a GPU that cannot run one: "not run here"); the
        # optional challenge may be left unwritten, and what of it is written passes too. Speed is the
        # student's (scored, not expected).
        def wrong(v: dict) -> str | None:
            if v["state"] == "passed":
                return None if v["correctness"] >= v["correctness_max"] else f"{v['name']} correctness"
            allowed = ("not run here", "not implemented yet") if v.get("challenge") else ("not run here",)
            return None if v["state"] in allowed else f"{v['name']} {v['state']}"

        problems = [w for w in map(wrong, lab["variants"]) if w]
        core_passed = any(v["state"] == "passed" for v in lab["variants"] if not v.get("challenge"))
        ok = lab["fatal"] is None and core_passed and not problems
        return (
            None
            if ok
            else f"{lab['fatal'] or ''} {lab['reason'] or ''} {problems or 'no core variant passed'}, expected the whole core"
        )
    if expect == "not implemented yet":
        # A variant worth no points is given code (lab 11's pipelined WMMA): a skeleton runs it, and it passes,
        # or reads "not implemented yet" where it calls the student's code (lab 13's attention_naive runs
        # the student's softmax).
        def given(v: dict) -> bool:
            return v["correctness_max"] + v["performance_max"] == 0

        states = {v["state"] for v in lab["variants"] if not given(v)} - {"not run here"}
        broken = [
            f"given {v['name']} {v['state']}"
            for v in lab["variants"]
            if given(v) and v["state"] not in ("passed", "not run here", "not implemented yet")
        ]
        ok = lab["fatal"] is None and lab["points"] == 0 and states == {"not implemented yet"} and not broken
        return (
            None
            if ok
            else f"{lab['points']} points ({lab['fatal']}), states {sorted(states)} {broken or ''}, expected not implemented yet"
        )
    if expect.startswith("state:"):
        name, state = expect[len("state:") :].split("=")
        variant = next((v for v in lab["variants"] if v["name"] == name), None)
        if variant is None:
            return f"no variant {name} in the report"
        ok = variant["state"] == state and lab["points"] < lab["max_points"]
        return None if ok else f"{name} {variant['state']} ({variant['note']}), expected {state}"
    return None if lab["fatal"] == expect else f"{lab['fatal']} ({lab['reason']}), expected {expect}"


def write_rubric(folder: Path, quick: bool) -> Path:
    """The suite's rubric for planted submissions, in `folder` with the test lists it names: lab 01's
    time limit a minute (the planted hang waits for no more), and with `quick` one timed pair of one
    round per variant (the scores' logic is the same; the timings are noisier)."""
    data = json.loads((REPO / "tests" / "grading" / "rubric.json").read_text())
    data["labs"]["01"]["time_limit_s"] = 60
    if quick:
        for part in [data["defaults"], *data["labs"].values()]:
            if part.get("benchmark"):
                part["benchmark"]["pairs"], part["benchmark"]["rounds"] = 1, 1
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "rubric.json"
    path.write_text(json.dumps(data, indent=1) + "\n")
    if (folder / "tests").exists():
        shutil.rmtree(folder / "tests")
    shutil.copytree(REPO / "tests" / "grading" / "tests", folder / "tests")
    return path


def _lab05_naive() -> str:
    """Register tiling missing: every thread's patch computed by dot products from global memory."""
    source = single_file(REPO, "05_register_tiling")
    return replace_once(
        source,
        LAB05_KERNEL_START,
        LAB05_KERNEL_START
        + (
            "  // planted: no tiles, no registers reused: a dot product from global memory per element\n"
            "  const int first_row = blockIdx.y * BM, first_col = blockIdx.x * BN;\n"
            "  for (int e = threadIdx.x; e < BM * BN; e += blockDim.x) {\n"
            "    const int row = first_row + e / BN, col = first_col + e % BN;\n"
            "    if (row >= args.m || col >= args.n) continue;\n"
            "    float sum = 0.0f;\n"
            "    for (int p = 0; p < args.k; ++p) sum = fmaf(args.a[row * args.lda + p], args.b[p * args.ldb + col], sum);\n"
            "    cudalabs::store_gemm_result(args.c + row * args.ldc + col, sum, args.alpha, args.beta);\n"
            "  }\n"
            "  if (args.m >= 0) return;\n"
        ),
        "lab05 naive",
    )


def _lab05_tells_timed_calls() -> str:
    """A kernel that counts the calls on one large shape and skips its work from the third on: the
    grading tests make at most two, the timed runs many."""
    source = single_file(REPO, "05_register_tiling")
    source = replace_once(
        source,
        "namespace lab05 {\n",
        "namespace lab05 {\n__device__ unsigned planted_calls;  // planted\n",
        "lab05 counter",
    )
    return replace_once(
        source,
        LAB05_KERNEL_START,
        LAB05_KERNEL_START
        + (
            "  // planted: past the second call on a 2048-row problem with beta = 0, do nothing\n"
            "  __shared__ bool skip;\n"
            "  if (threadIdx.x == 0) {\n"
            "    skip = false;\n"
            "    if (args.m >= 2048 && args.beta == 0.0f) {\n"
            "      const bool first_block = blockIdx.x == 0 && blockIdx.y == 0;\n"
            "      const unsigned calls = first_block ? atomicAdd(&planted_calls, 1u) : planted_calls;\n"
            "      skip = calls >= 2;\n"
            "    }\n"
            "  }\n"
            "  __syncthreads();\n"
            "  if (skip) return;\n"
        ),
        "lab05 timed",
    )


def _lab01_reads_out_of_bounds() -> str:
    source = single_file(REPO, "01_naive_gemm")
    return replace_once(
        source,
        "  for (int p = 0; p < args.k; ++p) acc += a_row[p] * b_col[p * args.ldb];\n",
        "  for (int p = 0; p <= args.k; ++p) acc += a_row[p] * b_col[p * args.ldb] * (p < args.k);\n",
        "lab01 out of bounds",
    )


def _lab05_token_pasted_cublas() -> str:
    source = single_file(REPO, "05_register_tiling")
    return source + (
        "\n#include <cublas_v2.h>\n#define PLANTED_CAT(a, b) a##b\nnamespace {\n"
        "// planted: every launch could call cuBLAS through a name the source never spells\n"
        "[[maybe_unused]] void planted_gemm(cublasHandle_t h, int n, const float* a, const float* b, float* c) {\n"
        "  const float one = 1.0f, zero = 0.0f;\n"
        "  PLANTED_CAT(cublas, Sgemm)(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, b, n, a, n, &zero, c, n);\n"
        "}\n}  // namespace\n"
    )


def _lab05_through_the_lab_folder() -> str:
    return (
        '#include "labs/05_register_tiling/../../solutions/05_register_tiling/kernels.cu"\n'
        + (REPO / "labs" / "05_register_tiling" / "kernels.cu").read_text()
    )


def _lab05_raw_system_call() -> str:
    source = single_file(REPO, "05_register_tiling")
    return source + (
        "\nnamespace {\n// planted: a write to a file of the grader's, by a system call of its own\n"
        "[[maybe_unused]] long planted_write(long fd, const char* text, long length) {\n"
        '  long result;\n  asm volatile("syscall" : "=a"(result) : "a"(1L), "D"(fd), "S"(text), "d"(length) '
        ': "rcx", "r11", "memory");\n  return result;\n}\n}  // namespace\n'
    )


def _lab05_assembler_pulls_a_file() -> str:
    """A file put into the object by the assembler (inline asm's .incbin), which the preprocessor never
    reads and so its dependency output never lists: any file the compile can see, another lab's or
    a library's binary, could ride in the object this way."""
    source = single_file(REPO, "05_register_tiling")
    return source + (
        "\n// planted: a file the compiler's dependency output does not name, pulled in by the assembler\n"
        'asm(".pushsection .rodata\\n.incbin \\"/etc/passwd\\"\\n.popsection\\n");\n'
    )


GEMM01_LOOP = "  for (int p = 0; p < args.k; ++p) acc += a_row[p] * b_col[p * args.ldb];\n"
GEMM01_GUARD = "  if (row >= args.m || col >= args.n) return;  // the grid is rounded up to whole blocks\n"
GEMM01_STORE = "  cudalabs::store_gemm_result(args.c + row * args.ldc + col, acc, args.alpha, args.beta);\n"


def _edited(folder: str, *edits: tuple[str, str]) -> str:
    source = single_file(REPO, folder)
    for old, new in edits:
        source = replace_once(source, old, new, f"{folder}: {old[:40]!r}")
    return source


def _lab01_caches_by_pointer() -> str:
    """Results kept from earlier launches, keyed by C's address, on large problems with beta = 0 (the
    timed runs' case): the grading tests see a correct kernel; the timed runs skip their work."""
    return _edited(
        "01_naive_gemm",
        (
            "namespace lab01 {\nnamespace {\n",
            "namespace lab01 {\nnamespace {\n\n__device__ float* seen_c[8];  // planted\n__device__ unsigned seen_count;\n",
        ),
        (
            GEMM01_GUARD,
            GEMM01_GUARD + "  if (args.m >= 1024 && args.beta == 0.0f)  // planted: 'already computed'\n"
            "    for (float* seen : seen_c)\n      if (seen == args.c) return;\n",
        ),
        (
            GEMM01_STORE,
            GEMM01_STORE + "  if (row == args.m - 1 && col == args.n - 1 && args.m >= 1024 && args.beta == 0.0f)\n"
            "    seen_c[seen_count++ % 8] = args.c;  // planted\n",
        ),
    )


def _at_load(source: str, body: str, *, at_exit: str = "") -> str:
    """`source` with code run as the student's library loads (a static initialiser: before the runner's
    main) and, with `at_exit`, as it unloads."""
    return (
        source
        + FIND_BY_ADDRESS
        + HIDDEN_SYSCALL
        + "namespace {\nstruct PlantedAtLoad {\n  PlantedAtLoad() {\n"
        + body
        + "  }\n  ~PlantedAtLoad() {\n"
        + at_exit
        + "  }\n} planted_at_load;\n}  // namespace\n"
    )


def _lab05_loads_cublas_by_address() -> str:
    """The solution, whose library, as it loads, finds dlopen by address and loads cuBLAS: were it
    loaded, the library ends the runner at once (every test crashed), so full marks show it was
    refused. The walk must find dlopen and load a library the runner links, or it ends the runner
    too: the plant cannot pass by failing to try."""
    return _at_load(
        single_file(REPO, "05_register_tiling"),
        '    const bool walks = planted::find_function("dlopen") != nullptr && planted::loads("libm.so.6");\n'
        '    const bool cublas = planted::loads("libcublas.so") || planted::loads("libcublas.so.13") ||\n'
        '                        planted::loads("libcublas.so.12");\n'
        '    if (!walks || cublas) planted::function<void (*)(int)>("_exit")(3);\n',
    )


FORGED_SANITIZER_REPORT = "========= COMPUTE-SANITIZER\\n========= ERROR SUMMARY: 0 errors\\n"


def _lab01_forges_the_sanitizer_report() -> str:
    """An out-of-bounds read that tries to hide from compute-sanitizer: as it loads and as it unloads,
    it kills the tool watching it (its parent), overwrites the tool's report through fopen found by
    address and through a hidden system call, and forks a child that tries again after the runner
    has gone."""
    forge = (
        '    planted::function<int (*)(int, int)>("kill")(planted::function<int (*)()>("getppid")(), 9);\n'
        f'    planted::overwrite("tool.log", "{FORGED_SANITIZER_REPORT}");\n'
        f'    planted::overwrite_hidden("tool.log", "{FORGED_SANITIZER_REPORT}");\n'
    )
    later = (
        '    if (planted::function<int (*)()>("fork")() == 0) {\n'
        '      planted::function<unsigned (*)(unsigned)>("sleep")(2);\n'
        + forge
        + '      planted::function<void (*)(int)>("_exit")(0);\n    }\n'
    )
    return _at_load(_lab01_reads_out_of_bounds(), forge, at_exit=forge + later)


def _lab05_forges_the_profile() -> str:
    """Register tiling missing (as naive_lab05), with Nsight Compute's report rewritten by a hidden
    system call as the library unloads: a profile whose counters would satisfy every rule."""
    forged = '\\"ID\\",\\"Process ID\\",\\"Process Name\\",\\"Kernel Name\\"\\n\\"0\\",\\"1\\",\\"runner\\",\\"k\\"\\n'
    forge = f'    planted::overwrite_hidden("tool.log", "{forged}");\n'
    return _at_load(_lab05_naive(), "", at_exit=forge)


LAB12_MULTI_ELEMENT = (
    "__global__ void __launch_bounds__(kThreadsPerBlock)\n"
    "    multi_element_sum_kernel(const float* __restrict__ input, std::size_t count, float* sum) {\n"
)


def _lab12_skips_timed_sums() -> str:
    """A sum that adds nothing from the third call on a power-of-two count of 2^26 or more: the
    timed problem's size, never a grading test's (odd sizes), and past the probe's single call."""
    return _edited(
        "12_reduce_scan_histogram",
        (
            LAB12_MULTI_ELEMENT,
            (
                "__device__ unsigned planted_calls;  // planted\n\n"
                + LAB12_MULTI_ELEMENT
                + "  __shared__ bool skip;  // planted: the timed problem's later calls do nothing\n"
                "  if (threadIdx.x == 0) {\n"
                "    const bool timed_size = count >= (std::size_t{1} << 26) && (count & (count - 1)) == 0;\n"
                "    skip = timed_size && (blockIdx.x == 0 ? atomicAdd(&planted_calls, 1u) : planted_calls) >= 2;\n"
                "  }\n"
                "  __syncthreads();\n"
                "  if (skip) return;\n"
            ),
        ),
    )


def plants() -> list[Plant]:
    return [
        Plant("naive_lab05", "05_register_tiling", _lab05_naive(), "state:rt_2d=technique not shown"),
        Plant("tells_timed_calls", "05_register_tiling", _lab05_tells_timed_calls(), "wrong in a timed run"),
        Plant("reads_out_of_bounds", "01_naive_gemm", _lab01_reads_out_of_bounds(), "memcheck errors"),
        Plant("token_pasted_cublas", "05_register_tiling", _lab05_token_pasted_cublas(), "integrity rule broken"),
        Plant("through_the_lab_folder", "05_register_tiling", _lab05_through_the_lab_folder(), "does not compile"),
        Plant("raw_system_call", "05_register_tiling", _lab05_raw_system_call(), "integrity rule broken"),
        Plant("assembler_pulls_a_file", "05_register_tiling", _lab05_assembler_pulls_a_file(), "integrity rule broken"),
        Plant("loads_cublas_by_address", "05_register_tiling", _lab05_loads_cublas_by_address(), "full marks"),
        Plant("forges_the_sanitizer_report", "01_naive_gemm", _lab01_forges_the_sanitizer_report(), "memcheck errors"),
        Plant(
            "forges_the_profile", "05_register_tiling", _lab05_forges_the_profile(), "state:rt_2d=technique not shown"
        ),
        Plant(
            "cublas_header",
            "01_naive_gemm",
            # A CUDA header may be included; a call of cuBLAS through it is what the symbol rule refuses.
            _edited(
                "01_naive_gemm",
                (
                    '#include "lab.h"\n',
                    '#include "lab.h"\n#include <cublas_v2.h>\n'
                    "// planted: cuBLAS called through its header\n"
                    "void planted_handle(cublasHandle_t* handle) { cublasCreate(handle); }\n",
                ),
            ),
            "integrity rule broken",
        ),
        Plant(
            "includes_solution",
            "01_naive_gemm",
            _edited(
                "01_naive_gemm",
                ('#include "lab.h"\n', '#include "lab.h"\n#include "solutions/01_naive_gemm/kernels.cu"\n'),
            ),
            "does not compile",
        ),
        Plant(
            "no_compile",
            "01_naive_gemm",
            _edited("01_naive_gemm", ("  float acc = 0.0f;\n", "  float acc = 0.0f\n")),
            "does not compile",
        ),
        Plant(
            "hangs",
            "01_naive_gemm",
            _edited(
                "01_naive_gemm",
                ("  float acc = 0.0f;\n", "  float acc = 0.0f;\n  while (args.m > 0 && clock64() >= 0) {\n  }\n"),
            ),
            "time limit",
        ),
        Plant("caches_by_pointer", "01_naive_gemm", _lab01_caches_by_pointer(), "wrong in a timed run"),
        # The second barrier gone: the next tile may overwrite one a slower warp still reads.
        Plant(
            "race",
            "02_smem_tiling",
            _edited(
                "02_smem_tiling",
                (
                    "    __syncthreads();  // everyone is done reading before the next iteration overwrites the tiles\n",
                    "",
                ),
            ),
            "racecheck hazards",
        ),
        Plant(
            "tile_multiple_only",
            "02_smem_tiling",
            _edited(
                "02_smem_tiling",
                ("for (int k0 = 0; k0 < args.k; k0 += kTile)", "for (int k0 = 0; k0 + kTile <= args.k; k0 += kTile)"),
            ),
            "state:tiled_coalesced=failed",
        ),
        # Lab 03's four layouts as one: every variant stores and reads the tiles as RR does.
        Plant(
            "one_layout_lab03",
            "03_transposed_layouts",
            _edited(
                "03_transposed_layouts",
                (
                    "template <bool kTransposeA, bool kTransposeB>\n__global__ void layout_gemm_kernel(cudalabs::GemmArgs args) {\n",
                    "template <bool kIgnoredA, bool kIgnoredB>\n__global__ void layout_gemm_kernel(cudalabs::GemmArgs args) {\n"
                    "  constexpr bool kTransposeA = false, kTransposeB = false;  // planted: RR under every name\n",
                ),
            ),
            "state:CC=not distinct",
        ),
        Plant("skips_timed_sums", "12_reduce_scan_histogram", _lab12_skips_timed_sums(), "wrong in a timed run"),
        # Lab 10's workers one after another instead of at once.
        Plant(
            "serial_lab10",
            "10_multi_gpu_dcgan",
            _edited(
                "10_multi_gpu_dcgan",
                (
                    "    });\n  }\n  for (std::thread& thread : threads) thread.join();\n",
                    "    });\n    threads.back().join();  // planted: one GPU at a time\n  }\n",
                ),
            ),
            "state:threads=failed",
        ),
        *padded_plants(Plant),
    ]


def write_plants(folder: Path) -> list[Plant]:
    """Writes folder/<plant>/<lab folder>/kernels.cu for every plant."""
    written = plants()
    for plant in written:
        target = folder / plant.name / plant.folder / "kernels.cu"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(plant.source)
    return written
