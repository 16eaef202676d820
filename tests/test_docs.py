"""The README stays short and every link in it and in docs/ leads somewhere; the documentation reads as
reference: every docs page is at most 12 KB, docs/README.md maps them all, no heading or table row names a
work session, and no tracked file speaks of the project's own making (a numbered session or issue means
nothing to a reader outside)."""
import re
import subprocess

import pytest

from conftest import ROOT

DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]
PAGE_LIMIT = 12 * 1024
# Built from pieces, so that this file does not hold the words it forbids.
SESSION = "sess" + "ion"
ISSUE = "iss" + "ue"
MAKING = re.compile(rf"\b{SESSION}s? [0-9]|\b{ISSUE}s? [0-9]+", re.IGNORECASE)
NAMES_A_SESSION = re.compile(rf"\b{SESSION}", re.IGNORECASE)


def pages() -> list:
    return sorted(DOCS.glob("*.md"))


def tracked_files() -> list[str]:
    out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    return [name for name in out.decode().split("\0") if name and not name.endswith(".png")]


@pytest.mark.parametrize("text, hit", [
    (f"as measured in {SESSION} 10", True),
    (f"{ISSUE.capitalize()} 19's list", True),
    (f"{ISSUE}s 5 and 21", True),
    (f"the file's {SESSION}: its scored stream", False),
    (f"an {ISSUE} with the tokenizer", False),
])
def test_the_pattern(text, hit):
    assert bool(MAKING.search(text)) is hit


def test_no_tracked_file_speaks_of_its_making():
    if not (ROOT / ".git").exists():
        pytest.skip("not a git work tree")
    found = []
    for name in tracked_files():
        path = ROOT / name
        if not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        found += [f"{name}:{number}: {line.strip()[:100]}" for number, line in enumerate(text.splitlines(), 1)
                  if MAKING.search(line)]
    assert not found, "say what is meant (a command, a version, a page), not when:\n" + "\n".join(found)


@pytest.mark.parametrize("page", pages(), ids=lambda p: p.name)
def test_a_page_is_at_most_12_kb(page):
    assert page.stat().st_size <= PAGE_LIMIT, f"{page.name}: {page.stat().st_size} bytes; split it by topic"


@pytest.mark.parametrize("page", pages(), ids=lambda p: p.name)
def test_no_heading_or_table_row_names_a_session(page):
    bad = [line for line in page.read_text(encoding="utf-8").splitlines()
           if line.lstrip().startswith(("#", "|")) and NAMES_A_SESSION.search(line)]
    assert not bad, f"{page.name}: " + "; ".join(bad)


def test_the_map_lists_every_page_and_only_pages_that_exist():
    text = (DOCS / "README.md").read_text(encoding="utf-8")
    linked = set(re.findall(r"\]\(([^)#\s]+)", text))
    local = {link for link in linked if "://" not in link}
    missing = sorted(link for link in local if not (DOCS / link).exists())
    assert not missing, f"docs/README.md links to missing pages: {missing}"
    unmapped = sorted(p.name for p in pages() if p.name != "README.md" and p.name not in local)
    assert not unmapped, f"docs/README.md does not map: {unmapped}"


def test_readme_is_read_in_five_minutes():
    assert (ROOT / "README.md").stat().st_size <= 10 * 1024


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_relative_links_lead_to_files(page):
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text()):
        if "://" not in target:
            assert (page.parent / target).exists(), f"{page.name} links to missing {target}"
