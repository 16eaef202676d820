"""A wider corpus (`make corpus`): CodRep 2018's file bodies from the projects that no detection set uses,
written as a folder of .java files (.data/corpus-other) to train on beside corpora/'s JDK.

The JDK alone teaches one house style; other projects' code teaches the model what varies from project to
project. Measured in docs/notes/detection.md ("A wider corpus"). The projects of the detection sets
(evaluation.devsets.C18_PROJECTS, held-out ones included) are left out, and so are their close relatives
(RELATIVES), so that the detection benchmark still measures projects the model never saw.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import sys
from pathlib import Path

from unnatural import ROOT, cli

from .devsets import C18_PROJECTS, CODREP2018, codrep2018_bodies

COMMAND = "corpus"
DEFAULT_OUTPUT = ROOT / ".data" / "corpus-other"
# the other modules of jboss-as and its successor, Lucene's sibling project, a misspelt libgdx package
RELATIVES = ("org.jboss", "org.wildfly", "org.apache.solr", "com.baglogic")
RESERVED = tuple(p for prefixes in C18_PROJECTS.values() for p in prefixes) + RELATIVES
STAMP = "corpus.json"

_PACKAGE = re.compile(r"^\s*package\s+([\w.]+)\s*;", re.M)


def reserved(text: str) -> bool:
    """Whether a file belongs to a detection set's project or a relative of one (by its package)."""
    package = _PACKAGE.search(text)
    return bool(package) and package.group(1).startswith(RESERVED)


def other_projects(datasets=CODREP2018):
    """(name, text) of each distinct CodRep 2018 file body outside the reserved projects, in data set order."""
    seen = set()
    for raw, text in codrep2018_bodies(datasets):
        digest = hashlib.sha1(raw.data).digest()
        if digest in seen or reserved(text):
            continue
        seen.add(digest)
        yield raw.name, text


def write(out: Path, datasets=CODREP2018) -> int | None:
    """Write the corpus into `out` (N.java, one per file body) unless its stamp says it is there; returns
    the files written, or None when nothing was to do."""
    config = {"datasets": [Path(d).name for d in datasets], "reserved": list(RESERVED)}
    stamp = out / STAMP
    if stamp.exists() and json.loads(stamp.read_text()).get("config") == config:
        return None
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("*.java"):
        old.unlink()
    n = size = 0
    for n, (name, text) in enumerate(other_projects(datasets), 1):
        data = text.encode("utf-8")
        (out / f"{n}.java").write_bytes(data)
        size += len(data)
    # the stamp last: an interrupted run is redone
    tmp = stamp.with_suffix(".tmp")
    tmp.write_text(json.dumps({"config": config, "files": n, "bytes": size}, indent=1) + "\n")
    os.replace(tmp, stamp)
    return n


@cli.command(COMMAND)
def main(argv=None) -> int:
    p = cli.parser(COMMAND, "Write CodRep 2018's file bodies from the projects no detection set uses into a "
                            "folder (make corpus), a corpus to train on beside corpora/.")
    p.add_argument("out", type=Path, nargs="?", default=DEFAULT_OUTPUT,
                   help=f"default: {DEFAULT_OUTPUT.relative_to(ROOT)}")
    args = p.parse_args(argv)
    missing = [d for d in CODREP2018 if not Path(d).is_dir()]
    if missing:
        raise cli.CommandError(f"{missing[0]}: not there (make data unpacks it)")
    n = write(args.out)
    if n is not None:
        print(f"{COMMAND}: {n:,} files into {args.out}", file=sys.stderr)
    return cli.EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
