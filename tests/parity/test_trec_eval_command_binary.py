"""``rankset trec_eval`` against the trec_eval 10.0 and 9.0.8 binaries, byte for byte.

Both versions are built from NIST's source in the shared folder (skips without it or
without a C compiler); ``--trec-eval-version 9.0.8`` is compared with 9.0.8. Both run on
trec_eval's test files and on generated runs with ties, decimal scores, unlabelled
documents, negative ("pooled, unjudged") and multi-level grades, labelled queries missing
from the run and run queries without labels, for each option set; stdout, stderr and the
exit status must be equal.
"""

from __future__ import annotations

import io
import random
import subprocess
from pathlib import Path

import pytest

from rankset.compat import trec_eval

OPTION_SETS = [
    ["-q", "-m", "all_trec"],
    ["-m", "all_trec"],
    ["-q", "-c", "-m", "all_trec"],
    ["-q", "-c", "-l2", "-m", "all_trec"],
    ["-q", "-c", "-M10", "-m", "all_trec"],
    ["-q", "-c", "-J", "-m", "all_trec"],
    ["-q", "-c", "-J", "-M7", "-l2", "-m", "all_trec", "-m", "relstring.15"],
    ["-q", "-c", "-m", "official", "-m", "P.1,3,50", "-m", "set_F.0.25", "-m", "utility.2,-1,1,0"],
    ["-q", "-c", "-n", "-m", "rbp.p=0.5", "-m", "rbp_resid.p=0.7", "-m", "unj.1,7"],
    ["-q", "-m", "map"],  # labelled queries without results: 10.0 stops with status 4
    # gain maps: 10.0 shares one among dcg, ideal_dcg and ndcg and crashes at exit when
    # several of them are asked with one (rankset refuses that case: see test_compat)
    ["-q", "-c", "-m", "ndcg.1=3,2=9", "-m", "ndcg_cut.5", "-m", "map"],
    ["-q", "-J", "-m", "ideal_dcg.0=2,3=5"],
    ["-q", "-m", "dcg.1=2,3=7", "-m", "G"],
    ["-q", "-c", "-m", "11pt_avg.0,0.33,1", "-m", "iprec_at_recall.0.33"],
    # gain maps of the gain curves, grade 0 given a gain and a negative gain included
    ["-q", "-c", "-m", "G.1=3,2=9", "-m", "ndcg_rel.0=1,2=5", "-m", "Rndcg.1=4,3=2"],
    ["-q", "-l2", "-m", "G.0=2,3=1", "-m", "ndcg_rel.1=-1,3=7", "-m", "Rndcg.1=5,2=1"],
    ["-q", "-v", "-m", "map"],  # the version, on stderr, and exit 0
    ["-m", "bogus", "-v"],  # an illegal measure before -v stops first
    ["-q", "-c", "-m", "yaap", "-m", "map"],  # yaap: in no group; -c scores the stand-in
    ["-q", "-J", "-l2", "-M5", "-m", "yaap"],
]
# 9.0.8 has no rbp, rbp_resid or unj (its all_trec lacks them too).
OPTION_SETS_9 = [
    *(o for o in OPTION_SETS if "rbp.p=0.5" not in o and not any("dcg" in m for m in o)),
    ["-q", "-c", "-n", "-m", "11pt_avg", "-m", "iprec_at_recall.0.13,0.3,0.72", "-m", "gm_bpref"],
    ["-q", "-c", "-m", "ndcg.1=3,2=9", "-m", "ndcg_cut.5"],
    ["-q", "-m", "rbp"],  # illegal in 9.0.8
    ["-q", "-c", "-m", "G.1=3,2=9", "-m", "ndcg_rel.0=1,2=5", "-m", "Rndcg.1=4,3=2"],
]
VERSION_9 = ["--trec-eval-version", "9.0.8"]


