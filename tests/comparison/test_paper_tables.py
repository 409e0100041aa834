"""comparison_table: LaTeX and Markdown tables whose numbers and marks are the frame's.

The numbers are read back from the text and compared with the comparison frame; the
marks with its ``reject`` column; LaTeX compiles when a TeX engine is on PATH.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import rankset
from rankset.cli import main
from rankset.comparison.all_pairs import compare_all
from rankset.comparison.paper_tables import _letter, comparison_table, latex_escape
from rankset.errors import ParameterError, SchemaError

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "sample"
SYSTEMS = ["bm25_v1", "dense & co", "rerank"]


def _frame(seed: int = 0) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for metric, shift in (("ndcg@10", 0.1), ("harm@10", -0.1)):
        base = rng.random(25)
        for j, system in enumerate(SYSTEMS):
            values = np.clip(base + shift * j + rng.normal(0, 0.05, 25), 0, 1)
            rows += [(system, f"q{i}", metric, float(v)) for i, v in enumerate(values)]
    return pl.DataFrame(rows, schema=["system", "query_id", "metric", "value"], orient="row")


def _latex_cells(text: str) -> dict[str, list[str]]:
    body = text.split(r"\midrule")[1].split(r"\bottomrule")[0]
    rows = {}
    for line in body.strip().splitlines():
        fields = re.split(r"(?<!\\)&", line.strip().removesuffix(r"\\"))
        name, *cells = [part.strip() for part in fields]
        rows[name] = cells
    return rows


def test_latex_numbers_bold_and_letters_are_the_frames() -> None:
    per_query = _frame()
    table = compare_all(per_query, tests=["t"])
    text = comparison_table(table, format="latex", decimals=3, label="tab:main")
    cells = _latex_cells(text)
    assert list(cells) == [r"(a) bm25\_v1", r"(b) dense \& co", "(c) rerank"]
    means = per_query.group_by("system", "metric").agg(pl.col("value").mean())
    letters = {"bm25_v1": "a", "dense & co": "b", "rerank": "c"}
    for (name, row), system in zip(cells.items(), SYSTEMS, strict=True):
        for cell, metric in zip(row, ["ndcg@10", "harm@10"], strict=True):
            number = float(re.search(r"\d+\.\d+", cell).group())  # type: ignore[union-attr]
            mean = means.filter(system=system, metric=metric)["value"][0]
            assert number == round(mean, 3), (name, metric)
            beaten = set(re.findall(r"\$\^\{(\w+)\}\$", cell)[0]) if "$^" in cell else set()
            expected = set()
            for other in SYSTEMS:
                rows = table.filter(
                    pl.col("metric") == metric,
                    pl.col("system").is_in([system, other]),
                    pl.col("baseline").is_in([system, other]),
                    pl.col("reject"),
                )
                for r in rows.iter_rows(named=True):
                    better = r["delta"] > 0 if metric == "ndcg@10" else r["delta"] < 0
                    winner = r["system"] if better else r["baseline"]
                    if winner == system:
                        expected.add(letters[other])
            assert beaten == expected, (system, metric)
    # best: highest ndcg (rerank), lowest harm (rerank: shift -0.1 per system)
    assert cells["(c) rerank"][0].startswith(r"\textbf{")
    assert cells["(c) rerank"][1].startswith(r"\textbf{")
    assert r"\label{tab:main}" in text


def test_markdown_against_a_baseline_uses_daggers_and_percent() -> None:
    per_query = _frame(1)
    table = rankset.compare(per_query, "bm25_v1", tests=["t"])
    text = comparison_table(table, baseline="bm25_v1", percent=True, decimals=1)
    lines = text.splitlines()
    assert lines[0] == "| system | ndcg@10 | harm@10 |"
    assert lines[2].startswith("| bm25_v1 | ")
    for row in table.iter_rows(named=True):
        line = next(line for line in lines if line.startswith(f"| {row['system']} |"))
        cell = line.split("|")[2 if row["metric"] == "ndcg@10" else 3]
        assert f"{row['mean'] * 100:.1f}" in cell
        mark = "†" if (row["delta"] > 0) == (row["metric"] == "ndcg@10") else "‡"
        assert (f"<sup>{mark}</sup>" in cell) == row["reject"]
    assert lines[-1].startswith("† significantly better")


def test_letters_and_escaping() -> None:
    assert [_letter(i) for i in (0, 25, 26, 27, 701, 702)] == ["a", "z", "aa", "ab", "zz", "aaa"]
    assert latex_escape(r"a_b&c%d$e#f{g}h~i^j\k") == (
        r"a\_b\&c\%d\$e\#f\{g\}h\textasciitilde{}i\textasciicircum{}j\textbackslash{}k"
    )


def test_bad_frames_are_refused() -> None:
    table = compare_all(_frame(2), tests=["t"])
    with pytest.raises(SchemaError, match="lacks the column"):
        comparison_table(table.drop("reject"))
    with pytest.raises(ParameterError, match="'test'"):
        comparison_table(table, test="wilcoxon")
    with pytest.raises(ParameterError, match="not in the comparison"):
        comparison_table(table, metrics=["ap"])
    with pytest.raises(ParameterError, match="'format'"):
        comparison_table(table, format="html")  # type: ignore[arg-type]


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="no TeX engine (pdflatex) on PATH")
def test_the_latex_table_compiles(tmp_path: Path) -> None:
    table = compare_all(_frame(3), tests=["t"])
    document = (
        "\\documentclass{article}\n\\usepackage{booktabs}\n\\begin{document}\n"
        + comparison_table(table, format="latex")
        + "\\end{document}\n"
    )
    (tmp_path / "t.tex").write_text(document, encoding="utf-8")
    done = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "t.tex"],
        cwd=tmp_path,
        capture_output=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout[-2000:]


def test_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    runs = [str(SAMPLE / "bm25.trec"), str(SAMPLE / "rerank.trec")]
    base = ["compare", *runs, "--qrels", str(SAMPLE / "qrels.txt"), "-m", "ndcg@10", "-q"]
    assert main([*base, "--all-pairs", "--n-resamples", "500", "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    result = rankset.evaluate(runs, SAMPLE / "qrels.txt", ["ndcg@10"], confidence=None)
    expected = compare_all(result, n_resamples=500).row(0, named=True)
    assert (row["system"], row["baseline"]) == ("rerank", "bm25")
    for column in ("delta", "p", "p_adj", "effect_size", "effect_ci_low"):
        assert row[column] == pytest.approx(expected[column], abs=1e-12), column
    assert main([*base, "--all-pairs", "--test", "randomized-tukey", "--format", "latex"]) == 0
    out = capsys.readouterr().out
    assert "(b) rerank & \\textbf{0.5768}$^{a}$" in out
    assert main(base) == 2
    assert "needs --baseline NAME, or --all-pairs" in capsys.readouterr().err
