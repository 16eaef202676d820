"""File-local (and folder) style: which gap symbols are written between which tokens.

The gap under test is left out of its own evidence (leave-one-out), so a file's single odd gap does not
vouch for itself, while a style the file uses consistently (a space inside parentheses, tabs, Allman
braces) makes the same gap elsewhere in the file unsurprising even when other projects never write it.

The n-gram probability p of a gap symbol becomes, context level after context level, the Dirichlet
posterior (count + alpha * p) / (total + alpha), each level's posterior the next one's prior. The file's own
counts are keyed by the narrow context (the token before, the token after). With folder adaptation, the
other files of the folder (in the strict variant, minus the file's near-duplicates, which would otherwise
hand it its own clean copy) come first, as the prior of the file's own counts, keyed by wide contexts:
REACHES tokens on each side, the longer context on top. Measured on the detection development sets
(docs/notes/detection.md), pooling the folder's counts with the file's own in the narrow context (and a 3-token
one on top) lowered MRR on every set: thousands of the folder's gaps between the same two tokens outweigh
both the n-gram model's longer context and the file's own habits; in a context of 4 or 6 tokens a side, the
folder's counts say how the project writes that very construct.

The file's own counts and every lookup are ranker/native.cpp's StyleCache (ranking a file alone imports no
numpy); the folder's counts (ranker/counts.py) are numpy's, keyed here, and folder_cache hands them to a file's
StyleCache, which takes the part of them the file's contexts use. Symbols are interned to integers (ranker/symbols.py);
a wide context is a 64-bit hash of its tokens' text (the same in every process, so the folder's counts
travel to cluster workers as they are, and the StyleCache hashes a file's contexts as wide_contexts does).
"""
from __future__ import annotations

import hashlib

import numpy as np

from ._native import StyleCache
from ._native import wide_contexts as native_wide_contexts
from .symbols import PAD, symbol_count, symbol_names
from .symbols import intern as _intern

# Tokens a side of the folder's wide contexts, one level each. Chosen on the development sets (MRR / AUC,
# means of the 7 sets; docs/detection.md): on subsets of 150 tasks + 150 clean files each, 3: 0.9568 /
# 0.9318, 4: 0.9582 / 0.9351, 5: 0.9576 / 0.9378, 3 and 5: 0.9605 / 0.9359, 4 and 6: 0.9614 / 0.9420, 4, 6
# and 8: 0.9618 / 0.9432; on the whole sets, 4 and 6: 0.9545 / 0.9434, 4, 6 and 8: 0.9570 / 0.9455, 4, 6,
# 8 and 10: 0.9559 / 0.9460.
REACHES = (4, 6, 8)


def _text_hash(s: str) -> int:
    return int.from_bytes(hashlib.blake2b(s.encode("utf-8"), digest_size=8).digest(), "little")


_hashes: list[int] = []   # per symbol id: its text's 64-bit hash, worked out when first asked for
_hash_array = np.zeros(0, dtype=np.uint64)


def all_symbol_hashes() -> np.ndarray:
    """The 64-bit hashes of the texts of every symbol interned so far, by id (uint64)."""
    global _hash_array
    if len(_hashes) < symbol_count():   # (the names are listed only when there are new ones)
        names = symbol_names()
        _hashes.extend(map(_text_hash, names[len(_hashes):]))
        _hash_array = np.asarray(_hashes, dtype=np.uint64)
    return _hash_array


def symbol_hashes(ids: np.ndarray) -> np.ndarray:
    """The 64-bit hashes of the texts of symbols `ids` (uint64)."""
    return all_symbol_hashes()[ids]


# A wide (context, gap symbol) pair is one int64: the context's hash in the high 40 bits, the symbol text's
# hash in the low 24, so that a context's pairs are neighbours in a sorted table (a folder of 5,000 files
# has about 10 million contexts: a few dozen pairs of them may share 40 bits; a few hundred gap symbols, 24).
SYMBOL_BITS = 24
_SYMBOL_PART = np.uint64((1 << SYMBOL_BITS) - 1)


