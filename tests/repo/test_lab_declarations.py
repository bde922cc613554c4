"""The labs' declarations (labs/NN_name/lab.json) and what is written about them: every lab folder
declares itself, CMake and Python read the same fields, no CMake file keeps a list of labs of its own,
a lab declared without launches has no kernels, and the architecture page's recipes ("How to add ...": a
variant, a lab, a grading test, a rubric entry) name only files that exist and exactly the fields CMake reads.

  PYTHONPATH=python python3 -m unittest test_lab_declarations
"""
import pathlib
import re
import unittest

from cudalabs import labs
from cudalabs.paths import GRADING_POLICY, test_list_name

REPO = pathlib.Path(__file__).resolve().parents[2]
RECIPE_PAGE = REPO / "docs" / "page_sources" / "architecture.md"
# What a student release (scripts/release-students) leaves out.
INSTRUCTORS_ONLY = ("solutions/", "grader/", "tests/grading/")


def cmake_fields() -> list[str]:
    """The fields cmake/LabDeclarations.cmake reads (CUDALABS_LAB_FIELDS)."""
    text = (REPO / "cmake" / "LabDeclarations.cmake").read_text()
    match = re.search(r"^set\(CUDALABS_LAB_FIELDS ([^)]*)\)", text, re.M)
    assert match, "cmake/LabDeclarations.cmake sets no CUDALABS_LAB_FIELDS"
    return match.group(1).split()


# A page only the site renders is named by its file and folder ("`results.md` in `docs/pages/`"), not by a
# path: a Git host's reader would follow that to a page of placeholders (handouts.linked_pages).
SITE_PAGE = re.compile(r"`([\w.-]+\.md)` in `([\w./-]+/)`")


def recipes() -> str:
    """The "How to add ..." section: the recipes for a variant, a lab, a grading test and a rubric entry,
    with each page the site builds named by its path."""
    text = RECIPE_PAGE.read_text()
    start = text.index("## How to add")
    return SITE_PAGE.sub(r"`\2\1`", text[start : text.index("\n## ", start)])


def calls_only_the_gemm_seam(number: str) -> bool:
    """A proxy built on the GEMM labs' workload (grader/labs/gemm_remote.h's calls) that declares no
    remote function of its own."""
    proxy = (REPO / "grader" / "labs" / f"lab{number}_proxy.cpp").read_text()
    return '"grader/referee/gemm_workload.h"' in proxy and f"lab{number}_remote.h" not in proxy


def example_paths(path: str) -> list[str]:
    """A recipe's path with its placeholders (NN, name, labNN) filled in for every declared lab (the
    labs reached by a hand-written proxy for the grader's per-lab files), or the path itself."""
    if "NN" not in path:
        return [path]
    declared = labs.declared_labs(REPO)
    if path.startswith("grader/labs/"):
        declared = [lab for lab in declared if lab.grader == "proxy"]
    if path.endswith("_remote.h"):  # a GEMM lab may call only the GEMM labs' declarations (lab 11)
        declared = [lab for lab in declared if not calls_only_the_gemm_seam(lab.number)]
    if path.endswith("lab.cmake") or "launches" in path:
        field = "build" if path.endswith("lab.cmake") else "launches"
        declared = [lab for lab in declared if getattr(lab, field)]
    return [path.replace("NN_name", lab.folder).replace("NN", lab.number) for lab in declared]


class DeclarationsTest(unittest.TestCase):
    def test_every_lab_folder_declares_itself_and_every_solution_has_its_lab(self):
        declared = {lab.folder for lab in labs.declared_labs(REPO)}
        folders = {p.name for p in (REPO / "labs").glob("[0-9][0-9]_*") if p.is_dir()}
        self.assertEqual(folders, declared, "a lab folder without lab.json, or a declaration without its folder")
        self.assertGreaterEqual(len(declared), 14)
        if (REPO / "solutions").is_dir():
            solutions = {p.name for p in (REPO / "solutions").glob("[0-9][0-9]_*") if p.is_dir()}
            self.assertLessEqual(solutions, declared)

    def test_cmake_and_python_read_the_same_fields(self):
        self.assertEqual(cmake_fields(), list(labs.FIELDS))

    def test_a_lab_without_launches_has_no_kernels_of_its_own(self):
        for lab in labs.declared_labs(REPO):
            if lab.launches is not None:
                continue
            for folder in (REPO / "labs" / lab.folder, REPO / "solutions" / lab.folder):
                for path in sorted(folder.glob("*")) if folder.is_dir() else []:
                    if path.suffix in (".cu", ".cuh", ".cpp", ".h"):
                        self.assertNotIn(
                            "__global__", path.read_text(), f"{path}: lab {lab.number} declares no launches"
                        )

    def test_no_cmake_file_keeps_a_list_of_labs(self):
        """A list of lab numbers (`IN ITEMS 01 02 ...`) or a lab's folder spelled in a CMake list."""
        for path in ["labs/CMakeLists.txt", "tests/CMakeLists.txt", "cmake/CudaLabs.cmake"]:
            text = (REPO / path).read_text()
            self.assertNotRegex(text, r"IN ITEMS(\s+\d\d\b){2,}", path)
            self.assertNotRegex(text, r"cudalabs_add_lab\(\d\d ", path)
        self.assertNotRegex((REPO / "Makefile").read_text(), r"\b(00 01 02|01,02,03)\b")

    def test_the_control_a_planted_list_is_found(self):
        self.assertRegex("foreach(number IN ITEMS 00 01 02)", r"IN ITEMS(\s+\d\d\b){2,}")


