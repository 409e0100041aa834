"""``rankset trec_eval -m all_trec`` against both NIST binaries on tie-prone generated runs.

Each case is a qrels file and a run built to make trec_eval's printed means fragile:
8 to 80 queries (mostly counts like 8, 16, 40 or 80 that make ``k / n`` means end in a
5 at the fifth decimal), a few labels and a few retrieved documents a query, scores
drawn from a handful of values (ties everywhere, broken by document id), grades
-1..3, labelled queries without results and queries whose labels are all negative.
A mean whose exact value is a 4th-decimal tie prints the digit the order of trec_eval's
additions gives (query by query, in double): the drop-in must print the same bytes.

The cases run in one batch a version (a failure lists every case that differs), each
with its option set drawn from ``-q``, ``-l 2``, ``-J``, ``-M 10`` and ``-c``; the
binaries run in a thread pool beside rankset.
"""

from __future__ import annotations

import io
import itertools
import random
import subprocess
from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction
from pathlib import Path

import pytest

import rankset
from rankset.compat import trec_eval

CASES_PER_VERSION = 120
OPTION_CHOICES = list(itertools.product(["", "-q"], ["", "-l2"], ["", "-J"], ["", "-M10"]))
QUERY_COUNTS = [8, 16, 32, 40, 40, 64, 80, 80]


def _case(folder: Path, seed: int) -> tuple[Path, Path, list[str]]:
    """Write case ``seed``'s qrels and run; return them and its options."""
    rng = random.Random(seed)
    n_queries = rng.choice([*QUERY_COUNTS, rng.randint(8, 80)])
    grades = [0, 1] if seed % 3 == 0 else [-1, 0, 0, 1, 1, 2, 3]
    scores = [0.5, 0.25, 1.0, 1e-3] if seed % 3 == 2 else [1, 2, 2, 3]
    label_lines, run_lines = [], []
    for q in range(n_queries):
        query = f"{q:02d}" if rng.random() < 0.8 else f"Q{q}"
        docs = list(dict.fromkeys(f"d{rng.randint(0, 40)}" for _ in range(rng.randint(2, 30))))
        judged = rng.sample(docs, k=min(len(docs), rng.randint(1, 8)))
        judged += [f"u{i}" for i in range(rng.randint(0, 3))]  # labelled, never retrieved
        label_lines += [f"{query} 0 {doc} {rng.choice(grades)}" for doc in judged]
        if seed % 8 == 7 and q == n_queries // 2:
            continue  # labelled, without results (10.0 stops there unless -c)
        for rank, doc in enumerate(docs[: rng.randint(1, len(docs))]):
            run_lines.append(f"{query} Q0 {doc} {rank + 1} {rng.choice(scores)} run{seed}")
    rng.shuffle(run_lines)
    qrels, run = folder / f"qrels{seed}", folder / f"run{seed}"
    qrels.write_text("\n".join(label_lines) + "\n", encoding="utf-8")
    run.write_text("\n".join(run_lines) + "\n", encoding="utf-8")
    options = [o for o in OPTION_CHOICES[seed % len(OPTION_CHOICES)] if o]
    if rng.random() < 0.3:
        options.append("-c")
    return qrels, run, options


def _binary(binary: Path, argv: list[str]) -> tuple[int, str, str]:
    done = subprocess.run(
        [str(binary), *argv], capture_output=True, text=True, timeout=120, check=False
    )
    return done.returncode, done.stdout, done.stderr


