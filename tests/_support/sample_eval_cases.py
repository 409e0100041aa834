"""Generated sampled-qrels cases and NIST's ``sample_eval.pl`` outputs for them.

``tests/data/sample_eval/cases.jsonl.gz`` holds, per case, the generated qrels and run
and what the script printed for them (plain, ``-q``, and ``-G ...`` where the case has
a gain map); see that folder's NOTICE. The script is not redistributed: tests that run it
live find it through ``RANKSET_SAMPLE_EVAL`` (a path to ``sample_eval.pl``) and skip
without it or without Perl.

Regenerate the file (needs Perl and the script)::

    RANKSET_SAMPLE_EVAL=/path/to/sample_eval.pl python tests/_support/sample_eval_cases.py
"""

from __future__ import annotations

import gzip
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import pytest

#: Where the committed cases live.
CASES_FILE = Path(__file__).resolve().parent.parent / "data" / "sample_eval" / "cases.jsonl.gz"
#: The environment variable naming the script (``sample_eval.pl``).
SCRIPT_ENV = "RANKSET_SAMPLE_EVAL"
#: How many cases the file holds (seeds 0 .. N - 1).
CASE_COUNT = 130
_STRATA = (1, 2, 3, 5, 10, 11, 20)
_GAIN_MAPS = ("1=3", "2=10", "3=0.5", "1=0", "2=7", "4=12", "3=1", "0=1")


@dataclass(frozen=True)
class Case:
    """One generated case: its inputs, the gain map (if any) and the script's outputs."""

    seed: int
    qrels: str
    run: str
    gains: tuple[str, ...] = ()
    outputs: dict[str, str] = field(default_factory=dict)

    def argument_sets(self) -> dict[str, list[str]]:
        """The script's argument lists, by name, with ``QRELS`` and ``RUN`` to fill in."""
        sets = {"plain": ["QRELS", "RUN"], "q": ["-q", "QRELS", "RUN"]}
        if self.gains:
            sets["G"] = ["QRELS", "RUN", "-G", *self.gains]
        return sets


def generate(seed: int) -> Case:
    """Draw a case: 1-6 topics, 1-4 strata, unsampled (-1) labels, ties, shared ids.

    Every tenth case (seed ending in 7) has rankings of up to 2800 documents (the 1000
    cap) and up to 1500 labels per topic. Some topics are missing from the run, some run
    ids have leading zeros, some documents are listed twice, some run topics have no
    labels; a third of the cases carry a ``-G`` gain map, some with gains of 10 or more.
    """
    rng = random.Random(seed)
    big = seed % 10 == 7
    topics = rng.sample(range(1, 40), rng.randint(1, 3 if big else 6))
    qrels: list[str] = []
    run: list[str] = []
    for topic in topics:
        strata = [str(rng.choice(_STRATA)) for _ in range(rng.randint(1, 4))]
        docs = [
            f"D{rng.randint(0, 99):02d}x{i}" for i in range(rng.randint(1, 1500 if big else 40))
        ]
        top_grade = rng.choice([1, 2, 3, 4])
        rate = rng.random()
        for doc in docs:
            stratum = rng.choice(strata)
            grade = (
                rng.choice([0] * 3 + list(range(1, top_grade + 1))) if rng.random() < rate else -1
            )
            qrels.append(f"{topic} 0 {doc} {stratum} {grade}")
        if rng.random() < 0.15:
            continue
        candidates = docs + [f"U{i}" for i in range(rng.randint(0, 1300 if big else 30))]
        chosen = rng.sample(candidates, rng.randint(1, len(candidates)))
        scores = [rng.choice([round(rng.uniform(0, 10), 1), rng.randint(0, 5)]) for _ in chosen]
        run_topic = f"{topic:03d}" if rng.random() < 0.3 else str(topic)
        for rank, (doc, score) in enumerate(zip(chosen, scores, strict=True), start=1):
            run.append(f"{run_topic} Q0 {doc} {rank} {score} run{seed}")
        if rng.random() < 0.2:
            run.append(f"{run_topic} Q0 {chosen[0]} 99 {rng.randint(0, 9)} run{seed}")
    if rng.random() < 0.3:
        run.append(f"999 Q0 Z1 1 1.0 run{seed}")
    rng.shuffle(qrels)
    rng.shuffle(run)
    gains: list[str] = []
    if seed % 3 == 2:
        for mapping in rng.sample(_GAIN_MAPS, rng.randint(1, 3)):
            if mapping[0] not in {g[0] for g in gains}:
                gains.append(mapping)
    return Case(seed, "\n".join(qrels) + "\n", "\n".join(run) + "\n", tuple(gains))


def load_cases() -> list[Case]:
    """The committed cases, with the script's outputs."""
    with gzip.open(CASES_FILE, "rt", encoding="utf-8") as handle:
        records = [json.loads(line) for line in handle]
    return [Case(r["seed"], r["qrels"], r["run"], tuple(r["gains"]), r["outputs"]) for r in records]


def script_or_skip() -> Path:
    """The script named by ``RANKSET_SAMPLE_EVAL``, with Perl on the PATH; else skip."""
    if shutil.which("perl") is None:
        pytest.skip("perl is not installed: sample_eval.pl cannot run")
    named = os.environ.get(SCRIPT_ENV)
    if not named or not Path(named).is_file():
        pytest.skip(
            f"NIST's sample_eval.pl is not redistributed with rankset; set {SCRIPT_ENV} to its "
            "path to compare with it live (the committed outputs are compared always)"
        )
    return Path(named)


def write_inputs(case: Case, folder: Path) -> tuple[Path, Path]:
    """Write the case's qrels and run into ``folder``; return their paths."""
    qrels, run = folder / f"qrels.{case.seed}", folder / f"run.{case.seed}"
    qrels.write_text(case.qrels, encoding="utf-8")
    run.write_text(case.run, encoding="utf-8")
    return qrels, run


def fill(arguments: list[str], qrels: Path, run: Path) -> list[str]:
    """Put the paths in an argument list of :meth:`Case.argument_sets`."""
    names = {"QRELS": str(qrels), "RUN": str(run)}
    return [names.get(argument, argument) for argument in arguments]


def run_script(script: Path, arguments: list[str]) -> tuple[int, str]:
    """Run the script; return its status and standard output."""
    done = subprocess.run(
        ["perl", str(script), *arguments], capture_output=True, text=True, check=False
    )
    return done.returncode, done.stdout


def _write_cases(script: Path) -> None:
    records = []
    with tempfile.TemporaryDirectory() as folder:
        for seed in range(CASE_COUNT):
            case = generate(seed)
            qrels, run = write_inputs(case, Path(folder))
            outputs = {
                name: run_script(script, fill(arguments, qrels, run))[1]
                for name, arguments in case.argument_sets().items()
            }
            records.append(
                {
                    "seed": seed,
                    "gains": list(case.gains),
                    "qrels": case.qrels,
                    "run": case.run,
                    "outputs": outputs,
                }
            )
    CASES_FILE.parent.mkdir(parents=True, exist_ok=True)
    with gzip.GzipFile(CASES_FILE, "wb", mtime=0) as handle:
        for record in records:
            handle.write((json.dumps(record, sort_keys=True) + "\n").encode("utf-8"))


if __name__ == "__main__":
    _write_cases(Path(os.environ.get(SCRIPT_ENV) or sys.exit(f"set {SCRIPT_ENV}")))
