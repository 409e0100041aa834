"""What the history says last: each system's latest logged mean and the change before it.

The report's and the dashboard's "History" tables read :func:`latest_changes`. A history
read from a store (:func:`read_history`) carries ``p_change`` on each (system, metric)'s
last entry: the paired randomization test of its change from the entry before, over the
queries both scored (:func:`change_tests`), so the pages can say which last change is
more than noise.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Final

import polars as pl

from rankset.errors import SchemaError
from rankset.experiments._store import Store

__all__ = ["LATEST_COLUMNS", "change_tests", "in_utc", "latest_changes", "read_history"]

#: The columns of :func:`latest_changes`, in order.
LATEST_COLUMNS: Final = (
    "system",
    "metric",
    "n_entries",
    "last_entry",
    "last_time",
    "last_mean",
    "previous_mean",
    "change",
    "p",
)
_NEEDED: Final = ("entry_id", "time", "system", "metric", "mean")
_LAST, _BEFORE = "\x00last", "\x00before"


def read_history(
    history: Store | str | os.PathLike[str] | pl.DataFrame | None,
) -> pl.DataFrame | None:
    """Return what a page's ``history=`` names: a store's history, or None when empty.

    ``history`` is a :class:`Store`, a store's folder (which must be a store: a folder
    that is not one raises before any work) or a frame of :meth:`Store.history`'s columns.
    """
    if isinstance(history, str | os.PathLike):
        history = Store(history, create=False)
    if isinstance(history, Store):
        store, history = history, history.history()
        if history.height:
            tests = change_tests(store, history)
            history = history.join(
                tests, on=["entry_id", "system", "metric"], how="left", maintain_order="left"
            )
    return history if history is not None and history.height else None


def change_tests(
    store: Store, history: pl.DataFrame, *, n_resamples: int = 2000, seed: int = 0
) -> pl.DataFrame:
    """Test each (system, metric)'s last change: the entry against the one before it.

    The two-sided paired randomization test of the mean difference over the queries both
    entries scored (as :func:`rankset.compare` runs it), for the pair
    :func:`latest_changes` reports. One test per (system, metric), not corrected.

    Returns
    -------
    polars.DataFrame
        ``entry_id`` (the last entry), ``system``, ``metric``, ``p_change``.
    """
    from rankset.comparison import compare

    schema = {"entry_id": pl.String, "system": pl.String, "metric": pl.String}
    pairs = (
        history.sort("time", maintain_order=True)
        .group_by("system", "metric", maintain_order=True)
        .agg(
            entry_id=pl.col("entry_id").last(),
            before=pl.col("entry_id").get(-2, null_on_oob=True),
        )
        .drop_nulls("before")
    )
    if pairs.is_empty():
        return pl.DataFrame(schema={**schema, "p_change": pl.Float64})
    entries = sorted({*pairs["entry_id"].to_list(), *pairs["before"].to_list()})
    values = store.per_query(entries).select("entry_id", "system", "query_id", "metric", "value")
    rows = []
    # one compare per (system, entry, the one before), over every metric that pair holds
    grouped = pairs.group_by("system", "entry_id", "before", maintain_order=True).agg("metric")
    for system, last, before, metrics in grouped.iter_rows():
        both = values.filter(
            (pl.col("system") == system)
            & pl.col("metric").is_in(metrics)
            & pl.col("entry_id").is_in([last, before])
        ).select(
            pl.when(pl.col("entry_id") == last).then(pl.lit(_LAST)).otherwise(pl.lit(_BEFORE))
            .alias("system"),
            "query_id", "metric", "value",
        )  # fmt: skip
        tested = compare(
            both, _BEFORE, metrics=metrics, tests=["randomization"], correction=None,
            seed=seed, n_resamples=n_resamples,
        )  # fmt: skip
        p_of = dict(tested.select("metric", "p").iter_rows())
        rows += [
            {"entry_id": last, "system": system, "metric": metric, "p_change": p_of.get(metric)}
            for metric in metrics
        ]
    return pl.DataFrame(rows, schema={**schema, "p_change": pl.Float64})


def in_utc(history: pl.DataFrame) -> pl.DataFrame:
    """Return ``history`` with its ``time`` in UTC (a time with another zone converted).

    The store writes UTC; a frame built elsewhere may carry another zone, and every page
    labels its times UTC.

    Examples
    --------
    >>> from datetime import datetime
    >>> from zoneinfo import ZoneInfo
    >>> paris = datetime(2026, 1, 1, 10, 30, tzinfo=ZoneInfo("Europe/Paris"))
    >>> in_utc(pl.DataFrame({"time": [paris]}))["time"].dt.strftime("%H:%M").to_list()
    ['09:30']
    """
    dtype = history.schema.get("time")
    if not isinstance(dtype, pl.Datetime) or dtype.time_zone in (None, "UTC"):
        return history
    return history.with_columns(pl.col("time").dt.convert_time_zone("UTC"))


def latest_changes(history: pl.DataFrame, metrics: Sequence[str] | None = None) -> pl.DataFrame:
    """Each (system, metric): the last logged mean, the one before it and the change.

    Parameters
    ----------
    history
        What :meth:`Store.history` returns (``entry_id, time, system, metric, mean`` at
        least). Entries are ordered by ``time`` (ties keep the frame's order).
    metrics
        The metrics to keep, in the order of the rows (canonical names, as the history
        spells them); those the history does not hold are skipped. None: every metric
        the history holds, in the order it first names them.

    Returns
    -------
    polars.DataFrame
        ``system, metric, n_entries, last_entry, last_time, last_mean, previous_mean,
        change, p``, sorted by metric (in ``metrics`` order) then system. ``previous_mean``
        and ``change`` (``last_mean - previous_mean``) are null for a system logged once;
        ``p`` is the last row's ``p_change`` (:func:`change_tests`), null when the history
        has none (a frame not read from a store).

    Raises
    ------
    SchemaError
        When ``history`` lacks one of the columns above.

    Examples
    --------
    >>> from datetime import datetime, UTC
    >>> history = pl.DataFrame({
    ...     "entry_id": ["e1", "e2", "e2"],
    ...     "time": [datetime(2026, 1, 1, tzinfo=UTC), datetime(2026, 1, 2, tzinfo=UTC),
    ...              datetime(2026, 1, 2, tzinfo=UTC)],
    ...     "system": ["bm25", "bm25", "rerank"], "metric": ["ap", "ap", "ap"],
    ...     "mean": [0.25, 0.5, 0.75]})
    >>> latest_changes(history).select("system", "n_entries", "last_mean", "change").rows()
    [('bm25', 2, 0.5, 0.25), ('rerank', 1, 0.75, None)]
    """
    missing = [name for name in _NEEDED if name not in history.columns]
    if missing:
        msg = f"The history frame lacks the columns {missing}; pass Store.history()."
        raise SchemaError(msg)
    held = [str(m) for m in history["metric"].unique(maintain_order=True).to_list()]
    kept = held if metrics is None else [str(m) for m in dict.fromkeys(metrics) if m in held]
    order = {metric: number for number, metric in enumerate(kept)}
    if "p_change" not in history.columns:
        history = history.with_columns(p_change=pl.lit(None, dtype=pl.Float64))
    return (
        history.filter(pl.col("metric").is_in(kept))
        .sort("time", maintain_order=True)
        .group_by("system", "metric", maintain_order=True)
        .agg(
            pl.len().alias("n_entries"),
            pl.col("entry_id").last().alias("last_entry"),
            pl.col("time").last().alias("last_time"),
            pl.col("mean").last().alias("last_mean"),
            pl.col("mean").get(-2, null_on_oob=True).alias("previous_mean"),
            pl.col("p_change").last().alias("p"),
        )
        .with_columns(
            pl.col("n_entries").cast(pl.Int64),
            change=pl.col("last_mean") - pl.col("previous_mean"),
            _order=pl.col("metric").replace_strict(order, return_dtype=pl.Int64),
        )
        .sort("_order", "system", maintain_order=True)
        .select(LATEST_COLUMNS)
    )
