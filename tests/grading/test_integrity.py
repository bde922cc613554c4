"""Integrity from the compiler and the linker (cudalabs.grading.integrity), on real compiles in the
sandbox: the skeleton and the solution pass; each way of reaching what the lab does not allow is
caught by what the toolchain says, however the source spells it."""
from __future__ import annotations

import fnmatch
import re
import tempfile
import unittest
from pathlib import Path

from cudalabs.grading import build, integrity
from cudalabs.grading.lab_grader import _build_library
from cudalabs.grading.lab_run import COMPILE_ERROR, INTEGRITY, LabRun
from cudalabs.grading.rubric import load_rubric
from cudalabs.grading.solution_file import handed_in
from cudalabs.grading.submission import Lab
from cudalabs.labs import declared_labs
from cudalabs import paths
from cudalabs.paths import REPO

from grading_build import GradingBuildCase, one_architecture

RUBRIC = load_rubric(paths.RUBRIC)
LAB = Lab("05", "05_register_tiling")
SKELETON = (REPO / "labs" / LAB.folder / "kernels.cu").read_text()


class IntegrityTest(GradingBuildCase):
    lab_number = "05"

    def grade_build(self, source: str, lab: Lab = LAB) -> LabRun:
        run = LabRun(lab.number, lab.folder)
        command = one_architecture(build.compile_command(self.build_dir, REPO, lab.number, lab.folder), lab.number)
        _build_library(
            self.context, lab, RUBRIC.labs[lab.number], {"kernels.cu": source.encode()}, "student", run, command
        )
        return run

    def assert_caught(self, run: LabRun, kind: str, *needles: str) -> None:
        self.assertEqual(run.fatal, kind, run.reason)
        text = "\n".join([run.reason, *run.details])
        for needle in needles:
            self.assertIn(needle, text)

    def test_the_skeleton_and_the_solution_pass(self):
        for source in (SKELETON, handed_in(REPO, LAB.folder)["kernels.cu"]):
            run = self.grade_build(source)
            self.assertIsNone(run.fatal, run.reason + "\n" + "\n".join(run.details))

    def test_a_solution_is_out_of_reach_however_the_include_is_spelled(self):
        for spelled in (
            '#include "../../solutions/05_register_tiling/kernels.cu"',
            '#include "labs/05_register_tiling/../../solutions/05_register_tiling/kernels.cu"',
            '#inc\\\nlude "../../solutions/05_register_tiling/kernels.cu"',
            '%:include "../../solutions/05_register_tiling/kernels.cu"',
            f'#include "{REPO}/solutions/05_register_tiling/kernels.cu"',
        ):
            run = self.grade_build(spelled + "\n" + SKELETON)
            self.assert_caught(run, COMPILE_ERROR, "solutions")

    def test_a_file_the_lab_does_not_allow_is_named_from_the_dependency_output(self):
        run = self.grade_build('#define HEADER "common/cublas_gemm.h"\n#include HEADER\n' + SKELETON)
        self.assert_caught(run, INTEGRITY, "includes a file lab 05 does not allow", "common/cublas_gemm.h")
        run = self.grade_build('#include "labs/09_dcgan/subpixel.h"\n' + SKELETON)
        self.assert_caught(run, INTEGRITY, "labs/09_dcgan/subpixel.h")

    def test_a_cuda_header_library_the_lab_does_not_list_is_named(self):
        for header, use in (
            ("cooperative_groups.h", "namespace cg = cooperative_groups;"),
            ("cooperative_groups/reduce.h", ""),
            ("cub/cub.cuh", ""),
            ("mma.h", "using nvcuda::wmma::fragment;"),
            ("cuda_pipeline.h", ""),
        ):
            with self.subTest(header=header):
                run = self.grade_build(f"#include <{header}>\n{use}\n" + SKELETON)
                self.assert_caught(run, INTEGRITY, "includes a CUDA header lab 05 does not allow")

    def test_calls_outside_the_allowlist_are_named_however_spelled(self):
        source = (
            SKELETON
            + """
#include <cublas_v2.h>
#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <fstream>
#define PASTE(a, b) a##b
namespace planted {
void calls() {
  cublasHandle_t handle;
  PASTE(cublas, Create)(&handle);
  std::FILE* f = std::fopen("/tmp/x", "w");
  (void)f;
  (void)std::getenv("CUDALABS_SEED");
  (void)dlopen("libcublas.so", 0);
  std::ofstream out("/tmp/y");
  (void)std::system("true");
  cudaLaunchHostFunc(nullptr, nullptr, nullptr);
}
}  // namespace planted
"""
        )
        run = self.grade_build(source)
        self.assertEqual(run.fatal, INTEGRITY, run.reason)
        text = "\n".join(run.details)
        for symbol in (
            "cublasCreate_v2",
            "fopen",
            "getenv",
            "dlopen",
            "system",
            "cudaLaunchHostFunc",
            "std::basic_ofstream",
        ):
            self.assertIn(symbol, text, f"{symbol} was not named")

    def test_the_suites_row_major_wrapper_is_not_callable(self):
        source = (
            SKELETON
            + """
namespace cudalabs {
class CublasHandle;
struct GemmArgsOf_float;
void cublas_gemm_row_major(const CublasHandle&, const GemmArgs&, cudaStream_t);
}
namespace planted {
void call(const cudalabs::CublasHandle& h, const cudalabs::GemmArgs& a) { cudalabs::cublas_gemm_row_major(h, a, nullptr); }
}
"""
        )
        self.assert_caught(self.grade_build(source), INTEGRITY, "cudalabs::cublas_gemm_row_major")

    def test_a_definition_of_a_suite_name_is_caught(self):
        source = (
            SKELETON
            + """
namespace cudalabs {
void check_launch(const char*, const char*, int) {}
}
"""
        )
        self.assert_caught(
            self.grade_build(source), INTEGRITY, "defines a name of the suite's own code", "cudalabs::check_launch"
        )

    def test_a_system_call_of_its_own_is_caught(self):
        source = (
            SKELETON
            + """
namespace planted {
long raw(long number) {
  long result;
  asm volatile("syscall" : "=a"(result) : "a"(number) : "rcx", "r11", "memory");
  return result;
}
}
"""
        )
        self.assert_caught(self.grade_build(source), INTEGRITY, "makes a system call of its own", "syscall")

    def test_a_file_the_assembler_reads_past_the_compiler_is_caught(self):
        """An assembler directive in inline asm puts a file into the object that the preprocessor never
        read, so its dependency output does not list it: the assembler's own output does."""
        other_lab = self.context.scratch / "lab05" / "student-tree" / "labs" / "09_dcgan" / "subpixel.h"
        for directive, named in (
            (f'.pushsection .rodata\\n.incbin \\"{other_lab}\\"\\n.popsection', str(other_lab)),
            ('.include \\"/dev/null\\"', "/dev/null"),
            (
                '.macro pull name\\n.incbin \\"\\\\name\\"\\n.endm\\n.pushsection .rodata\\npull /etc/passwd\\n.popsection',
                "/etc/passwd",
            ),
        ):
            with self.subTest(named=named):
                run = self.grade_build(SKELETON + f'\nasm("{directive}\\n");\n')
                self.assert_caught(run, INTEGRITY, "a file the compiler did not read", named)

    def test_an_object_without_the_interface_is_caught(self):
        source = '#include "lab.h"\nnamespace lab05 { int unrelated() { return 1; } }\n'
        self.assert_caught(
            self.grade_build(source),
            INTEGRITY,
            "does not define what the lab's interface declares",
            "lab05::variants()",
        )


