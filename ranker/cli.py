"""bin/rank: rank every character offset of Java files by how unnatural its formatting is (CodRep 2019).

Output, one line per file, sorted by path: '<absolute path> <offset> <offset> ...', most suspicious first,
every offset 1..n of the file listed (the CodRep 2019 format; a path may hold spaces: the offsets are the
line's trailing integers). With --explain, the top findings per file as
'path:line:col: <observed gap> -> <suggested repair> (score, gain <gain>)' instead: the gain is the repair's
log10 gain, which orders a file's findings; the score is comparable across files, the gain less half the
file's background of odd spots (the mean gain of its next best findings; docs/detection.md).
"""
from __future__ import annotations

import contextlib
import functools
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from formats.files import InputError, read_source
from formats.sources import files_to_rank
from lm.kenlm_tools import KenlmError
from lm.model import LanguageModel, ModelError
from parsing.languages import LANGUAGES, all_suffixes, get_language, header_language, language_of
from parsing.schemes import DEFAULT_SCHEME, UnknownScheme, get_scheme
from unnatural import cli
from unnatural.signature import signature

from .explain import explain_json, explain_lines
from .learn import METHODS, LearnConfig, Learned, learn
from .learn import WEIGHT as LEARNED_WEIGHT
from .rank import BACKGROUND_WEIGHT, UNWALKED, Style, explained_candidates, rank_text, walk_text
from .repairs import DEFAULT_EDITS, EDITS
from .score import Scorer

COMMAND = "rank"
DEFAULT_MODEL = f".models/default-{DEFAULT_SCHEME}-o6.bin"
# Weight of a given project model (--project-model) in the interpolation, chosen on codrep2019/validation by
# overall MRR over 0.1, 0.3, 0.5 (docs/codrep2019.md); a learned one (--adapt project) has its own
# (ranker/learn.py, chosen on the detection development sets).
PROJECT_WEIGHT = 0.3
ADAPT = METHODS


@dataclass(frozen=True)
class RankConfig:
    model: str
    project_model: str | None = None
    project_weight: float = PROJECT_WEIGHT
    adapt: str = "file"
    top: int | None = None
    explain: bool = False
    json: bool = False
    max_bytes: int | None = cli.MAX_BYTES
    edits: str = DEFAULT_EDITS

    def learning(self) -> LearnConfig:
        return LearnConfig(self.adapt, weight=self.project_weight)

    def signature(self, lm: LanguageModel) -> str:
        project = [("project", f"{Path(self.project_model).name}@{self.project_weight}")] if self.project_model else []
        score = [("score", f"gain-{BACKGROUND_WEIGHT}xbackground")] if self.explain else []
        return signature(COMMAND, [*lm.describe(), *project, *self.learning().fields(), ("method", "repair"),
                                   ("edits", self.edits), *score])


_worker: dict = {}   # per process: config, scheme, what was learned; set before forking
# Files ranked as one batch: read and parsed (walk_text) one after another, then ranked one after another.
# tree-sitter's parse and the ranking evict each other's tables from the CPU's caches, so alternating them file
# by file cost 11% more CPU on CodRep 2019 validation, 6-8% on 4 KB and 5% on 16 KB JDK files
# (docs/speed-ranker.md, "Processes, files, the exit"). At most this many characters a batch (about 700 KB of
# CodRep lines: under the 1 MB a worker's pipe holds), so that a batch's walks and results stay small.
BATCH_CHARS = 64 * 1024
FIRST_BATCH_CHARS = 4 * 1024   # the first batches grow from this, so that the first lines come out soon


