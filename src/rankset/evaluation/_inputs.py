"""Reading an evaluation's inputs: runs and their system names, labels, cutoffs.

The naming rule is stated here once: an explicit name wins, else the run's tag when it
is uniform in the input, else the file stem; file stems when two runs share a tag.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import polars as pl

from rankset import io as rio
from rankset._typing import (
    DatasetChecks,
    DuplicatePolicy,
    OrderPolicy,
    PassEngine,
    ScorePrecision,
)
from rankset.errors import ParameterError, SchemaError
from rankset.evaluation._pass import PEEK_ROWS
from rankset.evaluation._runs import RowOrder, RunPart, Runs, collect_frames
from rankset.io import ParsedInput
from rankset.io._shared import (
    concat_named_frames,
    looks_like_ranx,
    parse_ranx_runs,
    scan_trec_run,
)
from rankset.schema import normalize_cutoffs
from rankset.schema._rules import (
    duplicate_docs,
    raise_on_duplicate_docs,
    run_profile,
    scores_present,
)

__all__ = [
    "RunInput",
    "assign_system_names",
    "carried_labels",
    "is_ranx_run",
    "numbered_runs",
    "read_cutoffs",
    "read_labels",
    "read_runs",
]


@dataclass(frozen=True)
class RunInput:
    """One run input as read, and the name the caller gave it (if any)."""

    parsed: ParsedInput
    name: str | None


def read_runs(runs: Any, names: Sequence[str] | None, *, scan_text: bool = False) -> list[RunInput]:
    """Read each run input; ``scan_text``: plain TREC files lazily (see ``TextScan``)."""
    items: list[tuple[str | None, Any]]
    if isinstance(runs, Mapping) and not is_ranx_run(runs):
        items = [(str(name), source) for name, source in runs.items()]
    elif isinstance(runs, list | tuple):
        items = [(None, source) for source in runs]
    else:
        items = [(None, runs)]
    if not items:
        msg = "No run was given: pass at least one run."
        raise ParameterError(msg)
    if names is not None:
        if isinstance(names, str) or len(names) != len(items):
            msg = (
                f"The 'names' parameter must give one name per run ({len(items)} runs). "
                f"Got {names!r} instead."
            )
            raise ParameterError(msg)
        items = [(str(name), source) for name, (_, source) in zip(names, items, strict=True)]
    if len(items) > 1 and isinstance(runs, Mapping):
        together = _read_together(runs, [str(name) for name, _ in items])
        if together is not None:
            return [RunInput(together, None)]
    parsed = [_read_run(source, scan_text) for _, source in items]
    if any(item.buckets is not None for item in parsed):
        # A partitioned dataset brings its buckets, and each would parse a scan again.
        parsed = [
            rio.read(source, kind="run") if item.scan is not None else item
            for item, (_, source) in zip(parsed, items, strict=True)
        ]
    return [RunInput(item, name) for item, (name, _) in zip(parsed, items, strict=True)]


def _read_together(runs: Mapping[Any, Any], names: list[str]) -> ParsedInput | None:
    """Read runs given by name as one run with a system column; None to read each.

    Many dict runs, or many Polars frames of one schema, are then measured in one pass
    rather than one per run; the results list the systems in the order given.
    """
    if len(set(names)) != len(names):  # the naming rule says what to do then
        return None
    together = parse_ranx_runs(runs, names)
    if together is not None:
        return together
    stacked = concat_named_frames(runs, names)
    if stacked is None:
        return None
    return dataclasses.replace(rio.read(stacked, kind="run"), systems=tuple(names))


def _read_run(source: Any, scan_text: bool) -> ParsedInput:
    scanned = scan_trec_run(source) if scan_text else None
    return scanned if scanned is not None else rio.read(source, kind="run")


def is_ranx_run(obj: Mapping[Any, Any]) -> bool:
    """``{qid: {doc: number}}`` is one run; ``{name: run}`` names several."""
    return looks_like_ranx(obj)


def assign_system_names(
    inputs: list[RunInput],
    *,
    order: OrderPolicy,
    duplicates: DuplicatePolicy,
    engine: PassEngine | Literal["dask"],
    score_precision: ScorePrecision = "float64",
    assume_scores: bool = False,
) -> Runs:
    """Apply the naming rule (explicit name > uniform tag > file stem) and normalise.

    ``assume_scores``: a Parquet run with a score column and no system column is assumed
    to have a score on every row (:func:`_assumes_scores`), and its profile comes from
    the file's metadata; the pass over the runs verifies the assumption
    (:attr:`RunPart.scores_assumed`).
    """
    for item in inputs:
        if item.parsed.run is None:
            msg = f"{item.parsed.source}: no run found in this input."
            raise SchemaError(msg)
    profiles = _run_profiles(inputs, engine, assume_scores=assume_scores)
    names = _system_names(inputs, profiles)
    default_names = ["run"] if len(inputs) == 1 else [f"run{i + 1}" for i in range(len(inputs))]
    parts = [
        _run_part(
            item,
            name,
            fallback,
            profile,
            order=order,
            duplicates=duplicates,
        )
        for item, name, fallback, profile in zip(
            inputs, names, default_names, profiles, strict=True
        )
    ]
    return Runs(inputs=parts, order=order, duplicates=duplicates, score_precision=score_precision)


def _run_profiles(
    inputs: list[RunInput], engine: PassEngine | Literal["dask"], *, assume_scores: bool = False
) -> list[dict[str, Any]]:
    """Return each run's profile: its tag(s), and whether its scores exist.

    One pass over every run answers both questions asked before planning. A partitioned
    dataset's manifest holds its profile already: no pass over it here. Nor over a lazily
    scanned text file: its first line's tag is assumed to be every line's and each line
    has a score; the pass over the runs verifies both. With ``assume_scores`` neither
    over a Parquet run whose tags need no pass (:func:`_assumes_scores`): its row count
    is read from the file's metadata and its ``n_scores`` left None (unknown).

    Raises
    ------
    SchemaError
        When a run has no rows.
    """
    unknown = [
        run_profile(
            item.parsed.run,
            absent=item.parsed.absent,
            assume_scores=assume_scores and _assumes_scores(item.parsed),
        )
        for item in inputs
        if _known_profile(item.parsed) is None and item.parsed.run is not None
    ]
    measured = iter(collect_frames(unknown, engine) if unknown else [])
    profiles = [
        known
        if (known := _known_profile(item.parsed)) is not None
        else next(measured).row(0, named=True)
        for item in inputs
    ]
    for item, profile in zip(inputs, profiles, strict=True):
        if profile["n_rows"] == 0:
            msg = f"{item.parsed.source}: the run has no rows; expected at least one ranking"
            raise SchemaError(msg)
    return profiles


def _system_names(inputs: list[RunInput], profiles: list[dict[str, Any]]) -> list[str | None]:
    """Name each run: explicit name > uniform tag > file stem; stems when two would clash.

    ``None`` leaves a multi-system frame its own ``system`` column.

    Raises
    ------
    ParameterError
        When two runs would still get the same name.
    """
    candidates = [
        _name_candidates(item, profile) for item, profile in zip(inputs, profiles, strict=True)
    ]
    chosen = [tag for tag, _ in candidates]
    named = [c for c in chosen if c is not None]
    if len(set(named)) == len(named):
        return chosen
    # Two inputs would share a name (every rank_llm run is tagged "rank"): use stems.
    chosen = [stem if tag is not None else None for tag, stem in candidates]
    explicit = [c for c in chosen if c is not None]
    if len(set(explicit)) != len(explicit):
        msg = (
            "Two runs would get the same system name "
            f"({', '.join(sorted({c for c in explicit if explicit.count(c) > 1}))}); "
            "give each a name (names=..., CLI --name)."
        )
        raise ParameterError(msg)
    return chosen


def _name_candidates(item: RunInput, profile: dict[str, Any]) -> tuple[str | None, str | None]:
    """Return a run's name by tag (or the explicit one) and its name by file stem."""
    if item.name is not None:
        return item.name, item.name
    tags: list[str] = profile["tags"]
    is_file = item.parsed.stem is not None
    if len(tags) == 1 and not (is_file and _placeholder_tag(tags[0])):
        return tags[0], item.parsed.stem
    if len(tags) > 1 and not is_file:
        return None, None  # a multi-system frame keeps its column
    return item.parsed.stem, item.parsed.stem


