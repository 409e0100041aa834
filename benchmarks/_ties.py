"""The tie orders of the benchmark runs, shared by ``generate.py`` and ``run.py``.

No heavy import here: ``run.py``'s timed workers import this module too.
"""

from __future__ import annotations

import argparse

#: Tie orders: trec_eval's (doc id descending), Anserini's (ascending), a seeded shuffle.
TIE_ORDERS = ("trec_eval", "ascending", "random")
#: Row orders written and measured only when asked for: ``shuffled`` lists every row of
#: the run in a seeded random order (scores not in rank order, rankings interleaved).
EXTRA_ORDERS = ("shuffled",)


def tie_orders_option(text: str) -> tuple[str, ...]:
    """Parse ``--ties``: a comma-separated subset of the orders known, in the order given."""
    known = TIE_ORDERS + EXTRA_ORDERS
    orders = tuple(name.strip() for name in text.split(",") if name.strip())
    unknown = [name for name in orders if name not in known]
    if unknown or not orders:
        msg = f"--ties takes a comma-separated list of {', '.join(known)}; got {text!r}"
        raise argparse.ArgumentTypeError(msg)
    return orders