class DependencyFileTest(unittest.TestCase):
    def test_make_style_dependencies(self):
        text = "kernels.o: /a/kernels.cu /b/x\\ y.h \\\n  /c/z.h\n/b/x\\ y.h:\n"
        self.assertEqual(integrity.parse_depfile(text), ["/a/kernels.cu", "/b/x y.h", "/c/z.h"])

    def test_the_assemblers_inputs_beyond_the_compilers_are_named(self):
        with tempfile.TemporaryDirectory() as folder:
            work = Path(folder)
            header = work / "lab.h"
            header.write_text("")
            (work / "kernels.d").write_text(f"kernels.o: {header}\n")
            # nvcc's intermediate and its `.file` name, a header the compiler read, and a file on a line of
            # its own (a `.file` name may hold a newline): only the last is the assembler's own reading.
            (work / "kernels.as.d").write_text(
                f"kernels.o: /tmp/ccAbCdEf.s tmpxft_0001_kernels.cudafe1.cpp {header} \\\n x\n /etc/passwd\n"
            )
            found = integrity.check_assembler_inputs(work / "kernels.as.d", work / "kernels.d", work)
            self.assertEqual([v.item for v in found], ["/etc/passwd"])
            self.assertEqual(len(integrity.check_assembler_inputs(None, work / "kernels.d", work)), 1)

    def test_the_version_script_exports_the_interface_only(self):
        script = build.version_script(["lab05::variants()"])
        self.assertIn('"lab05::variants()";', script)
        self.assertIn("local: *;", script)


if __name__ == "__main__":
    unittest.main()


