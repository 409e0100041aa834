"""``optimize_fusion``: a grid of fusion configurations evaluated in one pass."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl

from rankset._format import ReprTable, counted, html_repr, text_repr
from rankset._typing import IntoLabels, IntoRun
from rankset._validation import check_choice
from rankset.errors import ParameterError
from rankset.evaluation import evaluate
from rankset.fusion._fuse import (
    check_parameters,
    check_weights,
    fuse,
    fused_rows,
    long_rows,
    prepared_rows,
    resolve_method,
)
from rankset.fusion._methods import NORMS, FusionMethod, Norm
from rankset.measures import Metric, greater_is_better, parse_metric

__all__ = ["FusionSearch", "optimize_fusion"]

# Configurations a repr shows.
_SHOWN = 5


@dataclass(frozen=True)
class FusionSearch:
    """The outcome of :func:`optimize_fusion`.

    Attributes
    ----------
    best
        The best configuration on the training queries: ``method``, ``norm``, ``weights``
        and the method's parameters, ready for ``fuse(runs, **best)``.
    table
        One row per configuration, best first: its settings, ``train`` and ``test``
        (the metric's mean on the training and held-out queries; null without them),
        ``n_train`` and ``n_test``.
    metric
        The canonical name of the metric optimised.
    """

    best: dict[str, Any]
    table: pl.DataFrame
    metric: str

    def _repr_blocks(self) -> tuple[str, str, ReprTable]:
        """Return the title, the best configuration, and the best few rows of the table."""
        sizes = ""
        if self.table.height and {"n_train", "n_test"} <= set(self.table.columns):
            n_train, n_test = self.table.select("n_train", "n_test").row(0)
            sizes = f" ({n_train} train, {n_test} test queries)"
        method = self.best.get("method", "fusion")
        title = (
            f"FusionSearch: {counted(self.table.height, f'{method} configuration')} "
            f"by {self.metric}{sizes}"
        )
        best = ", ".join(f"{key}={value!r}" for key, value in self.best.items())
        table = ReprTable(
            self.table.columns,
            self.table.head(_SHOWN).rows(),
            n_rows=self.table.height,
            row_noun="configurations",
            caption="best first:",
        )
        return title, f"best: {best}", table

    def __repr__(self) -> str:
        return text_repr(*self._repr_blocks())

    def _repr_html_(self) -> str:
        return html_repr(*self._repr_blocks())


def optimize_fusion(
    runs: Sequence[IntoRun] | Mapping[str, IntoRun],
    labels: IntoLabels,
    method: str = "rrf",
    metric: str = "ndcg@10",
    *,
    grid: Mapping[str, Iterable[Any]] | None = None,
    train_queries: Iterable[str] | None = None,
    norm: Norm | None = None,
    **evaluate_options: Any,
) -> FusionSearch:
    """Find the fusion configuration with the best mean metric on training queries.

    Every configuration of ``grid`` is fused and all of them are evaluated at once, as
    the systems of one evaluation (the configuration is the system column), so the grid
    costs one pass, not one evaluation per configuration. The best configuration is the
    one with the highest mean on ``train_queries`` (lowest for a lower-is-better metric;
    the first in grid order on a tie); the table also shows each configuration's mean on
    the other labelled queries, to see whether the tuning generalised.

    Parameters
    ----------
    runs, method, norm
        As for :func:`rankset.fuse`.
    labels
        The labels (qrels).
    metric
        The metric to maximise.
    grid
        Values to try per setting: the method's parameters (``k``, ``gamma``, ``phi``,
        ``sigma``), ``weights`` (a list of weight lists) and ``norm`` (a list of
        normalisations). By default: ``k`` in 10, 20, ..., 100 for ``rrf``; weights in
        steps of 0.1 summing to 1 for two-run weighted methods.
    train_queries
        The queries to tune on; by default every labelled query (then ``test`` is null).
    **evaluate_options
        Passed to :func:`rankset.evaluate` (``relevance_level``, ``scale``...).

    Examples
    --------
    >>> import rankset
    >>> bm25 = {"q1": {"a": 3.0, "b": 2.0}, "q2": {"c": 2.0, "d": 1.0}}
    >>> dense = {"q1": {"b": 0.9, "a": 0.1}, "q2": {"d": 0.8, "c": 0.7}}
    >>> labels = {"q1": {"b": 1}, "q2": {"d": 1}}
    >>> search = rankset.optimize_fusion([bm25, dense], labels, "wsum", "rr",
    ...                                  grid={"weights": [[0.8, 0.2], [0.2, 0.8]]})
    >>> search.best["weights"], search.table["train"].to_list()
    ([0.2, 0.8], [1.0, 0.5])
    """
    fusion = resolve_method(method)
    target = parse_metric(metric)
    sources = list(runs.values()) if isinstance(runs, Mapping) else list(runs)
    configurations = _configurations(fusion.name, fusion.params, grid or {}, len(sources), norm)
    # Check every configuration as fuse() would, before any work.
    settled = [_settle(fusion, config, len(sources)) for config in configurations]
    train = None if train_queries is None else {str(q) for q in train_queries}
    if fusion.trained:
        frames = _trained_runs(sources, fusion, labels, configurations, train)
    else:
        frames = _fused_runs(sources, fusion, settled)
    # Collected once: the evaluation reads its runs twice (their profile, then the pass).
    fused = pl.concat(frames, how="vertical").collect()
    means = _train_test_means(fused, labels, target, train, evaluate_options)
    settings = pl.DataFrame(
        {
            "system": list(range(len(configurations))),
            "settings": [json.dumps(config, sort_keys=True) for config in configurations],
        }
    )
    higher = greater_is_better(target)
    ranked = settings.join(means, on="system", how="left").sort(
        ["train", "system"], descending=[higher, False], nulls_last=True
    )
    best = {"method": fusion.name, **configurations[int(ranked["system"][0])]}
    return FusionSearch(best=best, table=ranked.drop("system"), metric=target.name)


def _trained_runs(
    sources: list[IntoRun],
    fusion: FusionMethod,
    labels: IntoLabels,
    configurations: list[dict[str, Any]],
    train: set[str] | None,
) -> list[pl.LazyFrame]:
    """Fuse with a trained method: trained on the training queries, once per configuration.

    Each fused run is named by its configuration's number.
    """
    return [
        fuse(
            sources,
            fusion.name,
            name=str(number),
            labels=labels,
            train_queries=train,
            **config,
        )
        for number, config in enumerate(configurations)
    ]


def _fused_runs(
    sources: list[IntoRun],
    fusion: FusionMethod,
    settled: list[tuple[Norm, dict[str, float], list[float]]],
) -> list[pl.LazyFrame]:
    """Fuse every configuration, one frame per normalisation; ``system``: its number.

    The runs are read and normalised once per normalisation, and every configuration
    with that normalisation is fused from the same rows (its parameters and weights
    joined on as columns).
    """
    base = long_rows(sources, [1.0] * len(sources), None)
    frames = []
    for chosen_norm in dict.fromkeys(norm_ for norm_, _, _ in settled):
        numbers = [i for i, (norm_, _, _) in enumerate(settled) if norm_ == chosen_norm]
        params, weights = _configuration_rows(fusion, settled, numbers, len(sources))
        if fusion.name == "borda":  # its points depend on the weights
            prepared = prepared_rows(
                _per_configuration(base, params, weights), fusion, chosen_norm, by=["_config"]
            )
        else:
            prepared = _per_configuration(prepared_rows(base, fusion, chosen_norm), params, weights)
        frames.append(
            fused_rows(
                prepared,
                fusion,
                {key: pl.col(key) for key in fusion.params},
                name=pl.col("_config").cast(pl.String),
                by=["_config"],
                ranked=False,
            )
        )
    return frames


def _configuration_rows(
    fusion: FusionMethod,
    settled: list[tuple[Norm, dict[str, float], list[float]]],
    numbers: list[int],
    n_runs: int,
) -> tuple[pl.LazyFrame, pl.LazyFrame]:
    """Return the parameters and the weights of the configurations ``numbers``.

    Parameters: ``_config`` and one column per parameter; weights: ``_config, run,
    weight``, a row per run.
    """
    params = pl.LazyFrame(
        {
            "_config": numbers,
            **{key: [settled[i][1][key] for i in numbers] for key in fusion.params},
        },
        schema={"_config": pl.Int64, **dict.fromkeys(fusion.params, pl.Float64)},
    )
    weights = pl.LazyFrame(
        {
            "_config": [i for i in numbers for _ in range(n_runs)],
            "run": [run for _ in numbers for run in range(n_runs)],
            "weight": [w for i in numbers for w in settled[i][2]],
        },
        schema={"_config": pl.Int64, "run": pl.Int32, "weight": pl.Float64},
    )
    return params, weights


def _per_configuration(
    rows: pl.LazyFrame, params: pl.LazyFrame, weights: pl.LazyFrame
) -> pl.LazyFrame:
    """Repeat the rows once per configuration, with its weights and parameters."""
    return rows.drop("weight").join(weights, on="run").join(params, on="_config")


def _train_test_means(
    fused: pl.DataFrame,
    labels: IntoLabels,
    target: Metric,
    train: set[str] | None,
    evaluate_options: Mapping[str, Any],
) -> pl.DataFrame:
    """Evaluate the fused runs: ``system`` (int), then the means on training and test queries.

    Raises
    ------
    ParameterError
        When no training query is a labelled query the runs answer.
    """
    result = evaluate(fused, labels, [target], confidence=None, **evaluate_options)
    per_query = result.per_query.select(pl.col("system").cast(pl.Int64), "query_id", "value")
    if train is not None and not train & set(per_query["query_id"].to_list()):
        msg = "None of the train_queries is a labelled query the runs answer."
        raise ParameterError(msg)
    in_train = pl.lit(True) if train is None else pl.col("query_id").is_in(sorted(train))
    value = pl.col("value")
    return per_query.group_by("system").agg(
        train=value.filter(in_train).mean(),
        test=value.filter(~in_train).mean(),
        n_train=value.filter(in_train).len(),
        n_test=value.filter(~in_train).len(),
    )


def _settle(
    fusion: FusionMethod, config: Mapping[str, Any], n_runs: int
) -> tuple[Norm, dict[str, float], list[float]]:
    """Return a configuration's normalisation, parameters (defaults filled) and weights."""
    chosen: Norm = config.get("norm") or "min-max"
    check_choice("norm", chosen, NORMS)
    if "norm" in config and not fusion.uses_scores:
        msg = f"{fusion.name} fuses positions, not scores: leave norm out of the grid."
        raise ParameterError(msg)
    params = {key: value for key, value in config.items() if key not in ("norm", "weights")}
    return (
        chosen,
        check_parameters(fusion, params),
        check_weights(config.get("weights"), n_runs, fusion),
    )


