"""Checking the ``seed`` profile (``claude-code@2.1.88``) against the real 2.1.88.

``compare`` turns what 2.1.88 wrote and sent into the profile's views, ``answers`` makes
the two recorded views (``resumed-chain``, ``api``) one answer for ``rechain check --profile
seed`` (the profile, the corpus's expectations and ``--against claude-code@2.1.88`` alike),
``forked`` reads a forked resume's output, ``record`` writes 2.1.88's expectations into
corpus cases, and ``continue_pick`` checks which session ``-p --continue`` picks. They drive
the real program, so they live here and not in the reference.
"""
