"""Where input bytes come from: files and streams, gzip, format sniffing, decoding.

Gzip is recognised by its magic bytes, whatever the file is called; the format comes
from the extension when there is one, else from the content.
"""

from __future__ import annotations

import gzip
import json
import re
import zlib
from collections.abc import Mapping
from pathlib import Path, PurePath
from typing import Any, Final

import polars as pl

from rankset.errors import InputFormatError
from rankset.io._parsed import ALIASES

__all__ = [
    "GLOB_CHARS",
    "GZIP_MAGIC",
    "PARQUET_MAGIC",
    "UTF8_BOM",
    "decode_text",
    "display_stem",
    "format_from_extension",
    "gunzip_if_needed",
    "read_bytes",
    "read_table_file",
    "sniff_content",
    "split_lines",
    "starts_with",
    "stream_bytes",
]

GZIP_MAGIC: Final = b"\x1f\x8b"
PARQUET_MAGIC: Final = b"PAR1"
UTF8_BOM: Final = b"\xef\xbb\xbf"
#: Characters that make a path that does not exist a glob pattern.
GLOB_CHARS: Final = re.compile(r"[*?\[]")

_EXTENSION_FORMATS: Final[Mapping[str, str]] = {
    ".parquet": "parquet",
    ".pq": "parquet",
    ".csv": "csv",
    ".tsv": "tsv",
    ".json": "json",
    ".jsonl": "json",
    ".ndjson": "json",
    ".yaml": "yaml",
    ".yml": "yaml",
}
# Extensions that name a format and so are not part of a run's display stem.
_FORMAT_EXTENSIONS: Final = frozenset(
    {*_EXTENSION_FORMATS, ".trec", ".run", ".txt", ".qrels", ".res"}
)


def display_stem(path: PurePath) -> str:
    """Return the file name without ``.gz`` and without an extension naming a format.

    Examples
    --------
    >>> display_stem(Path("runs/bm25.dl19.trec.gz"))
    'bm25.dl19'
    """
    name = path.name
    if name.lower().endswith(".gz"):
        name = name[:-3]
    suffix = Path(name).suffix
    if suffix.lower() in _FORMAT_EXTENSIONS:
        name = name[: -len(suffix)]
    return name


def format_from_extension(path: PurePath) -> str | None:
    """Return the format a file's extension names (``"json"`` for any JSON), or None.

    Examples
    --------
    >>> format_from_extension(Path("run.csv.gz")), format_from_extension(Path("run.trec"))
    ('csv', None)
    """
    name = path.name.lower()
    if name.endswith(".gz"):
        name = name[:-3]
    return _EXTENSION_FORMATS.get(Path(name).suffix)


def starts_with(path: Path, name: str, magic: bytes) -> bool:
    """Whether the file at ``path`` starts with ``magic``; a missing file is an input error."""
    try:
        with path.open("rb") as handle:
            return handle.read(len(magic)) == magic
    except FileNotFoundError:
        raise InputFormatError(f"file not found: {name}") from None


