"""The pages on TREC DL19: wall time and size of the HTML report and the dashboard.

    python benchmarks/pages.py --systems 4 --repeats 3 --out /tmp/rankset-pages \
        [--shared ../shared] [--pages report,dashboard]

Builds, in this process, the report (``report(runs, qrels, out=...)``) and the dashboard
(``dashboard(runs, qrels, texts=..., queries=...)`` then ``.save``) of TREC DL 2019 passage
runs with each function's defaults, and prints one JSON line per page: ``page``,
``systems``, ``seconds`` (the median wall time of ``--repeats`` builds, each after one
warm-up build that is not counted; a build is the call plus writing the file),
``seconds_all``, ``bytes`` (the written file), ``peak_rss_mib`` (the process's peak RSS
after all its builds, ``ru_maxrss``: run one page per process to read it per page),
``options`` (what was passed beyond runs, labels, texts and queries: ``scale="trec_dl"``
only when the call failed without a scale, with the error) and ``splade_over_bm25`` (is
the splade first stage, against the bm25 baseline on nDCG@10, marked significant on the
page, and how that was read).

Inputs, under ``--shared`` (the folder holding ``data/``, default ``../shared`` beside the
repository; ``data/README.md`` there says what the files are):

- ``--systems 4``: BM25, SPLADE++ and RankVicuna-7B's top-100 reranking of each (the
  dashboard tests' ``DL19_RUNS``, same names);
- ``--systems 21``: every ``*.dl19.trec.gz`` of ``rank_llm_dl_runs/first_stage`` (6) and
  ``rank_llm_dl_runs/reranked`` (12) and the 3 complete official runs of
  ``trec_dl_official/runs_dl19_complete``, named by their file stems shortened (bm25 first,
  as the default baseline of both pages is the first system given);
- labels ``anserini_qrels_topics/qrels/qrels.dl19-passage.txt.gz``; the dashboard's query
  texts ``anserini_qrels_topics/topics/topics.dl19-passage.txt`` and its document texts a
  JSONL written once into ``--out`` from the BM25 and SPLADE++ top-100 passage texts and
  the judged DL19 passages, as the dashboard tests build it (``dl19_inputs``).

Works with both layouts of the package: ``rankset.report`` / ``rankset.dashboard`` as
packages (the report function returns the written path, the dashboard a ``Dashboard``)
and as functions of ``rankset.pages`` (a page object with ``.save`` and ``.html``, or a
path). Not a test: the figures depend on the machine.
"""

from __future__ import annotations

import argparse
import gzip
import html as html_text
import importlib
import importlib.util
import json
import os
import re
import resource
import statistics
import sys
import time
import types
from collections.abc import Callable
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

# The dashboard tests' four DL19 runs, labels, topics and texts (tests/pages/dashboard/
# tests/_support/dashboard_cases.py), relative to the shared data folder.
DL19_RUNS = {
    "bm25": "rank_llm_dl_runs/first_stage/bm25.dl19.trec.gz",
    "rankvicuna-bm25": "rank_llm_dl_runs/reranked/rankvicuna-7b-top100.over-bm25.dl19.trec.gz",
    "splade": "rank_llm_dl_runs/first_stage/splade-pp-ed.dl19.trec.gz",
    "rankvicuna-splade": (
        "rank_llm_dl_runs/reranked/rankvicuna-7b-top100.over-splade-pp-ed.dl19.trec.gz"
    ),
}
DL19_QRELS = "anserini_qrels_topics/qrels/qrels.dl19-passage.txt.gz"
DL19_TOPICS = "anserini_qrels_topics/topics/topics.dl19-passage.txt"
_DL19_TEXTS = (
    "rank_llm_dl_runs/passage_text/bm25.dl19.top100.json.gz",
    "rank_llm_dl_runs/passage_text/splade-pp-ed.dl19.top100.json.gz",
)
_DL19_JUDGED = "trec_dl_official/dl19_judged_passages_text.jsonl.gz"

