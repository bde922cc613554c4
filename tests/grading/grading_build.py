"""What the grader's CPU tests share: the suite's build with the grader's targets (CUDALABS_BUILD_DIR,
as ctest passes it), and a grading context over it whose steps run in the real sandbox."""
from __future__ import annotations

import os
import tempfile
import unittest
from pathlib import Path

from cudalabs.grading import build, confinement
from cudalabs.grading.lab_grader import Context, GpuFacts
from cudalabs.grading.sandbox import make_sandbox
from cudalabs.paths import REPO

SYSTEM_ROOTS = [Path("/usr/include"), Path("/usr/lib/gcc"), Path("/usr/local/include")]


def grading_build() -> Path:
    folder = os.environ.get("CUDALABS_BUILD_DIR")
    return Path(folder) if folder else REPO / "build"


def one_architecture(command: build.CompileCommand, number: str) -> build.CompileCommand:
    """The lab's compile command for one architecture: the host code, the dependencies and the symbols
    are what they are for all, and the tests compile in seconds."""
    argv = [a for a in command.argv if not a.startswith("--generate-code")]
    argv.insert(
        1,
        "--generate-code=arch=compute_90a,code=[sm_90a]"
        if number == "11"
        else "--generate-code=arch=compute_75,code=[sm_75]",
    )
    return build.CompileCommand(argv, command.source, argv.index("-o") + 1, command.repo, command.suite_view)


class GradingBuildCase(unittest.TestCase):
    """Skips, with the reason, where the grading build or the sandbox is missing."""

    lab_number = "05"

    def setUp(self):
        self.build_dir = grading_build()
        targets = build.lab_targets(self.build_dir, self.lab_number, "")
        if not (
            targets.runner.is_file()
            and targets.referee.is_file()
            and (self.build_dir / "compile_commands.json").is_file()
        ):
            self.skipTest(f"the grader's lab {self.lab_number} targets are not built in {self.build_dir}")
        self.sandbox = make_sandbox()
        if not self.sandbox.enabled:
            self.skipTest(self.sandbox.note)
        roots = self.sandbox.system_folders()
        # Not where the runner may write (a build under /tmp): scratch_parent chooses.
        self.folder = tempfile.TemporaryDirectory(dir=confinement.scratch_parent(self.build_dir))
        os.chmod(self.folder.name, 0o755)
        out, scratch = Path(self.folder.name) / "out", Path(self.folder.name) / "scratch"
        scratch.mkdir()
        self.context = Context(
            REPO, self.build_dir, out, scratch, self.sandbox, "7", GpuFacts("no GPU", 0.0), system_roots=roots
        )

    def tearDown(self):
        self.folder.cleanup()