def _generated(folder: Path, seed: int) -> tuple[Path, Path]:
    rng = random.Random(seed)
    qrels_lines, run_lines = [], []
    for q in range(14):
        query = f"{q:03d}" if q % 3 else f"q{q}"
        pool = [f"doc{rng.randint(0, 80)}" for _ in range(40)]
        for doc in dict.fromkeys(pool[:25]):
            if q != 13:  # query 13: in the run only
                grade = rng.choice([-1, 0, 0, 0, 1, 1, 2, 3])
                qrels_lines.append(f"{query} 0 {doc} {grade}")
        if q in (4, 9):  # labelled, never answered
            continue
        depth = (
            rng.randint(1, 40) if q != 12 else 0
        )  # query 12: no labelled document (-J empties it)
        for rank, doc in enumerate(dict.fromkeys(pool[:depth] + [f"x{i}" for i in range(9)])):
            score = rng.choice([1.0, 2.5, 2.5, 3.25]) if seed % 2 else round(rng.random(), 2)
            run_lines.append(f"{query} Q0 {doc} {rank + 1} {score} tag{seed}")
    rng.shuffle(run_lines)
    qrels, run = folder / f"qrels{seed}", folder / f"run{seed}"
    qrels.write_text("\n".join(qrels_lines) + "\n", encoding="utf-8")
    run.write_text("\n".join(run_lines) + "\n", encoding="utf-8")
    return qrels, run


def _compare(
    binary: Path, options: list[str], qrels: Path, run: Path, ours: tuple[str, ...] = ()
) -> None:
    argv = [*options, str(qrels), str(run)]
    done = subprocess.run(
        [str(binary), *argv], capture_output=True, text=True, timeout=120, check=False
    )
    out, err = io.StringIO(), io.StringIO()
    status = trec_eval.main([*ours, *argv], out=out, err=err)
    assert status == done.returncode, (argv, err.getvalue(), done.stderr)
    expected, got = done.stdout.splitlines(), out.getvalue().splitlines()
    wrong = [(a, b) for a, b in zip(expected, got, strict=False) if a != b]
    assert len(expected) == len(got), argv
    assert wrong == [], f"{argv}: {len(wrong)} of {len(expected)} lines differ: {wrong[:5]}"
    assert out.getvalue() == done.stdout
    assert err.getvalue() == done.stderr


@pytest.mark.parametrize("options", OPTION_SETS, ids=" ".join)
def test_trec_eval_test_files(trec_eval_10: Path, trec_eval_data: Path, options: list[str]) -> None:
    for qrels, run in (("qrels.test", "results.test"), ("qrels.rel_level", "results.trunc")):
        _compare(trec_eval_10, options, trec_eval_data / qrels, trec_eval_data / run)


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
@pytest.mark.parametrize("options", OPTION_SETS, ids=" ".join)
def test_generated_runs(trec_eval_10: Path, tmp_path: Path, seed: int, options: list[str]) -> None:
    qrels, run = _generated(tmp_path, seed)
    _compare(trec_eval_10, options, qrels, run)


@pytest.mark.parametrize("options", OPTION_SETS_9, ids=" ".join)
def test_trec_eval_9_test_files(
    trec_eval_9: Path, trec_eval_data: Path, options: list[str]
) -> None:
    for qrels, run in (("qrels.test", "results.test"), ("qrels.rel_level", "results.trunc")):
        _compare(trec_eval_9, options, trec_eval_data / qrels, trec_eval_data / run, VERSION_9)


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
@pytest.mark.parametrize("options", OPTION_SETS_9, ids=" ".join)
def test_trec_eval_9_generated_runs(
    trec_eval_9: Path, tmp_path: Path, seed: int, options: list[str]
) -> None:
    qrels, run = _generated(tmp_path, seed)
    _compare(trec_eval_9, options, qrels, run, VERSION_9)


def _zscores(folder: Path, qrels: Path, seed: int) -> Path:
    """A -Z file for some of the queries and measures, some standard deviations 0.

    trec_eval looks values up by binary search with an off-by-one that reads past the end
    for a name above the last one in the file: a last query and a last measure ("zzzz")
    keep every lookup inside.
    """
    rng = random.Random(seed)
    queries = sorted({line.split()[0] for line in qrels.read_text().splitlines()})
    names = ["map", "P_5", "P_10", "num_ret", "num_rel_ret", "ndcg", "gm_map", "bpref", "num_rel"]
    lines = ["zzzz zzzz 0 1"]
    for query in queries:
        if rng.random() < 0.15:
            continue  # a query the file lacks: every value -1000000
        for name in names:
            draw = rng.random()
            if draw < 0.1:
                continue  # a measure the file lacks
            deviation = 0 if draw < 0.2 else round(rng.random(), 3)
            lines.append(f"{query}\t{name}  {round(rng.random(), 3)} {deviation}")
        lines.append(f"{query} zzzz 0 1")
    rng.shuffle(lines)
    path = folder / f"zscores{seed}"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


