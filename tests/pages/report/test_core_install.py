"""The core install (no extra) does the main jobs: the report, the dashboard, compare.

Each check runs in a fresh interpreter where vl-convert and scipy cannot be imported, as
after ``pip install -e .``.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

SAMPLE = Path(__file__).resolve().parents[3] / "data" / "sample"
INPUTS = [
    str(SAMPLE / "bm25.trec"),
    str(SAMPLE / "rerank.trec"),
    "--qrels",
    str(SAMPLE / "qrels.txt"),
]


def _cli_without_extras(tmp_path: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    code = textwrap.dedent(
        f"""
        import sys
        sys.modules["vl_convert"] = None
        sys.modules["scipy"] = None
        from rankset.cli import main
        raise SystemExit(main({list(argv)!r}))
        """
    )
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_the_report_inlines_vega_without_vl_convert(tmp_path: Path) -> None:
    done = _cli_without_extras(
        tmp_path, "report", *INPUTS, "-m", "ndcg@10", "--n-resamples", "200", "--out", "r.html"
    )
    assert done.returncode == 0, done.stderr
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    from rankset.charts import javascript_bundle

    assert javascript_bundle() in page  # Vega, Vega-Lite and vega-embed, inlined
    assert 'src="http' not in page
    assert "0.5768" in page  # rerank's ndcg@10 on the sample


def test_the_report_names_the_implied_scale_once(tmp_path: Path) -> None:
    # The sample's grades are 0-3: the labels imply trec_dl. The evaluation, the curves
    # and the diagnosis each read them; the user is told once.
    done = _cli_without_extras(
        tmp_path, "report", *INPUTS, "--n-resamples", "200", "--out", "r.html"
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("do not fit the default scale") == 1, done.stderr


def test_the_dashboard_needs_no_extra(tmp_path: Path) -> None:
    done = _cli_without_extras(tmp_path, "dashboard", *INPUTS, "--out", "d.html", "-q")
    assert done.returncode == 0, done.stderr
    assert "vegaEmbed(" in (tmp_path / "d.html").read_text(encoding="utf-8")


def test_compare_defaults_to_the_randomization_test_without_scipy(tmp_path: Path) -> None:
    done = _cli_without_extras(
        tmp_path, "compare", *INPUTS, "--baseline", "bm25", "-m", "ndcg@10", "--n-resamples", "500"
    )
    assert done.returncode == 0, done.stderr
    assert 'need scipy (pip install "rankset[stats]")' in done.stderr
    rows = [line.split() for line in done.stdout.splitlines() if line.startswith("rerank")]
    assert [row[2] for row in rows] == ["randomization"]
    # Asked for by name, the t-test says what to install.
    asked = _cli_without_extras(tmp_path, "compare", *INPUTS, "--baseline", "bm25", "--test", "t")
    assert asked.returncode == 2
    assert 'pip install "rankset[stats]"' in asked.stderr
