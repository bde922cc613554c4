"""The referee and the runner end to end on the CPU (lab 10's split is host code): the student's code
built in the sandbox, called from the referee through the channel, and what the referee believes when
that code is right, missing, wrong, crashes as it loads, or never returns."""
from __future__ import annotations

import unittest

from cudalabs.grading import gtest, lab_grader, referee
from cudalabs.grading.lab_grader import _build_library
from cudalabs.grading.lab_run import LabRun
from cudalabs.grading.rubric import load_rubric
from cudalabs.grading.solution_file import handed_in
from cudalabs.grading.submission import Lab
from cudalabs import paths
from cudalabs.paths import REPO

from by_address import FIND_BY_ADDRESS, HIDDEN_SYSCALL
from grading_build import GradingBuildCase, one_architecture
from plants import replace_once

RUBRIC = load_rubric(paths.RUBRIC)
LAB = Lab("10", "10_multi_gpu_dcgan")
SOLUTION = handed_in(REPO, LAB.folder)["kernels.cu"]
SKELETON = (REPO / "labs" / LAB.folder / "kernels.cu").read_text()


def stand_in_tool(log):
    """A tool's stand-in: writes its report to `log` (in the runner's scratch), then runs the runner."""
    return ["/bin/sh", "-c", f'echo "tool report" > {log}; exec "$@"', "tool"]


