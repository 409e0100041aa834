"""The dashboard at scale: build time, peak memory, file size, and the page in Chromium.

    python benchmarks/dashboard_scale.py --systems 100 --queries 10000 --metrics 10 \
        --depth 20 --out /tmp/rankset-dashboard-scale [--seed 0] [--repeats 3]
        [--no-browser] [--no-build] [--profile]

Generates seeded Parquet runs (``--systems`` files of ``--queries`` queries, the top
``--depth`` of 60 candidates each, ranked by a noisy copy of their relevance, so the
systems differ a little and in a known order) and graded labels (about 30% of the
candidates judged, grades 0-3), then builds the dashboard through the public API,
``rankset.dashboard(runs, qrels, metrics=..., scale="trec_dl", progress=...)`` and
``.save(path)``, in a child process, and prints one JSON line:

- ``build_s``: wall seconds of the child's call and save (imports excluded), with
  ``stages``: each step its progress callback named, its seconds, the child's peak
  RSS (MiB) at its end and its CPU seconds (user + system, every thread);
- ``process_s``, ``cpu_s`` and ``peak_rss_mib``: the whole child's wall and CPU
  (user + system) seconds, imports included, and its peak RSS (``ru_maxrss`` of the
  child, read with ``os.wait4``), with ``load``: the machine's 1-minute load average
  before and after (the figures are only comparable on a quiet machine);
- ``bytes``: the written file; ``queries_in_page``: how many queries it holds;
- in headless Chromium (Playwright, the system ``/usr/bin/chromium``, a 1400 x 1000
  window), medians of ``--repeats`` fresh pages: ``paint_overview_s`` (navigation to
  the systems table drawn), ``paint_queries_s`` (navigation with ``#view=queries`` to
  the query list drawn), ``ready_s`` (navigation to ``data-ready``: the charts
  embedded too), and ``actions``: each filter or sort change made through the page's
  own controls, the milliseconds from the event to the script's redraw done
  (``script_ms``) and to the next frame after it (``frame_ms``: a ``requestAnimationFrame``
  then a task, so style, layout and paint are in).

``--profile`` also writes ``profile.txt`` (cProfile of the build, top 40 by cumulative
time) into ``--out``. ``--metrics N`` takes the first N of :data:`METRICS`. Not a test:
the figures depend on the machine; they are in ``benchmarks/README.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

#: The metrics, in the order ``--metrics N`` takes them (every one defined at depth 20).
METRICS = (
    "ndcg@10",
    "ap",
    "rr",
    "recall@100",
    "precision@10",
    "ndcg@5",
    "ndcg@20",
    "precision@5",
    "recall@10",
    "recall@20",
)
POOL = 60  # candidates per query
JUDGED = 0.3  # share of the candidates with a label
CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def generate(out: Path, systems: int, queries: int, depth: int, seed: int) -> list[Path]:
    """Write ``sys000.parquet``... and ``qrels.parquet`` into ``out``; return the runs."""
    rng = np.random.default_rng(seed)
    out.mkdir(parents=True, exist_ok=True)
    n = queries * POOL
    query = np.repeat(np.arange(queries), POOL)
    query_ids = np.char.add("q", np.arange(queries).astype(str))
    # distinct candidates per query: a random offset and a stride within a large space
    docs = (rng.integers(0, 10**7, size=queries)[:, None] + np.arange(POOL) * 7919).ravel()
    doc_ids = np.char.add("D", docs.astype(str))
    relevance = rng.random(n).reshape(queries, POOL)
    judged = relevance.ravel() < JUDGED
    pl.DataFrame(
        {
            "query_id": query_ids[query[judged]],
            "doc_id": doc_ids[judged],
            "grade": np.clip((relevance.ravel()[judged] * 13).astype(np.int64), 0, 3),
        }
    ).write_parquet(out / "qrels.parquet")
    paths = []
    for system in range(systems):
        noise = rng.normal(0.0, 0.25 + 0.5 * system / max(systems, 1), size=(queries, POOL))
        score = np.round(-relevance + noise, 4)
        top = np.argsort(-score, axis=1, kind="stable")[:, :depth]
        rows = (np.arange(queries)[:, None] * POOL + top).ravel()
        path = out / f"sys{system:03d}.parquet"
        pl.DataFrame(
            {
                "query_id": query_ids[query[rows]],
                "doc_id": doc_ids[rows],
                "score": score.ravel()[rows],
            }
        ).write_parquet(path)
        paths.append(path)
    return paths


_CHILD = r"""
import cProfile, io, json, pstats, resource, sys, time
from pathlib import Path
args = json.loads(sys.argv[1])
import rankset
stages = []
def cpu():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime
last = [None, time.perf_counter(), cpu()]
def progress(done, total, what):
    now, used = time.perf_counter(), cpu()
    what = what.split(":")[0] if "resamples" in what else what
    if what == last[0]:
        return
    if last[0] is not None:
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
        stages.append([last[0], round(now - last[1], 3), peak, round(used - last[2], 2)])
        with open("/proc/self/statm") as statm:  # resident now, after the step
            held = int(statm.read().split()[1]) * resource.getpagesize() // 2**20
        print(f"  {last[0]}: {now - last[1]:.1f} s ({used - last[2]:.1f} s CPU), peak {peak} "
              f"MiB, {held} MiB resident after", file=sys.stderr, flush=True)
    last[0], last[1], last[2] = what, now, used
