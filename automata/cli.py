"""bin/stamina: generate StaMinA-style problems, learn DFAs, label test sets, score grids."""
from __future__ import annotations

import sys
from pathlib import Path

from unnatural import cli

from .bcr import SOLVED_BCR
from .generator import RECIPES
from .learn import ALGORITHMS, FOLDS, MEMBERS
from .samples import MAX_ALPHABET, ContradictionError, FormatError
from .vote import Vote, load_model

COMMAND = "stamina"
REAL_DATA = cli.repo_path(".data/stamina/training-abbadingo")
ACCEPTANCE_PROBLEMS = list(range(1, 101, 5))


def _numbers(text: str | None, available: list[int]) -> list[int]:
    if not text:
        return available
    if text == "first-per-cell":
        return [n for n in ACCEPTANCE_PROBLEMS if n in available]
    return [int(t) for t in text.split(",") if t.strip()]


def cmd_generate(args) -> int:
    from .generator import RECIPES, first_number, make_problem, write_problem
    from .grid import ALPHABETS, SPARSITIES, Cell

    cells = ([Cell(a, s) for a in ALPHABETS for s in SPARSITIES] if args.grid
             else [Cell(args.alphabet, float(args.sparsity))])
    for i, cell in enumerate(cells):
        if not 1 <= cell.alphabet <= MAX_ALPHABET or not 0 < cell.sparsity <= 100:
            raise cli.CommandError(f"generate: alphabet must be 1 to {MAX_ALPHABET} and sparsity in (0, 100]")
        prob = make_problem(args.seed + i, cell.alphabet, cell.sparsity, RECIPES[args.recipe])
        number = args.number if (args.number and not args.grid) else (
            first_number(cell) if cell.alphabet in ALPHABETS and cell.sparsity in SPARSITIES else 1)
        paths = write_problem(prob, args.output, number)
        print(f"problem {number}: alphabet {cell.alphabet}, sparsity {cell.sparsity:g}%, target "
              f"{prob.target.n_states} states, {len(prob.training)} training / {len(prob.test)} test strings "
              f"-> {paths[0].parent}/{number}_*")
    return 0


def cmd_learn(args) -> int:
    from .learn import learn
    from .samples import read_training

    if args.vote < 1 or args.vote % 2 == 0:
        raise cli.CommandError("learn: --vote takes an odd number")
    if args.accept_at is not None and not 1 <= args.accept_at <= args.vote:
        raise cli.CommandError(f"learn: --accept-at takes 1 to {args.vote} (the number of machines)")
    sample = read_training(args.train)
    res = learn(sample, algo=args.algo, time_limit=args.time_limit, plain=args.plain, vote=args.vote,
                accept_at=args.accept_at)
    res.dfa.save(args.output)
    extra = []
    if args.dot:
        Path(args.dot).write_text(res.dfa.to_dot())
        extra.append(f"dot {args.dot}")
    if args.png:
        first = " (the vote's first machine; --vote 1 learns a single one)" if isinstance(res.dfa, Vote) else ""
        extra.append(f"png {args.png}{first}" if res.dfa.render_png(args.png)
                     else "no png (graphviz 'dot' not installed)")
    note = f" ({res.note})" if res.note else ""
    if isinstance(res.dfa, Vote):
        sizes = [m.n_states for m in res.dfa.members]
        size = f"{min(sizes)} to {max(sizes)} states per machine (median {res.dfa.n_states})"
    else:
        size = f"{res.dfa.n_states} states, {res.dfa.n_transitions} transitions"
    print(f"{res.algorithm}: {size} in "
          f"{res.seconds:.1f} s{note} -> {args.output}" + ("; " + ", ".join(extra) if extra else ""))
    return 0


def cmd_label(args) -> int:
    from .samples import read_sample

    dfa = load_model(args.model)
    test = read_sample(args.test, alphabet=dfa.alphabet)
    labels = "".join("1" if x else "0" for x in dfa.classify(list(test.words)))
    print("\n".join(labels) if args.lines else labels)
    return 0


def cmd_show(args) -> int:
    dfa = load_model(args.model)
    if args.png:
        if not dfa.render_png(args.png):
            raise cli.CommandError("show: graphviz 'dot' is not installed")
        print(f"wrote {args.png}")
    else:
        print(dfa.to_dot(), end="")
    return 0


def cmd_grid(args) -> int:
    from .runs import grid_report, problem_numbers, run_grid

    avail = problem_numbers(args.dir)
    if not avail:
        raise cli.CommandError(f"grid: no N_training.txt files in {args.dir}")
    scores, errors = run_grid(args.dir, _numbers(args.problems, avail), args.algo, args.time_limit)
    for e in errors:
        cli.warning(COMMAND, f"grid: {e}; skipped")
    for s in scores:
        print(f"problem {s.problem:>3}: alphabet {s.cell.alphabet:>2}, sparsity {s.cell.sparsity:>5g}% "
              f"BCR {s.bcr:.3f} {'solved' if s.bcr >= SOLVED_BCR else '      '} {s.states:>4} states "
              f"{s.seconds:5.1f} s")
    print(grid_report(scores, f"BCR per cell ({args.algo}) for {args.dir}"))
    return cli.EXIT_FINDINGS if errors else cli.EXIT_OK


