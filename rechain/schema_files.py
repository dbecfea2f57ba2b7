"""The JSON Schemas shipped as data in ``rechain/schemas``, loaded by name."""

from __future__ import annotations

import json
from functools import cache
from importlib.resources import files
from typing import Any

import jsonschema


@cache
def load_schema(name: str) -> dict[str, Any]:
    """The schema ``rechain/schemas/<name>.json`` as a dict."""
    text = files("rechain").joinpath("schemas", f"{name}.json").read_text(encoding="utf-8")
    return json.loads(text)


@cache
def validator(name: str) -> jsonschema.protocols.Validator:
    """A Draft 2020-12 validator for the named schema, checked once."""
    schema = load_schema(name)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)