Z_OPTIONS = [
    ["-q", "-m", "map", "-m", "P.5,10", "-m", "num_ret", "-m", "gm_map", "-m", "ndcg"],
    ["-q", "-c", "-m", "map", "-m", "num_rel_ret", "-m", "num_rel", "-m", "bpref"],
    ["-m", "all_trec"],
]


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_zscores_equal_both_binaries(
    trec_eval_10: Path, trec_eval_9: Path, tmp_path: Path, seed: int
) -> None:
    qrels, run = _generated(tmp_path, seed)
    zscores = _zscores(tmp_path, qrels, seed)
    for options in Z_OPTIONS:
        _compare(trec_eval_10, [*options, "-Z", str(zscores)], qrels, run)
        _compare(trec_eval_9, [*options, "-Z", str(zscores)], qrels, run, VERSION_9)


@pytest.mark.parametrize(
    "text",
    [
        "q map 0.5 0.1\n\nq P_5 0 1\n",
        "q map 0.5\n",
        "q map 0.5 0.1 7\n",
        "",
        "q map x y\n",
        "301 map 0.1 0x10\n302 map 0 inf\n303 map 0.1\t1e-1\r\nzzz zzz 0 1",  # C's atof
    ],
)
def test_bad_zscore_files_fail_as_trec_eval_does(
    trec_eval_10: Path, trec_eval_9: Path, trec_eval_data: Path, tmp_path: Path, text: str
) -> None:
    path = tmp_path / "zscores"
    path.write_text(text, encoding="utf-8")
    qrels, run = trec_eval_data / "qrels.test", trec_eval_data / "results.test"
    _compare(trec_eval_10, ["-q", "-m", "map", "-Z", str(path)], qrels, run)
    _compare(trec_eval_10, ["-m", "map", "-Z", str(tmp_path / "absent")], qrels, run)
    _compare(trec_eval_9, ["-m", "map", "-Z", str(tmp_path / "absent")], qrels, run, VERSION_9)


def test_zscore_lookups_past_the_end_of_the_file_are_refused(
    trec_eval_data: Path, tmp_path: Path
) -> None:
    # 'recip_rank' sorts after 'map', the only measure of each query: trec_eval's binary
    # search reads past its table (both binaries crash on this file)
    path = tmp_path / "zscores"
    path.write_text("301 map 0.1 0.2\n302 map 0.1 0.2\n303 map 0.1 0.2\n", encoding="utf-8")
    files = [str(trec_eval_data / "qrels.test"), str(trec_eval_data / "results.test")]
    out, err = io.StringIO(), io.StringIO()
    argv = ["-q", "-Z", str(path), "-m", "map", "-m", "recip_rank", *files]
    assert trec_eval.main(argv, out=out, err=err) == 1
    assert "reads past its table" in err.getvalue()
    assert out.getvalue() == ""


# Parameters as trec_eval reads them: ignored on measures that take none, the first given
# wins, C's atol/atof on numbers, its own malformed-pair rule, and its error texts.
PARAMETERS = [
    ["-m", "map.5", "-m", "num_ret.3", "-m", "gm_map.2", "-m", "binG.x", "-m", "set_P.2"],
    ["-m", "P.5", "-m", "P.10"], ["-m", "official", "-m", "P.10"], ["-m", "P.10", "-m", "official"],
    ["-m", "ndcg.1=3", "-m", "ndcg.2=4"], ["-m", "P.x"], ["-m", "P.0"], ["-m", "P.5,5"],
    ["-m", "ndcg_cut.0,5"], ["-m", "11pt_avg.x"], ["-m", "Rprec_mult.a"], ["-m", "set_F.x"],
    ["-m", "rbp.q=1"], ["-m", "rbp.p=0.3,p=0.6"], ["-m", "utility.1,2"], ["-m", "relstring.x"],
    ["-m", "relstring.0"], ["-m", "iprec_at_recall.x"], ["-m", "ndcg.x=3"], ["-m", "G.x"],
    ["-m", "ndcg.1=3,x=2"], ["-m", "G.1=2,,2=3"], ["-m", "Rprec_mult.0.5,0.5"],
    ["-m", "ndcg.1=3,1=5"], ["-m", "G.2=1,2=7,1=4"],  # a level's first gain counts
    ["-m", "P."], ["-m", "all_trec."], ["-m", "official.5"],  # an empty parameter list
]  # fmt: skip