# Short names of the first stages (the 4-system set's spelling: splade, not splade-pp-ed).
_FIRST = {"splade-pp-ed": "splade", "openai-ada2": "ada2"}
_RERANKERS = (  # file stem prefix -> name prefix
    ("rankvicuna-7b-top100.over-", "rankvicuna-"),
    ("rankvicuna-7b-top20.over-", "rankvicuna20-"),
    ("rankgpt-gpt-3.5-turbo-top100.over-", "rankgpt-"),
    ("vicuna-7b-v1.5-zeroshot-top100.over-", "vicuna-zeroshot-"),
)
BASELINE, SYSTEM, METRIC = "bm25", "splade", "ndcg@10"


def data_folder(shared: Path) -> Path:
    """The folder of the data: ``shared/data`` when there is one, else ``shared``."""
    return shared / "data" if (shared / "data").is_dir() else shared


def _stem(path: Path) -> str:
    name = path.name
    for suffix in (".gz", ".trec", ".run", ".dl19"):
        name = name.removesuffix(suffix)
    return name


def _short(stem: str) -> str:
    for prefix, short in _RERANKERS:
        if stem.startswith(prefix):
            first = stem.removeprefix(prefix)
            return short + _FIRST.get(first, first)
    return _FIRST.get(stem, stem)


def dl19_runs(data: Path, systems: int) -> dict[str, Path]:
    """The runs of the 4- or 21-system set, ``{name: path}``, bm25 first."""
    if systems == 4:
        return {name: data / path for name, path in DL19_RUNS.items()}
    files = [
        *sorted((data / "rank_llm_dl_runs" / "first_stage").glob("*.dl19.trec.gz")),
        *sorted((data / "rank_llm_dl_runs" / "reranked").glob("*.dl19.trec.gz")),
        *sorted((data / "trec_dl_official" / "runs_dl19_complete").glob("*.run.gz")),
    ]
    runs: dict[str, Path] = {}
    for path in files:
        name = _short(_stem(path))
        if name in runs:
            msg = f"two runs named {name!r}: {runs[name]} and {path}"
            raise SystemExit(msg)
        runs[name] = path
    if len(runs) != systems or BASELINE not in runs or SYSTEM not in runs:
        msg = f"expected {systems} DL19 runs with {BASELINE} and {SYSTEM}, found {list(runs)}"
        raise SystemExit(msg)
    return {BASELINE: runs.pop(BASELINE), **runs}


def dl19_texts(data: Path, out: Path) -> Path:
    """Write the passage texts the dashboard tests use (``dl19_inputs``) as JSONL."""
    texts = out / "dl19-passages.jsonl"
    seen: set[str] = set()
    with texts.open("w", encoding="utf-8") as target:
        for name in _DL19_TEXTS:
            with gzip.open(data / name, "rt", encoding="utf-8") as source:
                for query in json.load(source):
                    for hit in query["hits"]:
                        if hit["docid"] not in seen:
                            seen.add(hit["docid"])
                            target.write(
                                json.dumps({"doc_id": hit["docid"], "text": hit["content"]})
                            )
                            target.write("\n")
        with gzip.open(data / _DL19_JUDGED, "rt", encoding="utf-8") as source:
            for line in source:
                record = json.loads(line)
                if record["docid"] not in seen:
                    seen.add(record["docid"])
                    target.write(json.dumps({"doc_id": record["docid"], "text": record["doc"]}))
                    target.write("\n")
    return texts


# --- the two layouts of the package ----------------------------------------------------


def page_functions() -> tuple[str, Callable[..., Any], Callable[..., Any]]:
    """``(layout, report, dashboard)``: layout ``old`` (packages) or ``new`` (rankset.pages)."""
    import rankset

    layout = "new" if importlib.util.find_spec("rankset.pages") is not None else "old"
    functions = []
    for name in ("report", "dashboard"):
        value = getattr(rankset, name, None)
        if value is None or isinstance(value, types.ModuleType):
            # old: a package (the dashboard's is callable, the report's is not)
            module = importlib.import_module(
                f"rankset.pages.{name}" if layout == "new" else f"rankset.{name}"
            )
            value = getattr(module, name)
        functions.append(value)
    return layout, functions[0], functions[1]


def _saved(result: Any, path: Path) -> str | None:
    """Write what a page function returned to ``path`` unless it is written; return its HTML."""
    if isinstance(result, (str, os.PathLike)):
        written = Path(result)
        if written.resolve() != path.resolve():
            path.write_bytes(written.read_bytes())
        return None
    html = getattr(result, "html", None)
    if not path.exists():
        if hasattr(result, "save"):
            result.save(path)
        elif isinstance(html, str):
            path.write_text(html, encoding="utf-8")
        else:
            msg = f"cannot write a {type(result).__name__}"
            raise TypeError(msg)
    return html if isinstance(html, str) else None


