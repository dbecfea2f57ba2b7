"""``rechain check --resume REPORT``: the interrupted run's own options, from its header.

The header records the run's argv as given, seed and directory. The resumed run parses
that argv again, with every path and reader spec made absolute from the run's directory
(so it works from anywhere on the machine that ran it), then lets the options given now
override it: how to run (``--jobs``, ``--timeout``, ``--markdown``, ...) may change; the
seed and the number of generated transcripts may not, since they decide which transcript
a case id names, nor the readers and the profile that judges them. A report copied from
another machine (a CI runner's artefact) names a directory this one does not have: its
relative paths, and its absolute ones inside that directory, are then read from the
current directory, and the files it wrote beside its report are written beside the
report resumed (``portable_argv``).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from rechain import portable
from rechain.conformance import report_resume
from rechain.conformance.report_resume import Previous
from rechain.errors import UsageError
from rechain.reference import get_profile

Json = dict[str, Any]
SPECS = ("impl", "against")
FIXED = ("seed", "examples")
#: what decides which cases the run covers and how each is judged: a resumed run that
#: changed one would append cases of another run (another shard, a selection) or verdicts
#: by other rules to this report, and its footer would count them as one run
JUDGED = ("shard", "case", "corpus", "no_corpus", "skips", "no_skips", "contract", "fields",
          "validate", "invariant_every")


def _parse(argv: list[str]) -> argparse.Namespace:
    from rechain.cli import build_parser

    return build_parser().parse_args(argv)


def _absolute(value: Any, cwd: Path) -> Any:
    """Paths (and lists of them) made absolute from ``cwd``; ``-`` (stdout) stays."""
    if isinstance(value, Path) and str(value) != "-":
        return Path(portable.path(value, cwd))
    if isinstance(value, list):
        return [_absolute(v, cwd) for v in value]
    return value


def _specs(namespace: argparse.Namespace, cwd: Path) -> None:
    """Reader specs as they mean from ``cwd``; a module found there is reached by PYTHONPATH."""
    for name in SPECS:
        value = getattr(namespace, name, None)
        specs = value if isinstance(value, list) else [value] if value else []
        made = [portable.spec(spec, cwd) for spec in specs]
        for one in made:
            for key, path in one.env.items():
                present = os.environ.get(key)
                os.environ[key] = path if not present else f"{path}{os.pathsep}{present}"
        texts = [one.text for one in made]
        setattr(namespace, name, texts if isinstance(value, list) else
                (texts[0] if texts else value))


def portable_argv(argv: list[str], ran: Path, report: Path | None,
                  resumed: Path) -> list[str]:
    """A recorded argv made to mean the same on a machine without the run's directory
    ``ran``: an absolute path inside ``report``'s folder names the same file beside the
    report resumed (``resumed``; the action writes its outputs there), one inside ``ran``
    is made relative. Relative paths are left as given: the resumed run reads them from
    the current directory."""
    moves = [(f"{os.path.normpath(ran)}{os.sep}", "")]  # "": relative, read from here
    if report is not None and not report.parent.is_relative_to(ran):
        moves.insert(0, (f"{os.path.normpath(report.parent)}{os.sep}",
                         f"{os.path.normpath(resumed.parent)}{os.sep}"))
    out = []
    for token in argv:
        for old, new in moves:
            if old in token:
                token = token.replace(old, new)
                break
        out.append(token)
    return out


def _as_given(values: list[Any], cwd: Path) -> str:
    """Reader specs as the run gave them, and where it read them from."""
    shown = " ".join(str(v) for v in values if v is not None)
    return f"{shown} (in {cwd})"


def _same_readers(args: argparse.Namespace, base: argparse.Namespace,
                  defaults: argparse.Namespace, path: Path, given_then: argparse.Namespace,
                  where: Path) -> None:
    """The readers and the profile they are judged by are the run's: a resumed run that
    swapped them would append another run's verdicts to this report. A reader spec is
    the same when it names the same reader from where each run reads it (the run's
    directory, or this one for a report from another machine)."""
    here = Path.cwd()
    for name in (*SPECS, "profile"):
        given = getattr(args, name, None)
        if given is None or given == getattr(defaults, name, None):
            continue
        values = given if isinstance(given, list) else [given]
        now = [portable.spec(v, here).text if name in SPECS else v for v in values]
        recorded = getattr(base, name)
        was = recorded if isinstance(recorded, list) else [recorded]
        if name == "profile":  # an alias names the same profile
            now, was = [get_profile(v).name for v in now], [get_profile(v).name for v in was]
        if now == was:
            continue
        flag = f"--{name}"
        if name == "profile":
            before = f"used {flag} {' '.join(was)}"
            said = " ".join(now)
        else:
            raw = getattr(given_then, name)
            raw = [v for v in (raw if isinstance(raw, list) else [raw]) if v is not None]
            before = f"used {flag} {_as_given(raw, where)}" if raw else f"had no {flag}"
            said = _as_given(values, here)
        raise UsageError(f"--resume {path}: the run {before}, not {said}: resume without "
                         f"{flag} to use the run's (start a new run to change it)")


def _same_judging(args: argparse.Namespace, base: argparse.Namespace,
                  defaults: argparse.Namespace, path: Path) -> None:
    """The cases and the rules that judge them are the run's (``JUDGED``)."""
    for name in JUDGED:
        given = getattr(args, name, None)
        if given is None or given == getattr(defaults, name, None):
            continue
        now, was = _absolute(given, Path.cwd()), getattr(base, name)
        if now == was:
            continue
        flag = "--" + name.replace("_", "-")
        shown = " ".join(map(str, was)) if isinstance(was, list) else was
        before = (f"used {flag} {shown}" if shown not in (None, False, "")
                  else f"had no {flag}")
        said = " ".join(map(str, now)) if isinstance(now, list) else now
        raise UsageError(f"--resume {path}: the run {before}, not {flag} {said}: it decides "
                         f"which cases the run covers or how they are judged (resume without "
                         f"{flag} to keep the run's; start a new run to change it)")


