"""ranker/habits.py: trailing whitespace, blank-line whitespace, mixed indentation and line endings, scored by
rates."""
import math
from array import array

import pytest

from ranker.habits import (
    ENDING,
    HEADS,
    NONE,
    PRIORS,
    STRENGTH,
    VARIABLES,
    HabitCounts,
    habit_scores,
    habit_values,
    habits,
)


@pytest.mark.parametrize("gap, unit, expected", [
    (" ", "    ", (NONE, NONE, NONE, NONE)),           # within a line: no habit applies
    ("\n    ", "    ", (0, 0, NONE, 0)),
    ("  \n    ", "    ", (1, 0, NONE, 0)),            # trailing spaces
    ("\t\n\t", "\t", (2, 0, NONE, 0)),                # a trailing tab
    (" \t\n", "\t", (3, 0, NONE, 0)),
    ("\n    \t", "    ", (0, 1, NONE, 0)),            # a tab in a space-indented file
    ("\n\t\t  ", "\t", (0, 0, NONE, 0)),              # spaces after tabs: alignment
    ("\n  \t", "\t", (0, 1, NONE, 0)),                # spaces before a tab
    ("\n\n    ", "    ", (0, 0, 0, 0)),
    ("\n    \n    ", "    ", (0, 0, 1, 0)),           # a blank line holding whitespace
    ("\r\n\r\n", "    ", (0, 0, 0, 1)),               # CRLF line ends
    ("  \r\n    ", "    ", (1, 0, NONE, 1)),          # trailing spaces before a CRLF
    ("\r    ", "    ", (0, 0, NONE, 2)),               # a lone CR is a line break too
    ("\r\r    ", "    ", (0, 0, 0, 2)),
    ("\r\n\n", "    ", (0, 0, 0, 3)),                 # endings mixed within the gap
])
def test_habits(gap, unit, expected):
    assert habits(gap, unit) == expected


def test_a_habit_the_file_has_is_cheaper_than_one_it_does_not():
    clean = ["\n    "] * 30 + [" "] * 50
    trailing = ["  \n    "] * 10 + ["\n    "] * 20 + [" "] * 50
    values = habit_values(["  \n    "], "    ")
    for gaps in (clean, trailing):
        counts = HabitCounts.of(gaps, "    ")
        assert sum(counts.counts[0]) == 30
    clean_score = habit_scores(HabitCounts.of(clean, "    "), values, None)[0]
    trailing_score = habit_scores(HabitCounts.of(trailing, "    "), values, None)[0]
    assert trailing_score > clean_score
    # the posteriors around the priors, by hand: trailing spaces never seen, the indentation never mixed
    assert clean_score == pytest.approx(math.log10((0 + STRENGTH * PRIORS[0][1]) / (30 + STRENGTH))
                                        + math.log10((30 + STRENGTH * PRIORS[1][0]) / (30 + STRENGTH)))


def test_the_gap_under_test_is_left_out_of_its_own_evidence():
    gaps = ["  \n    "] + ["\n    "] * 9
    counts = HabitCounts.of(gaps, "    ")
    observed = habit_values(gaps, "    ")
    own = observed[0:VARIABLES]
    left_out = habit_scores(counts, observed[0:VARIABLES], own)[0]
    assert left_out == pytest.approx(math.log10((0 + STRENGTH * PRIORS[0][1]) / (9 + STRENGTH))
                                     + math.log10((9 + STRENGTH * PRIORS[1][0]) / (9 + STRENGTH)))
    kept = habit_scores(counts, observed[0:VARIABLES], None)[0]
    assert kept > left_out


def test_counts_add_and_subtract():
    a = HabitCounts.of(["  \n", "\n\n"], "    ")
    b = HabitCounts.of(["\t\n"], "\t")
    total = a + b
    assert (total - b).counts == a.counts
    assert total.counts[0] == (1, 1, 1, 0) and len(total.counts[0]) == len(HEADS)
    assert HabitCounts.of([], None).counts[2] == (0, 0)


def test_a_files_line_ending_is_its_own():
    """A CRLF file's CRLF costs little and a lone LF in it more; in an LF file, a stray CRLF is what costs
    (each gap left out of its own evidence). A file without a CR: the line endings count for nothing."""
    crlf, lf = habit_values(["\r\n    "], "    "), habit_values(["\n    "], "    ")
    crlf_file = HabitCounts.of(["\r\n    "] * 40 + [" "] * 50, "    ")
    assert habit_scores(crlf_file, crlf, crlf)[0] > habit_scores(crlf_file, lf, crlf)[0] + 0.25
    stray = HabitCounts.of(["\n    "] * 40 + ["\r\n    "] + [" "] * 50, "    ")
    assert habit_scores(stray, lf, crlf)[0] > habit_scores(stray, crlf, crlf)[0] + 1
    lf_file = HabitCounts.of(["\n    "] * 40 + [" "] * 50, "    ")
    no_ending = array("b", lf)
    no_ending[ENDING] = NONE
    assert habit_scores(lf_file, lf, lf)[0] == habit_scores(lf_file, no_ending, no_ending)[0]


GAPS = ["", " ", "\n", "\n    ", "  \n    ", "\t\n\t", " \t\n", "\n    \t", "\n\n    ", "\n    \n    ", "\r\n\r\n",
        "  \r\n    ", "\r    ", "\r\r    ", "\r\n\n", "\n\t\t  ", "\n  \t"]


@pytest.mark.parametrize("unit", [None, "\t", "  ", "    "])
def test_habit_values_are_each_gaps_habits(unit):
    """habit_values (gap texts' bytes looked up and joined) is the habits of each gap, in order."""
    for gaps in ([], GAPS, GAPS[::-1] * 3, ["\n  \n", *GAPS, "\n  \n"]):
        assert list(habit_values(gaps, unit)) == [v for gap in gaps for v in habits(gap, unit)]


def test_habit_counts_are_counted_one_by_one():
    """HabitCounts.of_values (counted as bytes) counts what a loop over the values counts, from arrays, lists
    and tuples, NONE left out."""
    for values in ([], GAPS, GAPS * 7):
        flat = habit_values(values, "    ")
        loop = [[0.0] * len(prior) for prior in PRIORS]
        for i, v in enumerate(flat):
            if v >= 0:
                loop[i % VARIABLES][v] += 1
        expected = tuple(map(tuple, loop))
        for given in (flat, list(flat), tuple(flat)):
            assert HabitCounts.of_values(given).counts == expected


def test_habit_counts_of_a_real_file():
    from conftest import data_path

    from parsing.java import tokenize
    text = (data_path("codrep2019", "validation") / "0.txt").read_text()
    gaps = tokenize(text).gap_texts
    counts = HabitCounts.of(gaps, "    ").counts
    assert sum(counts[0]) == sum(1 for g in gaps if "\n" in g) and counts == HabitCounts.of_values(
        [v for g in gaps for v in habits(g, "    ")]).counts