def missing_paths(text: str) -> list[str]:
    """The paths a recipe names (in backticks) that are not in the repository, placeholders filled in."""
    paths = re.findall(r"`([\w./-]+/[\w./-]*\w|[\w-]+\.(?:json|cmake|cu|cuh|cpp|h|md))`", text)
    lab_files = {"lab.json", "lab.h", "kernels.cu", "launch.cuh", "main.cu", "launches.cpp", "README.md"}
    missing = []
    for path in paths:
        if path in lab_files:  # a file of every lab folder: some lab has it
            if not any((REPO / "labs" / lab.folder / path).exists() for lab in labs.declared_labs(REPO)):
                missing.append(path)
            continue
        if not (REPO / "solutions").is_dir() and path.startswith(INSTRUCTORS_ONLY):
            continue  # a student release: the recipe's instructor-only files are left out
        missing += [example for example in example_paths(path) if not (REPO / example).exists()]
    return missing


class RecipeTest(unittest.TestCase):
    def test_every_path_the_recipes_name_exists(self):
        self.assertIn("**A rubric entry.**", recipes())  # the last recipe is read too
        self.assertGreater(len(re.findall(r"`[\w./-]+/[\w./-]*\w`", recipes())), 15)
        self.assertEqual(missing_paths(recipes()), [])

    def test_the_control_a_planted_path_is_missing(self):
        planted = "`labs/NN_name/kernel.cu`, `tests/labs/labNN_grading.cpp`, `nolab.h`, `common/launch_catalog.h`"
        self.assertEqual(len(missing_paths(planted)), 2 * len(labs.declared_labs(REPO)) + 1)
        # The grading policy's per-lab files are every lab's, not only those the grader reaches by a proxy.
        if (REPO / "grader").is_dir():
            test_list = GRADING_POLICY / test_list_name("NN")
            self.assertEqual(missing_paths(f"`{test_list.as_posix()}`"), [])
            planted = f"`{test_list.with_suffix('.csv').as_posix()}`"
            self.assertEqual(len(missing_paths(planted)), len(labs.declared_labs(REPO)))

    def test_the_declaration_table_names_exactly_the_fields_cmake_reads(self):
        rows = re.findall(r"^\| (`[^|]*`) \|", recipes(), re.M)
        named = [field for row in rows for field in re.findall(r"`(\w+)`", row)]
        self.assertEqual(sorted(named), sorted(cmake_fields()))

    def test_the_recipe_names_the_functions_it_tells_you_to_call(self):
        text = recipes()
        if not (REPO / "grader").is_dir():
            # A student release: the grading recipes' names (the rubric's keys) live in the grading policy,
            # which the release leaves out with the grader; the full suite checks them.
            text = text[: text.index("**A grading test.**")]
        sources = [REPO / "common", REPO / "cmake", REPO / "tests" / "support", REPO / "grader"]
        defined = "\n".join(p.read_text(errors="replace") for d in sources for p in d.rglob("*") if p.is_file())
        for function in re.findall(r"`(?:cudalabs::)?(\w+)`", text):
            if function.endswith(("_main", "_tests", "_memory", "_launches", "_lab")):
                if function.startswith("grader_") and not (REPO / "grader").is_dir():
                    continue  # a student release: the grader (and its CMake functions) is left out
                self.assertIn(function, defined, f"the recipe names {function}, which the suite does not define")


if __name__ == "__main__":
    unittest.main()
