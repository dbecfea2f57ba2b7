"""``python -m rechain`` runs the command line."""

from rechain.cli import command

raise SystemExit(command())