start = time.perf_counter()
profiler = cProfile.Profile() if args["profile"] else None
if profiler: profiler.enable()
board = rankset.dashboard(
    {Path(p).stem: p for p in args["runs"]}, args["qrels"], metrics=args["metrics"],
    depth=args["depth"], scale="trec_dl", progress=progress,
)
board.save(args["page"])
if profiler:
    profiler.disable()
    text = io.StringIO()
    pstats.Stats(profiler, stream=text).sort_stats("cumulative").print_stats(40)
    Path(args["page"]).with_name("profile.txt").write_text(text.getvalue())
now = time.perf_counter()
if last[0] is not None and last[0] != "done":
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    stages.append([last[0], round(now - last[1], 3), peak, round(cpu() - last[2], 2)])
print(json.dumps({"build_s": round(now - start, 2), "stages": stages,
                  "queries_in_page": board.n_queries, "queries_total": board.n_queries_total}))
"""


def build(runs: list[Path], qrels: Path, page: Path, metrics: list[str], depth: int,
          profile: bool) -> dict[str, Any]:  # fmt: skip
    """Build the page in a child process; return its figures with wall and peak RSS."""
    args = json.dumps(
        {
            "runs": [str(p) for p in runs],
            "qrels": str(qrels),
            "page": str(page),
            "metrics": metrics,
            "depth": depth,
            "profile": profile,
        }
    )
    load_before = os.getloadavg()[0]
    start = time.perf_counter()
    child = subprocess.Popen(
        [sys.executable, "-c", _CHILD, args], stdout=subprocess.PIPE, env=os.environ.copy()
    )
    assert child.stdout is not None
    output = child.stdout.read()
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    elapsed = time.perf_counter() - start
    if child.returncode != 0:
        msg = f"the build failed with exit status {child.returncode}"
        raise SystemExit(msg)
    figures: dict[str, Any] = json.loads(output.decode().strip().splitlines()[-1])
    figures["process_s"] = round(elapsed, 2)
    figures["cpu_s"] = round(usage.ru_utime + usage.ru_stime, 1)
    figures["peak_rss_mib"] = round(usage.ru_maxrss / 1024)  # kilobytes on Linux
    figures["bytes"] = page.stat().st_size
    figures["load"] = [round(load_before, 1), round(os.getloadavg()[0], 1)]
    return figures


# The page's own controls, one change each: (name, element id, value, needs the view).
ACTIONS = [
    ("sort: B's largest losses first", "sort-order", "-fall"),
    ("sort: B - A smallest first", "sort-order", "diff"),
    ("sort: query id", "sort-order", "query"),
    ("sort: B - A largest first", "sort-order", "-diff"),
    ("filter: outcome losses", "filter-outcome", "losses"),
    ("filter: B worse by >= delta", "filter-delta-dir", "worse"),
    ("filter: quadrant", "filter-quadrant", "__first__"),
    ("filter: text '12'", "filter-text", "12"),
    ("clear filters", "clear-filters", None),
    ("metric: the second", "metric", "__second__"),
    ("system B: the last", "sys-b", "__last__"),
]

_ACT = """async ([id, value]) => {
  const node = document.getElementById(id);
  if (node.tagName === "SELECT") {
    const options = Array.from(node.options).map((o) => o.value).filter((v) => v);
    if (value === "__first__") { value = options[0]; }
    if (value === "__second__") { value = options[1]; }
    if (value === "__last__") { value = options[options.length - 1]; }
    if (value === undefined) { return null; }
  }
  const start = performance.now();
  if (value === null) { node.click(); }
  else {
    node.value = value;
    node.dispatchEvent(new Event(node.tagName === "INPUT" ? "input" : "change"));
  }
  const script = performance.now() - start;
  await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
  return [script, performance.now() - start, document.querySelectorAll(
    "#query-table tbody tr").length];
}"""


def browse(page: Path, repeats: int) -> dict[str, Any]:
    """Open the page ``repeats`` times in headless Chromium; time painting and changes."""
    from playwright.sync_api import sync_playwright

    overview, queries, ready = [], [], []
    actions: dict[str, list[tuple[float, float, int]]] = {}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        for _ in range(repeats):
            tab = browser.new_page(viewport={"width": 1400, "height": 1000})
            start = time.perf_counter()
            tab.goto(page.as_uri(), wait_until="commit")
            tab.wait_for_selector("#systems-table tbody tr", timeout=120_000)
            overview.append(time.perf_counter() - start)
            tab.wait_for_selector("body[data-ready]", timeout=120_000)
            ready.append(time.perf_counter() - start)
            assert tab.get_attribute("body", "data-ready") == "true", "the page failed"
            tab.close()
            tab = browser.new_page(viewport={"width": 1400, "height": 1000})
            start = time.perf_counter()
            tab.goto(page.as_uri() + "#view=queries", wait_until="commit")
            tab.wait_for_selector("#query-table tbody tr", timeout=120_000)
            queries.append(time.perf_counter() - start)
            tab.wait_for_selector("body[data-ready='true']", timeout=120_000)
            for name, element, value in ACTIONS:
                done = tab.evaluate(_ACT, [element, value])
                if done is not None:
                    actions.setdefault(name, []).append(tuple(done))
            tab.close()
        browser.close()

    def median(values: list[float]) -> float:
        return round(statistics.median(values), 3)

    return {
        "paint_overview_s": median(overview),
        "paint_queries_s": median(queries),
        "ready_s": median(ready),
        "actions": {
            name: {
                "script_ms": round(statistics.median(t[0] for t in times), 1),
                "frame_ms": round(statistics.median(t[1] for t in times), 1),
                "rows": times[-1][2],
            }
            for name, times in actions.items()
        },
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systems", type=int, default=100)
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--metrics", type=int, default=10, choices=range(1, len(METRICS) + 1))
    parser.add_argument("--depth", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", type=Path, default=Path("/tmp/rankset-dashboard-scale"))
    parser.add_argument("--no-build", action="store_true", help="reuse the page in --out")
    parser.add_argument("--no-browser", action="store_true")
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    page = args.out / "dashboard.html"
    figures: dict[str, Any] = {
        "systems": args.systems,
        "queries": args.queries,
        "metrics": args.metrics,
        "depth": args.depth,
    }
    if not args.no_build:
        start = time.perf_counter()
        runs = generate(args.out, args.systems, args.queries, args.depth, args.seed)
        figures["generate_s"] = round(time.perf_counter() - start, 1)
        metrics = list(METRICS[: args.metrics])
        figures |= build(runs, args.out / "qrels.parquet", page, metrics, args.depth, args.profile)
        print(json.dumps(figures), flush=True)
    if not args.no_browser:
        figures |= browse(page.resolve(), args.repeats)
        figures["bytes"] = page.stat().st_size
    print(json.dumps(figures, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
