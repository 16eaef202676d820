"""check/config.py and bin/check's CI options: --exclude, the configuration file (.unnatural.toml or
[tool.unnatural]), --skip-bad-files and the exit statuses every command shares (docs/errors.md)."""
import shutil
import subprocess
from dataclasses import replace

import pytest
from conftest import ROOT, git_repo

from check.config import LEARN_METHODS, Config, ConfigError, excluded, load


@pytest.mark.parametrize("rel, globs, out", [
    ("src/A.java", [], False),
    ("src/A.java", ["*.java"], True),
    ("src/test/resources/bad/X.java", ["src/test/resources"], True),
    ("src/test/resources/bad/X.java", ["src/test/resources/**"], True),
    ("src/test/resources/bad/X.java", ["resources"], True),          # a folder's name, anywhere
    ("src/test/resources/bad/X.java", ["/src/test/"], True),
    ("src/main/A.java", ["src/test/resources"], False),
    ("gen/FooGenerated.java", ["*Generated.java"], True),
    ("gen/Foo.java", ["*Generated.java"], False),
    ("a/b/C.java", ["a/*/C.java"], True),
    ("a/b/C.java", ["b/C.java"], False),                             # with '/': from the root
    ("a/b/C.java", ["./a"], True),
])
def test_excluded(rel, globs, out):
    assert excluded(rel, globs) is out


@pytest.mark.parametrize("name, text, expected", [
    (".unnatural.toml", 'exclude = ["testdata"]\nsensitivity = "low"\nlearn = "file"\n',
     Config(("testdata",), "low", "file")),
    (".unnatural.toml", 'learn = "none"\n', Config(learn="file")),                  # the old name of file
    (".unnatural.toml", 'select = ["tab", "indent"]\nignore = "blank-lines"\n',
     Config(select=("tab", "indent"), ignore=("blank-lines",))),
    (".unnatural.toml", 'ignore = ["tab,indent", "tab"]\n', Config(ignore=("tab", "indent"))),
    (".unnatural.toml", '[per-file-ignores]\n"src/test/**" = ["indent"]\n"*Gen.java" = "tab"\n',
     Config(per_file_ignores=(("src/test/**", ("indent",)), ("*Gen.java", ("tab",))))),
    ("pyproject.toml", '[tool.unnatural]\nignore = ["tab"]\n[tool.unnatural.per-file-ignores]\n"gen" = ["indent"]\n',
     Config(ignore=("tab",), per_file_ignores=(("gen", ("indent",)),))),
    (".unnatural.toml", 'exclude = "gen/**"\n', Config(("gen/**",))),
    (".unnatural.toml", "", Config()),
    ("pyproject.toml", '[project]\nname = "x"\n[tool.unnatural]\nexclude = ["a"]\n', Config(("a",))),
    ("pyproject.toml", '[project]\nname = "x"\n', Config()),
])
def test_load(tmp_path, name, text, expected):
    (tmp_path / name).write_text(text)
    assert replace(load(tmp_path), source=None) == expected


def test_the_learn_methods_are_the_rankers():
    from ranker.learn import METHODS
    assert set(LEARN_METHODS) <= set(METHODS)


def test_the_toml_file_wins_over_pyproject(tmp_path):
    (tmp_path / ".unnatural.toml").write_text('sensitivity = "high"\n')
    (tmp_path / "pyproject.toml").write_text('[tool.unnatural]\nsensitivity = "low"\n')
    assert load(tmp_path).sensitivity == "high"


@pytest.mark.parametrize("text, says", [
    ('model = "/tmp/evil.bin"\n', "unknown key 'model'"),            # a pull request cannot name a model,
    ('cache = "/tmp"\n', "unknown key 'cache'"),                     # a cache,
    ('plugins = ["x.py"]\n', "unknown key 'plugins'"),               # or code
    ('output = "/etc/passwd"\n', "unknown key 'output'"),            # nor write anywhere
    ('sensitivity = "extreme"\n', "'sensitivity' must be one of low, medium, high"),
    ('learn = 3\n', "'learn' must be one of"),
    ('exclude = [1]\n', "'exclude' must be a glob or a list of globs"),
    ('exclude = [""]\n', "'exclude' must be a glob or a list of globs"),
    ('exclude = [\n', "not TOML"),
    ('learn = "none+project"\n', "'learn' must be one of file, folder, project, folder+project"),
    ('ignore = ["tabs"]\n', "'ignore': unknown rule 'tabs' (known: space-before, space-after, missing-space, "),
    ('select = "tab, spaces"\n', "'select': unknown rule 'spaces' (known: "),
    ('select = [3]\n', "'select' must be a rule or a list of rules"),
    ('ignore = [""]\n', "'ignore' must be a rule or a list of rules"),
    ('per-file-ignores = ["tab"]\n', "'per-file-ignores' must be a table of globs and rules"),
    ('[per-file-ignores]\n"src" = 1\n', "'per-file-ignores' 'src' must be a rule or a list of rules"),
    ('[per-file-ignores]\n"src" = ["tabs"]\n', "'per-file-ignores' 'src': unknown rule 'tabs'"),
    ('[per-file-ignores]\n"src" = { tab = true }\n', "'per-file-ignores' 'src' must be a rule or a list of rules"),
])
def test_a_bad_configuration_is_one_error_naming_the_key(tmp_path, text, says):
    (tmp_path / ".unnatural.toml").write_text(text)
    with pytest.raises(ConfigError) as e:
        load(tmp_path)
    assert str(e.value).startswith(str(tmp_path / ".unnatural.toml")) and says in str(e.value)
    assert "\n" not in str(e.value)


