"""A vote of several DFAs: the model `bin/stamina label` applies when the learner returns an ensemble.

Text format: a first line 'vote <n> [<k> [combine <w>...]]', then the n member machines in the DFA text format
one after the other (each starts with its own 'dfa <states> <alphabet>' header). A word is accepted when at
least k of the members accept it; without k (files written before the threshold existed), when more than half
do. With a combiner (one weight per FEATURES), when the weights' sum over the word's features is positive:
how many members accept it, how many fall off a missing transition and how far into the word, and its length.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from unnatural import cli

from .dfa import DFA
from .samples import FormatError, Word, read_text_file

# What a combiner weighs of a word (vote_features): 1, the share of the members that accept it, the share that
# fall off a missing transition, the mean share of its symbols those read before falling off (1 when none does),
# log(1 + its length), and the share accepting times that log. A positive word the members' data did not cover
# falls off late, a negative (a walk with a symbol changed) where the change is; a long word falls off more.
FEATURES = ("bias", "accept", "fall-off", "depth", "log-length", "accept-log-length")


def vote_features(members: Sequence[DFA], words: Sequence[Word]) -> np.ndarray:
    """The FEATURES of each word (a row each) under the machines `members`."""
    n, count = len(words), len(members)
    accept, fell, depth = np.zeros(n), np.zeros(n), np.zeros(n)
    lengths = np.zeros(n)
    for m in members:
        q, at, lengths = m.walk(words)
        accept += np.append(m.accepting, False)[q]
        off = at > 0
        fell += off
        depth += np.where(off, at / np.maximum(lengths, 1), 0.0)
    log_length = np.log1p(lengths)
    return np.column_stack([np.ones(n), accept / count, fell / count,
                            np.where(fell > 0, depth / np.maximum(fell, 1), 1.0),
                            log_length, accept / count * log_length])


COMBINER_L2 = 0.01   # the combiner fit's penalty


def fit_combiner(features: np.ndarray, labels: np.ndarray, l2: float = COMBINER_L2) -> tuple[float, ...] | None:
    """Combiner weights: a logistic regression of the labels on the features (rows of vote_features), each class
    weighing half (BCR weighs the two alike), by Newton's method with an L2 penalty; None without both labels."""
    y = np.asarray(labels, float)
    positives = y.sum()
    if positives == 0 or positives == len(y):
        return None
    weight = np.where(y == 1, 0.5 / positives, 0.5 / (len(y) - positives)) * len(y)
    w = np.zeros(features.shape[1])
    for _ in range(100):
        p = 1 / (1 + np.exp(-np.clip(features @ w, -30, 30)))
        hessian = (features * (weight * p * (1 - p))[:, None]).T @ features + l2 * np.eye(features.shape[1])
        step = np.linalg.solve(hessian, features.T @ (weight * (p - y)) + l2 * w)
        w -= step
        if np.abs(step).max() < 1e-9:
            break
    return tuple(round(float(v), 6) for v in w)


class Vote:
    def __init__(self, members: Sequence[DFA], threshold: int | None = None,
                 combiner: Sequence[float] | None = None):
        """threshold: how many members must accept a word (default: more than half of them); combiner: the
        weights of FEATURES that decide instead (None: the threshold does)."""
        if not members:
            raise ValueError("a vote needs at least one machine")
        if len({m.alphabet for m in members}) != 1:
            raise ValueError("the machines of a vote must share one alphabet")
        self.members = tuple(members)
        self.threshold = majority(len(members)) if threshold is None else int(threshold)
        if not 1 <= self.threshold <= len(members):
            raise ValueError(f"a vote of {len(members)} machines accepts at 1 to {len(members)} of them, "
                             f"not {threshold}")
        self.combiner = None if combiner is None else tuple(float(w) for w in combiner)
        if self.combiner is not None and (len(self.combiner) != len(FEATURES)
                                          or not all(np.isfinite(self.combiner))):
            raise ValueError(f"a combiner has {len(FEATURES)} finite weights ({', '.join(FEATURES)})")

    @property
    def alphabet(self) -> int:
        return self.members[0].alphabet

    @property
    def n_states(self) -> int:
        """The median member's size (what a table of 'states' reports for a vote: one outlier, such as a member
        that promoted up to its red-state cap, does not speak for the rest)."""
        return sorted(m.n_states for m in self.members)[len(self.members) // 2]

    @property
    def n_transitions(self) -> int:
        return sorted(m.n_transitions for m in self.members)[len(self.members) // 2]

    def yes_votes(self, words: Sequence[Word]) -> np.ndarray:
        """Per word, how many members accept it."""
        return np.sum([m.classify(words) for m in self.members], axis=0)

    def classify(self, words: Sequence[Word]) -> np.ndarray:
        if self.combiner is not None:
            return vote_features(self.members, words) @ np.array(self.combiner) > 0
        return self.yes_votes(words) >= self.threshold

    def accepts(self, word: Word) -> bool:
        return bool(self.classify([tuple(word)])[0])

    def to_text(self) -> str:
        combine = f" combine {' '.join(repr(w) for w in self.combiner)}" if self.combiner is not None else ""
        return f"vote {len(self.members)} {self.threshold}{combine}\n" + "".join(m.to_text() for m in self.members)

    def save(self, path) -> None:
        with cli.atomic_output(path) as f:   # whole or not at all
            f.write(self.to_text())

    def to_dot(self) -> str:
        return "".join(m.to_dot(name=f"member{i}") for i, m in enumerate(self.members))

    def render_png(self, path) -> bool:
        """The first member only (a picture of a vote is the pictures of its machines)."""
        return self.members[0].render_png(path)


def majority(n: int) -> int:
    """The fewest accepting members that are more than half of n."""
    return n // 2 + 1


def model_from_text(text: str, path="<string>") -> DFA | Vote:
    """A DFA, or a vote when the first non-comment line is 'vote <n> [<k> [combine <w>...]]'."""
    lines = text.splitlines()
    first = next((i for i, ln in enumerate(lines) if ln.split("#", 1)[0].split()), None)
    if first is None or lines[first].split()[0] != "vote":
        return DFA.from_text(text, path)
    head = lines[first].split()
    try:
        if len(head) > 3 and (head[3] != "combine" or len(head) != 4 + len(FEATURES)):
            raise ValueError
        n = int(head[1])
        k = int(head[2]) if len(head) >= 3 else None
        combiner = [float(w) for w in head[4:]] if len(head) > 3 else None
    except (IndexError, ValueError):
        raise FormatError(path, first + 1, f"the vote header is 'vote <n> [<k> [combine <{len(FEATURES)} "
                                           f"weights>]]'") from None
    starts = [i for i in range(first + 1, len(lines)) if lines[i].split()[:1] == ["dfa"]]
    if len(starts) != n or n < 1:
        raise FormatError(path, first + 1, f"the header announces {n} machines but the file has {len(starts)}")
    members = []
    for j, s in enumerate(starts):
        end = starts[j + 1] if j + 1 < len(starts) else len(lines)
        # Line numbers in errors stay the file's: pad with blank lines up to the member's first line.
        members.append(DFA.from_text("\n" * s + "\n".join(lines[s:end]), path))
    try:
        return Vote(members, k, combiner)
    except ValueError as e:
        raise FormatError(path, first + 1, str(e)) from None


def load_model(path) -> DFA | Vote:
    return model_from_text(read_text_file(path), path)
