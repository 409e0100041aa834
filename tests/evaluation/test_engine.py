"""The pass over the runs: streaming-native plans, engine choice, the fast TREC reader.

What is checked here:

* the plan over the runs (numbering, counts, the join with the labels) has no node that
  falls back to the in-memory engine, read from Polars' physical plan of the streaming
  engine, for the classic measures, the RAG set metrics and a separate pool;
* every engine gives bit-identical values, and so does the streaming engine from one
  evaluation to the next (its partial sums are never used for the values);
* ``engine="gpu"`` without cudf-polars warns and runs on the CPU;
* the plain-layout TREC reader gives exactly the general parser's frame, and everything
  outside that layout still goes through the general parser (errors name the line).
"""

from __future__ import annotations

import functools
import gzip
import importlib.util
import io
import re
from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import rankset
from rankset import io as rio
from rankset.evaluation import EvaluateOptions
from rankset.evaluation._kernel_labels import labels_in_bucket
from rankset.evaluation._pass import ordered_pass_frames, ranked_pass_frames
from rankset.evaluation._plan import plan_evaluation_inputs
from rankset.io import _trec as trec_reader
from rankset.measures import parse_metrics

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "sample"
TREC_EVAL = Path(__file__).resolve().parents[1] / "data" / "trec_eval"

CLASSIC = ["ndcg@10", "ap", "rr", "recall@100", "P@10", "bpref", "Rprec", "judged@10"]
RAG = ["ra_nwg@5", "proc@10", "pct_proc@10", "n_recall_4plus@10", "harm(unjudged=1)@5"]
SCALE = "trec_dl"  # the sample's grades are 0-3

# Polars draws the in-memory fallback of a streaming plan as a node "in-memory-map" (or
# another "in-memory-..." node that is not a source) filled with this colour.
_FALLBACK_COLOUR = 'fillcolor="0.0 0.3 1.0"'
_NODE_LABEL = re.compile(r'\[label="([^"\\]*(?:\\.[^"\\]*)*)"')


def _physical_nodes(frame: pl.LazyFrame) -> list[str]:
    graph = frame.show_graph(engine="streaming", plan_stage="physical", raw_output=True, show=False)
    assert isinstance(graph, str)
    return [line for line in graph.splitlines() if "[label=" in line]


def _fallback_nodes(frame: pl.LazyFrame) -> list[str]:
    nodes = _physical_nodes(frame)
    return [
        node
        for node in nodes
        if _FALLBACK_COLOUR in node or re.search(r'label="in-memory-(?!source)', node) is not None
    ]


def _prepared(metrics: list[str], **options: object):  # type: ignore[no-untyped-def]
    return plan_evaluation_inputs(
        [SAMPLE / "bm25.trec", SAMPLE / "rerank.trec"],
        SAMPLE / "qrels.txt",
        parse_metrics(metrics),
        EvaluateOptions(scale=SCALE, **options),  # type: ignore[arg-type]
    )


def test_the_fallback_detector_sees_a_known_fallback() -> None:
    # A list expression inside a group-by is the textbook in-memory fallback.
    frame = pl.LazyFrame({"q": ["a", "a"], "pos": [2, 1], "x": [1.0, 2.0]})
    plan = frame.group_by("q").agg(pl.col("x").sort_by("pos").head(1).sum())
    assert _fallback_nodes(plan)


@pytest.mark.parametrize(
    ("metrics", "options"),
    [
        (CLASSIC, {}),
        (RAG, {}),
        (RAG, {"pool": SAMPLE / "bm25.trec", "pool_depth": 20}),
        (CLASSIC, {"duplicates": "keep_best"}),
    ],
    ids=["classic", "rag", "rag-with-pool", "keep-best"],
)
def test_the_pass_over_the_runs_has_no_in_memory_fallback(
    metrics: list[str], options: dict[str, object]
) -> None:
    prepared = _prepared(metrics, **options)
    runs = prepared.runs
    bucket = (1, 4)  # the pass over one bucket (buckets=N, engine="dask")
    bucket_labels = labels_in_bucket(prepared, bucket)
    heavy: dict[str, pl.LazyFrame] = {}
    for index, part in enumerate(runs.inputs):
        plans = {"ranked": ranked_pass_frames}
        if runs.duplicates == "error":
            plans["ordered"] = ordered_pass_frames
            plans["ties"] = functools.partial(ordered_pass_frames, ties=True)
        for plan_name, plan in plans.items():
            for i, frame in enumerate(plan(runs, part, prepared.labels)):
                heavy[f"{plan_name} run {index} frame {i}"] = frame
            for i, frame in enumerate(plan(runs, part, bucket_labels, bucket)):
                heavy[f"{plan_name} run {index} bucket frame {i}"] = frame
    if prepared.pools is not None:
        heavy["pool"] = prepared.pools.counts
    assert len(heavy) >= 12  # every frame of each plan, whole and in one bucket
    assert any(name.startswith("ties") for name in heavy) == (runs.duplicates == "error")
    for name, frame in heavy.items():
        nodes = _physical_nodes(frame)
        assert len(nodes) > 3, name  # a real plan was read
        assert _fallback_nodes(frame) == [], name


