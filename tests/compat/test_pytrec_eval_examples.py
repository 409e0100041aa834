"""pytrec_eval's own README, examples and test scenarios, run unchanged through the face.

Each program below is pytrec_eval's (its README and ``examples/`` folder), or one of its
test scenarios, written against ``import pytrec_eval``. It runs twice in a fresh
interpreter (pytrec_eval keeps trec_eval's state between evaluators): once with the
original, once with ``import rankset.compat.pytrec_eval as pytrec_eval``, and both print
the same. The names of the face are checked against the original's too.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import rankset.compat.pytrec_eval as face

pytrec_eval = pytest.importorskip("pytrec_eval", reason="pytrec_eval is a test dependency")

ORIGINAL = "import pytrec_eval\n"
FACE = "import rankset.compat.pytrec_eval as pytrec_eval\n"
DATA = Path(__file__).resolve().parents[1] / "data" / "trec_eval"

QREL_RUN = """
qrel = {
    'q1': {'d1': 0, 'd2': 1, 'd3': 0},
    'q2': {'d2': 1, 'd3': 1},
}
run = {
    'q1': {'d1': 1.0, 'd2': 0.0, 'd3': 1.5},
    'q2': {'d1': 1.5, 'd2': 0.2, 'd3': 0.5},
}
"""

# README and examples/simple.py
SIMPLE = f"""
import json
{QREL_RUN}
evaluator = pytrec_eval.RelevanceEvaluator(qrel, {{'map', 'ndcg'}})
print(json.dumps(evaluator.evaluate(run), indent=1))
"""

# examples/simple_cut.py: measures with cutoffs, in both spellings
SIMPLE_CUT = f"""
import json
{QREL_RUN}
evaluator = pytrec_eval.RelevanceEvaluator(
    qrel, {{'map_cut', 'ndcg_cut', 'P.1,2', 'recall_1', 'recall.2'}})
print(json.dumps(evaluator.evaluate(run), indent=1))
"""

# examples/trec_eval.py: files read with parse_qrel/parse_run, every supported measure,
# per query and aggregated with compute_aggregated_measure
TREC_EVAL = f"""
with open({str(DATA / "qrels.test")!r}) as f_qrel:
    qrel = pytrec_eval.parse_qrel(f_qrel)
with open({str(DATA / "results.test")!r}) as f_run:
    run = pytrec_eval.parse_run(f_run)
evaluator = pytrec_eval.RelevanceEvaluator(qrel, pytrec_eval.supported_measures)
results = evaluator.evaluate(run)

def print_line(measure, scope, value):
    print('{{:25s}}{{:8s}}{{:.4f}}'.format(measure, scope, value))

for query_id, query_measures in sorted(results.items()):
    for measure, value in sorted(query_measures.items()):
        print_line(measure, query_id, value)
for measure in sorted(query_measures.keys()):
    print_line(
        measure,
        'all',
        pytrec_eval.compute_aggregated_measure(
            measure, [query_measures[measure] for query_measures in results.values()]))
"""

# examples/statistical_significance.py: two runs, one measure, a paired t-test
SIGNIFICANCE = f"""
import scipy.stats
with open({str(DATA / "qrels.test")!r}) as f_qrel:
    qrel = pytrec_eval.parse_qrel(f_qrel)
with open({str(DATA / "results.test")!r}) as f_run:
    first_run = pytrec_eval.parse_run(f_run)
# the second system: the first one's rankings upside down
second_run = {{q: {{d: -s for d, s in docs.items()}} for q, docs in first_run.items()}}
measure = 'map'
evaluator = pytrec_eval.RelevanceEvaluator(qrel, {{measure}})
first_results = evaluator.evaluate(first_run)
second_results = evaluator.evaluate(second_run)
query_ids = list(set(first_results.keys()) & set(second_results.keys()))
first_scores = [first_results[query_id][measure] for query_id in sorted(query_ids)]
second_scores = [second_results[query_id][measure] for query_id in sorted(query_ids)]
print(round(float(scipy.stats.ttest_rel(first_scores, second_scores).statistic), 10))
"""

# pytrec_eval's test scenarios: no measure, parameters merged, nicknames, the level,
# judged documents only, a query with no labels, an empty run
SCENARIOS = f"""
import json
{QREL_RUN}
qrel['q3'] = {{}}  # no labels: not a query (pytrec_eval issue 57)
out = {{}}
out['none'] = pytrec_eval.RelevanceEvaluator(qrel, set()).evaluate(run)
out['merged'] = pytrec_eval.RelevanceEvaluator(
    qrel, {{'ndcg_cut.3', 'ndcg_cut_1', 'P_5,10', 'P.10'}}).evaluate(run)
