"""gdeval.pl's printed nDCG@k and ERR@k against the ir_measures face and rankset's measures.

gdeval.pl (the TREC Web track script, as shipped inside the ir_measures package) prints
each topic's ``ndcg@k`` and ``err@k`` with 5 decimals. Here every value must be what it
prints:

- the face's ``gdeval`` provider and its default pipeline (``nDCG(dcg='exp-log2')@k``,
  ``ERR@k``) return the printed value itself, as ir_measures reads it back (and 0 for a
  labelled topic gdeval does not print: one without a relevant label, or not in the run);
- rankset's ``ndcg_exp@k`` and ``err@k``, printed with ``%.5f``, read the same.

The cases: ir_measures' own gdeval test inputs, 120 generated ones (seeded: grades -1 to
4, tied scores, topics only in the qrels or only in the run, topics without a relevant
label, rankings of one document, cutoffs 1 to 100) and TREC DL 2019 runs. gdeval.pl's
output for the generated cases is committed (``tests/data/gdeval/generated.json``), so a
clone without Perl still checks every value; with Perl, the script runs live and must
print what was committed. Regenerate with ``python tests/compat/test_gdeval_parity.py``.
"""

from __future__ import annotations

import gzip
import importlib.util
import json
import random
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

import rankset
from rankset.compat import ir_measures as face

DATA = Path(__file__).resolve().parents[1] / "data"
GENERATED = DATA / "gdeval" / "generated.json"
SHARED = Path(__file__).resolve().parents[3] / "shared" / "data"

Qrels = dict[str, dict[str, int]]
Run = dict[str, dict[str, float]]
#: gdeval.pl's printed rows of one case: topic -> (ndcg, err), as printed
Printed = dict[str, tuple[str, str]]

# ir_measures' tests/test_gdeval.py inputs (tests/data/ir_measures/tests/test_gdeval.py)
IR_MEASURES_QRELS: Qrels = {
    "0": {"D0": 0, "D1": 1, "D2": 1, "D3": 2, "D4": 0},
    "1": {"D0": 1, "D3": 2, "D5": 2},
}
IR_MEASURES_RUN: Run = {
    "0": {"D0": 0.8, "D2": 0.7, "D1": 0.3, "D3": 0.4, "D4": 0.1},
    "1": {"D1": 0.8, "D3": 0.7, "D4": 0.3, "D2": 0.4},
}


def _gdeval_script() -> Path | None:
    """Return gdeval.pl inside the installed ir_measures package, if any."""
    spec = importlib.util.find_spec("ir_measures")
    if spec is None or not spec.submodule_search_locations:
        return None
    script = Path(next(iter(spec.submodule_search_locations))) / "bin" / "gdeval.pl"
    return script if script.is_file() else None


def _needs_gdeval() -> Path:
    script = _gdeval_script()
    if script is None:
        pytest.skip("gdeval.pl ships inside ir_measures, a test dependency: not installed")
    if shutil.which("perl") is None:
        pytest.skip("gdeval.pl needs perl, which is not installed")
    return script