def test_the_runs_are_numbered_without_a_global_sort() -> None:
    prepared = _prepared(CLASSIC)
    runs = prepared.runs
    tied = functools.partial(ordered_pass_frames, ties=True)
    for plan in (ranked_pass_frames, ordered_pass_frames, tied):
        hits = plan(runs, runs.inputs[0], prepared.labels)[0]
        labels = [node.split('label="', 1)[1].split("\\n", 1)[0] for node in _physical_nodes(hits)]
        assert not any(label.startswith("sort") for label in labels), (plan, labels)
        if plan is ranked_pass_frames:  # a rank over each ranking
            assert any(label.startswith("window") for label in labels), labels


def _values(engine: str, metrics: list[str] = CLASSIC) -> pl.DataFrame:
    result = rankset.evaluate(
        [SAMPLE / "bm25.trec", SAMPLE / "rerank.trec"],
        SAMPLE / "qrels.txt",
        metrics,
        engine=engine,  # type: ignore[arg-type]
        scale=SCALE,
        confidence=None,
    )
    return result.per_query


@pytest.mark.parametrize("metrics", [CLASSIC, RAG], ids=["classic", "rag"])
def test_engines_give_bit_identical_values(metrics: list[str]) -> None:
    streaming = _values("streaming", metrics)
    assert streaming.height > 0
    for engine in ("in-memory", "auto"):
        assert_frame_equal(_values(engine, metrics), streaming, check_exact=True)


def test_streaming_values_are_bit_identical_from_run_to_run() -> None:
    first = _values("streaming")
    for _ in range(4):
        assert_frame_equal(_values("streaming"), first, check_exact=True)


def test_the_engine_is_recorded_in_the_config() -> None:
    result = rankset.evaluate(SAMPLE / "bm25.trec", SAMPLE / "qrels.txt", ["rr"])
    assert result.config["engine"] == "streaming"


@pytest.mark.skipif(
    importlib.util.find_spec("cudf_polars") is not None, reason="cudf-polars is installed"
)
def test_gpu_without_cudf_polars_warns_and_runs_on_the_cpu() -> None:
    with pytest.warns(rankset.RanksetWarning, match="cudf-polars"):
        on_gpu = _values("gpu")
    assert_frame_equal(on_gpu, _values("streaming"), check_exact=True)


def test_an_unknown_engine_is_refused_with_the_choices() -> None:
    with pytest.raises(rankset.ParameterError, match=r"'engine'.*'in-memory'"):
        _values("polars")


def test_curves_take_the_engine_option() -> None:
    streaming = rankset.curves(
        SAMPLE / "bm25.trec", SAMPLE / "qrels.txt", ["ndcg"], 5, engine="streaming"
    )
    in_memory = rankset.curves(
        SAMPLE / "bm25.trec", SAMPLE / "qrels.txt", ["ndcg"], 5, engine="in-memory"
    )
    assert_frame_equal(streaming.per_query, in_memory.per_query, check_exact=True)


# --- the plain-layout TREC reader ------------------------------------------------------


def _general(data: bytes) -> pl.DataFrame:
    parsed = trec_reader.parse_trec_lines(data, "<test>", None, "run")
    assert parsed.run is not None
    return parsed.run.collect()


def _fast(data: bytes) -> pl.DataFrame | None:
    return trec_reader.read_plain_trec_run(data)


