"""The optional C extension, the one thing ``pyproject.toml`` declares only as experimental.

``reference/_glance.c`` is the SDK parser's glance at plain rows in C. ``optional``: where
it does not build (no C compiler or no Python headers) the install still succeeds and the
parser glances in Python, with the same results. Everything else is in ``pyproject.toml``.
"""

from setuptools import Extension, setup

setup(ext_modules=[Extension("rechain.reference._glance", ["reference/_glance.c"],
                             optional=True)])
