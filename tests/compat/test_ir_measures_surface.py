"""Every public name of ir_measures 0.4 through the face, and its README run unchanged.

The face (``import rankset.compat.ir_measures as ir_measures``) either provides each name
of ir_measures' ``__all__`` with the original's behaviour, or raises ``NotInFace``
naming it and the rankset call to use; it adds no helper names. Measures, their other
names, printing and equality, parsers, readers, converters, evaluators and providers
are compared with ir_measures itself.
"""

from __future__ import annotations

import gzip
import random
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

import rankset.compat.ir_measures as face

ir_measures = pytest.importorskip("ir_measures", reason="ir_measures is a test dependency")
pd = pytest.importorskip("pandas")

NOT_IN_FACE = {"CwlMetric", "lazylibs"}
#: names the face adds: its error, and two ir_measures functions outside its __all__
ADDED = {"NotInFace", "run_inputs", "qrel_inputs"}
DATA = Path(__file__).resolve().parents[1] / "data" / "trec_eval"


def test_every_public_name_is_provided_or_named() -> None:
    names = set(ir_measures.__all__)
    provided = {name for name in names if name not in NOT_IN_FACE}
    for name in sorted(provided):
        assert hasattr(face, name), name
    for name in sorted(NOT_IN_FACE):
        with pytest.raises(face.NotInFace, match=rf"ir_measures\.{name} .*rankset"):
            getattr(face, name)
    assert len(provided) == len(names) - 2  # 94 of the 96 names of ir_measures' __all__
    with pytest.raises(AttributeError):
        _ = face.no_such_name


def test_no_helper_names_leak_into_the_face() -> None:
    public = {name for name in dir(face) if not name.startswith("_")}
    assert public - set(ir_measures.__all__) == ADDED
    assert set(face.__all__) == public - {"run_inputs", "qrel_inputs"}
    namespace: dict[str, Any] = {}
    exec("from rankset.compat.ir_measures import *", namespace)
    assert {n for n in namespace if n != "__builtins__"} == set(face.__all__)


MEASURE_NAMES = sorted(
    n for n in ir_measures.__all__ if isinstance(getattr(ir_measures, n), ir_measures.Measure)
)


@pytest.mark.parametrize("name", MEASURE_NAMES)
def test_each_measure_object_and_alias_prints_as_ir_measures(name: str) -> None:
    ours, theirs = getattr(face, name), getattr(ir_measures, name)
    assert repr(ours) == repr(theirs)
    assert ours.NAME == theirs.NAME
    assert ours.AT_PARAM == theirs.AT_PARAM
    assert face.parse_measure(name) == ours
    assert type(ours.aggregator()).__name__ == type(theirs.aggregator()).__name__


BUILT = [
    "P(rel=2)@5", "P(judged_only=True,rel=2)@5", "P(rel=2,judged_only=True)@5",
    "nDCG(judged_only=False)@10", "nDCG(dcg='log2')", "nDCG(gains={0:0,1:1,2:5})@3",
    "SetF(beta=1.0)", "SetF(beta=2.0)", "AP(rel=1)", "IPrec@0.5", "NumRet(rel=1)", "RR@10",
    "SetP(relative=True)", "Compat(p=0.8,normalize=False)", "alpha_nDCG(alpha=0.7)@5",
    "RBP(p=0.5,rel=2)", "NERR10(max_rel=3)",
]  # fmt: skip


def test_measures_print_and_compare_as_in_ir_measures() -> None:
    ours = [face.parse_measure(text) for text in BUILT]
    theirs = [ir_measures.parse_measure(text) for text in BUILT]
    assert [repr(m) for m in ours] == [repr(m) for m in theirs]
    for i, a in enumerate(ours):
        for j, b in enumerate(ours):
            assert (a == b) == (theirs[i] == theirs[j]), (a, b)
    assert (face.P @ 5)["cutoff"] == 5
    assert face.P["rel"] == 1
    assert face.MAP is face.AP
    assert face.SetRelP == face.SetP(relative=True)
    assert face.NumRelRet == face.NumRet(rel=1)
    assert face.α_nDCG is face.alpha_nDCG
    with pytest.raises(NameError, match="measure not found"):
        face.parse_measure("Nope@5")
    with pytest.raises(ValueError, match="problem parsing measure"):
        face.parse_measure("P(2)@5")