def parser() -> cli.ArgumentParser:
    p = cli.parser(COMMAND, __doc__.strip())
    p.add_argument("paths", nargs="+", metavar="PATH", help="task folders (their *.txt but out.txt), "
                   "folders of source files (*.java, *.py, *.c, *.h, *.cpp, ...), or files")
    p.add_argument("--language", choices=sorted(LANGUAGES), default=None,
                   help="read every file as this language (default: by its suffix, a .h as C++ when C++ "
                        "sources are given too, else as C; a task file N.txt as Java)")
    cli.add_model(p, DEFAULT_MODEL, "KenLM model built by bin/build-lm; the default is built from corpora/ "
                  "on first use")
    p.add_argument("--project-model", type=Path, default=None,
                   help="a model of the project's own code, interpolated with --model")
    p.add_argument("--project-weight", type=cli.weight, default=None,
                   help=f"weight of the project model, in [0, 1) (default {PROJECT_WEIGHT}; learned by --adapt "
                        f"project: {LEARNED_WEIGHT})")
    p.add_argument("--adapt", choices=ADAPT, default="file",
                   help="style learned without labels: from the file itself (default); from every file given "
                        "too (folder), the same minus the file's near-duplicates (folder-strict); from a model of "
                        "the other files interpolated with --model (project), both (folder+project); or none "
                        "(docs/detection.md compares them)")
    p.add_argument("--edits", choices=list(EDITS), default=DEFAULT_EDITS,
                   help="the error model: CodRep 2019's kinds of error (an inserted tab or line break before a "
                        "token, a space inserted into or deleted from between two tokens, a deleted line break) "
                        "are likely, other repairs rank only after them (codrep2019, the default); or every "
                        "repair by its gain alone (any)")
    p.add_argument("--explain", action="store_true", help="print the top findings per file, linter style")
    p.add_argument("--json", action="store_true", help="with --explain: one JSON object per finding")
    cli.add_top(p, "print only the K best offsets (with --explain: findings; default 3)")
    cli.add_workers(p)
    cli.add_max_bytes(p)
    cli.add_cluster(p, "rank on a Dask cluster instead of --workers: a scheduler address, or local:N for N local "
                    "worker processes; the same output (docs/scale.md)")
    return p


def ensure_default_model(model: Path) -> Path:
    """The model to rank with; the default one is built from corpora/ when it is missing."""
    if model != cli.repo_path(DEFAULT_MODEL) or model.exists():
        return model
    if not cli.repo_path("corpora").is_dir():   # installed by pip from a source without models/ (setup.py)
        raise cli.CommandError(f"this installation has no default model ({model}): install unnatural from a "
                               "checkout that has models/ (pip install .), or pass --model")
    cli.warning(COMMAND, f"no default model yet; building {DEFAULT_MODEL} from corpora/ (once, a few minutes)")
    from lm.cli import main as build_lm  # the build pipeline, imported only when needed
    with contextlib.redirect_stdout(sys.stderr):   # stdout carries rankings only
        code = build_lm(["--order", "6", "--output", str(model), str(cli.repo_path("corpora"))])
    if code != 0:
        raise FileNotFoundError("could not build the default model (see the error above)")
    return model


def load(cfg: RankConfig) -> tuple[Scorer, LanguageModel]:
    lm = LanguageModel(cfg.model)
    get_scheme(lm.scheme)   # an unknown scheme in the signature is an error naming it
    project = LanguageModel(cfg.project_model) if cfg.project_model else None
    return Scorer(lm, project, cfg.project_weight, cfg.edits), lm


def _set_up(cfg: RankConfig, styles) -> None:
    """Make this process ready to rank: a cluster worker, once (forked workers inherit the parent's)."""
    scorer, lm = load(cfg)
    _worker.update(cfg=cfg, scheme=get_scheme(lm.scheme), learned=Learned(cfg.learning(), scorer, styles))


def _on_cluster(files: list[str], address: str, cfg: RankConfig, styles):
    """`_rank_one` of every file on the cluster, in order; the model is loaded once per worker process."""
    from unnatural.cluster import ClusterError, cluster_map  # Dask is imported only with --cluster
    try:
        yield from cluster_map(_rank_one, files, address, init=functools.partial(_set_up, cfg, styles))
    except ClusterError as e:
        raise cli.CommandError(e) from None


def _rank_one(path: str):
    """(the output line of `path`, or None when it was skipped; a warning about it, or None)."""
    cfg: RankConfig = _worker["cfg"]
    try:
        text = read_source(path, cfg.max_bytes)   # as a str: no Path made per file
    except InputError as e:
        return None, str(e)
    learned: Learned = _worker["learned"]
    return rank_source(text, path, cfg, learned.scorer(path), _worker["scheme"], learned.style(path))


def _rank_batch(paths: list[str]) -> list[tuple[str | None, str | None]]:
    """`_rank_one` of each path, the files read and walked first, all of them, then ranked (BATCH_CHARS)."""
    cfg: RankConfig = _worker["cfg"]
    learned: Learned = _worker["learned"]
    scheme = _worker["scheme"]
    read = []   # (path, text, its style, its walk, why it cannot be read)
    for path in paths:
        try:
            text = read_source(path, cfg.max_bytes)
        except InputError as e:   # said in its turn, as _rank_one says it
            read.append((path, None, None, None, str(e)))
            continue
        style = learned.style(path)   # (with --adapt folder, made per file: once)
        read.append((path, text, style, walk_text(scheme, text, style), None))
    return [(None, error) if text is None else
            rank_source(text, path, cfg, learned.scorer(path), scheme, style, walked)
            for path, text, style, walked, error in read]


