"""Child processes that end when rechain ends, even when rechain is killed outright.

A CI step's timeout or ``kill -9`` gives rechain no chance to stop what it started; on
Linux the kernel can (``PR_SET_PDEATHSIG``). The signal fires when the *thread* that
started the child exits, so it suits runs that start and wait for their child in one
call, not processes handed from thread to thread.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable

PR_SET_PDEATHSIG = 1


def dies_with_parent() -> Callable[[], None] | None:
    """A ``preexec_fn`` that ties the child's life to its parent's (None off Linux).

    ``prctl`` is looked up before the fork; a parent that died before the call was made
    is noticed by the child's parent id having changed.
    """
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (ImportError, OSError, AttributeError):
        return None
    parent = os.getpid()

    def tie() -> None:
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != parent:
            os._exit(1)

    return tie
