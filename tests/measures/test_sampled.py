"""The sampled measures (``rankset.measures.sampled``): hand-computed cases, then the script.

The hand cases follow the formulas of Yilmaz, Kanoulas and Aslam (SIGIR 2008) as NIST's
``sample_eval.pl`` writes them; the last test compares every per-topic value of the API
with what the script printed for the committed generated cases (``tests/data/sample_eval``).
"""

from __future__ import annotations

import io
import math

import polars as pl
import pytest
from tests._support.sample_eval_cases import Case, load_cases

import rankset
from rankset.errors import ParameterError
from rankset.io import read_sampled_qrels
from rankset.measures import parse_metric

E = 0.00001  # the script's smoothing constant
# Two strata: a (3 pooled, all judged, 1 relevant), b (2 pooled, 1 judged: relevant).
LABELS = pl.DataFrame(
    {
        "query_id": ["q"] * 5,
        "doc_id": ["d1", "d2", "d3", "d4", "d5"],
        "grade": [2.0, 0.0, 1.0, -1.0, 0.0],
        "stratum": ["a", "a", "b", "b", "a"],
    }
)
# ranks: d2 (a, 0), d3 (b, 1), x (unpooled), d1 (a, 2), d4 (b, not sampled)
RUN = {"q": {"d2": 5.0, "d3": 4.0, "x": 3.0, "d1": 2.0, "d4": 1.0}}


def _values(run: object, labels: object, names: list[str]) -> dict[str, float]:
    result = rankset.evaluate(run, labels, names, confidence=None)
    return dict(result.per_query.select("metric", "value").rows())


def _estimate(pooled: int, sampled: int, relevant: int) -> float:
    """A stratum's estimated relevant documents retrieved: d (r + e) / (n + 3e)."""
    return pooled * (relevant + E) / (sampled + 3 * E)


def test_estimated_relevant_and_retrieved_by_hand() -> None:
    values = _values(RUN, LABELS, ["inum_rel", "inum_rel_ret", "infp@2", "infp@10"])
    assert values["inum_rel"] == 1 * 3 / 3 + 1 * 2 / 1
    retrieved = _estimate(2, 2, 1) + _estimate(2, 1, 1)  # a: d2, d1; b: d3, d4
    assert values["inum_rel_ret"] == pytest.approx(retrieved, rel=1e-12)
    top_two = _estimate(1, 1, 0) + _estimate(1, 1, 1)  # d2 (a), d3 (b)
    assert values["infp@2"] == pytest.approx(top_two / 2, rel=1e-12)
    assert values["infp@10"] == pytest.approx(retrieved / 10, rel=1e-12)


def test_xinfap_by_hand() -> None:
    # d3 at rank 2: one judged document above (a, not relevant)
    at_d3 = 1 / 2 + (1 / 2) * ((1 / 1) * E / (1 + 3 * E))
    # d1 at rank 4: two pooled above, d2 (a, judged, not relevant) and d3 (b, relevant)
    at_d1 = 1 / 4 + (2 / 4) * ((1 / 2) * E / (1 + 3 * E) + (1 / 2) * (1 + E) / (1 + 3 * E))
    expected = (1 / 3) * at_d1 / 1 + (2 / 3) * at_d3 / 1  # shares R_s D_s / S_s / 3
    value = _values(RUN, LABELS, ["xinfap"])["xinfap"]
    assert value == pytest.approx(expected, rel=1e-12)
    assert f"{value:6.4f}" == "0.5000"  # sample_eval.pl -q's infAP line for this case


def test_infndcg_by_hand() -> None:
    # four pooled documents retrieved: a has d2, d1 (both judged), b has d3 (judged), d4
    gain_a, gain_b = 2 / math.log2(5), 1 / math.log2(3)
    dcg = (2 / 4) * gain_a / 2 + (2 / 4) * gain_b / 1
    # ideal: one document of grade 2 (stratum a), 1 x 2 / 1 = 2 of grade 1 (stratum b)
    ideal = 2 / math.log2(2) + 1 / math.log2(3) + 1 / math.log2(4)
    value = _values(RUN, LABELS, ["infndcg"])["infndcg"]
    assert value == pytest.approx(4 * dcg / ideal, rel=1e-12)
    assert f"{value:6.4f}" == "0.6781"  # sample_eval.pl -q's infNDCG line


def test_the_ideal_ranking_orders_grades_as_text() -> None:
    # grades 10 and 2: as text "2" sorts after "10", so grade 2 takes rank 1
    labels = pl.DataFrame(
        {"query_id": ["q", "q"], "doc_id": ["a", "b"], "grade": [10.0, 2.0], "stratum": ["s", "s"]}
    )
    run = {"q": {"a": 2.0, "b": 1.0}}
    value = _values(run, labels, ["infndcg"])["infndcg"]
    dcg = (2 / 2) * (10 / math.log2(2) + 2 / math.log2(3)) / 2
    ideal = 2 / math.log2(2) + 10 / math.log2(3)
    assert value == pytest.approx(2 * dcg / ideal, rel=1e-12)
    assert value > 1