def _trec_files(folder: Path, fields: int) -> list[Path]:
    """The files below ``folder`` whose first line has ``fields`` fields (6: runs; 4: qrels)."""
    files = []
    for path in sorted(folder.rglob("*")):
        if not path.is_file() or path.suffix in {".md", ".tsv", ".json", ".jsonl", ".py"}:
            continue
        if len(_file_bytes(path).split(b"\n", 1)[0].split()) == fields:
            files.append(path)
    return files


def _agreeing(
    files: list[Path],
    fast: Callable[[bytes], pl.DataFrame | None],
    general: Callable[[bytes], pl.DataFrame],
) -> int:
    """Assert the fast reader gives the general parser's frame; count the files it took."""
    taken = 0
    for path in files:
        data = _file_bytes(path)
        frame = fast(data)
        if frame is not None:
            taken += 1
            assert_frame_equal(frame, general(data), check_exact=True)
    return taken


def _file_bytes(path: Path) -> bytes:
    data = path.read_bytes()
    return gzip.decompress(data) if data.startswith(b"\x1f\x8b") else data


def test_the_fast_reader_equals_the_general_parser_on_the_bundled_runs() -> None:
    files = _trec_files(SAMPLE, 6) + _trec_files(TREC_EVAL, 6)
    assert _agreeing(files, _fast, _general) >= 2  # the sample runs take the fast path


def test_the_fast_reader_equals_the_general_parser_on_real_runs(shared_data: Path) -> None:
    # NIST's tab-separated runs and rank_llm's take it
    assert _agreeing(_trec_files(shared_data, 6), _fast, _general) >= 50


@pytest.mark.parametrize(
    "text",
    [
        "1 Q0 d1 1 2.5 tag\n1 Q0 d2 2 1.5 tag\n",
        "1\tQ0\td1\t1\t2.5\ttag\n1\tQ0\td2\t2\t-1e-3\ttag\n",
        "1 Q0 d1 1 2.5 tag\r\n1 Q0 d2 2 1.5 tag\r\n",
        "\ufeff1 Q0 d1 1 2.5 tag\n",
        "1 Q0 d1 1 2.5 tag",  # no final newline
        # a trailing field after the first line: both ignore it, as trec_eval does
        "1 Q0 d1 1 2.5 tag\n1 Q0 d2 2 1.5 tag extra\n",
        "1 Q0 d1 1 2.5 tag\n1 Q0 d2 2 1.5 tag \n",
    ],
    ids=[
        "spaces",
        "tabs",
        "crlf",
        "bom",
        "no-final-newline",
        "trailing-field-later",
        "trailing-blank-later",
    ],
)
def test_plain_layouts_take_the_fast_path_and_agree(text: str) -> None:
    data = text.encode()
    fast = _fast(data)
    assert fast is not None
    assert_frame_equal(fast, _general(data), check_exact=True)


@pytest.mark.parametrize(
    "text",
    [
        "1 Q0 d1 1 2.5 tag\n\n1 Q0 d2 2 1.5 tag\n",  # blank line
        "1 Q0 d1 1 2.5 tag\n# Q0 d9 9 9.0 comment\n",  # comment with six fields
        "# a comment first\n1 Q0 d1 1 2.5 tag\n",
        "1 Q0 d1 1 2.5 tag\n1  Q0 d2 2 1.5 tag\n",  # two spaces
        "1 Q0 d1 1 2.5 tag\n1\tQ0 d2 2 1.5 tag\n",  # a tab among spaces
        "1 Q0 d1 1 2.5 tag extra\n",  # trailing field (trec_eval ignores it)
        "1\tQ0\td1\t1\t  2.5\ttag\n",  # padded number
        " 1 Q0 d1 1 2.5 tag\n",  # leading blank
    ],
    ids=[
        "blank-line",
        "comment-six-fields",
        "comment-first",
        "two-spaces",
        "mixed-blanks",
        "trailing-field",
        "padded-number",
        "leading-blank",
    ],
)
def test_other_layouts_go_to_the_general_parser(text: str) -> None:
    data = text.encode()
    assert _fast(data) is None
    parsed = rio.scan_run(io.BytesIO(data))  # still read, by the general parser
    assert parsed.collect().height >= 1


