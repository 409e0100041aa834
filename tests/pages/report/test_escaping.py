"""Every user string (system names, query ids, query text, the title) reaches the page escaped."""

from __future__ import annotations

import html
import re
from pathlib import Path

from _support.report_cases import (
    SCRIPT_PAYLOAD,
    SCRIPT_TITLE_PAYLOAD,
    TITLE_PAYLOAD,
    without_scripts,
)


def test_user_strings_are_escaped(hostile_report: Path) -> None:
    page = hostile_report.read_text(encoding="utf-8")
    for payload in (SCRIPT_PAYLOAD, TITLE_PAYLOAD, SCRIPT_TITLE_PAYLOAD):
        assert payload not in page  # not in the tables, nor raw in the chart specs
    escaped = html.escape(SCRIPT_PAYLOAD)
    assert f'<th scope="row">{escaped}</th>' in page  # system name in a table
    assert f"<td>{escaped}</td>" in page  # query id in the worst-queries table
    assert f'<td class="text">{escaped}</td>' in page  # query text
    assert f"<td>{html.escape(TITLE_PAYLOAD)}</td>" in page
    assert "q&amp;3" in page
    # Nothing user-made reached a tag: the only elements are the report's own.
    assert not re.search(r"<img\b", without_scripts(page))
    assert len(re.findall(r"<script\b", page)) == page.count("</script>")