@pytest.mark.parametrize("options", PARAMETERS, ids=" ".join)
def test_measure_parameters_read_as_trec_eval_reads_them(
    trec_eval_10: Path, trec_eval_9: Path, trec_eval_data: Path, options: list[str]
) -> None:
    qrels, run = trec_eval_data / "qrels.test", trec_eval_data / "results.test"
    _compare(trec_eval_10, ["-q", *options], qrels, run)
    if not any(name in " ".join(options) for name in ("rbp", "dcg")):  # 10.0's measures
        _compare(trec_eval_9, ["-q", *options], qrels, run, VERSION_9)


def _judgment_groups(folder: Path, seed: int) -> tuple[Path, Path]:
    """qrels_jg labels (1-3 groups a query, grades -1..3) and a run with ties."""
    rng = random.Random(seed)
    label_lines, run_lines = [], []
    for q in range(9):
        query = f"{q:03d}"
        pool = [f"doc{i}" for i in range(30)]
        for group in range(rng.randint(1, 3)):
            for doc in rng.sample(pool, k=rng.randint(1, 20)):
                label_lines.append(f"{query} g{group} {doc} {rng.choice([-1, 0, 0, 1, 2, 3])}")
        if q == 4:  # labelled, never answered
            continue
        for rank, doc in enumerate(rng.sample(pool, k=rng.randint(1, 30))):
            score = rng.choice([1.0, 2.5, 3.25]) if seed % 2 else round(rng.random(), 3)
            run_lines.append(f"{query} Q0 {doc} {rank} {score} tag")
    labels, run = folder / f"jg{seed}", folder / f"jgrun{seed}"
    labels.write_text("\n".join(label_lines) + "\n", encoding="utf-8")
    run.write_text("\n".join(run_lines) + "\n", encoding="utf-8")
    return labels, run


JG_OPTIONS = [
    ["-q", "-c", "-m", "qrels_jg"],
    ["-q", "-c", "-J", "-M7", "-m", "qrels_jg"],
    ["-q", "-c", "-l2", "-m", "P_avgjg.1,3,7", "-m", "Rprec_mult_avgjg.0.5,1.5"],
    ["-q", "-m", "map_avgjg"],  # a labelled query without results stops 10.0 (status 4)
    ["-q", "-c", "-m", "qrels_jg", "-m", "yaap"],  # yaap reads qrels: status 4
    ["-q", "-c", "-m", "map"],  # map reads qrels: status 4
]


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("options", JG_OPTIONS, ids=" ".join)
def test_judgment_groups_equal_both_binaries(
    trec_eval_10: Path, trec_eval_9: Path, tmp_path: Path, seed: int, options: list[str]
) -> None:
    labels, run = _judgment_groups(tmp_path, seed)
    _compare(trec_eval_10, ["-R", "qrels_jg", *options], labels, run)
    _compare(trec_eval_9, ["-R", "qrels_jg", *options], labels, run, VERSION_9)


def test_label_and_result_formats_trec_eval_does_not_know(
    trec_eval_10: Path, trec_eval_data: Path, tmp_path: Path
) -> None:
    qrels, run = trec_eval_data / "qrels.test", trec_eval_data / "results.test"
    _compare(trec_eval_10, ["-R", "foo"], qrels, run)
    _compare(trec_eval_10, ["-T", "foo"], qrels, run)
    _compare(trec_eval_10, ["-T", "foo"], tmp_path / "absent", run)
    _compare(trec_eval_10, ["-m", "map_avgjg", "-m", "map"], qrels, run)
    _compare(trec_eval_10, ["-R", "qrels_jg"], qrels, run)  # official reads qrels


