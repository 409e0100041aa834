"""The HTML report at scale: wall time and peak memory of ``rankset report``.

    python benchmarks/report_scale.py --queries 200000 --systems 5 --out /tmp/rankset-report

Writes ``--systems`` seeded Parquet runs (``--depth`` documents per query, scores
rounded to 3 decimals, so ties occur) and Parquet labels (4 per query, grades 1-5, the
``rag5`` scale, so the diagnostic matrix is drawn), then runs the report's command line
once under GNU ``/usr/bin/time`` with the default metrics, 2,000 resamples and curves
to k = 20. Prints the wall time, the peak RSS and the page size, and checks that the
page says its per-query charts draw a sample. Not a test: the figures depend on the
machine; they are recorded in ``benchmarks/README.md``.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import polars as pl


def generate(out: Path, queries: int, systems: int, depth: int, seed: int) -> list[Path]:
    """Write the runs and labels; return the run paths (labels: ``qrels.parquet``)."""
    rng = np.random.default_rng(seed)
    out.mkdir(parents=True, exist_ok=True)
    query_ids = pl.Series(np.repeat(np.arange(queries), depth)).cast(pl.String)
    runs = []
    for system in range(systems):
        # A per-query offset shifts which documents each system retrieves.
        offset = np.repeat(rng.integers(0, 5, size=queries), depth)
        docs = (np.tile(np.arange(depth), queries) * 5 + system + offset) % (depth * 5)
        path = out / f"system{system}.parquet"
        pl.DataFrame(
            {
                "query_id": query_ids,
                "doc_id": pl.Series(docs).cast(pl.String).str.replace("^", "d"),
                "score": rng.random(queries * depth).round(3),
            }
        ).write_parquet(path)
        runs.append(path)
    labelled = np.tile(np.array([0, 7, 13, 21]), queries)
    pl.DataFrame(
        {
            "query_id": pl.Series(np.repeat(np.arange(queries), 4)).cast(pl.String),
            "doc_id": pl.Series(labelled).cast(pl.String).str.replace("^", "d"),
            "grade": rng.integers(1, 6, size=queries * 4),
        }
    ).write_parquet(out / "qrels.parquet")
    return runs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=200_000)
    parser.add_argument("--systems", type=int, default=5)
    parser.add_argument("--depth", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=Path("/tmp/rankset-report"))
    args = parser.parse_args()
    runs = generate(args.out, args.queries, args.systems, args.depth, args.seed)
    page = args.out / "report.html"
    command = [
        "/usr/bin/time",
        "-v",
        sys.executable,
        "-m",
        "rankset.cli",
        "report",
        *map(str, runs),
        "--qrels",
        str(args.out / "qrels.parquet"),
        "--out",
        str(page),
    ]
    finished = subprocess.run(command, capture_output=True, text=True, check=False)
    if finished.returncode != 0:
        print(finished.stderr[-3000:], file=sys.stderr)
        return 1
    wall = re.search(r"Elapsed \(wall clock\) time.*: (\S+)", finished.stderr)
    peak = re.search(r"Maximum resident set size \(kbytes\): (\d+)", finished.stderr)
    html = page.read_text(encoding="utf-8")
    sampled = "the per-query charts draw a sample" in html
    print(
        f"{args.queries:,} queries x {args.systems} systems (depth {args.depth}): "
        f"wall {wall.group(1) if wall else '?'}, "
        f"peak {int(peak.group(1)) / 1e6 if peak else float('nan'):.2f} GB, "
        f"page {len(html) / 1e6:.1f} MB, charts sampled: {sampled}"
    )
    return 0 if sampled or args.queries <= 2_000 else 1


if __name__ == "__main__":
    raise SystemExit(main())
