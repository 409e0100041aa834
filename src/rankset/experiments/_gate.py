"""The CI gate: whether a candidate fell below its baseline on the asked metrics.

The rules, stated once:

Worsening
    ``delta = candidate mean - baseline mean`` over the queries both have a value for
    (as :func:`rankset.compare` aligns them). A metric *fell* by ``-delta`` when higher is
    better and by ``+delta`` when lower is better (``unj``, ``harm``).
Threshold (``max_drop``)
    An absolute amount (``0.01``), or relative to the baseline mean with ``"2%"`` or
    ``relative=True``. A metric passes the threshold rule while it fell by no more than
    that. Without ``max_drop`` the threshold is 0: any fall counts (beyond 1e-12, so that
    float noise of equal values is no fall).
Significance (``alpha``)
    The paired test (``"randomization"`` by default, ``"t"`` or ``"wilcoxon"``), two-sided,
    its p-values corrected over every gated (system, metric) with ``correction`` (Holm by
    default: the gate asks one question, "did anything fall?"). Without ``alpha`` no
    significance is asked for.
Failing
    A metric fails when it fell past the threshold **and**, when ``alpha`` is given, its
    test is significant (``p_adj < alpha``). So: ``max_drop`` alone is a threshold on the
    means; ``alpha`` alone fails any significant fall; neither fails any fall at all (the
    strict setting, for deterministic pipelines); both need a large *and* real fall.
Comparable sides
    Two :class:`~rankset.EvaluationResult` objects are compared only when they were
    evaluated alike: every option that changes values (``relevance_level``, ``missing``,
    ``k``, ``scale``, ``judged_only``...; :data:`VALUE_OPTIONS`) is equal in both configs,
    and so are the labels' hashes where both record one (a store entry does; so does a
    result of :func:`evaluate_and_gate`). Otherwise the gate refuses, naming each
    difference, unless ``allow_mismatch=True``; then the differences are reported.
Bounds
    A fall can never exceed the range of the values: an absolute ``max_drop`` of 1 or more
    on a metric whose values all lie in [0, 1] (``max_drop=2`` meant as 2% or 0.02), or a
    relative one of 100% or more on non-negative values, could never fail and is refused.
Coverage
    ``judged@k`` of candidate and baseline, when both results hold it: a candidate whose
    top k holds more unjudged documents scores lower for lack of labels, not only for
    worse rankings. A fall of the judged share by more than ``coverage_tolerance`` is
    flagged (and fails the gate only with ``fail_on_coverage=True``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeAlias

import polars as pl

from rankset._format import REPR_ROWS, ReprTable, html_repr, text_repr
from rankset._typing import Correction
from rankset._validation import check_choice, check_float, check_fraction, check_int, warn_user
from rankset.comparison import compare, higher_is_better, unreachable_significance
from rankset.errors import ParameterError, RanksetWarning
from rankset.evaluation import EvaluationResult
from rankset.experiments._comparable import (
    VALUE_OPTIONS,
    check_bounds,
    describe_baseline,
    parse_max_drop,
    setup_differences,
)
from rankset.experiments._cost_gate import cost_lines, cost_rows, parse_max_increase
from rankset.experiments._report import baseline_line, gate_markdown
from rankset.measures import parse_metric

__all__ = [
    "GATE_COLUMNS",
    "GATE_TESTS",
    "VALUE_OPTIONS",
    "GateResult",
    "GateTest",
    "gate",
    "parse_max_drop",
]

GateTest: TypeAlias = Literal["randomization", "t", "wilcoxon"]
#: The paired tests a gate can ask.
GATE_TESTS: tuple[GateTest, ...] = ("randomization", "t", "wilcoxon")
#: The columns of :attr:`GateResult.table`.
GATE_COLUMNS = (
    "system",
    "metric",
    "baseline_mean",
    "candidate_mean",
    "delta",
    "relative_delta",
    "n_queries",
    "n_dropped",
    "p",
    "p_adj",
    "fell_by_threshold",
    "significant",
    "failed",
)
_EPSILON = 1e-12
_BASE, _CAND = "\x00baseline", "\x00candidate"


@dataclass(frozen=True)
class GateResult:
    """The outcome of :func:`gate`.

    Attributes
    ----------
    table
        One row per gated (system, metric): the columns of :data:`GATE_COLUMNS`.
        ``significant`` is null when no ``alpha`` was asked.
    coverage
        ``system, metric, baseline_mean, candidate_mean, delta, fell`` for ``judged@k``,
        or None when a side lacks it.
    rules
        The settings: ``max_drop``, ``relative``, ``alpha``, ``test``, ``correction``,
        ``n_resamples``, ``seed``, ``coverage_k``, ``coverage_tolerance``,
        ``fail_on_coverage``; ``max_drop_text``, the threshold as ``--max-drop`` takes it.
    baseline
        What the baseline was (:func:`describe_baseline`): ``kind`` (``"store entry"``,
        ``"run"`` or ``"frame"``), ``systems``, and for a store entry ``entry_id``,
        ``tag``, ``time``, ``git_commit`` and ``meta``; for runs their ``sources``.
    mismatches
        The differences in evaluation options or labels between the two sides (empty
        unless the gate was run with ``allow_mismatch=True``).
    costs
        With ``max_increase``: per system and limited cost, ``baseline_mean,
        candidate_mean, increase, relative_increase, limit, failed``; else None.
    """

    table: pl.DataFrame
    coverage: pl.DataFrame | None
    rules: dict[str, Any] = field(default_factory=dict)
    baseline: dict[str, Any] = field(default_factory=dict)
    mismatches: tuple[str, ...] = ()
    costs: pl.DataFrame | None = None

    @property
    def coverage_fell(self) -> bool:
        """Whether the candidate's judged share fell past the tolerance."""
        return self.coverage is not None and bool(self.coverage["fell"].any())

    @property
    def failures(self) -> list[str]:
        """``system:metric`` of every failed row (``metric`` alone for one system)."""
        failed = self.table.filter(pl.col("failed"))
        many = self.table["system"].n_unique() > 1
        names = [
            f"{system}:{metric}" if many else metric
            for system, metric in failed.select("system", "metric").rows()
        ]
        if self.costs is not None:
            risen = self.costs.filter(pl.col("failed")).select("system", "cost").rows()
            names += [f"{system}:{cost}" if many else cost for system, cost in risen]
        return names

    @property
    def passed(self) -> bool:
        """True when no metric failed (and coverage held, if it had to)."""
        coverage_failed = bool(self.rules.get("fail_on_coverage")) and self.coverage_fell
        return not self.failures and not coverage_failed

    @property
    def exit_code(self) -> int:
        """0 when the gate passed, 1 when it failed (2, bad input, is the CLI's)."""
        return 0 if self.passed else 1

    @property
    def baseline_line(self) -> str:
        """One Markdown line naming the baseline (entry id, tag, system, commit, meta)."""
        return baseline_line(self.baseline)

    def markdown(self) -> str:
        """Return a Markdown report: a PASS/FAIL headline, the rule, a table, coverage.

        Fit for a pull-request comment or ``$GITHUB_STEP_SUMMARY``.
        """
        costs = self.costs
        risen = 0 if costs is None else int(costs["failed"].sum())
        failures = self.failures
        text = gate_markdown(
            self.table,
            self.coverage,
            self.rules,
            passed=self.passed,
            failures=failures[: len(failures) - risen],
            baseline=self.baseline,
            mismatches=self.mismatches,
            risen=tuple(failures[len(failures) - risen :]),
        )
        return text + "\n".join(cost_lines(self.costs))

    def write_markdown(self, path: str | Path, *, append: bool = True) -> Path:
        """Write :meth:`markdown` to ``path``, appended by default (as job summaries are)."""
        target = Path(path)
        with target.open("a" if append else "w", encoding="utf-8") as handle:
            handle.write(self.markdown())
        return target

    def _repr_blocks(self) -> tuple[str, list[ReprTable]]:
        """Return the verdict, each gated (system, metric) (the key columns first), coverage."""
        verdict = "PASS" if self.passed else f"FAIL ({', '.join(self.failures) or 'coverage'})"
        key = ["system", "metric", "failed", "delta", "baseline_mean", "candidate_mean", "p_adj"]
        first = [c for c in key if c in self.table.columns]
        shown = self.table.select(*first, *(c for c in self.table.columns if c not in first))
        tables = [
            ReprTable(shown.columns, shown.head(REPR_ROWS).rows(), keys=2, n_rows=shown.height)
        ]
        if self.coverage is not None:
            coverage = self.coverage
            rows = coverage.head(REPR_ROWS).rows()
            tables.append(
                ReprTable(
                    coverage.columns, rows, keys=2, n_rows=coverage.height, caption="coverage:"
                )
            )
        return f"GateResult({verdict})", tables

    def __repr__(self) -> str:
        title, tables = self._repr_blocks()
        return text_repr(title, *tables)

    def _repr_html_(self) -> str:
        title, tables = self._repr_blocks()
        return html_repr(title, *tables)


