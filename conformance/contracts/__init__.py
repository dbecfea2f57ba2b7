"""Contracts: what a reader declares it shows, its exact answer, and the verdict's causes.

``model`` (the contract, read from JSON, a spec or a file), ``answers`` (the answer a
contract asks of a transcript, from the profile's graph), ``judge`` (the reader's
answer against it, each difference with its cause), ``target`` (the runner's target,
with the invariants every reader must keep), ``causes`` (causes of plain comparisons).
"""

from rechain.conformance.contracts.answers import Answer, Row, answer, usage_totals
from rechain.conformance.contracts.judge import CAUSE_ORDER, judge_contract
from rechain.conformance.contracts.model import Contract, Rows, from_json, load

__all__ = ["CAUSE_ORDER", "Answer", "Contract", "Row", "Rows", "answer", "from_json",
           "judge_contract", "load", "usage_totals"]
