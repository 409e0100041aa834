"""One bit pattern per (system, query, metric), whatever else is asked and however it runs.

Every registered measure is evaluated alone, repeatedly, and its values must have exactly
the bits it has in a mix of all of them; mixes must keep their bits across the streaming
and in-memory engines, bucket counts and shuffled input rows. Floating-point sums are where
this broke (nDCG gave a different last bit on most calls), so the measures built on them
are repeated 20 times.
"""

from __future__ import annotations

import struct
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import rankset

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "sample"
RUNS = {"bm25": SAMPLE / "bm25.trec", "rerank": SAMPLE / "rerank.trec"}
QRELS = SAMPLE / "qrels.txt"
# Nugget labels from the sample's labels: a passage graded g supports nugget "g<g>-<r>"
# (r = the first digit of its id), fully from grade 2, partly at grade 1; grade-3 nuggets
# are vital. Several passages share a nugget, as in real nugget labels.
NUGGETS = (
    pl.read_csv(QRELS, separator=" ", has_header=False, new_columns=["q", "i", "d", "g"])
    .filter(pl.col("g") >= 1)
    .select(
        pl.col("q").alias("query_id"),
        pl.format("g{}-{}", "g", pl.col("d").str.slice(-1)).alias("nugget_id"),
        pl.col("d").alias("doc_id"),
        pl.when(pl.col("g") >= 2).then(pl.lit("support")).otherwise(pl.lit("partial_support"))
        .alias("support"),
        pl.when(pl.col("g") == 3).then(pl.lit("vital")).otherwise(pl.lit("okay"))
        .alias("importance"),
    )
)  # fmt: skip
OPTIONS = {"scale": "trec_dl", "confidence": None, "nuggets": NUGGETS}
# Measures whose value is a sum of non-integer terms: the ones order can change.
FLOAT_SUMS = {
    "ap", "bpref", "dcg", "ndcg", "ndcg_exp", "ra_nwg", "proc", "pct_proc", "alpha_ndcg",
    "udcg", "signed_gain", "ragas_context_precision", "sdcg", "bpm", "nerr8", "nerr9",
    "nerr10", "nerr11", "inst", "insq", "alpha_dcg", "err_ia", "nerr_ia", "nrbp", "nnrbp",
    "map_ia",
}  # fmt: skip
# containment needs passage text and answers, which the sample runs do not carry; its
# value is a minimum position compared with k, with no floating-point sum.
SKIPPED = {"containment"}


def _metric_names() -> list[str]:
    names = []
    for measure, spec in sorted(rankset.available_measures().items()):
        if measure in SKIPPED:
            continue
        if spec.cutoff == "none":
            names.append(measure)
        else:
            names.append(f"{measure}@10")
            if spec.cutoff == "optional":
                names.append(measure)
    return names


METRICS = _metric_names()


def _bits(result: rankset.EvaluationResult) -> dict[tuple[str, str, str], int | None]:
    return {
        (system, metric, query): None if value is None else _bits_of(value)
        for system, metric, query, value in result.per_query.select(
            "system", "metric", "query_id", "value"
        ).iter_rows()
    }


def _bits_of(value: float) -> int:
    return int(struct.unpack("<q", struct.pack("<d", value))[0])


@pytest.fixture(scope="module")
def reference() -> dict[tuple[str, str, str], int | None]:
    """Every metric at once, on the in-memory engine."""
    return _bits(rankset.evaluate(RUNS, QRELS, METRICS, engine="in-memory", **OPTIONS))


def test_the_metric_list_covers_every_measure_but_containment() -> None:
    measures = {name.split("@")[0] for name in METRICS}
    assert measures == set(rankset.available_measures()) - SKIPPED
    assert len(METRICS) > 30