def gate(
    candidate: EvaluationResult | pl.DataFrame,
    baseline: EvaluationResult | pl.DataFrame,
    metrics: str | Sequence[str],
    *,
    max_drop: float | str | None = None,
    relative: bool = False,
    alpha: float | None = None,
    test: GateTest = "randomization",
    correction: Correction | None = "holm",
    seed: int = 0,
    n_resamples: int = 10_000,
    coverage_k: int | None = 10,
    coverage_tolerance: float = 0.0,
    fail_on_coverage: bool = False,
    allow_mismatch: bool = False,
    max_increase: Mapping[str, float | str] | Sequence[str] | None = None,
) -> GateResult:
    """Gate a candidate against a baseline: fail when an asked metric fell.

    Parameters
    ----------
    candidate, baseline
        :class:`~rankset.EvaluationResult` objects (from :func:`rankset.evaluate`, or
        :meth:`Store.result` / :meth:`Store.latest`) or their per-query frames. When each
        holds one system they are paired whatever their names; otherwise systems are
        paired by name.
    metrics
        The metrics to gate (any spelling); each must be in both results.
    max_drop
        Largest allowed fall: absolute (``0.01``), or relative with ``"2%"`` or
        ``relative=True``. None: any fall.
    relative
        Read a numeric ``max_drop`` as a fraction of the baseline mean.
    alpha
        Also require the fall to be significant: ``p_adj < alpha``. None: no test needed.
    test
        The paired test: ``"randomization"`` (core install), ``"t"`` or ``"wilcoxon"``
        (scipy).
    correction
        Correction of the p-values over the gated rows: ``"holm"``, ``"bonferroni"``,
        ``"bh"`` or None.
    seed, n_resamples
        Of the randomization test and the bootstrap CI of the delta.
    coverage_k
        The k of the ``judged@k`` coverage check (None: no check).
    coverage_tolerance
        How much the judged share may fall before it is flagged.
    fail_on_coverage
        Fail the gate when coverage fell.
    allow_mismatch
        Gate two results evaluated with different options or labels anyway (the
        differences are reported); by default that is refused.
    max_increase
        Limits on costs, ``{"latency_ms": "10%", "tokens_in": 200}`` (or ``COST=LIMIT``
        strings): a cost fails when the candidate's mean rose past it. Both sides need
        ``costs`` (``evaluate(..., costs=)``).

    Returns
    -------
    GateResult
        ``.passed``, ``.exit_code``, ``.table``, ``.markdown()``.

    Examples
    --------
    >>> import rankset
    >>> labels = {f"q{i}": {"good": 1} for i in range(8)}
    >>> base = {f"q{i}": {"good": 2.0, "bad": 1.0} for i in range(8)}
    >>> worse = {f"q{i}": {"bad": 2.0, "good": 1.0} for i in range(8)}
    >>> a = rankset.evaluate(base, labels, ["rr"])
    >>> b = rankset.evaluate(worse, labels, ["rr"])
    >>> result = gate(b, a, "rr", max_drop=0.1, alpha=0.05)
    >>> result.passed, result.exit_code, result.failures
    (False, 1, ['rr'])
    >>> result.table.select("delta", "relative_delta", pl.col("p").round(2)).row(0)
    (-0.5, -0.5, 0.01)
    >>> gate(a, a, "rr", max_drop=0.1, alpha=0.05).exit_code
    0
    >>> strict = rankset.evaluate(worse, labels, ["rr"], relevance_level=2)
    >>> try:
    ...     gate(strict, a, "rr")
    ... except rankset.errors.ParameterError as error:
    ...     print(str(error)[:87])
    The candidate and the baseline were evaluated differently: relevance_level: candidate 2
    """
    amount, is_relative = parse_max_drop(max_drop, relative)
    limits = parse_max_increase(max_increase)
    if alpha is not None:
        alpha = check_fraction("alpha", alpha)
    check_choice("test", test, GATE_TESTS)
    seed = check_int("seed", seed, 0)
    n_resamples = check_int("n_resamples", n_resamples, 1)
    if coverage_k is not None:
        coverage_k = check_int("coverage_k", coverage_k, 1)
    coverage_tolerance = check_float("coverage_tolerance", coverage_tolerance, minimum=0.0)
    asked = [metrics] if isinstance(metrics, str) else list(metrics)
    names = [parse_metric(name).name for name in asked]
    if not names:
        msg = "The 'metrics' parameter must name at least one metric to gate."
        raise ParameterError(msg)
    mismatches: tuple[str, ...] = ()
    if isinstance(candidate, EvaluationResult) and isinstance(baseline, EvaluationResult):
        mismatches = tuple(setup_differences(candidate.config, baseline.config))
        if mismatches and not allow_mismatch:
            msg = (
                "The candidate and the baseline were evaluated differently: "
                f"{'; '.join(mismatches)}. Their values are not comparable: evaluate the "
                "candidate as the baseline was, or pass allow_mismatch=True "
                "(--allow-mismatch) to gate anyway."
            )
            raise ParameterError(msg)
    cand, base = _per_query(candidate, "candidate"), _per_query(baseline, "baseline")
    pairs = _pairs(cand, base)
    for what, frame in (("candidate", cand), ("baseline", base)):
        missing = sorted(set(names) - set(frame["metric"].unique().to_list()))
        if missing:
            msg = f"The {what} has no values for {missing}; evaluate it with those metrics."
            raise ParameterError(msg)
    check_bounds(cand, base, names, amount, is_relative, max_drop)
    rows = pl.concat(
        [_compare_pair(cand, base, c, b, names, test, seed, n_resamples) for c, b in pairs]
    )
    from rankset.stats import adjust_pvalues

    if alpha is not None and test == "randomization":
        message = unreachable_significance(rows.height, n_resamples, alpha, correction)
        if message is not None:
            warn_user(message, RanksetWarning)

    p = rows["p"].fill_null(float("nan")).to_numpy()
    rows = rows.with_columns(pl.Series("p_adj", adjust_pvalues(p, correction), nan_to_null=True))
    table = _judge(rows, amount, is_relative, alpha)
    coverage = None
    if coverage_k is not None:
        coverage = _coverage(cand, base, pairs, f"judged@{coverage_k}", coverage_tolerance)
    rules = {
        "max_drop": amount, "relative": is_relative, "alpha": alpha, "test": test,
        "correction": correction, "n_resamples": n_resamples, "seed": seed,
        "coverage_k": coverage_k, "coverage_tolerance": coverage_tolerance,
        "fail_on_coverage": fail_on_coverage,
        "max_drop_text": _flag_text(amount, is_relative),
    }  # fmt: skip
    return GateResult(
        table=table,
        coverage=coverage,
        rules={**rules, "max_increase": limits},
        baseline=describe_baseline(baseline, sorted({b for _, b in pairs})),
        mismatches=mismatches,
        costs=cost_rows(candidate, baseline, pairs, limits),
    )