def gdeval(script: Path, qrels: Qrels, run: Run, k: int) -> Printed:
    """Run gdeval.pl on ``qrels`` and ``run`` at ``k``; return its printed rows."""
    with tempfile.TemporaryDirectory() as folder:
        qrels_path, run_path = Path(folder) / "qrels", Path(folder) / "run"
        qrels_path.write_text(
            "".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items())
        )
        run_path.write_text(
            "".join(
                f"{q} Q0 {d} {rank} {score!r} run\n"
                for q, docs in run.items()
                for rank, (d, score) in enumerate(docs.items(), start=1)
            )
        )
        out = subprocess.run(
            ["perl", str(script), str(qrels_path), str(run_path), str(k)],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    header, *rows = out.splitlines()
    assert header == f"runid,topic,ndcg@{k},err@{k}"
    printed = {}
    for row in rows:
        _, topic, ndcg, err = row.split(",")
        printed[topic] = (ndcg, err)
    return printed


def generated_cases(count: int = 120, seed: int = 2010) -> Iterator[tuple[Qrels, Run, int]]:
    """Yield ``count`` seeded cases ``(qrels, run, k)`` (numeric topics, as gdeval.pl needs)."""
    rng = random.Random(seed)
    for _ in range(count):
        qrels: Qrels = {}
        run: Run = {}
        for topic in range(1, rng.randint(2, 7)):
            docs = [f"d{i}" for i in range(rng.randint(1, 30))]
            where = rng.random()
            if where > 0.1:  # else: only in the run
                judged = rng.sample(docs, k=rng.randint(0, len(docs)))
                judged += [f"u{i}" for i in range(rng.randint(0, 3))]  # never retrieved
                grades = [-1, 0, 0, 0, 1, 1, 2, 3, 4] if rng.random() > 0.1 else [-1, 0]
                qrels[str(topic)] = {doc: rng.choice(grades) for doc in judged}
            if where < 0.9:  # else: only in the qrels
                tied = rng.random() < 0.5
                run[str(topic)] = {
                    doc: float(rng.randint(0, 3)) if tied else round(rng.uniform(-5, 20), 3)
                    for doc in docs
                }
        yield qrels, run, rng.choice([1, 2, 3, 5, 10, 20, 100])


def _check(qrels: Qrels, run: Run, k: int, printed: Printed) -> None:
    """The face and rankset give gdeval.pl's printed values, per topic and on average."""
    expected = {q: (0.0, 0.0) for q, docs in qrels.items() if docs}  # not printed: 0
    expected.update({q: (float(n), float(e)) for q, (n, e) in printed.items()})
    exp_ndcg, err = face.nDCG(dcg="exp-log2") @ k, face.ERR @ k
    for pipeline, ndcg in [(face.gdeval, face.nDCG @ k), (face.DefaultPipeline, exp_ndcg)]:
        found = {
            (m.query_id, str(m.measure)): m.value
            for m in pipeline.iter_calc([ndcg, err], qrels, run)
        }
        assert found == {
            **{(q, str(ndcg)): v[0] for q, v in expected.items()},
            **{(q, str(err)): v[1] for q, v in expected.items()},
        }
        if expected:
            means = pipeline.calc_aggregate([ndcg, err], qrels, run)
            n = len(expected)
            assert means[ndcg] == pytest.approx(sum(v[0] for v in expected.values()) / n, abs=1e-15)
            assert means[err] == pytest.approx(sum(v[1] for v in expected.values()) / n, abs=1e-15)
    answered = {q: docs for q, docs in run.items() if q in qrels and docs}
    if not answered:
        return
    result = rankset.evaluate(answered, qrels, [f"ndcg_exp@{k}", f"err@{k}"])
    ours: dict[str, dict[str, float | None]] = {}
    for query, metric, value in result.per_query.select("query_id", "metric", "value").rows():
        ours.setdefault(query, {})[metric] = value
    for topic, (ndcg_text, err_text) in printed.items():
        values = ours[topic]
        assert (f"{values[f'ndcg_exp@{k}']:.5f}", f"{values[f'err@{k}']:.5f}") == (
            ndcg_text,
            err_text,
        ), topic


@pytest.mark.parametrize("k", [1, 2, 5, 20, 1000])
def test_ir_measures_test_inputs_print_as_gdeval_prints(k: int) -> None:
    printed = gdeval(_needs_gdeval(), IR_MEASURES_QRELS, IR_MEASURES_RUN, k)
    _check(IR_MEASURES_QRELS, IR_MEASURES_RUN, k, printed)


def test_ir_measures_test_values_are_gdevals() -> None:
    # ir_measures' own expectations (tests/test_gdeval.py), printed by gdeval.pl there
    qrels, run = IR_MEASURES_QRELS, IR_MEASURES_RUN
    per_query = {m.query_id: m.value for m in face.gdeval.iter_calc([face.nDCG @ 20], qrels, run)}
    assert per_query == {"0": 0.6201, "1": 0.35099}
    assert face.gdeval.calc_aggregate([face.ERR @ 2], qrels, run) == {face.ERR @ 2: 0.0625}


def _committed() -> list[Printed]:
    stored = json.loads(GENERATED.read_text(encoding="utf-8"))
    return [{topic: (row[0], row[1]) for topic, row in case.items()} for case in stored["cases"]]


def test_generated_cases_print_as_committed_gdeval_output() -> None:
    committed = _committed()
    cases = list(generated_cases())
    assert len(cases) == len(committed) == 120
    assert sum(len(printed) for printed in committed) == 265  # topics printed, in all
    zero = ("0.00000", "0.00000")
    assert sum(row != zero for printed in committed for row in printed.values()) == 184
    for (qrels, run, k), printed in zip(cases, committed, strict=True):
        _check(qrels, run, k, printed)


@pytest.mark.slow
def test_gdeval_prints_what_was_committed() -> None:
    script = _needs_gdeval()
    live = [gdeval(script, qrels, run, k) for qrels, run, k in generated_cases()]
    assert live == _committed()


def _read(path: Path, *, qrels: bool) -> dict[str, dict[str, float]]:
    found: dict[str, dict[str, float]] = {}
    with gzip.open(path, "rt") as lines:
        for line in lines:
            fields = line.split()
            if qrels:
                found.setdefault(fields[0], {})[fields[2]] = int(fields[3])
            else:
                found.setdefault(fields[0], {})[fields[2]] = float(fields[4])
    return found


DL19_RUNS = [
    "rank_llm_dl_runs/first_stage/bm25.dl19.trec.gz",
    "rank_llm_dl_runs/first_stage/splade-pp-ed.dl19.trec.gz",
    "trec_dl_official/runs_dl19_complete/ICT-BERT2.run.gz",
]


@pytest.mark.parametrize("run_path", DL19_RUNS, ids=lambda p: Path(p).name.split(".")[0])
def test_dl19_runs_print_as_gdeval_prints(run_path: str) -> None:
    script = _needs_gdeval()
    qrels_path = SHARED / "anserini_qrels_topics" / "qrels" / "qrels.dl19-passage.txt.gz"
    if not (qrels_path.exists() and (SHARED / run_path).exists()):
        pytest.skip("TREC DL 2019 qrels and runs are in ../shared/data (not in a clone)")
    qrels = {
        q: {d: int(g) for d, g in docs.items()} for q, docs in _read(qrels_path, qrels=True).items()
    }
    run = _read(SHARED / run_path, qrels=False)
    for k in (10, 100):
        printed = gdeval(script, qrels, run, k)
        assert len(printed) == 43
        _check(qrels, run, k, printed)


if __name__ == "__main__":  # write gdeval.pl's output for the generated cases
    found = _gdeval_script()
    assert found is not None, "install ir_measures (it ships gdeval.pl)"
    outputs = [gdeval(found, qrels, run, k) for qrels, run, k in generated_cases()]
    GENERATED.parent.mkdir(parents=True, exist_ok=True)
    about = (
        "gdeval.pl's printed rows (topic: [ndcg@k, err@k]) for each case of "
        "generated_cases() in tests/compat/test_gdeval_parity.py, in order"
    )
    rows = ",\n".join(json.dumps({t: list(row) for t, row in p.items()}) for p in outputs)
    GENERATED.write_text(
        f'{{"about": {json.dumps(about)},\n"cases": [\n{rows}\n]}}\n', encoding="utf-8"
    )
