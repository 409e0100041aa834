"""Time ``rankset trec_eval`` against the trec_eval binary on the same files, side by side.

    python benchmarks/trec_eval_command.py --data /tmp/rankset-bench/msmarco \
        --binary /path/to/trec_eval-10.0/trec_eval [--runs run.trec,run-random.trec] \
        [--options "-q -m all_trec"] [--rankset-options "--trec-eval-version 9.0.8"]
        [--repeats 3]

``--data`` is a folder written by ``generate.py`` (``qrels.txt`` and the TREC run files).
Build the binary from NIST's source (``make`` in the unpacked ``trec_eval-10.0``). Each
command runs as a whole process ``--repeats`` times; the best CPU time (user + system of
the child), wall time and peak RSS are reported with rankset/binary ratios, and the two
outputs must be byte-identical (the script exits 1 otherwise). Not a test: numbers depend
on the machine.
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _measure(command: list[str], output: Path) -> tuple[float, float, int]:
    """Run ``command`` with stdout to ``output``; return its CPU s, wall s, peak RSS (KB)."""
    start = time.perf_counter()
    with output.open("wb") as handle:
        child = subprocess.Popen(command, stdout=handle)
        _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    if status != 0:
        raise SystemExit(f"{command[0]} failed with status {status}")
    return usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss


def _best(command: list[str], output: Path, repeats: int) -> tuple[float, float, int]:
    runs = [_measure(command, output) for _ in range(repeats)]
    return min(r[0] for r in runs), min(r[1] for r in runs), max(r[2] for r in runs)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--binary", type=Path, required=True)
    parser.add_argument("--runs", default="run.trec,run-random.trec")
    parser.add_argument("--options", default="-q -m all_trec")
    parser.add_argument(
        "--rankset-options",
        default="",
        help="flags for rankset only, e.g. --trec-eval-version 9.0.8 against a 9.0.8 binary",
    )
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    rankset = [
        str(Path(sys.executable).with_name("rankset")),
        "trec_eval",
        *shlex.split(args.rankset_options),
    ]
    options = shlex.split(args.options)
    qrels = args.data / "qrels.txt"
    identical = True
    with tempfile.TemporaryDirectory() as folder:
        for name in args.runs.split(","):
            run = args.data / name
            lines = sum(1 for _ in run.open("rb"))
            expected, got = Path(folder, "binary.out"), Path(folder, "rankset.out")
            inputs = [*options, str(qrels), str(run)]
            base = _best([str(args.binary), *inputs], expected, args.repeats)
            ours = _best([*rankset, *inputs], got, args.repeats)
            same = expected.read_bytes() == got.read_bytes()
            identical &= same
            printed = sum(1 for _ in expected.open("rb"))
            print(f"{name}: {lines:,} run lines, {printed:,} output lines, identical: {same}")
            for tool, (cpu, wall, rss) in (("trec_eval", base), ("rankset", ours)):
                print(
                    f"  {tool:<10} cpu {cpu:6.2f} s  wall {wall:6.2f} s  rss {rss / 1024:6.0f} MB"
                )
            print(
                f"  ratio      cpu {ours[0] / base[0]:6.2f}    wall {ours[1] / base[1]:6.2f}    "
                f"rss {ours[2] / base[2]:5.2f}  (rankset / trec_eval, {os.cpu_count()} cores)"
            )
    return 0 if identical else 1


if __name__ == "__main__":
    sys.exit(main())
