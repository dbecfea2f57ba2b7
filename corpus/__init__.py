"""Language-agnostic corpus: case files and the code that loads, lints, records and anonymises them.

A case is ``corpus/cases/<id>/`` with ``case.json`` (schema:
``rechain/schemas/case.json``) and ``transcript.jsonl`` (the exact input bytes).
"""

from rechain.corpus.cases_io import (
    PROFILE,
    VIEW,
    Case,
    CaseError,
    Expectation,
    default_root,
    load_case,
    load_cases,
)
from rechain.corpus.lint import Problem, lint_cases

__all__ = [
    "PROFILE",
    "VIEW",
    "Case",
    "CaseError",
    "Expectation",
    "Problem",
    "default_root",
    "lint_cases",
    "load_case",
    "load_cases",
]
