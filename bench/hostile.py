"""bin/hostile (`make hostile`): every case of docs/errors.md's list of hostile inputs run as a user would,
on inputs a real repository or a careless user produces; one row per case: the case, its exit status, the
first line it wrote on stderr (a signature line aside), and whether it passed.

A case passes when the command exits with the documented status (0 success, 1 findings or skipped inputs,
2 usage or fatal errors, 130 interrupted: unnatural/cli.py), writes no traceback, at most one error line
(which names the file when the case says so), and prints what the case expects. With --slow, also: the
peak memory of bin/rank on a 5 MB file and of `--adapt folder` (measured with /usr/bin/time -v), and Ctrl-C
on `bin/build-lm corpora/` at random moments (--interrupts N tries, each within 2 s, exit 130, one line,
no process left, no model nor temporary folder left).

    bin/hostile [--slow] [--interrupts 20] [--only NAME] [--keep DIR]

tests/test_hostile.py runs the same cases (the fast ones) as a case table.
"""
from __future__ import annotations

import contextlib
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from unnatural import ROOT, cli

COMMAND = "hostile"
BIN = ROOT / "bin"
DEFAULT_MODEL = ROOT / ".models" / "default-kind-units-o6.bin"

SLIP = """package demo;

import java.util.ArrayList;
import java.util.List;

/**
 * A small list of counters.
 */
public class Slip {
    private final List<Integer> counts = new ArrayList<>();

    public void add(int value) {
        if (value < 0) {
            throw new IllegalArgumentException("negative: " + value);
        }
        counts.add(value);
    }

    public int total() {
        int sum = 1 ;
        for (int c : counts) {
            sum += c;
        }
        return sum - 1;
    }

    public int size() {
        return counts.size();
    }
}
"""
# where --explain must point: the space of `1 ;` (line 20, column 20 as an editor counts)
SLIP_AT = ":20:20: '␣' -> '∅'"


@dataclass(frozen=True)
class Case:
    name: str
    item: int            # the list's item: 1 silent skip ... 9 paths with spaces
    command: str         # a bash command, run in the fixture folder ($B: bin/)
    exit: int            # the documented exit status
    line: str = ""       # a regex the first stderr line (not a signature line) must match ('' : no line)
    stdout: str = ""     # a regex stdout must match (re.search)
    errors: int = 1      # at most this many `<command>: error:` lines
    interrupt: float | None = None   # SIGINT to the process group after this many seconds
    timeout: float = 120


Q = "(?:'|\")?"   # a path may be quoted in a message

