"""The layering the README's Layout section describes: each library module imports only from its own package
and from the layers before it; commands (the modules `bin/` runs) may import any layer."""
import ast
import re
import subprocess
import sys

import pytest

from conftest import ROOT

LAYERS = [("unnatural",), ("parsing",), ("formats",), ("lm",), ("ranker", "lines", "automata", "fim"), ("check",), ("evaluation",),
          ("bench",)]
LAYER = {package: level for level, packages in enumerate(LAYERS) for package in packages}


def commands() -> set[str]:
    """Modules run as commands: by a bin/ script, or with `python -m` by the Makefile and bench."""
    out = {"formats.lossless", "bench.floor"}
    for script in (ROOT / "bin").iterdir():
        if script.name.startswith("_"):
            continue
        m = re.search(r'_run" (\S+)', script.read_text(errors="replace"))
        if m:
            out.add(m.group(1))
    return out


def modules():
    for package in LAYER:
        for path in sorted((ROOT / package).glob("*.py")):
            yield package, f"{package}.{path.stem}" if path.stem != "__init__" else package, path


def imported(path) -> set[str]:
    """Top-level project packages a module imports, at the top or inside functions."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            out.add(node.module.split(".")[0])
    return out & set(LAYER)


def test_every_bin_command_is_a_module_of_a_layer():
    for module in commands():
        assert module.split(".")[0] in LAYER and (ROOT / (module.replace(".", "/") + ".py")).is_file(), module


@pytest.mark.parametrize("package, module, path", list(modules()), ids=lambda x: x if isinstance(x, str) else "")
def test_library_modules_import_only_down_the_layers(package, module, path):
    if module in commands():
        return
    up = sorted(p for p in imported(path) if p != package and LAYER[p] >= LAYER[package])
    assert not up, f"{module} imports {up}, not below layer {LAYER[package]} ({package})"


def test_the_cli_convention_imports_nothing_heavy():
    """bin/rank's start-up: the shared command module pulls in no numpy, kenlm or tree-sitter."""
    code = ("import sys, unnatural.cli, unnatural.signature; "
            "print(sorted(m for m in ('numpy', 'kenlm', 'tree_sitter', 'tqdm') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "[]"