def wide_contexts(ids: np.ndarray) -> list[np.ndarray]:
    """For each gap of a stream, per reach R of REACHES: a hash of the R tokens before it and the R after
    it ('|' past the ends), in the high 40 bits of an int64 (the low 24 are zero): ranker/native.cpp's
    wide_contexts, which the StyleCache hashes a file's contexts with."""
    tokens = np.ascontiguousarray(symbol_hashes(np.asarray(ids, dtype=np.int64)[1::2])).view(np.int64)
    pad = int(symbol_hashes(np.array([PAD])).view(np.int64)[0])
    return [np.frombuffer(native_wide_contexts(tokens, reach, pad), dtype=np.int64) for reach in REACHES]


def _wide_keys(contexts: np.ndarray, symbol_hash: np.ndarray) -> np.ndarray:
    """(wide context, gap symbol) pairs as one int64 each."""
    return contexts | (symbol_hash & _SYMBOL_PART).view(np.int64)


def wide_keys(ids: np.ndarray, contexts: list[np.ndarray] | None = None) -> list[np.ndarray]:
    """Per level of REACHES, the (wide context, gap symbol) key of each gap of a stream (`ids`: its 2n+1
    symbol ids; `contexts`: its `wide_contexts` when the caller has them). The same in every process."""
    gap_hashes = symbol_hashes(np.asarray(ids, dtype=np.int64)[0::2])
    return [_wide_keys(c, gap_hashes) for c in (wide_contexts(ids) if contexts is None else contexts)]


def narrow_keys(ids: np.ndarray) -> np.ndarray:
    """The (narrow context, gap symbol) key of each gap of a stream (`ids`: its 2n+1 symbol ids): the token
    before it and the one after it ('|' past the ends), as `wide_keys` keys a reach of 1. What a repository
    writes between two kinds of tokens, which bin/check weighs against a finding (check/calibration.py)."""
    ids = np.asarray(ids, dtype=np.int64)
    tokens = np.ascontiguousarray(symbol_hashes(ids[1::2])).view(np.int64)
    pad = int(symbol_hashes(np.array([PAD])).view(np.int64)[0])
    return _wide_keys(np.frombuffer(native_wide_contexts(tokens, 1, pad), dtype=np.int64), symbol_hashes(ids[0::2]))


def narrow_key(before: str, gap: str, after: str) -> int:
    """The `narrow_keys` key of gap symbol `gap` between token symbols `before` and `after` ('|': an end)."""
    return int(narrow_keys_of([(before, gap, after)])[0])


# Two counts beside a file's narrow keys, as keys no gap has: its lines indented with a tab first and with a
# space first (what a repository indents with, which a file too short to tell its own unit shows wrongly)
INDENT_LINES = (("|", "·indent:tab", "|"), ("|", "·indent:space", "|"))


def indent_lines(gap_texts) -> tuple[int, int]:
    """(lines indented with a tab first, with a space first) of a file's gaps (a blank line's whitespace
    counts as its own line's)."""
    joined = "".join(gap_texts)
    return joined.count("\n\t"), joined.count("\n ")


def continuation_triple(offset: int) -> tuple[str, str, str]:
    """The key, as a triple no gap has, of a line that first continues a statement `offset` columns from it
    (parsing/style.py's first_continuations)."""
    return ("|", f"·cont{offset:+d}", "|")


def sibling_triple(diff: int, opened: int = 0) -> tuple[str, str, str]:
    """The key, as a triple no gap has, of a continuation line `diff` columns from its sibling, or (`opened`:
    the brackets its opening line leaves open) of a bracket's first line `diff` columns from the line the
    bracket opened on (parsing/style.py's continuation_siblings)."""
    return ("|", f"·kid{opened}{diff:+d}" if opened else f"·sib{diff:+d}", "|")


_line_gap = np.zeros(0, bool)     # per symbol id: a gap symbol holding a line break
_structure = np.zeros(0, bool)    # per symbol id: a token of parsing/style.py's STRUCTURE


def _tables() -> tuple[np.ndarray, np.ndarray]:
    """The two tables, grown to every symbol interned so far."""
    global _line_gap, _structure
    if len(_line_gap) < symbol_count():
        from parsing.style import STRUCTURE
        from parsing.symbols import GAP_MARK
        names = symbol_names()
        _line_gap = np.array([n.startswith(GAP_MARK) and "n" in n for n in names], bool)
        _structure = np.array([n in STRUCTURE for n in names], bool)
    return _line_gap, _structure


