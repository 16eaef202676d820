"""A Java repository written by a test: `count` small classes in one consistent style (four spaces, K&R braces),
for the tests that run the installed package and the pre-commit hook as users would."""
from __future__ import annotations

import random
from pathlib import Path

NOUNS = ["Order", "Account", "Item", "Ledger", "Route", "Event", "Token", "Cache", "Report", "Queue"]
FIELDS = ["count", "total", "limit", "offset", "size", "weight", "score", "index"]
# the line that a test turns into a slip: a tab before ';', which bin/check reports in a whole-repository run
# (`unexpected tab before ';'`)
CLEAN_LINE = "        return n;\n"
SLIP_LINE = "        return n\t;\n"


# Files in one style (the JDK's, 4 spaces), beside which an example's slip stands alone.
CONSISTENT = {
    "Counter.java": "package example;\n\npublic class Counter {\n\n    private int total;\n\n"
                    "    public void add(int value) {\n        total += value;\n    }\n\n"
                    "    public int total() {\n        return total;\n    }\n}\n",
    "Range.java": "package example;\n\npublic class Range {\n\n    private final int low;\n"
                  "    private final int high;\n\n    public Range(int low, int high) {\n        this.low = low;\n"
                  "        this.high = high;\n    }\n\n    public boolean contains(int x) {\n"
                  "        return x >= low && x <= high;\n    }\n}\n",
    "Names.java": "package example;\n\nimport java.util.ArrayList;\nimport java.util.List;\n\n"
                  "public class Names {\n\n    private final List<String> names = new ArrayList<>();\n\n"
                  "    public void add(String name) {\n        if (name != null && !name.isEmpty()) {\n"
                  "            names.add(name);\n        }\n    }\n\n    public int size() {\n"
                  "        return names.size();\n    }\n}\n",
}


def java_class(i: int) -> str:
    r = random.Random(i)
    name = f"{NOUNS[i % len(NOUNS)]}{i}"
    fields = r.sample(FIELDS, 3)
    lines = [f"package demo.p{i % 7};", "", "import java.util.ArrayList;", "import java.util.List;", "",
             f"public class {name} {{", "    private final List<String> names = new ArrayList<>();"]
    lines += [f"    private int {f};" for f in fields]
    lines += ["", f"    public {name}(int {fields[0]}) {{", f"        this.{fields[0]} = {fields[0]};", "    }", ""]
    for f in fields:
        cap = f[0].upper() + f[1:]
        lines += [f"    public int get{cap}() {{", f"        return {f};", "    }", "",
                  f"    public void set{cap}(int value) {{", "        if (value < 0) {",
                  f'            throw new IllegalArgumentException("{f}");', "        }",
                  f"        this.{f} = value;", "    }", ""]
    lines += ["    public int countNonEmpty() {", "        int n = 0;", "        for (String name : names) {",
              "            if (!name.isEmpty()) {", "                n++;", "            }", "        }",
              CLEAN_LINE.rstrip("\n"), "    }", "}", ""]
    return "\n".join(lines)


def write_repository(root: Path, count: int = 200) -> list[Path]:
    """`count` Java files under root/src, in 7 packages; their paths."""
    paths = []
    for i in range(count):
        path = root / "src" / f"p{i % 7}" / f"F{i}.java"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(java_class(i))
        paths.append(path)
    return paths


def slip(path: Path) -> None:
    """The one-line slip: a tab inserted before a ';'."""
    text = path.read_text()
    assert CLEAN_LINE in text
    path.write_text(text.replace(CLEAN_LINE, SLIP_LINE, 1))
