"""Labelled string samples and their file formats (Abbadingo, StaMinA +/-/? lines).

A word is a tuple of ints in range(alphabet). Labels: True (accepted), False (rejected), None (unknown,
the StaMinA test files' '?').
"""
from __future__ import annotations

import dataclasses
from collections import Counter
from pathlib import Path
from typing import Iterable

import numpy as np

Word = tuple[int, ...]
# The largest alphabet read (StaMinA's have 2 to 50 symbols, Abbadingo's 2): the learner's tables have a
# column per symbol, so a file naming symbol 999999999 would otherwise ask for gigabytes.
MAX_ALPHABET = 1024


class FormatError(ValueError):
    """A malformed input line; the message names the file and the line so the CLI can print it alone."""

    def __init__(self, path, line_no: int, why: str):
        super().__init__(f"{path}:{line_no}: {why}")


class ContradictionError(ValueError):
    """The same string is labelled both ways in one training set."""

    @classmethod
    def of(cls, word) -> "ContradictionError":
        shown = " ".join(map(str, word)) or "(empty string)"
        return cls(f"contradictory training set: '{shown}' is labelled both + and -")


@dataclasses.dataclass(frozen=True)
class Sample:
    """Labelled words with multiplicities kept (repeats carry weight for evidence counts)."""

    alphabet: int
    words: tuple[Word, ...]
    labels: tuple[bool | None, ...]

    def __post_init__(self):
        if len(self.words) != len(self.labels):
            raise ValueError("words and labels differ in length")

    def __len__(self) -> int:
        return len(self.words)

    def counts(self) -> dict[tuple[Word, bool], int]:
        """Multiplicity of each distinct (word, label)."""
        return dict(Counter(zip(self.words, self.labels)))

    def distinct(self) -> list[tuple[Word, bool]]:
        """Distinct (word, label) pairs in a canonical order (label, length, word)."""
        return sorted(set(zip(self.words, self.labels)),
                      key=lambda wl: (bool(wl[1]), len(wl[0]), wl[0]))

    def check_consistent(self) -> None:
        """Raise ContradictionError if a word carries both labels (we do not guess which one is right)."""
        seen: dict[Word, bool | None] = {}
        for w, lab in zip(self.words, self.labels):
            if lab is None:
                continue
            old = seen.setdefault(w, lab)
            if old != lab:
                raise ContradictionError.of(w)

    def subset(self, keep: Iterable[tuple[Word, bool]]) -> "Sample":
        """The words whose (word, label) is in keep, multiplicities preserved."""
        keep = set(keep)
        pairs = [(w, lab) for w, lab in zip(self.words, self.labels) if (w, lab) in keep]
        return Sample(self.alphabet, tuple(w for w, _ in pairs), tuple(lab for _, lab in pairs))


def split_distinct(sample: Sample, seed: int = 0,
                   train_fraction: float = 0.8) -> tuple[Sample, list[tuple[Word, bool]]]:
    """Split the distinct labelled strings: the training side keeps multiplicities, the held-out side is distinct.

    The distinct pairs are put in canonical order and shuffled with numpy's default_rng(seed), so the split is
    reproducible by anyone with the same file.
    """
    pairs = sample.distinct()
    order = np.random.default_rng(seed).permutation(len(pairs))
    cut = int(round(train_fraction * len(pairs)))
    train = [pairs[i] for i in order[:cut]]
    held = [pairs[i] for i in order[cut:]]
    return sample.subset(train), held


def _parse_symbols(path, line_no, tokens, alphabet) -> Word:
    try:
        word = tuple(int(t) for t in tokens)
    except ValueError:
        raise FormatError(path, line_no, f"symbol is not an integer: {' '.join(tokens)!r}") from None
    for s in word:
        if not 0 <= s < alphabet:
            raise FormatError(path, line_no, f"symbol {s} outside the alphabet 0..{alphabet - 1}" + (
                f" (at most {MAX_ALPHABET} symbols are supported)" if alphabet == MAX_ALPHABET else ""))
    return word


