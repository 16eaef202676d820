"""The `unnatural` package as pip builds it (`pip install .`, `make wheel`): the command, the compiled modules
and the default model, with nothing but a C++ compiler and Python's headers (docs/install.md).

- The stage packages (check, lm, parsing, ...) keep their absolute imports, but generic top-level names in
  site-packages would clash with other projects': they are installed under `unnatural/repo/`, a folder laid
  out as this repository is, which the `unnatural` command puts on sys.path (unnatural/command.py).
- The native modules are compiled here as the Makefile compiles them (-ffp-contract=off: the scores are the
  same bits), for the compiler's default target instead of -march=native (a wheel runs on other machines):
  KenLM's query code from the `kenlm` source package, tree-sitter's C runtime from its source package, both at
  constraints.txt's versions, fetched from PyPI when `make setup` has not unpacked them into .tools/.
- The default model is shipped: .models/'s when this checkout built it, else the compressed copy in models/.
- An editable install (`make setup`'s `pip install -e`) is the research checkout: the packages stay top-level
  and the Makefile builds the compiled modules (with -march=native), as before.
"""
from __future__ import annotations

import hashlib
import lzma
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
from pathlib import Path

from setuptools import Extension, find_packages, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
STAGES = ["parsing", "formats", "lm", "ranker", "lines", "automata", "fim", "check", "evaluation", "bench"]
INSTALLED = "unnatural.repo"   # where the stages go in site-packages (unnatural/__init__.py's ROOT)
EDITABLE = "editable_wheel" in sys.argv   # setuptools' PEP 660 build runs this command
DEFAULT_MODEL = "default-kind-units-o6.bin"
MODEL_FILES = [DEFAULT_MODEL, DEFAULT_MODEL + ".ceilings", DEFAULT_MODEL + ".json"]
# The Makefile's CXX_FLAGS without -march=native.
CXX_FLAGS = ["-O3", "-ffp-contract=off", "-DNDEBUG", "-std=c++17", "-fPIC", "-fvisibility=hidden"]
KENLM_QUERY = ["bhiksha", "binary_format", "config", "lm_exception", "model", "quantize", "read_arpa",
               "search_hashed", "search_trie", "sizes", "trie", "trie_sort", "value_build", "virtual_interface",
               "vocab"]


def pinned(name: str) -> str:
    """A version from constraints.txt (the one home of every pinned version)."""
    text = (HERE / "constraints.txt").read_text()
    return re.search(rf"^{re.escape(name)}==(\S+)$", text, re.M).group(1)


def max_order() -> str:
    return re.search(r"^MAX_ORDER = (\d+)", (HERE / "lm" / "model.py").read_text(), re.M).group(1)


def log(message: str) -> None:
    print(f"unnatural build: {message}", file=sys.stderr, flush=True)


def run(argv: list[str]) -> None:
    try:
        subprocess.run(argv, check=True)
    except FileNotFoundError:
        sys.exit(f"unnatural build: error: {argv[0]} not found: the native modules need a C and C++ compiler "
                 "(e.g. apt-get install g++, dnf install gcc-c++), or set CC and CXX")


def sdist(name: str, version: str, cache: Path) -> Path:
    """A package's source archive from PyPI (pip download), kept in `cache`."""
    found = sorted(cache.glob(f"{name.replace('-', '_')}-{version}.tar.gz")) + sorted(
        cache.glob(f"{name}-{version}.tar.gz"))
    if found:
        return found[0]
    log(f"downloading the {name} {version} source package")
    try:
        run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:",
             "--no-build-isolation", "-d", str(cache), f"{name}=={version}"])
    except subprocess.CalledProcessError:
        sys.exit(f"unnatural build: error: could not download the {name} {version} source package (pip's message "
                 f"above); the build needs it from PyPI, or in {cache}")
    return sdist(name, version, cache)


def unpack(archive: Path, into: Path, member: str) -> Path:
    """`member` (a folder inside the archive's top folder) unpacked under `into`."""
    target = into / member
    if not target.is_dir():
        tmp = into / (member.replace("/", "_") + ".tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        with tarfile.open(archive) as tar:
            top = tar.getnames()[0].split("/")[0]
            members = [m for m in tar.getmembers() if m.name.startswith(f"{top}/{member}/")]
            for m in members:
                m.name = m.name[len(top) + 1:]
            safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}   # Python >= 3.10.12
            tar.extractall(tmp, members, **safe)
        target.parent.mkdir(parents=True, exist_ok=True)
        (tmp / member).rename(target)
        shutil.rmtree(tmp, ignore_errors=True)
    return target


