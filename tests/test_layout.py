"""The layering the README's Layout section describes: each library module imports only from its own package
and from the layers before it; commands (the modules `bin/` runs) may import any layer."""
import ast
import re
import subprocess
import sys

import pytest
from conftest import ROOT

LAYERS = [("unnatural",), ("parsing",), ("formats",), ("lm",), ("ranker", "lines", "automata", "fim"), ("check",),
          ("evaluation",),
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


def test_bin_checks_start_imports_no_numpy():
    """bin/check's start-up (its command, engine and breaks): numpy comes once a file is walked."""
    code = ("import sys, check.cli, check.engine, check.breaks; "
            "print(sorted(m for m in ('numpy', 'kenlm') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "[]"


def module_name(path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts)


def project_modules() -> dict[str, object]:
    return {module_name(path): path for _, _, path in modules()}


def imported_modules(path, known) -> set[str]:
    """The project's modules a module imports (absolute or relative, at the top or inside functions): for
    `from a.b import c`, the module a.b.c when it is one, else a.b."""
    name = module_name(path)
    package = name if path.stem == "__init__" else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                head = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(head + ([base] if base else []))
            targets = [f"{base}.{alias.name}" for alias in node.names]
            if any(target not in known for target in targets):   # a name from the module, not a submodule
                targets.append(base)
        else:
            continue
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                out.add(target)
    return out


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Each strongly connected component of more than one module (Tarjan's algorithm, iteratively)."""
    index, low, on_stack, stack, out = {}, {}, set(), [], []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        out.append(sorted(component))
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(graph.get(child, ())))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return out


@pytest.mark.parametrize("graph, expected", [
    ({"a": {"b"}, "b": set()}, []),
    ({"a": {"b"}, "b": {"a"}}, [["a", "b"]]),
    ({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}, [["a", "b", "c"]]),
    ({"a": {"b"}, "b": {"a"}, "c": {"d"}, "d": {"c"}}, [["a", "b"], ["c", "d"]]),
])
def test_cycles_finds_each_circle(graph, expected):
    assert sorted(cycles(graph)) == expected


def test_no_import_circle_among_the_projects_modules():
    known = project_modules()
    graph = {name: imported_modules(path, known) for name, path in known.items()}
    assert graph["parsing.schemes"], "the import graph is empty: the parser of imports is broken"
    assert cycles(graph) == []


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def private_imports(source: str, module: str, is_package: bool, submodule) -> list[str]:
    """Each `from x import _name` of `source` (module `module`) that takes a private name of another module of
    the project (`submodule(base, name)`: whether base.name is a module; a package's own private module, such
    as `from . import _native`, is the package's business and allowed)."""
    package = module if is_package else module.rpartition(".")[0]
    out = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.ImportFrom):
            continue
        base = node.module or ""
        if node.level:
            head = package.split(".")[: len(package.split(".")) - (node.level - 1)]
            base = ".".join(head + ([base] if base else []))
        if base.split(".")[0] not in LAYER or base == module:
            continue
        for alias in node.names:
            if _private(alias.name) and not (base == package and submodule(base, alias.name)):
                out.append(f"from {base} import {alias.name}")
    return out


def _is_submodule(base: str, name: str) -> bool:
    folder = ROOT / base.replace(".", "/")
    return (folder / name).is_dir() or any(folder.glob(f"{name}.*py")) or any(folder.glob(f"{name}.*.so"))


@pytest.mark.parametrize("source, module, is_package, expected", [
    ("from ranker.cache import _wide_keys", "check.repostyle", False, ["from ranker.cache import _wide_keys"]),
    ("from .symbols import GAP_MARK, _runs", "parsing.schemes", False, ["from parsing.symbols import _runs"]),
    ("def f():\n    from .paths import _top", "check.repostyle", False, ["from check.paths import _top"]),
    ("from ..cache import _Counts", "ranker.x.y", False, ["from ranker.cache import _Counts"]),
    ("from . import _native", "automata.merging", False, []),       # the package's own compiled module
    ("from ._native import StyleCache", "ranker.cache", False, []),  # a public name of it
    ("from lm import _native", "ranker.rank", False, ["from lm import _native"]),   # another package's
    ("from ranker.cache import REACHES, __all__", "check.repostyle", False, []),
    ("from _thread import _local", "unnatural.cli", False, []),     # not the project's
    ("from . import _x", "parsing", True, []),                      # a package's own
])
def test_private_imports_are_told_apart(source, module, is_package, expected):
    def submodule(base, name):
        return name == "_native" or (base, name) == ("parsing", "_x")
    assert private_imports(source, module, is_package, submodule) == expected


@pytest.mark.parametrize("package, module, path", list(modules()), ids=lambda x: x if isinstance(x, str) else "")
def test_no_module_imports_a_private_name_of_another(package, module, path):
    """A name starting with '_' is its module's own: another module that needs it needs it public."""
    assert private_imports(path.read_text(), module, path.stem == "__init__", _is_submodule) == []


@pytest.mark.parametrize("package", sorted(LAYER))
def test_every_package_opens_with_a_docstring(package):
    doc = ast.get_docstring(ast.parse((ROOT / package / "__init__.py").read_text()))
    assert doc and len(doc.split()) >= 4, f"{package}/__init__.py: no docstring saying what the package is"