def _batches(files: list[str], workers: int) -> list[list[str]]:
    """The files in batches for _rank_batch: at most BATCH_CHARS each (by the size on disk), smaller at the start
    and at the end (unnatural.parallel.batches)."""
    from unnatural.parallel import batches
    sizes = []
    for f in files:
        try:
            sizes.append(os.stat(f).st_size)
        except OSError:   # said when it is read
            sizes.append(0)
    return [files[b.start:b.stop] for b in batches(sizes, workers, BATCH_CHARS, FIRST_BATCH_CHARS)]


def _flat(results):
    """The results of each batch, in order (a stop stops the batches' map too)."""
    try:
        for batch in results:
            yield from batch
    finally:
        if hasattr(results, "close"):
            results.close()


def rank_source(text: str, path: str, cfg: RankConfig, scorer: Scorer, scheme, style: Style = Style(),
                walked=UNWALKED):
    """bin/rank's work on one file's text (formats.files.decode's): (its output, the CodRep line or the
    --explain findings; a note about it, or None). `walked`: the text's walk_text, when made already."""
    note = f"{path}: starts with a UTF-8 BOM; offsets count it as character 1" if text.startswith("\ufeff") else None
    adapt = cfg.adapt != "none"
    if cfg.explain:   # only the best offsets are ranked, as far as the findings need
        fmt = explain_json if cfg.json else explain_lines
        explained = explained_candidates(scorer, scheme, text, path, cfg.top or 3, adapt, style, walked)
        return "\n".join(fmt(path, text, explained)), note
    return rank_text(scorer, scheme, text, path, adapt, style, top=cfg.top, walked=walked).line(cfg.top), note


@cli.command(COMMAND)
def main(argv=None) -> int:
    p = parser()
    args = p.parse_args(argv)
    if args.json and not args.explain:
        p.error("--json goes with --explain (the rankings have one format, CodRep 2019's)")
    learns_project = LearnConfig(args.adapt).project
    if args.project_model is None and not learns_project and args.project_weight is not None:
        p.error("--project-weight goes with --project-model or an --adapt that learns a project model")
    if learns_project and args.project_model:
        p.error(f"--adapt {args.adapt} learns a project model; it cannot take --project-model too")
    if learns_project and args.cluster:
        p.error(f"--adapt {args.adapt} learns its project models here; it cannot rank with --cluster")
    weight = args.project_weight if args.project_weight is not None else (
        LEARNED_WEIGHT if learns_project else PROJECT_WEIGHT)
    explicit = args.model != cli.repo_path(DEFAULT_MODEL)
    if explicit:   # what is fatal first: a model given that does not load
        try:
            get_scheme(LanguageModel(args.model).scheme)
        except (FileNotFoundError, UnknownScheme, ModelError, ValueError, OSError) as e:
            raise cli.CommandError(e) from None
    status = cli.EXIT_OK
    files: list[str] = []
    for path in args.paths:
        try:
            files.extend(str(f) for f in files_to_rank(Path(path), all_suffixes()))
        except InputError as e:   # a missing path, a folder without source files: skipped, and said
            cli.warning(COMMAND, e)
            status = cli.EXIT_FINDINGS
    groups = language_groups(files, args.language)
    plans = []   # (files, the model's config) per language, fatal errors first
    try:   # what is fatal first: then every input is checked against a model that works
        for language, mine in groups.items():
            model = args.model if explicit and (len(groups) == 1 or _model_language(args.model) == language) \
                else default_model(language)
            cfg = RankConfig(str(ensure_default_model(model)),
                             str(args.project_model) if args.project_model else None, weight,
                             args.adapt, args.top, args.explain, args.json, args.max_bytes, args.edits)
            plans.append((mine, cfg, *_loaded(cfg, args.cluster)))
    except (FileNotFoundError, UnknownScheme, ModelError, ValueError, OSError) as e:
        raise cli.CommandError(e) from None
    if not plans:   # nothing to rank: the model is still checked, as it always was
        try:
            cfg = RankConfig(str(ensure_default_model(args.model)), None, weight, args.adapt, args.top,
                             args.explain, args.json, args.max_bytes, args.edits)
            _loaded(cfg, args.cluster)
        except (FileNotFoundError, UnknownScheme, ModelError, ValueError, OSError) as e:
            raise cli.CommandError(e) from None
    order = {f: k for k, f in enumerate(files)}
    held: list[tuple[int, str | None, str | None]] = []   # several languages: lines put back in input order
    for mine, cfg, scorer, lm in plans:
        code, lines = _rank_files(args, mine, cfg, scorer, lm, stream=len(plans) == 1)
        status = max(status, code)
        held.extend((order[f], line, note) for f, (line, note) in zip(mine, lines))
    out = sys.stdout
    try:
        for _, line, note in sorted(held, key=lambda x: x[0]):
            if note:
                cli.warning(COMMAND, note)
            if line is None:
                status = cli.EXIT_FINDINGS
            if line:
                out.write(line)
                out.write("\n")
        out.flush()
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), out.fileno())
    return status