DEBUG_OPTIONS = [
    ["-q", "-D", "0.007", "-m", "all_trec"],
    ["-q", "-c", "-D", "0.004", "-m", "map", "-m", "num_q", "-m", "num_ret"],  # unanswered
    ["-q", "-c", "-D", "5.008", "-m", "official"],  # no trace for these measures
    ["-D", "0.nosuchquery", "-m", "map"],  # nothing to evaluate: status 7
    ["-q", "-D", "3", "-m", "map", "-m", "P.5"],
]


@pytest.mark.parametrize("options", DEBUG_OPTIONS, ids=" ".join)
def test_debug_query_filter_equals_both_binaries(
    trec_eval_10: Path, trec_eval_9: Path, tmp_path: Path, options: list[str]
) -> None:
    for seed in (1, 2):
        qrels, run = _generated(tmp_path, seed)
        _compare(trec_eval_10, options, qrels, run)
        _compare(trec_eval_9, options, qrels, run, VERSION_9)


def test_a_gain_for_unjudged_documents_is_refused(trec_eval_data: Path) -> None:
    # trec_eval gives level -1's gain to retrieved documents outside the qrels
    files = [str(trec_eval_data / "qrels.test"), str(trec_eval_data / "results.test")]
    out, err = io.StringIO(), io.StringIO()
    assert trec_eval.main(["-m", "ndcg.-1=4", *files], out=out, err=err) == 1
    assert "negative level" in err.getvalue()


def test_debug_traces_are_refused_not_misprinted(trec_eval_data: Path) -> None:
    files = [str(trec_eval_data / "qrels.test"), str(trec_eval_data / "results.test")]
    out, err = io.StringIO(), io.StringIO()
    assert trec_eval.main(["-D", "1", "-m", "ndcg", *files], out=out, err=err) == 1
    assert "debug trace of ndcg" in err.getvalue()
    assert out.getvalue() == ""


@pytest.mark.parametrize(
    "measure", ["ndcg.x=5", "ndcg.1.5=3", "ndcg.=3", "G.x=1", "ndcg_rel.x=2,2=5", "Rndcg.+1=3"]
)
def test_9_reads_every_gain_name_with_atol(
    trec_eval_10: Path, trec_eval_9: Path, trec_eval_data: Path, measure: str
) -> None:
    # 9.0.8 reads "x=5" as level 0; 10.0 skips names that are not integers
    qrels, run = trec_eval_data / "qrels.test", trec_eval_data / "results.test"
    _compare(trec_eval_9, ["-q", "-m", measure], qrels, run, VERSION_9)
    _compare(trec_eval_10, ["-q", "-m", measure], qrels, run)


INFINITE_SCORES = [
    # +inf ties among themselves (document id decides), -inf last; C's atof spellings
    "q1 Q0 a 1 inf t\nq1 Q0 b 2 -inf t\nq1 Q0 c 3 +Infinity t\nq1 Q0 d 4 1e400 t\n"
    "q1 Q0 e 5 -1e400 t\nq1 Q0 f 6 INF t\nq2 Q0 a 1 -Inf t\nq2 Q0 b 1 3 t\n",
    # past 9.0.8's float: 2e39 and 1e39 tie there (document id decides), not in 10.0
    "q1 Q0 a 1 2e39 t\nq1 Q0 b 1 1e39 t\nq1 Q0 c 1 3.4e38 t\nq1 Q0 d 1 -INFINITY t\n"
    "q2 Q0 a 1 1e39 t\nq2 Q0 c 1 0.5 t\nq2 Q0 d 1 -1e39 t  extra fields\n",
]


@pytest.mark.parametrize("text", INFINITE_SCORES)
@pytest.mark.parametrize(
    "options", [["-q", "-m", "all_trec", "-m", "relstring"], ["-q", "-J", "-M2", "-m", "all_trec"]]
)
def test_infinite_scores_are_ordered_as_trec_eval_orders_them(
    trec_eval_10: Path, trec_eval_9: Path, tmp_path: Path, text: str, options: list[str]
) -> None:
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("q1 0 a 1\nq1 0 b 2\nq1 0 c 0\nq1 0 d 1\nq2 0 a 1\nq2 0 c 2\n")
    run.write_text(text, encoding="utf-8")
    _compare(trec_eval_10, options, qrels, run)
    _compare(trec_eval_9, options, qrels, run, VERSION_9)
