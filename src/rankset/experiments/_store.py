"""The experiment store: log evaluations, read them back as Polars frames, see the history.

The layout and its atomic write are in ``_layout``; what makes two entries the same is in
``_provenance``. Everything here reads and writes through those two.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import polars as pl

from rankset._validation import check_float, did_you_mean
from rankset._version import __version__
from rankset.errors import InputFormatError, ParameterError
from rankset.evaluation import EvaluationResult, evaluate
from rankset.experiments._layout import (
    ENTRIES,
    FORMAT_FILE,
    SCHEMAS,
    TABLES,
    check_format,
    entry_files,
    entry_labels,
    entry_named,
    new_entry_id,
    remove_stale,
    write_entry,
    write_format,
)
from rankset.experiments._provenance import (
    content_key,
    describe_source,
    git_commit,
    hash_source,
    hash_values,
    parse_meta,
    sources_by_system,
)
from rankset.measures import Metric, parse_metric, parse_metrics

__all__ = ["HISTORY_COLUMNS", "Store"]

#: The columns of :meth:`Store.history`, in order.
HISTORY_COLUMNS = (
    "entry_id",
    "time",
    "tag",
    "system",
    "metric",
    "mean",
    "ci_low",
    "ci_high",
    "n_queries",
    "n_na",
    "git_commit",
    "duplicate_of",
    "meta",
    "options",
)
# Settings of a config that say how an evaluation ran, not what it computed: left out of
# the key that recognises the same evaluation logged twice.
_NOT_IN_KEY = frozenset(
    {"runs", "labels", "systems", "metrics", "rankset_version", "polars_version", "engine",
     "buckets", "entry_id", "tag", "time"}
)  # fmt: skip


class Store:
    """A folder of logged evaluations that Polars alone can read.

    Parameters
    ----------
    path
        The store's folder. Created, with its ``store.json``, when it does not exist.
    create
        When False, a folder that is not a store yet is an error instead (what a reader
        such as ``rankset history`` wants).

    Raises
    ------
    InputFormatError
        When the folder is not a store (and ``create`` is False, or it holds other
        files), or was written by a newer rankset in a format this one cannot read.

    Notes
    -----
    Each :meth:`log` writes one folder ``entries/<entry id>/`` with a Parquet file per table
    (``runs``, ``summary``, ``per_query``, ``query_counts``, ``costs``), first under
    ``.tmp/`` and then renamed into place, so concurrent writers need no lock and a
    killed writer leaves no partial entry. Read a table with Polars alone::

        pl.read_parquet("store/entries/*/per_query.parquet")

    Logging the same evaluation twice (same run and label bytes, metrics, options and
    rankset version) writes a second entry: its rows in :meth:`runs` and
    :meth:`history` name the first one in ``duplicate_of``.

    Examples
    --------
    >>> import tempfile, rankset
    >>> from rankset.experiments import Store
    >>> folder = tempfile.mkdtemp()
    >>> store = Store(folder)
    >>> run, labels = {"q1": {"a": 2.0, "b": 1.0}}, {"q1": {"b": 1}}
    >>> first = store.log(rankset.evaluate(run, labels, ["rr"]), tag="main",
    ...                   run_sources=run, labels_source=labels)
    >>> again = store.evaluate_and_log(run, labels, ["rr"], tag="main", coverage_k=None)
    >>> store.history().select("tag", "system", "metric", "mean").rows()
    [('main', 'run', 'rr', 0.5), ('main', 'run', 'rr', 0.5)]
    >>> store.history()["duplicate_of"].to_list() == [None, first]
    True
    >>> pl.read_parquet(f"{folder}/entries/*/per_query.parquet")["value"].to_list()
    [0.5, 0.5]
    >>> import shutil; shutil.rmtree(folder)
    """

    def __init__(self, path: str | os.PathLike[str], *, create: bool = True) -> None:
        self.path = Path(path)
        if not (self.path / FORMAT_FILE).exists() and create:
            if self.path.exists() and not self.path.is_dir():
                msg = f"{self.path} is a file; a store is a folder."
                raise InputFormatError(msg)
            foreign = self.path.is_dir() and any(
                not child.name.startswith(".") for child in self.path.iterdir()
            )
            # Another writer may have created the store since the first look: its
            # store.json is linked before any entry exists, so look again before refusing.
            if foreign and not (self.path / FORMAT_FILE).exists():
                msg = (
                    f"{self.path} holds files but is no rankset store (no {FORMAT_FILE}); "
                    "give an empty or new folder."
                )
                raise InputFormatError(msg)
            self.path.mkdir(parents=True, exist_ok=True)
            write_format(self.path)
        #: The content of ``store.json`` (``format_version``, ``created``, ``created_by``).
        self.format: dict[str, Any] = check_format(self.path)

    def __repr__(self) -> str:
        return f"Store({os.fspath(self.path)!r}, {len(self.entries())} entries)"

    # --- writing ---------------------------------------------------------------------

    def log(
        self,
        result: EvaluationResult,
        *,
        tag: str | None = None,
        meta: Mapping[str, Any] | Sequence[str] | None = None,
        run_sources: object = None,
        labels_source: object = None,
    ) -> str:
        """Log an evaluation as a new entry; return its id.

        Parameters
        ----------
        result
            What :func:`rankset.evaluate` returned.
        tag
            A label to find the entry by (``"main"``, ``"release-1.2"``, a branch).
        meta
            Your own key-values (model, index, prompt...), JSON values; or ``key=value``
            strings, as the CLI's ``--meta`` gives them.
        run_sources
            The runs as evaluated (paths, frames, dicts): a mapping from system names,
            a list in system order, or one run. Their hashes identify the entry; by
            default the run paths recorded in ``result.config`` are hashed, and an
            in-memory run is known by its per-query values instead.
        labels_source
            The labels as evaluated; by default the path in ``result.config``.

        Returns
        -------
        str
            The entry id: the UTC time of the log and 8 random hex digits.
        """
        if not isinstance(result, EvaluationResult):
            msg = (
                "The 'result' parameter must be an EvaluationResult (what rankset.evaluate "
                f"returns). Got {type(result).__name__} instead."
            )
            raise ParameterError(msg)
        if tag is not None and not isinstance(tag, str):
            msg = f"The 'tag' parameter must be a str or None. Got {tag!r} instead."
            raise ParameterError(msg)
        user_meta = json.dumps(parse_meta(meta), sort_keys=True)
        now = datetime.now(UTC)
        entry_id = new_entry_id(now)
        systems = result.systems
        config = dict(result.config)
        if run_sources is None:
            recorded = config.get("runs")
            if isinstance(recorded, list):
                run_sources = [_path_or_none(source) for source in recorded]
        runs = sources_by_system(run_sources, systems)
        if labels_source is None:
            labels_source = _path_or_none(config.get("labels"))
        labels_hash = hash_source(labels_source, kind="labels")
        metrics = json.dumps(result.metrics)
        options = {key: value for key, value in config.items() if key not in ("metrics",)}
        keyed = {key: value for key, value in options.items() if key not in _NOT_IN_KEY}
        commit = git_commit()
        rows = []
        for system, source in zip(systems, runs, strict=True):
            run_hash = hash_source(source, kind="run")
            values = hash_values(result.per_query.filter(pl.col("system") == system))
            if run_hash is not None and labels_hash is not None:
                key = content_key(["inputs", run_hash, labels_hash, metrics, keyed, __version__])
            else:
                key = content_key(["values", values, metrics, __version__])
            rows.append(
                {
                    "entry_id": entry_id, "time": now, "tag": tag, "system": system,
                    "run_hash": run_hash, "labels_hash": labels_hash,
                    "run_source": describe_source(source),
                    "labels_source": describe_source(labels_source),
                    "values_hash": values, "content_key": key, "metrics": metrics,
                    "options": json.dumps(options, sort_keys=True, default=str),
                    "rankset_version": __version__, "git_commit": commit, "meta": user_meta,
                }
            )  # fmt: skip
        tables = {
            "runs": pl.DataFrame(rows, schema=SCHEMAS["runs"]),
            "summary": _with_entry(result.summary, entry_id, "summary"),
            "per_query": _with_entry(result.per_query, entry_id, "per_query"),
            "query_counts": _with_entry(result.query_counts, entry_id, "query_counts"),
            "costs": _with_entry(result.costs, entry_id, "costs"),  # None: an empty table
        }
        write_entry(self.path, entry_id, tables)
        return entry_id

    def evaluate_and_log(
        self,
        runs: Any,
        labels: Any,
        metrics: str | Metric | Iterable[str | Metric],
        *,
        tag: str | None = None,
        meta: Mapping[str, Any] | Sequence[str] | None = None,
        coverage_k: int | None = 10,
        **options: Any,
    ) -> str:
        """Evaluate runs with :func:`rankset.evaluate`, log the result; return the entry id.

        Parameters
        ----------
        runs, labels, metrics
            As :func:`rankset.evaluate` takes them; the runs and labels are hashed.
        tag, meta
            As :meth:`log` takes them.
        coverage_k
            ``judged@k`` is added to the metrics when missing, so that a later
            :func:`gate` against this entry can check the judged coverage; None adds
            nothing.
        **options
            Further options of :func:`rankset.evaluate` (``scale``, ``seed``...).
        """
        names = [metric.name for metric in parse_metrics(metrics)]
        if coverage_k is not None:
            coverage = parse_metric(f"judged@{coverage_k}").name
            if coverage not in names:
                names.append(coverage)
        result = evaluate(runs, labels, names, **options)
        return self.log(result, tag=tag, meta=meta, run_sources=runs, labels_source=labels)

    def clean(self, older_than: float = 3600.0) -> int:
        """Remove what killed writers left under ``.tmp/``; return how many were removed.

        Only folders older than ``older_than`` seconds are removed, so a write in
        progress in another process is left alone.
        """
        seconds = check_float("older_than", older_than, minimum=0.0)
        return len(remove_stale(self.path, seconds))

    # --- reading ---------------------------------------------------------------------

    def entries(self) -> list[str]:
        """Return the ids of the published entries, oldest first."""
        return [path.parent.name for path in entry_files(self.path, "runs")]

    def scan(self, table: str, entry_ids: Iterable[str] | None = None) -> pl.LazyFrame:
        """Return a lazy scan of one table (``runs``, ``summary``, ``per_query``...).

        The entries published when it is called are scanned; columns an older writer did
        not write read as null.
        """
        if table not in TABLES:
            msg = f"Unknown table {table!r}; the store has {', '.join(TABLES)}."
            raise ParameterError(msg + did_you_mean(table, TABLES))
        files = entry_files(self.path, table)
        if entry_ids is not None:
            wanted = {self._resolve(entry) for entry in _as_list(entry_ids)}
            files = [path for path in files if path.parent.name in wanted]
        if not files:
            return pl.LazyFrame(schema=SCHEMAS[table])
        return pl.scan_parquet(
            files, schema=SCHEMAS[table], missing_columns="insert", extra_columns="ignore"
        )

    def runs(self, entry_ids: Iterable[str] | None = None) -> pl.DataFrame:
        """One row per logged (entry, system), oldest first, with ``duplicate_of``.

        ``duplicate_of`` is the first entry with the same ``content_key`` (same run and
        label bytes, metrics, options and rankset version), null for the first one.
        """
        runs = self.scan("runs").collect().sort(["time", "entry_id"], maintain_order=True)
        first = pl.col("entry_id").first().over("content_key")
        runs = runs.with_columns(
            duplicate_of=pl.when(
                pl.col("content_key").is_not_null() & (first != pl.col("entry_id"))
            )
            .then(first)
            .otherwise(None)
        )
        if entry_ids is not None:
            wanted = [self._resolve(entry) for entry in _as_list(entry_ids)]
            runs = runs.filter(pl.col("entry_id").is_in(wanted))
        return runs

    def summary(self, entry_ids: Iterable[str] | None = None) -> pl.DataFrame:
        """Means with CIs: ``entry_id, system, metric, mean, ci_low, ci_high, ...``."""
        return self.scan("summary", entry_ids).collect()

    def per_query(self, entry_ids: Iterable[str] | None = None) -> pl.DataFrame:
        """Per-query values: ``entry_id, system, query_id, metric, measure, k, value``."""
        return self.scan("per_query", entry_ids).collect()

    def history(
        self,
        metric: str | Sequence[str] | None = None,
        tag: str | None = None,
        *,
        system: str | None = None,
        drop_duplicates: bool = False,
    ) -> pl.DataFrame:
        """One row per (entry, system, metric), oldest first: how the means moved.

        Parameters
        ----------
        metric
            Metric(s) to keep (any spelling); all by default.
        tag
            Keep the entries with this tag.
        system
            Keep this system.
        drop_duplicates
            Leave out entries that repeat an earlier one (``duplicate_of`` set).

        Returns
        -------
        polars.DataFrame
            ``entry_id, time, tag, system, metric, mean, ci_low, ci_high, n_queries, n_na,
            git_commit, duplicate_of, meta, options`` (the last two JSON objects as text).
        """
        from_runs = ("entry_id", "time", "tag", "system", "git_commit", "duplicate_of")
        runs = self.runs().select(*from_runs, "meta", "options")
        if tag is not None:
            runs = runs.filter(pl.col("tag") == tag)
        if system is not None:
            runs = runs.filter(pl.col("system") == system)
        if drop_duplicates:
            runs = runs.filter(pl.col("duplicate_of").is_null())
        summary = self.summary()
        if metric is not None:
            wanted = [parse_metric(name).name for name in _as_list(metric)]
            summary = summary.filter(pl.col("metric").is_in(wanted))
        return (
            summary.join(runs, on=["entry_id", "system"], how="inner", maintain_order="left")
            .sort(["time", "entry_id"], maintain_order=True)
            .select(HISTORY_COLUMNS)
        )

    def result(
        self, entry_id: str, *, system: str | None = None, name: str | None = None
    ) -> EvaluationResult:
        """Return an entry as an :class:`~rankset.EvaluationResult`, for compare or gate.

        Parameters
        ----------
        entry_id
            The entry's id, or a prefix of it that names one entry.
        system
            Keep this system of the entry only.
        name
            Rename the (one) system, e.g. to stack two entries for
            :func:`rankset.compare`.
        """
        entry = self._resolve(entry_id)
        info = self.runs([entry])
        systems = info["system"].to_list()
        if system is not None:
            if system not in systems:
                msg = f"Entry {entry} has no system {system!r}; it has {systems}."
                raise ParameterError(msg + did_you_mean(system, systems))
            systems = [system]
        if name is not None and len(systems) != 1:
            msg = (
                f"Entry {entry} holds {len(systems)} systems ({systems}); pick one with "
                "'system' before renaming it with 'name'."
            )
            raise ParameterError(msg)
        rename = {systems[0]: name} if name is not None else {}

        def table(which: str) -> pl.DataFrame:
            frame = self.scan(which, [entry]).collect().drop("entry_id")
            frame = frame.filter(pl.col("system").is_in(systems))
            return frame.with_columns(pl.col("system").replace(rename))

        row = info.row(0, named=True)
        config: dict[str, Any] = json.loads(row["options"] or "{}")
        config.update(
            metrics=json.loads(row["metrics"] or "[]"),
            systems=[rename.get(s, s) for s in systems],
            entry_id=entry,
            tag=row["tag"],
            time=row["time"].isoformat(),
            labels_hash=row["labels_hash"],
            git_commit=row["git_commit"],
            meta=json.loads(row["meta"] or "{}"),
        )
        costs = table("costs")  # none recorded (or an entry older than costs): None
        return EvaluationResult(
            per_query=table("per_query"),
            summary=table("summary"),
            query_counts=table("query_counts"),
            config=config,
            costs=costs if costs.height else None,
        )

    def latest(
        self, tag: str | None = None, *, system: str | None = None, name: str | None = None
    ) -> EvaluationResult:
        """Return the newest entry (with ``tag``, holding ``system``) as a result.

        What :func:`gate` takes as its baseline: ``gate(new, store.latest(tag="main"),
        ...)``. ``config["entry_id"]`` of the result names the entry.
        """
        runs = self.runs()
        picked = runs
        if tag is not None:
            picked = picked.filter(pl.col("tag") == tag)
        if system is not None:
            picked = picked.filter(pl.col("system") == system)
        if picked.is_empty():
            tags = sorted(str(t) for t in runs["tag"].drop_nulls().unique())
            wanted = (f"tag {tag!r}" if tag else "", f"system {system!r}" if system else "")
            asked = " and ".join(part for part in wanted if part)
            msg = f"The store {self.path} has no entry" + (f" with {asked}" if asked else "")
            msg += f"; tags present: {tags}." if tags else "."
            raise ParameterError(msg + (did_you_mean(tag, tags) if tag else ""))
        return self.result(picked["entry_id"][-1], system=system, name=name)

    def sources(self, entry_ids: Iterable[str] | None = None) -> tuple[dict[str, str], str | None]:
        """Return the run files of entries by name, and their labels file if they share one.

        What :func:`rankset.dashboard` (CLI ``rankset dashboard --store``) reads
        to put entries side by side: each system of each entry is named
        ``<label>:<system>``, the label being the tag, ``tag@short id`` or the short id
        (:func:`~rankset.experiments._layout.entry_labels`).

        Parameters
        ----------
        entry_ids
            The entries (ids or unique prefixes); None: every entry.

        Returns
        -------
        tuple
            ``({name: run path}, labels path or None)``; the labels path is None when the
            entries were judged by different labels (or by labels in memory).

        Raises
        ------
        ParameterError
            When an entry's run was logged from memory or its file is gone.
        """
        chosen = None if entry_ids is None else [self._resolve(e) for e in _as_list(entry_ids)]
        runs = self.runs(chosen)
        if runs.height == 0:
            msg = f"The store {self.path} has no entry to show."
            raise ParameterError(msg)
        labels_of = entry_labels(runs.select("entry_id", "tag").unique(maintain_order=True).rows())
        by_name: dict[str, str] = {}
        for row in runs.iter_rows(named=True):
            label = labels_of[row["entry_id"]]
            source = row["run_source"]
            if source is None or source.startswith("<") or not Path(source).is_file():
                msg = (
                    f"Entry {row['entry_id']} ({row['system']}) has no run file to read "
                    f"(recorded: {source}); log runs from files to show them side by side."
                )
                raise ParameterError(msg)
            by_name[f"{label}:{row['system']}"] = source
        labels = runs["labels_source"].unique().to_list()
        shared = labels[0] if len(labels) == 1 else None
        if shared is not None and (shared.startswith("<") or not Path(shared).is_file()):
            shared = None
        return by_name, shared

    def to_mlflow(
        self,
        entry_id: str | None = None,
        *,
        tracking_uri: str | None = None,
        experiment: str | None = None,
        run_name: str | None = None,
    ) -> str:
        """Log an entry to an MLflow run: its means as metrics, its Parquet as artifacts.

        Parameters
        ----------
        entry_id
            The entry (an id or a unique prefix); None: the newest.
        tracking_uri, experiment
            Where to log (MLflow's own defaults when None: ``./mlruns`` or
            ``MLFLOW_TRACKING_URI``).
        run_name
            The MLflow run's name; the entry's tag (or its id) when None.

        Returns
        -------
        str
            The MLflow run id. Metrics are named ``<system>/<metric>`` with ``@`` spelled
            ``_at_`` (``bm25/ndcg_at_10``), as MLflow's names allow; the run's hashes,
            metrics, options and version are parameters, its tag, git commit and meta are
            tags, and the entry's Parquet tables are artifacts under ``rankset/``. Needs
            ``pip install "rankset[mlflow]"``.
        """
        from rankset.experiments._mlflow import log_entry_to_mlflow

        if entry_id is None:
            entries = self.entries()
            if not entries:
                msg = f"The store {self.path} has no entry to log."
                raise ParameterError(msg)
            entry_id = entries[-1]
        entry_id = self._resolve(entry_id)
        return log_entry_to_mlflow(
            self.path / ENTRIES / entry_id,
            self.runs([entry_id]),
            self.summary([entry_id]),
            tracking_uri=tracking_uri,
            experiment=experiment,
            run_name=run_name,
        )

    def _resolve(self, entry_id: str) -> str:
        """Return the entry an id, a unique prefix, a short id or ``tag@short id`` names."""
        if not isinstance(entry_id, str) or not entry_id:
            msg = f"An entry id must be a non-empty str. Got {entry_id!r} instead."
            raise ParameterError(msg)
        if (self.path / ENTRIES / entry_id / "runs.parquet").is_file():
            return entry_id
        entries = self.entries()
        tags = dict(self.runs().select("entry_id", "tag").unique().iter_rows())
        matches = [entry for entry in entries if entry_named(entry_id, entry, tags.get(entry))]
        if len(matches) != 1:
            matches = [entry for entry in entries if entry.startswith(entry_id)]
        if len(matches) == 1:
            return matches[0]
        if matches:
            msg = f"The entry id prefix {entry_id!r} names {len(matches)} entries: {matches[:5]}."
        else:
            msg = f"The store {self.path} has no entry {entry_id!r}." + did_you_mean(
                entry_id, entries
            )
        raise ParameterError(msg)


def _with_entry(frame: pl.DataFrame | None, entry_id: str, table: str) -> pl.DataFrame:
    schema = SCHEMAS[table]
    frame = pl.DataFrame(schema=schema) if frame is None else frame
    present = [name for name in schema if name in frame.columns]
    return frame.select(
        pl.lit(entry_id, dtype=pl.String).alias("entry_id"),
        *[pl.col(name).cast(schema[name]) for name in present if name != "entry_id"],
    ).with_columns(
        pl.lit(None, dtype=dtype).alias(name)
        for name, dtype in schema.items()
        if name not in present and name != "entry_id"
    )


def _path_or_none(recorded: object) -> str | None:
    """Return a path recorded in a config; None for a ``<dict>``-style stand-in."""
    if isinstance(recorded, str) and not (recorded.startswith("<") and recorded.endswith(">")):
        return recorded
    return None


def _as_list(value: str | Iterable[str]) -> list[str]:
    return [value] if isinstance(value, str) else list(value)
