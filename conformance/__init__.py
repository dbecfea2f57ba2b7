"""Conformance: oracles (real readers), the plug-in protocol, differential runs and reports."""