def test_errors_in_an_almost_plain_file_still_name_the_line(tmp_path: Path) -> None:
    path = tmp_path / "run.trec"
    path.write_text("1 Q0 d1 1 2.5 tag\n1 Q0 d2 2 high tag\n")
    with pytest.raises(rankset.InputFormatError, match=r"run\.trec, line 2.*'high'"):
        rankset.io.scan_run(path)


def test_a_path_and_its_bytes_read_the_same(tmp_path: Path) -> None:
    text = "q1 Q0 b 1 1.0 sys\nq1 Q0 a 2 1.0 sys\nq2 Q0 c 1 0.5 sys\n"
    path = tmp_path / "run.trec"
    path.write_text(text)
    gz = tmp_path / "run.trec.gz"
    gz.write_bytes(gzip.compress(text.encode()))
    expected = _general(text.encode())
    for source in (path, gz, str(path)):
        assert_frame_equal(rankset.io.scan_run(source).collect(), expected, check_exact=True)


# --- the plain-layout qrels reader -----------------------------------------------------


def _general_labels(data: bytes) -> pl.DataFrame:
    parsed = trec_reader.parse_trec_lines(data, "<test>", None, "labels")
    assert parsed.labels is not None
    return parsed.labels.collect()


def test_the_fast_qrels_reader_equals_the_general_parser_on_the_bundled_qrels() -> None:
    files = _trec_files(SAMPLE, 4) + _trec_files(TREC_EVAL, 4)
    # the sample's qrels and trec_eval's qrels.test
    assert _agreeing(files, trec_reader.read_plain_trec_labels, _general_labels) >= 2


def test_the_fast_qrels_reader_equals_the_general_parser_on_real_qrels(
    shared_data: Path,
) -> None:
    files = _trec_files(shared_data, 4)
    assert _agreeing(files, trec_reader.read_plain_trec_labels, _general_labels) >= 5  # TREC DL


@pytest.mark.parametrize(
    "text",
    [
        "1 0 d1 1\n1 0 d2 0 extra\n",  # a fifth field later: trec_eval refuses it
        "1 0 d1 1\n1 0 d2 0.5\n",  # a decimal grade: the general parser reads it
        "1 0 d1 1\n\n1 0 d2 0\n",  # blank line
        "1 0 d1 1\n# 0 d9 9\n",  # comment with four fields
        "1 0 d1 1\n1  0 d2 0\n",  # two spaces
        "1 0 d1 1\n1\t0 d2 0\n",  # a tab among spaces
        "1 0 d1 1\n1 0 d2 high\n",  # a word for a grade
        "1 0 d1 1\n1 0 d2\x0c 0\n",  # a form feed: a blank for the general parser
        "1 0 d1 1\n1 0 d\x0b2 0\n",  # a vertical tab inside a field
    ],
    ids=[
        "fifth-field",
        "decimal",
        "blank-line",
        "comment",
        "two-spaces",
        "mixed",
        "word",
        "form-feed",
        "vertical-tab",
    ],
)
def test_other_qrels_layouts_go_to_the_general_parser(text: str) -> None:
    data = text.encode()
    assert trec_reader.read_plain_trec_labels(data) is None
    try:
        expected: pl.DataFrame | Exception = _general_labels(data)
    except rankset.InputFormatError as error:
        expected = error
    if isinstance(expected, Exception):
        with pytest.raises(rankset.InputFormatError, match=r"line 2"):
            rankset.io.scan_labels(io.BytesIO(data)).collect()
    else:
        assert_frame_equal(rankset.io.scan_labels(io.BytesIO(data)).collect(), expected)


def test_plain_qrels_take_the_fast_reader_through_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "qrels.txt"
    path.write_text("q1 0 b 2\nq1 0 a 0\nq2 0 c -1\n")
    monkeypatch.setattr(trec_reader, "parse_trec_lines", None)  # the general parser must not run
    read = rankset.io.scan_labels(path).collect()
    assert read.rows() == [("q1", "b", 2.0), ("q1", "a", 0.0), ("q2", "c", -1.0)]


def test_the_gpu_fallback_warns_once(recwarn: pytest.WarningsRecorder) -> None:
    if importlib.util.find_spec("cudf_polars") is not None:
        pytest.skip("cudf-polars is installed: no fallback to warn about")
    _values("gpu")
    fallbacks = [w for w in recwarn if "cudf-polars" in str(w.message)]
    assert len(fallbacks) == 1
    assert fallbacks[0].filename == __file__  # it points at the caller
