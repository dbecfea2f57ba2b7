"""The tier-0 worker: a ``python:MODULE:FUNCTION`` reader run in its own interpreter.

rechain starts it as ``PYTHON -c BOOT tier0_worker.py TARGET MEMORY_MB`` (see
``tier0.py``) in the caller's directory, so the reader's module is found exactly as
``python -c "import MODULE"`` would find it there, in the reader's own environment
(``--venv``). It then speaks protocol v1 (a tier-2 harness): the ``start`` reply
carries the module's ``RECHAIN_INFO``, each ``run`` calls the function once.

The protocol keeps the process's original stdout to itself: the reader's prints,
and anything it reads from stdin, go to stderr and /dev/null. Its address space is
capped at MEMORY_MB (``RLIMIT_AS``), so a reader that allocates without end gets a
``MemoryError``; the worker answers "memory limit exceeded" and exits, and rechain
starts a fresh one. Standard library only, Python 3.8 syntax: rechain need not be
installed where the reader runs.
"""

from __future__ import annotations

import base64
import importlib
import importlib.util
import inspect
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

RESERVE = 4 << 20
READER_PATH = globals().get("READER_PATH", "")  # sys.path[0] of ``python -c`` (the cwd)


def protocol_streams() -> tuple[IO[bytes], IO[bytes]]:
    """Private copies of stdin and stdout; fds 0 and 1 become /dev/null and stderr."""
    requests = os.fdopen(os.dup(0), "rb")
    replies = os.fdopen(os.dup(1), "wb")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    return requests, replies


def die_with_parent() -> None:
    """On Linux, end when rechain ends, even killed outright: no orphan keeps looping."""
    try:
        import ctypes
        import signal

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (ImportError, OSError, AttributeError):
        return


def cap_memory(megabytes: int) -> None:
    """``RLIMIT_AS`` at the limit: an allocation past it raises MemoryError."""
    if megabytes <= 0:
        return
    try:
        import resource
    except ImportError:  # not POSIX: rechain's resident-memory watch still applies
        return
    limit = megabytes * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def load_module(name: str) -> Any:
    """A module by dotted name, or a ``.py`` file (relative to the current directory)."""
    sys.path.insert(0, READER_PATH)
    if not name.endswith(".py"):
        return importlib.import_module(name)
    path = Path(name).absolute()
    spec = importlib.util.spec_from_file_location("rechain_tier0_" + path.stem, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def short_name(module: Any) -> str:
    return str(module.__name__).rpartition(".")[2].replace("rechain_tier0_", "", 1)


def implementation(module: Any) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """The ``implementation`` object to announce, and ``RECHAIN_INFO`` as declared."""
    name = short_name(module).replace("_", "-")
    declared = getattr(module, "RECHAIN_INFO", None)
    if not isinstance(declared, dict):
        version = str(getattr(module, "__version__", "0"))
        return {"name": name, "version": version, "language": "python"}, None
    info = {"name": name, "language": "python", "version": "0"}
    info.update(declared)
    info["version"] = str(info["version"])
    return info, declared


def json_default(value: Any) -> Any:
    """Sets (e.g. ``fields``) as sorted lists; anything else is not JSON."""
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=str)
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


