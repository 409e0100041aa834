"""A Parquet run planned as if every row had a score, the pass verifying it.

Counting a Parquet run's missing scores reads its whole score column (its pages carry
no statistics unless the writer kept them), so :func:`rankset.evaluate` plans such a
run (a score column, no system column) on the assumption that none is missing, with
its row count from the file's metadata; the pass counts the rows without a score, and
any such row makes the evaluation plan again from exact profiles. What is checked:

* no missing score: the assumed plan is kept (no second plan) and gives the exact
  plan's values and pytrec_eval's, for every numbering (a shuffled run, one in
  trec_eval's order, ``duplicates="keep_best"``);
* some missing: the same error as the exact plan's, word for word, before the warning
  about infinite scores; with ``order="rank"`` the rank order, as before;
* all missing: ordered by rank (pytrec_eval's values with the ranks as scores), or the
  exact plan's error when the run has no rank column or ``order="score"`` is asked;
* ``ignore_identical_ids`` (which filters rows before the pass) and a system column
  (whose tags need a pass anyway) keep the exact profile; an empty run is refused.
"""

from __future__ import annotations

import random
import warnings
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import rankset
from _support.pytrec_reference import PytrecEvalWorker, reference
from rankset import io as rio
from rankset.errors import SchemaError
from rankset.evaluation import _evaluate as executors
from rankset.evaluation import _kernel as kernel
from rankset.evaluation import _pass as run_pass
from rankset.evaluation._inputs import RunInput, _run_profiles
from rankset.evaluation._options import EvaluateOptions
from rankset.evaluation._runs import TextScanRejected
from rankset.measures import parse_metrics

from .test_packed import NAMES  # each metric's name in trec_eval's output

METRICS = ["ndcg@10", "ap", "rr", "precision@3", "recall@5"]
CUTOFFS = (3, 5, 10)
ARRANGEMENTS = ["shuffled", "trec_eval-order", "keep_best"]

Row = tuple[str, str, float | None, int]  # query, doc, score, rank


def _case(seed: int) -> tuple[list[Row], dict[str, dict[str, int]]]:
    """Rankings of 12 queries with tied scores, in trec_eval's order, and their labels."""
    rng = random.Random(seed)
    rows: list[Row] = []
    qrels: dict[str, dict[str, int]] = {}
    for q in range(12):
        docs = [f"d{i}" for i in rng.sample(range(60), rng.randint(4, 30))]
        scored = sorted(
            ((float(rng.randint(0, 8)), doc) for doc in docs),
            key=lambda entry: (entry[0], entry[1].encode()),
            reverse=True,
        )
        rows += [(f"q{q}", doc, score, i + 1) for i, (score, doc) in enumerate(scored)]
        judged = rng.sample(docs, min(len(docs), rng.randint(1, 8)))
        qrels[f"q{q}"] = {doc: rng.choice([0, 1, 2, 3]) for doc in judged}
        qrels[f"q{q}"][docs[0]] = 1
    return rows, qrels


def _write(
    folder: Path,
    rows: list[Row],
    qrels: dict[str, dict[str, int]],
    arrangement: str = "shuffled",
    *,
    rank: bool = True,
) -> tuple[Path, Path]:
    if arrangement == "shuffled":
        rows = random.Random(7).sample(rows, len(rows))
    frame = pl.DataFrame(
        rows,
        schema={"query_id": pl.String, "doc_id": pl.String, "score": pl.Float64, "rank": pl.Int64},
        orient="row",
    )
    run = folder / "run.parquet"
    (frame if rank else frame.drop("rank")).write_parquet(run)
    labels = folder / "qrels.txt"
    labels.write_text(
        "".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items())
    )
    return run, labels


def _options(arrangement: str = "shuffled", **options: Any) -> dict[str, Any]:
    return {"duplicates": "keep_best", **options} if arrangement == "keep_best" else options


