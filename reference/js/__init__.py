"""JavaScript semantics the real readers depend on, for values that came out of a JSON parser.

``values`` (``===``, truthiness, ``ToString``, property reads), ``jsonparse``
(``JSON.parse``), ``jsonl`` (Bun's JSONL reader), ``text`` (whitespace and
``trim``, UTF-16 lengths), ``collate`` (``localeCompare`` and ``<`` on
strings), and the dates: ``civil`` (calendar arithmetic), ``date_iso`` (the ISO
forms JavaScriptCore reads, and field composition), ``date_v8`` and
``v8_grammar`` (V8's ``Date.parse``, legacy forms included).
"""