def cmd_bench(args) -> int:
    from .bench import AalpyMissing
    from .runs import bench_report, run_bench

    numbers = _numbers(args.problems, ACCEPTANCE_PROBLEMS)
    try:
        ours, theirs = run_bench(args.dir, numbers, args.algo, args.time_limit, args.aalpy_timeout,
                                 use_cache=not args.no_cache)
    except AalpyMissing as e:
        raise cli.CommandError(f"bench: {e}") from None
    print(bench_report(ours, theirs, args.aalpy_timeout))
    return 0


def build_parser() -> cli.ArgumentParser:
    p = cli.parser(COMMAND, __doc__.strip())
    sub = p.add_subparsers(dest="command", required=True)

    g = sub.add_parser("generate", help="make a StaMinA-style problem (Forest-Fire target, walks, edits)")
    g.add_argument("--seed", type=int, default=0)
    g.add_argument("--alphabet", type=int, default=2)
    g.add_argument("--sparsity", type=float, default=100.0, help="percent of the training pool kept")
    g.add_argument("--number", type=int, default=0, help="problem number in file names (default: the cell's first)")
    g.add_argument("--grid", action="store_true", help="one problem per cell of the 5x4 grid (seeds seed..seed+19)")
    g.add_argument("--recipe", choices=list(RECIPES), default="ours",
                   help="the generator's free choices (automata/generator.py's RECIPES; default: ours)")
    cli.add_output(g, "folder for N_training.txt, N_test.txt, N_target.dfa/.dot", required=True)
    g.set_defaults(func=cmd_generate)

    le = sub.add_parser("learn", help="learn a DFA from a training file (Abbadingo or +/- lines)")
    le.add_argument("train", type=Path)
    le.add_argument("--algo", choices=list(ALGORITHMS), default="auto")
    le.add_argument("--time-limit", type=float, default=20.0, help="seconds for the SAT stage before falling back")
    le.add_argument("--plain", action="store_true", help="textbook evidence only (no StaMinA tuning)")
    le.add_argument("--vote", type=int, default=MEMBERS,
                    help=f"auto: the number of machines (odd) that learn on random parts of the training set and "
                         f"vote (default {MEMBERS}); 1 learns one machine on all of it")
    le.add_argument("--accept-at", type=int, metavar="K",
                    help=f"auto: accept a string when K machines of the vote accept it (default: K chosen by "
                         f"{FOLDS}-fold cross-validation on the training file)")
    le.add_argument("-o", "--output", type=Path, required=True, help="model file (DFA text format)")
    le.add_argument("--dot", type=Path, help="also write Graphviz dot")
    le.add_argument("--png", type=Path, help="also render a PNG with graphviz (when installed)")
    le.set_defaults(func=cmd_learn)

    la = sub.add_parser("label", help="print the competition's 0/1 string for a test file")
    la.add_argument("model", type=Path)
    la.add_argument("test", type=Path)
    la.add_argument("--lines", action="store_true", help="one label per line")
    la.set_defaults(func=cmd_label)

    sh = sub.add_parser("show", help="print a model as Graphviz dot, or render it with --png")
    sh.add_argument("model", type=Path)
    sh.add_argument("--png", type=Path)
    sh.set_defaults(func=cmd_show)

    gr = sub.add_parser("grid", help="learn and score a folder of problems; print the 5x4 BCR grid")
    gr.add_argument("dir", type=Path)
    gr.add_argument("--algo", choices=list(ALGORITHMS), default="auto")
    gr.add_argument("--time-limit", type=float, default=20.0)
    gr.add_argument("--problems", help="comma-separated numbers, or 'first-per-cell' (1,6,...,96)")
    gr.set_defaults(func=cmd_grid)

    be = sub.add_parser("bench", help="held-out 80/20 benchmark on the real training sets against AALpy's EDSM")
    be.add_argument("--dir", type=Path, default=REAL_DATA)
    be.add_argument("--algo", choices=list(ALGORITHMS), default="auto")
    be.add_argument("--time-limit", type=float, default=20.0)
    be.add_argument("--aalpy-timeout", type=float, default=150.0, help="seconds per problem for AALpy")
    be.add_argument("--problems", help="comma-separated numbers (default 1,6,...,96)")
    be.add_argument("--no-cache", action="store_true", help="re-run AALpy instead of using .bench/stamina/")
    be.set_defaults(func=cmd_bench)
    return p


@cli.command(COMMAND)
def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (FormatError, ContradictionError) as e:
        raise cli.CommandError(f"{args.command}: {e}") from None
    except FileNotFoundError as e:
        raise cli.CommandError(f"{args.command}: no such file: {e.filename}") from None


if __name__ == "__main__":
    sys.exit(main())
