"""Regenerate ``reference.json``: autojudge-evaluate's output on the small boards here.

Run it with the reference tool installed (PyPI ``autojudge-evaluate`` 1.1.0, MIT):

    RANKSET_AUTOJUDGE=/path/to/bin/auto-judge-evaluate python regenerate.py

Each case of :data:`CASES` names the judge files and the options; ``command`` turns them
into the tool's command line, whose ``--output`` JSONL (ten significant digits) is kept
as the case's ``rows``. ``tests/label_quality/test_meta_evaluation.py`` compares rankset
with these rows, and runs the tool live through the same ``command`` when it can.

The boards: ``truth.txt`` (12 runs r01..r12, topics t1..t5, ndcg@10 and map, values
rounded to one decimal so that many tie; r05's ndcg@10 aggregate row is 0.95, not the
mean of its topics), ``truth_trec_eval/`` (the same truth, one trec_eval file per run),
``judge_a.txt`` (a noisier copy) and ``judge_b.txt`` (lacks r12, r03's topic t5 and
every t1 row; names an extra run x99; its aggregate rows still count t1).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
BASE = ["kendall", "pearson", "spearman", "tauap_b", "tau_gap"]
BOTH = ["judge_a.txt", "judge_b.txt"]
CASES: dict[str, dict[str, Any]] = {
    "error": {"judges": ["judge_a.txt"], "options": {"on_missing": "error"}},
    "error_trec_eval_truth": {
        "judges": ["judge_a.txt"],
        "options": {"on_missing": "error", "truth": "truth_trec_eval", "truth_format": "trec_eval"},
    },
    "skip": {"judges": BOTH, "options": {"on_missing": "skip"}},
    "default": {"judges": BOTH, "options": {"on_missing": "default"}},
    "skip_without_top_k": {"judges": BOTH, "options": {"on_missing": "skip", "correlations": BASE}},
    "default_without_top_k": {
        "judges": BOTH,
        "options": {"on_missing": "default", "correlations": BASE},
    },
    "shared_runs": {
        "judges": BOTH,
        "options": {"on_missing": "default", "correlations": BASE, "only_shared_runs": True},
    },
    "shared_topics": {
        "judges": BOTH,
        "options": {"on_missing": "skip", "only_shared_topics": True},
    },
    "topics": {"judges": BOTH, "options": {"on_missing": "skip", "topics": ["t2", "t3", "t5"]}},
    "drop_aggregate": {"judges": BOTH, "options": {"on_missing": "skip", "drop_aggregate": True}},
    "drop_truth_aggregate": {
        "judges": BOTH,
        "options": {"on_missing": "default", "drop_aggregate": "truth", "correlations": BASE},
    },
    "drop_judge_aggregate": {
        "judges": BOTH,
        "options": {
            "on_missing": "skip",
            "drop_aggregate": "judges",
            "correlations": ["kendall@5"],
        },
    },
}


def command(tool: str, case: dict[str, Any], output: Path, folder: Path = HERE) -> list[str]:
    """The reference tool's command line for ``case``."""
    options = case["options"]
    line = [
        tool, "meta-evaluate",
        "--truth-leaderboard", str(folder / options.get("truth", "truth.txt")),
        "--truth-format", options.get("truth_format", "ir_measures"),
        "--eval-format", "ir_measures",
        "--on-missing", options["on_missing"],
        "--output", str(output), "--silent",
    ]  # fmt: skip
    for name in options.get("correlations", []):
        line += ["--correlation", name]
    for topic in options.get("topics", []):
        line += ["--topic", topic]
    if options.get("only_shared_topics"):
        line.append("--only-shared-topics")
    if options.get("only_shared_runs"):
        line.append("--only-shared-runs")
    if options.get("drop_aggregate") in (True, "truth"):
        line.append("--truth-drop-aggregate")
    if options.get("drop_aggregate") in (True, "judges"):
        line.append("--eval-drop-aggregate")
    return line + [str(folder / judge) for judge in case["judges"]]


def run(tool: str, case: dict[str, Any], folder: Path = HERE) -> list[dict[str, Any]]:
    """Run the reference tool on ``case``; its output rows."""
    with tempfile.TemporaryDirectory() as scratch:
        output = Path(scratch) / "out.jsonl"
        subprocess.run(
            command(tool, case, output, folder),
            check=True,
            capture_output=True,
            stdin=subprocess.DEVNULL,
            cwd=scratch,
            env=os.environ | {"NLTK_DATA": os.environ.get("NLTK_DATA", "/tmp/nltk_stub")},
            timeout=300,
        )
        lines = output.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