def parse_abbadingo(text: str, path="<string>") -> Sample:
    """Abbadingo: header 'count alphabet' (some files write 'alphabet:0'), then 'label length symbols...'.

    Labels 1/0 and, for test files, -1 or '?' for unknown.
    """
    lines = text.splitlines()
    if not lines or not lines[0].strip():
        raise FormatError(path, 1, "missing header 'count alphabet'")
    head = lines[0].split()
    try:
        if len(head) != 2:
            raise ValueError
        count = int(head[0])
        alphabet = int(head[1].split(":")[0])
    except ValueError:
        raise FormatError(path, 1, f"header must be 'count alphabet', got {lines[0].strip()!r}") from None
    if not 1 <= alphabet <= MAX_ALPHABET:
        raise FormatError(path, 1, f"alphabet size must be 1 to {MAX_ALPHABET}, got {alphabet}")
    words, labels = [], []
    for i, line in enumerate(lines[1:], start=2):
        tok = line.split()
        if not tok:
            continue
        lab_tok = tok[0]
        if lab_tok == "1":
            lab = True
        elif lab_tok == "0":
            lab = False
        elif lab_tok in ("-1", "?"):
            lab = None
        else:
            raise FormatError(path, i, f"unknown label {lab_tok!r} (expected 1, 0, -1 or ?)")
        if len(tok) < 2:
            raise FormatError(path, i, "missing length")
        try:
            length = int(tok[1])
        except ValueError:
            raise FormatError(path, i, f"length is not an integer: {tok[1]!r}") from None
        if length != len(tok) - 2:
            raise FormatError(path, i, f"length says {length} but the line has {len(tok) - 2} symbols")
        words.append(_parse_symbols(path, i, tok[2:], alphabet))
        labels.append(lab)
    if len(words) != count:
        raise FormatError(path, 1, f"header announces {count} strings but the file has {len(words)}")
    return Sample(alphabet, tuple(words), tuple(labels))


def parse_stamina(text: str, path="<string>", alphabet: int | None = None) -> Sample:
    """StaMinA lines: '+', '-' or '?' then the symbols. The alphabet is inferred as max symbol + 1 unless given."""
    words, labels = [], []
    for i, line in enumerate(text.splitlines(), start=1):
        tok = line.split()
        if not tok:
            continue
        lab = {"+": True, "-": False, "?": None}.get(tok[0])
        if lab is None and tok[0] != "?":
            raise FormatError(path, i, f"unknown label {tok[0]!r} (expected +, - or ?)")
        words.append(_parse_symbols(path, i, tok[1:], alphabet if alphabet is not None else MAX_ALPHABET))
        labels.append(lab)
    if alphabet is None:
        alphabet = 1 + max((max(w) for w in words if w), default=0)
    return Sample(alphabet, tuple(words), tuple(labels))


def read_sample(path, alphabet: int | None = None) -> Sample:
    """Read either format, told apart by the first non-blank line (StaMinA lines start with + - ?)."""
    text = read_text_file(path)
    first = next((ln.split()[0] for ln in text.splitlines() if ln.strip()), None)
    if first is None:
        raise FormatError(path, 1, "empty file")
    if first in ("+", "-", "?"):
        return parse_stamina(text, path, alphabet)
    return parse_abbadingo(text, path)


def read_text_file(path) -> str:
    """A sample or model file's text; FormatError (naming it) for a folder, a binary file or an unreadable one."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except IsADirectoryError:
        raise FormatError(path, 1, "is a folder, not a file") from None
    if b"\0" in data:
        raise FormatError(path, 1, "not a text file (binary)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise FormatError(path, 1, "not a text file") from None


def read_training(path) -> Sample:
    """A training file: read_sample, and a string labelled both ways is an error that names the file."""
    sample = read_sample(path)
    try:
        sample.check_consistent()
    except ContradictionError as e:
        raise ContradictionError(f"{path}: {e}") from None
    return sample


def format_abbadingo(sample: Sample) -> str:
    out = [f"{len(sample)} {sample.alphabet}"]
    for w, lab in zip(sample.words, sample.labels):
        tag = "1" if lab else ("0" if lab is False else "-1")
        out.append(" ".join([tag, str(len(w)), *map(str, w)]))
    return "\n".join(out) + "\n"


def format_stamina(sample: Sample) -> str:
    out = []
    for w, lab in zip(sample.words, sample.labels):
        tag = "+" if lab else ("-" if lab is False else "?")
        out.append(" ".join([tag, *map(str, w)]))
    return "\n".join(out) + "\n"
