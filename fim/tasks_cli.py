"""bin/make-fim-tasks: single-line fill-in-the-middle tasks from source files, as the study made them.

Each task's middle is a random line that is not a comment (tree-sitter decides), not a print or logging
call and not short; each line is used once; the prefix is the text before it and the suffix the text after
it. The language is taken from the file suffix (.java, .py). OUT.json is a JSON list of {prefix, middle,
suffix, path, line}, written with --output. Exit status: 0 written; 1 written, but some files were
skipped (not UTF-8); 2 bad usage or no task could be made (nothing is written); 130 interrupted.
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from formats.files import InputError, decode
from formats.sources import iter_raw
from parsing.languages import LANGUAGES, get_language, language_of
from unnatural import cli

from .tasks import DEFAULT_MIN_CHARS, SkipRules, TaskError, eligible_lines, sample_tasks, task_records

PROG = "make-fim-tasks"
# the languages fill-in-the-middle has models for (fim.model.FIM_SCHEMES)
SUFFIXES = tuple(s for name in ("java", "python") for s in LANGUAGES[name].suffixes)


def parser():
    p = cli.parser(PROG, " ".join(__doc__.strip().split()))
    p.add_argument("sources", nargs="+", metavar="SOURCE",
                   help="source files (.java, .py), folders searched for them, .zip/.jar archives, CodRep 2018 "
                        "data sets (each task's file body)")
    cli.add_output(p, "the task file to write (JSON)", required=True)
    p.add_argument("--count", type=cli.positive_int, default=100, help="tasks to make (default 100; fewer if the files "
                   "have fewer usable lines)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0): the same seed, the same tasks")
    p.add_argument("--min-chars", type=cli.non_negative_int, default=DEFAULT_MIN_CHARS,
                   help=f"skip lines shorter than this, spaces at the ends not counted (default {DEFAULT_MIN_CHARS})")
    p.add_argument("--keep-comments", action="store_true", help="also take comment lines as middles")
    p.add_argument("--keep-prints", action="store_true", help="also take print and logging calls as middles")
    p.add_argument("--include", action="append", default=[], metavar="PATTERN",
                   help="only files whose path or archive member contains PATTERN; repeatable")
    p.add_argument("--exclude", action="append", default=[], metavar="PATTERN",
                   help="skip files whose path or archive member matches (glob or substring); repeatable")
    p.add_argument("--one-version", action="store_true",
                   help="keep one file per package and type name (the first): for data sets holding several "
                        "versions of a file, such as CodRep 2018's, where a middle would sit in another version")
    p.add_argument("--force", action="store_true", help="overwrite the --output file if it exists")
    return p


PACKAGE = re.compile(r"^\s*package\s+([\w.]+)", re.M)
TYPE = re.compile(r"\b(?:class|interface|enum|record)\s+(\w+)")


NO_USABLE_LINE = ("no usable line (no .java or .py file with a line that is not a comment, a print or logging "
                  "call, or shorter than {} characters)")


def version_key(name: str, text: str) -> tuple[str, str]:
    """What the versions of one Java file share: its package and first type name (else its path)."""
    package, type_ = PACKAGE.search(text), TYPE.search(text)
    return (package.group(1) if package else "", type_.group(1) if type_ else name)


def collect(sources: list[str], rules: SkipRules, include=(), exclude=(),
            one_version: bool = False) -> tuple[list, int]:
    """([(path, text, eligible lines)], files skipped); a SOURCE without a usable line is a TaskError (but
    one whose every file was skipped with a warning, as a non-UTF-8 file is, when others have usable lines)."""
    files, skipped, seen, versions = [], 0, set(), set()
    for src in sources:
        usable = entries = warned = 0     # warned: files skipped with a warning
        for raw in iter_raw(src, tuple(exclude), suffixes=SUFFIXES):
            if include and not any(pat in raw.name for pat in include):
                continue
            entries += 1
            if raw.error:
                cli.warning(PROG, f"{raw.name}: {raw.error}; skipped")
                skipped += 1
                warned += 1
                continue
            if raw.data in seen:
                continue
            seen.add(raw.data)
            language = language_of(raw.name) or get_language("java")   # CodRep task files are Java
            try:
                text = decode(raw.data, raw.name)
            except InputError as e:
                cli.warning(PROG, e)
                skipped += 1
                warned += 1
                continue
            if one_version:
                key = version_key(raw.name, text)
                if key in versions:
                    continue
                versions.add(key)
            lines = eligible_lines(text, language, rules)
            if lines:
                files.append((raw.name, text, lines))
                usable += len(lines)
        if not usable and not (entries and warned == entries):
            raise TaskError(f"{src}: {NO_USABLE_LINE.format(rules.min_chars)}")
    if not files:
        raise TaskError(f"{', '.join(sources)}: {NO_USABLE_LINE.format(rules.min_chars)}")
    return files, skipped


def write_json_atomically(path: Path, records) -> None:
    """Write a JSON file atomically (unnatural.cli.atomic_output), so an interrupted run leaves no half file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with cli.atomic_output(path, encoding="utf-8") as fh:
        json.dump(records, fh, ensure_ascii=False, indent=1)
        fh.write("\n")


@cli.command(PROG)
def main(argv=None) -> int:
    args = parser().parse_args(argv)
    out = args.output
    try:
        if args.count < 1:
            raise TaskError("--count must be at least 1")
        if out.exists() and not args.force:
            raise TaskError(f"{out}: exists (use --force to overwrite it)")
        rules = SkipRules(not args.keep_comments, not args.keep_prints, args.min_chars)
        files, skipped = collect(args.sources, rules, args.include, args.exclude, args.one_version)
        tasks = sample_tasks(files, args.count, args.seed)
        write_json_atomically(out, task_records(tasks))
    except InputError as e:
        raise cli.CommandError(e) from None
    except OSError as e:
        raise cli.CommandError(f"{e.filename or out}: {e.strerror}") from None
    langs = sorted({(language_of(t.path) or get_language('java')).name for t in tasks})
    available = sum(len(f[2]) for f in files)
    note = f" (all the usable lines: {available})" if len(tasks) < args.count else ""
    print(f"{PROG}: {len(tasks)} tasks{note} from {len(files)} files ({', '.join(langs)}) in {out} "
          f"(seed {args.seed})", file=sys.stderr)
    return cli.EXIT_FINDINGS if skipped else cli.EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