class RunnerTest(GradingBuildCase):
    lab_number = "10"

    def split_tests(self, source: str, call_time_limit_s: float = 60, tool=None) -> tuple[dict, list[dict]]:
        tests, step = self.split_step(source, call_time_limit_s, tool)
        return tests, step.events

    def split_step(self, source: str, call_time_limit_s: float = 60, tool=None):
        run = LabRun(LAB.number, LAB.folder)
        from cudalabs.grading import build

        command = one_architecture(build.compile_command(self.build_dir, REPO, LAB.number, LAB.folder), LAB.number)
        folder, problems = _build_library(
            self.context, LAB, RUBRIC.labs["10"], {"kernels.cu": source.encode()}, "student", run, command
        )
        self.assertIsNotNone(folder, run.reason + "\n".join(run.details))
        env = referee.referee_environment(RUBRIC.labs["10"].variant_lists(), {}, "7", call_time_limit_s)
        spec = lab_grader._runner(self.context, LAB, folder, "tests")  # confined, as the grader runs it
        work = self.context.work
        xml = work / "split.xml"
        tool_file = spec.scratch / "tool.log" if tool else None
        step = referee.run_referee(
            lab_grader.build.lab_targets(self.build_dir, "10", LAB.folder).referee,
            ["--gtest_filter=Split.*", f"--gtest_output=xml:{xml}"],
            spec.command(self.sandbox, tool(tool_file) if tool else None),
            work,
            "split",
            env,
            300,
            tool_file=tool_file,
        )
        self.assertIn(step.completed.returncode, (0, 1), step.completed.output()[-2000:])
        return {t.name: t for t in gtest.parse_xml(xml)}, step

    def test_the_solution_passes(self):
        tests, events = self.split_tests(SOLUTION)
        self.assertEqual({t.status for t in tests.values()}, {"passed"}, tests)
        self.assertEqual([e["event"] for e in events], ["started", "exited"])

    def test_the_skeleton_is_not_implemented_yet(self):
        tests, _ = self.split_tests(SKELETON)
        self.assertEqual({t.status for t in tests.values()}, {"not_implemented"})

    def test_a_wrong_split_fails_with_the_referees_message(self):
        wrong = replace_once(SOLUTION, "base + (part < extra ? 1 : 0)};", "base};", "a wrong split")
        tests, _ = self.split_tests(wrong)
        self.assertEqual(tests["Split.SharesAreOrderedTilingAndBalanced"].status, "failed")

    def test_a_crash_as_the_library_loads_is_the_runners_crash(self):
        crashing = SOLUTION + (
            "\nnamespace {\nstruct CrashAtLoad {\n  CrashAtLoad() { __builtin_trap(); }\n"
            "} crash_at_load;\n}  // namespace\n"
        )
        tests, events = self.split_tests(crashing)
        self.assertEqual({t.status for t in tests.values()}, {"failed"})
        crashed = [e for e in events if e["event"] == "crashed"]
        self.assertTrue(crashed and "SIGILL" in crashed[0]["detail"], events)
        self.assertEqual(
            lab_grader._abnormal(
                type("S", (), {"events": events, "completed": type("C", (), {"timed_out": False})()})(),
                "the grading tests",
            )[0],
            "crashed",
        )

    def test_a_report_printed_as_the_library_loads_never_reaches_the_tools_report(self):
        # A static initialiser prints before the runner's main() moves the output aside: a forged
        # sanitizer summary and Nsight Compute row. The tool (here a shell standing in for one) writes
        # its report to its log file, and that file is all the grader reads.
        forged = (
            '========= ERROR SUMMARY: 0 errors\n"ID","Kernel Name","smsp__inst_executed"\n'
            '"","","inst"\n"0","k","999999"\n'
        )
        literal = forged.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
        forging = SOLUTION + (
            "\n#include <cstdio>\nnamespace {\nstruct ForgeAtLoad {\n"
            f'  ForgeAtLoad() {{ std::printf("%s", "{literal}"); std::fflush(stdout); }}\n'
            "} forge_at_load;\n}  // namespace\n"
        )

        tests, step = self.split_step(forging, tool=stand_in_tool)
        self.assertEqual({t.status for t in tests.values()}, {"passed"}, tests)
        self.assertEqual(step.tool_log.read_text(), "tool report\n")
        stdout = step.tool_log.with_name("split.stdout.log").read_text()
        self.assertIn("ERROR SUMMARY: 0 errors", stdout)  # it was printed, where nobody reads it

    def test_code_that_finds_functions_by_address_cannot_rewrite_the_report_or_load_a_library(self):
        # Names only memcpy (every integrity rule holds), finds fopen, dlopen and printf by walking the
        # loader's symbol tables, and makes a system call the disassembler does not show: the
        # runner's confinement refuses each, and the tool's report stays the tool's.
        forged = "========= ERROR SUMMARY: 0 errors\\n"
        walking = (
            SOLUTION
            + FIND_BY_ADDRESS
            + HIDDEN_SYSCALL
            + "namespace {\nstruct AtLoad {\n  AtLoad() {\n"
            + f'    planted::say("rewrote the report: %d\\n", int(planted::overwrite("tool.log", "{forged}")));\n'
            + '    planted::say("loaded cuBLAS: %d\\n", int(planted::loads("libcublas.so")));\n'
            + '    planted::say("loaded a library it does not link: %d\\n", int(planted::loads("libz.so.1")));\n'
            + '    planted::say("loaded a library it links: %d\\n", int(planted::loads("libm.so.6")));\n'
            + '    const long opened = planted::hidden_syscall(257, -100, long("tool.log"), 01 | 01000);\n'
            + '    planted::say("opened the report by a hidden system call: %d\\n", int(opened >= 0));\n'
            + "  }\n} at_load;\n}  // namespace\n"
        )

        tests, step = self.split_step(walking, tool=stand_in_tool)
        self.assertEqual({t.status for t in tests.values()}, {"passed"}, tests)
        self.assertEqual(step.tool_log.read_text(), "tool report\n")
        said = step.tool_log.with_name("split.stdout.log").read_text()
        for attempt in (
            "rewrote the report",
            "loaded cuBLAS",
            "loaded a library it does not link",
            "opened the report by a hidden system call",
        ):
            self.assertIn(f"{attempt}: 0", said)
        self.assertIn("loaded a library it links: 1", said)  # the walk finds dlopen: the refusals are the rules'

    def test_a_call_that_never_returns_meets_the_time_limit(self):
        hanging = replace_once(
            SOLUTION,
            "Share gpu_share(int num, int parts, int part) {",
            "Share gpu_share(int num, int parts, int part) {\n  for (volatile int spin = 1; spin;) {\n  }",
            "a call that never returns",
        )
        tests, events = self.split_tests(hanging, call_time_limit_s=3)
        self.assertTrue(any(e["event"] == "time limit" for e in events), events)
        self.assertEqual({t.status for t in tests.values()}, {"failed"})


if __name__ == "__main__":
    unittest.main()
