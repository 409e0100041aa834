"""rankset.compat.ir_measures against ir_measures itself, on the same inputs.

The reference is the ir_measures package (a test dependency): every supported measure,
asked alone and all together, must give ir_measures' value per query (``iter_calc``) and
in aggregate (``calc_aggregate``) on generated runs with tied scores, unjudged documents,
grades -1 to 3, labelled queries the run lacks and queries only in the run.
"""

from __future__ import annotations

import math
import random
import shutil
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from rankset.compat import ir_measures as face
from rankset.errors import ParameterError

ir_measures = pytest.importorskip("ir_measures", reason="ir_measures is a test dependency")

# ir_measures computes Judged and RR@k itself (not through pytrec_eval), breaking ties by
# doc id ascending where trec_eval breaks them descending: those are checked on runs
# without ties (TIE_FREE), and the difference is shown below.
TIE_SAFE = [
    "nDCG@10", "nDCG", "nDCG@3", "AP", "AP(rel=2)", "AP@5", "P@5", "P(rel=2)@10", "R@5",
    "R(rel=2)@100", "RR", "RR(rel=2)", "Success@1", "Success(rel=2)@5", "Rprec",
    "Rprec(rel=2)", "Bpref", "Bpref(rel=2)", "infAP", "NumQ", "NumRet", "NumRet(rel=2)",
    "NumRel", "NumRelRet", "SetP", "SetP(rel=2)", "SetP(relative=True)",
    "SetR", "SetF", "SetF(beta=2.0)", "SetF(beta=0.5)", "SetAP", "IPrec@0.0", "IPrec@0.3",
    "IPrec@1.0", "nDCG(judged_only=True)@10", "AP(judged_only=True)", "P(judged_only=True)@5",
    "nDCG(gains={0: 0, 1: 1, 2: 3, 3: 7})@10", "nDCG(gains={1: 5})",
]  # fmt: skip


