"""How ``rankset trec_eval`` reads its inputs: labels in -R's format, the run, and checks.

Errors carry trec_eval's text and exit status (:class:`TrecEvalError`).
"""

from __future__ import annotations

from collections.abc import Iterator
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
        from rankset.compat.trec_eval._prefs import read_preferences  # numpy only here

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
    scanned = _scan_plain_run(options.run)
    if scanned is not None:
        return labels, scanned, groups, preferences
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


def _scan_plain_run(path: str) -> pl.DataFrame | None:
    """Read a plain-layout run's ``query_id, doc_id, score`` a block at a time, or None.

    The reader (:func:`rankset.io.scan_run`) holds every field of every line at once
    (the rank, Q0 and tag columns of an MS MARCO run: about 300 MB more at its peak) and
    checks them in a second pass. Here the lazy scan's layout
    (``rankset.io._shared.scan_trec_run``) reads the file :data:`_BLOCK_BYTES` of whole
    lines at a time (a collect of the whole file held its text besides the frame, about
    250 MB more at the peak); of each block three columns are kept, once each line
    passed what evaluation's pass checks of a scanned file
    (``rankset.io._shared.TextScan``): every field read, the first line's tag, no space
    inside Q0 or the doc id when tab-separated, usable doc ids, a score that is not NaN;
    then usable query ids, none a comment. An infinite score (the reader refuses it),
    anything else unusual, or an error of the CSV reader gives None: the file is then
    read whole, whose reader names the problem or reads what the scan could not.
    """
    from rankset.io._shared import id_problems, scan_trec_run, score_problems

    parsed = scan_trec_run(path)
    if parsed is None or parsed.scan is None or parsed.run is None:
        return None
    scan = parsed.scan
    fields = ("query_id", "doc_id", *scan.CHECKED_FIELDS)
    problems = [*id_problems("doc_id").values(), *score_problems("score").values()]
    problems.append(pl.col("score").is_infinite())
    if scan.separator != " ":
        problems.append(pl.any_horizontal(pl.col("q0", "doc_id").str.contains(" ", literal=True)))
    kept = (
        pl.all_horizontal(pl.col(*fields).is_not_null())
        & (pl.col(scan.TAG_COLUMN) == scan.tag)
        & ~pl.any_horizontal([problem.fill_null(False) for problem in problems])
    )
    schema = parsed.run.collect_schema()  # the scan's columns, by position in a line
    parts = []
    try:
        for block in _line_blocks(path):
            lines = pl.scan_csv(
                block,
                separator=scan.separator,
                has_header=False,
                quote_char=None,
                schema=schema,
                truncate_ragged_lines=True,
            )
            # one query: the checks run beside the parsing (0.6 s wall against 0.7 s)
            part = lines.select("query_id", "doc_id", "score", kept.fill_null(False).alias("_kept"))
            del block, lines
            frame = part.collect()
            if not frame["_kept"].all():
                return None
            parts.append(frame.drop("_kept"))
            del frame
    except pl.exceptions.PolarsError:
        return None
    if not parts:
        return None
    run = pl.concat(parts, rechunk=False)
    del parts
    queries = run.select(pl.col("query_id").unique())
    query_problems = id_problems("query_id").values()
    bad = pl.any_horizontal([problem.fill_null(False) for problem in query_problems]).any()
    if queries.select(bad | ~scan.rankings_kept(pl.col("query_id"))).item():
        return None
    return run


#: How many bytes of a run's text :func:`_scan_plain_run` parses at once (whole lines).
_BLOCK_BYTES = 16 << 20


def _line_blocks(path: str) -> Iterator[bytes]:
    r"""Yield the file's bytes in blocks of whole lines, about :data:`_BLOCK_BYTES` each.

    A block ends after a newline; the file's last line, when it has none, comes alone.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> file = pathlib.Path(tempfile.mkdtemp()) / "run"
    >>> _ = file.write_bytes(b"a\nbb\nc")
    >>> list(_line_blocks(str(file)))
    [b'a\nbb\n', b'c']
    """
    rest = b""
    with open(path, "rb") as handle:
        while data := handle.read(_BLOCK_BYTES):
            data = rest + data
            end = data.rfind(b"\n") + 1
            if end == 0:
                rest = data
                continue
            rest = data[end:]
            yield data[:end]
            del data
    if rest:
        yield rest


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
