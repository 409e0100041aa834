"""Vega, Vega-Lite and vega-embed ship with rankset: HTML needs no extra and no network."""

from __future__ import annotations

import hashlib
import re
import subprocess
import sys
import textwrap
from importlib import resources
from pathlib import Path

import altair as alt
import pytest

from rankset import charts

VENDOR = resources.files("rankset").joinpath("_vendor")
# file, the version its build states (as the npm package published it)
BUILDS = {
    "vega.min.js": ("vega", re.compile(r'\.version="(\d+\.\d+\.\d+)"')),
    "vega-lite.min.js": ("vega-lite", re.compile(r'var n="(\d+\.\d+\.\d+)"')),
    "vega-embed.min.js": ("vega-embed", re.compile(r'const \w+="(\d+\.\d+\.\d+)"')),
}
README = VENDOR.joinpath("README.md").read_text(encoding="utf-8")


def _readme_row(name: str) -> list[str]:
    line = next(line for line in README.splitlines() if line.startswith(f"| `{name}`"))
    return [cell.strip(" `") for cell in line.strip("|").split("|")]


@pytest.mark.parametrize("name", sorted(BUILDS))
def test_each_build_is_the_one_its_readme_names(name: str) -> None:
    package, version_pattern = BUILDS[name]
    _, named_package, version, licence, digest = _readme_row(name)
    data = VENDOR.joinpath(name).read_bytes()
    assert named_package == package
    assert licence == "BSD-3-Clause"
    assert hashlib.sha256(data).hexdigest() == digest  # byte for byte as published
    match = version_pattern.search(data.decode("utf-8"))
    assert match is not None
    assert match.group(1) == version
    licence_text = VENDOR.joinpath(f"LICENSE-{package}").read_text(encoding="utf-8")
    assert "University of Washington Interactive Data Lab" in licence_text
    assert "Redistribution and use in source and binary forms" in licence_text


def test_the_vega_lite_build_reads_altairs_specs() -> None:
    # Altair writes specs for its schema's Vega-Lite; an older build would misdraw them.
    vendored = _readme_row("vega-lite.min.js")[2].split(".")
    wanted = alt.SCHEMA_VERSION.lstrip("v").split(".")
    assert vendored[0] == wanted[0], "update rankset/_vendor (see its README)"
    assert [int(part) for part in vendored[:2]] >= [int(part) for part in wanted[:2]]


def test_the_bundle_is_the_three_builds_in_order_without_a_module_loader() -> None:
    bundle = charts.javascript_bundle()
    starts = [bundle.index(VENDOR.joinpath(name).read_text()[:200]) for name in BUILDS]
    assert starts == sorted(starts)  # vega-embed reads the globals vega and vegaLite
    assert "sourceMappingURL" not in bundle  # no request for a map file nobody ships
    # RequireJS (the classic notebook) would take the builds as anonymous modules.
    assert bundle.startswith("(function (define, module, exports, require) {")
    assert "</script" not in bundle.lower()


def _run(code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_html_charts_and_the_offline_renderer_need_no_vl_convert(tmp_path: Path) -> None:
    done = _run(
        """
        import sys
        sys.modules["vl_convert"] = None  # as on the core install: import fails
        import altair as alt
        from rankset import charts
        from rankset.errors import MissingDependencyError
        chart = alt.Chart(alt.Data(values=[{"a": 1}])).mark_point().encode(x="a:Q")
        page = charts.save_chart(chart, "chart.html").read_text(encoding="utf-8")
        assert charts.javascript_bundle() in page
        charts.enable_offline()
        assert alt.renderers.active == "rankset_offline"
        try:
            charts.save_chart(chart, "chart.png")
        except MissingDependencyError as error:
            print(error)
        """,
        tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert 'pip install "rankset[render]"' in done.stdout  # PNG and SVG keep the extra


def test_import_rankset_reads_no_javascript(tmp_path: Path) -> None:
    done = _run(
        """
        import rankset, rankset.charts, rankset.pages.report
        from rankset.charts import _export
        print(_export.javascript_bundle.cache_info().currsize)
        """,
        tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["0"]
