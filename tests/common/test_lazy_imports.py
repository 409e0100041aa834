"""``import rankset`` and the command line's help load only what they use."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

HEAVY = ("polars", "pyarrow", "numpy", "altair")


def _loaded_after(code: str) -> list[str]:
    probe = f"{code}\nimport sys\nprint('loaded:', *(m for m in {HEAVY!r} if m in sys.modules))"
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    )
    return done.stdout.splitlines()[-1].split()[1:]  # what the help printed comes before


@pytest.mark.parametrize(
    "code",
    [
        "import rankset",
        "import rankset; rankset.RanksetError; rankset.__version__",
        "from rankset.evaluation import EvaluateOptions, DEFAULT_METRICS; EvaluateOptions(k=3)",
        # the parser of every subcommand, with its help text
        "from rankset.cli import _parser; _parser.build_parser().format_help()",
        "from rankset.cli import main\ntry:\n    main(['evaluate', '--help'])\n"
        "except SystemExit:\n    pass",
    ],
)
def test_nothing_heavy_is_loaded(code: str) -> None:
    assert _loaded_after(code) == []


def test_a_name_loads_its_layer_on_first_use() -> None:
    assert "polars" in _loaded_after("import rankset; rankset.evaluate")
    code = "import rankset; assert rankset.evaluate is rankset.evaluation.evaluate"
    assert "polars" in _loaded_after(code)


def test_every_public_name_resolves() -> None:
    import rankset
    import rankset.evaluation

    for module in (rankset, rankset.evaluation):
        missing = [name for name in module.__all__ if not hasattr(module, name)]
        assert missing == [], module.__name__
    assert {"evaluate", "cutoff_curves", "cluster"} <= set(dir(rankset.evaluation))
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        _ = rankset.evaluation.nothing  # type: ignore[attr-defined]


def test_the_trec_eval_drop_in_loads_no_numpy() -> None:
    data = Path(__file__).parents[1] / "data" / "trec_eval"
    arguments = ["trec_eval", "-q", "-m", "all_trec", str(data / "qrels.test")]
    arguments.append(str(data / "results.test"))
    code = (
        "import contextlib, io\nfrom rankset.cli import main\n"
        f"with contextlib.redirect_stdout(io.StringIO()):\n    main({arguments!r})"
    )
    assert _loaded_after(code) == ["polars"]  # of polars, pyarrow, numpy, altair


def test_the_evaluate_command_loads_no_numpy(tmp_path: Path) -> None:
    # it prints and writes no interval, so it draws none: numpy is the intervals' import
    # (and the numbering's of a run out of trec_eval's order: this one is in it)
    run, qrels, out = tmp_path / "run", tmp_path / "qrels", tmp_path / "per_query.parquet"
    lines = [f"q{q} Q0 d{d} {4 - d} {d / 2} bm25\n" for q in (1, 2) for d in (3, 2, 1)]
    run.write_text("".join(lines), encoding="utf-8")
    qrels.write_text("q1 0 d1 1\nq2 0 d3 2\nq2 0 d9 1\n", encoding="utf-8")
    arguments = ["evaluate", str(run), "--qrels", str(qrels)]
    arguments += ["-m", "ndcg@10", "-m", "ap", "--per-query", str(out), "--json", "--quiet"]
    code = (
        "import contextlib, io\nfrom rankset.cli import main\n"
        f"with contextlib.redirect_stdout(io.StringIO()):\n    main({arguments!r})"
    )
    assert _loaded_after(code) == ["polars"]  # of polars, pyarrow, numpy, altair
    assert out.stat().st_size > 0


def test_the_evaluate_command_on_trec_text_loads_only_its_readers(tmp_path: Path) -> None:
    # TREC text and --json: neither JSON's dialects, nor the judgments', answers' or
    # eRAG's readers, nor the tables' number formatting (and html for the reprs)
    run, qrels, out = tmp_path / "run", tmp_path / "qrels", tmp_path / "per_query.parquet"
    run.write_text("q1 Q0 d1 1 2.0 bm25\nq1 Q0 d2 2 1.0 bm25\n", encoding="utf-8")
    qrels.write_text("q1 0 d1 1\n", encoding="utf-8")
    arguments = ["evaluate", str(run), "--qrels", str(qrels), "-m", "ap"]
    arguments += ["--per-query", str(out), "--json", "--quiet"]
    unused = [
        "rankset.io._json",
        "rankset.io._judgments",
        "rankset.io._answers",
        "rankset.io._erag",
        "rankset.io._leaderboards",
        "rankset.io._sampled",
        "rankset._format",
        "html",
        "rankset.evaluation._fused",  # the one-collect plan of runs held in memory
        "rankset.evaluation._fused_mapping",
    ]
    code = (
        "import contextlib, io, sys\nfrom rankset.cli import main\n"
        f"with contextlib.redirect_stdout(io.StringIO()):\n    main({arguments!r})\n"
        f"print('loaded:', *(m for m in {unused!r} if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stdout.splitlines()[-1].split()[1:] == []


def test_the_io_package_loads_a_reader_on_first_use() -> None:
    code = (
        "import sys, rankset.io\n"
        "print('loaded:', *sorted(m for m in sys.modules if m.startswith('rankset.io.')))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stdout.splitlines()[-1].split()[1:] == []
    code = (
        "import rankset.io as io\nassert io.read is io._readers.read\n"
        "print(sorted(dir(io)) == sorted(io.__all__))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stdout.split() == ["True"]
