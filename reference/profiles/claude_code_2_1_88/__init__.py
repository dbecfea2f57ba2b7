"""Profile ``claude-code@2.1.88`` (alias ``seed``): the loader the seed articles describe.

``rechain rebuild FILE --profile seed --entry continue|resume-id|resume-file
--view chain|api|state``. The default ``messages`` view shows the chain resumed
by ``--continue`` (or ``Options.entry``) as SDK-shaped messages.
"""

from __future__ import annotations

from rechain.reference.profiles.claude_code_2_1_88.profile import SEED

__all__ = ["SEED"]
