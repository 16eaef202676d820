"""A majority vote of several DFAs: the model `bin/stamina label` applies when the learner returns an ensemble.

Text format: a first line 'vote <n>', then the n member machines in the DFA text format one after the other
(each starts with its own 'dfa <states> <alphabet>' header). A word is accepted when more than half of the
members accept it. A vote of one machine is that machine.
"""
from __future__ import annotations

from pathlib import Path
from typing import Sequence

import numpy as np

from .dfa import DFA
from .samples import FormatError, Word


class Vote:
    def __init__(self, members: Sequence[DFA]):
        if not members:
            raise ValueError("a vote needs at least one machine")
        if len({m.alphabet for m in members}) != 1:
            raise ValueError("the machines of a vote must share one alphabet")
        self.members = tuple(members)

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

    def classify(self, words: Sequence[Word]) -> np.ndarray:
        yes = np.sum([m.classify(words) for m in self.members], axis=0)
        return yes * 2 > len(self.members)

    def accepts(self, word: Word) -> bool:
        return bool(self.classify([tuple(word)])[0])

    def to_text(self) -> str:
        return f"vote {len(self.members)}\n" + "".join(m.to_text() for m in self.members)

    def save(self, path) -> None:
        Path(path).write_text(self.to_text())

    def to_dot(self) -> str:
        return "".join(m.to_dot(name=f"member{i}") for i, m in enumerate(self.members))

    def render_png(self, path) -> bool:
        """The first member only (a picture of a vote is the pictures of its machines)."""
        return self.members[0].render_png(path)


def model_from_text(text: str, path="<string>") -> DFA | Vote:
    """A DFA, or a vote when the first non-comment line is 'vote <n>'."""
    lines = text.splitlines()
    first = next((i for i, ln in enumerate(lines) if ln.split("#", 1)[0].split()), None)
    if first is None or lines[first].split()[0] != "vote":
        return DFA.from_text(text, path)
    head = lines[first].split()
    try:
        n = int(head[1])
    except (IndexError, ValueError):
        raise FormatError(path, first + 1, "the vote header is 'vote <n>'") from None
    starts = [i for i in range(first + 1, len(lines)) if lines[i].split()[:1] == ["dfa"]]
    if len(starts) != n or n < 1:
        raise FormatError(path, first + 1, f"the header announces {n} machines but the file has {len(starts)}")
    members = []
    for j, s in enumerate(starts):
        end = starts[j + 1] if j + 1 < len(starts) else len(lines)
        # Line numbers in errors stay the file's: pad with blank lines up to the member's first line.
        members.append(DFA.from_text("\n" * s + "\n".join(lines[s:end]), path))
    try:
        return Vote(members)
    except ValueError as e:
        raise FormatError(path, first + 1, str(e)) from None


def load_model(path) -> DFA | Vote:
    return model_from_text(Path(path).read_text(), path)
