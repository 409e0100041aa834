"""What the history says last: each system's latest logged mean and the change before it.

The report's and the dashboard's "History" tables read :func:`latest_changes`. A history
read from a store (:func:`read_history`) carries ``p_change`` on each (system, metric)'s
last entry: the paired randomization test of its change from the entry before, over the
queries both scored (:func:`change_tests`), so the pages can say which last change is
more than noise; every change between consecutive entries of a tag is tested too
(:func:`step_tests`: ``p_step``), and the pages mark those below :data:`MARK_ALPHA`.
"""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Sequence
from typing import Any, Final

import polars as pl

from rankset.errors import SchemaError
from rankset.experiments._layout import entry_labels
from rankset.experiments._store import Store

__all__ = [
    "LATEST_COLUMNS",
    "MARK_ALPHA",
    "change_tests",
    "entry_names",
    "in_utc",
    "latest_changes",
    "read_history",
    "recorded_settings",
    "setting_changes",
    "step_tests",
]

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
#: The pages mark a change between consecutive entries of a tag whose ``p_step`` is below.
MARK_ALPHA: Final = 0.05
_LAST, _BEFORE = "\x00last", "\x00before"


def read_history(
    history: Store | str | os.PathLike[str] | pl.DataFrame | None,
) -> pl.DataFrame | None:
    """Return what a page's ``history=`` names: a store's history, or None when empty.

    ``history`` is a :class:`Store`, a store's folder (which must be a store: a folder
    that is not one raises before any work) or a frame of :meth:`Store.history`'s columns.
    A store's history gains ``p_change`` (:func:`change_tests`), ``previous_entry`` and
    ``p_step`` (:func:`step_tests`); every history gains ``entry``, the entry's name on a
    page (:func:`entry_names`).
    """
    if isinstance(history, str | os.PathLike):
        history = Store(history, create=False)
    if isinstance(history, Store):
        store, history = history, history.history()
        if history.height:
            keys = ["entry_id", "system", "metric"]
            for tests in (change_tests(store, history), step_tests(store, history)):
                history = history.join(tests, on=keys, how="left", maintain_order="left")
    if history is None or not history.height:
        return None
    return entry_names(history)


def entry_names(history: pl.DataFrame) -> pl.DataFrame:
    """Add ``entry``: each entry's name on a page, its tag or ``tag@short id`` (or short id).

    With ``previous_entry`` (:func:`step_tests`), ``previous`` names that entry so too.

    The names :func:`rankset.experiments._layout.entry_labels` gives: the pages' x axis
    and tables name entries so, not by a time (entries logged within a second apart had
    an axis of milliseconds, ``.950``).

    Examples
    --------
    >>> history = pl.DataFrame({"entry_id": ["T1Z-aaaa0001", "T2Z-bbbb0002"],
    ...                         "tag": ["main", "main"]})
    >>> entry_names(history)["entry"].to_list()
    ['main@aaaa0001', 'main@bbbb0002']
    """
    if "entry" in history.columns:
        return history
    tags = history["tag"] if "tag" in history.columns else pl.Series([None] * history.height)
    pairs = dict.fromkeys(zip(history["entry_id"].to_list(), tags.to_list(), strict=True))
    names = entry_labels(list(pairs))
    named = history.with_columns(
        entry=pl.col("entry_id").replace_strict(names, return_dtype=pl.String)
    )
    if "previous_entry" in named.columns:  # the entry before, as a page names it
        named = named.with_columns(
            previous=pl.col("previous_entry").replace_strict(
                names, default=pl.col("previous_entry"), return_dtype=pl.String
            )
        )
    return named


def recorded_settings(history: pl.DataFrame) -> list[dict[str, Any]]:
    """Each entry's recorded options, meta and commit, flat, in logged order.

    One dict per entry: ``entry_id``, ``entry`` (its page name), ``time`` (ISO, UTC) and
    ``values``, ``{key: value as JSON text}`` with keys ``option.<name>``,
    ``meta.<name>`` and ``git_commit``. Empty when the history records none (a frame
    without ``options`` and ``meta``).

    Examples
    --------
    >>> from datetime import datetime, UTC
    >>> history = pl.DataFrame({"entry_id": ["T1Z-a1", "T2Z-b2"], "tag": None,
    ...     "time": [datetime(2026, 1, 1, tzinfo=UTC), datetime(2026, 1, 2, tzinfo=UTC)],
    ...     "options": ['{"k": 10}', '{"k": 20}'], "meta": ['{"model": "x"}', "{}"]})
    >>> [entry["values"] for entry in recorded_settings(history)]
    [{'option.k': '10', 'meta.model': '"x"'}, {'option.k': '20'}]
    """
    if "options" not in history.columns and "meta" not in history.columns:
        return []
    named = entry_names(in_utc(history))
    first = named.sort("time", maintain_order=True).unique("entry_id", maintain_order=True)
    out = []
    for row in first.iter_rows(named=True):
        values: dict[str, str] = {}
        for column, prefix in (("options", "option."), ("meta", "meta.")):
            parsed = json.loads(row.get(column) or "{}")
            values.update(
                (prefix + key, json.dumps(value, sort_keys=True)) for key, value in parsed.items()
            )
        if row.get("git_commit"):
            values["git_commit"] = json.dumps(row["git_commit"])
        time = row["time"]
        out.append(
            {
                "entry_id": row["entry_id"],
                "entry": row["entry"],
                "time": time.strftime("%Y-%m-%d %H:%M:%S") if time is not None else None,
                "values": values,
            }
        )
    return out


