"""A vote of several DFAs: the model `bin/stamina label` applies when the learner returns an ensemble.

Text format: a first line 'vote <n> [<k>]', then the n member machines in the DFA text format one after the
other (each starts with its own 'dfa <states> <alphabet>' header). A word is accepted when at least k of the
members accept it; without k (files written before the threshold existed), when more than half do.
"""
from __future__ import annotations

from pathlib import Path
from typing import Sequence

import numpy as np

from unnatural import cli

from .dfa import DFA
from .samples import FormatError, Word, read_text_file


class Vote:
    def __init__(self, members: Sequence[DFA], threshold: int | None = None):
        """threshold: how many members must accept a word (default: more than half of them)."""
        if not members:
            raise ValueError("a vote needs at least one machine")
        if len({m.alphabet for m in members}) != 1:
            raise ValueError("the machines of a vote must share one alphabet")
        self.members = tuple(members)
        self.threshold = majority(len(members)) if threshold is None else int(threshold)
        if not 1 <= self.threshold <= len(members):
            raise ValueError(f"a vote of {len(members)} machines accepts at 1 to {len(members)} of them, "
                             f"not {threshold}")

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
        return self.yes_votes(words) >= self.threshold

    def accepts(self, word: Word) -> bool:
        return bool(self.classify([tuple(word)])[0])

    def to_text(self) -> str:
        return f"vote {len(self.members)} {self.threshold}\n" + "".join(m.to_text() for m in self.members)

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
    """A DFA, or a vote when the first non-comment line is 'vote <n> [<k>]'."""
    lines = text.splitlines()
    first = next((i for i, ln in enumerate(lines) if ln.split("#", 1)[0].split()), None)
    if first is None or lines[first].split()[0] != "vote":
        return DFA.from_text(text, path)
    head = lines[first].split()
    try:
        if len(head) > 3:
            raise ValueError
        n = int(head[1])
        k = int(head[2]) if len(head) == 3 else None
    except (IndexError, ValueError):
        raise FormatError(path, first + 1, "the vote header is 'vote <n> [<k>]'") from None
    starts = [i for i in range(first + 1, len(lines)) if lines[i].split()[:1] == ["dfa"]]
    if len(starts) != n or n < 1:
        raise FormatError(path, first + 1, f"the header announces {n} machines but the file has {len(starts)}")
    members = []
    for j, s in enumerate(starts):
        end = starts[j + 1] if j + 1 < len(starts) else len(lines)
        # Line numbers in errors stay the file's: pad with blank lines up to the member's first line.
        members.append(DFA.from_text("\n" * s + "\n".join(lines[s:end]), path))
    try:
        return Vote(members, k)
    except ValueError as e:
        raise FormatError(path, first + 1, str(e)) from None


def load_model(path) -> DFA | Vote:
    return model_from_text(read_text_file(path), path)
