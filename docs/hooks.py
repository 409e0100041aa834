"""MkDocs hooks of the documentation site (``mkdocs.yml`` names this file).

The notebooks live in ``notebooks/`` beside ``docs/``, where Jupyter users find them; the
site takes them from there (mkdocs-jupyter executes and renders them), so there is one
copy of each. The docstrings cross-reference with Sphinx roles (``:func:`evaluate```),
which mkdocstrings leaves as text: the API pages show the name as code, without the role.
The Dashboard page embeds a dashboard of the bundled sample (``data/sample``): it is built
here, at every site build, so it always shows what this version of rankset draws.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "data" / "sample"
#: Where the site holds the sample's dashboard (``docs/dashboard.md`` links and frames it).
SAMPLE_DASHBOARD = "examples/sample-dashboard.html"
_SPHINX_ROLE = re.compile(r":(?:func|class|meth|mod|data|attr|exc|obj|const):(?=<code>)")


@event_priority(100)  # before mkdocs-jupyter looks for the notebooks among the files
def on_files(files: Files, config: Any) -> Files:
    """Add ``notebooks/*.ipynb`` to the site's files, under ``notebooks/``."""
    for notebook in sorted((ROOT / "notebooks").glob("*.ipynb")):
        files.append(
            File(
                f"notebooks/{notebook.name}",
                src_dir=str(ROOT),
                dest_dir=config["site_dir"],
                use_directory_urls=config["use_directory_urls"],
            )
        )
    files.append(File.generated(config, SAMPLE_DASHBOARD, content=sample_dashboard()))
    return files


def sample_dashboard() -> str:
    """Return the HTML of the sample's dashboard: what ``rankset dashboard`` writes.

    The same as ``rankset dashboard data/sample/bm25.trec data/sample/rerank.trec --qrels
    data/sample/qrels.txt --scale trec_dl --baseline bm25 --out dashboard.html`` with a
    title; the resampling is seeded, so every build embeds the same numbers.
    """
    from rankset import dashboard

    board = dashboard(
        {"bm25": SAMPLE / "bm25.trec", "rerank": SAMPLE / "rerank.trec"},
        SAMPLE / "qrels.txt",
        baseline="bm25",
        scale="trec_dl",
        title="rankset dashboard: the bundled sample",
    )
    return board.html


def on_page_content(html: str, page: Any, config: Any, files: Files) -> str:
    """Drop the Sphinx role before a cross-reference: ``:func:<code>x</code>``."""
    return _SPHINX_ROLE.sub("", html)
