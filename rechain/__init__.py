"""rechain: conformance and fuzzing for Claude Code session transcripts.

The distribution maps the top-level folders into this namespace:
``rechain.reference``, ``rechain.strategies``, ``rechain.conformance``,
``rechain.fuzz`` and ``rechain.corpus``.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("rechain")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0"
