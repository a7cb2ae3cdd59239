"""Checks of generated prose, as a careful reader would read it (used by the unit tests of
the sentence generators and by tests/book/test_built_html.py on every built page).

:func:`defects` returns what reads as garbled in a piece of text: the same number twice in
a row ("0.0841, 0.0841"), a list of numbers run into another list, a negative amount after
a word that already says the direction ("lowered by -0.003"), a sentence that starts in
lower case after a full stop, a doubled word, a numbered reference in doubled parentheses.
"""
from __future__ import annotations

import re

NUMBER = r"[-+−]?\d[\d,]*(?:\.\d+)?(?:e[-+]?\d+)?%?"
# a direction word followed by a signed amount: the word already gives the sign
SIGNED_AFTER_DIRECTION = re.compile(
    r"\b(lowered|raised|fell|rose|dropped|decreased|increased|reduced|grew|shrank|lower|higher)\b[^.;:]{0,40}?"
    r"\bby\s+[-−]\s?\d", re.I)
# (not a pair of network sizes such as "(4, 4)", nor an interval such as "[1, 1]", nor small
# whole numbers such as "claim 11, 11 of 18": a measured value, with a decimal point or three digits)
REPEATED_NUMBER = re.compile(rf"(?<![\w.(\[-])({NUMBER}), \1(?![\w.)\]])")
MEASURED = re.compile(r"\.\d|\d{3}")
# "... of 0.1, 0.2, 100, 100 times": a list of one kind of number running into another
RUN_TOGETHER = re.compile(rf"(?<![\w.=])({NUMBER})(?:, {NUMBER}){{2,}} times\b")
ABBREVIATIONS = {"e.g.", "i.e.", "cf.", "vs.", "ep.", "approx.", "et al.", "al.", "Eq.", "Eqs.", "Fig.", "Figs.", "no.",
                 "s.d.", "rel.", "resp.", "ca.", "etc.", "vol.", "pp."}
DOUBLED_WORD = re.compile(r"(?<![-\w])([A-Za-z]{2,})\s+\1\b", re.I)  # (not "--ic ic.csv")
ALLOWED_DOUBLES = {"that"}
# "the solution ((17))" or "1.15 ((4, 32))": a numbered reference or a network inside parentheses of the text
# (not math, which a built page writes as "\\((4, 4)\\)")
DOUBLED_PARENTHESES = re.compile(r"(?<![\\\w])\(\s*\([\d,\s]+\)\s*\)")


def lower_case_starts(text: str) -> list[str]:
    """Sentences after a full stop that start with a lower-case word (not after an
    abbreviation, a number like '0.5.' or code)."""
    out = []
    flat = " ".join(text.split())
    for m in re.finditer(r"(\S+)([.!?])\s+([a-z][a-z]+)\b", flat):
        before = m.group(1) + m.group(2)
        if before in ABBREVIATIONS or before.lower() in ABBREVIATIONS or re.fullmatch(r"[\d.,]+", before) \
                or re.fullmatch(r"[A-Za-z]\.", before) or "`" in before or "/" in before or "(" in before:
            continue
        if m.group(3) in ("py", "csv", "json", "html", "npz", "ipynb", "md", "toml", "txt", "png"):
            continue  # a file name's suffix
        out.append(flat[max(0, m.start() - 30): m.end() + 20])
    return out


def defects(text: str) -> list[str]:
    """What reads as garbled in ``text`` (empty: nothing found)."""
    flat = " ".join(text.split())
    found = [f"repeated number {m.group(0)!r}" for m in REPEATED_NUMBER.finditer(flat) if MEASURED.search(m.group(1))]
    found += [f"numbers run together {m.group(0)!r}" for m in RUN_TOGETHER.finditer(flat)]
    found += [f"signed amount after a direction word {m.group(0)!r}" for m in SIGNED_AFTER_DIRECTION.finditer(flat)]
    found += [f"sentence starts in lower case: {s!r}" for s in lower_case_starts(flat)]
    found += [f"doubled word {m.group(0)!r}" for m in DOUBLED_WORD.finditer(flat)
              if m.group(1).lower() not in ALLOWED_DOUBLES]
    found += [f"doubled parentheses {m.group(0)!r}" for m in DOUBLED_PARENTHESES.finditer(flat)]
    return found


# ----------------------------------------------------------------------------- numbers per sentence
#: what does not count as a number of a sentence: math (symbols, a setting such as (4, 32) or
#: sigma^2 = 1e-3 written in math), a network size written as text "(4, 32)", an estimate's
#: interval "[0.23, 0.64]" (it belongs to its estimate), a reference ("Fig. 5", "claim 9",
#: "claims 6, 7 and 8", "errata 26", "Eq. 3", "Section 2", "Table 1") and a file name
UNCOUNTED = [re.compile(p) for p in (
    r"\\\(.*?\\\)", r"\$[^$]+\$",
    r"\(\d+, \d+\)",
    r"\[[^\[\]]*\d[^\[\]]*\]",
    r"\b(?:Figs?\.|Figures?|[Cc]laims?|[Ee]rrata|[Ee]rratum|Eqs?\.|Sections?|Tables?|Supplementary|SM)"
    r"\s+\d+(?:(?:,\s*|\s+and\s+|\s*[-–]\s*)\d+)*",
    r"\S+\.(?:py|csv|json|ipynb|npz|md|toml|txt|png)\b",
)]
NUMBER_TOKEN = re.compile(r"(?<![\w.])[-−]?\d+(?:[.,]\d+)*(?:e[-+−]?\d+)?\s?%?(?![\w])")
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z“\"(])")


def sentences(text: str) -> list[str]:
    """``text`` cut into sentences (a full stop, question or exclamation mark, then a capital),
    not after an abbreviation such as "Fig." or "e.g."."""
    flat, out, start = " ".join(text.split()), [], 0
    for m in SENTENCE_END.finditer(flat):
        last = flat[start:m.start()].rsplit(" ", 1)[-1]
        if last in ABBREVIATIONS or last.lower() in ABBREVIATIONS or re.fullmatch(r"[A-Z]\.", last):
            continue
        out.append(flat[start:m.start()])
        start = m.end()
    return out + [flat[start:]] if flat[start:] else out


def numbers_of(sentence: str) -> list[str]:
    """The numbers a sentence reports (:data:`UNCOUNTED` left out)."""
    for p in UNCOUNTED:
        sentence = p.sub(" ", sentence)
    return [m.group(0).strip() for m in NUMBER_TOKEN.finditer(sentence)]


def crowded(text: str, most: int = 3) -> list[str]:
    """The sentences of ``text`` that report more than ``most`` numbers."""
    return [s for s in sentences(text) if len(numbers_of(s)) > most]
