"""The n-gram fill-in-the-middle predictor: propose candidate middle lines, keep the one that makes
prefix + middle + suffix most probable, given what is known of each line.

Candidates (stripped lines, each tried at a few indentations):
- the file's own lines (prefix and suffix);
- the project's and the corpus's lines in the same context (`fim.project`, `fim.index`: after the same
  line, before the same line, between the same two lines, after the same two lines);
- lines generated from the prefix by beam search with the model, a token and a gap at a time, over the
  file's tokens, the language's keywords and operators and the corpus's most frequent words.

Each is scored as log10 P(gap before, middle, gap after, the suffix's first tokens | the prefix's last
symbols): every symbol whose probability depends on the middle, so the whole file's probability differs
between two candidates by exactly this (for a model of order <= the tokens scored on the suffix side).
The KenLM probability of each symbol is mixed with a cache of the file's own symbol n-grams (identifiers
the corpus never saw are the file's usual ones), P = (1 - λ) P_lm + λ P_cache. To that log10 probability
the weighted FEATURES of the line are added (how it sits in the file, the project and the corpus).
"""
from __future__ import annotations

import heapq
import math
from collections import Counter
from dataclasses import dataclass, field

from rapidfuzz import fuzz

from lm.model import LanguageModel
from parsing.languages import get_language
from parsing.schemes import Scheme
from parsing.style import indentation_of, line_indents

from .imports import FileNames, ImportTable, bound_names, file_names, import_package, is_import, order_agreement
from .index import LineIndex, is_comment_line
from .layout import LineLexer, feed, new_layout, pieces
from .project import IDENTIFIER_KINDS, ProjectLines, file_key
from .tasks import DEFAULT_MIN_CHARS, LINE_BREAK, FimTask

# symbols the generator never emits: comments, junk, multi-line literals
SKIPPED_SYMBOLS = frozenset({"LINECOMMENT", "BLOCKCOMMENT", "JAVADOC", "COMMENT", "ERR", "BOM", "BACKSLASH",
                             "MLSTR", "TEXTBLOCK"})


DEFAULT_WEIGHTS = (
    ("tokens", -0.0843), ("file_after_prev", 13.4), ("file_before_next", 14.5), ("file_count", 1.18),
    ("file_distance", 1.29), ("neighbour_sim", 33.1), ("sim_prev", 7.62), ("sim_next", 10.2),
    ("repeats_neighbour", -14.4), ("project_pair", 2.81), ("project_prev2", 5.69), ("project_prev", 1.55),
    ("project_next", 0.758), ("corpus_pair", -1.03), ("corpus_prev2", -5.89), ("corpus_prev", 0.882),
    ("corpus_next", 1.19), ("import_needed", 49.6), ("import_unneeded", -15.0), ("import_order", 4.29),
    ("import_project", 8.91), ("import_corpus", -3.69), ("import_guess", -17.4), ("project_pair_p", 22.5),
    ("project_prev2_p", 31.5), ("project_prev_p", 25.0), ("project_next_p", 38.3), ("corpus_pair_p", 12.1),
    ("corpus_prev2_p", 56.9), ("corpus_prev_p", 22.0), ("corpus_next_p", 51.5), ("import_duplicate", -16.5),
    ("project_using", 3.4), ("package_line", 39.0), ("package_again", -5.0), ("package_evidence", 75.3),
    ("unknown_ids", 0.526), ("needed_ids", 1.46), ("near_ids", 8.66),
)


