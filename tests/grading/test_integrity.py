"""The integrity rules (scripts/grading/integrity.py) against planted shortcuts, and the suite's own
skeletons and solutions, which must pass them."""
import sys
import unittest
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "scripts"))

from grading import integrity, rubric, solution_file, submission  # noqa: E402

RUBRIC = rubric.load_rubric(REPO / "tests" / "grading" / "rubric.json")
PROTECTED = integrity.suite_names(REPO)


def check(source: str, number: str = "01", folder: str = "01_naive_gemm") -> list[integrity.Violation]:
    return integrity.check_source(source, RUBRIC.labs[number].integrity, folder, PROTECTED)


class IntegrityTest(unittest.TestCase):
    def assert_caught(self, source: str, rule_words: str, line: int, **lab):
        found = check(source, **lab)
        self.assertTrue(found, f"nothing caught in {source!r}")
        self.assertEqual(found[0].line, line)
        self.assertIn(rule_words, found[0].rule)

    def test_an_included_solution_is_caught(self):
        self.assert_caught('#include "lab.h"\n#include "solutions/01_naive_gemm/kernels.cu"\n', "include", 2)
        self.assert_caught('#include "../../solutions/01_naive_gemm/kernels.cu"\n', "include", 1)
        self.assert_caught("#define SOLUTION \"x.cu\"\n#include SOLUTION\n", "include", 2)

    def test_a_library_that_does_the_work_is_caught(self):
        self.assert_caught("void f() {\n  cublasSgemm(h, a, b);\n}\n", "cuBLAS", 2)
        self.assert_caught("#include <cublas_v2.h>\n", "include", 1)
        self.assert_caught("auto x = thrust::reduce(a, b);\n", "Thrust", 1)

    def test_a_redefined_suite_name_is_caught(self):
        self.assert_caught("#undef CUDA_CHECK_LAUNCH\n#define CUDA_CHECK_LAUNCH() steal()\n", "#undef", 1)
        self.assert_caught("#define __syncthreads() (void)0\n", "#define", 1)
        self.assert_caught("#define float double\n", "#define", 1)
        self.assertEqual(check("#define TILE 32\n#define kMyPad 1\n"), [])

    def test_host_side_access_is_caught(self):
        self.assert_caught('static const char* where = std::getenv("HOME");\n', "environment", 1)
        self.assert_caught('static FILE* log_file = fopen("/tmp/x", "w");\n', "file", 1)
        self.assert_caught("int s = socket(2, 1, 0);\n", "network", 1)
        self.assert_caught("static int r = system(\"rm -rf /\");\n", "environment", 1)
        self.assert_caught("static int x = (atexit(+[] {}), 0);\n", "grader", 1)

    def test_comments_and_strings_are_not_code(self):
        source = ('// faster than cublasSgemm? fopen the docs\n/* #include "solutions/x.cu"\n getenv */\n'
                  'const char* note = "cublas and getenv in a string";\n')
        self.assertEqual(check(source), [])

    def test_includes_are_allowed_per_lab(self):
        self.assertTrue(check("#include <thread>\n"))
        self.assertEqual(check("#include <thread>\n", number="10", folder="10_multi_gpu_dcgan"), [])
        self.assertEqual(check('#include "labs/01_naive_gemm/lab.h"\n#include <cuda/pipeline>\n'), [])
        self.assertTrue(check('#include "labs/02_smem_tiling/lab.h"\n'))  # another lab's folder

    def test_the_violation_names_line_rule_and_text(self):
        found = check("int a;\n  cublasCreate(&h);  // why not\n")
        self.assertEqual(str(found[0]), "kernels.cu line 2: a library that does the lab's work (cuBLAS, cuDNN, "
                                        "CUTLASS, Thrust, CUB): `cublasCreate(&h);  // why not`")

    def test_every_skeleton_passes(self):
        for lab in submission.suite_labs(REPO):
            for name in submission.student_files(lab):
                with self.subTest(lab=lab.folder, file=name):
                    self.assertEqual(integrity.check_file(REPO / "labs" / lab.folder / name,
                                                          RUBRIC.labs[lab.number].integrity, lab.folder, PROTECTED), [])

    def test_lab10s_mpi_parts_of_the_solution_pass(self):
        lab = next(lab for lab in submission.suite_labs(REPO) if lab.number == "10")
        for name in submission.student_files(lab)[1:]:
            with self.subTest(file=name):
                self.assertEqual(integrity.check_file(REPO / "solutions" / lab.folder / name,
                                                      RUBRIC.labs["10"].integrity, lab.folder, PROTECTED), [])

    def test_every_solution_handed_in_as_one_file_passes(self):
        # As a student would hand it in: the warp tile that labs 07 and 09 share written into the file.
        for lab in submission.suite_labs(REPO):
            with self.subTest(lab=lab.folder):
                source = solution_file.single_file(REPO, lab.folder)
                self.assertEqual(integrity.check_source(source, RUBRIC.labs[lab.number].integrity, lab.folder,
                                                        PROTECTED), [])
                self.assertNotIn('"solutions/', source)
                self.assertNotIn('"warp_tile.cuh"', source)

    def test_the_self_tests_planted_faults_reach_the_step_that_must_catch_them(self):
        sys.path.insert(0, str(REPO / "tests" / "grading"))
        from planted import PLANTS  # noqa: E402
        for plant in PLANTS:
            with self.subTest(lab=plant.folder):
                source = solution_file.single_file(REPO, plant.folder).replace(plant.old, plant.new)
                number = plant.folder[:2]
                self.assertEqual(integrity.check_source(source, RUBRIC.labs[number].integrity, plant.folder,
                                                        PROTECTED), [])

    def test_a_solution_as_it_is_in_the_repository_is_refused(self):
        found = integrity.check_file(REPO / "solutions" / "09_dcgan" / "kernels.cu", RUBRIC.labs["09"].integrity,
                                     "09_dcgan", PROTECTED)
        self.assertTrue(any("solutions/07_wide_loads/warp_tile.cuh" in v.text for v in found))


if __name__ == "__main__":
    unittest.main()