def _run_part(
    item: RunInput,
    name: str | None,
    fallback: str,
    profile: dict[str, Any],
    *,
    order: OrderPolicy,
    duplicates: DuplicatePolicy,
) -> RunPart:
    """Return one run with its system column, ready for the pass over the runs.

    ``fallback`` names the run (or the rows of a frame's null systems) when ``name`` is
    ``None``: ``run``, or ``run1``, ``run2``... with several.
    """
    run = item.parsed.run
    assert run is not None  # checked by assign_system_names
    costs = item.parsed.costs
    # One dict run's system column is null on every row (parse_ranx): the fallback.
    one_dict = item.parsed.format == "ranx" and item.parsed.systems is None
    if name is None and not one_dict and "system" in run.collect_schema().names():
        system = pl.col("system").cast(pl.String).fill_null(fallback)
        literal = None
    else:
        literal = name or fallback
        system = pl.lit(literal, dtype=pl.String)
    frame = run.with_columns(system=system)
    if costs is not None:  # named as the run's rows are (a run's system column is null)
        if "system" not in costs.collect_schema().names():
            costs = costs.with_columns(system=pl.lit(None, dtype=pl.String))
        costs = costs.with_columns(system=system)
    # order="rank" never looks at scores, so partly missing ones are no error there.
    # A scanned file's, or an assumed, profile has no score count: the pass checks them.
    assumed = item.parsed.scan is None and profile["n_scores"] is None
    has_scores = order != "rank" and (
        item.parsed.scan is not None
        or assumed
        or scores_present(profile["n_scores"], profile["n_rows"], item.parsed.source)
    )
    row_order: RowOrder | None = "any"  # keep_best drops copies while ranking: rank it
    # A run its reader sized (a dict) no longer than the peek is ranked: looking at its
    # order would cost as much as ranking it. Else the pass looks at its first rows.
    short = item.parsed.profile is not None and profile["n_rows"] <= PEEK_ROWS
    if duplicates == "error" and not short:
        row_order = None
    return RunPart(
        frame,
        item.parsed.source,
        has_scores,
        item.parsed.buckets,
        profile,
        literal,
        row_order=row_order,
        scan=item.parsed.scan,
        rows_checked=item.parsed.rows_checked,
        unique_docs=item.parsed.unique_docs,
        ranking_numbers=item.parsed.ranking_numbers,
        query_ids=item.parsed.query_ids,
        systems=item.parsed.systems,
        costs=costs,
        scores_assumed=has_scores and assumed,
    )