CASES = [
    # 1. silent skip of a whole repository
    Case("repo with NOTES.txt: ranks its Java", 1, "$B/rank REPO", 0, "", r"REPO/src/main/java/a/A\.java \d"),
    Case("repo: build-lm reads its Java", 1, "$B/build-lm --quiet --order 3 --output out/repo.bin REPO", 0, "",
         r"repo\.bin"),
    Case("N.txt without a full out.txt: said why", 1, "$B/rank almost", 1,
         r"rank: warning: almost: no (\.java|source) file; its N\.txt files are not a CodRep task folder "
         r"\(almost/out\.txt: "
         r"no line 2 for the answer"),
    Case("evaluate: not a task folder", 1, "$B/evaluate codrep2019 -d REPO -p /dev/null", 2, r"error: REPO/out\.txt"),
    # 2. a two-line StaMinA file asking for a huge alphabet
    Case("stamina learn: symbol 999999999", 2, "ulimit -v 4000000; $B/stamina learn big-symbol.txt -o out/m --vote 1",
         2, r"stamina: error: learn: big-symbol\.txt:1: symbol 999999999 outside the alphabet", timeout=60),
    Case("stamina learn: Abbadingo alphabet 999999999", 2,
         "ulimit -v 4000000; $B/stamina learn big-header.txt -o out/m --vote 1", 2,
         r"error: learn: big-header\.txt:1: alphabet size must be 1 to 1024", timeout=60),
    Case("stamina label: a machine of 10^12 cells", 2, "ulimit -v 4000000; $B/stamina label huge.dfa ok.txt", 2,
         r"error: label: huge\.dfa:1: a machine has", timeout=60),
    # 3. memory per input byte
    Case("rank /dev/zero", 3, "$B/rank /dev/zero", 1,
         r"rank: warning: /dev/zero: more than --max-bytes 10,000,000 bytes; skipped"),
    Case("rank a 12 MB file", 3, "$B/rank huge/Big.java", 1,
         r"warning: .*huge/Big\.java: 12,000,000 bytes, more than --max-bytes 10,000,000; skipped"),
    Case("rank --max-bytes 100", 3, "$B/rank --max-bytes 100 Slip.java", 1,
         r"warning: .*Slip\.java: \d+ bytes, more than --max-bytes 100; skipped"),
    Case("rank --adapt folder /dev/zero", 3, "$B/rank --adapt folder /dev/zero Slip.java", 1, r"/dev/zero: more than"),
    Case("build-lm skips a 12 MB file", 3, "$B/build-lm --quiet --order 3 --output out/huge.bin huge", 1,
         r"build-lm: warning: huge/Big\.java: 12,000,000 bytes, more than --max-bytes"),
    # 4. interrupts (the 20 tries on bin/build-lm corpora/ are --interrupts, with --slow)
    Case("Ctrl-C on rank", 4, "$B/rank --workers 2 many", 130, r"^rank: interrupted$", interrupt=1.5),
    Case("Ctrl-C on build-lm", 4, "$B/build-lm --quiet --order 4 --output out/ctrl-c.bin $ROOT/corpora", 130,
         r"^build-lm: interrupted$", interrupt=3.0),
    # 5. tracebacks instead of one line
    Case("model: a text file", 5, "$B/rank --model models/text.bin Slip.java", 2,
         r"rank: error: models/text\.bin: not a KenLM model"),
    Case("model: truncated", 5, "$B/rank --model models/truncated.bin Slip.java", 2,
         r"rank: error: models/truncated\.bin: not a readable KenLM model \(Binary file has size 1000"),
    Case("model: a folder", 5, "$B/rank --model models/folder.bin Slip.java", 2,
         r"rank: error: models/folder\.bin: is a folder"),
    Case("model: signature [1,2]", 5, "$B/rank --model models/list.bin Slip.java", 2,
         r"rank: error: models/list\.bin\.json: not a model signature"),
    Case("model: signature not JSON", 5, "$B/rank --model models/garbled.bin Slip.java", 2,
         r"rank: error: models/garbled\.bin\.json: not a model signature"),
    Case("rank > /dev/full", 5, "$B/rank Slip.java > /dev/full", 2, r"rank: error: cannot write the output"),
    Case("rank >&- (closed stdout)", 5, "$B/rank Slip.java >&-", 2, r"rank: error: cannot write the output"),
    Case("evaluate > /dev/full", 5, "$B/evaluate codrep2019 -d 'my tasks' -p preds.txt > /dev/full", 2,
         r"evaluate: error: cannot write the output"),
    Case("stamina label > /dev/full", 5, "$B/stamina label ok.model many-strings.txt > /dev/full", 2,
         r"stamina: error: cannot write the output"),
    Case("analyze-errors | head -1", 5,
         "$B/analyze-errors 'my tasks' --predictions preds.txt | head -1; exit ${PIPESTATUS[0]}", 0, "", r"^tasks: "),
    Case("stamina label | head -1", 5, "$B/stamina label --lines ok.model many-strings.txt | head -1; "
         "exit ${PIPESTATUS[0]}", 0, "", r"^[01]\n$"),
    Case("rank | head -1", 5, "$B/rank --workers 2 many | head -1 >/dev/null; exit ${PIPESTATUS[0]}", 0, ""),
    Case("evaluate fim: 100k-deep JSON", 5, "$B/evaluate fim deep.json", 2,
         r"evaluate: error: deep\.json: JSON nested too deeply"),
    Case("fim: 100k-deep JSON tasks", 5, "$B/fim --model $MODEL deep.json", 2, r"fim: error: deep\.json"),
    Case("analyze-errors: explanations not JSON", 5,
         "$B/analyze-errors 'my tasks' --predictions preds.txt --explanations binary.bin", 2,
         r"analyze-errors: error: binary\.bin"),
    Case("stamina learn: a folder", 5, "$B/stamina learn REPO -o out/m", 2,
         r"stamina: error: learn: REPO:1: is a folder"),
    Case("stamina learn: a binary file", 5, "$B/stamina learn binary.bin -o out/m", 2,
         r"stamina: error: learn: binary\.bin:1: not a text file"),
    Case("stamina label: a binary model", 5, "$B/stamina label binary.bin ok.txt", 2,
         r"stamina: error: label: binary\.bin:1: not a text file"),
    Case("stamina label: a folder to label", 5, "$B/stamina label ok.model REPO", 2,
         r"stamina: error: label: REPO:1: is a folder"),
    # 6. wrong answers with exit 0
    *[Case(f"--project-weight {w}", 6, f"$B/rank --project-model $MODEL --project-weight={w} Slip.java", 2,
           r"rank: error: argument --project-weight: must be in \[0, 1\)") for w in ("7", "inf", "-1", "nan", "1")],
    *[Case(f"{opt}", 6, f"$B/rank {opt} Slip.java", 2, r"rank: error: argument --") for opt in
      ("--top -1", "--top 0", "--workers 0")],
    Case("--json without --explain", 6, "$B/rank --json Slip.java", 2, r"rank: error: --json goes with --explain"),
    Case("--project-weight without --project-model", 6, "$B/rank --project-weight 0.5 Slip.java", 2,
         r"rank: error: --project-weight goes with --project-model"),
    Case("model without signature: scheme read off it", 6, "$B/rank --model models/nosig-text.bin Slip.java", 0,
         r"rank: warning: models/nosig-text\.bin: no signature beside it; its vocabulary says scheme 'text'"),
    Case("model without signature, scheme unknown", 6, "$B/rank --model models/words.arpa Slip.java", 2,
         r"rank: error: models/words\.arpa: no signature beside it .* cannot be told"),
    Case("build-lm notes.md", 6, "$B/build-lm --quiet --output out/notes.bin notes.md", 2,
         r"build-lm: warning: notes\.md: not a \.java file"),
    Case("build-lm notes.md and a Java file", 6, "$B/build-lm --quiet --order 3 --output out/n2.bin notes.md Slip.java",
         1, r"build-lm: warning: notes\.md: not a \.java file"),
    Case("rank: a file skipped", 6, "$B/rank latin1/L.java Slip.java", 1,
         r"rank: warning: .*latin1/L\.java: not UTF-8"),
    Case("rank: an empty folder", 6, "$B/rank empty", 1,
         r"rank: warning: empty: no (\.java|source) file in the folder"),
    Case("rank: a missing path", 6, "$B/rank missing.java Slip.java", 1, r"rank: warning: missing\.java: no such file"),
    Case("make-tasks --clean -1", 6, "$B/make-tasks --clean -1 --output out/t REPO", 2,
         r"make-tasks: error: argument --clean"),
    # 7. line endings
    Case("CRLF: the slip first", 7, "$B/rank --explain --top 1 crlf/Slip.java", 0, "", re.escape(SLIP_AT)),
    Case("lone CR: the slip first, on its line", 7, "$B/rank --explain --top 1 cr/Slip.java", 0, "",
         re.escape(SLIP_AT)),
    Case("BOM: the column as editors count", 7, "$B/rank --explain --top 1 bom/Slip.java", 0,
         r"rank: warning: .*bom/Slip\.java: starts with a UTF-8 BOM", r"bom/Slip\.java:1:9: '␣⇥' -> '␣'"),
    # 8. symbolic link loops
    Case("build-lm: a link loop", 8, "$B/build-lm --quiet --order 3 --output out/loop.bin loop", 1,
         r"build-lm: warning: loop/sub/back: symbolic link loop \(back to .*loop\); skipped$"),
    Case("make-tasks: a link loop", 8, "$B/make-tasks --quiet --count 5 --output out/loop-tasks loop", 1,
         r"make-tasks: warning: loop/sub/back: symbolic link loop", r""),
    # 9. paths with spaces
    Case("rank 'my tasks' | evaluate -d 'my tasks'", 9,
         "$B/rank 'my tasks' | $B/evaluate codrep2019 -d 'my tasks'", 0, "", r"MRR"),
]