class Worker:
    """The loaded reader and the protocol around it."""

    def __init__(self, target: str, megabytes: int, replies: IO[bytes]) -> None:
        self.target = target
        self.megabytes = megabytes
        self.replies = replies
        self.function: Callable[..., Any] | None = None
        self.arity = 1
        self.reserve: bytearray | None = bytearray(RESERVE)  # given back to reply past the limit

    def send(self, reply: dict[str, Any]) -> None:
        self.replies.write(json.dumps(reply, default=json_default).encode("ascii") + b"\n")
        self.replies.flush()

    def start(self) -> dict[str, Any]:
        module_name, _, function_name = self.target.rpartition(":")
        try:
            module = load_module(module_name)
        except MemoryError:
            return {"error": f"cannot import {module_name} within the memory limit of "
                             f"{self.megabytes} MiB"}
        except BaseException as error:
            return {"error": f"cannot import {module_name}: {type(error).__name__}: {error}"}
        function: Any = module
        for part in function_name.split("."):
            function = getattr(function, part, None)
        if not callable(function):
            return {"error": f"{short_name(module)} has no function {function_name}"}
        self.function = function
        arity = positional_arity(function)
        if isinstance(arity, str):
            return {"error": f"{short_name(module)}.{function_name} {arity}"}
        self.arity = arity
        info, declared = implementation(module)
        reply = {"version": 1, "implementation": info, "declared": declared}
        try:
            json.dumps(reply, default=json_default)
        except (TypeError, ValueError) as error:
            return {"error": f"RECHAIN_INFO is not JSON: {error}"}
        return reply

    def call(self, case: dict[str, Any]) -> Any:
        data = base64.b64decode(case["transcript_b64"])
        if self.arity >= 3:
            return self.function(data, case["session_id"], dict(case["options"]))  # type: ignore[misc]
        if self.arity == 2:
            return self.function(data, case["session_id"])  # type: ignore[misc]
        return self.function(data)  # type: ignore[misc]

    def run(self, seq: int, case: dict[str, Any]) -> tuple[dict[str, Any], bool]:
        """The reply to one ``run`` request, and whether this worker must end after it."""
        saved = {name: os.environ.get(name) for name in case.get("env", {})}
        os.environ.update(case.get("env", {}))
        try:
            value = self.call(case)
        except MemoryError:
            self.reserve = None
            return self.over_memory(seq), True
        except BaseException as error:
            return {"seq": seq, "result": raised(error)}, False
        finally:
            for name, old in saved.items():
                if old is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = old
        return {"seq": seq, "result": value}, False

    def over_memory(self, seq: int) -> dict[str, Any]:
        message = f"memory limit of {self.megabytes} MiB exceeded (MemoryError)"
        return {"seq": seq, "errored": True, "context": {"message": message, "restart": True}}

    def answer(self, seq: int, reply: dict[str, Any]) -> bool:
        """Send a ``run`` reply; an answer that is not JSON is the reader's error."""
        try:
            self.send(reply)
        except MemoryError:
            self.reserve = None
            self.send(self.over_memory(seq))
            return True
        except (TypeError, ValueError, RecursionError) as error:
            problem = f"the answer is not JSON: {error}"
            self.send({"seq": seq, "errored": True, "context": {"message": problem}})
        return False


def positional_arity(function: Callable[..., Any]) -> int | str:
    """How many of ``data, session_id, options`` to pass: the positional parameters the
    function takes (``*args`` takes all three; keyword-only ones and ``**kwargs`` take
    none), or why it cannot be called with them (said at start, not once per case)."""
    try:
        parameters = list(inspect.signature(function).parameters.values())
    except (TypeError, ValueError):
        return 1
    if any(p.kind == p.VAR_POSITIONAL for p in parameters):
        return 3
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    required = [p for p in positional if p.default is p.empty]
    keyword_only = [p.name for p in parameters if p.kind == p.KEYWORD_ONLY and p.default is p.empty]
    if not positional or len(required) > 3 or keyword_only:
        return ("must take (data, session_id, options), the first one or two of them, or "
                f"*args; it takes {inspect.signature(function)}")
    return min(len(positional), 3)


def raised(error: BaseException) -> dict[str, Any]:
    try:
        message = str(error)[:500]
    except Exception:
        message = ""
    return {"raised": {"type": type(error).__name__, "message": message}}


def main(argv: list) -> int:
    target, megabytes = argv[1], int(argv[2])
    requests, replies = protocol_streams()
    die_with_parent()
    cap_memory(megabytes)
    worker = Worker(target, megabytes, replies)
    for line in requests:
        request = json.loads(line)
        command = request.get("cmd")
        if command == "start":
            worker.send(worker.start())
            if worker.function is None:
                return 2
        elif command == "run":
            seq = request.get("seq", 0)
            reply, finished = worker.run(seq, request["case"])
            if worker.answer(seq, reply) or finished:
                return 3
        else:
            return 0
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
