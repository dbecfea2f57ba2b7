"""The matrix of real readers: pinned adapters (``implementations/``), run and published."""
