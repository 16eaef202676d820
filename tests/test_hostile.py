"""The hostile inputs of docs/errors.md, case by case (bench/hostile.py's table, as `bin/hostile` runs it):
every bin/ command on inputs a real repository or a careless user produces gives the documented exit status,
no traceback, one clear line naming the file, and the expected output. Each case ran against the code before its fix
and failed there (see the commit that added this table)."""
import pytest

from bench.hostile import CASES, DEFAULT_MODEL, make_fixtures, run_case, too_late

needs_model = pytest.mark.skipif(not DEFAULT_MODEL.exists(), reason="no default model (make demo builds it)")


@pytest.fixture(scope="module")
def fixtures(tmp_path_factory):
    root = tmp_path_factory.mktemp("hostile")
    make_fixtures(root)
    return root


@needs_model
@pytest.mark.parametrize("case", CASES, ids=[f"{c.item}-{c.name}" for c in CASES])
def test_hostile_case(case, fixtures):
    outcome = run_case(case, fixtures)
    assert outcome.passed, f"{case.command}: {outcome.why} (first line: {outcome.first!r})"


@pytest.mark.parametrize("code, seconds, left, late", [
    (0, 0.03, [], True),              # caught while exiting: its model was already in place
    (0, 4.0, [], False),              # went on building after Ctrl-C: a failure, not a late signal
    (130, 0.1, [], False),            # interrupted: a try
    (0, 0.03, ["123 lmplz"], False),  # a process left behind is never late
])
def test_a_ctrl_c_after_the_work_is_not_a_try(code, seconds, left, late):
    assert too_late(code, seconds, left) == late