def setting_changes(history: pl.DataFrame) -> pl.DataFrame:
    """Return what changed between consecutive entries: only the recorded keys that changed.

    Entries in logged order (every tag); for each entry and the one before it, the
    options, meta and commit (:func:`recorded_settings`) that differ.

    Returns
    -------
    polars.DataFrame
        ``entry, previous, key, before, after`` (values as JSON text; null where the key
        was not recorded), in logged order then by key.

    Examples
    --------
    >>> from datetime import datetime, UTC
    >>> history = pl.DataFrame({"entry_id": ["T1Z-a1", "T2Z-b2"], "tag": None,
    ...     "time": [datetime(2026, 1, 1, tzinfo=UTC), datetime(2026, 1, 2, tzinfo=UTC)],
    ...     "options": ['{"k": 10, "m": 1}', '{"k": 20, "m": 1}'], "meta": "{}"})
    >>> setting_changes(history).rows()
    [('b2', 'a1', 'option.k', '10', '20')]
    """
    entries = recorded_settings(history)
    rows = []
    for before, after in itertools.pairwise(entries):
        keys = sorted(set(before["values"]) | set(after["values"]))
        rows += [
            (after["entry"], before["entry"], key, before["values"].get(key),
             after["values"].get(key))
            for key in keys
            if before["values"].get(key) != after["values"].get(key)
        ]  # fmt: skip
    return pl.DataFrame(
        rows, schema=["entry", "previous", "key", "before", "after"], orient="row"
    ).cast(pl.String)


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
    pairs = (
        history.sort("time", maintain_order=True)
        .group_by("system", "metric", maintain_order=True)
        .agg(
            entry_id=pl.col("entry_id").last(),
            before=pl.col("entry_id").get(-2, null_on_oob=True),
        )
        .drop_nulls("before")
    )
    return _pair_tests(store, pairs, "p_change", n_resamples=n_resamples, seed=seed)


def step_tests(
    store: Store, history: pl.DataFrame, *, n_resamples: int = 2000, seed: int = 0
) -> pl.DataFrame:
    """Test every change between consecutive entries of a tag, per system and metric.

    Entries are ordered by time within their tag (the untagged ones form one series);
    each entry is tested against the one before it in its series, as :func:`change_tests`
    tests the last change: the paired randomization test over the queries both scored,
    one test per (entry, system, metric), not corrected. A page marks a change whose
    ``p_step`` is below :data:`MARK_ALPHA`.

    Returns
    -------
    polars.DataFrame
        ``entry_id``, ``system``, ``metric``, ``previous_entry`` (the entry before it in
        its tag) and ``p_step``; entries first in their tag are left out.
    """
    series = ["tag", "system", "metric"] if "tag" in history.columns else ["system", "metric"]
    pairs = (
        history.sort("time", maintain_order=True)
        .with_columns(before=pl.col("entry_id").shift(1).over(series))
        .drop_nulls("before")
        .select("system", "metric", "entry_id", "before")
    )
    tests = _pair_tests(store, pairs, "p_step", n_resamples=n_resamples, seed=seed)
    return tests.join(
        pairs.select("entry_id", "system", "metric", previous_entry="before"),
        on=["entry_id", "system", "metric"],
        how="left",
    ).select("entry_id", "system", "metric", "previous_entry", "p_step")


def _pair_tests(
    store: Store, pairs: pl.DataFrame, name: str, *, n_resamples: int, seed: int
) -> pl.DataFrame:
    """Test each (system, entry, before, metric) of ``pairs``: ``entry_id, system, metric, name``.

    One :func:`rankset.compare` per (system, entry, before), over every metric it holds.
    """
    from rankset.comparison import compare

    schema = {"entry_id": pl.String, "system": pl.String, "metric": pl.String}
    if pairs.is_empty():
        return pl.DataFrame(schema={**schema, name: pl.Float64})
    entries = sorted({*pairs["entry_id"].to_list(), *pairs["before"].to_list()})
    values = store.per_query(entries).select("entry_id", "system", "query_id", "metric", "value")
    rows = []
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
            {"entry_id": last, "system": system, "metric": metric, name: p_of.get(metric)}
            for metric in metrics
        ]
    return pl.DataFrame(rows, schema={**schema, name: pl.Float64})


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
