"""Augmented prefix tree acceptor: one node per distinct prefix of the sample, with label counts."""
from __future__ import annotations

import dataclasses
import functools

import numpy as np

from .samples import ContradictionError, Sample


@dataclasses.dataclass(frozen=True)
class APTA:
    """Node 0 is the empty prefix. children[v] maps symbol -> child; pos/neg count strings ending at v."""

    alphabet: int
    children: tuple[dict[int, int], ...]
    pos: tuple[int, ...]
    neg: tuple[int, ...]
    depth: tuple[int, ...]

    @property
    def size(self) -> int:
        return len(self.children)

    @functools.cached_property
    def edges(self) -> np.ndarray:
        """(node, symbol, child) rows, each node's children in insertion order, as the native learner takes them.

        Built once per APTA, however many learners run on it.
        """
        rows = [(v, a, c) for v, kids in enumerate(self.children) for a, c in kids.items()]
        return np.array(rows, np.int32).reshape(-1, 3)

    @classmethod
    def build(cls, sample: Sample) -> "APTA":
        children: list[dict[int, int]] = [{}]
        pos, neg, depth = [0], [0], [0]
        for word, lab in zip(sample.words, sample.labels):
            if lab is None:
                continue
            v = 0
            for a in word:
                nxt = children[v].get(a)
                if nxt is None:
                    nxt = len(children)
                    children[v][a] = nxt
                    children.append({})
                    pos.append(0)
                    neg.append(0)
                    depth.append(depth[v] + 1)
                v = nxt
            if lab:
                pos[v] += 1
            else:
                neg[v] += 1
            if pos[v] and neg[v]:
                raise ContradictionError.of(word)
        return cls(sample.alphabet, tuple(children), tuple(pos), tuple(neg), tuple(depth))
