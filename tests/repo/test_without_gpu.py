"""The ways to do the labs without a GPU of one's own, tested as far as a machine without a GPU allows:
the Colab notebook's cells run as a script with the GPU steps skipped, and the container recipe linted
(its instructions, its base image, its shell, that it installs through scripts/setup). And what such a
machine's build needs: the oldest CMake and CUDA toolkit, stated where the student reads them and refused
in one line by the configure step, and the architectures a build gets where no GPU is visible."""
import json
import os
import pathlib
import re
import shutil
import subprocess
import tempfile
import unittest

REPO = pathlib.Path(__file__).resolve().parents[2]
NOTEBOOK = REPO / "tools" / "colab" / "cuda_labs_colab.ipynb"
DOCKERFILE = REPO / "tools" / "container" / "Dockerfile"
SBATCH = REPO / "tools" / "slurm" / "lab.sbatch"
ARCHITECTURES = REPO / "cmake" / "CudaArchitectures.cmake"

# What marks a step that needs a GPU: the notebook tags such cells "gpu".
GPU_COMMANDS = re.compile(r"\b(nvidia-smi|make (lab|solution|profile|run)|ctest)\b")


def notebook_cells():
    notebook = json.loads(NOTEBOOK.read_text())
    return [
        (cell["cell_type"], "".join(cell["source"]), cell.get("metadata", {}).get("tags", []))
        for cell in notebook["cells"]
    ]


def run_notebook(env):
    """Runs the notebook's code cells in order: Python cells in one namespace (their os.environ is the
    next cells' environment), %%bash cells under bash; cells tagged gpu are skipped and reported.
    Returns (ran, skipped) cell counts; raises AssertionError on the first failing cell."""
    ran = skipped = 0
    saved = dict(os.environ)
    os.environ.update(env)
    try:
        namespace = {}
        for index, (kind, source, tags) in enumerate(notebook_cells()):
            if kind != "code":
                continue
            if "gpu" in tags:
                print(f"notebook cell {index}: skipped (GPU step)")
                skipped += 1
                continue
            if source.startswith("%%bash"):
                body = source.split("\n", 1)[1]
                done = subprocess.run(
                    ["bash", "-c", body], capture_output=True, text=True, env=dict(os.environ), timeout=900
                )
                if done.returncode != 0:
                    raise AssertionError(
                        f"notebook cell {index} failed ({done.returncode}):\n{done.stdout}\n" f"{done.stderr}"
                    )
            else:
                exec(compile(source, f"notebook cell {index}", "exec"), namespace)  # noqa: S102
            ran += 1
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return ran, skipped


def dockerfile_instructions():
    """(keyword, arguments) per instruction, continuation lines joined, comments dropped."""
    instructions, pending = [], ""
    for line in DOCKERFILE.read_text().splitlines():
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        text = pending + line
        pending = ""
        keyword, _, arguments = text.strip().partition(" ")
        instructions.append((keyword, arguments.strip()))
    return instructions


class NotebookTest(unittest.TestCase):
    def test_is_a_notebook_whose_gpu_steps_are_tagged(self):
        notebook = json.loads(NOTEBOOK.read_text())
        self.assertEqual(notebook["nbformat"], 4)
        self.assertEqual(notebook["metadata"].get("accelerator"), "GPU")
        for kind, source, tags in notebook_cells():
            if kind != "code":
                continue
            self.assertTrue(source.startswith("%%bash") or "import os" in source, source[:60])
            if GPU_COMMANDS.search(source):
                self.assertIn("gpu", tags, f"a GPU step is not tagged gpu:\n{source}")
            else:
                self.assertNotIn("gpu", tags, f"a CPU step is tagged gpu:\n{source}")

    def test_cells_run_as_a_script_with_the_gpu_steps_skipped(self):
        if shutil.which("git") is None:
            self.skipTest("git is not installed")
        with tempfile.TemporaryDirectory() as scratch:
            root = pathlib.Path(scratch) / "cuda-labs"
            env = {
                "CUDALABS_ROOT": str(root),
                "CUDALABS_REPO_URL": str(REPO),
                "LAB": "01",
                "CUDALABS_SETUP_OFFLINE": "1",
            }
            ran, skipped = run_notebook(env)
            self.assertTrue((root / "Makefile").is_file(), "the suite was not fetched")
            self.assertGreaterEqual(ran, 3)
            self.assertGreaterEqual(skipped, 4)
            # A second run keeps the copy (and the student's edits in it).
            marker = root / "labs" / "01_naive_gemm" / "kernels.cu"
            marker.write_text(marker.read_text() + "\n// an edit\n")
            run_notebook(env)
            self.assertIn("// an edit", marker.read_text())

    def test_without_a_suite_it_says_what_to_do_in_one_line(self):
        with tempfile.TemporaryDirectory() as scratch:
            env = {"CUDALABS_ROOT": str(pathlib.Path(scratch) / "cuda-labs"), "CUDALABS_REPO_URL": ""}
            with self.assertRaises(AssertionError) as caught:
                run_notebook(env)
            self.assertIn("no suite: set CUDALABS_REPO_URL", str(caught.exception))


