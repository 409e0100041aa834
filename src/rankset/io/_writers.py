"""Writers: runs and labels as TREC text, Parquet or CSV, and frames as Parquet.

Every write goes through :func:`atomic_path`, so a reader never sees a half-written
file and a failed write leaves an existing file as it was. TREC text is checked to
read back as the same fields.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import os
import secrets
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Final, Literal, cast

import polars as pl

from rankset._typing import WriteFormat, choices_of
from rankset._validation import check_choice, missing_columns_message
from rankset.errors import OutputError, ParameterError
from rankset.io._sources import format_from_extension

__all__ = ["atomic_path", "write_labels", "write_parquet", "write_run"]

_WRITE_FORMATS: Final = frozenset(choices_of(WriteFormat))


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a temporary path next to ``path``; move it onto ``path`` only on success.

    Readers never see a half-written file, and a failed write leaves an existing file
    untouched and no temporary file behind.

    Parameters
    ----------
    path
        The file to (re)place.

    Yields
    ------
    pathlib.Path
        A new, empty file in the same directory (same file system, so the final
        :func:`os.replace` is atomic).

    Raises
    ------
    ParameterError
        If ``path`` names a folder.
    OutputError
        If ``path``'s folder does not exist or takes no new file (the message names the
        folder, not the temporary file), or the write fails.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     target = Path(folder) / "out.txt"
    ...     with atomic_path(target) as tmp:
    ...         _ = tmp.write_text("done")
    ...     print(target.read_text())
    done
    """
    if str(path).endswith(("/", os.sep)) or Path(path).is_dir():
        msg = (
            f"{os.fspath(path)} names a folder; give the file to write in it "
            f"(e.g. {Path(path) / 'per_query.parquet'})."
        )
        raise ParameterError(msg)
    target = Path(path)
    folder = target.parent
    if not folder.is_dir():  # else os.open's error would name the hidden temporary file
        what = "is not a folder" if folder.exists() else "does not exist"
        msg = f"cannot write {os.fspath(path)}: the folder {folder}{os.sep} {what}"
        msg += "; create it first."
        raise OutputError(msg)
    try:
        temp = _create_temp_beside(target)
    except OSError as error:  # no permission to create a file there: name the folder
        msg = f"cannot write {os.fspath(path)}: {error.strerror} in the folder {folder}{os.sep}"
        raise OutputError(msg) from error
    try:
        yield temp
        os.replace(temp, target)
    except (OSError, pl.exceptions.PolarsError) as error:
        # A full disk or a lost permission: Polars wraps the OS error in its own.
        temp.unlink(missing_ok=True)
        kept = " (the file that was there is unchanged)" if target.exists() else ""
        msg = f"{os.fspath(path)}: could not write the file{kept}: {error}"
        raise OutputError(msg) from error
    except BaseException:
        temp.unlink(missing_ok=True)
        raise


def _create_temp_beside(target: Path) -> Path:
    # os.open with mode 0o666 lets the umask decide permissions, as for a plain open();
    # tempfile.mkstemp would leave the final file readable by its owner only.
    while True:
        temp = target.with_name(f".{target.name}.{secrets.token_hex(6)}.tmp")
        try:
            os.close(os.open(temp, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666))
        except FileExistsError:  # pragma: no cover - 48 random bits collided
            continue
        return temp


def write_parquet(
    frame: pl.DataFrame, path: str | os.PathLike[str], *, config: Mapping[str, Any] | None = None
) -> Path:
    """Write a frame to Parquet atomically, with ``config`` as JSON in the file metadata.

    Parameters
    ----------
    frame
        The table to write.
    path
        Destination.
    config
        Settings to record with the table (values that are not JSON are written as
        text); read them back with ``polars.read_parquet_metadata(path)["rankset"]``
        or ``pyarrow.parquet.read_metadata(path).metadata[b"rankset"]``.

    Returns
    -------
    pathlib.Path
        ``path``.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = write_parquet(pl.DataFrame({"a": [1]}), Path(folder) / "t.parquet",
    ...                          config={"k": 10})
    ...     pl.read_parquet_metadata(path)["rankset"]
    '{"k": 10}'
    """
    target = Path(path)
    metadata = None
    if config is not None:
        metadata = {"rankset": json.dumps(dict(config), sort_keys=True, default=str)}
    # Polars' own writer, so that writing needs no import of pyarrow.parquet.
    with atomic_path(path) as tmp:  # the path as given: a trailing slash names a folder
        frame.write_parquet(tmp, metadata=metadata)
    return target


