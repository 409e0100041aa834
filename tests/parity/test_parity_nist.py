"""Parity with NIST's official TREC DL 2019 passage-task scores.

Three official runs survive complete: ICT-BERT2 and ICT-CKNRM_B at depth 20, ICT-CKNRM_B50 at
depth 50, all with negative scores. Their tied scores barely matter here: only ICT-CKNRM_B50 has
any in judged queries (5), and breaking those the other way moves no 4-decimal mean, so the tie
rule is tested by test_parity_trec_eval and test_parity_pytrec_eval. NIST published two
summaries per run (``official_summaries.tsv``, from usnistgov/trec-browser):

- ``trec_eval``: trec_eval with relevance level 1 (grade 1, "related", counts as relevant);
- ``passages-eval``: the same measures with ``-l 2``, the official DL convention.

rankset's mean over the 43 judged queries (``missing="skip"``: trec_eval's default, the other
157 test queries have no labels) must print as NIST's value at 4 decimals. nDCG uses the raw
grades and ignores the relevance level in trec_eval and in rankset. NIST's two summaries agree
on every nDCG value of these runs (pinned below), so one rankset value must match both. That is
not true of all NIST summaries: for DL 2020 passage runs the two differ in nDCG too (e.g.
CoRT-electra ndcg_cut_10 0.7566 vs 0.6996), probably because they were computed over different
topic sets, so DL 2020 is not used here.

The files live in the team's shared data folder and are not redistributable (see
``shared/data/trec_dl_official/README.md``); the tests skip when it is absent.
"""

from __future__ import annotations

import csv
from collections.abc import Callable
from pathlib import Path
from statistics import fmean

import polars as pl
import pytest

import rankset
from _support.pytrec_reference import (
    PytrecEvalWorker,
    canonical_metric,
    prints_as,
    read_qrels,
    read_run,
    reference,
)

RUNS = ("ICT-BERT2", "ICT-CKNRM_B", "ICT-CKNRM_B50")
RELEVANCE_LEVEL = {"trec_eval": 1, "passages-eval": 2}
MEASURES = (
    "map",
    "bpref",
    "recip_rank",
    "P_10",
    "P_100",
    "P_1000",
    "recall_10",
    "recall_100",
    "recall_1000",
    "ndcg",
    "ndcg_cut_10",
    "ndcg_cut_100",
    "ndcg_cut_1000",
)
JUDGED_QUERIES = 43
CUTOFFS = (10, 100, 1000)


def _run_path(shared_data: Path, run: str) -> Path:
    return shared_data / "trec_dl_official" / "runs_dl19_complete" / f"{run}.run.gz"


def _qrels_path(shared_data: Path) -> Path:
    return shared_data / "anserini_qrels_topics" / "qrels" / "qrels.dl19-passage.txt.gz"


@pytest.fixture(scope="module")
def nist_scores(shared_data: Path) -> dict[tuple[str, str, str], str]:
    """(run, summary, measure) -> NIST's printed value, DL 2019 rows only."""
    path = shared_data / "trec_dl_official" / "official_summaries.tsv"
    with path.open(encoding="utf-8", newline="") as handle:
        return {
            (row["run"], row["summary"], row["measure"]): row["value"]
            for row in csv.DictReader(handle, delimiter="\t")
            if row["year"] == "2019" and row["topic"] == "all"
        }


EvaluateRun = Callable[[str, int], rankset.EvaluationResult]


@pytest.fixture(scope="module")
def evaluate_run(shared_data: Path) -> EvaluateRun:
    """Evaluate a run once per relevance level with all 13 measures, from the .gz files."""
    results: dict[tuple[str, int], rankset.EvaluationResult] = {}

    def evaluate(run: str, relevance_level: int) -> rankset.EvaluationResult:
        if (run, relevance_level) not in results:
            results[run, relevance_level] = rankset.evaluate(
                _run_path(shared_data, run),
                _qrels_path(shared_data),
                metrics=[str(canonical_metric(m)) for m in MEASURES],
                relevance_level=relevance_level,
                missing="skip",
            )
        return results[run, relevance_level]

    return evaluate


@pytest.mark.parametrize("measure", MEASURES)
@pytest.mark.parametrize("summary", list(RELEVANCE_LEVEL))
@pytest.mark.parametrize("run", RUNS)
def test_mean_matches_nist(
    run: str,
    summary: str,
    measure: str,
    evaluate_run: EvaluateRun,
    nist_scores: dict[tuple[str, str, str], str],
) -> None:
    expected = nist_scores[run, summary, measure]
    result = evaluate_run(run, RELEVANCE_LEVEL[summary])
    row = result.summary.filter(pl.col("metric") == canonical_metric(measure))
    assert row.height == 1
    assert (row["n_queries"].item(), row["n_na"].item()) == (JUDGED_QUERIES, 0)
    mean = row["mean"].item()
    assert prints_as(mean, expected), f"rankset {mean!r}, NIST {expected}"


@pytest.mark.parametrize("run", RUNS)
def test_nist_ndcg_is_the_same_at_both_levels(
    run: str, nist_scores: dict[tuple[str, str, str], str]
) -> None:
    # A check of the data, not of rankset: it is why one rankset nDCG must match both rows.
    for measure in ("ndcg", "ndcg_cut_10", "ndcg_cut_100", "ndcg_cut_1000"):
        assert nist_scores[run, "trec_eval", measure] == nist_scores[run, "passages-eval", measure]


@pytest.mark.parametrize("summary", list(RELEVANCE_LEVEL))
@pytest.mark.parametrize("run", RUNS)
def test_oracle_reproduces_nist(
    run: str,
    summary: str,
    shared_data: Path,
    nist_scores: dict[tuple[str, str, str], str],
    pytrec_worker: PytrecEvalWorker,
) -> None:
    # The oracle of test_parity_pytrec_eval against NIST: no rankset involved.
    values = reference(
        pytrec_worker,
        read_qrels(_qrels_path(shared_data)),
        read_run(_run_path(shared_data, run)),
        relevance_level=RELEVANCE_LEVEL[summary],
        cutoffs=CUTOFFS,
    )
    assert len(values) == JUDGED_QUERIES
    means = {m: fmean(per_query[m] for per_query in values.values()) for m in MEASURES}
    problems = [
        f"{measure}: pytrec_eval {mean!r}, NIST {nist_scores[run, summary, measure]}"
        for measure, mean in means.items()
        if not prints_as(mean, nist_scores[run, summary, measure])
    ]
    assert not problems, "\n".join(problems)