@dataclass(frozen=True)
class PredictConfig:
    cache_weight: float = 0.5      # λ of the file cache (0: KenLM alone)
    cache_beta: float = 1.0        # how much a cache order backs off to the one below
    cache_order: int = 6           # longest n-gram of the cache (at most the model's order)
    token_bonus: float = 0.0       # log10 added per token of a generated line, while generating
    # log10 added per unit of each candidate feature (FEATURES), on top of its log10 probability: fitted as a
    # conditional logit (softmax over each task's candidates) on 1200 tasks from real projects the model never
    # saw (CodRep 2018 Datasets 1-2, one version per file), L2 chosen on 600 of Dataset3 (docs/fim-fit.md)
    weights: tuple[tuple[str, float], ...] = DEFAULT_WEIGHTS
    per_context: int = 10          # corpus lines taken from each kind of context
    file_lines: bool = True        # the file's own lines as candidates
    corpus_lines: bool = True      # the corpus index's lines as candidates
    imports: bool = True           # import and package lines for what the file needs (fim.imports)
    beam: int = 0                  # beam width of the generator (0: none; its lines never won rightly)
    beam_tokens: int = 24          # longest generated line, in tokens
    generated: int = 4             # generated lines kept as candidates
    min_chars: int = DEFAULT_MIN_CHARS   # shorter candidates are not proposed (the tasks' own rule)

    def signature(self) -> str:
        weights = ",".join(f"{k}={v:g}" for k, v in self.weights)
        return (f"cache:{self.cache_weight}|corpus:{int(self.corpus_lines)}x{self.per_context}"
                f"|file:{int(self.file_lines)}|imports:{int(self.imports)}|beam:{self.beam}x{self.beam_tokens}|min-chars:{self.min_chars}"
                f"|weights:{weights or 'none'}")

    @property
    def weight(self) -> dict[str, float]:
        return dict(self.weights)


# What a candidate line is known by besides its probability (each a number; weighted in PredictConfig):
FEATURES = (
    "tokens",              # its number of tokens
    "file_after_prev",     # log(1 + times it follows the middle's previous line in the file)
    "file_before_next",    # log(1 + times it precedes the middle's next line in the file)
    "file_count",          # log(1 + times it is in the file)
    "file_distance",       # log(1 + lines between the middle and its nearest copy in the file); 8 if none
    "neighbour_sim",       # rapidfuzz similarity (0..1) of its neighbours in the file to the middle's
    "sim_prev", "sim_next",   # rapidfuzz similarity (0..1) of the line to the middle's previous / next line
    "repeats_neighbour",   # 1 when it is the middle's previous or next line itself
    "project_pair", "project_prev2", "project_prev", "project_next",   # log(1 + times seen in that
    "corpus_pair", "corpus_prev2", "corpus_prev", "corpus_next",       # context) in the project / corpus
    "generated",           # 1 for a line made by the beam search
    "import_needed",       # an import line: the share of the names it binds that the file uses but does not import
    "import_unneeded",     # an import line none of whose names the file needs
    "import_order",        # an import line: +1 / -1 for each import line around the middle it sorts with / against
    "import_project", "import_corpus",   # log(1 + times the project's other files / the corpus import it)
    "import_guess",        # 1 for an import of a needed name from a package the file imports from
    "project_pair_p", "project_prev2_p", "project_prev_p", "project_next_p",   # the share of the lines
    "corpus_pair_p", "corpus_prev2_p", "corpus_prev_p", "corpus_next_p",       # seen in that context it is
    "import_duplicate",    # an import line the file already has
    "project_using",       # log(1 + other files holding it), for a project line made of the file's names
    "package_line",        # 1 for a package line where the file has none above
    "package_again",       # 1 for a package line where the file has one above
    "package_evidence",    # a package line: log(1 + the project's evidence for it)
    "unknown_ids",         # how many of its identifiers the file does not use
    "needed_ids",          # how many of its identifiers the suffix's first lines use and the prefix does not
    "near_ids",            # the share of its identifiers used within five lines of the middle
)
NEAR_LINES = 5     # lines on each side of the middle whose names are "near"
BELOW_LINES = 8    # lines of the suffix whose names the middle may introduce
NO_COPY = 8.0


@dataclass
class Prediction:
    fill: str                      # the predicted middle, indentation included
    score: float                   # log10 probability of the scored window plus the weighted features
    source: str                    # 'file', 'project', 'corpus', 'beam' (or the baseline's name)
    candidates: int = 0
    lm: float = 0.0                # log10 probability of the scored window
    features: dict = field(default_factory=dict)