def _configurations(
    method: str,
    params: Mapping[str, float | None],
    grid: Mapping[str, Iterable[Any]],
    n_runs: int,
    norm: Norm | None,
) -> list[dict[str, Any]]:
    unknown = sorted(set(grid) - {*params, "weights", "norm"})
    if unknown:
        msg = f"The grid names settings {method} does not take: {', '.join(unknown)}."
        raise ParameterError(msg)
    axes: dict[str, list[Any]] = {key: list(values) for key, values in grid.items()}
    if method == "rrf" and "k" not in axes:
        axes["k"] = [float(k) for k in range(10, 101, 10)]
    if method in ("wsum", "wmnz", "mixed") and "weights" not in axes:
        if n_runs != 2:
            msg = f"{method} over {n_runs} runs needs grid={{'weights': [...]}}."
            raise ParameterError(msg)
        axes["weights"] = [[round(w / 10, 1), round(1 - w / 10, 1)] for w in range(11)]
    if norm is not None and "norm" not in axes:
        axes["norm"] = [norm]
    if any(not values for values in axes.values()):
        msg = "Every setting of the grid needs at least one value."
        raise ParameterError(msg)
    keys = sorted(axes)
    return [
        dict(zip(keys, combo, strict=True)) for combo in itertools.product(*(axes[k] for k in keys))
    ]
