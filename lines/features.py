"""Features of every candidate line of a file against the new line (pure functions, numpy out).

Two stages, because a file has ~500 lines and ranking must run at >= 50 tasks/s per core:

* `cheap_features(new, lines)`: string features for *every* line, vectorised with rapidfuzz (edit
  distances, fuzzy ratios, word overlap, length and indentation, neighbours, duplicates).
* `rich_features(new, lines, candidates, lm)`: for the few lines the first stage keeps, features from our
  own token streams (token-level edit distances on kinds and texts; identifier, literal and method-name
  overlap; statement kind), whether the code around still parses after the replacement (tree-sitter ERROR
  and MISSING nodes before vs after) and the KenLM naturalness change of the window around the line
  (log10 probability with the candidate replaced by the new line minus the original, `text` scheme).
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from rapidfuzz import fuzz, process
from rapidfuzz.distance import Indel, JaroWinkler, LCSseq, Levenshtein, Postfix, Prefix

from parsing.java import leaves, parse
from parsing.offsets import byte_to_char
from parsing.schemes import gap_symbol, get_scheme
from parsing.tokens import TokenStream

WORD = re.compile(r"[A-Za-z_$][\w$]*")
COMMENT_STARTS = ("//", "/*", "*")
PARSE_WINDOW = 2  # lines on each side of a candidate parsed before and after the replacement
LM_WINDOW = 1     # lines on each side of a candidate scored by the LM
TEXT_SCHEME = get_scheme("text")

PREFILTER = 32  # lines kept by each of the two first-pass scores (word-IDF overlap and indel similarity)

CHEAP_NAMES = (
    "lev", "indel", "partial", "tsort", "tset", "jw", "lcs_frac", "lev_dist", "prefix", "postfix",
    "lev_gap", "indel_gap", "tset_gap", "idf_gap", "lev_rank", "indel_rank", "idf_rank",
    "equal", "blank", "len_line", "len_new", "len_diff", "len_ratio", "indent", "comment", "new_comment",
    "same_last", "same_first_word", "same_last_word",
    "w_jacc", "w_common", "w_new_missing", "w_line_extra", "idf", "idf_extra", "idf_new_unseen",
    "lev_prev", "lev_next", "idf_prev", "idf_next", "pos", "dup", "n_lines", "n_cands",
    "brace_delta", "paren_delta",
)

RICH_NAMES = (
    "s1_score", "s1_rank", "s1_gap",
    "tk_kind_sim", "tk_kind_dist", "tk_text_sim", "tk_text_dist", "tk_new", "tk_line",
    "id_jacc", "id_new_missing", "id_line_extra", "lit_jacc", "lit_new_missing", "meth_jacc", "meth_new_missing",
    "stmt_same", "stmt_new", "stmt_line",
    "err_orig", "err_new", "err_delta",
    "lm_orig", "lm_new", "lm_delta", "lm_delta_tok", "lm_delta_rank",
)


def _rank_desc(x: np.ndarray) -> np.ndarray:
    """0 for the highest value; ties share the best rank."""
    order = np.sort(x)[::-1]
    return np.searchsorted(-order, -x, side="left").astype(np.float32)


def _indent_width(line: str) -> int:
    stripped = line.lstrip(" \t")
    head = line[: len(line) - len(stripped)]
    return head.count(" ") + 4 * head.count("\t")


def _first_last_word(s: str) -> tuple[str, str]:
    words = WORD.findall(s)
    if not words:
        return s[:1], s[-1:]
    return words[0], words[-1]


@dataclass(frozen=True)
class Prepared:
    """What the first pass computes for every line of a task; `candidates` are the lines kept (0-based)."""
    new: str                       # the new line, stripped
    stripped: tuple[str, ...]
    words: tuple[frozenset, ...]   # identifier-like words of each line
    idf: dict                      # word -> log((lines+1)/(lines containing it+1)) over the file
    lev: np.ndarray                # normalized Levenshtein similarity of every line to the new line
    indel: np.ndarray              # normalized Indel similarity
    idf_overlap: np.ndarray        # IDF mass of the new line's words found in the line / the new line's mass
    candidates: np.ndarray


def prepare(new_line: str, lines, keep: int = PREFILTER) -> Prepared:
    """First pass over all lines: the union of the `keep` best by IDF-weighted word overlap and by indel
    similarity (the replaced line is outside it for about 0.5% of the tasks of Datasets 1..4)."""
    new = new_line.strip()
    stripped = tuple(line.strip() for line in lines)
    q = [new]
    f32 = np.float32
    indel = process.cdist(q, stripped, scorer=Indel.normalized_similarity, dtype=f32)[0]
    lev = process.cdist(q, stripped, scorer=Levenshtein.normalized_similarity, dtype=f32)[0]
    findall = WORD.findall
    words = tuple(frozenset(findall(s)) for s in stripped)
    df: dict[str, int] = {}
    for ws in words:
        for w in ws:
            df[w] = df.get(w, 0) + 1
    n = len(stripped)
    new_words = frozenset(findall(new))
    for w in new_words:
        df.setdefault(w, 0)
    log_n = math.log(n + 1)
    idf = {w: log_n - math.log(c + 1) for w, c in df.items()}
    total = sum(idf[w] for w in new_words) or 1.0
    overlap = np.fromiter((sum(idf[w] for w in ws & new_words) for ws in words), dtype=f32, count=n) / total
    if n <= 2 * keep:
        cands = np.arange(n)
    else:
        top_idf = np.argpartition(-overlap, keep)[:keep]
        top_indel = np.argpartition(-indel, keep)[:keep]
        cands = np.union1d(top_idf, top_indel)
    return Prepared(new, stripped, words, idf, lev, indel, overlap, cands)


def cheap_features(new_line: str, lines, prep: Prepared | None = None) -> np.ndarray:
    """(len(prep.candidates), len(CHEAP_NAMES)) float32 string features of each candidate line."""
    prep = prep or prepare(new_line, lines)
    new, cands = prep.new, prep.candidates
    sub = [prep.stripped[i] for i in cands]
    n, k = len(prep.stripped), len(cands)
    q = [new]
    f32 = np.float32

    def cd(scorer, dtype=f32):
        return process.cdist(q, sub, scorer=scorer, dtype=dtype)[0].astype(f32)

    lev = prep.lev[cands]
    indel = prep.indel[cands]
    idf_ov = prep.idf_overlap[cands]
    partial = cd(fuzz.partial_ratio) / 100
    tsort = cd(fuzz.token_sort_ratio) / 100
    tset = cd(fuzz.token_set_ratio) / 100
    jw = cd(JaroWinkler.similarity)
    lcs = cd(LCSseq.similarity, np.int32) / max(len(new), 1)
    lev_dist = cd(Levenshtein.distance, np.int32)
    prefix = cd(Prefix.similarity, np.int32)
    postfix = cd(Postfix.similarity, np.int32)

    len_line = np.fromiter((len(s) for s in sub), dtype=f32, count=k)
    len_new = f32(len(new))
    new_words = frozenset(WORD.findall(new))
    new_first, new_last = _first_last_word(new)
    idf = prep.idf
    new_unseen = sum(idf[w] for w in new_words if w not in idf or idf[w] >= math.log(n + 1) - 1e-9)
    counts: dict[str, int] = {}
    for s in prep.stripped:
        counts[s] = counts.get(s, 0) + 1
    new_brace = new.count("{") - new.count("}")
    new_paren = new.count("(") - new.count(")")
    rows = np.empty((k, 15), dtype=f32)
    for r, i in enumerate(cands):
        s = prep.stripped[i]
        ws = prep.words[i]
        common = len(ws & new_words)
        union = len(ws | new_words)
        first, last = _first_last_word(s)
        extra_mass = sum(idf[w] for w in ws - new_words)
        line_mass = sum(idf[w] for w in ws) or 1.0
        rows[r] = (
            s == new, not s, _indent_width(lines[i]), s.startswith(COMMENT_STARTS),
            bool(s) and bool(new) and s[-1] == new[-1], first == new_first, last == new_last,
            common / union if union else 0.0, common, len(new_words) - common, len(ws) - common,
            extra_mass / line_mass, counts[s],
            abs(new_brace - s.count("{") + s.count("}")), abs(new_paren - s.count("(") + s.count(")")),
        )
    full_lev, full_idf = prep.lev, prep.idf_overlap
    prev_i = np.maximum(cands - 1, 0)
    next_i = np.minimum(cands + 1, n - 1)
    out = np.column_stack([
        lev, indel, partial, tsort, tset, jw, lcs, lev_dist, prefix, postfix,
        lev - lev.max(), indel - indel.max(), tset - tset.max(), idf_ov - idf_ov.max(),
        _rank_desc(lev), _rank_desc(indel), _rank_desc(idf_ov),
        rows[:, 0], rows[:, 1], len_line, np.full(k, len_new, f32), np.abs(len_line - len_new),
        np.minimum(len_line, len_new) / np.maximum(np.maximum(len_line, len_new), 1),
        rows[:, 2], rows[:, 3], np.full(k, new.startswith(COMMENT_STARTS), f32),
        rows[:, 4], rows[:, 5], rows[:, 6],
        rows[:, 7], rows[:, 8], rows[:, 9], rows[:, 10], idf_ov, rows[:, 11], np.full(k, new_unseen, f32),
        np.where(cands > 0, full_lev[prev_i], 0), np.where(cands < n - 1, full_lev[next_i], 0),
        np.where(cands > 0, full_idf[prev_i], 0), np.where(cands < n - 1, full_idf[next_i], 0),
        cands / max(n - 1, 1), rows[:, 12], np.full(k, math.log1p(n), f32), np.full(k, k, f32),
        rows[:, 13], rows[:, 14],
    ]).astype(f32)
    assert out.shape[1] == len(CHEAP_NAMES)
    return out


# ---------------------------------------------------------------------------------------------- rich

STATEMENT_KINDS = (
    "other", "expression_statement", "local_variable_declaration", "if_statement", "return_statement",
    "for_statement", "enhanced_for_statement", "while_statement", "try_statement", "throw_statement",
    "field_declaration", "method_declaration", "import_declaration", "package_declaration", "line_comment",
    "block_comment", "class_declaration", "constructor_declaration", "switch_expression", "break_statement",
    "continue_statement", "annotation", "marker_annotation", "}", "ERROR",
)
_STMT_INDEX = {k: i for i, k in enumerate(STATEMENT_KINDS)}
_LITERAL = re.compile(r"(_literal|text_block|^true$|^false$)")


@dataclass(frozen=True)
class LineTokens:
    """A line lexed on its own by tree-sitter (the same way for the new line and every candidate)."""
    kinds: tuple[str, ...]
    texts: tuple[str, ...]
    symbols: tuple[str, ...]    # `text`-scheme symbols: tokens with the gaps between them (no outer gaps)
    statement: int              # index into STATEMENT_KINDS
    identifiers: frozenset
    literals: frozenset
    methods: frozenset          # identifiers directly followed by '('


@lru_cache(maxsize=1 << 16)
def line_tokens(line: str) -> LineTokens:
    text = line.strip()
    data = text.encode("utf-8")
    tree = parse(text)
    kinds, starts, ends = leaves(data)
    to_char = byte_to_char(data, text)
    cs, ce = tuple(map(to_char, starts)), tuple(map(to_char, ends))
    texts = tuple(text[s:e] for s, e in zip(cs, ce))
    symbols = tuple(TEXT_SCHEME.symbols(TokenStream(text, tuple(kinds), cs, ce))[1:-1])
    root = tree.root_node
    stmt = "other"
    if root.named_child_count:
        node = root.named_children[0]
        stmt = node.type
        if stmt == "ERROR" and node.named_child_count:
            stmt = node.named_children[0].type
    if stmt not in _STMT_INDEX and kinds:
        stmt = kinds[0] if kinds[0] in _STMT_INDEX else "other"
    ids = frozenset(t for k, t in zip(kinds, texts) if k in ("identifier", "type_identifier"))
    lits = frozenset(t for k, t in zip(kinds, texts) if _LITERAL.search(k))
    meths = frozenset(texts[i] for i in range(len(kinds) - 1)
                      if kinds[i] == "identifier" and texts[i + 1] == "(")
    return LineTokens(tuple(kinds), texts, symbols, _STMT_INDEX.get(stmt, 0), ids, lits, meths)


def _overlap(a: frozenset, b: frozenset) -> tuple[float, int]:
    """(Jaccard of a and b, how many of a are not in b); Jaccard 1 when both are empty."""
    union = len(a | b)
    return (len(a & b) / union if union else 1.0), len(a - b)


@lru_cache(maxsize=1 << 14)
def parse_errors(text: str) -> int:
    """ERROR and MISSING nodes in tree-sitter's parse of `text`."""
    cursor = parse(text).walk()
    count = 0
    while True:
        node = cursor.node
        if node.is_missing or node.type == "ERROR":
            count += 1
        if node.has_error and cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return count