def builder(page: str, function: Callable[..., Any], inputs: dict[str, Any]) -> Callable[..., Any]:
    """A function ``(path, **options) -> (returned object, html or None)`` that builds ``page``."""

    def build(path: Path, **options: Any) -> tuple[Any, str | None]:
        path.unlink(missing_ok=True)
        if page == "report":
            try:
                result = function(inputs["runs"], inputs["qrels"], out=path, **options)
            except TypeError as error:  # a layout where report() returns a page, no out=
                if "out" not in str(error):
                    raise
                result = function(inputs["runs"], inputs["qrels"], **options)
        else:
            result = function(
                inputs["runs"],
                inputs["qrels"],
                texts=inputs["texts"],
                queries=inputs["queries"],
                **options,
            )
        return result, _saved(result, path)

    return build


# --- is splade > bm25 on nDCG@10 marked significant? -----------------------------------


class _Tables(HTMLParser):
    """Every ``<table>``: its caption, header cells and rows of cell texts."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: list[dict[str, Any]] = []
        self._cell: list[str] | None = None
        self._caption: list[str] | None = None
        self._row: list[str] | None = None
        self._in_head = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self.tables.append({"caption": "", "head": [], "rows": []})
        elif not self.tables:
            return
        elif tag == "caption":
            self._caption = []
        elif tag == "thead":
            self._in_head = True
        elif tag == "tr":
            self._row = []
        elif tag in {"td", "th"}:
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if not self.tables:
            return
        table = self.tables[-1]
        if tag == "caption" and self._caption is not None:
            table["caption"] = "".join(self._caption).strip()
            self._caption = None
        elif tag == "thead":
            self._in_head = False
        elif tag in {"td", "th"} and self._cell is not None and self._row is not None:
            self._row.append("".join(self._cell).strip())
            self._cell = None
        elif tag == "tr" and self._row is not None:
            (table["head"] if self._in_head else table["rows"]).append(self._row)
            self._row = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)
        elif self._caption is not None:
            self._caption.append(data)


def _is_metric(name: Any) -> bool:
    return str(name).lower().replace("ndcg_cut_10", "ndcg@10") == METRIC


def report_significance(html: str) -> dict[str, Any]:
    """Read the report's comparison table (the rows against the default baseline)."""
    parser = _Tables()
    parser.feed(html)
    for table in parser.tables:
        head = table["head"][0] if table["head"] else []
        if "significant" not in head or "system" not in head or "metric" not in head:
            continue
        column = {name: i for i, name in enumerate(head)}
        for row in table["rows"]:
            if len(row) != len(head):
                continue
            if row[column["system"]] == SYSTEM and _is_metric(row[column["metric"]]):
                baseline = re.search(r"against the baseline\s+(\S+?),", table["caption"])
                return {
                    "significant": row[column["significant"]] == "✓",
                    "baseline": baseline.group(1) if baseline else None,
                    "delta": row[column.get("Δ", -1)] if "Δ" in column else None,
                    "p_adj": row[column["p (adjusted)"]] if "p (adjusted)" in column else None,
                    "how": (
                        "report HTML: the comparison table (headers system/metric/significant, "
                        "caption 'Each system against the baseline ...'), row splade / ndcg@10, "
                        "the 'significant' cell is a check mark"
                    ),
                }
    return {"significant": None, "how": "report HTML: no comparison row splade / ndcg@10 found"}