def _directory(header: Json, recorded: list[str], path: Path) -> tuple[Path, list[str]]:
    """Where the run's relative paths are read from, and its argv made to mean there what
    it meant where it ran: the directory it ran in when this machine has it, else the
    current one (a report copied from a CI runner), said once on stderr."""
    here = Path.cwd()
    ran = Path(str(header.get("cwd") or here))
    if ran.is_dir():
        return ran, recorded
    written = report_resume.option_value(recorded, "--report")
    report = Path(portable.path(written, ran)) if written else None
    print(f"rechain: --resume {path}: the run's directory {ran} is not on this machine: "
          f"reading its relative paths from {here}", file=sys.stderr)
    return here, portable_argv(recorded, ran, report, path)


def resumed(args: argparse.Namespace) -> tuple[argparse.Namespace, Previous]:
    """The options of the run that wrote ``args.resume``, overridden by those given now."""
    path = Path(args.resume).absolute()
    previous = report_resume.load(path)
    header = previous.header
    recorded = [str(token) for token in header.get("argv") or []]
    if not recorded or recorded[0] != "check":
        raise UsageError(f"--resume {path}: not the report of a rechain check run")
    where, recorded = _directory(header, recorded, path)
    base = _parse(["check", *report_resume.without_options(recorded[1:], ("--report",
                                                                          "--resume"))])
    given_then = argparse.Namespace(**vars(base))  # before any path is made absolute
    for name in FIXED:  # what the run used, whether given or defaulted
        if header.get(name) is not None:
            setattr(base, name, int(header[name]))
    defaults = _parse(["check"])
    for name, value in vars(base).items():
        setattr(base, name, _absolute(value, where))
    _specs(base, where)
    for name in FIXED:
        given = getattr(args, name, None)
        if given is not None and given != getattr(base, name):
            raise UsageError(f"--resume {path}: the run used --{name} {getattr(base, name)}, "
                             f"not {given}: it decides which transcript each case id names "
                             f"(resume without --{name} to keep the run's; start a new run to "
                             "change it)")
    _same_readers(args, base, defaults, path, given_then, where)
    _same_judging(args, base, defaults, path)
    for name, value in vars(args).items():
        if name in ("resume", "argv", "report", *FIXED) or value == getattr(defaults, name, None):
            continue
        setattr(base, name, _absolute(value, Path.cwd()))
    base.impl = list(dict.fromkeys(base.impl)) if base.impl else base.impl
    base.case = list(dict.fromkeys(base.case))
    base.report = path
    base.resume = path
    base.argv = recorded
    return base, previous