class ToolchainAllowlistTest(unittest.TestCase):
    """The toolkit's headers a lab may read are listed (an allowlist), judged from the dependency
    output: the runtime's are allowed everywhere, a header library only where the lab lists it."""

    TOOLKIT = (
        "cuda_runtime.h",
        "crt/host_defines.h",
        "mma.h",
        "crt/mma.h",
        "cooperative_groups.h",
        "cooperative_groups/reduce.h",
        "cooperative_groups/scan.h",
        "cccl/cub/cub.cuh",
        "cccl/thrust/reduce.h",
        "cccl/cuda/atomic",
        "cccl/cuda/std/__atomic/types.h",
        "cccl/cuda/std/__numeric/reduce.h",
        "cccl/cuda/std/__algorithm/iter_swap.h",
        "cccl/cuda/std/__algorithm/inclusive_scan.h",
        "cuda_pipeline.h",
        "cuda_awbarrier.h",
    )

    def violations(self, number: str, read: list[str]) -> list[str]:
        with tempfile.TemporaryDirectory() as folder:
            root = Path(folder)
            toolkit, tree = root / "cuda" / "include", root / "tree"
            for name in self.TOOLKIT:
                (toolkit / name).parent.mkdir(parents=True, exist_ok=True)
                (toolkit / name).write_text("")
            lab = RUBRIC.labs[number]
            folder_name = {
                "05": "05_register_tiling",
                "11": "11_tensor_cores",
                "12": "12_reduce_scan_histogram",
                "13": "13_attention",
            }[number]
            source = tree / "labs" / folder_name / "kernels.cu"
            source.parent.mkdir(parents=True)
            source.write_text("")
            depfile = root / "kernels.d"
            depfile.write_text("kernels.o: " + " ".join([str(source), *(str(toolkit / n) for n in read)]) + "\n")
            found = integrity.check_dependencies(depfile, tree, folder_name, lab.integrity, [toolkit])
        return [v.item for v in found]

    def test_the_runtime_is_allowed_everywhere(self):
        for number in ("05", "11", "12", "13"):
            self.assertEqual(self.violations(number, ["cuda_runtime.h", "crt/host_defines.h"]), [], number)

    def test_lab12_may_use_cuda_atomic_but_no_library_reduction_or_scan(self):
        allowed = ["cccl/cuda/atomic", "cccl/cuda/std/__atomic/types.h", "cccl/cuda/std/__algorithm/iter_swap.h"]
        self.assertEqual(self.violations("12", allowed), [])
        denied = [
            "cooperative_groups.h",
            "cooperative_groups/reduce.h",
            "cooperative_groups/scan.h",
            "cccl/cub/cub.cuh",
            "cccl/thrust/reduce.h",
            "cccl/cuda/std/__numeric/reduce.h",
            "cccl/cuda/std/__algorithm/inclusive_scan.h",
        ]
        found = self.violations("12", denied)
        self.assertEqual(len(found), len(denied), found)

    def test_wmma_only_in_lab11_and_no_pipeline_library_for_cp_async(self):
        self.assertEqual(self.violations("11", ["mma.h", "crt/mma.h"]), [])
        for number in ("05", "13"):
            self.assertEqual(len(self.violations(number, ["mma.h", "crt/mma.h"])), 2, number)
        self.assertEqual(len(self.violations("05", ["cuda_pipeline.h", "cuda_awbarrier.h"])), 2)


class AllowlistCoversTheLabsOwnCode(unittest.TestCase):
    """Every file of the suite that a lab's skeleton or solution includes, directly or through the
    given headers, is on that lab's allowlist. Without this, a header a given file starts to include
    fails every submission of the lab on integrity (labs 07 and 11 scored 0 from cab3f13 until the
    rubric listed common/remembered_plan.h, found by the grader's self-test on the GPU); this test
    sees it on the CPU, with no build."""

    INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.MULTILINE)

    def closure(self, source: str, folder: str) -> set[str]:
        """The tree's files reached from a submission's kernels.cu (`source`, at labs/<folder>/) by
        quoted includes, resolved as the grading compile does: beside the including file, then from
        the suite's root, then from the lab's folder."""
        seen: set[str] = set()
        todo = [(source, REPO / "labs" / folder)]
        while todo:
            text, here = todo.pop()
            for name in self.INCLUDE.findall(text):
                for base in (here, REPO, REPO / "labs" / folder):
                    target = (base / name).resolve()
                    if target.is_file() and target.is_relative_to(REPO):
                        relative = str(target.relative_to(REPO))
                        if relative not in seen:
                            seen.add(relative)
                            todo.append((target.read_text(errors="replace"), target.parent))
                        break
        return seen

    def test_every_file_a_labs_code_includes_is_allowed(self):
        for lab in declared_labs(REPO):
            if lab.number not in RUBRIC.labs:
                continue
            rules = RUBRIC.labs[lab.number].integrity
            allowed = [pattern.replace("{folder}", lab.folder) for pattern in rules.includes]
            sources = [(REPO / "labs" / lab.folder / "kernels.cu").read_text()]
            sources.append(handed_in(REPO, lab.folder)["kernels.cu"])
            reached = set().union(*(self.closure(source, lab.folder) for source in sources))
            for relative in sorted(reached):
                with self.subTest(lab=lab.number, file=relative):
                    self.assertTrue(
                        any(fnmatch.fnmatchcase(relative, pattern) for pattern in allowed),
                        f"lab {lab.number}'s code includes {relative}, which its integrity rules do not allow "
                        f"({paths.RUBRIC.relative_to(REPO)})",
                    )
