"""How ``rankset trec_eval`` reads its inputs: labels in -R's format, the run, and checks.

Errors carry trec_eval's text and exit status (:class:`TrecEvalError`).
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from rankset.compat.trec_eval._judgment_groups import read_qrels_jg
from rankset.compat.trec_eval._options import (
    REL_FORMATS,
    Column,
    Measure,
    Options,
    TrecEvalError,
)
from rankset.compat.trec_eval._prefs import read_preferences
from rankset.compat.trec_eval._results import read_results_with_infinities
from rankset.errors import RanksetError

__all__ = ["check_label_format", "read_inputs"]


def read_inputs(
    options: Options,
) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame | None, pl.DataFrame | None]:
    """Read the labels (in -R's format) and the run, checked as trec_eval checks them.

    Returns the labels, the run, and the judgment groups (``-R qrels_jg``) or the
    preferences (``-R prefs``, ``-R qrels_prefs``), whose labels are then each document's
    best grade (or level): they set the queries trec_eval walks.
    """
    from rankset.io import scan_labels, scan_run

    if options.rel_format not in REL_FORMATS:
        raise TrecEvalError(f"trec_eval: Illegal rel_format '{options.rel_format}'", 2)
    groups = preferences = None
    if options.rel_format in ("prefs", "qrels_prefs"):
        preferences = read_preferences(options.qrels, options.rel_format, options.version)
        labels = preferences.group_by("query_id", "doc_id", maintain_order=True).agg(
            grade=pl.col("level").max()
        )
    elif options.rel_format == "qrels_jg":
        groups = read_qrels_jg(options.qrels, options.version)
        labels = groups.group_by("query_id", "doc_id", maintain_order=True).agg(
            pl.col("grade").max()
        )
    else:
        _must_exist(options.qrels, "get_qrels", "qrels")
        try:
            labels = scan_labels(options.qrels).collect()
        except RanksetError as error:
            msg = f"{error}\ntrec_eval: Quit in file '{options.qrels}'"
            raise TrecEvalError(msg, 2) from None
    if options.results_format != "trec_results":
        msg = f"trec_eval: Illegal retrieval results format '{options.results_format}'"
        raise TrecEvalError(msg, 2)
    _must_exist(options.run, "get_results", "results")
    try:
        run = scan_run(options.run).collect()
    except RanksetError as error:
        # trec_eval orders infinite scores; rankset's readers refuse them
        with_infinities = read_results_with_infinities(options.run)
        if with_infinities is None:
            msg = f"{error}\ntrec_eval: Quit in file '{options.run}'"
            raise TrecEvalError(msg, 2) from None
        run = with_infinities
    # the rank and the tag are not read again (trec_eval takes the last line's tag)
    return labels, run.select("query_id", "doc_id", "score"), groups, preferences


def _must_exist(path: str, reader: str, what: str) -> None:
    if not Path(path).is_file():
        msg = f"trec_eval.{reader}: Cannot read {what} file '{path}'"
        raise TrecEvalError(f"{msg}\ntrec_eval: Quit in file '{path}'", 2)


def check_label_format(planned: list[tuple[Measure, list[Column]]], options: Options) -> None:
    """Stop as trec_eval stops at its first query on a measure of another label format.

    Measures compute in table order; the first that cannot read -R's format ends the run
    (status 4) before anything is printed. runid and num_q read every format.
    """
    readable: tuple[str, ...]
    for measure, _ in planned:
        if measure.kind in ("runid", "num_q"):
            continue
        if measure.kind.startswith("jg_"):
            readable, problem = ("qrels_jg",), _NOT_JG
        elif measure.kind.startswith("prefs"):
            readable, problem = ("prefs", "qrels_prefs"), _NOT_PREFS
        else:
            readable, problem = ("qrels",), _NOT_QRELS
        if options.rel_format not in readable:
            msg = f"{problem}\ntrec_eval: Can't calculate measure '{measure.name}'"
            raise TrecEvalError(msg, 4)


_NOT_JG = "trec_eval: rel_info format not qrels_jg or results format not trec_results"
_NOT_PREFS = (
    "trec_eval.form_prefs_info: prefs_info format not (prefs or qrels_prefs) or results "
    "format not trec_results"
)
_NOT_QRELS = (
    "trec_eval.form_res_qrels: rel_info format not qrels or results format not trec_results"
)
