"""Errors that are the user's to fix: the CLI prints them on one line and exits 2.

The class lives in the reference (which imports nothing outside its folder), so a
bad profile name raised there and a bad path raised here are caught alike.
"""

from rechain.reference.model import UsageError

__all__ = ["UsageError"]
