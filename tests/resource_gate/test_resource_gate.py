"""The resource gate's reader against ptxas's own report of the same kernels, and its checks against
limits planted to be broken. Needs nvcc (the build's); skipped without it."""
import os
import pathlib
import re
import shutil
import subprocess
import tempfile
import unittest

import resource_gate  # beside this test (ctest runs it from this folder)

HERE = pathlib.Path(__file__).resolve().parent

NVCC = os.environ.get("CUDALABS_NVCC") or shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"


class ReaderTest(unittest.TestCase):
    def test_registers_and_shared_memory_are_what_ptxas_reports(self):
        if not pathlib.Path(NVCC).exists():
            self.skipTest("nvcc not found")
        with tempfile.TemporaryDirectory() as scratch:
            obj = pathlib.Path(scratch) / "planted.o"
            done = subprocess.run(
                [
                    NVCC,
                    "-c",
                    str(HERE / "planted.cu"),
                    "-o",
                    str(obj),
                    "--resource-usage",
                    "-gencode",
                    "arch=compute_75,code=sm_75",
                    "-gencode",
                    "arch=compute_90,code=sm_90",
                ],
                capture_output=True,
                text=True,
            )
            self.assertEqual(done.returncode, 0, done.stderr)
            reported, kernel, arch = {}, None, None
            for line in (done.stdout + done.stderr).splitlines():
                entry = re.search(r"Compiling entry function '(\w+)' for 'sm_(\d+)'", line)
                if entry:
                    kernel, arch = entry.group(1), int(entry.group(2))
                used = re.search(r"Used (\d+) registers.*?(?:(\d+) bytes smem)?(?:,|$)", line)
                if used and kernel:
                    smem = re.search(r"(\d+) bytes smem", line)
                    reported[(kernel, arch)] = (int(used.group(1)), int(smem.group(1)) if smem else 0)
            self.assertEqual(len(reported), 4, done.stderr)
            read = {}
            for kind, arch, payload in resource_gate.fatbin_entries(resource_gate.section_bytes(obj, ".nv_fatbin")):
                if kind == 2:
                    for name, (registers, shared, bound, stub) in resource_gate.parse_cubin(payload, arch).items():
                        reserved = resource_gate.LIMITS[arch][3] if arch >= 90 else 0
                        read[(name, arch)] = (registers, shared - reserved if shared >= reserved else shared)
                        self.assertFalse(stub)
                        if "planted_shared" in name:
                            self.assertEqual(bound, 256)
            self.assertEqual(read, reported)


class CheckTest(unittest.TestCase):
    def test_every_taught_architecture_has_its_limits(self):
        """The gate knows the limits of every architecture a build gets where no GPU is visible
        (cmake/CudaArchitectures.cmake), and of the GPUs that run its machine code (8.6 and 8.9 run
        sm_80's), so a build of them all is checked on each."""
        text = (HERE.parents[1] / "cmake" / "CudaArchitectures.cmake").read_text()
        taught = re.search(r'^set\(CUDALABS_TAUGHT_ARCHITECTURES "([^"]+)"\)', text, re.M).group(1)
        architectures = [int(re.match(r"\d+", entry).group(0)) for entry in taught.split(";")]
        self.assertEqual(architectures, [75, 80, 90])
        reached = {t for arch in architectures for t, _ in resource_gate.targets_of(arch, set(architectures), 90)}
        self.assertTrue({75, 80, 86, 89, 90} <= reached, reached)
        for arch in reached:
            self.assertIn(arch, resource_gate.LIMITS)

    def test_machine_code_is_checked_on_every_gpu_that_runs_it(self):
        # sm_80 code runs on 8.6, 8.7 and 8.9 (100 KiB of shared memory per SM on 8.6 and 8.9, not 164).
        self.assertEqual(
            resource_gate.targets_of(80, {75, 80, 90}, 90), [(80, False), (86, False), (87, False), (89, False)]
        )
        # Where the object has sm_86 code, 8.6 and 8.9 run that instead.
        self.assertEqual(resource_gate.targets_of(80, {80, 86}, None), [(80, False)])
        self.assertIn((89, False), resource_gate.targets_of(86, {80, 86}, None))
        # The newest machine code's PTX reaches the later majors, JIT-compiled.
        self.assertIn((100, True), resource_gate.targets_of(90, {75, 80, 90}, 90))
        self.assertNotIn((100, True), resource_gate.targets_of(80, {75, 80, 90}, 90))
        # A block of 120 KiB fits 8.0 and fails where sm_80 code runs on 8.6.
        launch = (128, 120 << 10)
        self.assertEqual(resource_gate.check(80, "k", 64, 0, 128, launch, False), [])
        self.assertTrue(resource_gate.check(86, "k", 64, 0, 128, launch, False))

    def test_a_block_too_big_for_the_smaller_gpus_fails_there_only(self):
        launch = (128, 97 << 10)  # lab 11's mma_swizzled: 3 stages of 128 x 128 x 64 BF16
        self.assertTrue(resource_gate.check(75, "k", 200, 0, 128, launch, False))
        self.assertEqual(resource_gate.check(86, "k", 200, 0, 128, launch, False), [])
        self.assertEqual(resource_gate.check(90, "k", 200, 1024, 128, launch, False), [])
        self.assertTrue(resource_gate.check(120, "k", 200, 0, 128, (128, 100 << 10), True))

    def test_registers_and_threads(self):
        self.assertTrue(resource_gate.check(80, "k", 128, 0, 0, (1024, 0), False))  # 128 K registers
        self.assertEqual(resource_gate.check(80, "k", 64, 0, 0, (1024, 0), False), [])
        self.assertTrue(resource_gate.check(75, "k", 32, 0, 0, (2048, 0), False))
        self.assertTrue(resource_gate.check(86, "k", 32, 0, 0, (1024, 0), False) == [])
        self.assertTrue(resource_gate.check(75, "k", 32, 49 << 10, 0, None, False))  # static > 48 KiB

    def test_register_allocation_rounds_per_warp(self):
        self.assertEqual(resource_gate.block_registers(33, 32), 1280)  # 33 x 32 = 1056 -> 5 units of 256
        self.assertEqual(resource_gate.block_registers(32, 33), 2048)  # a second warp for one thread

    def test_stub_entries_of_ptx(self):
        ptx = (
            ".visible .entry empty(\n.param .u64 p\n)\n{\n\n\tret;\n\n}\n"
            ".visible .entry full(\n.param .u64 p\n)\n.maxntid 128, 1, 1\n{\n.reg .b32 %r<2>;\n"
            "\tmov.u32 %r1, %tid.x;\n\tret;\n}\n"
        )
        self.assertEqual(resource_gate.ptx_stubs(ptx), {"empty"})


if __name__ == "__main__":
    unittest.main()
