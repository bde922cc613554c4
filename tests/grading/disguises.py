"""Copies in disguise, for the similarity check's tests and the planted class: the same code renamed,
in C++'s alternative tokens and digraphs, or written as one macro with a line continuation every
dozen words. None changes what the compiler sees but the names."""
from __future__ import annotations

import re


def renamed(source: str, names: dict[str, str]) -> str:
    return re.sub(r"\b(" + "|".join(map(re.escape, names)) + r")\b", lambda m: names[m.group(1)], source)


def alternative_tokens(source: str) -> str:
    """The same code in C++'s alternative tokens and digraphs (directives and strings left alone)."""
    spellings = [("&&", " and "), ("||", " or "), ("!=", " not_eq "), ("[", "<:"), ("]", ":>")]
    spellings += [("{", "<%"), ("}", "%>"), ("^", " xor "), ("~", " compl ")]
    out = []
    for line in source.splitlines():
        if not line.lstrip().startswith("#") and '"' not in line:
            for plain, other in spellings:
                line = line.replace(plain, other)
        out.append(line)
    return "\n".join(out) + "\n"


def one_macro(source: str) -> str:
    """The code as one macro with a line continuation every dozen words, its #includes before it and
    its pragmas as _Pragma."""
    source = re.sub(r"/\*.*?\*/", " ", source, flags=re.S)
    source = re.sub(r"//[^\n]*", " ", source)
    head, body = [], []
    for line in source.splitlines():
        stripped = line.strip()
        if stripped.startswith("#pragma"):
            body.append('_Pragma("' + stripped[len("#pragma") :].strip() + '")')
        elif stripped.startswith("#"):
            head.append(stripped)
        else:
            body.append(stripped)
    words = " ".join(body).split()
    chunks = [" ".join(words[i : i + 12]) for i in range(0, len(words), 12)]
    return "\n".join(head) + "\n#define LAB_CODE \\\n" + " \\\n".join(chunks) + "\nLAB_CODE\n"