def _indent(raw: str) -> str:
    return raw[: len(raw) - len(raw.lstrip(" \t"))]


def window_texts(new_line: str, lines, i: int, width: int = PARSE_WINDOW) -> tuple[str, str]:
    """(original, with line i replaced by the new line) text of lines i-width..i+width.

    The new line takes the indentation of the line it replaces (CodRep gives it stripped)."""
    lo, hi = max(0, i - width), min(len(lines), i + width + 1)
    window = list(lines[lo:hi])
    orig = "\n".join(window)
    window[i - lo] = _indent(lines[i]) + new_line.strip()
    return orig, "\n".join(window)


def window_symbols(lines, i: int, replacement: str | None, width: int = LM_WINDOW) -> list[str]:
    """`text`-scheme symbols of lines i-width..i+width, line i replaced by `replacement` when given.

    Built from each line lexed on its own (cached), joined by the gap symbols of the line breaks and
    indentation, so scoring a candidate costs no parse. With an n-gram order <= the window's symbols on
    each side, the difference of two such windows is the whole file's log-probability difference."""
    lo, hi = max(0, i - width), min(len(lines), i + width + 1)
    out: list[str] = []
    prev_indent = None
    newlines = 0
    for j in range(lo, hi):
        raw = lines[j]
        text = replacement if (j == i and replacement is not None) else raw
        if not text.strip():
            newlines += 1
            continue
        indent = _indent(raw)
        if prev_indent is not None:
            out.append(gap_symbol("\n" * (newlines + 1) + indent, prev_indent))
        newlines = 0
        out.extend(line_tokens(text).symbols)
        prev_indent = indent
    return out