# Run tags that name a toolkit or hold a placeholder, not a system: a file tagged so is
# named by its stem (every rank_llm run is tagged "rank", every Anserini run "Anserini").
_PLACEHOLDER_TAGS = frozenset(
    {"rank", "run", "runid", "run_id", "tag", "system", "sys", "default", "dummy", "test"}
    | {"none", "null", "anserini", "pyserini", "terrier", "pyterrier", "lucene", "indri"}
    | {"rank_llm", "ranx", "trec", "trec_eval"}
)


def _placeholder_tag(tag: str) -> bool:
    """Whether a run tag says nothing about the system (a placeholder, a toolkit, a number).

    Examples
    --------
    >>> _placeholder_tag("rank"), _placeholder_tag("Anserini"), _placeholder_tag("0")
    (True, True, True)
    >>> _placeholder_tag("bm25"), _placeholder_tag("splade-pp-ed")
    (False, False)
    """
    return tag.casefold() in _PLACEHOLDER_TAGS or tag.isdigit()


def _assumes_scores(parsed: ParsedInput) -> bool:
    """Whether a run's profile may assume a score on every row, read from metadata.

    A Parquet run (file, folder or pattern) with a score column and no system column:
    its profile would read the whole score column to count the nulls (its pages carry
    no statistics unless the writer kept them). It is assumed there are none and the
    pass counts them; one found, the evaluation is planned again from exact profiles.
    """
    return (
        parsed.format == "parquet"
        and parsed.profile is None
        and parsed.buckets is None
        and "system" in parsed.absent
        and "score" not in parsed.absent
    )


def _known_profile(parsed: ParsedInput) -> dict[str, Any] | None:
    """Return the run profile known without reading the run (a dataset's, a scan's)."""
    if parsed.scan is not None:
        # Counts unknown until the pass; every line of the layout has a score.
        return {"tags": [parsed.scan.tag], "n_scores": None, "n_rows": None}
    return parsed.profile


def cut_runs(
    runs: Runs, labels: pl.LazyFrame, *, max_depth: int | None, judged_only: bool
) -> tuple[Runs, pl.DataFrame | None]:
    """Apply ``max_depth`` (trec_eval's -M) then ``judged_only`` (-J) to every run.

    Returns the cut runs, and with ``judged_only`` the ``(system, query_id)`` pairs
    ranked before the cut: a ranking the cut empties is still an answered query, scored
    as an empty ranking, as trec_eval scores it.
    """
    if max_depth is None and not judged_only:
        return runs, None
    parts = []
    ranked = []
    for part in runs.inputs:
        frame = part.frame
        if max_depth is not None:
            cast, key = runs.cast(part, None)
            frame = cast.sort(
                ["system", "query_id", key, "doc_id"], descending=[False, False, True, True]
            )
            if runs.duplicates == "keep_best":  # the ranking keep_best makes is the one cut
                frame = frame.unique(
                    ["system", "query_id", "doc_id"], keep="first", maintain_order=True
                )
            frame = frame.filter(pl.int_range(pl.len()).over("system", "query_id") < max_depth)
        if judged_only:
            ranked.append(frame.select("system", "query_id").unique())
            judged = labels.filter(pl.col("grade") >= 0).select("query_id", "doc_id").unique()
            frame = frame.join(judged, on=["query_id", "doc_id"], how="semi")
        parts.append(dataclasses.replace(part, frame=frame, row_order="any", ranking_numbers=None))
    answered = pl.concat(ranked).collect() if ranked else None
    return dataclasses.replace(runs, inputs=parts), answered


