"""Benchmarks of relu_frames_nb: ``python -m benchmarks [--full] [NAME ...]``.

Every module ``benchmarks/bench_*.py`` defines ``main()``; it prints its measurements and
returns the targets it checked (a list of :class:`benchmarks._common.Target`, or of
``(label, holds)`` / ``(label, value, target, holds)`` tuples, or ``None``).
``python -m benchmarks`` runs them all and ends with one line saying which targets hold.
"""
