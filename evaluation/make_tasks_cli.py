"""bin/make-tasks: write a CodRep-2019-style task folder (0.txt ... and out.txt) from clean Java files, one
whitespace edit injected per task in CodRep 2019's mix of edits, optionally kept only when Checkstyle flags
it, with clean files beside the tasks; so that anyone can make test sets from their own code."""
from __future__ import annotations

import sys
from pathlib import Path

from tqdm import tqdm

from formats.codrep2019 import TaskFolderError
from formats.files import InputError, decode
from formats.sources import iter_raw
from parsing.java import tokenize
from parsing.languages import LANGUAGES, get_language
from parsing.style import SPACES, TAB, detect_indentation, majority_indentation
from unnatural import cli

from .checkstyle import SHIPPED, Checkstyle, CheckstyleError, config_path, properties
from .injection import MIXES
from .tasks import TaskConfig, make_tasks

COMMAND = "make-tasks"
INDENTS = {"tab": TAB, **{str(k): ind for k, ind in SPACES.items()}}


def parser():
    p = cli.parser(COMMAND, __doc__.strip())
    p.add_argument("sources", nargs="+", metavar="SOURCE", help="clean Java: folders, .java files, zips "
                   "(recognised as by bin/build-lm); without --output, the last one is the task folder to write")
    cli.add_output(p, "the task folder to write")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--count", type=cli.positive_int, default=None,
                   help="tasks to write (default: one per file not kept clean)")
    p.add_argument("--clean", type=cli.non_negative_int, default=0, metavar="N",
                   help="also write N untouched files (never one with a task) into the folder's clean/")
    p.add_argument("--edits", choices=MIXES, default="codrep2019",
                   help="codrep2019: CodRep 2019's kinds of edit and conventions (default); any: insert, "
                        "delete or replace a whitespace character at either end of any gap; real: the slips "
                        "developers make, of any size (re-indent, tabs for spaces, trailing whitespace, blank "
                        "lines, lines joined or broken, spaces), in the real-slip set's mix")
    p.add_argument("--checkstyle", metavar="CONFIG",
                   help="keep an edit only when Checkstyle reports a new violation for it on its line or next to "
                        f"it: {', '.join(SHIPPED)} (shipped, evaluation/checkstyle/) or a configuration file")
    p.add_argument("--indent", choices=["auto", *INDENTS], default="auto",
                   help="the project's indentation unit, for the configuration's properties (default: the one "
                        "most of the sources' indented lines use)")
    p.add_argument("--language", choices=sorted(LANGUAGES), default="java",
                   help="the sources' language: the files of its suffixes are read, and each edit must keep its "
                        "tokens (Python's: no INDENT, DEDENT or NEWLINE made or lost; default java)")
    p.add_argument("--project", help="project name recorded in truth.jsonl (default: the first SOURCE's name)")
    p.add_argument("--include", action="append", default=[], metavar="PATTERN",
                   help="only files whose path or archive member contains PATTERN; repeatable")
    p.add_argument("--min-chars", type=cli.non_negative_int, default=0, help="skip files shorter than this")
    p.add_argument("--max-chars", type=cli.non_negative_int, default=None, help="skip files longer than this")
    cli.add_max_bytes(p)
    p.add_argument("--force", action="store_true", help="replace a non-empty output folder")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    return p


def read_sources(sources, include, min_chars, max_chars, max_bytes=None, suffixes=(".java",)
                 ) -> tuple[list[tuple[str, str]], int]:
    """(name, text) of every usable source file, and how many were skipped (each with a warning)."""
    texts, skipped = [], 0
    for src in sources:
        for raw in iter_raw(src, max_bytes=max_bytes, suffixes=suffixes):
            if include and not any(pat in raw.name for pat in include):
                continue
            try:
                if raw.error:
                    raise InputError(f"{raw.name}: {raw.error}; skipped")
                text = decode(raw.data, raw.name)
            except InputError as e:
                cli.warning(COMMAND, e)
                skipped += 1
                continue
            if len(text) >= min_chars and (max_chars is None or len(text) <= max_chars):
                texts.append((raw.name, text))
    return texts, skipped


@cli.command(COMMAND)
def main(argv=None) -> int:
    p = parser()
    args = p.parse_args(argv)
    sources, output = args.sources, args.output
    if output is None:
        if len(sources) < 2:
            p.error("give the task folder to write: --output DIR (or as the last argument)")
        sources, output = sources[:-1], Path(sources[-1])
    try:
        texts, skipped = read_sources(sources, args.include, args.min_chars, args.max_chars, args.max_bytes,
                                      get_language(args.language).suffixes)
        if not texts:
            raise TaskFolderError(f"no usable {args.language} file in " + ", ".join(sources))
        checkstyle = indent = None
        if args.checkstyle:
            indent = INDENTS.get(args.indent) or majority_indentation(
                [detect_indentation(tokenize(text)) for _, text in texts])
            checkstyle = Checkstyle(config_path(args.checkstyle), properties(indent))
            checkstyle.validate()
        project = args.project or Path(sources[0].rstrip("/")).name
        cfg = TaskConfig(args.count, args.clean, args.seed, args.edits, project, checkstyle, args.language)
        total = min(len(texts), (args.count or len(texts)))
        with tqdm(total=total, unit="file", desc="making tasks", disable=args.quiet, file=sys.stderr) as bar:
            summary = make_tasks(texts, output, cfg, args.force, bar.update)
    except (InputError, TaskFolderError, CheckstyleError, OSError, ValueError) as e:
        raise cli.CommandError(e) from None
    kinds = ", ".join(f"{k} {n}" for k, n in summary.kinds.most_common())
    judged = ""
    if checkstyle is not None:
        judged = (f"; checkstyle {checkstyle.label}, {indent.name} indentation: {summary.unflagged} files with "
                  f"no flagged edit, {summary.unparsed} it could not parse (skipped)")
    print(f"{COMMAND}: {summary.tasks} tasks ({kinds}) and {summary.clean} clean files from {summary.files} "
          f"distinct files in {output} (seed {args.seed}, edits {args.edits}{judged})", file=sys.stderr)
    if args.count is not None and summary.tasks < args.count:
        cli.warning(COMMAND, f"{args.count} tasks asked for, {summary.tasks} made")
        return cli.EXIT_FINDINGS
    return cli.EXIT_FINDINGS if skipped else cli.EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