def _flag_text(amount: float | None, is_relative: bool) -> str | None:
    """Return the threshold as ``--max-drop`` takes it: ``2%``, ``0.01`` (None: any)."""
    if amount is None:
        return None
    return f"{amount * 100:.10g}%" if is_relative else f"{amount:.10g}"


def _per_query(result: EvaluationResult | pl.DataFrame, what: str) -> pl.DataFrame:
    frame = result.per_query if isinstance(result, EvaluationResult) else result
    if isinstance(frame, pl.LazyFrame):
        frame = frame.collect()
    if not isinstance(frame, pl.DataFrame):
        msg = (
            f"The '{what}' parameter must be an EvaluationResult or a per-query frame. "
            f"Got {type(result).__name__} instead."
        )
        raise ParameterError(msg)
    needed = ["system", "query_id", "metric", "value"]
    missing = [name for name in needed if name not in frame.columns]
    if missing:
        msg = f"The {what} frame lacks the columns {missing}; it needs {needed}."
        raise ParameterError(msg)
    return frame.select(needed)


def _pairs(cand: pl.DataFrame, base: pl.DataFrame) -> list[tuple[str, str]]:
    """(candidate system, baseline system) pairs: the only ones, or those named alike."""
    c = [str(s) for s in cand["system"].unique(maintain_order=True).to_list()]
    b = [str(s) for s in base["system"].unique(maintain_order=True).to_list()]
    if len(c) == 1 and len(b) == 1:
        return [(c[0], b[0])]
    common = [system for system in c if system in set(b)]
    if not common:
        msg = (
            f"The candidate's systems {c} and the baseline's {b} share no name; give one "
            "system on each side, or name the systems alike."
        )
        raise ParameterError(msg)
    return [(system, system) for system in common]


