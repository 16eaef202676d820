"""Development sets for detection (`make devsets`): one task folder per project, so that styles differ.

Each set is `bin/make-tasks` output (tasks kept only when Checkstyle flags them, the shipped whitespace
configuration at the project's indentation; CodRep 2019's mix of edits) with as many clean files beside
the tasks: one task or clean file per distinct base file, at most PER_PROJECT tasks.

- `jdk`: the JDK packages the default model leaves out (lm.build.HELD_OUT), 4-space indentation; and the
  same files re-indented, every level as one tab (`jdk-tabs`) or as 2 spaces (`jdk-2sp`), with the same
  seed, so that only the style differs (parsing.style.reindent).
- CodRep 2018 file bodies grouped by project (the package prefixes below). CodRep 2018 holds several
  versions of many files (one per commit a task came from); a real repository holds one, so each class
  (package and first type name) is kept once, or its other versions would hand folder adaptation the
  clean text of the file under test.

HELD_OUT_PROJECTS are never used to choose anything (models, schemes, thresholds): they are reported as
held out. The default model never saw any of these files.

`--edits real` builds the same sets with the real slips' mix of edits instead (evaluation/real_edits.py:
lines joined, re-indented, tabs for spaces, trailing whitespace, ...; not filtered by Checkstyle, which
flags few of them), into `.data/slipsets`: the same seed, so the same clean files and base files, with
slips of any size in repositories several times the real-slip set's projects.
"""
from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from tqdm import tqdm

from formats.codrep2019 import DEVSET_FILE, read_devset
from formats.files import InputError, decode
from formats.sources import iter_raw
from lm.build import HELD_OUT
from parsing.java import tokenize
from parsing.style import SPACES, TAB, Indentation, detect_indentation, majority_indentation, reindent
from unnatural import ROOT, cli

from .checkstyle import SHIPPED, Checkstyle, CheckstyleError, properties
from .tasks import TaskConfig, make_tasks

COMMAND = "devsets"
PER_PROJECT = 500
SEED = 0
JDK_SOURCE = ROOT / "corpora" / "jdk17-src.zip"
CODREP2018 = tuple(ROOT / ".data" / "codrep2018" / f"Dataset{i}" for i in range(1, 5))

# project name -> package prefixes (CodRep 2018)
C18_PROJECTS: dict[str, tuple[str, ...]] = {
    "eclipse": ("org.eclipse.",),
    "libgdx": ("com.badlogic.gdx",),
    "lucene": ("org.apache.lucene",),
    "elasticsearch": ("org.elasticsearch",),
    "spring": ("org.springframework",),
    "columba": ("org.columba",),
    "jboss-as": ("org.jboss.as",),
    "commons": ("org.apache.commons",),
}
HELD_OUT_PROJECTS = frozenset({"spring", "columba", "jboss-as", "commons"})
JDK_VARIANTS = {"jdk": None, "jdk-tabs": TAB, "jdk-2sp": SPACES[2]}
ALL_SETS = (*JDK_VARIANTS, *C18_PROJECTS)

_PACKAGE = re.compile(r"^\s*package\s+([\w.]+)\s*;", re.M)
_TYPE = re.compile(r"^\s*(?:(?:public|protected|private|final|abstract|static|sealed|non-sealed|strictfp)\s+)*"
                   r"(?:class|interface|enum|@interface|record)\s+(\w+)", re.M)


@dataclass(frozen=True)
class DevSet:
    name: str
    files: list[tuple[str, str]]
    indentation: Indentation | None = None   # None: detect from the files


def identity(text: str, name: str) -> tuple[str, str]:
    """(package, first type name): the class a file holds, whatever version of it."""
    package, first = _PACKAGE.search(text), _TYPE.search(text)
    return (package.group(1) if package else "", first.group(1) if first else name)


def jdk_sets(source: Path = JDK_SOURCE) -> list[DevSet]:
    files = []
    for raw in iter_raw(str(source)):
        if raw.error or not any(p in raw.name for p in HELD_OUT):
            continue
        try:
            files.append((raw.name, decode(raw.data, raw.name)))
        except InputError:
            continue
    out = []
    for name, target in JDK_VARIANTS.items():
        if target is None:
            out.append(DevSet(name, files, SPACES[4]))
        else:
            out.append(DevSet(name, [(n, reindent(tokenize(t), SPACES[4], target)) for n, t in files], target))
    return out