class Cache:
    """N-gram counts of the file's own symbols, each order interpolated with the one below
    (Witten-Bell-like: P_k = (c(h, w) + β P_{k-1}) / (c(h) + β))."""

    def __init__(self, sequences, order: int, beta: float):
        self.order = order
        self.counts = [Counter() for _ in range(order + 1)]     # [k]: k-grams
        self.histories = [Counter() for _ in range(order + 1)]  # [k]: (k-1)-grams followed by a symbol
        for seq in sequences:
            seq = tuple(seq)
            for k in range(1, order + 1):
                grams = [seq[i:i + k] for i in range(len(seq) - k + 1)]
                self.counts[k].update(grams)
                if k > 1:
                    self.histories[k].update(g[:-1] for g in grams)
        self.total = sum(self.counts[1].values())
        self.beta = beta

    def prob(self, history: tuple, w: str) -> float:
        if not self.total:
            return 0.0
        b = self.beta
        p = self.counts[1].get((w,), 0) / self.total
        for k in range(2, min(self.order, len(history) + 1) + 1):
            h = history[len(history) - k + 1:]
            seen = self.histories[k].get(h, 0)
            if not seen:
                break      # a longer history was not seen either
            p = (self.counts[k].get(h + (w,), 0) + b * p) / (seen + b)
        return p


class Scorer:
    """log10 P of symbols given a KenLM state and the symbols before, KenLM mixed with the cache."""

    def __init__(self, lm: LanguageModel, cache: Cache | None, weight: float):
        self.lm = lm
        self.cache = cache if weight > 0 else None
        self.keep = 1.0 - weight
        self.weight = weight
        self.span = (cache.order - 1) if cache else 0
        self._scratch = lm.new_state()

    def logp(self, state, history: tuple, w: str, out=None) -> float:
        lm = self.lm.advance(state, w, out if out is not None else self._scratch)
        if self.cache is None:
            return lm
        return math.log10(self.keep * 10.0 ** lm + self.weight * self.cache.prob(history, w))

    def push(self, history: tuple, w: str) -> tuple:
        return (history + (w,))[-self.span:] if self.span else ()

    def run(self, state, history: tuple, symbols) -> tuple[float, object, tuple]:
        total = 0.0
        for w in symbols:
            out = self.lm.new_state()
            total += self.logp(state, history, w, out)
            state, history = out, self.push(history, w)
        return total, state, history


@dataclass
class Context:
    """One task, read once: the prefix's symbols and layout, the suffix's first tokens, the file's lines."""
    scheme: Scheme
    order: int
    pre_symbols: list[str]
    pre_gap: str                   # the prefix's trailing whitespace (its last line break, blank lines)
    layout: object                 # layout after the prefix's last token
    suffix_tokens: tuple           # the suffix's first tokens ((gap before, kind, text)...)
    suffix_gap: str                # the whitespace the suffix starts with
    suffix_end: str | None         # the suffix's trailing gap when the window reaches the end of the file
    indents: list[str]             # indentations to try for the middle
    prev: list[str] = field(default_factory=list)   # the prefix's last two non-blank lines, stripped
    next: str = ""                 # the suffix's first non-blank line, stripped
    file_lines: list[str] = field(default_factory=list)
    suffix_symbols: list[str] = field(default_factory=list)
    pre_tokens: tuple = ()         # every token of the prefix and of the suffix ((gap, kind, text)...)
    suf_tokens: tuple = ()
    after_prev: Counter = field(default_factory=Counter)     # file lines right after the middle's previous line
    before_next: Counter = field(default_factory=Counter)    # file lines right before its next line
    neighbours: dict = field(default_factory=dict)   # file line -> [(line before, line after)...]
    counts: Counter = field(default_factory=Counter)         # file line -> times in the file
    distance: dict = field(default_factory=dict)     # file line -> lines from the middle to its nearest copy
    names: FileNames = field(default_factory=FileNames)   # names the file uses, imports, declares
    header: bool = False           # the middle is where imports go (before the first type, or next to imports)
    missing: list = field(default_factory=list)   # names the file uses but neither imports nor declares
    file_ids: set = field(default_factory=set)    # identifiers of the prefix and the suffix
    pre_ids: set = field(default_factory=set)     # identifiers of the prefix
    near_ids: set = field(default_factory=set)    # identifiers within NEAR_LINES lines of the middle
    below_ids: set = field(default_factory=set)   # identifiers of the suffix's first BELOW_LINES lines