@pytest.mark.parametrize("metric", METRICS)
def test_a_metric_alone_has_the_bits_it_has_in_the_mix(
    metric: str, reference: dict[tuple[str, str, str], int | None]
) -> None:
    expected = {key: bits for key, bits in reference.items() if key[1] == metric}
    assert expected
    repeats = 20 if metric.split("@")[0] in FLOAT_SUMS else 3
    for _ in range(repeats):
        assert _bits(rankset.evaluate(RUNS, QRELS, [metric], **OPTIONS)) == expected


def _shuffled_runs(seed: int) -> dict[str, pl.DataFrame]:
    return {
        name: rankset.scan_run(path).collect().sample(fraction=1.0, shuffle=True, seed=seed)
        for name, path in RUNS.items()
    }


MIXES = [
    ["alpha_ndcg@10", "nugget_recall@5", "ndcg@10"],
    ["ndcg@10", "ndcg"],
    ["ndcg@10", "recall@10"],
    ["ap", "ndcg@10", "bpref", "precision@10"],
    ["ra_nwg@5", "proc@5", "pct_proc@5", "ndcg@5", "harm@5"],
    ["inst(max_rel=3)", "nerr10", "sdcg(max_rel=3)@10", "bpm@10", "insq", "ndcg@10"],
    ["err_ia@10", "nerr_ia@5", "nrbp", "nnrbp", "map_ia", "alpha_dcg@10", "p_ia@5"],
]


@pytest.mark.parametrize("mix", MIXES, ids=["+".join(mix) for mix in MIXES])
def test_a_mix_keeps_its_bits_across_engines_buckets_and_row_order(mix: list[str]) -> None:
    everything = list(dict.fromkeys([*METRICS, *mix]))
    mixed = rankset.evaluate(RUNS, QRELS, everything, engine="in-memory", **OPTIONS)
    expected = {key: bits for key, bits in _bits(mixed).items() if key[1] in mix}
    assert len({key[1] for key in expected}) == len(mix)
    ways = {
        "streaming": rankset.evaluate(RUNS, QRELS, mix, engine="streaming", **OPTIONS),
        "in-memory": rankset.evaluate(RUNS, QRELS, mix, engine="in-memory", **OPTIONS),
        "buckets=3": rankset.evaluate(RUNS, QRELS, mix, buckets=3, **OPTIONS),
        "shuffled": rankset.evaluate(_shuffled_runs(7), QRELS, mix, **OPTIONS),
        "shuffled again": rankset.evaluate(_shuffled_runs(8), QRELS, mix, **OPTIONS),
    }
    for way, result in ways.items():
        assert _bits(result) == expected, way


def test_compare_twice_gives_identical_frames() -> None:
    frames = [
        rankset.compare(
            rankset.evaluate(RUNS, QRELS, ["ndcg@10", "ap"], **OPTIONS),
            baseline="bm25",
            tests=["randomization", "t", "wilcoxon"],
        )
        for _ in range(2)
    ]
    assert_frame_equal(frames[0], frames[1], check_exact=True)


DL19 = ("bm25", "bm25-rm3", "splade-pp-ed")


def test_dl19_values_keep_their_bits(shared_data: Path) -> None:
    runs = {
        name: shared_data / "rank_llm_dl_runs" / "first_stage" / f"{name}.dl19.trec.gz"
        for name in DL19
    }
    qrels = shared_data / "anserini_qrels_topics" / "qrels" / "qrels.dl19-passage.txt.gz"
    mix = ["ndcg@10", "ndcg", "ap", "bpref"]
    expected = _bits(rankset.evaluate(runs, qrels, mix, engine="in-memory", confidence=None))
    for _ in range(5):
        assert _bits(rankset.evaluate(runs, qrels, mix, confidence=None)) == expected
    alone = _bits(rankset.evaluate(runs, qrels, ["ndcg@10"], confidence=None))
    assert alone == {key: bits for key, bits in expected.items() if key[1] == "ndcg@10"}
    by_bucket = _bits(rankset.evaluate(runs, qrels, mix, buckets=4, confidence=None))
    assert by_bucket == expected