def read_bytes(path: Path, name: str) -> bytes:
    """Read a whole file, decompressed when it is gzip."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise InputFormatError(f"file not found: {name}") from None
    return gunzip_if_needed(data, name)


def stream_bytes(stream: Any, name: str) -> bytes:
    """Read a whole binary or text stream as bytes, decompressed when it is gzip."""
    content = stream.read()
    data = content.encode("utf-8") if isinstance(content, str) else bytes(content)
    return gunzip_if_needed(data, name)


def gunzip_if_needed(data: bytes, name: str) -> bytes:
    r"""Decompress ``data`` when it starts with the gzip magic bytes.

    Examples
    --------
    >>> gunzip_if_needed(gzip.compress(b"1 0 d 1\n"), "<stream>")
    b'1 0 d 1\n'
    """
    if not data.startswith(GZIP_MAGIC):
        return data
    try:
        return gzip.decompress(data)
    except (OSError, EOFError, zlib.error) as exc:
        msg = f"{name}: starts like gzip but cannot be decompressed ({exc})"
        raise InputFormatError(msg) from None


def sniff_content(data: bytes) -> str:
    r"""Guess the format of decompressed bytes: Parquet, JSON, a TSV table, else TREC text.

    Text whose first line is a tab-separated header naming a query and a document
    column (BEIR's ``query-id\tcorpus-id\tscore``) is a TSV table.

    Examples
    --------
    >>> sniff_content(b'  {"q1": {"d1": 1}}'), sniff_content(b"1 0 d 1\n")
    ('json', 'trec')
    >>> sniff_content(b"query-id\tcorpus-id\tscore\nq1\td1\t1\n")
    'tsv'
    """
    if data.startswith(PARQUET_MAGIC):
        return "parquet"
    head = data[:4096].lstrip(UTF8_BOM + b" \t\r\n\f\v")
    if head[:1] not in (b"{", b"["):
        return "tsv" if _is_tsv_header(head) else "trec"
    # A brace may open a TREC query id ("{301}"): a first line that is a TREC line and
    # not JSON is TREC.
    first = head.replace(b"\r", b"\n").split(b"\n", 1)[0].strip()
    return "trec" if _is_trec_line(first) else "json"


def starts_with_trec_line(data: bytes) -> bool:
    r"""Whether the first line of decompressed bytes is a TREC-family line, not a header.

    MS MARCO names its runs ``run.dev.small.tsv``: text in the TREC family (``qid docid
    rank``), not a table with a header, whatever the extension says.

    Examples
    --------
    >>> starts_with_trec_line(b"1048585\t7187158\t1\n"), starts_with_trec_line(b"qid\tdocid\n")
    (True, False)
    """
    head = data[:4096].lstrip(UTF8_BOM + b" \t\r\n\f\v")
    return _is_trec_line(head.replace(b"\r", b"\n").split(b"\n", 1)[0].strip())


def _is_tsv_header(head: bytes) -> bool:
    r"""Whether the first line is a tab-separated header naming query and document columns.

    Examples
    --------
    >>> _is_tsv_header(b"qid\tdocid\trank\n"), _is_tsv_header(b"1\td1\t1\n")
    (True, False)
    """
    first = head.split(b"\n", 1)[0].rstrip(b"\r")
    try:
        fields = {field.strip().lower() for field in first.decode("utf-8").split("\t")}
    except UnicodeDecodeError:
        return False
    if any(_is_number(field) for field in fields):
        return False  # a data line (`query 0 id 1`), not a header
    return bool(fields & set(ALIASES["query_id"])) and bool(fields & set(ALIASES["doc_id"]))


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _is_trec_line(line: bytes) -> bool:
    """Whether ``line`` is a TREC-family line (3 to 6 fields) with numbers in place.

    Examples
    --------
    >>> _is_trec_line(b"{301} Q0 d1 1 2.5 bm25"), _is_trec_line(b'{"a": 1, "b": 2, "c": 3}')
    (True, False)
    """
    fields = line.split()
    # A run's six, qrels' four, MS MARCO's three or RAG qrels' five.
    numbers = {6: fields[3:5], 4: fields[3:4], 3: fields[2:3], 5: fields[3:5]}.get(len(fields))
    if not numbers:
        return False
    try:
        for number in numbers:
            float(number)
    except ValueError:
        return False
    try:
        json.loads(line)
    except ValueError:
        return True
    return False


def decode_text(data: bytes, name: str) -> str:
    """Decode UTF-8 (a BOM is dropped); an invalid byte is an error naming its line."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        msg = f"{name}, line {line}: not valid UTF-8 ({exc.reason})"
        raise InputFormatError(msg) from None


def split_lines(data: bytes, name: str) -> pl.DataFrame:
    r"""Split bytes into a ``lineno``/``line`` frame; blank lines keep their number as null.

    Examples
    --------
    >>> split_lines(b"a\r\n\nb\n", "<stream>").rows()
    [(1, 'a'), (2, None), (3, 'b')]

    Old Mac files end lines with a lone CR; a text with CRs and no LF is read that way:

    >>> split_lines(b"a\rb\r", "<stream>").rows()
    [(1, 'a'), (2, 'b')]
    """
    nul = data.find(b"\x00")
    if nul >= 0:
        # Text holds no NUL byte; C tools such as trec_eval would end the line there.
        line = data.count(b"\n", 0, nul) + 1
        msg = f"{name}, line {line}: a NUL byte (\\x00); a text file holds none"
        raise InputFormatError(msg)
    if b"\r" in data and b"\n" not in data:
        data = data.replace(b"\r", b"\n")
    try:
        # A NUL separator and no quoting turn the CSV reader into a fast, multithreaded
        # line splitter that strips CRLF and a UTF-8 BOM and keeps empty lines as nulls.
        return pl.read_csv(
            data,
            has_header=False,
            separator="\x00",
            quote_char=None,
            schema={"line": pl.String},
            row_index_name="lineno",
            row_index_offset=1,
            raise_if_empty=False,
        )
    except pl.exceptions.PolarsError:
        # NUL bytes or invalid UTF-8: the slow path either copes or reports the line.
        return _split_lines_slowly(data, name)


def _split_lines_slowly(data: bytes, name: str) -> pl.DataFrame:
    lines = decode_text(data, name).split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    series = pl.Series("line", [line.removesuffix("\r") or None for line in lines], pl.String)
    return series.to_frame().with_row_index("lineno", offset=1)


def read_table_file(path: Path, what: str) -> pl.DataFrame:
    """Read a table file by its extension: Parquet, CSV, TSV or JSON Lines (``.gz`` too).

    ``what`` names the table in errors: a missing file, another extension, or a file its
    reader refuses, each an ``InputFormatError`` naming the path.
    """
    if not path.is_file():
        msg = f"{what}: file not found: {path}"
        raise InputFormatError(msg)
    name = path.name.lower().removesuffix(".gz")
    try:
        if name.endswith((".parquet", ".pq")):
            return pl.read_parquet(path)
        if name.endswith((".csv", ".tsv")):
            separator = "\t" if name.endswith(".tsv") else ","
            return pl.read_csv(path, separator=separator, infer_schema_length=None)
        if name.endswith((".jsonl", ".ndjson", ".json")):
            return pl.read_ndjson(path)
    except (pl.exceptions.PolarsError, OSError) as error:
        first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        msg = f"{what}: {path} could not be read as a table: {first}"
        raise InputFormatError(msg) from None
    msg = f"{what}: {path}: expected a .parquet, .csv, .tsv or .jsonl table"
    raise InputFormatError(msg)
