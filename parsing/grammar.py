"""A tree-sitter grammar as the tokenizers use it: its parser, and the C walker (parsing/native.cpp) that
lists the leaves with some kinds taken whole. One per language (parsing.java, parsing.python)."""
from __future__ import annotations

import importlib.machinery
import importlib.util
import sys
from collections.abc import Callable
from functools import cache, cached_property

TYPE_CHECKING = False   # typing.TYPE_CHECKING without importing typing (start-up time: tests/test_ranker.py)
if TYPE_CHECKING:   # for the annotations only (see Grammar.language)
    import tree_sitter


def grammar_language(package: str) -> Callable[[], object]:
    """A tree-sitter grammar package's `language` (e.g. tree_sitter_java.language), from its compiled module
    alone: the package's __init__ also imports importlib.resources for its query files, which no tokenizer
    reads, and that cost every bin/rank a tenth of its start-up."""
    name = f"{package}._binding"
    module = sys.modules.get(name)
    if module is None:
        found = importlib.util.find_spec(package)
        spec = found and importlib.machinery.PathFinder.find_spec(name, found.submodule_search_locations)
        if spec is None:
            raise ModuleNotFoundError(f"No module named {name!r} (run 'make setup')", name=name)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        sys.modules[name] = module
    return module.language


def lazy_language(package: str) -> Callable[[], object]:
    """`grammar_language(package)`, loaded when first called: a language module registered beside Java's
    costs no start-up until one of its files is read."""
    def language():
        return grammar_language(package)()
    return language


class Grammar:
    def __init__(self, language: Callable[[], object], whole: frozenset[str]):
        self._capsule = language     # e.g. tree_sitter_java.language
        self.whole = whole

    @cached_property
    def language(self) -> tree_sitter.Language:
        # the Python binding is imported where it is used (annotations name it unevaluated): the C walker needs only
        # the grammar's capsule, and bin/rank's start-up not the binding
        import tree_sitter
        return tree_sitter.Language(self._capsule())

    @cached_property
    def parser(self) -> tree_sitter.Parser:
        import tree_sitter
        return tree_sitter.Parser(self.language)

    def parse(self, text: str) -> tree_sitter.Tree:
        return self.parser.parse(text.encode("utf-8"))

    def first_error_line(self, text: str) -> int | None:
        """The 1-based line of the first syntax error tree-sitter finds in `text` (an ERROR or a MISSING node),
        None when it parses cleanly."""
        node = self.parse(text).root_node
        if not node.has_error:
            return None
        while True:
            bad = next((c for c in node.children if c.type == "ERROR" or c.is_missing or c.has_error), None)
            if bad is None or bad.type == "ERROR" or bad.is_missing:
                node = bad or node
                break
            node = bad
        return node.start_point[0] + 1

    @cached_property
    def walker(self):
        """The C walker and the kind names of its ids."""
        from ._native import Leaves
        walker = Leaves(self._capsule(), sorted(self.whole))
        return walker, _KindNames(walker)

    def leaf_arrays(self, data: bytes):
        """`leaves` as the C walk returns them: arrays (array.array) of kind ids, start bytes and end bytes."""
        arrays = self.walker[0].of(data)
        if len(data) >= TRIM_BYTES:
            release_freed_memory()
        return arrays

    def leaves(self, data: bytes) -> tuple[list[str], list[int], list[int]]:
        """(kind, start byte, end byte) of every non-empty leaf of `data`, in document order, nodes of the
        `whole` kinds taken whole (MISSING nodes are empty, so never leaves)."""
        kinds, starts, ends = self.leaf_arrays(data)
        names = self.walker[1]
        return list(map(names.__getitem__, kinds.tolist())), starts.tolist(), ends.tolist()


# The walk frees the parse tree (about 25 bytes per byte of source) before returning, but glibc keeps the
# freed memory and the Python objects made next do not reuse it: for a large file it is given back (a
# 5 MB file: 100 MB less at the ranker's peak). Not for small files: trimming costs a pass over the heap.
TRIM_BYTES = 1 << 20


@cache
def _malloc_trim():
    import ctypes  # here: only a large file or a folder's counts need it, not bin/rank's start-up
    try:
        return ctypes.CDLL(None).malloc_trim   # glibc
    except (OSError, AttributeError):
        return None


def release_freed_memory() -> None:
    """Give memory that was freed back to the system (glibc keeps it otherwise), e.g. before forking."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


class _KindNames(dict):
    """Kind id -> name, asked of the walker the first time an id is seen (naming all 65,536 possible ids
    up front cost every bin/rank 10 ms of start-up)."""

    def __init__(self, walker):
        super().__init__()
        self._walker = walker

    def __missing__(self, kind: int) -> str:
        name = self[kind] = self._walker.name(kind)
        return name


def same_tokens_with(grammar: Grammar, tokenize, text: str, start: int, end: int, replacement: str,
                     tokens: list[str] | None = None, crs_as_lf: bool = True) -> bool:
    """Whether `text` with its characters [start, end) replaced by `replacement` splits into the same token
    texts as `text` (whose `tokens` may be given), for a language read with `grammar` and `tokenize`: told
    from the leaves, the edited text parsed incrementally from the original's tree, unless either text has
    more than leaves and ASCII whitespace: then tokenized. `crs_as_lf`: the tokenizer parses every CR as LF
    (parsing.java.tokenize), and so is the comparison."""
    edited = text[:start] + replacement + text[end:]
    data = text.encode("utf-8")
    if len(data) == len(text):   # bytes are characters
        b_start, b_end = start, end
    else:
        b_start = len(text[:start].encode("utf-8"))
        b_end = b_start + len(text[start:end].encode("utf-8"))
    b_new = b_start + len(replacement.encode("utf-8"))
    edited_data = edited.encode("utf-8")
    # parsed as tokenize parses them: every CR as LF; the leaves are then compared as LF too, which cannot tell
    # a CR the edit takes out or puts in (inside a token, `/* a\r b */` against `/* a\n b */`): such an edit is
    # told by tokenizing both
    crs = b"\r" in data or b"\r" in edited_data
    if crs and (not crs_as_lf or "\r" in text[start:end] or "\r" in replacement):
        same = None
    else:
        if crs:
            data, edited_data = data.replace(b"\r", b"\n"), edited_data.replace(b"\r", b"\n")
        same = grammar.walker[0].same_leaves(data, edited_data, b_start, b_end, b_new)
    if same is not None:
        return same
    return tokenize(edited).token_texts() == (tokens if tokens is not None else tokenize(text).token_texts())
