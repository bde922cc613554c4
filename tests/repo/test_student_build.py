"""The student's build sees no solutions: no include folder of a student kernels.cu (from the build's
compile_commands.json) holds a solutions/ folder or is the repository root itself.

  CUDALABS_BUILD_DIR=BUILD python3 -m unittest test_student_build
"""
import json
import os
import pathlib
import re
import shlex
import unittest

REPO = pathlib.Path(__file__).resolve().parents[2]
BUILD = pathlib.Path(os.environ.get("CUDALABS_BUILD_DIR", REPO / "build"))


def include_dirs(command: str, directory: str) -> list[pathlib.Path]:
    words = shlex.split(command)
    found = []
    for i, word in enumerate(words):
        for flag in ("-I", "-isystem", "-iquote"):
            if word == flag and i + 1 < len(words):
                found.append(words[i + 1])
            elif word.startswith(flag) and len(word) > len(flag) and flag == "-I":
                found.append(word[2:])
    return [(pathlib.Path(directory) / d).resolve() for d in found]


class StudentBuildTest(unittest.TestCase):
    def entries(self):
        commands = json.loads((BUILD / "compile_commands.json").read_text())
        students = [
            c
            for c in commands
            if re.search(r"/labs/\d\d_\w+/kernels\.cu$", c["file"])
            and "_student_kernels" in c.get("output", c["command"])
        ]
        solutions = [c for c in commands if re.search(r"/solutions/\d\d_\w+/kernels\.cu$", c["file"])]
        return students, solutions

    def test_no_student_kernels_include_folder_holds_the_solutions(self):
        students, _ = self.entries()
        self.assertGreater(len(students), 0, "no student kernels.cu in compile_commands.json")
        for entry in students:
            for folder in include_dirs(entry["command"], entry["directory"]):
                self.assertFalse((folder / "solutions").exists(), f"{entry['file']}: -I {folder} holds solutions/")
                self.assertNotEqual(
                    folder, REPO.resolve(), f"{entry['file']}: the repository root is an include folder"
                )

    @unittest.skipUnless((REPO / "solutions").is_dir(), "a student release has no solutions")
    def test_the_solutions_still_see_the_repository(self):
        # The control: the check would see the root where it is on the path.
        _, solutions = self.entries()
        self.assertGreater(len(solutions), 0)
        self.assertTrue(any(REPO.resolve() in include_dirs(e["command"], e["directory"]) for e in solutions))


if __name__ == "__main__":
    unittest.main()
