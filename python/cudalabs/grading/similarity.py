"""Code similarity across a class, on what the compiler sees rather than on the text: every pair of
submissions of a lab, and each against the solution's whole code (its solutions/ headers written in
place), compared as token sequences after the preprocessor.

What a disguise changes and the comparison does not see:
- line continuations, comments and spacing: the preprocessor removes them;
- macros (a kernel written as one macro, names behind #defines): the preprocessor expands them;
- C++'s alternative tokens and digraphs (`and`, `bitand`, `not_eq`, `<:` ...): mapped to the operator;
- names and literals: every identifier the student can choose becomes one token, every number,
  string and character another (the language's keywords and CUDA's built-ins stay as they are).

The preprocessor is the host compiler's (`g++ -E`, no include path: `#include` lines are dropped
first, so nothing but the student's own file is read), run with a time limit. Two files are compared
by their runs of 40 tokens (names renamed consistently within a run): the share of one file's runs
found in the other, after removing the runs the skeleton has (every student starts from it). The
report lists the pairs at or above a threshold. Independent versions of a lab written from its
handout share 30 to 45 % with the solution (lab 02's kernel of eight lines, about 70 %): read a pair
before concluding anything.
"""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from .class_report import SimilarPair
from .solution_file import single_file
from .submission import KERNELS, Lab

RUN_TOKENS = 40  # tokens in a compared run: long enough that independent code rarely shares one
MIN_RUNS = 20  # a file with fewer runs of its own (beyond the skeleton) is not compared
PREPROCESS_TIMEOUT_S = 30

_ALTERNATIVES = {
    "and": "&&",
    "or": "||",
    "not": "!",
    "bitand": "&",
    "bitor": "|",
    "xor": "^",
    "compl": "~",
    "and_eq": "&=",
    "or_eq": "|=",
    "xor_eq": "^=",
    "not_eq": "!=",
    "<:": "[",
    ":>": "]",
    "<%": "{",
    "%>": "}",
    "%:": "#",
    "%:%:": "##",
}
_KEYWORDS = set(
    """alignas alignof asm auto bool break case catch char char8_t char16_t char32_t class concept const
    consteval constexpr constinit const_cast continue co_await co_return co_yield decltype default delete
    do double dynamic_cast else enum explicit export extern false float for friend goto if inline int long
    mutable namespace new noexcept nullptr operator private protected public register reinterpret_cast
    requires return short signed sizeof static static_assert static_cast struct switch template this
    thread_local throw true try typedef typeid typename union unsigned using virtual void volatile wchar_t
    while size_t int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t std
    threadIdx blockIdx blockDim gridDim warpSize float2 float4 int2 int4 uint2 uint4 half2
    atomicAdd atomicCAS atomicExch atomicMax atomicMin atomicOr atomicAnd atomicInc atomicSub""".split()
)
_TOKEN = re.compile(
    r"""
    (?P<space>\s+)
  | (?P<raw>(?:u8|u|U|L)?R"(?P<delim>[^()\\\s]{0,16})\((?:.|\n)*?\)(?P=delim)")
  | (?P<string>(?:u8|u|U|L)?"(?:\\.|[^"\\\n])*")
  | (?P<char>(?:u8|u|U|L)?'(?:\\.|[^'\\\n])+')
  | (?P<number>\.?\d(?:[eEpP][+-]|[\w.']|)*)
  | (?P<name>[A-Za-z_]\w*)
  | (?P<punct>%:%:|\.\.\.|<=>|<<=|>>=|->\*|<:|:>|<%|%>|%:|::|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\|
              |[-+*/%&|^]=|\.\*|\#\#|.)
    """,
    re.VERBOSE,
)
# A directive that reads another file, however spelled: after a # (or its digraph or trigraph) and
# comments, include, include_next, import or embed.
_READS_A_FILE = re.compile(r"^[ \t]*(?:#|%:|\?\?=)[ \t]*(?:/\*.*?\*/[ \t]*)*(?:include(?:_next)?|import|embed)\b")


def _spliced(source: str) -> str:
    """The source with its line continuations joined (the preprocessor's second phase)."""
    return re.sub(r"\\[ \t]*\r?\n", "", source.replace("??/\n", "\n"))


