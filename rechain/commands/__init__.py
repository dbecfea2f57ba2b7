"""Subcommands of ``rechain``: each module defines ``register(subparsers)``."""
