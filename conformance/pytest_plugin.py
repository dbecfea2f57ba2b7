"""pytest plugin: the conformance cases as test items inside a reader's own test suite.

    pytest --rechain-impl="python:myreader:read"          # or harness:…, cmd:…, agent-sdk-py
    pytest --rechain-impl=… --junitxml=conformance.xml    # JUnit XML comes from pytest

Inert unless ``--rechain-impl`` is given. Each corpus case (per option set)
becomes one item named ``rechain::<case id>``, so ``-k``, ``-x``, ``--lf`` and
JUnit XML work as for any test. Known divergences in the skip list (the shipped
one with an ``adapter:NAME``'s own, or yours with ``--rechain-skips FILE``) are
reported as skips; a listed case
that passes fails (strict). A failure shows
the first difference and the command that replays it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

_CONNECTIONS = pytest.StashKey[Any]()
_TALLY = pytest.StashKey[dict[str, int]]()  # rechain items run, and those compared
_COLLECTED = pytest.StashKey[int]()


# the limits' defaults, the same as rechain check's (a replay names only those that differ)
TIMEOUT_S = 30.0
MEMORY_MB = 2048


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("rechain", "rechain conformance cases")
    group.addoption("--rechain-impl", metavar="SPEC", default=None,
                    help="run the rechain corpus against this reader (see `rechain check`)")
    group.addoption("--rechain-against", metavar="SPEC", default=None,
                    help="compare with this reader instead of the recorded expectations")
    group.addoption("--rechain-profile", default="sdk", help="expectation profile (default sdk)")
    group.addoption("--rechain-corpus", metavar="DIR", default=None,
                    help="case directory (default: the corpus shipped with rechain)")
    group.addoption("--rechain-case", action="append", default=[], metavar="GLOB",
                    help="only cases whose id matches (repeatable)")
    group.addoption("--rechain-skips", metavar="FILE", default=None,
                    help="your known failures (a strict skip list, as rechain check --skips)")
    group.addoption("--rechain-timeout", type=float, default=TIMEOUT_S, metavar="S",
                    help=f"per-case time limit (default {TIMEOUT_S:g})")
    group.addoption("--rechain-memory-mb", type=int, default=MEMORY_MB, metavar="MB",
                    help=f"memory limit of each reader process (default {MEMORY_MB})")
    group.addoption("--rechain-venv", metavar="DIR", default=None,
                    help="run python:MOD:FN readers with this venv's interpreter")


class CaseFailedError(Exception):
    """A case whose answer differs; carries the report line for the failure text."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text


class CaseItem(pytest.Item):
    """One corpus case (one option set) run through the reader under test."""

    def __init__(self, *, case: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.case = case
        self.add_marker(pytest.mark.rechain)
        for tag in case.source.tags if case.source is not None else ():
            self.add_marker(getattr(pytest.mark, tag.replace("-", "_")))

    def runtest(self) -> None:
        from rechain.conformance.annotate import annotations
        from rechain.conformance.report import case_line
        from rechain.conformance.report_text import describe_case, explained

        connections, skip_list = self.config.stash[_CONNECTIONS]
        records = connections.check(0, self.case, skip_list)
        skipped = [r for r in records if r.status == "skip"]
        bad = [r for r in records if r.status in ("fail", "crash", "timeout")]
        tally = self.config.stash.setdefault(_TALLY, {"ran": 0, "compared": 0})
        tally["ran"] += 1
        if len(skipped) == len(records):
            pytest.skip(skipped[0].verdict.message if skipped else "nothing to compare with")
        tally["compared"] += 1
        if bad:
            profile = str(self.config.getoption("rechain_profile"))
            shown = [case_line(r, **extra) for r, extra in
                     zip(bad, annotations(self.case, bad, profile), strict=True)]
            lines = [text for line in shown
                     for text in [describe_case(line), *explained(line)[1:]]]
            alone = _alone(self.config, self.case)
            lines.append(f"replay: {_replay(self.config, self.case.case.id, alone)}")
            raise CaseFailedError("\n".join(lines))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, CaseFailedError):
            return excinfo.value.text
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"rechain case {self.name}"


class Suite(pytest.Collector):
    """The parent of every case item, so node ids read ``rechain::<case id>``."""

    def collect(self) -> list[pytest.Item]:
        return list(_items(self))


def _alone(config: pytest.Config, item: Any) -> bool:
    """Whether ``item`` is the default option set of a case that has several (its id is
    the case's, which ``--case`` takes for all of them)."""
    from rechain.conformance.impls import recorded_views
    from rechain.conformance.runner import option_sets
    from rechain.reference import get_profile

    case = item.source
    if case is None or item.case.id != case.id:
        return False
    profile, _ = recorded_views(get_profile(config.getoption("rechain_profile")).name)
    return len(option_sets(case, profile, item.case.view)) > 1


