"""No test depends on wall-clock speed: no Hypothesis deadline, no timing assertion."""

import ast
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

TESTS = Path(__file__).parent
CLOCKS = ("perf_counter", "monotonic", "time")


@pytest.mark.parametrize("profile", ["default", "ci", "nightly", "rechain-ci"])
def test_no_profile_has_a_deadline_or_a_speed_health_check(profile: str) -> None:
    chosen = settings.get_profile(profile)
    assert chosen.deadline is None
    assert HealthCheck.too_slow in chosen.suppress_health_check


def _calls_a_clock(node: ast.AST, timed: set[str]) -> bool:
    """Whether ``node`` reads a clock, directly or through a name assigned from one."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and sub.id in timed:
            return True
        if (isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute)
                and sub.func.attr in CLOCKS and isinstance(sub.func.value, ast.Name)
                and sub.func.value.id == "time"):
            return True
    return False


def _timed_names(tree: ast.AST) -> set[str]:
    """Names assigned from a clock reading (``started``, ``elapsed``, ``rate``...)."""
    names: set[str] = set()
    assignments = [node for node in ast.walk(tree) if isinstance(node, ast.Assign)]
    for _ in range(3):  # elapsed = now - started: follow a few steps
        for node in assignments:
            if _calls_a_clock(node.value, names):
                names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return names


def _settings_deadlines(tree: ast.AST) -> list[int]:
    """Lines where ``settings(...)`` is given a deadline other than None."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "settings":
            for keyword in node.keywords:
                if keyword.arg == "deadline" and not (
                        isinstance(keyword.value, ast.Constant) and keyword.value.value is None):
                    found.append(node.lineno)
    return found


@pytest.mark.parametrize("path", sorted(TESTS.glob("*.py")), ids=lambda p: p.name)
def test_no_test_asserts_on_elapsed_time(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    clocked = _timed_names(tree)
    timed = [node.lineno for node in ast.walk(tree)
             if isinstance(node, ast.Assert) and _calls_a_clock(node.test, clocked)]
    assert timed == [], f"{path.name}: timing assertions at lines {timed}"
    assert _settings_deadlines(tree) == [], f"{path.name}: a Hypothesis deadline"