def line_events(ids) -> tuple[list[str], list[int], list[int]]:
    """A stream's token symbols, the tokens that start a line (1..), and those with the tokens that change the
    brackets or the statement, in order (parsing/style.py's line_starts and events), from its ids."""
    ids = np.asarray(ids, dtype=np.int64)
    line_gap, structure = _tables()
    tok, gap = ids[1::2], ids[0::2][:len(ids) // 2]
    names = symbol_names()
    starts = np.nonzero(line_gap[gap])[0]
    starts = starts[starts > 0]
    events = np.union1d(starts, np.nonzero(structure[tok])[0])
    return [names[i] for i in tok.tolist()], starts.tolist(), events.tolist()


def learned_narrow(ids: np.ndarray, gap_texts) -> tuple[np.ndarray, np.ndarray]:
    """A file's narrow keys and their counts (int64; a key may come more than once: ranker/counts.py sums
    them), with its INDENT_LINES counts, a count per offset of its first continuation lines
    (continuation_triple) and per step of its continuation lines (sibling_triple): what bin/check weighs a
    finding with, learned alike for a folder (ranker/folder.py) and a work tree (check/repostyle.py)."""
    from parsing.style import continuation_siblings, first_continuations
    keys, counts = np.unique(narrow_keys(ids), return_counts=True)
    tokens, starts, events = line_events(ids)
    offsets = [off for _, off in first_continuations(tokens, gap_texts, starts)]
    siblings, firsts = continuation_siblings(tokens, gap_texts, starts, events)
    extra = narrow_keys_of([*INDENT_LINES, *map(continuation_triple, offsets),
                            *(sibling_triple(d) for _, _, d in siblings),
                            *(sibling_triple(d, opened) for _, _, d, opened in firsts)])
    return (np.concatenate([keys.astype(np.int64), extra]),
            np.concatenate([counts.astype(np.int64), np.asarray(indent_lines(gap_texts), np.int64),
                            np.ones(len(offsets) + len(siblings) + len(firsts), np.int64)]))


_known_keys: dict[tuple[str, str, str], int] = {}   # triple -> its narrow key, for the process (they recur)


def narrow_keys_of(triples: list[tuple[str, str, str]]) -> np.ndarray:
    """The `narrow_key` of each (before, gap, after) triple of symbols: those not known yet in one pass, the
    triples as one stream (before, gap, after, then a gap between them: each gap's neighbours are its own
    triple's tokens)."""
    new = list(dict.fromkeys(t for t in triples if t not in _known_keys))
    if new:
        sep = _intern("")
        ids = [sep]
        for before, gap, after in new:
            ids += [PAD if before == "|" else _intern(before), _intern(gap), PAD if after == "|" else _intern(after),
                    sep]
        if len(_known_keys) > 1 << 18:   # a bound on memory: files of every style
            _known_keys.clear()
        _known_keys.update(zip(new, narrow_keys(np.array(ids, dtype=np.int64))[1::2].tolist()))
    return np.array([_known_keys[t] for t in triples], dtype=np.int64)


def folder_cache(ids, folder, exclude) -> StyleCache:
    """The style cache of a file (`ids`: its 2n+1 interned symbols, every symbol its repairs write interned
    too) with a folder's wide counts (ranker/counts.py's Counts) beneath its own, minus `exclude`'s (the file's
    near-duplicates, itself included; None: the file itself, which the StyleCache counts). The StyleCache
    takes from the tables the part the file's contexts use, with the excluded counts taken off."""
    return StyleCache(ids, all_symbol_hashes().view(np.int64), list(REACHES), list(folder.wide),
                      list(exclude.wide) if exclude is not None else None)


def evidence(cache: StyleCache, gaps, symbols) -> tuple[np.ndarray, np.ndarray]:
    """(count, total) of symbol ids `symbols` at gaps `gaps` in `cache`, one row per gap and one column per
    level in the order they apply: the folder's wide contexts, then the file's own narrow one."""
    counts, totals = cache.evidence(np.asarray(gaps, dtype=np.int64), np.asarray(symbols, dtype=np.int64))
    return tuple(np.asarray(x, dtype=np.int64).reshape(-1, cache.levels) for x in (counts, totals))
