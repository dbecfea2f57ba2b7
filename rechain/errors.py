"""Errors that are the user's to fix: the CLI prints them on one line and exits 2."""


class UsageError(Exception):
    """A bad argument, a missing or unreadable path: never a traceback."""
