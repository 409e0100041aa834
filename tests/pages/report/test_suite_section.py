"""The report's "Collections" section, the suite-only page and ``evaluate --suite --report``.

The suite: the sample's runs over the sample's qrels and over derived qrels where BM25's
first three documents are relevant (BM25 ranks first there), plus a run only the first
collection has (tests/_support/suite_cases.py). Expected means come from separate
``rankset.evaluate`` calls, expected ranks from plain Python.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import rankset
from _support.report_cases import QRELS, RUNS, fmt
from _support.suite_cases import (
    SUITE_METRICS,
    SUITE_OPTIONS,
    collections,
    plain_ranks,
    write_suite,
)
from rankset.comparison import SuiteResult, evaluate_suite_toml
from rankset.errors import ParameterError
from rankset.pages.report import build_suite_report, report, suite_report
from rankset.pages.report._page import build_report


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    made = tmp_path_factory.mktemp("suite")
    write_suite(made)
    return made


@pytest.fixture(scope="module")
def suite(folder: Path) -> SuiteResult:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # top5 is missing from one collection: warned
        return evaluate_suite_toml(folder / "SUITE.toml", **SUITE_OPTIONS)


@pytest.fixture(scope="module")
def expected(folder: Path) -> dict[str, dict[str, dict[str, float]]]:
    """``{metric: {collection: {system: mean}}}`` from one evaluate call per collection."""
    out: dict[str, dict[str, dict[str, float]]] = {m: {} for m in SUITE_METRICS}
    for name, (runs, qrels) in collections(folder).items():
        alone = rankset.evaluate(runs, qrels, SUITE_METRICS, **SUITE_OPTIONS)
        for system, metric, mean in alone.summary.select("system", "metric", "mean").rows():
            out[metric].setdefault(name, {})[system] = mean
    return out


def chart_spec(page: str, element_id: str) -> dict[str, Any]:
    """The Vega-Lite spec embedded in ``element_id``."""
    start = page.index(f'vegaEmbed(document.getElementById("{element_id}"), ')
    spec, _ = json.JSONDecoder().raw_decode(page[start:].split(", ", 1)[1])
    return dict(spec)


def chart_rows(page: str, element_id: str) -> list[dict[str, Any]]:
    """The inline rows of the chart embedded in ``element_id``."""
    spec = chart_spec(page, element_id)
    rows: list[dict[str, Any]] = []
    for values in spec.get("datasets", {}).values():
        rows += values
    return rows + spec.get("data", {}).get("values", [])


def section_of(page: str, heading: str) -> str:
    return page.split(f"<h2>{heading}</h2>", 1)[1].split("</section>", 1)[0]


def test_the_heatmap_cells_are_each_collections_means_and_ranks(
    suite: SuiteResult, expected: dict[str, dict[str, dict[str, float]]]
) -> None:
    page = build_suite_report(suite)
    for number, metric in enumerate(SUITE_METRICS):
        rows = chart_rows(page, f"chart-suite-{number}")
        cells = {(row["collection"], row["system"]): row for row in rows}
        wanted = expected[metric]
        assert set(cells) == {(c, s) for c, means in wanted.items() for s in means}
        for collection, means in wanted.items():
            # ranks among the systems every collection has (top5 is only in "sample")
            ranks = plain_ranks({s: v for s, v in means.items() if s != "top5"})
            for system, mean in means.items():
                cell = cells[(collection, system)]
                assert cell["mean"] == pytest.approx(mean, abs=1e-12)
                if system == "top5":
                    assert cell["rank"] is None
                    assert cell["rank_text"] == "–"
                else:
                    assert cell["rank"] == ranks[system]
                    assert cell["rank_text"] == f"{ranks[system]:g}"
    # the ranks differ between the collections: BM25 is first on the boosted one
    assert expected["ndcg@10"]["boosted"]["bm25"] > expected["ndcg@10"]["boosted"]["rerank"]
    assert expected["ndcg@10"]["sample"]["bm25"] < expected["ndcg@10"]["sample"]["rerank"]


def test_the_aggregate_table_and_the_missing_system(
    suite: SuiteResult, expected: dict[str, dict[str, dict[str, float]]]
) -> None:
    section = section_of(build_suite_report(suite), "Collections")
    assert "2 collections: sample (40 queries), boosted (20 queries)." in section
    assert "Missing: top5 is not in boosted" in section
    rows = re.findall(r'<tr data-metric="([^"]+)"><th scope="row">([^<]+)</th>(.*?)</tr>', section)
    cells = {(m, s): re.findall(r"<td[^>]*>(.*?)</td>", rest)[1:] for m, s, rest in rows}
    assert len(cells) == 3 * len(SUITE_METRICS)
    for metric in SUITE_METRICS:
        means = expected[metric]
        # macro mean, mean rank and Borda by hand, over bm25 and rerank
        by_collection = [plain_ranks({s: means[c][s] for s in ("bm25", "rerank")}) for c in means]
        for system in ("bm25", "rerank"):
            n, macro, _, _, mean_rank, _, borda = cells[(metric, system)]
            assert n == "2"
            assert macro == fmt((means["sample"][system] + means["boosted"][system]) / 2)
            assert float(mean_rank) == sum(r[system] for r in by_collection) / 2
            assert float(borda) == sum(2 - r[system] for r in by_collection)
        n, macro, *rest = cells[(metric, "top5")]
        assert n == "1"
        assert macro == "–"
        assert set(rest) == {"–"}


def test_the_per_collection_tables_hold_every_mean(
    suite: SuiteResult, expected: dict[str, dict[str, dict[str, float]]]
) -> None:
    section = section_of(build_suite_report(suite), "Per collection")
    for collection in ("sample", "boosted"):
        table = section.split(f'data-collection="{collection}"', 1)[1].split("</table>", 1)[0]
        for system, rest in re.findall(r'<th scope="row">([^<]+)</th>(.*?)</tr>', table):
            means = re.findall(r'<td class="num" data-rank="[^"]*">([^ ]+) ', rest)
            assert means == [fmt(expected[m][collection][system]) for m in SUITE_METRICS]


def test_the_report_has_a_collections_section_of_its_metrics(
    suite: SuiteResult, tmp_path: Path
) -> None:
    out = report(
        RUNS,
        QRELS,
        metrics=["ap", "recall@100", "ndcg@10"],
        out=tmp_path / "r.html",
        scale="trec_dl",
        n_resamples=50,
        worst=0,
        suite=suite,
        progress=False,
    ).path
    page = out.read_text(encoding="utf-8")
    assert '<a href="#collections">Collections</a>' in page
    section = section_of(page, "Collections")
    # the report's metrics the suite has, in the report's order: ap, then ndcg@10
    assert re.findall(r'id="(chart-suite-\d+)"', section) == ["chart-suite-0", "chart-suite-1"]
    titles = [chart_spec(page, f"chart-suite-{n}")["title"]["text"] for n in range(2)]
    assert titles == ["ap by collection", "ndcg@10 by collection"]
    assert set(re.findall(r'<tr data-metric="([^"]+)"', section)) == {"ap", "ndcg@10"}


def test_only_the_first_four_metrics_are_drawn(folder: Path) -> None:
    metrics = ["ndcg@10", "ap", "rr", "recall@100", "precision@5"]
    runs, qrels = collections(folder)["boosted"]
    small = rankset.evaluate_suite(
        {"one": (runs, qrels), "two": (runs, qrels)}, metrics, confidence=None, scale="trec_dl"
    )
    section = section_of(build_suite_report(small), "Collections")
    assert len(re.findall(r'id="chart-suite-\d+"', section)) == 4
    assert "Charts for the first 4 metrics; the table has all." in section
    assert 'data-metric="precision@5"' in section


def test_a_suite_without_the_reports_metrics_says_what_it_has(suite: SuiteResult) -> None:
    result = rankset.evaluate(RUNS, QRELS, ["recall@100"], scale="trec_dl", confidence=None)
    section = section_of(build_report(result, suite=suite), "Collections")
    assert "None of this report's metrics was evaluated over the collections" in section
    assert "the suite has ndcg@10, ap, rr" in section
    assert "chart-suite-" not in section


def test_suite_report_writes_the_page_and_refuses_what_is_no_suite(
    suite: SuiteResult, tmp_path: Path
) -> None:
    path = suite_report(suite, out=tmp_path / "s.html", title="<b>suite</b>")
    page = path.read_text(encoding="utf-8")
    assert "<title>&lt;b&gt;suite&lt;/b&gt;</title>" in page
    assert '<section id="collections">' in page
    assert '<section id="per-collection">' in page
    with pytest.raises(ParameterError, match="must be a SuiteResult"):
        suite_report(suite.per_collection, out=tmp_path / "t.html")  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match="must be a SuiteResult"):
        report(RUNS, QRELS, out=tmp_path / "u.html", suite={"a": 1})  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match="does not exist"):
        suite_report(suite, out=tmp_path / "no" / "s.html")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.html"]


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rankset.cli", "--quiet", "evaluate", *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_the_cli_writes_the_suite_page(
    folder: Path, tmp_path: Path, expected: dict[str, dict[str, dict[str, float]]]
) -> None:
    out = tmp_path / "suite.html"
    done = _cli("--suite", str(folder / "SUITE.toml"), "--scale", "trec_dl", "--report", str(out))
    assert done.returncode == 0, done.stderr
    assert "macro_mean" in done.stdout  # the tables are still printed
    page = out.read_text(encoding="utf-8")
    cells = {(r["collection"], r["system"]): r for r in chart_rows(page, "chart-suite-0")}
    assert cells[("boosted", "bm25")]["mean"] == pytest.approx(
        expected["ndcg@10"]["boosted"]["bm25"], abs=1e-12
    )
    assert cells[("boosted", "bm25")]["rank"] == 1.0
    assert "Missing: top5 is not in boosted" in page


def test_the_cli_names_a_bad_suite_file_and_writes_nothing(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('[collections.one]\nqrels = "nowhere.txt"\nruns = ["x.trec"]\n', "utf-8")
    out = tmp_path / "suite.html"
    for suite_file, wanted in (
        (bad, f"{bad}: 'collections.one.qrels' names"),
        (tmp_path / "absent.toml", f"{tmp_path / 'absent.toml'}: the suite file does not exist"),
    ):
        done = _cli("--suite", str(suite_file), "--report", str(out))
        assert done.returncode == 2
        assert wanted in done.stderr
        assert "Traceback" not in done.stderr
    assert not out.exists()
    done = _cli(*map(str, RUNS), "--qrels", str(QRELS), "--report", str(out))
    assert done.returncode == 2
    assert "give --suite SUITE.toml" in done.stderr
    done = _cli("--suite", str(bad), "--report", str(tmp_path / "no" / "s.html"))
    assert done.returncode == 2
    assert "does not exist; create it first" in done.stderr


def test_the_json_output_stays_json_with_a_page(folder: Path, tmp_path: Path) -> None:
    out = tmp_path / "suite.html"
    done = subprocess.run(
        [
            *(
                sys.executable,
                "-m",
                "rankset.cli",
                "evaluate",
                "--suite",
                str(folder / "SUITE.toml"),
            ),
            "--scale",
            "trec_dl",
            "--json",
            "--report",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    aggregate = pl.DataFrame(json.loads(done.stdout)["aggregate"])
    assert aggregate.height == 3 * len(SUITE_METRICS)
    assert f"wrote {out}" in done.stderr