# ir_measures' README, its dicts printed sorted (ir_measures orders them by a set)
README = """
{import_line}
from {module} import *

qrels = {{
    'Q0': {{"D0": 0, "D1": 1}},
    "Q1": {{"D0": 0, "D3": 2}}
}}
run = {{
    'Q0': {{"D0": 1.2, "D1": 1.0}},
    "Q1": {{"D0": 2.4, "D3": 3.6}}
}}

# aggregated results
result = ir_measures.calc_aggregate([AP, nDCG, RR, nDCG@10, P(rel=2)@10], qrels, run)
print(sorted(result.items(), key=str))
# by query
for m in sorted(ir_measures.iter_calc([AP, nDCG, RR, nDCG@10, P(rel=2)@10], qrels, run), key=str):
    print(m)

import pandas as pd
qrels = pd.DataFrame([
    {{'query_id': "Q0", 'doc_id': "D0", 'relevance': 0}},
    {{'query_id': "Q0", 'doc_id': "D1", 'relevance': 1}},
    {{'query_id': "Q1", 'doc_id': "D0", 'relevance': 0}},
    {{'query_id': "Q1", 'doc_id': "D3", 'relevance': 2}},
])
run = [
    ir_measures.ScoredDoc("Q0", "D0", 1.2),
    ir_measures.ScoredDoc("Q0", "D1", 1.0),
    ir_measures.ScoredDoc("Q1", "D0", 2.4),
    ir_measures.ScoredDoc("Q1", "D3", 3.6),
]
print(sorted(ir_measures.calc_aggregate([nDCG@10, P@1, NumRelRet], qrels, run).items(), key=str))
qrels = [
    ir_measures.Qrel("Q0", "D0", 0),
    ir_measures.Qrel("Q0", "D1", 1),
    ir_measures.Qrel("Q1", "D0", 0),
    ir_measures.Qrel("Q1", "D3", 2),
]
run = pd.DataFrame([
    {{'query_id': "Q0", 'doc_id': "D0", 'score': 1.2}},
    {{'query_id': "Q0", 'doc_id': "D1", 'score': 1.0}},
    {{'query_id': "Q1", 'doc_id': "D0", 'score': 2.4}},
    {{'query_id': "Q1", 'doc_id': "D3", 'score': 3.6}},
])
result = ir_measures.calc_aggregate([AP, SetF, Success@1, R@1000], qrels, run)
print(sorted(result.items(), key=str))
qrels = ir_measures.read_trec_qrels({qrels_path!r})
run = ir_measures.read_trec_run({run_path!r})
print(sorted(ir_measures.calc_aggregate(
    [P@10, P(rel=2)@5, nDCG@15, Judged@10, NumQ, NumRel, NumRet, NumRelRet], qrels, run
).items(), key=str))
"""


def _output(module: str) -> str:
    program = README.format(
        import_line=f"import {module} as ir_measures",
        module=module,
        qrels_path=str(DATA / "qrels.test"),
        run_path=str(DATA / "results.test"),
    )
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_the_readme_prints_the_same_through_the_face() -> None:
    assert _output("rankset.compat.ir_measures") == _output("ir_measures")


