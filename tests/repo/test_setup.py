"""scripts/setup on a stand-in machine root (CUDALABS_SETUP_ROOT): what it finds, what it reports as
missing, its offline prefix and its bad input. Nothing is installed: a test root never installs."""
import os
import pathlib
import subprocess
import tempfile
import unittest

REPO = pathlib.Path(__file__).resolve().parents[2]
SETUP = REPO / "scripts" / "setup"

# One file or program per package of the build group, as Debian lays them out.
BUILD_FILES = [
    "usr/bin/cmake",
    "usr/bin/ninja",
    "usr/bin/g++",
    "usr/bin/make",
    "usr/bin/python3",
    "usr/bin/zstd",
    "usr/lib/x86_64-linux-gnu/libgomp.so.1",
    "usr/lib/x86_64-linux-gnu/cmake/GTest/GTestConfig.cmake",
    "usr/lib/x86_64-linux-gnu/cmake/benchmark/benchmarkConfig.cmake",
    "usr/share/cmake/CLI11/CLI11Config.cmake",
    "usr/include/stb/stb_image_write.h",
    "usr/share/cmake/nlohmann_json/nlohmann_jsonConfig.cmake",
]


def make_files(root, paths):
    for path in paths:
        target = pathlib.Path(root) / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("")
        target.chmod(0o755)


class SetupTest(unittest.TestCase):
    def run_setup(self, *args, root, deps=None):
        env = dict(os.environ, CUDALABS_SETUP_ROOT=str(root), CUDALABS_DEPS=str(deps or pathlib.Path(root) / "no-deps"))
        return subprocess.run([str(SETUP), *args], capture_output=True, text=True, env=env, timeout=60)

    def test_everything_present_is_quiet(self):
        with tempfile.TemporaryDirectory() as root:
            make_files(root, BUILD_FILES)
            done = self.run_setup("build", root=root)
            self.assertEqual(done.returncode, 0, done.stderr)
            self.assertEqual(done.stdout + done.stderr, "")

    def test_missing_packages_are_named_in_one_line(self):
        with tempfile.TemporaryDirectory() as root:
            make_files(root, [f for f in BUILD_FILES if "CLI11" not in f and "stb" not in f])
            done = self.run_setup("--check", "build", root=root)
            self.assertEqual(done.returncode, 1)
            self.assertEqual(done.stderr.strip().splitlines(), ["setup: missing libcli11-dev libstb-dev"])

    def test_missing_required_package_stops_with_one_line(self):
        with tempfile.TemporaryDirectory() as root:
            make_files(root, [f for f in BUILD_FILES if "GTest" not in f])
            done = self.run_setup("build", root=root)
            self.assertNotEqual(done.returncode, 0)
            lines = done.stderr.strip().splitlines()
            self.assertEqual(len(lines), 1, done.stderr)
            self.assertIn("libgtest-dev", lines[0])

    def test_missing_optional_group_does_not_stop(self):
        with tempfile.TemporaryDirectory() as root:
            make_files(root, BUILD_FILES)
            done = self.run_setup("build", "--optional", "mpi", root=root)
            self.assertEqual(done.returncode, 0, done.stderr)
            self.assertIn("going on without libopenmpi-dev openmpi-bin", done.stderr)

    def test_offline_bundle_counts_as_installed(self):
        with tempfile.TemporaryDirectory() as root, tempfile.TemporaryDirectory() as deps:
            make_files(root, [f for f in BUILD_FILES if "CLI11" not in f and "stb" not in f])
            make_files(pathlib.Path(deps) / "root", [f for f in BUILD_FILES if "CLI11" in f or "stb" in f])
            done = self.run_setup("--check", "build", root=root, deps=deps)
            self.assertEqual(done.returncode, 0, done.stderr)

    def test_list_names_every_group(self):
        with tempfile.TemporaryDirectory() as root:
            done = self.run_setup("--list", "build", "mpi", "docs", "fuzz", "style", root=root)
            self.assertEqual(done.returncode, 0)
            names = done.stdout.split()
            for package in (
                "cmake",
                "ninja-build",
                "libgtest-dev",
                "libbenchmark-dev",
                "libcli11-dev",
                "libstb-dev",
                "libgomp1",
                "libopenmpi-dev",
                "doxygen",
                "doxygen-awesome-css",
                "graphviz",
                "python3-matplotlib",
                "clang",
                "clang-format",
            ):
                self.assertIn(package, names)

    def test_offline_bundle_holds_the_build_group(self):
        """An offline machine with the bundle as .deps has every build package: the bundle's default holds
        each one but the toolchain (a compiler, make, CMake, Ninja, Python: the machine's own)."""
        with tempfile.TemporaryDirectory() as root:
            build = set(self.run_setup("--list", "build", root=root).stdout.split())
            bundled = self.run_setup("--list-bundle", root=root).stdout.split()
        toolchain = {"cmake", "ninja-build", "g++", "make", "python3"}
        self.assertLessEqual(toolchain, build)
        self.assertEqual(build - toolchain - set(bundled), set(), "build packages the bundle leaves out")
        self.assertIn("zstd", bundled)
        self.assertEqual(set(bundled) & toolchain, set())

    def test_bad_input_gets_one_line_and_exit_2(self):
        with tempfile.TemporaryDirectory() as root:
            for args, word in ((["--frobnicate"], "--frobnicate"), (["gui"], "'gui'"), (["--bundle"], "--bundle")):
                done = self.run_setup(*args, root=root)
                self.assertEqual(done.returncode, 2, args)
                lines = done.stderr.strip().splitlines()
                self.assertEqual(len(lines), 1, done.stderr)
                self.assertIn(word, lines[0])


if __name__ == "__main__":
    unittest.main()
