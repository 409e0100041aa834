"""Nugget measures against plain-Python transcriptions of their published definitions.

Each reference below is written from the definition alone: nuggetizer's four scores
(strict and partial, all and vital nuggets), TREC 2024 RAG's weighted score, RAGChecker's
claim recall and context precision, α-nDCG (Clarke et al. 2008) with a greedy ideal. The
top K passages stand for the retrieved set; a nugget's support is the best any of them
gives. Random nugget labels and runs (Hypothesis), each measure alone and all together.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankset
from rankset.errors import InputFormatError, ParameterError
from rankset.io import read_nuggets

SUPPORT = {"support": 1.0, "partial_support": 0.5, "not_support": 0.0}
WEIGHT = {"vital": 1.0, "okay": 0.5}

# --- the reference -----------------------------------------------------------------------

Nuggets = dict[str, tuple[str, dict[str, str]]]
"""nugget id -> (importance, {doc id: assignment})."""


def ordered(ranking: dict[str, float]) -> list[str]:
    return [d for d, _ in sorted(ranking.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)]


def best_support(nuggets: Nuggets, top: list[str]) -> dict[str, float]:
    return {
        n: max([SUPPORT[a] for d, a in docs.items() if d in top], default=0.0)
        for n, (_, docs) in nuggets.items()
    }


def nuggetizer_scores(assigned: list[tuple[str, float]]) -> dict[str, float | None]:
    """(importance, support) per nugget -> strict/partial, all/vital (None: no vital)."""
    vital = [s for imp, s in assigned if imp == "vital"]
    every = [s for _, s in assigned]

    def share(values: list[float], partial: bool) -> float | None:
        if not values:
            return None
        return sum(s if partial else float(s == 1.0) for s in values) / len(values)

    return {
        "nugget_coverage": share(every, False),
        "nugget_coverage_partial": share(every, True),
        "vital_coverage": share(vital, False),
        "vital_coverage_partial": share(vital, True),
    }


def reference(
    nuggets: Nuggets, ranking: dict[str, float], k: int, alpha: float = 0.5
) -> dict[str, float | None]:
    top = ordered(ranking)[:k]
    support = best_support(nuggets, top)
    values = nuggetizer_scores([(nuggets[n][0], s) for n, s in support.items()])
    total = sum(WEIGHT[imp] for imp, _ in nuggets.values())
    values["nugget_recall"] = sum(WEIGHT[nuggets[n][0]] * s for n, s in support.items()) / total
    supporting = [d for d in top if any(docs.get(d) == "support" for _, docs in nuggets.values())]
    values["context_precision"] = len(supporting) / len(top) if top else None
    values["alpha_ndcg"] = alpha_ndcg(nuggets, top, k, alpha)
    return values


def alpha_gain(doc: str, nuggets: Nuggets, seen: dict[str, int], alpha: float) -> float:
    return sum(
        (1 - alpha) ** seen[n] for n, (_, docs) in nuggets.items() if docs.get(doc) == "support"
    )


def alpha_dcg(order: list[str], nuggets: Nuggets, alpha: float) -> float:
    seen = dict.fromkeys(nuggets, 0)
    total = 0.0
    for rank, doc in enumerate(order, start=1):
        total += alpha_gain(doc, nuggets, seen, alpha) / math.log2(rank + 1)
        for n, (_, docs) in nuggets.items():
            if docs.get(doc) == "support":
                seen[n] += 1
    return total


def alpha_ndcg(nuggets: Nuggets, top: list[str], k: int, alpha: float) -> float | None:
    pool = sorted({d for _, docs in nuggets.values() for d, a in docs.items() if a == "support"})
    ideal: list[str] = []
    seen = dict.fromkeys(nuggets, 0)
    while pool and len(ideal) < k:  # greedy: largest gain, ties to the larger id (ndeval)
        best = max(pool, key=lambda d: (alpha_gain(d, nuggets, seen, alpha), d))
        ideal.append(best)
        pool.remove(best)
        for n, (_, docs) in nuggets.items():
            if docs.get(best) == "support":
                seen[n] += 1
    ideal_value = alpha_dcg(ideal, nuggets, alpha)
    return None if ideal_value == 0 else alpha_dcg(top, nuggets, alpha) / ideal_value


def as_frame(queries: dict[str, Nuggets]) -> pl.DataFrame:
    rows = [
        (q, n, d, a, imp)
        for q, nuggets in queries.items()
        for n, (imp, docs) in nuggets.items()
        for d, a in docs.items()
    ]
    return pl.DataFrame(
        rows, schema=["query_id", "nugget_id", "doc_id", "support", "importance"], orient="row"
    )


# --- the tests ------------------------------------------------------------------------------

DOCS = [f"d{i}" for i in range(7)]
nugget_sets = st.dictionaries(
    st.sampled_from([f"n{i}" for i in range(5)]),
    st.tuples(
        st.sampled_from(["vital", "okay"]),
        st.dictionaries(
            st.sampled_from(DOCS), st.sampled_from(list(SUPPORT)), min_size=1, max_size=4
        ),
    ),
    min_size=1,
    max_size=5,
)
rankings = st.dictionaries(
    st.sampled_from(DOCS), st.sampled_from([0.2, 0.4, 0.9]), min_size=1, max_size=7
)
MEASURES = [
    "nugget_coverage",
    "nugget_coverage_partial",
    "vital_coverage",
    "vital_coverage_partial",
    "nugget_recall",
    "context_precision",
    "alpha_ndcg",
]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    cases=st.lists(st.tuples(nugget_sets, rankings), min_size=1, max_size=3),
    k=st.integers(1, 6),
)
def test_every_value_equals_the_transcription(
    cases: list[tuple[Nuggets, dict[str, float]]], k: int
) -> None:
    queries = {f"q{i}": nuggets for i, (nuggets, _) in enumerate(cases)}
    run = {f"q{i}": ranking for i, (_, ranking) in enumerate(cases)}
    frame = as_frame(queries)
    names = [f"{m}@{k}" for m in MEASURES]
    together = rankset.evaluate(run, None, names, nuggets=frame, confidence=None).per_query
    for name in names:
        alone = rankset.evaluate(run, None, [name], nuggets=frame, confidence=None).per_query
        measure = name.split("@")[0]
        for i, (nuggets, ranking) in enumerate(cases):
            expected = reference(nuggets, ranking, k)[measure]
            for got_frame in (alone, together):
                got = got_frame.filter(query_id=f"q{i}", metric=name)["value"][0]
                assert got == pytest.approx(expected, abs=1e-12), (name, i, got, expected)


def test_nuggetizer_scores_on_an_answer_as_one_passage() -> None:
    # nuggetizer scores one answer; as the only passage of a run its assignments are the
    # nuggets' supports, and the four nugget scores are nuggetizer's four
    assignments = {
        "n1": ("vital", "support"),
        "n2": ("vital", "partial_support"),
        "n3": ("vital", "not_support"),
        "n4": ("okay", "support"),
        "n5": ("okay", "partial_support"),
    }
    nuggets = {n: (imp, {"answer": a}) for n, (imp, a) in assignments.items()}
    frame = as_frame({"q": nuggets})
    names = ["nugget_coverage@1", "nugget_coverage_partial@1", "vital_coverage@1",
             "vital_coverage_partial@1", "nugget_recall@1"]  # fmt: skip
    res = rankset.evaluate({"q": {"answer": 1.0}}, None, names, nuggets=frame, confidence=None)
    got = dict(res.per_query.select("measure", "value").rows())
    # by hand: strict all 2/5, all (2 + 2 x 0.5)/5, strict vital 1/3, vital 1.5/3
    assert got["nugget_coverage"] == pytest.approx(2 / 5)
    assert got["nugget_coverage_partial"] == pytest.approx(3 / 5)
    assert got["vital_coverage"] == pytest.approx(1 / 3)
    assert got["vital_coverage_partial"] == pytest.approx(1.5 / 3)
    # weighted: (1 + 0.5 + 0 + 0.5 x 1 + 0.5 x 0.5) / (3 + 2 x 0.5)
    assert got["nugget_recall"] == pytest.approx(2.25 / 4)


def test_ragchecker_claim_recall_and_context_precision() -> None:
    # 3 ground-truth claims; 4 retrieved chunks: c1 entails claims 1 and 2, c3 entails
    # claim 2, c2 and c4 entail nothing: claim recall 2/3, context precision 2/4
    nuggets = {
        "claim1": ("vital", {"c1": "support"}),
        "claim2": ("vital", {"c1": "support", "c3": "support"}),
        "claim3": ("vital", {"c9": "support", "c2": "not_support"}),
    }
    run = {"q": {"c1": 4.0, "c2": 3.0, "c3": 2.0, "c4": 1.0}}
    res = rankset.evaluate(
        run, None, ["claim_recall@4", "context_precision@4"], nuggets=as_frame({"q": nuggets}),
        confidence=None,
    )  # fmt: skip
    got = dict(res.per_query.select("measure", "value").rows())
    assert got == pytest.approx({"nugget_coverage": 2 / 3, "context_precision": 2 / 4})


def test_alpha_ndcg_by_hand() -> None:
    # a: n1 n2; b: n1; c: n3. Run b, a, c: gains 1, 0.5 + 1, 1 (alpha 0.5)
    nuggets = {
        "n1": ("vital", {"a": "support", "b": "support"}),
        "n2": ("vital", {"a": "support"}),
        "n3": ("okay", {"c": "support"}),
    }
    run = {"q": {"b": 3.0, "a": 2.0, "c": 1.0}}
    res = rankset.evaluate(
        run, None, ["alpha_ndcg@3", "alpha_ndcg(alpha=0)@3"], nuggets=as_frame({"q": nuggets}),
        confidence=None,
    )  # fmt: skip
    values = dict(res.per_query.select("metric", "value").rows())
    dcg = 1 + 1.5 / math.log2(3) + 1 / 2
    ideal = 2 + 1 / math.log2(3) + 0.5 / 2  # greedy: a (2), c (1), b (0.5)
    assert values["alpha_ndcg@3"] == pytest.approx(dcg / ideal)
    assert values["alpha_ndcg(alpha=0)@3"] == pytest.approx(
        (1 + 2 / math.log2(3) + 1 / 2) / (2 + 1 / math.log2(3) + 1 / 2)
    )


def test_readers_and_nuggetizer_jsonl(tmp_path: Path) -> None:
    records = [
        {"qid": "q1", "docid": "d1", "nuggets": [
            {"text": "Paris is the capital", "importance": "vital", "assignment": "support"},
            {"text": "on the Seine", "importance": "okay", "assignment": "partial_support"},
        ]},
        {"qid": "q1", "docid": "d2", "nuggets": [
            {"text": "Paris is the capital", "importance": "vital", "assignment": "not_support"},
        ]},
    ]  # fmt: skip
    path = tmp_path / "assign.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records), encoding="utf-8")
    frame = read_nuggets(path)
    assert frame.select("nugget_id", "doc_id", "support", "vital").rows() == [
        ("Paris is the capital", "d1", 1.0, True),
        ("on the Seine", "d1", 0.5, False),
        ("Paris is the capital", "d2", 0.0, True),
    ]
    csv = tmp_path / "nuggets.csv"
    frame.write_csv(csv)
    assert read_nuggets(csv).equals(frame)


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ({"support": ["maybe"]}, "row 1: support 'maybe' is not one of"),
        ({"importance": ["critical"]}, "importance 'critical' is not one of"),
        ({"support": ["support", "support"], "doc_id": ["d1", "d1"]}, "is given 2 times"),
        ({"importance": ["vital", "okay"], "doc_id": ["d1", "d2"]}, "2 different importances"),
    ],
)
def test_bad_nugget_labels_are_refused(rows: dict[str, list[str]], message: str) -> None:
    size = len(next(iter(rows.values())))
    base = {"query_id": ["q"] * size, "nugget_id": ["n"] * size, "doc_id": ["d1"] * size,
            "support": ["support"] * size, "importance": ["vital"] * size}  # fmt: skip
    with pytest.raises(InputFormatError, match=message):
        read_nuggets(pl.DataFrame({**base, **rows}))
    with pytest.raises(InputFormatError, match="no column"):
        read_nuggets(pl.DataFrame({"query_id": ["q"], "doc_id": ["d"]}))


def test_nugget_measures_need_nuggets_and_a_cutoff() -> None:
    run = {"q": {"a": 1.0}}
    with pytest.raises(ParameterError, match="need nugget labels"):
        rankset.evaluate(run, {"q": {"a": 1}}, ["nugget_coverage@5"])
    frame = as_frame({"q": {"n": ("vital", {"a": "support"})}})
    with pytest.raises(ParameterError, match="explicit cutoff"):
        rankset.evaluate(run, None, ["nugget_coverage"], nuggets=frame)


def test_labels_implied_by_the_nuggets_score_classic_measures_beside_them() -> None:
    nuggets = {"n1": ("vital", {"a": "support", "b": "partial_support"})}
    run = {"q": {"b": 2.0, "a": 1.0}}
    res = rankset.evaluate(
        run, None, ["rr", "nugget_coverage@1", "nugget_coverage_partial@1"],
        nuggets=as_frame({"q": nuggets}), confidence=None,
    )  # fmt: skip
    got = dict(res.per_query.select("metric", "value").rows())
    assert got == {"rr": 0.5, "nugget_coverage@1": 0.0, "nugget_coverage_partial@1": 0.5}


def test_the_command_line_reads_nuggetizer_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from rankset.cli import main

    records = [
        {"qid": "q1", "docid": "a", "nuggets": [
            {"text": "fact one", "importance": "vital", "assignment": "support"},
            {"text": "fact two", "importance": "okay", "assignment": "not_support"},
        ]},
        {"qid": "q1", "docid": "b", "nuggets": [
            {"text": "fact two", "importance": "okay", "assignment": "partial_support"},
        ]},
    ]  # fmt: skip
    nuggets = tmp_path / "assigned.jsonl"
    nuggets.write_text("\n".join(json.dumps(r) for r in records), encoding="utf-8")
    run = tmp_path / "run.trec"
    run.write_text("q1 Q0 b 1 2.0 s\nq1 Q0 a 2 1.0 s\n", encoding="utf-8")
    args = ["evaluate", str(run), "--nuggets", str(nuggets), "--json"]
    assert main([*args, "-m", "nugget_coverage_partial@1", "-m", "nugget_coverage@2"]) == 0
    summary = json.loads(capsys.readouterr().out)
    means = {row["metric"]: row["mean"] for row in summary}
    assert means == {"nugget_coverage_partial@1": 0.25, "nugget_coverage@2": 0.5}


def test_nugget_misses_tell_retrieval_from_ranking_misses() -> None:
    # n1: supported by a (1st) -> covered; n2: by c (4th) -> below k; n3: by z, never
    # retrieved -> not retrieved; n4 okay, below k, left out unless vital_only=False
    nuggets = {
        "n1": ("vital", {"a": "support"}),
        "n2": ("vital", {"c": "support", "b": "partial_support"}),
        "n3": ("vital", {"z": "support"}),
        "n4": ("okay", {"d": "support"}),
    }
    runs = {
        "first": {"q": {"a": 5.0, "b": 4.0, "x": 3.0, "c": 2.0, "d": 1.0}},
        "second": {"q": {"c": 5.0, "a": 4.0, "d": 3.0}},
    }
    frame = as_frame({"q": nuggets})
    out = rankset.nugget_misses(runs, frame, k=2)
    assert out.select("system", "nugget_id", "miss", "best_pos", "n_supporting").rows() == [
        ("first", "n2", "below k", 4, 1),
        ("first", "n3", "not retrieved", None, 1),
        ("second", "n3", "not retrieved", None, 1),
    ]
    every = rankset.nugget_misses(runs, frame, k=2, vital_only=False)
    assert ("first", "n4", "below k", 5) in every.select(
        "system", "nugget_id", "miss", "best_pos"
    ).rows()
    # the misses agree with the measure: vital coverage = 1 - misses / vital nuggets
    res = rankset.evaluate(runs, None, ["vital_coverage@2"], nuggets=frame, confidence=None)
    for system, value in res.per_query.select("system", "value").rows():
        missed = out.filter(system=system).height
        assert value == pytest.approx(1 - missed / 3)


# RAGChecker's example (amazon-science/RAGChecker, examples/checking_outputs.json,
# Apache-2.0): for each ground-truth claim, the checker's label against each retrieved
# chunk ("E" entailment; "N" neutral; "C" contradiction), in retrieval order. Their
# reported per-query claim_recall / context_precision and the overall 61.4 / 87.5.
RAGCHECKER_RETRIEVED2ANSWER = {
    "0": ["NENN", "NNNN", "NNNN", "ENNN", "EENN", "ENNE", "CCNN", "NNNN", "NNNN", "NNNN",
          "NNNN", "NNNN", "NNNN", "NNNN", "NNNN", "NNNN", "NNNN", "NNNN", "NNNN", "NNNN",
          "NNNN", "NENN"],
    "1": ["NEN", "NEE", "NEN", "CEE", "NNE", "ENE", "EEE", "NEE"],
}  # fmt: skip
RAGCHECKER_REPORTED = {"0": (0.22727272727272727, 0.75), "1": (1.0, 1.0)}


def test_ragcheckers_published_example_reproduces() -> None:
    rows, run = [], {}
    for query, claims in RAGCHECKER_RETRIEVED2ANSWER.items():
        chunks = [f"{j:03d}" for j in range(len(claims[0]))]
        run[query] = {chunk: float(len(chunks) - j) for j, chunk in enumerate(chunks)}
        for i, labels in enumerate(claims):
            for chunk, label in zip(chunks, labels, strict=True):
                support = "support" if label == "E" else "not_support"
                rows.append((query, f"claim{i}", chunk, support, "vital"))
    nuggets = pl.DataFrame(
        rows, schema=["query_id", "nugget_id", "doc_id", "support", "importance"], orient="row"
    )
    res = rankset.evaluate(
        run, None, ["claim_recall@4", "context_precision@4"], nuggets=nuggets, confidence=None
    )
    for query, (claim_recall, context_precision) in RAGCHECKER_REPORTED.items():
        got = dict(res.per_query.filter(query_id=query).select("measure", "value").rows())
        assert got["nugget_coverage"] == pytest.approx(claim_recall, abs=1e-15)
        assert got["context_precision"] == pytest.approx(context_precision, abs=1e-15)
    means = dict(res.summary.select("metric", "mean").rows())
    assert round(100 * means["nugget_coverage@4"], 1) == 61.4
    assert round(100 * means["context_precision@4"], 1) == 87.5


def test_the_report_takes_nugget_measures_and_leaves_them_out_of_the_curves(
    tmp_path: Path,
) -> None:
    from rankset.pages.report import report

    nuggets = as_frame({"q": {"n1": ("vital", {"a": "support"}), "n2": ("okay", {"c": "support"})}})
    runs = {"x": {"q": {"a": 2.0, "b": 1.0}}, "y": {"q": {"c": 2.0, "a": 1.0}}}
    page = report(
        runs, None, metrics=["rr", "nugget_coverage@1"], nuggets=nuggets,
        out=tmp_path / "r.html", n_resamples=50, scale="binary",
    ).path.read_text(encoding="utf-8")  # fmt: skip
    assert "nugget_coverage@1" in page
    assert "<h2>Metric vs k</h2>" in page  # rr's curve; nugget_coverage has none
