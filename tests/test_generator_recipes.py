"""automata/generator.py's recipes: the generator's free choices varied within the published protocol."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from automata.cli import main
from automata.generator import DEFAULT_RECIPE, RECIPES, Recipe, make_problem, random_edit

SMALL = 3_000  # a pool just large enough for the 1,500-string test set: the properties hold at any size


def small(recipe: Recipe) -> Recipe:
    return dataclasses.replace(recipe, pool=SMALL)


def positive_mean_length(p) -> float:
    return float(np.mean([len(w) for w, lab in zip(p.training.words, p.training.labels) if lab]))


@pytest.mark.parametrize("name", sorted(RECIPES))
def test_every_recipe_makes_a_consistent_reproducible_problem(name):
    r = small(RECIPES[name])
    p = make_problem(5, 5, 50.0, r)
    assert len(p.test) == 1500 and len(set(p.test.words)) == 1500
    assert list(p.target.classify(list(p.training.words))) == list(p.training.labels)
    assert 45 <= p.target.n_states <= 55
    assert make_problem(5, 5, 50.0, r).training == p.training


def test_the_default_recipe_is_the_generator_as_it_was():
    assert RECIPES["ours"] == DEFAULT_RECIPE == Recipe()
    assert make_problem(3, 2, 12.5).training == make_problem(3, 2, 12.5, Recipe()).training


def test_test_copies_false_keeps_every_test_word_out_of_training():
    kept = make_problem(2, 2, 100.0, small(Recipe()))
    apart = make_problem(2, 2, 100.0, small(Recipe(test_copies=False)))
    assert set(kept.training.words) & set(kept.test.words)  # short two-letter walks repeat
    assert not set(apart.training.words) & set(apart.test.words)


def test_negative_share():
    """The pool's share; training's is a little lower (the test set takes distinct words, and walks repeat
    more often than their edits, so more positive copies stay behind)."""
    got = [1 - np.mean(make_problem(4, 10, 100.0, small(Recipe(negative_share=s))).training.labels)
           for s in (0.3, 0.5, 0.7)]
    assert got == sorted(got) and all(abs(g - s) < 0.1 for g, s in zip(got, (0.3, 0.5, 0.7)))


def test_a_larger_stop_scale_makes_longer_walks():
    short = make_problem(6, 5, 100.0, small(Recipe()))
    long = make_problem(6, 5, 100.0, small(Recipe(stop_scale=3.0)))
    assert positive_mean_length(long) > 1.3 * positive_mean_length(short)


@pytest.mark.parametrize("kinds, change", [((1.0, 0.0, 0.0), +1), ((0.0, 1.0, 0.0), -1), ((0.0, 0.0, 1.0), 0)])
def test_one_edit_of_each_kind(kinds, change):
    rng = np.random.default_rng(0)
    word = (0, 1, 2, 3, 4)
    for _ in range(50):
        w = random_edit(rng, word, 5, edits_mean=0.0, kinds=kinds)
        assert len(w) == len(word) + change
        if change == 0:
            assert sum(a != b for a, b in zip(w, word)) <= 1


def test_cli_generate_takes_a_recipe(tmp_path, capsys):
    assert main(["generate", "--seed", "1", "--alphabet", "5", "--sparsity", "12.5", "--recipe", "one-edit",
                 "--output", str(tmp_path)]) == 0
    assert "problem 36: alphabet 5, sparsity 12.5%" in capsys.readouterr().out
    assert (tmp_path / "36_training.txt").exists()
    with pytest.raises(SystemExit):
        main(["generate", "--recipe", "nonesuch", "--output", str(tmp_path)])
