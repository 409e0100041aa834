"""MkDocs hooks of the documentation site (``mkdocs.yml`` names this file).

The notebooks live in ``notebooks/`` beside ``docs/``, where Jupyter users find them; the
site takes them from there (mkdocs-jupyter executes and renders them), so there is one
copy of each. The docstrings cross-reference with Sphinx roles (``:func:`evaluate```),
which mkdocstrings leaves as text: the API pages show the name as code, without the role.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parent.parent
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
    return files


def on_page_content(html: str, page: Any, config: Any, files: Files) -> str:
    """Drop the Sphinx role before a cross-reference: ``:func:<code>x</code>``."""
    return _SPHINX_ROLE.sub("", html)