def preprocessed(source: str) -> str:
    """The source after the host preprocessor, every directive that reads a file dropped first (nothing
    of the system's or the suite's is read; the macros the student defines are expanded). Falls back to
    the spliced text when the preprocessor is missing or gives up."""
    text = "\n".join("" if _READS_A_FILE.match(line) else line for line in _spliced(source).splitlines())
    compiler = shutil.which("g++") or shutil.which("cpp")
    if compiler is None:
        return text
    argv = [compiler, "-E", "-P", "-x", "c++", "-std=c++20", "-nostdinc", "-w"]
    argv += ["-D__CUDACC__", "-D__CUDA_ARCH__=900", "-"]
    try:
        done = subprocess.run(argv, input=text, capture_output=True, text=True, timeout=PREPROCESS_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired):
        return text
    return done.stdout if done.stdout.strip() else text


def _lexemes(source: str) -> list[str | tuple[str, str]]:
    """The tokens of preprocessed source, alternative spellings mapped to their operator; a name the
    student chooses as ("I", name), numbers 'N', strings 'S', characters 'C'."""
    out: list[str | tuple[str, str]] = []
    for match in _TOKEN.finditer(source):
        kind, text = match.lastgroup, match.group()
        if kind in ("space", "delim"):
            continue
        if kind in ("raw", "string"):
            out.append("S")
        elif kind == "char":
            out.append("C")
        elif kind == "number":
            out.append("N")
        elif kind == "name":
            text = _ALTERNATIVES.get(text, text)
            fixed = text in _KEYWORDS or text in _ALTERNATIVES.values() or text.startswith("__")
            out.append(text if fixed else ("I", text))
        else:
            out.append(_ALTERNATIVES.get(text, text))
    return out


def tokens(source: str) -> list[str]:
    """The normalized tokens of preprocessed source: every name the student chooses is 'I'."""
    return [lexeme if isinstance(lexeme, str) else "I" for lexeme in _lexemes(source)]


def runs(source: str, length: int = RUN_TOKENS) -> set[int]:
    """Hashes of every run of `length` tokens of the preprocessed source, each name in a run replaced
    by where it first appears in that run: a consistent renaming gives the same runs, while the runs
    still say which values flow where."""
    words = _lexemes(preprocessed(source))
    found = set()
    for start in range(len(words) - length + 1):
        seen: dict[str, int] = {}
        found.add(
            hash(
                tuple(
                    word if isinstance(word, str) else seen.setdefault(word[1], len(seen))
                    for word in words[start : start + length]
                )
            )
        )
    return found


def share(first: set[int], second: set[int]) -> int:
    """Percent of `first`'s runs that `second` has too."""
    return round(100 * len(first & second) / len(first)) if first else 0


def student_written(source: str, skeleton: str) -> str:
    """The source without the lines it shares with the skeleton (compared without spacing): the
    lines a student wrote, for counting them."""
    given = {" ".join(line.split()) for line in skeleton.splitlines() if line.strip()}
    return "\n".join(line for line in source.splitlines() if " ".join(line.split()) not in given) + "\n"


def similar_pairs(
    submissions: dict[str, Path], labs: list[Lab], repo: Path, threshold: int = 50, limit: int = 200
) -> list[SimilarPair]:
    """The most similar pairs (the larger share of either's runs found in the other; against the
    solution, the student's share), >= threshold, highest first, a pair with the solution before
    another of the same share. `submissions` maps student id -> labs folder."""
    pairs: dict[tuple[str, str, str], int] = {}
    for lab in labs:
        skeleton = runs((repo / "labs" / lab.folder / KERNELS).read_text(errors="replace"))
        written = {}
        for student, labs_folder in sorted(submissions.items()):
            source = labs_folder / lab.folder / KERNELS
            if source.is_file() and not source.is_symlink():
                own = runs(source.read_text(errors="replace")) - skeleton
                if len(own) >= MIN_RUNS:
                    written[student] = own
        if not written:
            continue
        solution = runs(single_file(repo, lab.folder)) - skeleton
        names = sorted(written)
        for i, first in enumerate(names):
            if (percent := share(written[first], solution)) >= threshold:
                pairs[(lab.number, first, "solution")] = percent
            for second in names[i + 1 :]:
                percent = max(share(written[first], written[second]), share(written[second], written[first]))
                if percent >= threshold:
                    pairs[(lab.number, first, second)] = percent
    ranked = sorted(pairs.items(), key=lambda item: (-item[1], item[0][2] != "solution", item[0]))[:limit]
    return [SimilarPair(lab, first, second, percent) for (lab, first, second), percent in ranked]
