"""``rankset trec_eval`` prints trec_eval's own regression outputs byte for byte.

The expected files are trec_eval's (``tests/data/trec_eval``, see its NOTICE), produced by
the commands its README lists; they always ship with the tests, so this runs everywhere.
The parity tests build trec_eval 10.0 itself and compare on generated runs too.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from rankset.cli import main as cli_main
from rankset.compat import trec_eval

PREFS_RUN = "prefs.results.test"
CASES = [
    ("out.test", [], "qrels.test", "results.test"),
    ("out.test.aq", ["-m", "all_trec", "-q"], "qrels.test", "results.test"),
    ("out.test.aqc", ["-m", "all_trec", "-q", "-c"], "qrels.test", "results.trunc"),
    (
        "out.test.aql",
        ["-m", "all_trec", "-mrelstring.20", "-q", "-l2"],
        "qrels.rel_level",
        "results.test",
    ),
    ("out.test.aqZ", ["-q", "-m", "all_trec", "-Z", "zscores_file"], "qrels.test", "results.test"),
    ("out.test.qrels_jg", ["-m", "qrels_jg", "-q", "-R", "qrels_jg"], "qrels.123", "results.test"),
    ("out.test.prefs", ["-m", "all_prefs", "-q", "-R", "prefs"], "prefs.test", PREFS_RUN),
    (
        "out.test.qrels_prefs",
        ["-m", "all_prefs", "-q", "-R", "qrels_prefs"],
        "qrels.test",
        "results.test",
    ),
]


def _run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = trec_eval.main(argv, out=out, err=err)
    return status, out.getvalue(), err.getvalue()


@pytest.mark.parametrize(("expected", "options", "qrels", "run"), CASES, ids=[c[0] for c in CASES])
def test_output_equals_trec_evals_regression_file(
    trec_eval_data: Path, expected: str, options: list[str], qrels: str, run: str
) -> None:
    options = [str(trec_eval_data / o) if o == "zscores_file" else o for o in options]
    argv = [*options, str(trec_eval_data / qrels), str(trec_eval_data / run)]
    status, out, err = _run(argv)
    assert (status, err) == (0, "")
    assert out == (trec_eval_data / expected).read_text(encoding="utf-8")


def test_the_cli_runs_the_drop_in(trec_eval_data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status = cli_main(
        ["trec_eval", str(trec_eval_data / "qrels.test"), str(trec_eval_data / "results.test")]
    )
    assert status == 0
    assert capsys.readouterr().out == (trec_eval_data / "out.test").read_text(encoding="utf-8")


def test_unreadable_files_exit_2_with_trec_evals_messages(trec_eval_data: Path) -> None:
    qrels = str(trec_eval_data / "qrels.test")
    status, out, err = _run([qrels, "no/such/run"])
    assert (status, out) == (2, "")
    assert err == (
        "trec_eval.get_results: Cannot read results file 'no/such/run'\n"
        "trec_eval: Quit in file 'no/such/run'\n"
    )
    status, _, err = _run(["no/such/qrels", qrels])
    assert status == 2
    assert err.startswith("trec_eval.get_qrels: Cannot read qrels file 'no/such/qrels'")


def test_bad_options_and_measures_exit_1_or_2(trec_eval_data: Path) -> None:
    files = [str(trec_eval_data / "qrels.test"), str(trec_eval_data / "results.test")]
    assert _run(["-m", "foo", *files])[:2] == (1, "")
    assert _run(["-m", "foo", *files])[2] == "trec_eval: illegal measure 'foo'\n"
    # a cutoff of 0 stops trec_eval 10.0 when it sets the measure up: status 2
    assert _run(["-m", "P.0", *files]) == (
        2,
        "",
        "trec_eval: Negative cutoff detected\ntrec_eval: Cannot initialize measure 'P'\n",
    )
    status, _, err = _run(files[:1])
    assert status == 1
    assert err.startswith("Usage: trec_eval [-h] [-q] {-m measure}* trec_rel_file trec_top_file")


def test_a_labelled_query_without_results_stops_10_0_unless_c(tmp_path: Path) -> None:
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("q0 0 z 1\nq1 0 a 1\nq2 0 b 1\n", encoding="utf-8")
    run.write_text("q1 Q0 a 1 9 tag\nq3 Q0 a 1 9 tag\n", encoding="utf-8")
    status, out, err = _run(["-q", "-m", "map", str(qrels), str(run)])
    assert (status, out, err) == (4, "", "trec_eval: result qid 'q0' not found in qrels\n")
    status, out, err = _run(["-q", "-c", "-m", "map", "-m", "num_ret", str(qrels), str(run)])
    assert status == 0
    # -c: every labelled query, the unanswered ones with empty rankings (10.0 prints them)
    assert out.splitlines() == [
        "num_ret               \tq0\t0",
        "map                   \tq0\t0.0000",
        "num_ret               \tq1\t1",
        "map                   \tq1\t1.0000",
        "num_ret               \tq2\t0",
        "map                   \tq2\t0.0000",
        "num_ret               \tall\t1",
        "map                   \tall\t0.3333",
    ]


def test_duplicate_documents_exit_4(tmp_path: Path) -> None:
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("q1 0 a 1\n", encoding="utf-8")
    run.write_text("q1 Q0 a 1 9 tag\nq1 Q0 a 2 8 tag\n", encoding="utf-8")
    status, out, err = _run([str(qrels), str(run)])
    assert (status, out) == (4, "")
    assert err.startswith("trec_eval.form_res_qrels: duplicate docs a")


def test_runid_is_the_last_lines_tag_and_params_name_the_lines(tmp_path: Path) -> None:
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("q1 0 a 1\nq1 0 b 0\n", encoding="utf-8")
    run.write_text("q1 Q0 a 1 9 first\r\nq1 Q0 b 2 8 last\r\n\r\n", encoding="utf-8")
    status, out, _ = _run(["-m", "runid", "-m", "rbp.p=0.5", "-m", "P.1,2", str(qrels), str(run)])
    assert status == 0
    # rbp = (1 - 0.5) * 1; P_1 = 1, P_2 = 1/2
    assert out.splitlines() == [
        "runid                 \tall\tlast",
        "P_1                   \tall\t1.0000",
        "P_2                   \tall\t0.5000",
        "rbp_p=0.5             \tall\t0.5000",
    ]


def test_gain_maps_and_what_is_refused(tmp_path: Path) -> None:
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("q 0 a 1\nq 0 b 0\nq 0 c 2\nq 0 e 2\n", encoding="utf-8")
    run.write_text("q Q0 a 1 3 t\nq Q0 b 2 2 t\nq Q0 c 3 1 t\n", encoding="utf-8")
    status, out, err = _run(["-m", "ndcg.1=3,2=9", str(qrels), str(run)])
    # gains 3, 0, 9 at 1..3 over the ideal 9, 9, 3 (trec_eval 10.0 prints 0.4636)
    assert (status, err) == (0, "")
    assert out == "ndcg_1=3,2=9          \tall\t0.4636\n"
    # 10.0 shares one gain map among dcg, ideal_dcg and ndcg, then crashes at exit
    status, out, err = _run(["-m", "ndcg.1=3", "-m", "dcg", str(qrels), str(run)])
    assert (status, out) == (1, "")
    assert "share one gain map" in err
    # gains less than 1 apart: trec_eval's (int) (a - b) comparison leaves its ideal
    # unsorted; the measure is named and left out rather than printed differently
    status, out, err = _run(["-m", "ndcg.1=0.5", "-m", "map", str(qrels), str(run)])
    assert status == 0
    assert out.startswith("map ")
    assert "ndcg_1=0.5 is left out" in err


def test_j_emptying_every_ranking(tmp_path: Path) -> None:
    # trec_eval 10.0 prints these lines for this pair (both documents are unlabelled)
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("q 0 d1 1\n", encoding="utf-8")
    run.write_text("q Q0 x 1 1.0 t\nq Q0 y 2 0.5 t\n", encoding="utf-8")
    argv = [
        "-q",
        "-J",
        "-m",
        "map",
        "-m",
        "num_ret",
        "-m",
        "iprec_at_recall.0",
        str(qrels),
        str(run),
    ]
    status, out, err = _run(argv)
    assert (status, err) == (0, "")
    assert out.splitlines() == [
        "num_ret               \tq\t0",
        "map                   \tq\t0.0000",
        "iprec_at_recall_0.00  \tq\t  -nan",
        "num_ret               \tall\t0",
        "map                   \tall\t0.0000",
        "iprec_at_recall_0.00  \tall\t  -nan",
    ]


def test_11pt_avg_points_out_of_order_are_refused(trec_eval_data: Path) -> None:
    files = [str(trec_eval_data / "qrels.test"), str(trec_eval_data / "results.test")]
    status, out, err = _run(["-m", "11pt_avg.0.5,0.2", *files])
    assert (status, out) == (1, "")
    assert "ascending order" in err


def test_infinite_scores_rank_as_in_trec_eval_and_nan_is_refused(tmp_path: Path) -> None:
    # trec_eval 10.0 and 9.0.8 print these lines for this pair: the +inf documents
    # (f, d, c, a by document id) first, then the -inf ones (e, b)
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("q1 0 a 1\nq1 0 b 1\nq1 0 c 0\n", encoding="utf-8")
    run.write_text(
        "q1 Q0 a 1 inf t\nq1 Q0 b 2 -inf t\nq1 Q0 c 3 +Infinity t\nq1 Q0 d 4 1e400 t\n"
        "q1 Q0 e 5 -1e400 t\nq1 Q0 f 6 INF t\n",
        encoding="utf-8",
    )
    argv = ["-q", "-m", "relstring", "-m", "map", str(qrels), str(run)]
    expected = [
        "map                   \tq1\t0.2917",
        "relstring             \tq1\t'--01-1'",
        "map                   \tall\t0.2917",
    ]
    for version in ([], ["--trec-eval-version", "9.0.8"]):
        status, out, err = _run([*version, *argv])
        assert (status, err) == (0, "")
        assert out.splitlines() == expected
    run.write_text("q1 Q0 a 1 inf t\nq1 Q0 b 2 nan t\n", encoding="utf-8")
    status, out, err = _run(argv)
    assert (status, out) == (2, "")
    assert "a score that is NaN (not a number)" in err


def test_a_first_query_with_only_negative_grades_stops_as_trec_eval_does(tmp_path: Path) -> None:
    # form_res_rels.c sizes its per-level counts by the highest grade + 1: 0 for the
    # first query trec_eval scores gives it no array, and the first measure fails
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("q1 0 a -1\nq2 0 a 1\nq3 0 b -1\n", encoding="utf-8")
    run.write_text("q1 Q0 a 1 1 t\nq2 Q0 a 1 1 t\nq3 Q0 a 1 1 t\n", encoding="utf-8")
    status, out, err = _run(["-q", "-m", "num_q", "-m", "map", str(qrels), str(run)])
    assert (status, out, err) == (4, "", "trec_eval: Can't calculate measure 'map'\n")
    # a later query is scored with the array the first one made
    qrels.write_text("q1 0 a 1\nq3 0 b -1\n", encoding="utf-8")
    status, out, err = _run(["-m", "map", str(qrels), str(run)])
    assert (status, out, err) == (0, "map                   \tall\t0.5000\n", "")


def test_a_mean_on_a_fourth_decimal_tie_prints_trec_evals_digit_whatever_is_asked() -> None:
    # P_20 on the sample is exactly 0.17125; trec_eval adds the 40 values in query order,
    # in double (6.8499999999999996), and prints 0.1712 (10.0 and 9.0.8 alike)
    files = ["data/sample/qrels.txt", "data/sample/bm25.trec"]
    root = Path(__file__).resolve().parents[2]
    files = [str(root / name) for name in files]
    for measures in (["-m", "P.20"], ["-m", "all_trec"], ["-m", "P.20", "-m", "map"]):
        for version in ([], ["--trec-eval-version", "9.0.8"]):
            status, out, _ = _run([*version, *measures, *files])
            assert status == 0
            assert "P_20                  \tall\t0.1712\n" in out


def test_per_query_values_round_as_printf_on_exact_halves_and_keep_signs(tmp_path: Path) -> None:
    # P_32 of 1 and 3 relevant documents in the top 32 is 1/32 = 0.03125 and 3/32 =
    # 0.09375, exact in binary: printf rounds such a half to even, 0.0312 and 0.0938 (a
    # rounding half away from zero would print 0.0313). utility (1, -1 by default) is
    # relevant retrieved minus the rest, negative here; num_ret prints as a count.
    docs = [f"d{i:02d}" for i in range(40)]
    labels = [("q1", "d00"), ("q2", "d00"), ("q2", "d01"), ("q2", "d02"), ("q3", "d00")]
    ranked = [("q1", docs), ("q2", docs), ("q3", docs[:4])]
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("".join(f"{q} 0 {d} 1\n" for q, d in labels), encoding="utf-8")
    lines = [f"{q} Q0 {d} {i + 1} {100 - i} t\n" for q, ds in ranked for i, d in enumerate(ds)]
    run.write_text("".join(lines), encoding="utf-8")
    measures = ["-m", "P.32", "-m", "utility", "-m", "num_ret"]
    status, out, err = _run(["-q", *measures, str(qrels), str(run)])
    assert (status, err) == (0, "")
    assert out.splitlines() == [
        "num_ret               \tq1\t40",
        "P_32                  \tq1\t0.0312",
        "utility               \tq1\t-38.0000",
        "num_ret               \tq2\t40",
        "P_32                  \tq2\t0.0938",
        "utility               \tq2\t-34.0000",
        "num_ret               \tq3\t4",
        "P_32                  \tq3\t0.0312",
        "utility               \tq3\t-2.0000",
        "num_ret               \tall\t84",
        "P_32                  \tall\t0.0521",  # 5/96
        "utility               \tall\t-24.6667",  # -74/3
    ]


@pytest.mark.parametrize("rows_at_once", [1 << 20, 2, 3])
def test_relstrings_of_rankings_split_over_blocks_with_ties(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, rows_at_once: int
) -> None:
    # q1's lines come in two blocks around q2's. trec_eval ranks by score, ties by doc
    # id descending: q1 is e (3), d and b (2), ... -> grades 3, unlabelled, 2; q2 is
    # x (5), then z and y tied (4) -> 1, unlabelled, unlabelled. The same when the run
    # is looked at a few rows at a time.
    monkeypatch.setattr("rankset.compat.trec_eval._output._SLICE", rows_at_once)
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("q1 0 a 1\nq1 0 b 2\nq1 0 c 0\nq1 0 e 3\nq2 0 x 1\n", encoding="utf-8")
    blocks = [
        ("q1", [("a", 1), ("b", 2), ("f", 0.5), ("g", 0.1)]),
        ("q2", [("x", 5), ("y", 4)]),
        ("q1", [("e", 3), ("c", 1), ("d", 2)]),
        ("q2", [("z", 4)]),
    ]
    lines = [f"{q} Q0 {d} {i} {s} t\n" for q, ds in blocks for i, (d, s) in enumerate(ds, 1)]
    run.write_text("".join(lines), encoding="utf-8")
    status, out, err = _run(["-q", "-n", "-m", "relstring.3", str(qrels), str(run)])
    assert (status, err) == (0, "")
    assert out.splitlines() == [
        "relstring_3           \tq1\t'3-2'",
        "relstring_3           \tq2\t'1--'",
    ]
    # -M 2 keeps e and d of q1 (d before b, its tie), x and z of q2
    measures = ["-m", "relstring.3", "-m", "num_ret", "-m", "num_rel_ret"]
    status, out, err = _run(["-q", "-n", "-M", "2", *measures, str(qrels), str(run)])
    assert (status, err) == (0, "")
    assert out.splitlines() == [
        "num_ret               \tq1\t2",
        "num_rel_ret           \tq1\t1",
        "relstring_3           \tq1\t'3-'",
        "num_ret               \tq2\t2",
        "num_rel_ret           \tq2\t1",
        "relstring_3           \tq2\t'1-'",
    ]


@pytest.mark.parametrize(
    "lines",
    [
        "q1 Q0 a 1 2 t\nq1 Q0 b 2 1 t\n",  # read by a lazy scan
        "q1\tQ0\ta\t1\t2\tt\nq1\tQ0\tb\t2\t1\tt\n",  # the same, tab-separated
        "q1 Q0 a 1 2 t\r\nq1 Q0 b 2 1 t\r\n",  # the same, CRLF
        "# a comment\nq1 Q0 a 1 2 t\n\nq1  Q0 b 2 1 t\n",  # read by the general parser
        "q1 Q0 a 1 2 t\nq1 Q0 b 2 1 u\n",  # two tags: the general parser, the last tag
    ],
)
def test_every_way_of_reading_the_run_gives_the_same_lines(tmp_path: Path, lines: str) -> None:
    # b, the only relevant document, is ranked second: AP 1/2, RR 1/2, P_1 0
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("q1 0 a 0\nq1 0 b 1\n", encoding="utf-8")
    run.write_bytes(lines.encode())
    measures = ["-m", "runid", "-m", "num_ret", "-m", "map", "-m", "recip_rank", "-m", "P.1"]
    status, out, err = _run(["-q", *measures, str(qrels), str(run)])
    assert (status, err) == (0, "")
    tag = lines.split()[-1]
    assert out.splitlines() == [
        "num_ret               \tq1\t2",
        "map                   \tq1\t0.5000",
        "recip_rank            \tq1\t0.5000",
        "P_1                   \tq1\t0.0000",
        f"runid                 \tall\t{tag}",
        "num_ret               \tall\t2",
        "map                   \tall\t0.5000",
        "recip_rank            \tall\t0.5000",
        "P_1                   \tall\t0.0000",
    ]


def test_per_query_lines_made_a_few_queries_at_a_time_are_the_same(
    trec_eval_data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # out.test.aq's 3 queries (96 lines each): each query's lines made alone, then 2 at a time
    files = [str(trec_eval_data / "qrels.test"), str(trec_eval_data / "results.test")]
    expected = (trec_eval_data / "out.test.aq").read_text(encoding="utf-8")
    for lines_at_once in (1, 200):
        monkeypatch.setattr("rankset.compat.trec_eval._output._LINES_AT_ONCE", lines_at_once)
        status, out, err = _run(["-m", "all_trec", "-q", *files])
        assert (status, err, out) == (0, "", expected)