out['official'] = pytrec_eval.RelevanceEvaluator(qrel, {{'official'}}).evaluate(run)
out['set'] = pytrec_eval.RelevanceEvaluator(qrel, {{'set'}}).evaluate(run)
out['level'] = pytrec_eval.RelevanceEvaluator(
    {{'q1': {{'d1': 2, 'd2': 1}}}}, {{'map', 'P.1'}}, relevance_level=2
).evaluate({{'q1': {{'d1': 0.5, 'd2': 1.0}}}})
out['judged'] = pytrec_eval.RelevanceEvaluator(
    qrel, {{'map', 'num_ret'}}, judged_docs_only_flag=True
).evaluate({{'q1': {{'x': 2.0, 'd2': 1.0, 'd1': 0.5}}}})
out['empty_run'] = pytrec_eval.RelevanceEvaluator(qrel, {{'map'}}).evaluate({{}})
out['unknown_query'] = pytrec_eval.RelevanceEvaluator(qrel, {{'map'}}).evaluate(
    {{'nobody': {{'d1': 1.0}}}})
out['reused'] = [pytrec_eval.RelevanceEvaluator(qrel, {{'recip_rank'}}).evaluate(r)
                 for r in (run, {{'q1': {{'d2': 3.0}}}})]
out['aggregate'] = [pytrec_eval.compute_aggregated_measure(m, [0.25, 0.5, 1.0])
                    for m in ('num_ret', 'gm_map', 'map')]
for name in ('foo', 'P.x', 'all_prefs', 'qrels_jg'):
    try:
        pytrec_eval.RelevanceEvaluator(qrel, {{name}})
        out[name] = 'accepted'
    except ValueError as error:
        out[name] = str(error).split(' ')[:2]  # "unsupported measure"
print(json.dumps(out, indent=1, sort_keys=True))
"""

PROGRAMS = {
    "readme_simple": SIMPLE,
    "simple_cut": SIMPLE_CUT,
    "trec_eval": TREC_EVAL,
    "statistical_significance": SIGNIFICANCE,
    "test_scenarios": SCENARIOS,
}


def _output(header: str, program: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", header + program],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_pytrec_evals_programs_print_the_same_through_the_face(name: str) -> None:
    program = PROGRAMS[name]
    assert _output(FACE, program) == _output(ORIGINAL, program)


def test_the_face_has_every_public_name_and_no_other() -> None:
    public = {*pytrec_eval.__all__, "compute_aggregated_measure"}
    ours = {name for name in dir(face) if not name.startswith("_")}
    assert ours == public  # 6 of 6, and no helper (re, pl, ...) beside them
    assert face.supported_measures == pytrec_eval.supported_measures
    assert type(face.supported_measures) is type(pytrec_eval.supported_measures)
    assert face.supported_nicknames == pytrec_eval.supported_nicknames


def test_parse_qrel_and_parse_run_read_as_pytrec_eval_reads() -> None:
    qrel_lines = (DATA / "qrels.test").read_text().splitlines()
    run_lines = (DATA / "results.test").read_text().splitlines()
    assert face.parse_qrel(qrel_lines) == pytrec_eval.parse_qrel(qrel_lines)
    assert face.parse_run(run_lines) == pytrec_eval.parse_run(run_lines)
    assert type(face.parse_run(run_lines)) is type(pytrec_eval.parse_run(run_lines))
    for module in (face, pytrec_eval):
        with pytest.raises(AssertionError):
            module.parse_qrel(["q 0 d 1", "q 0 d 0"])
        with pytest.raises(AssertionError):
            module.parse_run(["q Q0 d 1 1 t", "q Q0 d 2 0.5 t"])
        with pytest.raises(ValueError, match="values to unpack"):
            module.parse_run(["q Q0 d 1 1"])


def test_no_measure_gives_an_empty_dict_per_query() -> None:
    qrel = {"q1": {"d1": 1}, "q2": {"d2": 0}}
    run = {"q1": {"d1": 1.0}, "q2": {}, "q3": {"d1": 1.0}}
    assert face.RelevanceEvaluator(qrel, set()).evaluate(run) == {"q1": {}, "q2": {}}
    assert json.dumps(face.RelevanceEvaluator(qrel, []).evaluate(run)) == '{"q1": {}, "q2": {}}'