@pytest.fixture
def planned(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record each plan of the run ("assumed", "exact", or "refused" by the planning)
    and each rejection of an assumed plan by the pass."""
    seen: list[str] = []
    plan = executors.plan_evaluation_inputs
    measure = run_pass.measure_pass

    def spy_plan(*args: Any, **kwargs: Any) -> Any:
        try:
            made = plan(*args, **kwargs)
        except SchemaError:
            seen.append("refused")
            raise
        assumed = any(part.scores_assumed for part in made.runs.inputs)
        seen.append("assumed" if assumed else "exact")
        return made

    def spy_measure(*args: Any, **kwargs: Any) -> Any:
        try:
            return measure(*args, **kwargs)
        except TextScanRejected:
            seen.append("rejected")
            raise

    monkeypatch.setattr(executors, "plan_evaluation_inputs", spy_plan)
    monkeypatch.setattr(kernel, "measure_pass", spy_measure)
    return seen


def _both_ways(run: Path, labels: Path, **options: Any) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Return the values of evaluate's plans, and those of the exact plan alone."""
    metrics = parse_metrics(METRICS)
    settled = EvaluateOptions(**options)
    _, collected = executors.plan_and_measure(run, labels, metrics, settled)
    exact = executors.plan_evaluation_inputs(run, labels, metrics, settled)
    return collected.scored, executors.measure(exact).scored


def _error_both_ways(run: Path, labels: Path, **options: Any) -> tuple[str, str]:
    """Return the error of evaluate's plans, and that of the exact plan alone."""
    metrics = parse_metrics(METRICS)
    settled = EvaluateOptions(**options)
    with pytest.raises(SchemaError) as assumed:
        executors.plan_and_measure(run, labels, metrics, settled)
    with pytest.raises(SchemaError) as exact:
        executors.measure(executors.plan_evaluation_inputs(run, labels, metrics, settled))
    return str(assumed.value), str(exact.value)


def _equal_to_pytrec_eval(
    worker: PytrecEvalWorker,
    run: Path,
    labels: Path,
    rows: list[Row],
    qrels: dict[str, dict[str, int]],
    *,
    by_rank: bool = False,
    **options: Any,
) -> None:
    scored: dict[str, dict[str, float]] = {}
    for query, doc, score, rank in rows:
        scored.setdefault(query, {})[doc] = -float(rank) if by_rank else float(score or 0.0)
    expected = reference(worker, qrels, scored, relevance_level=1, cutoffs=CUTOFFS)
    result = rankset.evaluate(run, labels, METRICS, confidence=None, **options)
    got = {(q, m): v for q, m, v in result.per_query.select("query_id", "metric", "value").rows()}
    wrong = [
        (query, metric, got[query, metric], values[NAMES[metric]])
        for query, values in expected.items()
        for metric in METRICS
        if got[query, metric] != values[NAMES[metric]]
    ]
    assert not wrong, wrong[:5]


@pytest.mark.parametrize("arrangement", ARRANGEMENTS)
def test_a_run_with_every_score_keeps_the_assumed_plan(
    arrangement: str, tmp_path: Path, planned: list[str], pytrec_worker: PytrecEvalWorker
) -> None:
    rows, qrels = _case(1)
    run, labels = _write(tmp_path, rows, qrels, arrangement)
    options = _options(arrangement)
    assumed, exact = _both_ways(run, labels, **options)
    assert planned == ["assumed", "exact"]  # the second: _both_ways' exact plan
    assert_frame_equal(assumed, exact, check_exact=True)
    planned.clear()
    _equal_to_pytrec_eval(pytrec_worker, run, labels, rows, qrels, **options)
    assert planned == ["assumed"]


@pytest.mark.parametrize("arrangement", ARRANGEMENTS)
@pytest.mark.parametrize("where", [0, -1], ids=["first-row", "last-row"])
def test_a_run_missing_some_scores_gets_the_exact_plans_error(
    arrangement: str, where: int, tmp_path: Path, planned: list[str]
) -> None:
    rows, qrels = _case(2)
    query, doc, _, rank = rows[where]
    rows[where] = (query, doc, None, rank)
    run, labels = _write(tmp_path, rows, qrels, arrangement)
    assumed, exact = _error_both_ways(run, labels, **_options(arrangement))
    assert assumed == exact
    assert exact == (
        f"{run}: 1 of {len(rows)} rows have no score; give every row a score, or order by "
        "rank with order='rank'."
    )
    assert planned == ["assumed", "rejected", "refused", "refused"]


def test_missing_scores_are_refused_before_infinite_ones_are_warned_about(
    tmp_path: Path, planned: list[str]
) -> None:
    rows, qrels = _case(3)
    rows[0] = (rows[0][0], rows[0][1], float("inf"), rows[0][3])
    rows[-1] = (rows[-1][0], rows[-1][1], None, rows[-1][3])
    run, labels = _write(tmp_path, rows, qrels)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the exact plan refuses the run before any warning
        with pytest.raises(SchemaError, match=r"1 of \d+ rows have no score"):
            rankset.evaluate(run, labels, METRICS, confidence=None)
    assert planned == ["assumed", "rejected", "refused"]


def test_a_run_missing_some_scores_is_ordered_by_rank_when_asked(
    tmp_path: Path, planned: list[str], pytrec_worker: PytrecEvalWorker
) -> None:
    rows, qrels = _case(4)
    rows[5] = (rows[5][0], rows[5][1], None, rows[5][3])
    run, labels = _write(tmp_path, rows, qrels)
    assumed, exact = _both_ways(run, labels, order="rank")
    assert_frame_equal(assumed, exact, check_exact=True)
    _equal_to_pytrec_eval(pytrec_worker, run, labels, rows, qrels, by_rank=True, order="rank")
    assert "rejected" not in planned


@pytest.mark.parametrize("arrangement", ARRANGEMENTS)
def test_a_run_without_any_score_is_ordered_by_rank(
    arrangement: str, tmp_path: Path, planned: list[str], pytrec_worker: PytrecEvalWorker
) -> None:
    rows, qrels = _case(5)
    # the ranks alone give the order: the scores' order would differ on ties
    rows = [(query, doc, None, rank) for query, doc, _, rank in rows]
    run, labels = _write(tmp_path, rows, qrels, arrangement)
    options = _options(arrangement)
    assumed, exact = _both_ways(run, labels, **options)
    assert_frame_equal(assumed, exact, check_exact=True)
    assert planned == ["assumed", "rejected", "exact", "exact"]
    _equal_to_pytrec_eval(pytrec_worker, run, labels, rows, qrels, by_rank=True, **options)


@pytest.mark.parametrize(
    ("rank", "order", "message"),
    [
        (False, "auto", "run row(s) have no rank (first: row 1, "),
        (True, "score", ": order='score' was asked for, but the run's scores are all missing."),
    ],
)
def test_a_run_without_any_score_gets_the_exact_plans_error(
    rank: bool, order: str, message: str, tmp_path: Path
) -> None:
    rows, qrels = _case(6)
    rows = [(query, doc, None, i) for query, doc, _, i in rows]
    run, labels = _write(tmp_path, rows, qrels, rank=rank)
    assumed, exact = _error_both_ways(run, labels, order=order)
    assert assumed == exact
    assert exact.startswith(str(run))
    assert message in exact


def test_a_missing_score_on_a_row_ignore_identical_ids_drops_is_still_refused(
    tmp_path: Path, planned: list[str]
) -> None:
    rows, qrels = _case(7)
    rows.append(("q0", "q0", None, 99))  # dropped before the pass: its score is not counted
    run, labels = _write(tmp_path, rows, qrels)
    assumed, exact = _error_both_ways(run, labels, ignore_identical_ids=True)
    assert assumed == exact
    assert "1 of" in exact
    assert "rows have no score" in exact
    assert "assumed" not in planned


def test_only_a_parquet_run_without_a_system_column_is_profiled_from_metadata(
    tmp_path: Path,
) -> None:
    rows, qrels = _case(8)
    run, _ = _write(tmp_path, rows, qrels)
    with_system = tmp_path / "systems.parquet"
    pl.read_parquet(run).with_columns(system=pl.lit("bm25")).write_parquet(with_system)
    frame = pl.read_parquet(run)
    inputs = [RunInput(rio.read(source, kind="run"), None) for source in (run, with_system, frame)]
    assumed = _run_profiles(inputs, "streaming", assume_scores=True)
    assert assumed == [
        {"tags": [], "n_scores": None, "n_rows": len(rows)},
        {"tags": ["bm25"], "n_scores": len(rows), "n_rows": len(rows)},
        {"tags": [], "n_scores": len(rows), "n_rows": len(rows)},
    ]
    exact = _run_profiles(inputs, "streaming")
    assert exact[0] == {"tags": [], "n_scores": len(rows), "n_rows": len(rows)}


def test_an_empty_parquet_run_is_refused(tmp_path: Path, planned: list[str]) -> None:
    run, labels = _write(tmp_path, [], {"q1": {"d1": 1}})
    with pytest.raises(SchemaError, match=r"run.parquet: the run has no rows; expected at least"):
        rankset.evaluate(run, labels, METRICS, confidence=None)
