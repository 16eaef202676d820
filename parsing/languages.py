"""The languages the project reads, by name and by file suffix: each is one module (MODULES) that defines
its `LANGUAGE` (parsing.language.Language: grammar, suffixes, token kinds, scheme, markers, default model)."""
from __future__ import annotations

import importlib
from collections.abc import Iterable
from pathlib import PurePath

from .language import Language

__all__ = ["Language", "LANGUAGES", "MODULES", "UnknownLanguage", "get_language", "language_of", "header_language"]

MODULES = ("java", "python", "c", "cpp")   # parsing.<name>, each with LANGUAGE
LANGUAGES: dict[str, Language] = {}
for _name in MODULES:
    _language = importlib.import_module(f"parsing.{_name}").LANGUAGE
    LANGUAGES[_language.name] = _language

# a header's suffix, which C and C++ share: read as C++ where the repository has C++ sources
HEADER = ".h"


class UnknownLanguage(ValueError):
    pass


def get_language(name: str) -> Language:
    try:
        return LANGUAGES[name]
    except KeyError:
        raise UnknownLanguage(f"unknown language '{name}' (known: {', '.join(sorted(LANGUAGES))})") from None


def language_of(path: str, cpp_headers: bool = False) -> Language | None:
    """The language of a file by its suffix (an archive member 'x.zip!a/B.java' too), else None. A `.h`
    header is C, or C++ when `cpp_headers` (the repository has C++ sources: header_language)."""
    suffix = PurePath(str(path)).suffix
    if suffix == HEADER:
        return LANGUAGES["cpp" if cpp_headers else "c"]
    for language in LANGUAGES.values():
        if suffix in language.suffixes:
            return language
    return None


def header_language(paths: Iterable[str]) -> bool:
    """Whether `.h` files among `paths` are C++: whenever one of them is a C++ source."""
    cpp = set(LANGUAGES["cpp"].suffixes) - {HEADER}
    return any(PurePath(str(p)).suffix in cpp for p in paths)


def all_suffixes(names: Iterable[str] | None = None) -> tuple[str, ...]:
    """The suffixes of the languages named (default: every one), `.h` once."""
    out: list[str] = []
    for name in (names if names is not None else LANGUAGES):
        for s in get_language(name).suffixes:
            if s not in out:
                out.append(s)
    return tuple(out)