def test_pyproject_unknown_key(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.unnatural]\nmodel = "m.bin"\n')
    with pytest.raises(ConfigError, match=r"pyproject.toml \[tool.unnatural\]: unknown key 'model'"):
        load(tmp_path)


# ---- bin/check -------------------------------------------------------------------------------------------

CLEAN = "class A {\n    int x = 1;\n}\n"
BROKEN = "class B {\n    int x = 1 ;\n}\n"


def run(cmd, cwd, *args):
    return subprocess.run([str(ROOT / "bin" / cmd), *args], cwd=cwd, capture_output=True, text=True)


@pytest.fixture
def repo(tmp_path, tiny_model):
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    root = tmp_path / "repo"
    git = git_repo(root)
    (root / "src").mkdir()
    (root / "src" / "A.java").write_text(CLEAN)
    (root / "testdata").mkdir()
    (root / "testdata" / "B.java").write_text(BROKEN)
    (root / "src" / "Nul.java").write_bytes(b"class N {}\0\n")
    git("add", "-A")
    return root, ["--model", str(tiny_model), "--min-score", "2", "--workers", "1", "--quiet"]


def test_an_unreadable_file_is_a_warning_and_exit_1_in_every_command(repo):
    root, opts = repo
    check = run("check", root, *opts, "src")
    assert check.returncode == 1 and check.stdout == ""
    assert "check: warning: src/Nul.java: binary file (NUL byte at 10); skipped" in check.stderr
    rank = run("rank", root, "--model", opts[1], "src/Nul.java")
    assert rank.returncode == 1 and "Nul.java: binary file (NUL byte at 10); skipped" in rank.stderr
    # a CI gate on findings alone
    gate = run("check", root, *opts, "--skip-bad-files", "src")
    assert gate.returncode == 0 and "check: warning: src/Nul.java" in gate.stderr
    # a PATH that does not exist is a mistake of the command line, not a file to skip: exit 2 even so
    missing = run("check", root, *opts, "--skip-bad-files", "src", "nowhere")
    assert missing.returncode == 2 and "check: error: nowhere: no such file or folder" in missing.stderr


def test_findings_are_exit_1_with_skip_bad_files_too_and_exclude_removes_them(repo):
    root, opts = repo
    assert run("check", root, *opts, "--skip-bad-files", ".").returncode == 1
    excluded_ = run("check", root, *opts, "--skip-bad-files", "--exclude", "testdata", ".")
    assert excluded_.returncode == 0, excluded_.stderr
    # named files are excluded too (a pre-commit hook names them)
    assert run("check", root, *opts, "--exclude", "testdata/**", "testdata/B.java").returncode == 0
    assert run("check", root / "testdata", *opts, "--exclude", "testdata", "B.java").returncode == 0


def test_the_configuration_file_excludes_and_a_bad_one_is_exit_2(repo):
    root, opts = repo
    (root / ".unnatural.toml").write_text('exclude = ["testdata", "Nul.java"]\n')
    assert run("check", root, *opts, ".").returncode == 0
    assert run("check", root / "src", *opts, ".").returncode == 0   # found at the repository's root
    (root / ".unnatural.toml").write_text('exclude = ["testdata"]\nmodel = "/tmp/m.bin"\n')
    bad = run("check", root / "src", *opts, ".")
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr == f"check: error: {root / '.unnatural.toml'}: unknown key 'model' (known: exclude, ignore, " \
                         "learn, per-file-ignores, select, sensitivity)\n"


def test_the_configuration_sets_sensitivity_and_learn_and_options_win(repo):
    root, opts = repo
    (root / ".unnatural.toml").write_text('sensitivity = "low"\nlearn = "file"\n')
    model = opts[1]
    out = run("check", root, "--model", model, "--workers", "1", "src/A.java")
    assert "learn:file" in out.stderr and "report:sensitivity:low" in out.stderr
    for old in ("--no-learn", "--learn=none"):   # ranker/learn.py's name, whatever the option says
        assert "learn:file" in run("check", root, "--model", model, "--workers", "1", old, "src/A.java").stderr
    out = run("check", root, "--model", model, "--workers", "1", "--learn", "folder", "--sensitivity", "high",
              "src/A.java")
    assert "learn:folder" in out.stderr and "report:sensitivity:high" in out.stderr