# ------------------------------------------------------------------------------------------------ fixtures

def make_fixtures(root: Path) -> None:
    """Every input the cases name, written into `root` (a few seconds: two tiny models, one task folder)."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "out").mkdir()
    (root / "Slip.java").write_text(SLIP)
    java = root / "REPO" / "src" / "main" / "java" / "a"
    java.mkdir(parents=True)
    (root / "REPO" / "NOTES.txt").write_text("notes\n")
    (java / "A.java").write_text(SLIP.replace("class Slip", "class A"))
    (root / "almost").mkdir()
    for n in range(3):
        (root / "almost" / f"{n}.txt").write_text(SLIP)
    (root / "almost" / "out.txt").write_text("3\n")
    (root / "big-symbol.txt").write_text("+ 0 999999999\n- 1\n")
    (root / "big-header.txt").write_text("2 999999999\n1 1 0\n0 1 1\n")
    (root / "huge.dfa").write_text("dfa 1000000000 1000\nstart 0\n")
    (root / "ok.txt").write_text("+ 0 1\n- 1\n+ 0 0 1\n- 1 1\n")
    rng = random.Random(0)
    (root / "many-strings.txt").write_text("".join(
        "? " + " ".join(rng.choice("01") for _ in range(8)) + "\n" for _ in range(200_000)))
    (root / "huge").mkdir()
    with open(root / "huge" / "Big.java", "wb") as f:   # sparse: 12 MB on paper
        f.truncate(12_000_000)
    (root / "huge" / "Small.java").write_text(SLIP)
    (root / "many").mkdir()
    for n in range(1500):
        (root / "many" / f"F{n}.java").write_text(SLIP.replace("class Slip", f"class F{n}") * 4)
    models = root / "models"
    models.mkdir()
    (models / "text.bin").write_text("this is not a model\n")
    (models / "truncated.bin").write_bytes(DEFAULT_MODEL.read_bytes()[:1000])
    (models / "folder.bin").mkdir()
    for name, signature in (("list", "[1,2]"), ("garbled", "{not json")):
        os.symlink(DEFAULT_MODEL, models / f"{name}.bin")
        (models / f"{name}.bin.json").write_text(signature + "\n")
    (models / "words.arpa").write_text(ARPA)
    (root / "notes.md").write_text("# Notes\n\nNot Java.\n")
    (root / "latin1").mkdir()
    (root / "latin1" / "L.java").write_bytes("class L { String s = \"é\"; }\n".encode("latin-1"))
    (root / "empty").mkdir()
    (root / "binary.bin").write_bytes(bytes(range(256)) * 8)
    (root / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    for folder, text in (("crlf", SLIP.replace("\n", "\r\n")), ("cr", SLIP.replace("\n", "\r")),
                         ("bom", "\ufeff" + SLIP.replace("package demo;", "package \tdemo;").replace("1 ;", "1;"))):
        (root / folder).mkdir()
        (root / folder / "Slip.java").write_bytes(text.encode("utf-8"))
    for folder in ("five", "loop"):
        (root / folder / "sub").mkdir(parents=True)
        for n in range(5):
            (root / folder / f"S{n}.java").write_text(SLIP.replace("class Slip", f"class S{n}").replace(
                "counts", f"counts{n}"))
    os.symlink("..", root / "loop" / "sub" / "back")
    # a tiny text-scheme model copied without its signature, the stamina model, a task folder with a space
    env = {**os.environ, "B": str(BIN)}
    run = dict(cwd=root, env=env, capture_output=True, text=True, timeout=300, check=True)
    subprocess.run([str(BIN / "build-lm"), "--quiet", "--order", "3", "--scheme", "text", "--output",
                    "models/text-scheme.bin", "five"], **run)
    shutil.copy(models / "text-scheme.bin", models / "nosig-text.bin")
    subprocess.run([str(BIN / "stamina"), "learn", "ok.txt", "-o", "ok.model", "--vote", "1"], **run)
    subprocess.run([str(BIN / "make-tasks"), "--quiet", "--count", "5", "--output", "my tasks", "five"], **run)
    preds = subprocess.run([str(BIN / "rank"), "my tasks"], **run).stdout
    (root / "preds.txt").write_text(preds)


ARPA = """\\data\\
ngram 1=4
ngram 2=1