def read_labels(
    labels: Any, inputs: list[RunInput], dataset_checks: DatasetChecks = "error"
) -> ParsedInput | None:
    if labels is not None:
        return rio.read(labels, kind="labels", dataset_checks=dataset_checks)
    carried = [item.parsed for item in inputs if item.parsed.labels is not None]
    if not carried:
        return None
    if len(carried) > 1:
        # Several sample files: their labels must agree; take their union.
        union = pl.concat([p.labels for p in carried if p.labels is not None]).unique()
        return ParsedInput(
            source=" + ".join(p.source for p in carried),
            stem=None,
            format=carried[0].format,
            run=None,
            labels=union,
            cutoffs=carried[0].cutoffs,
            answers=carried[0].answers,
            relevance_level=min(
                (p.relevance_level for p in carried if p.relevance_level is not None),
                default=None,
            ),
        )
    return carried[0]


def carried_labels(runs: Any, names: Sequence[str] | None = None) -> pl.DataFrame | None:
    """Return the labels the runs carry (JSONL samples with expected_output), or None.

    Examples
    --------
    >>> carried_labels({"q1": {"d1": 1.0}}) is None
    True
    """
    parsed = read_labels(None, read_runs(runs, names))
    if parsed is None or parsed.labels is None:
        return None
    labels = parsed.labels
    return labels.collect() if isinstance(labels, pl.LazyFrame) else labels


def read_cutoffs(
    cutoffs: Any, inputs: list[RunInput], label_input: ParsedInput
) -> pl.LazyFrame | None:
    if cutoffs is None:
        found = [i.parsed.cutoffs for i in inputs if i.parsed.cutoffs is not None]
        if label_input.cutoffs is not None:
            found.append(label_input.cutoffs)
        if not found:
            return None
        return normalize_cutoffs(pl.concat(found).unique())
    if isinstance(cutoffs, Mapping):
        frame = pl.LazyFrame(
            {"query_id": [str(q) for q in cutoffs], "k": list(cutoffs.values())},
            schema={"query_id": pl.String, "k": pl.Int64},
        )
        return normalize_cutoffs(frame)
    if isinstance(cutoffs, pl.DataFrame):
        return normalize_cutoffs(cutoffs.lazy())
    if isinstance(cutoffs, pl.LazyFrame):
        return normalize_cutoffs(cutoffs)
    msg = (
        "The 'cutoffs' parameter must be a {query_id: k} dict or a frame with columns "
        f"query_id, k. Got {type(cutoffs).__name__} instead."
    )
    raise ParameterError(msg)


def numbered_runs(
    runs: Any,
    *,
    names: Sequence[str] | None = None,
    order: OrderPolicy = "auto",
    score_precision: ScorePrecision = "float64",
) -> pl.DataFrame:
    """Every row of the runs, named and numbered as :func:`rankset.evaluate` does.

    Returns ``system, query_id, doc_id, pos`` (and the runs' other columns): systems
    named by the same rule (explicit name > uniform tag > file stem), each ranking in
    trec_eval's order. A ranking that repeats a document is refused, as evaluate does.

    Examples
    --------
    >>> numbered_runs({"a": {"q": {"x": 1.0, "y": 2.0}}}).select("doc_id", "pos").rows()
    [('y', 1), ('x', 2)]
    """
    inputs = read_runs(runs, names)
    named = assign_system_names(
        inputs, order=order, duplicates="error", engine="in-memory", score_precision=score_precision
    )
    frames = []
    for part in named.inputs:
        numbered = named.numbered(part).collect()
        offenders = duplicate_docs(numbered.lazy()).collect()
        raise_on_duplicate_docs(offenders, part.source)
        frames.append(numbered.sort("system", "query_id", "pos", maintain_order=True))
    return pl.concat(frames, how="diagonal_relaxed")  # the inputs in the order given