class ContainerRecipeTest(unittest.TestCase):
    KNOWN = {
        "FROM",
        "ARG",
        "ENV",
        "RUN",
        "WORKDIR",
        "COPY",
        "CMD",
        "LABEL",
        "USER",
        "ENTRYPOINT",
        "SHELL",
        "EXPOSE",
        "VOLUME",
        "HEALTHCHECK",
        "STOPSIGNAL",
        "ONBUILD",
        "ADD",
    }
    # Ubuntu's own CMake per release: the recipe relies on it being 3.24 or newer.
    UBUNTU_CMAKE = {"20.04": "3.16", "22.04": "3.22", "24.04": "3.28"}

    def setUp(self):
        self.instructions = dockerfile_instructions()
        self.args = {}
        for keyword, arguments in self.instructions:
            if keyword == "ARG" and "=" in arguments:
                name, _, value = arguments.partition("=")
                self.args[name] = value

    def expand(self, text):
        return re.sub(r"\$\{(\w+)\}", lambda m: self.args.get(m.group(1), m.group(0)), text)

    def test_instructions_are_known_and_from_comes_first(self):
        for keyword, _ in self.instructions:
            self.assertIn(keyword, self.KNOWN)
        keywords = [k for k, _ in self.instructions]
        self.assertEqual(keywords[0], "ARG")
        self.assertEqual([k for k in keywords if k != "ARG"][0], "FROM")
        self.assertEqual(keywords.count("FROM"), 1)

    def test_base_is_a_pinned_cuda_development_image_new_enough(self):
        image = self.expand(next(a for k, a in self.instructions if k == "FROM"))
        match = re.fullmatch(r"nvidia/cuda:(\d+)\.(\d+)\.(\d+)-devel-ubuntu(\d+\.\d+)", image)
        self.assertIsNotNone(match, f"FROM {image}: not NVIDIA's CUDA development image with a pinned version")
        major, minor = int(match.group(1)), int(match.group(2))
        self.assertGreaterEqual((major, minor), (12, 5), "the suite needs CUDA 12.5 or newer")
        cmake = self.UBUNTU_CMAKE.get(match.group(4))
        self.assertIsNotNone(cmake, f"unknown Ubuntu release {match.group(4)}")
        self.assertGreaterEqual(tuple(map(int, cmake.split("."))), (3, 24), "Ubuntu's CMake is too old")

    def test_installs_through_scripts_setup_with_apt_hygiene(self):
        runs = [a for k, a in self.instructions if k == "RUN"]
        self.assertTrue(any("scripts/setup build" in r for r in runs), "the recipe must call scripts/setup")
        for run in runs:
            if "apt-get install" in run or "scripts/setup" in run:
                self.assertIn("apt-get update", run, f"install without a fresh package list: {run}")
                self.assertIn("rm -rf /var/lib/apt/lists/*", run, f"package lists left in the layer: {run}")
            if "apt-get install" in run:
                self.assertRegex(run, r"apt-get install -y --no-install-recommends")

    def test_copied_files_exist_and_the_context_leaves_builds_out(self):
        for keyword, arguments in self.instructions:
            if keyword == "COPY":
                *sources, _ = arguments.split()
                for source in sources:
                    self.assertTrue((REPO / source).exists(), f"COPY {source}: not in the repository")
        ignore = (DOCKERFILE.parent / "Dockerfile.dockerignore").read_text().split()
        self.assertIn("build", ignore)
        self.assertIn(".deps", ignore)

    def test_shell_parts_are_valid_shell(self):
        for keyword, arguments in self.instructions:
            if keyword != "RUN":
                continue
            checked = subprocess.run(["bash", "-n", "-c", arguments], capture_output=True, text=True)
            self.assertEqual(checked.returncode, 0, f"RUN {arguments}: {checked.stderr}")
            if shutil.which("shellcheck"):
                linted = subprocess.run(
                    ["shellcheck", "-s", "bash", "-e", "SC2154", "-"], input=arguments, capture_output=True, text=True
                )
                self.assertEqual(linted.returncode, 0, f"RUN {arguments}:\n{linted.stdout}")

    def test_slurm_script_is_valid_shell(self):
        checked = subprocess.run(["bash", "-n", str(SBATCH)], capture_output=True, text=True)
        self.assertEqual(checked.returncode, 0, checked.stderr)
        if shutil.which("shellcheck"):
            linted = subprocess.run(["shellcheck", str(SBATCH)], capture_output=True, text=True)
            self.assertEqual(linted.returncode, 0, linted.stdout)
        done = subprocess.run(
            ["bash", str(SBATCH)], capture_output=True, text=True, env={"PATH": os.environ["PATH"], "LAB": "5"}
        )
        self.assertEqual(done.returncode, 2)
        self.assertEqual(done.stderr.strip(), "lab.sbatch: LAB '5' is not a two-digit lab number")