def _case(seed: int) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    rng = random.Random(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(10):
        docs = [f"d{i}" for i in range(rng.randint(1, 20))]
        qrels[f"q{q}"] = {
            d: rng.choice([0, 0, 1, 2, 3]) for d in rng.sample(docs, k=len(docs) // 2 + 1)
        }
        if q != 3:
            run[f"q{q}"] = {d: round(rng.random(), 3) for d in docs}
    return qrels, run


MEASURES = ["nDCG@10", "nDCG(judged_only=False)@10", "AP", "MAP", "P@5", "NumRelRet", "SetRelP"]


def test_one_measure_spelt_twice_or_asked_twice_has_one_value() -> None:
    qrels, run = _case(1)
    ours = face.calc_aggregate([face.nDCG @ 10, face.nDCG(judged_only=False) @ 10], qrels, run)
    theirs = ir_measures.calc_aggregate([ir_measures.nDCG @ 10], qrels, run)
    assert list(ours) == [face.nDCG @ 10]
    value = theirs[ir_measures.nDCG @ 10]
    assert ours[face.nDCG @ 10] == pytest.approx(value, abs=1e-12) != 0.0
    assert ours[face.nDCG(judged_only=False) @ 10] == ours[face.nDCG @ 10]
    twice = face.calc_aggregate(
        [face.AP, face.MAP, "AP", face.P @ 5, face.P(rel=1) @ 5], qrels, run
    )
    assert list(twice) == [face.AP, face.P @ 5]
    assert twice[face.MAP] == pytest.approx(ir_measures.AP.calc_aggregate(qrels, run), abs=1e-12)


def _per_query(metrics: Any) -> dict[tuple[str, str], float]:
    return {(m.query_id, repr(m.measure)): m.value for m in metrics}


def test_measures_compute_themselves_as_in_ir_measures() -> None:
    qrels, run = _case(2)
    for text in ["AP", "nDCG@5", "P(rel=2)@3", "SetRelP", "NumRelRet"]:
        ours, theirs = face.parse_measure(text), ir_measures.parse_measure(text)
        assert ours.calc_aggregate(qrels, run) == pytest.approx(theirs.calc_aggregate(qrels, run))
        assert _per_query(ours.iter_calc(qrels, run)) == pytest.approx(
            _per_query(theirs.iter_calc(qrels, run))
        )
        aggregated, per_query = ours.calc(qrels, run)
        assert aggregated == pytest.approx(theirs.calc(qrels, run).aggregated)
        assert _per_query(per_query) == pytest.approx(_per_query(theirs.calc(qrels, run).per_query))
        evaluator = ours.evaluator(qrels)
        assert evaluator.calc_aggregate(run)[ours] == pytest.approx(
            theirs.calc_aggregate(qrels, run)
        )


def test_an_evaluator_reads_the_qrels_once_and_scores_many_runs(tmp_path: Path) -> None:
    qrels, _ = _case(3)
    path = tmp_path / "qrels"
    path.write_text(
        "".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items())
    )
    measures = [face.parse_measure(m) for m in MEASURES]
    # a one-pass generator of Qrel tuples, as read_trec_qrels gives, read once
    ours = face.evaluator(measures, face.read_trec_qrels(str(path)))
    theirs = ir_measures.evaluator(
        [ir_measures.parse_measure(m) for m in MEASURES],
        list(ir_measures.read_trec_qrels(str(path))),
    )
    assert ours.qrel_qids == theirs.qrel_qids
    for seed in (4, 5, 6):
        _, run = _case(seed)
        got, want = ours.calc_aggregate(run), theirs.calc_aggregate(run)
        assert {repr(m): v for m, v in got.items()} == pytest.approx(
            {repr(m): v for m, v in want.items()}
        )
        result = ours.calc(run)
        assert _per_query(result.per_query) == pytest.approx(_per_query(theirs.calc(run).per_query))


def test_calc_returns_calc_results_as_ir_measures() -> None:
    qrels, run = _case(7)
    ours = face.calc([face.AP, face.P @ 5], qrels, run)
    theirs = ir_measures.calc([ir_measures.AP, ir_measures.P @ 5], qrels, run)
    assert type(ours).__name__ == "CalcResults"
    assert ours._fields == theirs._fields
    assert {repr(m): v for m, v in ours.aggregated.items()} == pytest.approx(
        {repr(m): v for m, v in theirs.aggregated.items()}
    )
    assert _per_query(ours.per_query) == pytest.approx(_per_query(theirs.per_query))


TREC_NAMES = [
    "map", "P", "P.5,10", "P_5", "ndcg", "ndcg_cut.10,20", "recall.100", "success",
    "success.1", "iprec_at_recall", "set_F", "set_F.0.5", "num_rel_ret", "Rprec", "bpref",
    "infAP", "recip_rank", "set_relative_P", "official", "set", "all_trec", "num_q",
]  # fmt: skip


@pytest.mark.parametrize("name", TREC_NAMES)
def test_parse_trec_measure_equals_ir_measures(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    ours = [repr(m) for m in face.parse_trec_measure(name)]
    ours_printed = capsys.readouterr().out
    assert ours == [repr(m) for m in ir_measures.parse_trec_measure(name)]
    assert ours_printed == capsys.readouterr().out  # "skipped [...]" as ir_measures prints
    for bad in ("gm_map", "nosuch", "map.5"):
        with pytest.raises(ValueError, match=r"name|measure|argument") as ours_error:
            face.parse_trec_measure(bad)
        with pytest.raises(ValueError, match=r"name|measure|argument") as their_error:
            ir_measures.parse_trec_measure(bad)
        assert str(ours_error.value) == str(their_error.value)


def test_trec_readers_equal_ir_measures(tmp_path: Path) -> None:
    qrels_text = (DATA / "qrels.test").read_text()
    run_text = (DATA / "results.test").read_text()
    gz = tmp_path / "qrels.gz"
    gz.write_bytes(gzip.compress(qrels_text.encode()))
    for source in (str(DATA / "qrels.test"), qrels_text, str(gz)):
        assert list(face.read_trec_qrels(source)) == list(ir_measures.read_trec_qrels(source))
    with (DATA / "results.test").open() as handle:
        ours = list(face.read_trec_run(handle))
    assert ours == list(ir_measures.read_trec_run(run_text))
    assert ours[0]._fields == ("query_id", "doc_id", "score")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert (
            list(face.parse_trec_qrels(qrels_text))[:3]
            == list(face.read_trec_qrels(qrels_text))[:3]
        )
        face.GenericQrel("q", "d", 1)
        face.convert_trec_name("map")
    assert [w.category for w in caught] == [DeprecationWarning] * 3


def _inputs() -> list[tuple[Any, Any]]:
    qrels = [ir_measures.Qrel("q1", "d1", 1), ir_measures.Qrel("q1", "d2", 0, "7")]
    run = [ir_measures.ScoredDoc("q1", "d1", 0.5), ir_measures.ScoredDoc("q1", "d2", 1.5)]
    return [
        ({"q1": {"d1": 1, "d2": 0}}, {"q1": {"d1": 0.5, "d2": 1.5}}),
        (qrels, run),
        (pd.DataFrame(qrels), pd.DataFrame(run)),
        (pd.DataFrame(qrels).drop(columns="iteration"), pd.DataFrame(run)),
        ([], []),
    ]


@pytest.mark.parametrize("index", range(5))
def test_converters_equal_ir_measures(index: int) -> None:
    qrels, run = _inputs()[index]
    ours_q, theirs_q = face.util.QrelsConverter(qrels), ir_measures.util.QrelsConverter(qrels)
    ours_r, theirs_r = face.util.RunConverter(run), ir_measures.util.RunConverter(run)
    assert ours_q.predict_type() == theirs_q.predict_type()
    assert ours_r.predict_type() == theirs_r.predict_type()
    assert ours_q.as_dict_of_dict() == theirs_q.as_dict_of_dict()
    assert ours_r.as_dict_of_dict() == theirs_r.as_dict_of_dict()
    assert list(ours_q.as_namedtuple_iter()) == list(theirs_q.as_namedtuple_iter())
    assert list(ours_r.as_namedtuple_iter()) == list(theirs_r.as_namedtuple_iter())
    assert ours_r.as_sorteddict() == theirs_r.as_sorteddict()
    assert list(ours_r.as_sorted_namedtuple_iter()) == list(theirs_r.as_sorted_namedtuple_iter())
    pd.testing.assert_frame_equal(ours_q.as_pd_dataframe(), theirs_q.as_pd_dataframe())
    pd.testing.assert_frame_equal(ours_r.as_pd_dataframe(), theirs_r.as_pd_dataframe())
    with ours_q.as_tmp_file() as mine, theirs_q.as_tmp_file() as other:
        assert mine.read() == other.read()
    with ours_r.as_tmp_file() as mine, theirs_r.as_tmp_file() as other:
        assert mine.read() == other.read()
    assert [c.predict_type() for c in ours_q.tee(2)] == [c.predict_type() for c in theirs_q.tee(2)]


def test_bad_inputs_are_refused_as_in_ir_measures() -> None:
    for bad in ([("q", "d", 1)], 42):
        ours, theirs = face.util.QrelsConverter(bad), ir_measures.util.QrelsConverter(bad)
        assert ours.predict_type()[0] == theirs.predict_type()[0] == "UNKNOWN"
        with pytest.raises(ValueError, match="unknown qrels format"):
            list(ours.as_namedtuple_iter())


def test_providers_take_their_tools_measures() -> None:
    qrels, run = _case(8)
    for name in ["pytrec_eval", "cwl_eval", "gdeval", "pyndeval", "judged", "compat", "ranx"]:
        ours, theirs = getattr(face, name), getattr(ir_measures, name)
        assert ours.NAME == theirs.NAME == name
        for measure in MEASURE_NAMES:
            ours_m, theirs_m = getattr(face, measure), getattr(ir_measures, measure)
            if name == "gdeval" and ours_m.NAME in ("nDCG", "ERR"):  # only ERR@k, exp nDCG@k
                assert ours.supports(ours_m) == theirs.supports(theirs_m), measure
                assert ours.supports(ours_m @ 5) == theirs.supports(theirs_m @ 5), measure
            elif any(m.NAME == theirs_m.NAME for m in theirs.SUPPORTED_MEASURES):
                assert ours.supports(ours_m) or ours_m.NAME == "Accuracy", (name, measure)
    exp = face.nDCG(dcg="exp-log2")
    assert face.gdeval.supports(exp @ 5) == ir_measures.gdeval.supports(
        ir_measures.nDCG(dcg="exp-log2") @ 5
    )
    assert face.pytrec_eval.calc_aggregate([face.AP], qrels, run)[face.AP] == pytest.approx(
        ir_measures.pytrec_eval.calc_aggregate([ir_measures.AP], qrels, run)[ir_measures.AP]
    )
    with pytest.raises(ValueError, match="Unsupported measures"):
        face.pytrec_eval.calc_aggregate([face.ERR @ 10], qrels, run)
    with (
        pytest.warns(DeprecationWarning, match="calc_ctxt"),
        face.calc_ctxt([face.AP], qrels) as calc,
    ):
        assert len(list(calc(run))) == len(qrels)
    assert face.DefaultPipeline.supports(face.nDCG @ 10)
    assert face.pytrec_eval.is_available()
    assert face.qrel_inputs([face.AP]) == ["query_id", "doc_id", "relevance"]
    assert face.run_inputs([face.AP]) == ["query_id", "doc_id", "score"]
