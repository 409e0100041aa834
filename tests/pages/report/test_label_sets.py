"""The report's "Label sets" section: other labels of the same pairs against the reference.

Its kappas equal scikit-learn's and its Kendall tau-b SciPy's, both computed here from
the label files and from per-label-set means; its refusals come before any work.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import polars as pl
import pytest
from scipy.stats import kendalltau
from sklearn.metrics import cohen_kappa_score

import rankset
from _support.report_cases import QRELS, RUNS, chart_ids, fmt
from _support.trec_files import read_qrels
from rankset.errors import ParameterError
from rankset.pages.report import report


def _judge(tmp_path: Path) -> Path:
    """The sample's labels with every seventh grade moved by one: a judge that errs."""
    qrels = read_qrels(QRELS)
    moved = pl.when(pl.col("grade") > 0).then(pl.col("grade") - 1).otherwise(1)
    judge = qrels.with_row_index().with_columns(
        pl.when(pl.col("index") % 7 == 6).then(moved).otherwise(pl.col("grade")).alias("grade")
    )
    path = tmp_path / "llm-judge.txt"
    judge.drop("index").write_csv(path, separator=" ", include_header=False)
    return path


def _section(page: str) -> str:
    start = page.index("<h2>Label sets</h2>")
    end = page.find("<h2>", start + 1)
    return page[start : end if end > 0 else len(page)]


def _cells(section: str, row_header: str) -> list[str]:
    """The cells of every row headed ``row_header``, in page order."""
    rows = re.findall(rf'<th scope="row">{re.escape(row_header)}</th>(.*?)</tr>', section)
    assert rows, row_header
    return [html.unescape(c) for row in rows for c in re.findall(r"<td[^>]*>(.*?)</td>", row)]


def test_the_section_shows_kappas_and_tau_from_independent_references(tmp_path: Path) -> None:
    judge = _judge(tmp_path)
    out = report(
        RUNS,
        QRELS,
        metrics=["ndcg@10"],
        label_sets={"llm": judge},
        out=tmp_path / "r.html",
        n_resamples=50,
        scale="trec_dl",
    ).path
    page = out.read_text(encoding="utf-8")
    section = _section(page)
    assert "<code>qrels</code>" in section  # the reference, named after its file
    reference = read_qrels(QRELS).sort("query_id", "doc_id")
    other = read_qrels(judge).sort("query_id", "doc_id")
    kappa = cohen_kappa_score(reference["grade"], other["grade"])
    quadratic = cohen_kappa_score(reference["grade"], other["grade"], weights="quadratic")
    cells = _cells(section, "llm")  # two rows headed llm: agreement (11 cells), then order
    agreement_cells, order_cells = cells[:11], cells[11:]
    assert agreement_cells[0] == f"{reference.height:,}"  # shared pairs
    assert agreement_cells[4] == fmt(kappa)
    assert agreement_cells[6] == fmt(quadratic)
    means = {
        name: rankset.evaluate(RUNS, labels, ["ndcg@10"], confidence=None).summary.sort("system")
        for name, labels in (("qrels", QRELS), ("llm", judge))
    }
    tau = kendalltau(means["qrels"]["mean"], means["llm"]["mean"]).statistic
    assert order_cells[1] == fmt(tau)
    assert {"chart-stability", "chart-confusion"} <= chart_ids(page)


def test_one_system_shows_agreement_without_an_order(tmp_path: Path) -> None:
    out = report(
        RUNS[:1],
        QRELS,
        metrics=["ndcg@10"],
        label_sets={"llm": _judge(tmp_path)},
        out=tmp_path / "r.html",
        n_resamples=50,
        scale="trec_dl",
    ).path
    section = _section(out.read_text(encoding="utf-8"))
    assert "One system: no order of systems to compare." in section
    assert "Kendall" not in section


def test_label_set_names_are_escaped(tmp_path: Path) -> None:
    out = report(
        RUNS,
        QRELS,
        metrics=["ndcg@10"],
        label_sets={"<b>judge</b>": _judge(tmp_path)},
        out=tmp_path / "r.html",
        n_resamples=50,
        scale="trec_dl",
    ).path
    section = _section(out.read_text(encoding="utf-8"))
    assert "&lt;b&gt;judge&lt;/b&gt;" in section
    assert "<b>judge</b>" not in section


@pytest.mark.parametrize(
    ("labels", "label_sets", "message"),
    [
        (None, {"llm": QRELS}, "needs 'labels'"),
        (QRELS, {"qrels": QRELS}, "names 'qrels', the name of the reference"),
        (QRELS, [QRELS], "must be a mapping"),
    ],
)
def test_bad_label_sets_are_refused_before_any_work(
    tmp_path: Path, labels: Path | None, label_sets: object, message: str
) -> None:
    with pytest.raises(ParameterError, match=re.escape(message)):
        report(RUNS, labels, label_sets=label_sets, out=tmp_path / "r.html")  # type: ignore[arg-type]
    assert not (tmp_path / "r.html").exists()


def test_the_report_command_takes_repeated_qrels(tmp_path: Path) -> None:
    from rankset.cli import main

    judge = _judge(tmp_path)
    out = tmp_path / "r.html"
    args = ["report", *map(str, RUNS), "--qrels", str(QRELS), "--qrels", str(judge)]
    code = main([*args, "-m", "ndcg@10", "--scale", "trec_dl", "--n-resamples", "50", "-q",
                 "--out", str(out)])  # fmt: skip
    assert code == 0
    section = _section(out.read_text(encoding="utf-8"))
    assert '<th scope="row">llm-judge</th>' in section  # named after its file
    reference = read_qrels(QRELS).sort("query_id", "doc_id")
    other = read_qrels(judge).sort("query_id", "doc_id")
    assert _cells(section, "llm-judge")[4] == fmt(
        cohen_kappa_score(reference["grade"], other["grade"])
    )