def write_run(
    frame: pl.DataFrame | pl.LazyFrame,
    path: str | os.PathLike[str],
    *,
    format: WriteFormat | None = None,
) -> None:
    """Write a run as TREC text, Parquet or CSV, atomically.

    Parameters
    ----------
    frame
        A run with ``query_id`` and ``doc_id`` and, optionally, ``rank``, ``score`` and
        ``system``.
    path
        Destination; a ``.gz`` suffix gzip-compresses the output.
    format
        ``"trec"``, ``"parquet"`` or ``"csv"``; when None, from the extension
        (``.parquet``/``.pq``, ``.csv``), else TREC.

    Notes
    -----
    TREC lines are ``qid Q0 docid rank score system``. Rank and score are written as in
    the frame; the score in the shortest text that reads back to the same float. A
    missing or null ``system`` is written as ``rankset``; a missing or null rank as the
    row's position within its (system, query) in frame order; a missing or null score
    as ``-rank``, which keeps the rank order under trec_eval's sort by score. Parquet
    and CSV get the frame's columns as they are.

    Raises
    ------
    ParameterError
        ``format`` is invalid, a column is missing, or an id or system cannot be
        written as one TREC field.

    Examples
    --------
    >>> import tempfile
    >>> run = pl.DataFrame({"query_id": ["301", "301"], "doc_id": ["d1", "d2"]})
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     write_run(run, Path(folder) / "run.trec")
    ...     print(Path(folder, "run.trec").read_text(), end="")
    301 Q0 d1 1 -1.0 rankset
    301 Q0 d2 2 -2.0 rankset
    """
    _write_rows(
        frame,
        path,
        format,
        what="run",
        required=("query_id", "doc_id"),
        numeric={"rank": "integers", "score": "numbers"},
        fields=("query_id", "doc_id", "system"),
        trec_line=_trec_run_line,
    )


def write_labels(
    frame: pl.DataFrame | pl.LazyFrame,
    path: str | os.PathLike[str],
    *,
    format: WriteFormat | None = None,
) -> None:
    """Write labels as TREC qrels, Parquet or CSV, atomically.

    Parameters
    ----------
    frame
        Labels with ``query_id``, ``doc_id`` and ``grade``.
    path, format
        As for :func:`write_run`.

    Notes
    -----
    TREC lines are ``qid 0 docid grade``; an integral grade is written without a decimal
    point (``2``, not ``2.0``), any other grade as the shortest text of its float.

    Raises
    ------
    ParameterError
        ``format`` is invalid, a column is missing, or an id cannot be one TREC field.

    Examples
    --------
    >>> import tempfile
    >>> labels = pl.DataFrame({"query_id": ["301", "301"], "doc_id": ["d1", "d2"],
    ...                        "grade": [2.0, 0.5]})
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     write_labels(labels, Path(folder) / "qrels.txt")
    ...     print(Path(folder, "qrels.txt").read_text(), end="")
    301 0 d1 2
    301 0 d2 0.5
    """
    _write_rows(
        frame,
        path,
        format,
        what="labels",
        required=("query_id", "doc_id", "grade"),
        numeric={"grade": "numbers"},
        fields=("query_id", "doc_id"),
        trec_line=_trec_qrels_line,
    )


def _write_rows(
    frame: pl.DataFrame | pl.LazyFrame,
    path: str | os.PathLike[str],
    format: WriteFormat | None,
    *,
    what: str,
    required: Sequence[str],
    numeric: Mapping[str, str],
    fields: Sequence[str],
    trec_line: Callable[[pl.DataFrame], pl.Expr],
) -> None:
    """Write a run or labels (``what``) as TREC text, Parquet or CSV, atomically.

    ``required`` columns must be present; TREC text also needs the ``numeric`` columns
    numeric (``"integers"`` or ``"numbers"``) and the ``fields`` writable as one TREC
    field, and writes a line per row as ``trec_line`` makes it from the frame.
    """
    fmt = _write_format(path, format)
    data = _collect(frame)
    _require_output_columns(data, required, what)
    if fmt == "trec":
        _require_numeric_columns(data, numeric)
        _check_trec_fields(data, fields)
        _write_lines(data.select(trec_line(data).alias("line")), path)
    else:
        _write_table(data, path, fmt)


def _write_format(path: str | os.PathLike[str], format: str | None) -> WriteFormat:
    check_choice("format", format, _WRITE_FORMATS, allow_none=True)
    if format is not None:
        return cast("WriteFormat", format)
    by_extension = format_from_extension(Path(path))
    if by_extension in ("parquet", "csv"):
        return cast("WriteFormat", by_extension)
    if by_extension is not None:
        msg = (
            f"cannot write {os.fspath(path)!r}: its extension names {by_extension} input, "
            "which rankset does not write; use .trec, .parquet or .csv, or pass format="
        )
        raise ParameterError(msg)
    return "trec"