def test_interpolated_precision_by_hand() -> None:
    # N at rank 5 is just under R = 3: recall 1 is out of reach (0); walking up, every
    # other level is taken at or below rank 4, after rank 5's precision N(5) / 5
    names = [f"infiprec_at_recall(recall={level})" for level in (0, 0.5, 0.9, 1)]
    values = _values(RUN, LABELS, names)
    at_five = (_estimate(2, 2, 1) + _estimate(2, 1, 1)) / 5
    canonical = [parse_metric(name).name for name in names]
    assert [values[name] for name in canonical[:3]] == pytest.approx([at_five] * 3, rel=1e-12)
    assert values[canonical[3]] == 0.0


def test_interpolated_precision_takes_the_best_precision_below_a_level() -> None:
    # one stratum, all judged, R = 2: relevant at ranks 1 and 4
    labels = pl.DataFrame(
        {"query_id": ["q"] * 4, "doc_id": ["r1", "n1", "n2", "r2"], "grade": [1.0, 0, 0, 1]}
    )
    run = {"q": {"r1": 4.0, "n1": 3.0, "n2": 2.0, "r2": 1.0}}
    names = [f"infiprec_at_recall(recall={level})" for level in (0, 0.6, 0.9, 1)]
    values = [_values(run, labels, [name])[parse_metric(name).name] for name in names]
    n1 = _estimate(1, 1, 1)
    n4 = _estimate(4, 4, 2)
    assert n4 < 2  # recall 1 (a cut of 2) is never reached: 0
    # walking up from rank 4: recall 0.9 (cut 1.8) is taken at rank 3 (N about 1), after
    # rank 4's precision N(4) / 4; 0.8 at rank 2, 0.7 at rank 1 (precision about 1), and
    # the levels left get the best precision anywhere, rank 1's
    assert values == pytest.approx([n1, n1, n4 / 4, 0.0], rel=1e-12)


def test_labels_without_strata_are_one_stratum() -> None:
    labels = LABELS.drop("stratum")
    values = _values(RUN, labels, ["inum_rel", "xinfap"])
    assert values["inum_rel"] == 2 * 5 / 4  # one stratum: 5 pooled, 4 judged, 2 relevant
    at_d3 = 1 / 2 + (1 / 2) * ((1 / 1) * E / (1 + 3 * E))
    at_d1 = 1 / 4 + (2 / 4) * ((2 / 2) * (1 + E) / (2 + 3 * E))
    assert values["xinfap"] == pytest.approx((at_d3 + at_d1) / 2, rel=1e-12)


def test_a_tables_stratum_column_reaches_the_measures() -> None:
    table = pl.DataFrame(
        {"qid": ["q", "q"], "docno": ["a", "b"], "rel": [1, -1], "stratum": [1, 2]}
    )
    # stratum 2 (b) has nothing sampled: no estimate from it; stratum 1 gives 1 x 1 / 1
    assert _values({"q": {"a": 1.0}}, table, ["inum_rel"]) == {"inum_rel": 1.0}
    # without strata, one stratum of two pooled, one sampled: 1 x 2 / 1
    assert _values({"q": {"a": 1.0}}, table.drop("stratum"), ["inum_rel"]) == {"inum_rel": 2.0}


def test_only_the_eleven_recall_levels_are_accepted() -> None:
    with pytest.raises(ParameterError, match="must be one of"):
        parse_metric("infiprec_at_recall(recall=0.15)")


def _script_run(case: Case) -> pl.DataFrame:
    """The run as the script keeps it: ids without leading zeros, a repeat's last score."""
    rows = [line.split() for line in case.run.splitlines() if line.strip()]
    frame = pl.DataFrame(
        {
            "query_id": [row[0].lstrip("0") for row in rows],
            "doc_id": [row[2] for row in rows],
            "score": [float(row[4]) for row in rows],
        }
    )
    return frame.unique(["query_id", "doc_id"], keep="last", maintain_order=True)


_PRINTED = {
    "infAP": "xinfap",
    "infNDCG": "infndcg",
    "iP10": "infp@10",
    "iP50": "infp@50",
    "iP1000": "infp@1000",
    "inum_rel_ret": "inum_rel_ret",
    "inum_rel": "inum_rel",
}
SCORED = [case for case in load_cases() if case.outputs["q"]]


@pytest.mark.parametrize("case", SCORED, ids=[str(case.seed) for case in SCORED])
def test_the_api_equals_the_scripts_per_topic_values(case: Case) -> None:
    printed = {}
    for line in case.outputs["q"].splitlines():
        name, topic, value = (field for field in line.split("\t") if field)
        if topic != "all" and name in _PRINTED:
            printed[topic, _PRINTED[name]] = value
    labels = read_sampled_qrels(io.StringIO(case.qrels))
    run = _script_run(case)
    run = run.filter(pl.col("query_id").is_in(labels["query_id"].implode()))
    result = rankset.evaluate(run, labels, list(_PRINTED.values()), confidence=None)
    ours = {
        (topic, metric): f"{value:14.4f}" if metric.startswith("inum") else f"{value:6.4f}"
        for topic, metric, value in result.per_query.select("query_id", "metric", "value").rows()
    }
    assert ours == printed