#: The per-topic correlations come from the tool's Python API (its command line has no
#: option for them): ``LeaderboardEvaluator.evaluate_per_topic``, run by the tool's Python.
PER_TOPIC_SCRIPT = """
import json, sys
from pathlib import Path
from autojudge_evaluate.evaluation import LeaderboardEvaluator
folder, on_missing = Path(sys.argv[1]), sys.argv[2]
out = []
for judge in sys.argv[3:]:
    evaluator = LeaderboardEvaluator(folder / "truth.txt", on_missing=on_missing)
    for (truth_m, eval_m), topics in evaluator.evaluate_per_topic(folder / judge).items():
        for topic, values in topics.items():
            out.append({"Judge": judge[:-4], "TruthMeasure": truth_m, "EvalMeasure": eval_m,
                        "topic": topic, **values})
print(json.dumps(out))
"""


def per_topic(tool: str, on_missing: str, judges: list[str]) -> list[dict[str, Any]]:
    """The tool's per-topic correlations of ``judges`` (full precision)."""
    python = Path(tool).with_name("python")
    done = subprocess.run(
        [str(python), "-c", PER_TOPIC_SCRIPT, str(HERE), on_missing, *judges],
        check=True,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env=os.environ | {"NLTK_DATA": os.environ.get("NLTK_DATA", "/tmp/nltk_stub")},
        timeout=300,
    )
    rows: list[dict[str, Any]] = json.loads(done.stdout.splitlines()[-1])
    return rows


def main() -> None:
    tool = os.environ.get("RANKSET_AUTOJUDGE", "auto-judge-evaluate")
    reference: dict[str, Any] = {
        name: case | {"rows": run(tool, case)} for name, case in CASES.items()
    }
    reference["per_topic_skip"] = {
        "judges": BOTH,
        "options": {"on_missing": "skip", "per_topic": True},
        "rows": per_topic(tool, "skip", BOTH),
    }
    out = HERE / "reference.json"
    out.write_text(json.dumps(reference, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {out}", file=sys.stderr)
    shared = Path(os.environ.get("RANKSET_SHARED_DATA", HERE.parents[3] / "shared" / "data"))
    if shared.is_dir():
        dl = {year: trec_dl(tool, shared, year) for year in ("dl19", "dl20")}
        out = HERE / "reference_dl.json"
        out.write_text(json.dumps(dl, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {out}", file=sys.stderr)


#: The LLM label sets of ``llm_qrels_dl/arabzadeh_clarke`` (never copied here).
LABEL_SETS = (
    "umbrela-gpt4o", "umbrela-gpt4", "exam-max-gpt4o", "binary-gpt4o", "binary-gpt4",
    "binary-llama3.2",
)  # fmt: skip
DL_METRICS = ("ndcg@10", "P@10", "map")


def trec_dl_runs(shared: Path, year: str) -> dict[str, Path]:
    """DL19's 21 runs (as tests/pages/test_analysis.py) or DL20's 17."""
    first = shared / "rank_llm_dl_runs" / "first_stage"
    reranked = shared / "rank_llm_dl_runs" / "reranked"
    paths = [first / f"bm25.{year}.trec.gz"]
    paths += sorted(p for p in first.glob(f"*.{year}.trec.gz") if p.name != paths[0].name)
    paths += sorted(reranked.glob(f"*.{year}.trec.gz"))
    if year == "dl19":
        paths += sorted((shared / "trec_dl_official" / "runs_dl19_complete").glob("*.run.gz"))
    return {p.name.split(f".{year}")[0].split(".run")[0]: p for p in paths}


def trec_dl_labels(shared: Path, year: str) -> tuple[Path, dict[str, Path]]:
    """NIST's qrels and the six LLM label sets of ``year``."""
    nist = shared / "anserini_qrels_topics" / "qrels" / f"qrels.{year}-passage.txt.gz"
    llm = shared / "llm_qrels_dl" / "arabzadeh_clarke"
    return nist, {s: llm / f"qrels.{year}-passage.{s}.txt.gz" for s in LABEL_SETS}


def trec_dl(tool: str, shared: Path, year: str) -> dict[str, Any]:
    """rankset's per-topic boards of ``year``, correlated by the reference tool."""
    import polars as pl

    import rankset

    runs = trec_dl_runs(shared, year)
    nist, judges = trec_dl_labels(shared, year)
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        for name, labels in {"truth": nist, **judges}.items():
            result = rankset.evaluate(runs, labels, list(DL_METRICS), confidence=None)
            frame = result.per_query.drop_nulls("value").select(
                "system", "query_id", "metric", pl.col("value").map_elements(repr, pl.String)
            )
            lines = ["\t".join(row) for row in frame.iter_rows()]
            (folder / f"{name}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
        case = {
            "judges": [f"{name}.txt" for name in judges],
            "options": {"on_missing": "error", "drop_aggregate": True},
        }
        rows = run(tool, case, folder)
    return {"runs": sorted(runs), "metrics": list(DL_METRICS), "rows": rows}


if __name__ == "__main__":
    main()
