"""How many cores this machine gives a run right now: busy loops' CPU over their wall time.

On a shared machine ``cores ÷ CPU a case`` is a ceiling nobody reaches: the other
users' processes take their share. ``available_cores(n)`` runs ``n`` processes that do
nothing but compute for a moment and returns the CPU they got per wall second, what ``n``
always-busy processes of a run would get at the same moment. A run whose CPU rate comes
close to that keeps its processes busy; one far below waits on something of its own.
"""

from __future__ import annotations

import resource
import subprocess
import sys
import time

SPIN = "import time\nend = time.monotonic() + {seconds}\nwhile time.monotonic() < end: pass\n"


def available_cores(processes: int, seconds: float = 1.0) -> float:
    """CPU seconds per wall second that ``processes`` busy loops got together."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    spinners = [subprocess.Popen([sys.executable, "-S", "-c", SPIN.format(seconds=seconds)],
                                 stdin=subprocess.DEVNULL)
                for _ in range(max(1, processes))]
    for spinner in spinners:
        spinner.wait()
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return cpu / wall if wall > 0 else 0.0
