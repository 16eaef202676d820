"""The `unnatural` command of the installed package (pip's console script): `unnatural check PATH...` runs
what `bin/check PATH...` runs in a checkout, and so on for each launcher that works without the checkout's data.

Installed by pip, the stage packages live in `unnatural/repo/` (setup.py), not as top-level names of
site-packages: that folder goes on sys.path first, so their absolute imports (`from check import ...`) resolve
as they do in the repository.
"""
from __future__ import annotations

import os
import sys

from . import ROOT, __version__

# subcommand: (module whose main() it runs, what it does). Every bin/ launcher is here or in RESEARCH_ONLY
# (tests/test_command.py checks it against bin/).
COMMANDS = {
    "check": ("check.cli", "check a repository's Java formatting against its own style"),
    "rank": ("ranker.cli", "rank the offsets of Java files or CodRep 2019 tasks by how unnatural they are"),
    "build-lm": ("lm.cli", "build a KenLM model of Java or Python sources (needs KenLM's lmplz on PATH)"),
    "make-tasks": ("evaluation.make_tasks_cli", "make a CodRep 2019-style task folder from clean code"),
    "evaluate": ("evaluation.cli", "score stored predictions (CodRep, detection, PLUR, FIM, StaMinA)"),
    "analyze-errors": ("evaluation.errors_cli", "group the CodRep 2019 tasks not ranked first"),
    "rank-lines": ("lines.rank_cli", "rank the replaced lines of CodRep 2018 tasks"),
    "train-line-ranker": ("lines.train_cli", "train the CodRep 2018 line ranker"),
    "make-fim-tasks": ("fim.tasks_cli", "make single-line fill-in-the-middle tasks"),
    "fim": ("fim.cli", "predict fill-in-the-middle lines"),
    "stamina": ("automata.cli", "learn state machines from labelled strings (StaMinA)"),
}
# launchers that measure the research set-up itself (its data sets, corpora and tools): a checkout's bin/ only
RESEARCH_ONLY = ("bench", "check-bench", "compare-orders", "detection-bench", "fim-bench", "fim-fit", "hostile",
                 "repostyle-bench")


def usage() -> str:
    width = max(map(len, COMMANDS))
    lines = ["usage: unnatural [--version] [--help] COMMAND [ARGS...]", "",
             "Find the one unnatural spot in source code with n-gram language models. Commands:", ""]
    lines += [f"  {name:<{width}}  {summary}" for name, (_, summary) in COMMANDS.items()]
    lines += ["", "`unnatural COMMAND --help` for a command's options; exit statuses: 0 ok, 1 findings or inputs "
              "skipped, 2 usage or fatal error, 130 interrupted."]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args or args[0] in ("-h", "--help"):
        print(usage(), file=sys.stdout if args else sys.stderr)
        return 0 if args else 2
    if args[0] in ("-V", "--version"):
        print(f"unnatural {__version__}")
        return 0
    name, rest = args[0], args[1:]
    if name not in COMMANDS:
        known = ", ".join(COMMANDS)
        why = "only in a checkout of the repository (bin/)" if name in RESEARCH_ONLY else f"choose from {known}"
        print(f"unnatural: error: unknown command {name!r} ({why})", file=sys.stderr)
        return 2
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    # the tools parallelise with processes; numpy's BLAS threads would only compete with them (as bin/_run)
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    from . import run
    run.leave(run.run_module(COMMANDS[name][0], rest, name))


if __name__ == "__main__":
    sys.exit(main())