class BuildRequirementsTest(unittest.TestCase):
    """The oldest CMake and CUDA toolkit: the versions the configure step checks are the ones the README
    and the page for students without a GPU state, and an older one stops the configure step with one
    line that names both versions (run here in CMake's script mode, with a stand-in nvcc)."""

    def setUp(self):
        if shutil.which("cmake") is None:
            self.skipTest("cmake is not installed")
        self.top = (REPO / "CMakeLists.txt").read_text()
        self.check = re.search(r"^if\(CMAKE_VERSION VERSION_LESS ([\d.]+)\)\n.*?^endif\(\)\n", self.top, re.M | re.S)
        self.assertIsNotNone(self.check, "CMakeLists.txt: no check of CMAKE_VERSION")
        self.cmake = self.check.group(1)
        self.cuda = re.search(r"^set\(CUDALABS_MIN_CUDA ([\d.]+)\)", ARCHITECTURES.read_text(), re.M).group(1)

    def run_script(self, text):
        with tempfile.TemporaryDirectory() as scratch:
            script = pathlib.Path(scratch) / "check.cmake"
            script.write_text(text)
            return subprocess.run(["cmake", "-P", str(script)], capture_output=True, text=True, timeout=120)

    def test_the_checked_versions_are_the_stated_ones(self):
        self.assertLess(self.top.index(self.check.group(0)), self.top.index("cmake_minimum_required"))
        self.assertRegex(self.top, rf"cmake_minimum_required\(VERSION {re.escape(self.cmake)}\)")
        readme = (REPO / "README.md").read_text()
        self.assertIn(f"Oldest supported: CUDA {self.cuda} and CMake {self.cmake}", readme)
        page = " ".join((REPO / "docs" / "page_sources" / "without_a_gpu.md").read_text().split())
        self.assertIn(f"the CUDA toolkit {{{{const:{self.cuda}}}}} or newer", page)
        self.assertIn(f"CMake {{{{const:{self.cmake}}}}} or newer", page)

    def test_an_older_cmake_stops_the_configure_step_in_one_line(self):
        major, minor = (int(part) for part in self.cmake.split(".")[:2])
        older = f"{major}.{minor - 1}.1" if minor else f"{major - 1}.99.1"
        done = self.run_script(f"set(CMAKE_VERSION {older})\n" + self.check.group(0))
        self.assertNotEqual(done.returncode, 0)
        first = done.stderr.splitlines()[0]
        self.assertTrue(
            first.startswith(f"cuda-labs needs CMake {self.cmake} or newer; this is CMake {older}: "), first
        )
        done = self.run_script(f"set(CMAKE_VERSION {self.cmake}.0)\n" + self.check.group(0))
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(done.stderr, "")

    def test_an_older_cuda_toolkit_stops_the_configure_step_in_one_line(self):
        major, minor = (int(part) for part in self.cuda.split("."))
        with tempfile.TemporaryDirectory() as scratch:
            nvcc = pathlib.Path(scratch) / "nvcc"
            for release, refused in ((f"{major}.{minor - 1}", True), (self.cuda, False), ("13.0", False)):
                nvcc.write_text(
                    "#!/bin/sh\necho 'nvcc: NVIDIA (R) Cuda compiler driver'\n"
                    f"echo 'Cuda compilation tools, release {release}, V{release}.1'\n"
                )
                nvcc.chmod(0o755)
                done = self.run_script(
                    f'include("{ARCHITECTURES}")\nset(CMAKE_CUDA_COMPILER "{nvcc}")\ncudalabs_check_cuda_toolkit()\n'
                )
                with self.subTest(release=release):
                    if refused:
                        self.assertNotEqual(done.returncode, 0)
                        self.assertEqual(
                            done.stderr.splitlines()[0][: len(f"cuda-labs needs CUDA {self.cuda}")],
                            f"cuda-labs needs CUDA {self.cuda}",
                        )
                        self.assertIn(f"{nvcc} is CUDA {release}: ", done.stderr.splitlines()[0])
                    else:
                        self.assertEqual(done.returncode, 0, done.stderr)

    def test_without_a_visible_gpu_the_build_holds_every_taught_architecture(self):
        # nvidia-smi stood in for by /bin/false: a machine whose GPUs cannot be asked.
        done = self.run_script(
            f'include("{ARCHITECTURES}")\nset(NVIDIA_SMI /bin/false)\ncudalabs_choose_cuda_architectures()\n'
            'message(NOTICE "${CMAKE_CUDA_ARCHITECTURES}")\n'
        )
        self.assertEqual(done.returncode, 0, done.stderr)
        architectures = done.stderr.strip().split(";")
        # 7.5 Turing, 8.0 A100 (whose machine code 8.6 and 8.9 run), 9.0 Hopper as machine code; 9.0
        # also as PTX (no -real suffix) for the GPUs that come after.
        self.assertEqual(architectures, ["75-real", "80-real", "90"])


if __name__ == "__main__":
    unittest.main()
