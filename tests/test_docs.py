"""The README stays short and every link in it and in docs/ leads somewhere; the documentation reads as
reference: every docs page (docs/notes/ and docs/results/ included) is at most 12 KB, docs/README.md maps them
all, no heading or table row names a work session, no tracked file speaks of the project's own making (a
numbered session or issue means nothing to a reader outside), and what was tried and not kept is recorded in
docs/notes/ only, each note linked from a reference page."""
import re
import subprocess

import pytest
from conftest import ROOT

DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]
PAGE_LIMIT = 12 * 1024
# The two folders that are not reference: the notebook of what was tried and not kept, and the commands' tables.
NOTES, RESULTS = DOCS / "notes", DOCS / "results"
# A record of an experiment not kept: a heading that says so, or a paragraph or list item that opens with "Tried".
RECORD_HEADING = re.compile(r"^#{1,6}\s.*\b(rejected|not kept|tried)\b", re.IGNORECASE)
RECORD_OPENER = re.compile(r"^(?:[-*]\s+)?(?:\*\*)?Tried\b")
# Built from pieces, so that this file does not hold the words it forbids.
SESSION = "sess" + "ion"
ISSUE = "iss" + "ue"
MAKING = re.compile(rf"\b{SESSION}s? [0-9]|\b{ISSUE}s? [0-9]+", re.IGNORECASE)
NAMES_A_SESSION = re.compile(rf"\b{SESSION}", re.IGNORECASE)


def pages() -> list:
    return sorted(DOCS.rglob("*.md"))


def name(page) -> str:
    return page.relative_to(DOCS).as_posix()


def reference_pages() -> list:
    return [p for p in pages() if NOTES not in p.parents and RESULTS not in p.parents]


def records(text: str) -> list[str]:
    """The lines of `text` outside fenced code that open a record of what was tried and not kept."""
    found, fenced, previous = [], False, ""
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced and (RECORD_HEADING.match(line)
                             or RECORD_OPENER.match(line.lstrip())
                             and (not previous.strip() or line.lstrip()[:1] in "-*")):
            found.append(line)
        previous = line
    return found


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


@pytest.mark.parametrize("page", pages(), ids=name)
def test_a_page_is_at_most_12_kb(page):
    assert page.stat().st_size <= PAGE_LIMIT, f"{name(page)}: {page.stat().st_size} bytes; split it by topic"


@pytest.mark.parametrize("page", pages(), ids=name)
def test_no_heading_or_table_row_names_a_session(page):
    bad = [line for line in page.read_text(encoding="utf-8").splitlines()
           if line.lstrip().startswith(("#", "|")) and NAMES_A_SESSION.search(line)]
    assert not bad, f"{name(page)}: " + "; ".join(bad)


def test_the_map_lists_every_page_and_only_pages_that_exist():
    text = (DOCS / "README.md").read_text(encoding="utf-8")
    linked = set(re.findall(r"\]\(([^)#\s]+)", text))
    local = {link for link in linked if "://" not in link}
    missing = sorted(link for link in local if not (DOCS / link).exists())
    assert not missing, f"docs/README.md links to missing pages: {missing}"
    unmapped = sorted(name(p) for p in pages() if name(p) != "README.md" and name(p) not in local)
    assert not unmapped, f"docs/README.md does not map: {unmapped}"


@pytest.mark.parametrize("text, found", [
    ("## Rejected\n\n- **A curve of 16 knots**: ...", 1),
    ("## Tried and not kept\n", 1),
    ("### Tried against it, and not kept", 1),
    ("Some text.\n\nTried on the same data and not kept (figures from one run):\n", 1),
    ("- Tried with the combiner: 0.9036\n", 1),
    ("## The vote's threshold\n\nEach candidate is tried at the indentations of the lines", 0),
    ("A sentence that wraps, and the next line\nTried is only its continuation\n", 0),
    ("- **Rejected positives fall off at merged states**, not at missing edges.", 0),
    ("```\n# tried in a shell comment\nTried\n```\n", 0),
    ("what was tried and not kept: [notes/speed.md](notes/speed.md)", 0),
])
def test_the_record_pattern(text, found):
    assert len(records(text)) == found


@pytest.mark.parametrize("page", reference_pages(), ids=name)
def test_no_reference_page_holds_a_record_of_what_was_not_kept(page):
    found = records(page.read_text(encoding="utf-8"))
    assert not found, f"{name(page)}: move it to docs/notes/ and link it: " + "; ".join(found)


@pytest.mark.parametrize("note", sorted(NOTES.glob("*.md")), ids=name)
def test_every_note_is_linked_from_a_reference_page(note):
    index = DOCS / "README.md"   # it maps every page; a note needs a page that explains what it was tried against
    linking = [name(p) for p in reference_pages() if p != index and any(
        (p.parent / target).resolve() == note.resolve()
        for target in re.findall(r"\]\(([^)#\s]+)", p.read_text(encoding="utf-8")))]
    assert linking, f"{name(note)}: no reference page links it (the design page it explains should)"


def test_readme_is_read_in_five_minutes():
    assert (ROOT / "README.md").stat().st_size <= 10 * 1024


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_relative_links_lead_to_files(page):
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text()):
        if "://" not in target:
            assert (page.parent / target).exists(), f"{page.name} links to missing {target}"
