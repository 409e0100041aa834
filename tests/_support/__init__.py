"""Helper modules of the tests: sample inputs, independent references, a headless browser.

Not test modules (pytest collects ``test_*.py`` only). ``tests/`` is on ``sys.path`` through
pytest's ``pythonpath`` option (pyproject.toml), the one place that makes this package
importable, so any test imports ``from _support.trec_files import read_qrels``.
"""