def rich_features(new_line: str, lines, candidates, s1_scores, lm) -> np.ndarray:
    """(len(candidates), len(RICH_NAMES)) features for the candidate line indices (0-based), given their
    first-stage scores (candidates sorted best first) and a LanguageModel over the `text` scheme (or None)."""
    new_tok = line_tokens(new_line)
    new_kinds, new_texts = new_tok.kinds, new_tok.texts
    k = len(candidates)
    out = np.zeros((k, len(RICH_NAMES)), dtype=np.float32)
    top = float(s1_scores[0]) if k else 0.0
    lm_deltas = np.zeros(k, dtype=np.float32)
    for r, (i, s1) in enumerate(zip(candidates, s1_scores)):
        i = int(i)
        tok = line_tokens(lines[i])
        kind_dist = Levenshtein.distance(new_kinds, tok.kinds)
        text_dist = Levenshtein.distance(new_texts, tok.texts)
        longest = max(len(new_kinds), len(tok.kinds), 1)
        id_j, id_miss = _overlap(new_tok.identifiers, tok.identifiers)
        _, id_extra = _overlap(tok.identifiers, new_tok.identifiers)
        lit_j, lit_miss = _overlap(new_tok.literals, tok.literals)
        m_j, m_miss = _overlap(new_tok.methods, tok.methods)
        orig, repl = window_texts(new_line, lines, i)
        e_orig, e_new = parse_errors(orig), parse_errors(repl)
        if lm is not None:
            lo = lm.score(window_symbols(lines, i, None), bos=False, eos=False)
            ln = lm.score(window_symbols(lines, i, new_line), bos=False, eos=False)
        else:
            lo = ln = 0.0
        lm_deltas[r] = ln - lo
        out[r] = (
            s1, r, s1 - top,
            1 - kind_dist / longest, kind_dist, 1 - text_dist / longest, text_dist, len(new_kinds), len(tok.kinds),
            id_j, id_miss, id_extra, lit_j, lit_miss, m_j, m_miss,
            new_tok.statement == tok.statement, new_tok.statement, tok.statement,
            e_orig, e_new, e_new - e_orig,
            lo, ln, ln - lo, (ln - lo) / max(len(new_kinds), 1), 0.0,
        )
    if k:
        out[:, RICH_NAMES.index("lm_delta_rank")] = _rank_desc(lm_deltas)
    return out