def codrep2018_bodies(datasets=CODREP2018):
    """(raw file, its text) of every CodRep 2018 file body that decodes, in data set order."""
    for dataset in datasets:
        for raw in iter_raw(str(dataset)):
            try:
                yield raw, decode(raw.data, raw.name)
            except InputError:
                continue


def codrep2018_sets(datasets=CODREP2018) -> list[DevSet]:
    by_project: dict[str, dict[tuple[str, str], tuple[str, str]]] = {p: {} for p in C18_PROJECTS}
    for raw, text in codrep2018_bodies(datasets):
        package = _PACKAGE.search(text)
        if not package:
            continue
        for project, prefixes in C18_PROJECTS.items():
            if package.group(1).startswith(prefixes):
                by_project[project].setdefault(identity(text, raw.name), (raw.name, text))
                break
    return [DevSet(p, list(files.values())) for p, files in by_project.items()]


def build(out: Path, names: list[str] | None = None, per_project: int = PER_PROJECT, seed: int = SEED,
          force: bool = False, mix: str = "codrep2019") -> list[str]:
    """Write the sets not yet built (or all, with force) into out/<name>/, their edits of `mix`
    (evaluation/injection.py's MIXES: CodRep 2019's, kept when Checkstyle flags them, or the real slips');
    returns the names written."""
    sets = jdk_sets() + codrep2018_sets()
    written = []
    for devset in sets:
        if names and devset.name not in names:
            continue
        folder = out / devset.name
        stamp = folder / DEVSET_FILE
        config = {"name": devset.name, "files": len(devset.files), "per_project": per_project, "seed": seed,
                  "held_out": devset.name in HELD_OUT_PROJECTS, **({"mix": mix} if mix != "codrep2019" else {})}
        if stamp.exists() and not force and read_devset(folder).get("config") == config:
            continue
        indentation = devset.indentation or majority_indentation(
            [detect_indentation(tokenize(t)) for _, t in devset.files])
        count = min(per_project, len(devset.files) // 2)
        checkstyle = Checkstyle(SHIPPED["whitespace"], properties(indentation)) if mix == "codrep2019" else None
        cfg = TaskConfig(count=count, clean=count, seed=seed, mix=mix, project=devset.name, checkstyle=checkstyle)
        with tqdm(total=count, unit="task", desc=devset.name, file=sys.stderr) as bar:
            summary = make_tasks(devset.files, folder, cfg, force=True, progress=bar.update)
        stamp.write_text(json.dumps({"config": config, "indentation": indentation.name,
                                     "checkstyle": checkstyle.label if checkstyle else None, "tasks": summary.tasks,
                                     "clean": summary.clean, "kinds": dict(summary.kinds),
                                     "unflagged": summary.unflagged, "unparsed": summary.unparsed}, indent=1) + "\n")
        flagged = (f"; {summary.unflagged} files with no flagged edit, {summary.unparsed} Checkstyle could not "
                   f"parse" if checkstyle else "")
        print(f"devsets: {devset.name}: {summary.tasks} tasks and {summary.clean} clean files "
              f"({indentation.name}{flagged})", file=sys.stderr)
        written.append(devset.name)
    return written


@cli.command(COMMAND)
def main(argv=None) -> int:
    p = cli.parser(COMMAND, "Build the detection development sets (make devsets), one task folder per project.")
    p.add_argument("out", type=Path, nargs="?", default=None,
                   help="default: .data/devsets (.data/slipsets with --edits real)")
    p.add_argument("--edits", choices=("codrep2019", "real"), default="codrep2019",
                   help="the mix of edits: CodRep 2019's (default) or the real slips' (bin/make-tasks --edits)")
    p.add_argument("--only", action="append", metavar="NAME", choices=sorted(ALL_SETS),
                   help="build only this set; repeatable")
    p.add_argument("--force", action="store_true", help="rebuild sets already built")
    args = p.parse_args(argv)
    try:
        out = args.out or ROOT / ".data" / ("slipsets" if args.edits == "real" else "devsets")
        build(out, args.only, force=args.force, mix=args.edits)
    except (CheckstyleError, InputError, OSError) as e:
        raise cli.CommandError(e) from None
    return cli.EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