\\1-grams:
-1.0\t<unk>\t0
-99\t<s>\t0
-1.0\t</s>
-0.5\thello\t0

\\2-grams:
-0.2\thello </s>

\\end\\
"""


# ------------------------------------------------------------------------------------------------ running

@dataclass(frozen=True)
class Outcome:
    case: Case
    code: int | None
    first: str          # the first stderr line, a signature line aside
    passed: bool
    why: str            # what failed ('' when it passed)
    seconds: float


def _message_lines(stderr: str) -> list[str]:
    """stderr without signature lines (`rank|order:...`, `signature: ...`), argparse's usage lines (before
    its error line) and progress bars."""
    out = []
    for line in stderr.splitlines():
        line = line.split("\r")[-1]
        if line.startswith(("usage: ", " ")):
            continue
        line = line.strip()
        if not line or re.match(r"^[\w-]+\|", line) or line.startswith(("signature: ", "built in ")):
            continue
        out.append(line)
    return out


def run_case(case: Case, root: Path) -> Outcome:
    env = {**os.environ, "B": str(BIN), "ROOT": str(ROOT), "MODEL": str(DEFAULT_MODEL)}
    t0 = time.time()
    proc = subprocess.Popen(["bash", "-c", case.command], cwd=root, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    why = []
    try:
        if case.interrupt is not None:
            try:
                proc.wait(case.interrupt)
                why.append("ended before the interrupt")
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):   # what Ctrl-C does: the terminal's foreground group
                    os.killpg(proc.pid, signal.SIGINT)
                t_int = time.time()
                try:
                    proc.wait(2.0)
                except subprocess.TimeoutExpired:
                    why.append("still running 2 s after Ctrl-C")
                if time.time() - t_int > 2.0:
                    why.append(f"took {time.time() - t_int:.1f} s to stop")
        stdout, stderr = proc.communicate(timeout=case.timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        stdout, stderr = proc.communicate()
        why.append(f"timed out after {case.timeout:.0f} s")
    seconds = time.time() - t0
    lines = _message_lines(stderr)
    first = lines[0] if lines else ""
    if proc.returncode != case.exit:
        why.append(f"exit {proc.returncode}, expected {case.exit}")
    if "Traceback" in stderr:
        why.append("a traceback")
    errors = [line for line in lines if re.match(r"^[\w-]+: error: ", line)]
    if len(errors) > case.errors:
        why.append(f"{len(errors)} error lines")
    if case.line and not re.search(case.line, first):
        why.append(f"first line does not match {case.line!r}")
    if not case.line and case.exit == 0 and any(": error: " in line for line in lines):
        why.append("an error line")
    if case.stdout and not re.search(case.stdout, stdout, re.MULTILINE):
        why.append(f"stdout does not match {case.stdout!r}")
    return Outcome(case, proc.returncode, first, not why, "; ".join(why), seconds)


# ------------------------------------------------------------------------------------ slow: memory, Ctrl-C

def peak_rss(argv: list[str], cwd: Path) -> tuple[int, float, int]:
    """(peak resident memory in bytes, seconds, exit status) of a command, from /usr/bin/time -v."""
    t0 = time.time()
    proc = subprocess.run(["/usr/bin/time", "-v", *argv], cwd=cwd, capture_output=True, text=True)
    match = re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr)
    return (int(match.group(1)) * 1024 if match else -1), time.time() - t0, proc.returncode


def big_java(path: Path, size: int) -> int:
    """A Java file of about `size` bytes: one class whose body repeats JDK-like members (comments included)."""
    body = SLIP[SLIP.index("{") + 1:SLIP.rindex("}")]
    parts, n, total = ["package demo;\n\npublic class Big {\n"], 0, 0
    while total < size:
        member = body.replace("counts", f"counts{n}")
        parts.append(member)
        total += len(member)
        n += 1
    parts.append("}\n")
    path.write_text("".join(parts))
    return path.stat().st_size


def memory_rows(root: Path) -> list[str]:
    rows = []
    big = root / "big5mb" / "Big.java"
    big.parent.mkdir(exist_ok=True)
    size = big_java(big, 5_000_000)
    rss, seconds, code = peak_rss([str(BIN / "rank"), str(big)], root)
    rows.append(f"| bin/rank on a {size / 1e6:.1f} MB file | {rss / 2**20:,.0f} MiB | {rss / size:.0f} | "
                f"{seconds:.1f} s | {code} | {'pass' if rss < 600 * 2**20 and code == 0 else 'FAIL'} (< 600 MB) |")
    folder = root / "adapt"   # a repository with one generated 5 MB file among small ones
    folder.mkdir(exist_ok=True)
    shutil.copy(big, folder / "Big.java")
    for n in range(50):
        (folder / f"F{n}.java").write_text(SLIP.replace("class Slip", f"class F{n}") * 20)
    total = sum(p.stat().st_size for p in folder.iterdir())
    rss, seconds, code = peak_rss([str(BIN / "rank"), "--adapt", "folder", "--workers", "2", str(folder)], root)
    rows.append(f"| bin/rank --adapt folder, the 5 MB file and 50 small ones ({total / 1e6:.1f} MB) | "
                f"{rss / 2**20:,.0f} MiB | {rss / size:.0f} | {seconds:.1f} s | {code} | "
                f"{'pass' if rss < 600 * 2**20 and code == 0 else 'FAIL'} (< 600 MB) |")
    return rows


def _group_processes(pgid: int) -> list[str]:
    """The processes still in process group `pgid` (pid and command)."""
    out = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            fields = (d / "stat").read_text().rsplit(")", 1)[1].split()
            if int(fields[2]) == pgid:
                out.append(f"{d.name} {(d / 'cmdline').read_bytes().replace(bytes(1), b' ').decode(errors='replace')}")
        except (OSError, IndexError, ValueError):
            continue
    return out


def _build(model: Path) -> subprocess.Popen:
    return subprocess.Popen([str(BIN / "build-lm"), "--quiet", "--order", "6", "--workers", "2", "--output",
                             str(model), str(ROOT / "corpora")], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)


def _running(pgid: int) -> tuple[list[str], int]:
    """(the programs running in process group `pgid` but Python, how many Python processes)."""
    procs = [line.split() for line in _group_processes(pgid)]
    names = sorted({Path(p[1]).name for p in procs if len(p) > 1} - {"env", "python"})
    return names, sum(1 for p in procs if "unnatural.run" in p)


# When each try sends Ctrl-C, in turn: at a random moment of a whole build, while lmplz runs alone (the
# tokenizing workers done), while build_binary runs
MOMENTS = ("random", "random", "lmplz alone", "build_binary")


def _wait_for(proc: subprocess.Popen, moment: str, after: float) -> bool:
    """Wait for `moment` of the build (see MOMENTS); False when the build ended first."""
    if moment == "random":
        try:
            proc.wait(after)
            return False
        except subprocess.TimeoutExpired:
            return True
    tokenizing = False   # lmplz alone: after the tokenizing workers (not before they start)
    while proc.poll() is None:
        names, pythons = _running(proc.pid)
        tokenizing = tokenizing or pythons > 1
        if (moment == "build_binary" and "build_binary" in names
                or moment == "lmplz alone" and tokenizing and names == ["lmplz"] and pythons == 1):
            return True
        time.sleep(0.02)
    return False


def too_late(code: int | None, seconds: float, left: list[str]) -> bool:
    """Whether Ctrl-C came after the work was done: a command ignores SIGINT once its main has returned
    (unnatural/run.py), so a build caught while exiting ends at once with 0 and its model in place."""
    return code == 0 and seconds < TOO_LATE and not left


TOO_LATE = 0.5   # seconds from Ctrl-C to a successful exit: any longer, and the build went on working


def interrupt_build(tries: int, root: Path, seed: int = 0) -> tuple[float, list[str]]:
    """Ctrl-C on `bin/build-lm corpora/` `tries` times (timed first as a whole, without Ctrl-C), at the
    MOMENTS in turn; (the whole build's seconds, a row per try). A build that ends before its moment is not
    a try (another is made)."""
    t0 = time.time()
    whole = _build(root / "whole.bin")
    whole.communicate()
    span = time.time() - t0
    if whole.returncode != 0:
        raise cli.CommandError(f"bin/build-lm corpora/ failed (exit {whole.returncode}) before any Ctrl-C")
    rng = random.Random(seed)
    rows = []
    attempts = 0
    while len(rows) < tries and attempts < 4 * tries:
        attempts += 1
        i = len(rows)
        out = root / f"interrupt-{attempts}"
        out.mkdir()
        model = out / "model.bin"
        moment = MOMENTS[i % len(MOMENTS)]
        after = rng.uniform(0.2, 0.9 * span)
        started = time.time()
        proc = _build(model)
        reached = _wait_for(proc, moment, after)
        names, workers = _running(proc.pid)
        try:
            if not reached:
                raise ProcessLookupError
            os.killpg(proc.pid, signal.SIGINT)
        except ProcessLookupError:   # the build ended first: not a try
            proc.communicate()
            shutil.rmtree(out, ignore_errors=True)
            continue
        after = time.time() - started
        t0 = time.time()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            pass
        seconds = time.time() - t0
        stdout, stderr = proc.communicate() if proc.returncode is not None else ("", "(still running)")
        time.sleep(0.2)   # an orphan would still be there
        left = _group_processes(proc.pid)
        for line in left:
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(line.split()[0]), signal.SIGKILL)
        if proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        if too_late(proc.returncode, seconds, left):   # the build ended first: not a try
            shutil.rmtree(out, ignore_errors=True)
            continue
        lines = [line for line in stderr.splitlines() if line.strip()]
        files = sorted(p.name for p in out.iterdir())
        ok = (proc.returncode == 130 and seconds <= 2.0 and lines == ["build-lm: interrupted"] and not left
              and not files and "Traceback" not in stderr)
        phase = " ".join(names) + (f", {workers} python" if workers else "")
        rows.append(f"| {i + 1} | {moment}: {after:.1f} s | {phase or '-'} | {proc.returncode} | {seconds:.2f} s | "
                    f"{lines[0] if lines else ''} | {len(lines)} | {len(left)} | {' '.join(files) or '-'} | "
                    f"{'pass' if ok else 'FAIL'} |")
        shutil.rmtree(out, ignore_errors=True)
    return span, rows


# ------------------------------------------------------------------------------------------------ command

def parser() -> cli.ArgumentParser:
    p = cli.parser(COMMAND, __doc__.strip().split("\n\n")[0])
    p.add_argument("--slow", action="store_true", help="also measure memory (5 MB file, --adapt folder)")
    p.add_argument("--interrupts", type=cli.non_negative_int, default=0, metavar="N",
                   help="Ctrl-C on bin/build-lm corpora/ N times (the target: 20 of 20 within 2 s)")
    p.add_argument("--only", metavar="TEXT", help="only the cases whose name holds TEXT")
    p.add_argument("--keep", type=Path, metavar="DIR", help="write the fixtures into DIR and keep them")
    return p


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


@cli.command(COMMAND)
def main(argv=None) -> int:
    args = parser().parse_args(argv)
    if not DEFAULT_MODEL.exists():
        raise cli.CommandError(f"no default model at {DEFAULT_MODEL}: run `make demo` (or bin/build-lm) first")
    root = args.keep or Path(tempfile.mkdtemp(prefix="unnatural-hostile-"))
    if args.keep and root.exists():
        raise cli.CommandError(f"{root}: exists; give a new folder to --keep")
    failed = 0
    try:
        make_fixtures(root)
        flags = (" --slow" if args.slow else "") + (f" --interrupts {args.interrupts}" if args.interrupts else "")
        print(f"# bin/hostile{flags}\n\nThe hostile inputs of docs/errors.md run as a user would (bench/hostile.py; "
              "docs/errors.md says what each status means), on the shared 2-core machine.\n")
        print("| # | case | exit | first stderr line | result |\n|---|---|---|---|---|")
        for case in CASES:
            if args.only and args.only not in case.name:
                continue
            o = run_case(case, root)
            failed += not o.passed
            print(f"| {case.item} | {_cell(case.name)} | {o.code} | {_cell(o.first[:110])} | "
                  f"{'pass' if o.passed else 'FAIL: ' + _cell(o.why)} |", flush=True)
        if args.slow:
            print("\n| memory | peak | bytes per byte of the largest file | time | exit | result "
                  "|\n|---|---|---|---|---|---|")
            for row in memory_rows(root):
                failed += "FAIL" in row
                print(row, flush=True)
        if args.interrupts:
            span, rows = interrupt_build(args.interrupts, root)
            print(f"\nA whole `bin/build-lm --order 6 --workers 2 corpora/` took {span:.1f} s; Ctrl-C at random "
                  "moments "
                  "of it:")
            print("\n| Ctrl-C on build-lm corpora/ | after | running then | exit | to stop | first line | lines "
                  "| processes left | files left | result |\n|---|---|---|---|---|---|---|---|---|---|")
            for row in rows:
                failed += "FAIL" in row
                print(row, flush=True)
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    print(f"\n{COMMAND}: {failed} failed", file=sys.stderr)
    print(f"\n{failed} failed")
    return cli.EXIT_FINDINGS if failed else cli.EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
