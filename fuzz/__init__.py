"""Atheris harnesses for transcript readers and the ``rechain fuzz`` runner.

The worker side (``contract``, ``mutator``, ``line_ops``, ``value_ops``,
``vocabulary``, ``dictionary``, ``traits``, ``findings``, ``minimize``, ``scope``,
``worker``) imports only the standard library and atheris, because it also
runs inside a third-party reader's own venv where rechain is not installed.
The harnesses (``fuzz_*.py``) and the runner side may import rechain.
See ``docs/fuzzing.md``.
"""
