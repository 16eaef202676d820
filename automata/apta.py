"""Augmented prefix tree acceptor: one node per distinct prefix of the sample, with label counts."""
from __future__ import annotations

import dataclasses

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
                shown = " ".join(map(str, word)) or "(empty string)"
                raise ContradictionError(f"contradictory training set: '{shown}' is labelled both + and -")
        return cls(sample.alphabet, tuple(children), tuple(pos), tuple(neg), tuple(depth))
