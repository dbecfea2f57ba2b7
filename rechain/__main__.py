"""``python -m rechain`` runs the command line."""

from rechain.cli import main

raise SystemExit(main())
