"""How the built book's test counts the numbers of a sentence (tests/prose.py: ``sentences``,
``numbers_of``, ``crowded``): a reader's count, not a regular expression's."""
from __future__ import annotations

import pytest

from prose import crowded, numbers_of, sentences


@pytest.mark.parametrize("sentence, n", [
    ("Lowest median error of u at 5e-4, 0.0431.", 2),
    # an estimate with its interval is one number
    ("The ratio is 0.39 [0.23, 0.64] and the bias −14 % [−32 %, −3.7 %].", 2),
    # a network size in text or in math, and a setting in math, are names, not numbers
    ("(4, 32) against (6, 128) at \\(\\sigma^2 = 10^{-3}\\): 1.17.", 1),
    # references are not numbers
    ("As Fig. 5 shows and claims 6, 7 and 8 say (errata 26, Eq. 3), 3 of 12 agree.", 2),
    ("Interquartile ranges: B = 10: 0.0045, B = 40: 0.0033, B = 160: 0.0022.", 6),
    ("A file a1.csv holds 75,000 steps.", 1),
])
def test_numbers_of_a_sentence(sentence, n):
    assert len(numbers_of(sentence)) == n, numbers_of(sentence)


def test_sentences_end_at_a_full_stop_before_a_capital_not_after_an_abbreviation():
    text = "See Fig. 5 for 3 curves. The error is 0.1 at 1e-4, i.e. Lower. Then 2."
    assert sentences(text) == ["See Fig. 5 for 3 curves.", "The error is 0.1 at 1e-4, i.e. Lower.", "Then 2."]


def test_crowded_finds_the_sentence_with_a_fourth_number():
    four = "Median error 0.1 at B = 160 and 0.2 at B = 640."
    assert crowded(four) == [four] and crowded(four, most=4) == []
    assert crowded("Median error 0.1 (u) and 0.2 (v) at 3 levels. The next has 1 and " + four) == [
        "The next has 1 and " + four]
