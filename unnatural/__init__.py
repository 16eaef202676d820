"""unnatural: the project's version and root folder, the bottom of its layering (imports nothing).

Layers, each importing only from the ones before it (tests/test_layout.py checks it):
unnatural -> parsing -> formats -> lm -> ranker, lines, automata, fim -> check -> evaluation -> bench;
commands (`*cli.py` modules, run by `bin/`) may import any layer.
"""
from pathlib import Path

__version__ = "0.2.0"   # the one place the version is written (pyproject.toml reads it)
_HERE = Path(__file__).resolve().parent
# the repository: default models, corpora and tools live here. Installed by pip, the stage packages and the default
# model are in this package's repo/ folder, laid out as the repository is (setup.py; unnatural/command.py)
ROOT = _HERE / "repo" if (_HERE / "repo").is_dir() else _HERE.parent
