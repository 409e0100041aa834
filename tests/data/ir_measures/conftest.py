"""ir_measures' own tests are run by tests/compat/test_ir_measures_originals.py, not here."""

collect_ignore = ["tests"]