def dashboard_significance(html: str) -> dict[str, Any]:
    """Read the dashboard's embedded data: ``compare[bm25]``, the row splade / nDCG@10."""
    found = re.search(
        r'<script type="application/json" id="rankset-data">(.*?)</script>', html, re.DOTALL
    )
    if found is None:
        return {"significant": None, "how": "dashboard HTML: no rankset-data script element"}
    data = json.loads(found.group(1))
    compare = data.get("compare")
    if not isinstance(compare, dict) or BASELINE not in compare:
        keys = sorted(data) if isinstance(data, dict) else type(data).__name__
        return {"significant": None, "how": f"dashboard data: no compare[{BASELINE}] ({keys})"}
    for row in compare[BASELINE]:
        if row.get("system") == SYSTEM and _is_metric(row.get("metric")):
            return {
                "significant": bool(row.get("reject")),
                "baseline": BASELINE,
                "page_baseline": data.get("baseline"),
                "delta": row.get("delta"),
                "p_adj": row.get("p_adj"),
                "how": (
                    "dashboard HTML: JSON of <script id=rankset-data>, compare['bm25'] (the "
                    "comparisons with bm25 as baseline, the page's default), row splade / "
                    "ndcg@10, field 'reject' (p_adj < alpha after the correction)"
                ),
            }
    return {
        "significant": None,
        "how": f"dashboard data: no row splade / ndcg@10 in compare[{BASELINE}]",
    }


# --- the measurement -------------------------------------------------------------------


def _needs_scale(error: Exception) -> bool:
    return "scale" in f"{type(error).__name__} {error}".lower()


def measure(
    page: str, build: Callable[..., Any], out: Path, systems: int, repeats: int
) -> dict[str, Any]:
    """Time ``repeats`` builds of ``page`` after a warm-up; return its JSON line.

    When the warm-up fails for want of a grade scale, every build passes ``scale="trec_dl"``.
    """
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    path = out / f"{page}-{systems}.html"
    options: dict[str, Any] = {}
    note = None
    try:
        result, html = build(path)
    except Exception as error:
        if not _needs_scale(error):
            raise
        note = f"failed without a scale ({type(error).__name__}: {error}); scale='trec_dl' passed"
        options = {"scale": "trec_dl"}
        result, html = build(path, **options)
    seconds = []
    for _ in range(repeats):
        start = time.perf_counter()
        result, html = build(path, **options)
        seconds.append(time.perf_counter() - start)
    if html is None:
        html = path.read_text(encoding="utf-8")
    significance = (report_significance if page == "report" else dashboard_significance)(html)
    unreachable = re.search(
        r"With n_resamples=[^<>\"]*?rejects nothing[^<>\"]*?whatever the data\.", html
    )
    if unreachable:  # the page says its correction cannot reject at all
        significance["page_says"] = html_text.unescape(unreachable.group(0))
    line: dict[str, Any] = {
        "page": page,
        "systems": systems,
        "seconds": round(statistics.median(seconds), 3),
        "seconds_all": [round(s, 3) for s in seconds],
        "bytes": path.stat().st_size,
        "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "peak_rss_before_builds_mib": round(rss_before / 1024, 1),
        "options": options,
        "splade_over_bm25": significance,
        "returned": type(result).__name__,
    }
    if note:
        line["note"] = note
    for attribute in ("n_queries", "n_queries_total", "notes"):
        if hasattr(result, attribute):
            line[attribute] = getattr(result, attribute)
    return line


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared")
    parser.add_argument("--systems", type=int, choices=(4, 21), default=4)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", type=Path, required=True, help="folder for the pages and texts")
    parser.add_argument("--pages", default="report,dashboard", help="comma-separated")
    args = parser.parse_args()
    pages = [name.strip() for name in args.pages.split(",") if name.strip()]
    if not pages or set(pages) - {"report", "dashboard"} or args.repeats < 1:
        parser.error("--pages: report and/or dashboard; --repeats: 1 or more")
    data = data_folder(args.shared)
    args.out.mkdir(parents=True, exist_ok=True)

    import rankset

    layout, report, dashboard = page_functions()
    version = getattr(rankset, "__version__", None)
    print(f"rankset {version} from {rankset.__file__} ({layout} layout)", file=sys.stderr)
    runs = dl19_runs(data, args.systems)
    inputs: dict[str, Any] = {
        "runs": runs,
        "qrels": data / DL19_QRELS,
        "queries": data / DL19_TOPICS,
        "texts": dl19_texts(data, args.out) if "dashboard" in pages else None,
    }
    print(f"runs: {', '.join(runs)}", file=sys.stderr)
    functions = {"report": report, "dashboard": dashboard}
    for page in pages:
        line = measure(
            page, builder(page, functions[page], inputs), args.out, args.systems, args.repeats
        )
        line.update(layout=layout, rankset=str(Path(rankset.__file__).parent))
        print(json.dumps(line), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
