"""Inputs and helpers of the report tests: the sample data, hostile strings, page parsing."""

from __future__ import annotations

import re
from pathlib import Path

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "sample"
RUNS = [SAMPLE / "bm25.trec", SAMPLE / "rerank.trec"]
QRELS = SAMPLE / "qrels.txt"
METRICS = ("ndcg@10", "ap", "recall@100", "ra_nwg@10", "proc@10", "pct_proc@10")
N_RESAMPLES = 300

SCRIPT_PAYLOAD = "<script>alert(1)</script>"
TITLE_PAYLOAD = "<img src=x onerror=document.title='pwned'>"
SCRIPT_TITLE_PAYLOAD = "<script>document.title='pwned2'</script>"


def fmt(value: float) -> str:
    """A number as the page must show it: four decimals, minus sign U+2212."""
    return f"{value:.4f}".replace("-", "−")


def without_scripts(page: str) -> str:
    return re.sub(r"<script\b[^>]*>.*?</script>", "", page, flags=re.S)


def chart_ids(page: str) -> set[str]:
    return set(re.findall(r'<div id="(chart-[^"]+)"', page))
