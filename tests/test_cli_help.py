"""Every ``--help`` reads as plain text and documents every option.

Walks the whole parser tree (commands, actions, bench kinds), so a new option
without help or a docstring with RST markup fails here, not in a user's terminal.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator

import pytest

from rechain.cli import build_parser
from rechain.helptext import plain

_SILENT = (argparse._HelpAction, argparse._VersionAction, argparse._SubParsersAction)


def _walk(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> Iterator[
        tuple[tuple[str, ...], argparse.ArgumentParser]]:
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _walk(sub, (*path, name))


PARSERS = dict(_walk(build_parser()))


def test_the_walk_reaches_nested_actions() -> None:
    assert {("bench", "load"), ("corpus", "anonymise"), ("oracle", "install")} <= set(PARSERS)


@pytest.mark.parametrize("path", sorted(PARSERS), ids=lambda p: " ".join(p) or "rechain")
def test_help_has_no_markup_and_every_option_says_what_it_does(path: tuple[str, ...]) -> None:
    parser = PARSERS[path]
    shown = parser.format_help()
    assert "``" not in shown
    assert ":func:" not in shown and ":class:" not in shown
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for choice in action._choices_actions:
                assert choice.help, f"{' '.join(path)} {choice.dest}: no help"
            continue
        if isinstance(action, _SILENT):
            continue
        name = "/".join(action.option_strings) or action.dest
        assert action.help and action.help != argparse.SUPPRESS, f"{' '.join(path)} {name}"


def test_plain_drops_inline_markup_and_keeps_the_words() -> None:
    assert plain("run ``rechain check`` (see :func:`connect`), a *harness*") == \
        "run rechain check (see connect), a harness"
    assert plain("files like *.jsonl and a * b") == "files like *.jsonl and a * b"


GROUPS = sorted(path for path, parser in PARSERS.items() if len(path) == 1 and any(
    isinstance(action, argparse._SubParsersAction) for action in parser._actions))


@pytest.mark.parametrize("group", GROUPS, ids=lambda p: p[0])
def test_a_command_group_without_its_subcommand_is_a_usage_error_on_stderr(
        group: tuple[str, ...], capsys: pytest.CaptureFixture[str]) -> None:
    """``rechain report`` alone: exit 2, what it takes on stderr, nothing on stdout (a CI
    step that keeps stdout as a report gets no help text in it)."""
    from rechain.cli import main

    assert main(list(group)) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.strip()
