"""--explain's scores, comparable across files: each finding's log10 gain less half the file's background of
odd spots (ranker.rank.Explained), one shift per file, so a file's order is its gains' order."""
import json

import pytest
from conftest import ROOT, run_rank

from ranker.explain import line_col
from ranker.rank import (
    BACKGROUND_DISTANCE,
    BACKGROUND_POOL,
    BACKGROUND_SPOTS,
    BACKGROUND_WEIGHT,
    Candidate,
    background,
    explained_candidates,
    top_candidates,
)

DEFAULT_MODEL = ROOT / ".models" / "default-kind-units-o6.bin"
needs_model = pytest.mark.skipif(not DEFAULT_MODEL.exists(), reason="no default model (make demo builds it)")


def found(*pairs) -> list[Candidate]:
    """Candidates (offset, gain), best first."""
    return [Candidate(offset, gain, 0, " ", "") for offset, gain in pairs]


@pytest.mark.parametrize("findings, expected", [
    ([], 0.0),
    ([(100, 5.0)], 0.0),                                            # nothing but the top one
    ([(100, 5.0), (100 + BACKGROUND_DISTANCE, 4.0)], 0.0),          # its neighbour: the same spot
    ([(100, 5.0), (100 + BACKGROUND_DISTANCE + 1, 4.0), (10, 2.0)], 3.0),
    ([(500, 5.0), (490, 4.5), (1, 3.0), (900, -1.0)], 1.0),          # near ones skipped, negative gains counted
    ([(1000, 9.0)] + [(i * 100, 8.0 - i) for i in range(1, 9)], sum(8.0 - i for i in range(1, 6)) / 5),
])
def test_background_is_the_mean_gain_of_the_next_spots_away_from_the_top(findings, expected):
    assert BACKGROUND_SPOTS == 5
    assert background(found(*findings)) == pytest.approx(expected)


# A class of six like methods; `slips` of them miss the space after '=' (CodRep 2019's deleted space).
def counter_class(slips: set[int], methods: int = 6) -> str:
    return "public class Counter {\n\n" + "".join(
        f"    public int size{i}(int[] counts) {{\n        int total {'=' if i in slips else '= '}0;\n"
        f"        for (int c : counts) {{\n            total += c;\n        }}\n        return total;\n    }}\n\n"
        for i in range(methods)) + "}\n"


@pytest.fixture(scope="module")
def default_ranker():
    from parsing.schemes import get_scheme
    from ranker.cli import RankConfig, load
    scorer, lm = load(RankConfig(str(DEFAULT_MODEL)))
    return scorer, get_scheme(lm.scheme)


@needs_model
@pytest.mark.parametrize("slips", [set(), {2}, {0, 3}, set(range(6))])
@pytest.mark.parametrize("adapt", [False, True])
def test_the_score_shifts_a_files_findings_alike(default_ranker, slips, adapt):
    """The same findings as top_candidates, in the same order; every score is the gain less the same
    amount; the background is read from the file's BACKGROUND_POOL best whatever --top is."""
    scorer, scheme = default_ranker
    text = counter_class(slips)
    pool = top_candidates(scorer, scheme, text, "t", BACKGROUND_POOL, adapt)
    for top in (1, 3, BACKGROUND_POOL + 5):
        explained = explained_candidates(scorer, scheme, text, "t", top, adapt)
        assert explained.candidates == top_candidates(scorer, scheme, text, "t", top, adapt)
        assert explained.background == background(pool)
        scores = [explained.score(f) for f in explained.candidates]
        assert scores == [f.score - BACKGROUND_WEIGHT * explained.background for f in explained.candidates]
        assert scores == sorted(scores, reverse=True)


@needs_model
def test_one_stand_out_spot_scores_above_many_equal_ones(default_ranker):
    """Unadapted, each slip has the same gain wherever it is; the file where it stands alone scores
    highest, the file with three of them lower, the file with six lower still."""
    scorer, scheme = default_ranker
    explained = [explained_candidates(scorer, scheme, counter_class(slips), "t", 1, adapt=False)
                 for slips in ({2}, {0, 2, 4}, set(range(6)))]
    gains = [e.candidates[0].score for e in explained]
    scores = [e.score(e.candidates[0]) for e in explained]
    assert gains[0] > 3 and gains == pytest.approx([gains[0]] * 3)
    assert scores[0] > scores[1] > scores[2]


@needs_model
@pytest.mark.slow
def test_explain_prints_the_score_and_the_gain(tmp_path):
    """bin/rank --explain, text and JSON, with the default model: score, gain and background agree."""
    f = tmp_path / "Counter.java"
    text = counter_class({2})
    f.write_text(text)
    at = text.index("total =0") + len("total =") + 1   # the slip: '0' follows '=' directly
    code, out, _ = run_rank(["--explain", "--json", "--top", "3", str(f)])
    records = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and len(records) == 3 and records[0]["offset"] == at
    for r in records:
        assert r["score"] == pytest.approx(r["gain"] - BACKGROUND_WEIGHT * r["background"], abs=2e-4)
    assert [r["gain"] for r in records] == sorted((r["gain"] for r in records), reverse=True)
    code, out, _ = run_rank(["--explain", "--top", "3", str(f)])
    line, col = line_col(text, at)
    assert out.splitlines()[0] == (f"{f}:{line}:{col}: '∅' -> '␣' "
                                   f"({records[0]['score']:.2f}, gain {records[0]['gain']:.2f})")