def _compare_pair(
    cand: pl.DataFrame,
    base: pl.DataFrame,
    c: str,
    b: str,
    names: list[str],
    test: GateTest,
    seed: int,
    n_resamples: int,
) -> pl.DataFrame:
    frame = pl.concat(
        [
            base.filter(pl.col("system") == b).with_columns(system=pl.lit(_BASE)),
            cand.filter(pl.col("system") == c).with_columns(system=pl.lit(_CAND)),
        ]
    ).filter(pl.col("metric").is_in(names))
    out = compare(
        frame, _BASE, metrics=names, tests=[test], correction=None, seed=seed,
        n_resamples=n_resamples,
    )  # fmt: skip
    return out.select(
        pl.lit(c).alias("system"),
        "metric",
        pl.col("baseline_mean"),
        pl.col("mean").alias("candidate_mean"),
        "delta",
        "n_queries",
        "n_dropped",
        "p",
    )


def _judge(
    rows: pl.DataFrame, amount: float | None, is_relative: bool, alpha: float | None
) -> pl.DataFrame:
    higher = {name: higher_is_better(name) for name in rows["metric"].unique().to_list()}
    sign = pl.col("metric").replace_strict(
        {name: 1.0 if up else -1.0 for name, up in higher.items()}, return_dtype=pl.Float64
    )
    fall = (-sign * pl.col("delta")).alias("_fall")
    relative_delta = (
        pl.when(pl.col("baseline_mean") != 0)
        .then(pl.col("delta") / pl.col("baseline_mean").abs())
        .otherwise(None)
    )
    if amount is None:
        fell = pl.col("_fall") > _EPSILON
    elif is_relative:
        # from a baseline of 0 any fall is an infinite relative fall
        fell = (
            pl.when(pl.col("baseline_mean") != 0)
            .then(pl.col("_fall") / pl.col("baseline_mean").abs() > amount + _EPSILON)
            .otherwise(pl.col("_fall") > _EPSILON)
        )
    else:
        fell = pl.col("_fall") > amount + _EPSILON
    if alpha is None:
        significant = pl.lit(None, dtype=pl.Boolean)
        failed = pl.col("fell_by_threshold")
    else:
        significant = pl.col("p_adj").is_not_null() & (pl.col("p_adj") < alpha)
        failed = pl.col("fell_by_threshold") & pl.col("significant")
    return (
        rows.with_columns(fall, relative_delta.alias("relative_delta"))
        .with_columns(fell.fill_null(False).alias("fell_by_threshold"))
        .with_columns(significant.alias("significant"))
        .with_columns(failed.fill_null(False).alias("failed"))
        .select(GATE_COLUMNS)
    )


def _coverage(
    cand: pl.DataFrame,
    base: pl.DataFrame,
    pairs: list[tuple[str, str]],
    metric: str,
    tolerance: float,
) -> pl.DataFrame | None:
    have = metric in set(cand["metric"].to_list()) and metric in set(base["metric"].to_list())
    if not have:
        return None
    rows = []
    for c, b in pairs:
        cm = cand.filter((pl.col("system") == c) & (pl.col("metric") == metric))["value"].mean()
        bm = base.filter((pl.col("system") == b) & (pl.col("metric") == metric))["value"].mean()
        cv = float(cm) if isinstance(cm, int | float) else math.nan
        bv = float(bm) if isinstance(bm, int | float) else math.nan
        delta = cv - bv
        rows.append(
            {"system": c, "metric": metric, "baseline_mean": bv, "candidate_mean": cv,
             "delta": delta, "fell": bool(-delta > tolerance + _EPSILON)}
        )  # fmt: skip
    return pl.DataFrame(rows).with_columns(
        pl.col("baseline_mean", "candidate_mean", "delta").fill_nan(None)
    )