def _generated(seed: int, *, ties: bool) -> tuple[dict[str, dict[str, int]], dict[str, Any]]:
    rng = random.Random(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(12):
        query = f"q{q}"
        docs = [f"d{i}" for i in range(rng.randint(1, 25))]
        if q != 0:  # q0 is only in the run
            judged = [*rng.sample(docs, k=rng.randint(1, len(docs))), "never-retrieved"]
            qrels[query] = {doc: rng.choice([-1, 0, 0, 1, 2, 3]) for doc in judged}
        if q != 1:  # q1 is only in the labels
            scores = [rng.randint(0, 4) if ties else rng.random() for _ in docs]
            run[query] = {doc: float(score) for doc, score in zip(docs, scores, strict=True)}
    return qrels, run


def _ours(names: list[str], qrels: Any, run: Any) -> dict[tuple[str, str], float]:
    return {(m.query_id, str(m.measure)): m.value for m in face.iter_calc(names, qrels, run)}


def _theirs(names: list[str], qrels: Any, run: Any) -> dict[tuple[str, str], float]:
    measures = [ir_measures.parse_measure(name) for name in names]
    values = ir_measures.iter_calc(measures, qrels, run)
    return {(m.query_id, str(m.measure)): m.value for m in values}


GAINS = [name for name in TIE_SAFE if "gains" in name]
JUDGED_ONLY = [name for name in TIE_SAFE if "judged_only" in name]
MIXES = {
    "plain": [n for n in TIE_SAFE if n not in GAINS + JUDGED_ONLY],
    "judged_only": JUDGED_ONLY,
    "gains": GAINS,
}


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("mix", list(MIXES))
def test_measures_together_equal_ir_measures_per_query(seed: int, mix: str) -> None:
    # ir_measures mixes these groups up when asked in one call: beside judged_only
    # measures, its plain NumRet counts judged documents only and its plain nDCG takes
    # another nDCG's gains. So each group is checked in its own call, and the test
    # below shows that rankset, asked everything at once, gives each measure's own value.
    names = MIXES[mix]
    qrels, run = _generated(seed, ties=True)
    ours, theirs = _ours(names, qrels, run), _theirs(names, qrels, run)
    assert ours.keys() == theirs.keys()
    for key, value in theirs.items():
        assert ours[key] == pytest.approx(value, abs=1e-12), key


def test_one_call_with_everything_equals_each_measure_asked_alone() -> None:
    qrels, run = _generated(1, ties=True)
    together = _ours(TIE_SAFE, qrels, run)
    alone: dict[tuple[str, str], float] = {}
    for name in TIE_SAFE:
        alone |= _theirs([name], qrels, run)
    assert together == pytest.approx(alone, abs=1e-12)


@pytest.mark.parametrize("name", TIE_SAFE)
def test_each_measure_alone_equals_ir_measures(name: str) -> None:
    qrels, run = _generated(7, ties=True)
    ours = face.calc_aggregate([name], qrels, run)
    theirs = ir_measures.calc_aggregate([ir_measures.parse_measure(name)], qrels, run)
    (our_measure, our_value), = ours.items()  # fmt: skip
    (their_measure, their_value), = theirs.items()  # fmt: skip
    assert str(our_measure) == str(their_measure)
    assert our_value == pytest.approx(their_value, abs=1e-12)
    assert _ours([name], qrels, run) == pytest.approx(_theirs([name], qrels, run), abs=1e-12)


TIE_FREE = ["Judged@1", "Judged@5", "Judged@10", "Judged@100", "RR@3", "RR(rel=2)@10", "RR@1"]


def test_judged_and_rr_at_k_equal_ir_measures_without_ties() -> None:
    names = TIE_FREE
    for seed in (4, 5):
        qrels, run = _generated(seed, ties=False)
        ours, theirs = _ours(names, qrels, run), _theirs(names, qrels, run)
        assert ours == pytest.approx(theirs, abs=1e-12)


def test_ties_follow_trec_eval_order_not_ir_measures_own() -> None:
    # ir_measures' Judged and RR@k break ties by doc id ascending, its other measures
    # (through pytrec_eval) by doc id descending as trec_eval does; rankset uses
    # trec_eval's order everywhere. a (relevant) and b (not) share a score:
    qrels = {"q": {"a": 1}}
    run = {"q": {"a": 1.0, "b": 1.0}}
    names = ["Judged@1", "RR@1", "RR", "P@1"]
    assert _theirs(names, qrels, run) == {
        ("q", "Judged@1"): 1.0, ("q", "RR@1"): 1.0, ("q", "RR"): 0.5, ("q", "P@1"): 0.0
    }  # fmt: skip
    assert _ours(names, qrels, run) == {
        ("q", "Judged@1"): 0.0, ("q", "RR@1"): 0.0, ("q", "RR"): 0.5, ("q", "P@1"): 0.0
    }  # fmt: skip


def test_measure_objects_print_and_compare_as_ir_measures_does() -> None:
    built = [
        face.nDCG @ 10, face.P(rel=2) @ 5, face.AP(rel=2), face.SetF(beta=2.0),
        face.IPrec @ 0.5, face.RR, face.nDCG(judged_only=True) @ 5, face.Success @ 1,
    ]  # fmt: skip
    reference = [
        ir_measures.nDCG @ 10, ir_measures.P(rel=2) @ 5, ir_measures.AP(rel=2),
        ir_measures.SetF(beta=2.0), ir_measures.IPrec @ 0.5, ir_measures.RR,
        ir_measures.nDCG(judged_only=True) @ 5, ir_measures.Success @ 1,
    ]  # fmt: skip
    assert [str(m) for m in built] == [str(m) for m in reference]
    assert [face.parse_measure(str(m)) for m in reference] == built
    qrels, run = _generated(9, ties=True)
    aggregate = face.calc_aggregate(built, qrels, run)
    assert list(aggregate) == built  # keyed by the measure objects, in the order asked
    assert aggregate[face.nDCG @ 10] == pytest.approx(
        ir_measures.calc_aggregate([ir_measures.nDCG @ 10], qrels, run)[ir_measures.nDCG @ 10]
    )


def test_inputs_in_ir_measures_forms(tmp_path: Path) -> None:
    pd = pytest.importorskip("pandas")
    qrels, run = _generated(11, ties=True)
    names = ["nDCG@10", "AP", "NumQ", "P@5"]
    expected = _theirs(names, qrels, run)
    qrel_tuples = [face.Qrel(q, d, r) for q, docs in qrels.items() for d, r in docs.items()]
    run_tuples = [face.ScoredDoc(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    assert _ours(names, qrel_tuples, run_tuples) == pytest.approx(expected)
    # ir_measures' own namedtuples and its frame columns read the same
    theirs_qrels = [ir_measures.Qrel(q, d, r) for q, d, r, _ in qrel_tuples]
    theirs_run = [ir_measures.ScoredDoc(q, d, s) for q, d, s in run_tuples]
    assert _ours(names, theirs_qrels, theirs_run) == pytest.approx(expected)
    qrels_frame = pd.DataFrame(theirs_qrels)
    run_frame = pd.DataFrame(theirs_run)
    assert _ours(names, qrels_frame, run_frame) == pytest.approx(expected)
    # and TREC files
    qrels_path, run_path = tmp_path / "qrels", tmp_path / "run"
    qrels_path.write_text("".join(f"{q} 0 {d} {r}\n" for q, d, r, _ in qrel_tuples))
    run_path.write_text("".join(f"{q} Q0 {d} 0 {s} sys\n" for q, d, s in run_tuples))
    assert _ours(names, str(qrels_path), str(run_path)) == pytest.approx(expected)


ACCURACY = ["Accuracy", "Accuracy(rel=2)", "Accuracy@3", "Accuracy(rel=3)@10"]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_accuracy_equals_ir_measures_without_ties(seed: int) -> None:
    # ir_measures' accuracy provider reports a query only where a relevant and a
    # non-relevant document are in the top k (it stops on a ZeroDivisionError where there
    # is no non-relevant one: the face leaves the query out) and ranks tied scores in the
    # run's order: untied scores here. Compared query by query.
    rng = random.Random(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(12):
        docs = [f"d{i}" for i in range(rng.randint(1, 20))]
        judged = rng.sample(docs, k=rng.randint(0, len(docs)))
        qrels[f"q{q}"] = {doc: rng.choice([-1, 0, 1, 2, 3]) for doc in [*judged, "unretrieved"]}
        if q != 3:  # labelled, not answered
            ranked = rng.sample(docs, k=len(docs))
            run[f"q{q}"] = {doc: 100.0 - i for i, doc in enumerate(ranked)} | {"x": 0.5}
    for name in ACCURACY:
        ours, theirs = _ours([name], qrels, run), {}
        for query, labels in qrels.items():
            try:
                theirs.update(_theirs([name], {query: labels}, run))
            except ZeroDivisionError:  # a relevant document and no non-relevant one
                assert (query, name) not in ours
        assert ours.keys() == theirs.keys()
        assert ours == pytest.approx(theirs, abs=1e-12)
        assert 0 < len(ours) < len(qrels)  # some queries left out, as in ir_measures


def test_what_the_face_does_not_compute_is_named() -> None:
    with pytest.raises(NameError, match="measure not found: Nope"):
        face.parse_measure("Nope@5")
    with pytest.raises(ParameterError, match=r"dcg='exp-log2' \(gdeval, ranx\) takes no gains"):
        face.calc_aggregate(
            ["nDCG(dcg='exp-log2',gains={1:3})@5"], {"q": {"d": 1}}, {"q": {"d": 1.0}}
        )
    with pytest.raises(ParameterError, match="gdeval needs a cutoff"):
        face.gdeval.calc_aggregate(["nDCG"], {"q": {"d": 1}}, {"q": {"d": 1.0}})
    with pytest.raises(ParameterError, match="P needs an @ value"):
        face.calc_aggregate([face.P], {"q": {"d": 1}}, {"q": {"d": 1.0}})
    with pytest.raises(ParameterError, match="has no parameter 'alpha'"):
        face.AP(alpha=1)
    with pytest.raises(ParameterError, match="a cutoff, an int >= 1"):
        _ = face.nDCG @ 0


GDEVAL = ["ERR@1", "ERR@5", "ERR@20", "nDCG(dcg='exp-log2')@5", "nDCG(dcg='exp-log2')@20"]


@pytest.mark.parametrize("seed", [1, 2])
def test_gdeval_measures_equal_ir_measures(seed: int) -> None:
    # ir_measures runs gdeval.pl (perl) for these: numeric query ids, grades up to 4, and
    # values printed with 5 decimals, so ours are compared rounded the same way.
    if shutil.which("perl") is None:
        pytest.skip("ir_measures computes ERR with gdeval.pl, which needs perl")
    rng = random.Random(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(1, 13):
        docs = [f"d{i}" for i in range(rng.randint(1, 25))]
        judged = [*rng.sample(docs, k=rng.randint(1, len(docs))), "never-retrieved"]
        qrels[str(q)] = {doc: rng.choice([-1, 0, 0, 1, 2, 3, 4]) for doc in judged}
        if q != 12:  # labelled, not answered
            run[str(q)] = {doc: float(rng.randint(0, 4)) for doc in docs}
    ours = {key: round(value, 5) for key, value in _ours(GDEVAL, qrels, run).items()}
    assert ours == pytest.approx(_theirs(GDEVAL, qrels, run), abs=1e-12)
    aggregate = face.calc_aggregate(GDEVAL, qrels, run)
    assert [str(m) for m in aggregate] == GDEVAL


COMPAT = ["Compat", "Compat(p=0.8)", "Compat(normalize=False)", "Compat(p=0.5,normalize=False)"]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_compat_equals_ir_measures_without_ties(seed: int) -> None:
    # ir_measures' Compat breaks score ties by doc id ascending (rankset: descending) and
    # ranks unretrieved relevant documents by a score of 0: positive, untied scores here.
    rng = random.Random(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(10):
        docs = [f"d{i}" for i in range(rng.randint(1, 30))]
        unretrieved = [f"u{i}" for i in range(rng.randint(0, 5))]
        judged = [*rng.sample(docs, k=rng.randint(1, len(docs))), *unretrieved]
        qrels[f"q{q}"] = {doc: rng.choice([-1, 0, 0, 1, 2, 3]) for doc in judged}
        if q != 3:  # labelled, not answered
            run[f"q{q}"] = {doc: 1.0 + rng.random() for doc in docs}
    ours, theirs = _ours(COMPAT, qrels, run), _theirs(COMPAT, qrels, run)
    assert ours.keys() == theirs.keys()
    assert ours == pytest.approx(theirs, abs=1e-12)


def test_near_ties_are_read_as_each_of_ir_measures_tools_reads_them() -> None:
    # 1.00000001 and 1.0 are equal as 32-bit floats (pytrec_eval: RR, P) but not as
    # doubles (gdeval, and ir_measures' own Judged and RR@k).
    if shutil.which("perl") is None:
        pytest.skip("ir_measures computes ERR with gdeval.pl, which needs perl")
    qrels = {"1": {"a": 0, "b": 3}}
    run = {"1": {"a": 1.00000001, "b": 1.0}}
    names = ["ERR@10", "nDCG(dcg='exp-log2')@10", "RR@10", "RR", "P@1", "Judged@1"]
    ours = {key: round(value, 5) for key, value in _ours(names, qrels, run).items()}
    assert ours == pytest.approx(_theirs(names, qrels, run), abs=1e-12)
    assert ours[("1", "RR")] == 1.0  # b first: a tie, broken by doc id descending
    assert ours[("1", "RR@10")] == 0.5  # a first: 1.00000001 > 1.0


def test_no_query_in_common_scores_zero() -> None:
    qrels, run = {"q1": {"d1": 1}}, {"q2": {"d1": 1.0}}
    names = ["AP", "nDCG@10", "NumQ"]
    assert _ours(names, qrels, run) == _theirs(names, qrels, run)
    assert set(_ours(names, qrels, run).values()) == {0.0}


RBP = ["RBP(rel=1)", "RBP(rel=2)", "RBP(rel=1,p=0.5)", "RBP(rel=3,p=0.95)"]


@pytest.mark.parametrize("seed", [1, 2])
def test_rbp_equals_cwl_eval_through_ir_measures(seed: int) -> None:
    # ir_measures computes RBP with cwl_eval (a test dependency), binary at rel, ranking
    # by score with ties in input order: untied scores here.
    pytest.importorskip("cwl", reason="cwl-eval is a test dependency")
    rng = random.Random(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(10):
        docs = [f"d{i}" for i in range(rng.randint(1, 40))]
        judged = rng.sample(docs, k=rng.randint(1, len(docs)))
        qrels[f"q{q}"] = {doc: rng.choice([-1, 0, 0, 1, 2, 3]) for doc in judged}
        if q != 3:  # labelled, not answered
            run[f"q{q}"] = {doc: rng.random() for doc in docs}
    ours, theirs = _ours(RBP, qrels, run), _theirs(RBP, qrels, run)
    assert ours.keys() == theirs.keys()
    assert ours == pytest.approx(theirs, abs=1e-12)


# The C/W/L family: ir_measures computes it with cwl_eval (a test dependency), gains scaled
# between min_rel and max_rel, 1,000 ranks at most, ties in input order: untied scores here.
CWL = [
    "SDCG(max_rel=3)@10", "SDCG(max_rel=3)@1", "SDCG(min_rel=1,max_rel=2)@5",
    "SDCG(max_rel=3)@2000", "BPM(max_rel=3)@5", "BPM(T=2.0,max_rel=3)@20",
    "BPM(T=0.5,max_rel=1)@3", "NERR8(max_rel=3)@10", "NERR8(max_rel=1)@4",
    "NERR9(max_rel=3)@10", "NERR9(min_rel=1,max_rel=3)@30", "NERR10(max_rel=3)",
    "NERR10(p=0.5,max_rel=2)", "NERR11(max_rel=3)", "NERR11(T=3.0,max_rel=3)",
    "INST(max_rel=3)", "INST(T=2.0,max_rel=2)", "INST(T=0.3,min_rel=1,max_rel=3)",
    "INSQ(max_rel=3)", "INSQ(T=4.0,max_rel=1)",
]  # fmt: skip


def _untied(seed: int, *, depth: int) -> tuple[dict[str, dict[str, int]], dict[str, Any]]:
    rng = random.Random(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(10):
        docs = [f"d{i}" for i in range(rng.randint(1, depth))]
        judged = rng.sample(docs, k=rng.randint(1, min(len(docs), 30)))
        qrels[f"q{q}"] = {doc: rng.choice([-1, 0, 0, 1, 2, 3]) for doc in judged}
        if q == 5:  # every document fully relevant: the readers stop at once
            qrels["q5"] = dict.fromkeys(docs, 3)
        if q != 3:  # labelled, not answered
            run[f"q{q}"] = {doc: rng.random() for doc in docs}
    run["only-in-run"] = {"d1": 1.0}
    return qrels, run


@pytest.mark.parametrize(("seed", "depth"), [(1, 40), (2, 40), (3, 1300)])
def test_cwl_family_equals_cwl_eval_through_ir_measures(seed: int, depth: int) -> None:
    pytest.importorskip("cwl", reason="cwl-eval is a test dependency")
    qrels, run = _untied(seed, depth=depth)  # depth 1,300: past cwl_eval's 1,000 ranks
    ours, theirs = _ours(CWL, qrels, run), _theirs(CWL, qrels, run)
    assert ours.keys() == theirs.keys()
    assert ours == pytest.approx(theirs, abs=1e-12)


@pytest.mark.parametrize("name", CWL[::3])
def test_each_cwl_measure_alone_equals_cwl_eval(name: str) -> None:
    pytest.importorskip("cwl", reason="cwl-eval is a test dependency")
    qrels, run = _untied(4, depth=60)
    assert _ours([name], qrels, run) == pytest.approx(_theirs([name], qrels, run), abs=1e-12)


def test_cwl_measures_need_max_rel_and_a_cutoff_where_ir_measures_does() -> None:
    with pytest.raises(ParameterError, match="max_rel is required"):
        face.calc_aggregate(["INST"], {"q": {"d": 1}}, {"q": {"d": 1.0}})
    with pytest.raises(ParameterError, match="needs an @ value"):
        face.calc_aggregate(["SDCG(max_rel=1)"], {"q": {"d": 1}}, {"q": {"d": 1.0}})


# The intent-aware family: ir_measures computes it with pyndeval (NIST's ndeval, a test
# dependency) over subtopic labels (the qrels' iteration), ranking by score with ties by
# doc id ascending (rankset: descending): untied scores here. ir_measures sends the run to
# one group of (rel, alpha, beta) settings per call and scores the others 0, so the
# reference is asked one group at a time.
DIVERSITY_GROUPS = [
    ["alpha_nDCG@10", "alpha_nDCG@1", "alpha_nDCG@20", "alpha_DCG@1", "alpha_DCG@5",
     "ERR_IA@1", "ERR_IA@20", "nERR_IA@10", "AP_IA", "P_IA@10", "P_IA@1", "StRecall@5",
     "NRBP", "nNRBP"],
    ["alpha_nDCG(alpha=0.8)@5", "alpha_DCG(alpha=0.8)@5"],
    ["NRBP(alpha=0.3,beta=0.8)", "nNRBP(alpha=0.3,beta=0.8)"],
    ["alpha_nDCG(rel=2)@10", "AP_IA(rel=2)", "StRecall(rel=2)@10", "nERR_IA(rel=2)@5"],
]  # fmt: skip


def _subtopic_inputs(seed: int, *, ties: bool) -> tuple[list[Any], list[Any]]:
    rng = random.Random(seed)
    qrels, run = [], []
    for q in range(10):
        docs = [f"d{i}" for i in range(rng.randint(1, 30))]
        if q != 0:  # q0 is only in the run
            for subtopic in range(rng.randint(1, 4)):
                for doc in rng.sample(docs, k=rng.randint(1, len(docs))):
                    grade = rng.choice([-1, 0, 0, 1, 2])
                    qrels.append(ir_measures.Qrel(f"q{q}", doc, grade, str(subtopic)))
        if q != 1:  # q1 is only in the labels
            for doc in docs:
                score = rng.randint(0, 3) if ties else rng.random()
                run.append(ir_measures.ScoredDoc(f"q{q}", doc, float(score)))
    return qrels, run


def _ndeval(names: list[str], qrels: Any, run: Any) -> dict[tuple[str, str], float]:
    values = _theirs(names, qrels, run)
    # ndeval's nNRBP is 0/0 (NaN) for a query none of whose subtopics has a relevant
    # document; the face, as every other measure there, scores it 0.
    return {key: 0.0 if math.isnan(value) else value for key, value in values.items()}


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_intent_aware_family_equals_ndeval_through_ir_measures(seed: int) -> None:
    pytest.importorskip("pyndeval", reason="pyndeval is a test dependency")
    qrels, run = _subtopic_inputs(seed, ties=False)
    everything = [name for group in DIVERSITY_GROUPS for name in group]
    ours = _ours(everything, qrels, run)  # one call: no group is lost
    for group in DIVERSITY_GROUPS:
        theirs = _ndeval(group, qrels, run)
        assert {key: ours[key] for key in theirs} == pytest.approx(theirs, abs=1e-12)
        assert {key for key in ours if key[1] in group} == theirs.keys()


@pytest.mark.parametrize("name", [group[0] for group in DIVERSITY_GROUPS] + ["P_IA@10"])
def test_each_intent_aware_measure_alone_equals_ndeval(name: str) -> None:
    pytest.importorskip("pyndeval", reason="pyndeval is a test dependency")
    qrels, run = _subtopic_inputs(4, ties=False)
    assert _ours([name], qrels, run) == pytest.approx(_ndeval([name], qrels, run), abs=1e-12)


def test_intent_aware_ties_follow_trec_eval_order_not_ndeval_own() -> None:
    pytest.importorskip("pyndeval", reason="pyndeval is a test dependency")
    qrels = [ir_measures.Qrel("q", "a", 1, "s1"), ir_measures.Qrel("q", "b", 0, "s1")]
    run = [ir_measures.ScoredDoc("q", "a", 1.0), ir_measures.ScoredDoc("q", "b", 1.0)]
    # tied: ndeval ranks a (ascending) first, trec_eval b (descending)
    assert _theirs(["StRecall@1"], qrels, run) == {("q", "StRecall@1"): 1.0}
    assert _ours(["StRecall@1"], qrels, run) == {("q", "StRecall@1"): 0.0}


def test_intent_aware_labels_from_a_diversity_qrels_file(tmp_path: Path) -> None:
    pytest.importorskip("pyndeval", reason="pyndeval is a test dependency")
    qrels, run = _subtopic_inputs(5, ties=False)
    path = tmp_path / "div.qrels"
    lines = [f"{q.query_id} {q.iteration} {q.doc_id} {q.relevance}\n" for q in qrels]
    path.write_text("".join(lines))
    names = DIVERSITY_GROUPS[0]
    assert _ours(names, str(path), run) == pytest.approx(_ndeval(names, qrels, run), abs=1e-12)


def test_plain_measures_beside_intent_aware_ones_on_subtopic_qrels() -> None:
    # a document judged under several subtopics: ir_measures' plain measures keep its last
    # judgement (its qrels dict), the intent-aware ones read every subtopic
    pytest.importorskip("pyndeval", reason="pyndeval is a test dependency")
    qrels, run = _subtopic_inputs(6, ties=False)
    ours = _ours(["alpha_nDCG@10", "nDCG@10", "P@5"], qrels, run)
    theirs = {**_ndeval(["alpha_nDCG@10"], qrels, run), **_theirs(["nDCG@10", "P@5"], qrels, run)}
    assert ours == pytest.approx(theirs, abs=1e-12)


def test_intent_aware_labels_from_a_frame_with_iteration() -> None:
    pytest.importorskip("pyndeval", reason="pyndeval is a test dependency")
    qrels, run = _subtopic_inputs(7, ties=False)
    frame = pl.DataFrame(
        [tuple(q) for q in qrels],
        schema=["query_id", "doc_id", "relevance", "iteration"],
        orient="row",
    )
    names = DIVERSITY_GROUPS[0]
    assert _ours(names, frame, run) == pytest.approx(_ndeval(names, qrels, run), abs=1e-12)