def _collect(frame: pl.DataFrame | pl.LazyFrame) -> pl.DataFrame:
    if isinstance(frame, pl.LazyFrame):
        return frame.collect()
    if isinstance(frame, pl.DataFrame):
        return frame
    msg = f"expected a Polars DataFrame or LazyFrame, got {type(frame).__name__}"
    raise ParameterError(msg)


def _require_output_columns(data: pl.DataFrame, required: Sequence[str], what: str) -> None:
    missing = [c for c in required if c not in data.columns]
    if missing:
        where = f"cannot write {what}: the frame"
        raise ParameterError(missing_columns_message(where, missing, required, data.columns))


def _trec_run_line(data: pl.DataFrame) -> pl.Expr:
    system = (
        pl.col("system").cast(pl.String).fill_null("rankset")
        if "system" in data.columns
        else pl.lit("rankset")
    )
    position = pl.int_range(1, pl.len() + 1, dtype=pl.Int64).over(system, pl.col("query_id"))
    rank = pl.col("rank").cast(pl.Int64).fill_null(position) if "rank" in data.columns else position
    score = (
        pl.col("score").cast(pl.Float64).fill_null(-rank.cast(pl.Float64))
        if "score" in data.columns
        else -rank.cast(pl.Float64)
    )
    return pl.concat_str(
        [
            pl.col("query_id").cast(pl.String),
            pl.lit("Q0"),
            pl.col("doc_id").cast(pl.String),
            rank.cast(pl.String),
            score.cast(pl.String),
            system,
        ],
        separator=" ",
    )


def _trec_qrels_line(data: pl.DataFrame) -> pl.Expr:
    """Return a qrels line, ``qid 0 docid grade`` (``data`` unused: no optional column)."""
    grade = pl.col("grade").cast(pl.Float64)
    return pl.concat_str(
        [pl.col("query_id"), pl.lit("0"), pl.col("doc_id"), _number_text(grade)],
        separator=" ",
    )


def _number_text(value: pl.Expr) -> pl.Expr:
    # Integral grades print as integers; |x| < 2**53 keeps the Int64 cast exact.
    integral = value.is_finite() & (value == value.round()) & (value.abs() < 2.0**53)
    return (
        pl.when(integral)
        .then(value.cast(pl.Int64, strict=False).cast(pl.String))
        .otherwise(value.cast(pl.String))
    )


def _require_numeric_columns(data: pl.DataFrame, wanted: Mapping[str, str]) -> None:
    for column, what in wanted.items():
        if column not in data.columns:
            continue
        dtype = data.schema[column]
        numeric = dtype.is_integer() if what == "integers" else dtype.is_numeric()
        if not (numeric or dtype == pl.Null):
            msg = f"cannot write TREC text: column {column!r} has dtype {dtype}, expected {what}"
            raise ParameterError(msg)


def _check_trec_fields(data: pl.DataFrame, fields: Sequence[str]) -> None:
    """Refuse values that would not read back as the same TREC field."""
    present = [f for f in fields if f in data.columns]
    # A query id starting with '#' would make its line read back as a comment.
    unwritable = {
        "query_id": r"^$|\s|^#",
        "doc_id": r"^$|\s",
        "system": r"^$|\s",
    }
    checks = [
        (
            pl.col(f).cast(pl.String).str.contains(unwritable[f])
            | (pl.col(f).is_null() & pl.lit(f != "system"))
        ).any()
        for f in present
    ]
    flags = data.select(checks).row(0)
    for field, is_bad in zip(present, flags, strict=True):
        if is_bad:
            msg = (
                f"cannot write TREC text: column {field!r} has a value that is empty, null, "
                "contains whitespace or (for query_id) starts with '#'"
            )
            raise ParameterError(msg)


def _write_lines(lines: pl.DataFrame, path: str | os.PathLike[str]) -> None:
    with atomic_path(path) as temp:
        lines.write_csv(
            temp,
            include_header=False,
            quote_style="never",
            compression=_csv_compression(path),
            check_extension=False,
        )


def _write_table(data: pl.DataFrame, path: str | os.PathLike[str], fmt: WriteFormat) -> None:
    with atomic_path(path) as temp:
        if fmt == "csv":
            data.write_csv(temp, compression=_csv_compression(path), check_extension=False)
        elif _is_gzip_name(path):
            # Parquet compresses internally; gzip on top only honours the name asked for.
            buffer = io.BytesIO()
            data.write_parquet(buffer)
            temp.write_bytes(gzip.compress(buffer.getvalue()))
        else:
            data.write_parquet(temp)


def _csv_compression(path: str | os.PathLike[str]) -> Literal["gzip", "uncompressed"]:
    return "gzip" if _is_gzip_name(path) else "uncompressed"


def _is_gzip_name(path: str | os.PathLike[str]) -> bool:
    return Path(path).name.lower().endswith(".gz")
