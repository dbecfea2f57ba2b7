"""Checking the ``seed`` profile (``claude-code@2.1.88``) against the real 2.1.88.

``compare`` turns what 2.1.88 wrote and sent into the profile's views,
``differential`` runs the loop (corpus, real and generated transcripts; ``--dump`` and
``--replay``), ``record`` writes 2.1.88's expectations into corpus cases, and
``continue_pick`` checks which session ``-p --continue`` picks. They drive the real
program, so they live here and not in the reference.
"""