def _leading(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def indentations(pre_lines: list[str], suf_lines: list[str], unit: str) -> list[str]:
    """The previous and next non-blank lines' indentation, one step deeper and shallower."""
    prev = next((_leading(x) for x in reversed(pre_lines) if x.strip()), "")
    nxt = next((_leading(x) for x in suf_lines if x.strip()), "")
    out = []
    for ind in (prev, nxt, prev + unit, prev[: len(prev) - len(unit)] if prev.endswith(unit) else None,
                nxt[: len(nxt) - len(unit)] if nxt.endswith(unit) else None):
        if ind is not None and ind not in out:
            out.append(ind)
    return out


def read_context(task: FimTask, scheme: Scheme, order: int, language: str) -> Context:
    pre_stream = scheme.tokenize(task.prefix)
    pre_tokens, pre_gap = pieces(pre_stream)
    layout = new_layout(scheme)
    pre_symbols: list[str] = []
    feed(layout, scheme, pre_tokens, pre_symbols)
    suffix = task.suffix
    suf_stream = scheme.tokenize(suffix)
    suf_tokens, suf_end = pieces(suf_stream)
    window = suf_tokens[: max(order, 2)]
    suffix_gap = suf_tokens[0][0] if suf_tokens else suf_end
    pre_lines = LINE_BREAK.split(task.prefix)
    suf_lines = LINE_BREAK.split(suffix)
    at_line_start = not task.prefix or task.prefix.endswith(("\n", "\r"))
    if at_line_start:
        unit = indentation_of(line_indents(pre_stream) + line_indents(suf_stream)).unit
        indents = indentations(pre_lines[:-1], suf_lines[1:], unit)
    else:
        indents = [""]
    stripped_pre = [x.strip() for x in pre_lines if x.strip()]
    stripped_suf = [x.strip() for x in suf_lines[1:] if x.strip()]
    # the suffix's symbols for the cache, as they read after the prefix (a stand-in for the middle)
    suffix_symbols: list[str] = []
    feed(layout.copy(), scheme, suf_tokens, suffix_symbols)
    file_lines = []
    seen = set()
    for line in stripped_pre + stripped_suf:
        if line not in seen and not is_comment_line(line, language):
            seen.add(line)
            file_lines.append(line)
    # the file's lines in the middle's context: after a copy of its previous line, before one of its next
    prev = stripped_pre[-1] if stripped_pre else None
    nxt = stripped_suf[0] if stripped_suf else None
    after_prev, before_next = Counter(), Counter()
    neighbours: dict[str, list] = {}
    distance: dict[str, int] = {}
    for part, at in ((stripped_pre, lambda j: len(stripped_pre) - j), (stripped_suf, lambda j: j + 1)):
        for a, b in zip(part, part[1:]):
            if a == prev:
                after_prev[b] += 1
            if b == nxt:
                before_next[a] += 1
        for j, line in enumerate(part):
            distance[line] = min(distance.get(line, at(j)), at(j))
            neighbours.setdefault(line, []).append((part[j - 1] if j else "",
                                                    part[j + 1] if j + 1 < len(part) else ""))
    names = file_names((pre_tokens, suf_tokens), stripped_pre + stripped_suf, language)
    declaring = {"java": ("class", "interface", "enum", "record"), "python": ("class", "def")}.get(language, ())
    header = (not any(kind in declaring for _, kind, _ in pre_tokens)
              or any(is_import(x, language) for x in (prev or "", nxt or "")))
    pre_lines_ids, suf_lines_ids = _ids_by_line(pre_tokens), _ids_by_line(suf_tokens)
    pre_ids, suf_ids = set().union(*pre_lines_ids), set().union(*suf_lines_ids)
    near = set().union(*pre_lines_ids[-NEAR_LINES:], *suf_lines_ids[:NEAR_LINES])
    below = set().union(*suf_lines_ids[:BELOW_LINES])
    return Context(scheme, order, pre_symbols, pre_gap, layout, window, suffix_gap,
                   suf_end if len(window) == len(suf_tokens) else None, indents,
                   stripped_pre[-2:], stripped_suf[0] if stripped_suf else "", file_lines, suffix_symbols,
                   pre_tokens, suf_tokens, after_prev, before_next, neighbours, Counter(stripped_pre + stripped_suf),
                   distance, names, header, names.missing(language), pre_ids | suf_ids, pre_ids, near, below)


def _ids_by_line(tokens) -> list[set]:
    """The identifiers of each line holding a token ((gap, kind, text)...; a line starts at a gap with a
    line break)."""
    out: list[set] = []
    for gap, kind, text in tokens:
        if not out or "\n" in gap or "\r" in gap:
            out.append(set())
        if kind in IDENTIFIER_KINDS:
            out[-1].add(text)
    return out


class NgramPredictor:
    def __init__(self, lm: LanguageModel, scheme: Scheme, index: LineIndex | None, cfg: PredictConfig,
                 project: ProjectLines | None = None):
        self.project = project
        self.lm = lm
        self.scheme = scheme
        self.language = scheme.language
        self.index = index
        self.cfg = cfg
        self.order = lm.order
        self.lex = LineLexer(scheme)
        self.keywords = _grammar_tokens(scheme)
        self.words = index.words[:150] if index else []
        self.corpus_imports = ImportTable(self.language)
        if index is not None:
            heads = ("import ", "from ") if self.language == "python" else ("import ",)
            for line, n in index.lines_starting(*heads):
                self.corpus_imports.add(line, n)

    # ---------------------------------------------------------------------------------- scoring

    def start(self, ctx: Context) -> tuple[object, tuple]:
        """KenLM state and the symbols before the middle (for the cache), after the prefix."""
        tail = ctx.pre_symbols[-(self.order - 1):] if self.order > 1 else []
        sentence = len(ctx.pre_symbols) < self.order - 1
        state = self.lm.start_state(sentence)
        for w in ctx.pre_symbols if sentence else tail:
            out = self.lm.new_state()
            self.lm.advance(state, w, out)
            state = out
        return state, tuple((["<s>"] + ctx.pre_symbols)[-(self.order - 1):])

    def suffix_symbols(self, layout, ctx: Context, trailing_gap: str = "") -> list[str]:
        out: list[str] = []
        if ctx.suffix_tokens:
            feed(layout, self.scheme, ctx.suffix_tokens, out, first_gap=trailing_gap + ctx.suffix_tokens[0][0])
            if ctx.suffix_end is not None:
                out.append(layout.gap(ctx.suffix_end))
                out.append("</s>")
        else:
            out.append(layout.gap(trailing_gap + (ctx.suffix_end or "")))
            out.append("</s>")
        return out

    def window(self, ctx: Context, line: str, indent: str) -> list[str] | None:
        """The scored symbols with `line` (stripped) as the middle at `indent`; None if it has no token."""
        tokens = self.lex(line)
        if not tokens:
            return None
        layout = ctx.layout.copy()
        out: list[str] = []
        feed(layout, self.scheme, tokens, out, first_gap=ctx.pre_gap + indent)
        return out + self.suffix_symbols(layout, ctx)

    def score_lines(self, ctx: Context, scorer: Scorer, start, lines: dict[str, dict]) -> list[Prediction]:
        """Each line at its most probable indentation, its score its log10 probability plus its weighted
        features."""
        out = []
        weight = self.cfg.weight
        for line, entry in lines.items():
            best = None
            for indent in ctx.indents:
                symbols = self.window(ctx, line, indent)
                if symbols is None:
                    break
                s = scorer.run(*start, symbols)[0]
                if best is None or s > best.lm:
                    best = Prediction(indent + line, s, entry["source"], lm=s)
            if best is not None:
                best.features = {f: v for f, v in entry.items() if f != "source"}
                best.score = best.lm + sum(w * best.features.get(f, 0.0) for f, w in weight.items())
                out.append(best)
        return out

    # ---------------------------------------------------------------------------------- candidates

    def usable(self, line: str) -> bool:
        return len(line) >= self.cfg.min_chars and not is_comment_line(line, self.language)

    def retrieved(self, ctx: Context, task: FimTask) -> dict[str, dict]:
        """Candidate line -> (where it came from: the file first, then the project, then the corpus;
        its features)."""
        cfg = self.cfg
        found: dict[str, dict] = {}

        def add(line: str, source: str) -> dict | None:
            if line in found:
                return found[line]
            if not self.usable(line):
                return None
            found[line] = {"source": source}
            return found[line]

        if cfg.file_lines:
            for line in ctx.file_lines:
                add(line, "file")
        prev = ctx.prev[-1] if ctx.prev else ""
        prev2 = ctx.prev[-2] if len(ctx.prev) > 1 else ""
        contexts = (("pair", (prev, ctx.next)), ("prev2", (prev2, prev)), ("prev", (prev,)), ("next", (ctx.next,)))
        k = cfg.per_context
        lookups = []
        if self.project is not None:
            own = file_key(task)
            lookups.append(("project", lambda c, keys: self.project.lookup(c, k, own, *keys),
                            lambda c, keys: self.project.total(c, own, *keys)))
        if cfg.corpus_lines and self.index is not None:
            lookups.append(("corpus", lambda c, keys: self.index.lookup(c, k, *keys),
                            lambda c, keys: self.index.total(c, *keys)))
        for source, lookup, total in lookups:
            for context, keys in contexts:
                found_here = lookup(context, keys)
                if not found_here:
                    continue
                all_here = total(context, keys)
                for line, n in found_here:
                    entry = add(line, source)
                    if entry is not None:
                        entry[f"{source}_{context}"] = math.log1p(n)
                        entry[f"{source}_{context}_p"] = n / all_here
        if self.project is not None:
            for line, files in self.project.lines_using(ctx.near_ids, ctx.file_ids, 30, file_key(task)):
                entry = add(line, "project")
                if entry is not None:
                    entry["project_using"] = math.log1p(files)
        if ctx.header and cfg.imports:
            self.add_imports(ctx, task, add)
            self.add_package(ctx, task, add)
        for line, entry in found.items():
            self.describe(ctx, line, entry, prev)
        return found

    def add_imports(self, ctx: Context, task: FimTask, add) -> None:
        """Import lines for the names the file uses but does not import: as the project's other files and
        the corpus import them, else (Java) from the packages the file imports from, in sorted order."""
        k = 3
        own = file_key(task)
        missing = ctx.missing[:30]
        before, after = self.import_neighbours(ctx)
        neighbours = (before is not None) + (after is not None)
        for name in missing:
            found = False
            for source, table, own_file in (("project", self.project.imports if self.project else None, own),
                                            ("corpus", self.corpus_imports, None)):
                if table is None:
                    continue
                for line, n in table.lookup(name, k, own_file):
                    if ctx.names.package is not None and import_package(line) == ctx.names.package:
                        continue     # the file's own package needs no import
                    entry = add(line, "import")
                    if entry is not None:
                        entry[f"import_{source}"] = math.log1p(n)
                        found = True
            if not found and self.language == "java" and name[:1].isupper() and name in missing[:8]:
                for package in self.guess_packages(ctx):
                    line = f"import {package}.{name};"
                    if order_agreement(line, before, after) == neighbours:
                        entry = add(line, "import")
                        if entry is not None and "import_project" not in entry and "import_corpus" not in entry:
                            entry["import_guess"] = 1.0

    def add_package(self, ctx: Context, task: FimTask, add) -> None:
        """Java package lines for a file that has none above the middle: the package the project's other
        files import this file's types from, or declare the types it uses without an import in."""
        if self.language != "java" or self.project is None or ctx.names.package is not None:
            return
        own = file_key(task)
        evidence: Counter = Counter()
        for name in ctx.names.declared:
            for line, n in self.project.imports.lookup(name, 3, own):
                package = import_package(line)
                if package:
                    evidence[package] += n
        for name in ctx.missing[:30]:
            evidence.update(self.project.package_of(name, own))
        for name in ctx.names.declared:     # a test sits in the package of what it tests
            tested = name[4:] if name.startswith("Test") else name[:-4] if name.endswith("Test") else None
            if tested:
                evidence.update(self.project.package_of(tested, own))
        for package, n in evidence.most_common(5):
            entry = add(f"package {package};", "package")
            if entry is not None:
                entry["package_evidence"] = math.log1p(n)

    @staticmethod
    def guess_packages(ctx: Context) -> list[str]:
        """The packages the file imports from, then its own package's parent and grandparent."""
        out = list(ctx.names.packages[:12])
        package = ctx.names.package
        for _ in range(2):
            if not package or "." not in package:
                break
            package = package.rsplit(".", 1)[0]
            if package not in out:
                out.append(package)
        return out

    def import_neighbours(self, ctx: Context) -> tuple[str | None, str | None]:
        prev = ctx.prev[-1] if ctx.prev else ""
        return (prev if is_import(prev, self.language) else None,
                ctx.next if is_import(ctx.next, self.language) else None)

    def describe(self, ctx: Context, line: str, entry: dict, prev: str) -> None:
        """The file-side features of a candidate line (into `entry`)."""
        entry["tokens"] = len(self.lex(line))
        entry["file_after_prev"] = math.log1p(ctx.after_prev.get(line, 0))
        entry["file_before_next"] = math.log1p(ctx.before_next.get(line, 0))
        entry["file_count"] = math.log1p(ctx.counts.get(line, 0))
        d = ctx.distance.get(line)
        entry["file_distance"] = math.log1p(d) if d is not None else NO_COPY
        pairs = ctx.neighbours.get(line)
        entry["neighbour_sim"] = (max(fuzz.ratio(a, prev) + fuzz.ratio(b, ctx.next) for a, b in pairs) / 200.0
                                  if pairs else 0.0)
        entry["sim_prev"] = fuzz.ratio(line, prev) / 100.0
        entry["sim_next"] = fuzz.ratio(line, ctx.next) / 100.0
        entry["repeats_neighbour"] = float(line == prev or line == ctx.next)
        ids = [text for _, kind, text in self.lex(line) if kind in IDENTIFIER_KINDS]
        if ids:
            entry["unknown_ids"] = float(sum(x not in ctx.file_ids for x in ids))
            entry["needed_ids"] = float(sum(x in ctx.below_ids and x not in ctx.pre_ids for x in ids))
            entry["near_ids"] = sum(x in ctx.near_ids for x in ids) / len(ids)
        if self.language == "java" and line.startswith("package "):
            entry["package_again" if ctx.names.package is not None else "package_line"] = 1.0
        if ctx.header and is_import(line, self.language):
            entry["import_duplicate"] = float(line in ctx.counts)
            names = bound_names(line, self.language)
            needed = sum(n in ctx.missing for n in names)
            entry["import_needed"] = needed / len(names) if names else 0.0
            entry["import_unneeded"] = float(bool(names) and not needed)
            entry["import_order"] = order_agreement(line, *self.import_neighbours(ctx))

    def vocabulary(self, ctx: Context) -> list[tuple[str, str]]:
        """(symbol, text) pairs the generator may emit: the file's tokens, the grammar's keywords and
        operators, the corpus's frequent words; a literal's text is the prefix's latest of its kind."""
        sym_of = self.scheme.token_symbol
        vocab: dict[str, str] = {}
        literal: dict[str, str] = {}
        for from_prefix, tokens in ((True, ctx.pre_tokens), (False, ctx.suf_tokens)):
            for _, kind, text in tokens:
                sym = sym_of(kind, text)
                if sym in SKIPPED_SYMBOLS:
                    continue
                if sym == text:
                    vocab[sym] = text
                elif from_prefix or sym not in literal:
                    literal[sym] = text     # the prefix's latest, else the suffix's first
        vocab.update(literal)
        for text in self.keywords:
            vocab.setdefault(text, text)
        for word in self.words:
            vocab.setdefault(word, word)
        return list(vocab.items())

    def generate(self, ctx: Context, scorer: Scorer, start, indent: str) -> list[Prediction]:
        """Beam search from the prefix: a token, then either the line ends (scored with the suffix) or a
        gap ('' or ' ') and another token."""
        cfg = self.cfg
        vocab = self.vocabulary(ctx)
        state, history = start
        layout = ctx.layout.copy()
        g = layout.gap(ctx.pre_gap + indent)
        out = self.lm.new_state()
        s0 = scorer.logp(state, history, g, out)
        bonus = cfg.token_bonus
        # hypothesis: (score, KenLM state, history, layout, text, tokens)
        beam = [(s0, out, scorer.push(history, g), layout, "", 0)]
        finished: list[Prediction] = []
        seen: set[str] = set()
        for step in range(cfg.beam_tokens):
            expanded = []
            for h, (s, st, hist, lay, text, _) in enumerate(beam):
                for j, (sym, tok) in enumerate(vocab):
                    expanded.append((s + bonus + scorer.logp(st, hist, sym), h, j))
            best = heapq.nlargest(cfg.beam, expanded)
            grown = []
            for s, h, j in best:
                _, st, hist, lay, text, n = beam[h]
                sym, tok = vocab[j]
                out = self.lm.new_state()
                self.lm.advance(st, sym, out)
                lay = lay.copy()
                lay.token(sym, tok)
                grown.append((s, out, scorer.push(hist, sym), lay, text + tok, n + 1))
            beam = []
            for s, st, hist, lay, text, n in grown:
                if text not in seen and len(text) >= cfg.min_chars:
                    seen.add(text)
                    end = scorer.run(st, hist, self.suffix_symbols(lay.copy(), ctx))[0]
                    finished.append(Prediction(indent + text, s + end, "beam", lm=s + end))
                for gap in ("", " "):
                    lay2 = lay.copy()
                    gsym = lay2.gap(gap)
                    out = self.lm.new_state()
                    beam.append((s + scorer.logp(st, hist, gsym, out), out, scorer.push(hist, gsym), lay2,
                                 text + gap, n))
            beam = heapq.nlargest(cfg.beam, beam, key=lambda b: b[0])
        return heapq.nlargest(cfg.generated, finished, key=lambda p: p.score)

    # ---------------------------------------------------------------------------------- the prediction

    def cache_for(self, ctx: Context) -> Cache:
        return Cache([["<s>"] + ctx.pre_symbols, ctx.suffix_symbols], min(self.order, self.cfg.cache_order),
                     self.cfg.cache_beta)

    def candidates(self, task: FimTask, ctx: Context, scorer: Scorer, start) -> list[Prediction]:
        """Every candidate, scored."""
        lines = self.retrieved(ctx, task)
        preds = self.score_lines(ctx, scorer, start, lines)
        if self.cfg.beam > 0:
            indent = max(preds, key=lambda p: p.score).fill if preds else ctx.indents[0]
            indent = indent[: len(indent) - len(indent.lstrip(" \t"))]
            prev = ctx.prev[-1] if ctx.prev else ""
            weight = self.cfg.weight
            for p in self.generate(ctx, scorer, start, indent):
                line = p.fill.strip()
                if line not in lines:
                    entry = {"generated": 1.0}
                    self.describe(ctx, line, entry, prev)
                    p.features = entry
                    p.score = p.lm + sum(w * entry.get(f, 0.0) for f, w in weight.items())
                    preds.append(p)
        return preds

    def predict(self, task: FimTask) -> Prediction:
        ctx = read_context(task, self.scheme, self.order, self.language)
        scorer = Scorer(self.lm, self.cache_for(ctx), self.cfg.cache_weight)
        start = self.start(ctx)
        preds = self.candidates(task, ctx, scorer, start)
        if not preds:
            return Prediction("", float("-inf"), "none", 0)
        best = max(preds, key=lambda p: p.score)
        best.candidates = len(preds)
        return best


def _grammar_tokens(scheme: Scheme) -> list[str]:
    """The language's keywords and operators: tree-sitter's visible anonymous node kinds that a symbol can
    be (no whitespace, no quotes)."""
    import tree_sitter
    lang = get_language(scheme.language)
    module = __import__(f"tree_sitter_{lang.name}")
    grammar = tree_sitter.Language(module.language())
    out = []
    for i in range(grammar.node_kind_count):
        kind = grammar.node_kind_for_id(i)
        if (kind and not grammar.node_kind_is_named(i) and grammar.node_kind_is_visible(i)
                and not any(c.isspace() or c in "\"'`\\" for c in kind) and kind not in out
                and scheme.token_symbol(kind, kind) == kind):
            out.append(kind)
    return out