def _ours(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = trec_eval.main(argv, out=out, err=err)
    return status, out.getvalue(), err.getvalue()


def _differences(binary: Path, folder: Path, seeds: range, ours: list[str]) -> list[str]:
    cases = [_case(folder, seed) for seed in seeds]
    argvs = [[*options, "-m", "all_trec", str(q), str(r)] for q, r, options in cases]
    with ThreadPoolExecutor(max_workers=4) as pool:
        expected = list(pool.map(lambda argv: _binary(binary, argv), argvs))
    wrong = []
    for seed, argv, want in zip(seeds, argvs, expected, strict=True):
        got = _ours([*ours, *argv])
        if got != want:
            lines = [
                f"{a!r} != {b!r}"
                for a, b in zip(want[1].splitlines(), got[1].splitlines(), strict=False)
                if a != b
            ]
            wrong.append(f"seed {seed} {argv[:-2]}: status {got[0]} vs {want[0]}; {lines[:3]}")
    return wrong


def test_tie_prone_cases_equal_trec_eval_10(trec_eval_10: Path, tmp_path: Path) -> None:
    wrong = _differences(trec_eval_10, tmp_path, range(CASES_PER_VERSION), [])
    assert wrong == [], f"{len(wrong)} of {CASES_PER_VERSION} cases differ:\n" + "\n".join(wrong)


def test_tie_prone_cases_equal_trec_eval_9(trec_eval_9: Path, tmp_path: Path) -> None:
    seeds = range(CASES_PER_VERSION, 2 * CASES_PER_VERSION)
    wrong = _differences(trec_eval_9, tmp_path, seeds, ["--trec-eval-version", "9.0.8"])
    assert wrong == [], f"{len(wrong)} of {CASES_PER_VERSION} cases differ:\n" + "\n".join(wrong)


def test_the_generator_lands_means_on_fourth_decimal_ties(tmp_path: Path) -> None:
    # P@k's exact mean over the scored queries: a tie when mean * 10**4 ends in exactly .5;
    # then only the additions' rounding decides the printed digit.
    cutoffs = [5, 10, 15, 20, 30]
    with_tie = 0
    for seed in range(40):
        qrels, run, _ = _case(tmp_path, seed)
        result = rankset.evaluate(run, qrels, [f"P@{k}" for k in cutoffs], confidence=None)
        for (k,), rows in result.per_query.partition_by("k", as_dict=True).items():
            exact = sum(Fraction(round(v * k), k) for v in rows["value"]) / rows.height
            if (exact * 10**4) % 1 == Fraction(1, 2):
                with_tie += 1
                break
    assert with_tie >= 10, with_tie


@pytest.mark.parametrize("sample", ["bm25.trec"])
def test_the_samples_all_trec_output_is_both_binaries(
    trec_eval_10: Path, trec_eval_9: Path, sample: str
) -> None:
    root = Path(__file__).resolve().parents[2] / "data" / "sample"
    argv = ["-m", "all_trec", str(root / "qrels.txt"), str(root / sample)]
    assert _ours(argv) == _binary(trec_eval_10, argv)
    assert _ours(["--trec-eval-version", "9.0.8", *argv]) == _binary(trec_eval_9, argv)
    argv = ["-q", *argv]
    assert _ours(argv) == _binary(trec_eval_10, argv)
    assert _ours(["--trec-eval-version", "9.0.8", *argv]) == _binary(trec_eval_9, argv)


def test_a_run_measured_a_share_of_its_queries_at_a_time_is_the_binary(
    trec_eval_10: Path, trec_eval_9: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A large run is evaluated in shares of its queries (about _PART_ROWS rows each);
    # 200 rows a share cuts the sample's 4,000 rows into 20 calls.
    monkeypatch.setattr("rankset.compat.trec_eval._command._PART_ROWS", 200)
    root = Path(__file__).resolve().parents[2] / "data" / "sample"
    for sample in ("bm25.trec", "rerank.trec"):
        argv = ["-q", "-c", "-m", "all_trec", str(root / "qrels.txt"), str(root / sample)]
        assert _ours(argv) == _binary(trec_eval_10, argv)
        assert _ours(["--trec-eval-version", "9.0.8", *argv]) == _binary(trec_eval_9, argv)
        argv = [
            "-q",
            "-M",
            "7",
            "-J",
            "-m",
            "all_trec",
            str(root / "qrels.txt"),
            str(root / sample),
        ]
        assert _ours(argv) == _binary(trec_eval_10, argv)
