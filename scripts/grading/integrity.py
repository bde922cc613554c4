"""Integrity rules for a student's kernels.cu, checked before it is built: what it may include, the
library and system calls it may not make, and the suite's names it may not redefine. A violation
scores the lab 0 with the line and the rule named (the instructor's guide lists what each rule catches).

The allowed includes and the forbidden names live in the rubric (tests/grading/rubric.json, key
"integrity"), so an instructor can widen or narrow them per lab; this module only applies them.
Comments and string literals are removed first: a comment that mentions cuBLAS is no violation.
"""
from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass
from pathlib import Path

# Words no student may #define or #undef, besides the suite's own names: C++ keywords and what CUDA
# builds in (a '#define float double' or '#define __syncthreads()' changes what the tests measure).
_RESERVED = set("""alignas alignof asm auto bool break case catch char char8_t char16_t char32_t class concept const
consteval constexpr constinit const_cast continue co_await co_return co_yield decltype default delete do double
dynamic_cast else enum explicit export extern false float for friend goto if inline int long mutable namespace new
noexcept nullptr operator private protected public register reinterpret_cast requires return short signed sizeof
static static_assert static_cast struct switch template this thread_local throw true try typedef typeid typename
union unsigned using virtual void volatile wchar_t while threadIdx blockIdx blockDim gridDim warpSize""".split())

_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
_INCLUDE_LINE = re.compile(r"^\s*#\s*include\b")
_INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]*)[>"]')
_DEFINE = re.compile(r"^\s*#\s*(define|undef)\s+([A-Za-z_]\w*)")


@dataclass(frozen=True)
class Rules:
    """What one lab's kernels.cu may do (from the rubric)."""
    allowed_includes: tuple[str, ...]  # glob patterns: '"lab.h"', '"labs/{folder}/*"', '<cuda/*>'
    forbidden: dict[str, tuple[str, ...]]  # rule -> names (a trailing * matches any suffix)


@dataclass(frozen=True)
class Violation:
    line: int
    rule: str
    text: str

    def __str__(self) -> str:
        return f"kernels.cu line {self.line}: {self.rule}: `{self.text}`"


def strip_comments_and_strings(source: str) -> str:
    """The source with comments and string and character literals blanked, line breaks kept, so that
    line numbers stay right."""
    out, i, n = [], 0, len(source)
    while i < n:
        c = source[i]
        if source.startswith("//", i):
            end = source.find("\n", i)
            i = n if end < 0 else end
        elif source.startswith("/*", i):
            end = source.find("*/", i + 2)
            block = source[i:n if end < 0 else end + 2]
            out.append("\n" * block.count("\n"))
            i += len(block)
        elif c in "\"'":
            j = i + 1
            while j < n and source[j] != c and source[j] != "\n":
                j += 2 if source[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def suite_names(repo: Path) -> set[str]:
    """Every identifier of the suite's own headers and sources (common/, labs/ but the students'
    kernels.cu): the names a submission may not redefine with #define or #undef."""
    names: set[str] = set()
    for folder in ("common", "labs"):
        for path in sorted((repo / folder).rglob("*")):
            if path.suffix in (".h", ".cuh", ".cpp", ".cu") and path.name != "kernels.cu":
                names.update(_IDENTIFIER.findall(strip_comments_and_strings(path.read_text(errors="replace"))))
    return names


def _matches(name: str, patterns: tuple[str, ...]) -> bool:
    return any(name == p or (p.endswith("*") and name.startswith(p[:-1])) for p in patterns)


def check_source(source: str, rules: Rules, folder: str, protected: set[str]) -> list[Violation]:
    """The violations in one kernels.cu of lab `folder` ("07_wide_loads"), in line order."""
    allowed = tuple(p.replace("{folder}", folder) for p in rules.allowed_includes)
    original_lines = source.splitlines()
    violations = []
    for number, line in enumerate(strip_comments_and_strings(source).splitlines(), start=1):
        text = original_lines[number - 1].strip() if number <= len(original_lines) else line.strip()
        if _INCLUDE_LINE.match(line):
            # The quotes were blanked with the strings: read the name from the original line. An
            # include of a macro or of nothing readable is refused too.
            original = _INCLUDE.match(original_lines[number - 1])
            spelled = "" if not original else (f"<{original.group(2)}>" if original.group(1) == "<"
                                               else f'"{original.group(2)}"')
            if not any(fnmatch.fnmatchcase(spelled, pattern) for pattern in allowed):
                violations.append(Violation(number, "an include the rubric does not allow for this lab", text))
            continue
        if define := _DEFINE.match(line):
            name = define.group(2)
            if name in protected or name in _RESERVED or name.startswith("__"):
                violations.append(Violation(number, f"#{define.group(1)} of a name the suite or CUDA uses", text))
            continue
        broken = []
        for name in _IDENTIFIER.findall(line):
            broken += [rule for rule, names in rules.forbidden.items() if _matches(name, names) and rule not in broken]
        violations += [Violation(number, rule, text) for rule in broken]
    return violations


def check_file(path: Path, rules: Rules, folder: str, protected: set[str]) -> list[Violation]:
    return check_source(path.read_text(errors="replace"), rules, folder, protected)