class Natives:
    """Compiles the four modules; object files are kept in `work` by a key of their command line and source."""

    def __init__(self, work: Path):
        self.work = work
        self.cxx = os.environ.get("CXX", "g++")
        self.cc = os.environ.get("CC", "gcc")
        import pybind11
        self.includes = [f"-I{sysconfig.get_paths()['include']}", f"-I{pybind11.get_include()}"]

    def kenlm(self) -> Path:
        local = HERE / ".tools" / "kenlm-src"   # make setup's unpacked copy, the same version
        if (local / "lm" / "model.cc").exists():
            return local
        version = pinned("kenlm")
        archive = sdist("kenlm", version, self.work / "sdists")
        root = self.work / f"kenlm-{version}"
        for member in ("lm", "util"):
            unpack(archive, root, member)
        return root

    def tree_sitter(self) -> Path:
        local = HERE / ".tools" / "tree-sitter" / "lib"
        if (local / "src" / "lib.c").exists():
            return local
        version = pinned("tree-sitter")
        archive = sdist("tree-sitter", version, self.work / "sdists")
        return unpack(archive, self.work / f"tree-sitter-{version}", "tree_sitter/core/lib")

    def compile(self, compiler: str, flags: list[str], source: Path, version: str) -> Path:
        """`source` compiled (or the object kept from a build with the same command, source and package version:
        the version stands for the headers)."""
        command = [compiler, *flags, "-c", str(source)]
        key = hashlib.sha256("\0".join([version, *command]).encode() + source.read_bytes()).hexdigest()[:16]
        out = self.work / "objects" / f"{source.stem}-{key}.o"
        if not out.exists():
            out.parent.mkdir(parents=True, exist_ok=True)
            run([*command, "-o", f"{out}.tmp"])
            os.replace(f"{out}.tmp", out)
        return out

    def link(self, flags: list[str], sources: list[Path], objects: list[Path], libs: list[str], output: Path):
        output.parent.mkdir(parents=True, exist_ok=True)
        run([self.cxx, *CXX_FLAGS, "-shared", *flags, *self.includes, *map(str, sources), *map(str, objects),
             *libs, "-o", str(output)])

    def build(self, module: str, output: Path) -> None:
        log(f"compiling {module}/native.cpp")
        source = HERE / module / "native.cpp"
        if module == "lm":
            kenlm, order = self.kenlm(), f"-DKENLM_MAX_ORDER={max_order()}"
            query = [self.compile(self.cxx, [*CXX_FLAGS, "-flto", "-w", order, f"-I{kenlm}"],
                                  kenlm / "lm" / f"{name}.cc", pinned("kenlm")) for name in KENLM_QUERY]
            # KenLM's util library, as its own Python package compiles it: without Boost, and without the
            # compression libraries (a binary model is mapped, never decompressed)
            util = [p for p in sorted((kenlm / "util").glob("*.cc")) + sorted((kenlm / "util" / "double-conversion")
                    .glob("*.cc")) if not p.name.endswith(("main.cc", "test.cc"))]
            util = [self.compile(self.cxx, [*CXX_FLAGS, "-w", order, f"-I{kenlm}"], p, pinned("kenlm")) for p in util]
            self.link(["-flto=auto", order, f"-I{kenlm}"], [source], query + util, ["-lrt", "-pthread"], output)
        elif module == "parsing":
            lib = self.tree_sitter()
            runtime = self.compile(self.cc, ["-O3", "-DNDEBUG", "-fPIC", f"-I{lib}/include", f"-I{lib}/src"],
                                   lib / "src" / "lib.c", pinned("tree-sitter"))
            self.link([f"-I{lib}/include"], [source], [runtime], [], output)
        else:
            self.link([], [source], [], [], output)


class BuildNatives(build_ext):
    def build_extension(self, ext: Extension) -> None:
        module = ext.name.split(".")[-2]
        work = HERE / ".cache" / "native-build"   # ignored; kept between builds of this checkout
        Natives(work).build(module, Path(self.get_ext_fullpath(ext.name)))


class BuildWithModel(build_py):
    """The stages' files, and the default model into unnatural/repo/.models (unnatural.ROOT/.models)."""

    def run(self) -> None:
        super().run()
        if EDITABLE:
            return
        target = Path(self.build_lib, *INSTALLED.split("."), ".models")
        target.mkdir(parents=True, exist_ok=True)
        built, shipped = HERE / ".models", HERE / "models"
        for name in MODEL_FILES:
            if (built / name).is_file():
                shutil.copyfile(built / name, target / name)
            elif (shipped / f"{name}.xz").is_file():
                with lzma.open(shipped / f"{name}.xz") as f, open(target / name, "wb") as out:
                    shutil.copyfileobj(f, out)
            elif (shipped / name).is_file():
                shutil.copyfile(shipped / name, target / name)
            else:
                log(f"no {name} in .models/ or models/: the package has no default model")


def stage_packages() -> tuple[list[str], dict[str, str]]:
    if EDITABLE:
        return ["unnatural", *STAGES], {}
    packages, dirs = ["unnatural"], {"unnatural": "unnatural"}
    for stage in STAGES:
        for sub in [stage, *(f"{stage}.{p}" for p in find_packages(stage))]:
            packages.append(f"{INSTALLED}.{sub}")
            dirs[f"{INSTALLED}.{sub}"] = sub.replace(".", "/")
    return packages, dirs


packages, package_dir = stage_packages()
prefix = "" if EDITABLE else f"{INSTALLED}."
setup(
    packages=packages,
    package_dir=package_dir,
    package_data={f"{prefix}check": ["calibration.json"], f"{prefix}evaluation": ["checkstyle/*.xml"]},
    ext_modules=[] if EDITABLE else [Extension(f"{INSTALLED}.{m}._native", sources=[])
                                     for m in ("parsing", "lm", "ranker", "automata")],
    cmdclass={"build_ext": BuildNatives, "build_py": BuildWithModel},
)
