"""The languages the project reads, by name and by file suffix: which tokenizer, which comment kinds."""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import PurePath

from .tokens import TokenStream


@dataclass(frozen=True)
class Language:
    name: str
    suffixes: tuple[str, ...]
    module: str                       # parsing.<module> has tokenize(text) -> TokenStream
    comment_kinds: frozenset[str]     # tree-sitter kinds of comments

    def tokenize(self, text: str) -> TokenStream:
        return importlib.import_module(self.module).tokenize(text)


LANGUAGES: dict[str, Language] = {
    "java": Language("java", (".java",), "parsing.java", frozenset({"line_comment", "block_comment"})),
    "python": Language("python", (".py",), "parsing.python", frozenset({"comment"})),
}


class UnknownLanguage(ValueError):
    pass


def get_language(name: str) -> Language:
    try:
        return LANGUAGES[name]
    except KeyError:
        raise UnknownLanguage(f"unknown language '{name}' (known: {', '.join(sorted(LANGUAGES))})") from None


def language_of(path: str) -> Language | None:
    """The language of a file by its suffix (an archive member 'x.zip!a/B.java' too), else None."""
    suffix = PurePath(str(path)).suffix
    for language in LANGUAGES.values():
        if suffix in language.suffixes:
            return language
    return None