def _replay(config: pytest.Config, case_id: str, alone: bool = False) -> str:
    """``rechain check`` on this case; paths and specs made absolute (pytest's invocation dir),
    started by the words that run this rechain (``portable.program``), as pytest prints it
    for the person who ran the tests."""
    from rechain import portable
    from rechain.reference import get_profile

    cwd = Path(config.invocation_params.dir)
    impl = portable.spec(config.getoption("rechain_impl"), cwd)
    parts, env = [*portable.program(), "check", "--impl", impl.text], dict(impl.env)
    if config.getoption("rechain_against"):
        against = portable.spec(config.getoption("rechain_against"), cwd)
        parts += ["--against", against.text]
        env.update(against.env)
    if config.getoption("rechain_corpus"):
        parts += ["--corpus", portable.path(config.getoption("rechain_corpus"), cwd)]
    if config.getoption("rechain_venv"):
        parts += ["--venv", portable.path(config.getoption("rechain_venv"), cwd)]
    profile = config.getoption("rechain_profile") or "sdk"  # the option's default
    if get_profile(profile).name != get_profile("sdk").name:
        parts += ["--profile", str(profile)]  # as judged here
    if config.getoption("rechain_skips"):  # the list decides the verdict, as here
        parts += ["--skips", portable.path(config.getoption("rechain_skips"), cwd)]
    # the limits the case ran under: a slow or hungry reader fails the same way again
    timeout, memory = config.getoption("rechain_timeout"), config.getoption("rechain_memory_mb")
    if timeout is not None and timeout != TIMEOUT_S:
        parts += ["--timeout", f"{timeout:g}"]
    if memory is not None and memory != MEMORY_MB:
        parts += ["--memory-mb", str(memory)]
    # that one option set alone (``ID[limit=1]``, ``ID[]``: the default options of a case
    # with several), as ``rechain check`` replays a corpus case
    from rechain.conformance.check.replays import pattern

    return portable.command([*parts, "--case", pattern(case_id, alone)], env)


def _items(suite: Suite) -> Iterator[CaseItem]:
    """The case items; a bad option value is the user's to fix, so pytest's one-line usage
    error, never an internal error's traceback."""
    from rechain.errors import UsageError

    try:
        yield from _connected_items(suite)
    except UsageError as error:
        raise pytest.UsageError(f"rechain: {error}") from None


def _connected_items(suite: Suite) -> Iterator[CaseItem]:
    from rechain.conformance import skips
    from rechain.conformance.check.inputs import corpus_cases
    from rechain.conformance.impls import connect, recorded_views
    from rechain.conformance.protocol_process import Limits
    from rechain.conformance.runner import Against, Connections, Recorded, corpus_items
    from rechain.errors import UsageError
    from rechain.reference import get_profile

    config = suite.config
    if config.getoption("rechain_timeout") <= 0 or config.getoption("rechain_memory_mb") < 1:
        raise UsageError("--rechain-timeout and --rechain-memory-mb must be positive")
    # the views the profile's expectations are recorded in, as rechain check asks them:
    # a resume profile's (cli, claude-code@X) are api and chain, not session messages
    profile, views = recorded_views(get_profile(config.getoption("rechain_profile")).name)
    limits = Limits(timeout=config.getoption("rechain_timeout"),
                    memory_mb=config.getoption("rechain_memory_mb"))
    venv = Path(config.getoption("rechain_venv")) if config.getoption("rechain_venv") else None
    root = config.getoption("rechain_corpus")
    items = corpus_items(corpus_cases(Path(root) if root else None, "--rechain-corpus"),
                         profile, views[0], selected=config.getoption("rechain_case"))
    implementation = connect(config.getoption("rechain_impl"), limits, venv=venv)
    against = config.getoption("rechain_against")
    target = (Against(connect(against, limits, venv=venv)) if against
              else Recorded(profile, views=views))
    listed = config.getoption("rechain_skips")
    known = skips.for_run(Path(config.invocation_params.dir, listed) if listed else None,
                          [config.getoption("rechain_impl")])
    config.stash[_CONNECTIONS] = (Connections([implementation], [target]), known)
    config.stash[_COLLECTED] = len(items)
    for item in items:
        yield CaseItem.from_parent(suite, name=item.case.id, case=item)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config,
                                  items: list[pytest.Item]) -> None:
    """Append the corpus items before ``-k``/``-m`` deselect anything."""
    if config.getoption("rechain_impl"):
        items.extend(Suite.from_parent(session, name="rechain", nodeid="rechain").collect())


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "rechain: a rechain conformance case")
    if config.getoption("rechain_impl", None):
        from rechain.schema_files import load_schema

        for tag in load_schema("case")["$defs"]["tag"]["enum"]:
            config.addinivalue_line("markers", f"{tag.replace('-', '_')}: corpus tag {tag}")


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """A run that compared nothing is a failure: no case matched, or every one was skipped;
    so is one that compared nearly nothing (under ``report.NEARLY_NOTHING`` of the cases it
    ran), as for ``rechain check``."""
    from rechain.conformance.report import NEARLY_NOTHING

    config = session.config
    if not config.getoption("rechain_impl", None) or _COLLECTED not in config.stash:
        return
    tally = config.stash.get(_TALLY, {"ran": 0, "compared": 0})
    if config.stash[_COLLECTED] and (not tally["ran"] or (
            tally["compared"] and tally["compared"] >= NEARLY_NOTHING * tally["ran"])):
        return  # compared enough, or the user deselected every case (-k, -m)
    said = ("compared nothing (no corpus case matches the selection)"
            if not config.stash[_COLLECTED] else
            "compared nothing (every rechain case was skipped)" if not tally["compared"] else
            f"compared nearly nothing ({tally['compared']} of {tally['ran']} rechain cases, "
            "the rest skipped)")
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_line(f"rechain: {said}: a run that tested nothing or nearly nothing "
                            "fails", red=True)
    if session.exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED):
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_unconfigure(config: pytest.Config) -> None:
    made = config.stash.get(_CONNECTIONS, None)
    if made is not None:
        made[0].close()
