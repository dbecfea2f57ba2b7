"""Limits for tests that run real third-party readers: no verdict there may rest on how
busy the machine is. A reader's start-up (its interpreter and imports, a Node program)
passed `rechain check`'s default 10 s per case beside a CPU hog, and a re-read for an
invariant that timed out read as a changed answer."""

from rechain.conformance.protocol_process import Limits

#: the per-case time a test gives a real reader: a bound for a hang, not a speed claim
SECONDS = 300
#: `rechain check`'s options for it
UNHURRIED = ("--timeout", str(SECONDS))
#: `connect`'s limits for it
LIMITS = Limits(timeout=float(SECONDS))