def language_groups(files: list[str], forced: str | None = None) -> dict[str, list[str]]:
    """The files by language, each in input order: `forced` for all, else by suffix (a `.h` is C++ when a C++
    source is among `files`), a file of no known suffix (a CodRep task N.txt) Java."""
    cpp = header_language(files)
    out: dict[str, list[str]] = {}
    for f in files:
        language = forced or getattr(language_of(f, cpp), "name", "java")
        out.setdefault(language, []).append(f)
    return out


def default_model(language: str) -> Path:
    """A language's default model (Java's is built from corpora/ on first use: ensure_default_model)."""
    path = cli.repo_path(get_language(language).default_model)
    if language != "java" and not path.exists():
        raise FileNotFoundError(f"no default {language} model ({path}): build it with 'make models' (or "
                                f"bin/build-lm --language {language} SOURCE...), or give --model")
    return path


def _model_language(model: Path) -> str | None:
    try:
        return get_scheme(LanguageModel(model).scheme).language
    except (ModelError, UnknownScheme, OSError, ValueError):
        return None


def _loaded(cfg: RankConfig, cluster) -> tuple:
    """(scorer or None with --cluster, its model): the model loaded, or checked when the workers load it."""
    if cluster:
        lm = LanguageModel(cfg.model)
        get_scheme(lm.scheme)
        return None, lm
    scorer, lm = load(cfg)
    return scorer, lm


def _rank_files(args, files: list[str], cfg: RankConfig, scorer, lm, stream: bool):
    """Rank `files` (of one language) with `cfg`'s model: (exit status, the (line, note) of each file); with
    `stream`, the lines are written as they come, and the list returned is empty."""
    status = cli.EXIT_OK
    for model in filter(None, (lm, scorer.project if scorer is not None else None)):
        if model.scheme_inferred:
            cli.warning(COMMAND, f"{model.path}: no signature beside it; its vocabulary says scheme '{model.scheme}'")
    scheme = get_scheme(lm.scheme)
    if args.cluster:   # the folder's counts go to the workers; each loads the model itself
        learned = learn(files, lm, cfg.learning(), max_bytes=cfg.max_bytes)
    else:
        try:
            learned = learn(files, lm, cfg.learning(), scorer, args.workers, max_bytes=cfg.max_bytes)
        except (KenlmError, OSError) as e:
            raise cli.CommandError(f"learning a project model: {e}") from None
    print(cfg.signature(lm), file=sys.stderr)
    out = sys.stdout
    sys.stderr.flush()
    if args.cluster:
        results = _on_cluster(files, args.cluster, cfg, learned.styles)
    else:
        _worker.update(cfg=cfg, scheme=scheme, learned=learned)
        if len(files) <= 1:   # one file (an editor, a hook): no batch, no worker to fork
            results = map(_rank_one, files)
        elif args.workers <= 1:
            results = _flat(map(_rank_batch, _batches(files, 1)))
        else:
            from unnatural.parallel import ordered_map
            # forked after loading: the workers share the model's pages
            results = _flat(ordered_map(_rank_batch, _batches(files, args.workers), args.workers, parent=True))
    if not stream:
        try:
            return status, list(results)
        finally:
            if hasattr(results, "close"):
                results.close()
    try:
        for line, note in results:
            if note:
                cli.warning(COMMAND, note)
            if line is None:   # skipped (unreadable, not UTF-8, above --max-bytes): said in the note
                status = cli.EXIT_FINDINGS
            if line:   # '': --explain found nothing
                out.write(line)
                out.write("\n")
        out.flush()
    except BrokenPipeError:   # the reader (e.g. `head`) closed the pipe: not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), out.fileno())
    finally:
        if hasattr(results, "close"):
            results.close()   # stops the workers if we stopped early
    return status, []


if __name__ == "__main__":
    sys.exit(main())
