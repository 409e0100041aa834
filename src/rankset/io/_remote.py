"""Remote sources: ``https://``, ``hf://``, ``s3://`` and other URLs.

A URL goes through the same format inference, parsers and checks as a local file.
Parquet on an object store (``hf://``, ``s3://``, ``gs://``, ``az://``) is scanned by
Polars itself, lazily (globs too); anything over HTTP(S) is fetched whole with the
standard library, and so is other ``hf://`` text, from the Hub's ``resolve`` address
(``HF_ENDPOINT`` and ``HF_TOKEN`` apply); text on other object stores is fetched
through ``fsspec`` (with the file system's own package, ``s3fs`` for ``s3://``).
A URL that cannot be fetched is an :class:`~rankset.errors.InputFormatError` naming
it, never a traceback from the network stack.
"""

from __future__ import annotations

import importlib
import os
import re
import urllib.parse
from pathlib import PurePosixPath
from typing import Final

import polars as pl

from rankset._typing import Kind
from rankset.errors import InputFormatError
from rankset.io._parsed import ParsedInput
from rankset.io._sources import gunzip_if_needed
from rankset.io._tables import parse_table

__all__ = ["fetch_url", "hub_address", "is_url", "parse_parquet_url", "url_path"]

_URL: Final = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
_HTTP: Final = frozenset({"http", "https"})
#: Seconds to wait for a server before saying it cannot be reached.
TIMEOUT_S: Final = 30.0
_OFFLINE_ADVICE: Final = (
    "rankset reads a URL over the network; check the address and the connection, or "
    "download the file on a machine with network and pass its local path"
)


def is_url(source: object) -> bool:
    """Whether ``source`` is a string naming a URL (``scheme://...``).

    Examples
    --------
    >>> is_url("hf://datasets/BeIR/scifact-qrels/test.tsv"), is_url("runs/bm25.trec")
    (True, False)
    """
    return isinstance(source, str) and _URL.match(source) is not None


def url_path(url: str) -> PurePosixPath:
    """Return the path part of a URL (no query, no fragment), for its name and extension.

    Examples
    --------
    >>> url_path("https://host/data/qrels.test.tsv?download=true").name
    'qrels.test.tsv'
    """
    return PurePosixPath(urllib.parse.urlsplit(url).path)


def _scheme(url: str) -> str:
    return urllib.parse.urlsplit(url).scheme.lower()


def parse_parquet_url(url: str, stem: str, mapping: dict[str, str], kind: Kind) -> ParsedInput:
    """Read Parquet at a URL: scanned by Polars on object stores, fetched over HTTP(S)."""
    if _scheme(url) in _HTTP:
        data = fetch_url(url)
        try:
            frame = pl.read_parquet(data).lazy()
        except pl.exceptions.PolarsError as exc:
            msg = f"{url}: not a readable Parquet file ({exc})"
            raise InputFormatError(msg) from None
        return parse_table(frame, url, stem, "parquet", mapping, kind)
    try:
        frame = pl.scan_parquet(url)
        frame.collect_schema()
    except (pl.exceptions.PolarsError, OSError, ValueError) as exc:
        msg = f"{url}: cannot read it as Parquet ({_first_line(exc)}); {_OFFLINE_ADVICE}"
        raise InputFormatError(msg) from None
    return parse_table(frame, url, stem, "parquet", mapping, kind)


def fetch_url(url: str) -> bytes:
    """Return the bytes at ``url``, decompressed when gzip; any failure names the URL."""
    scheme = _scheme(url)
    if scheme in _HTTP:
        data = _fetch_http(url, url)
    elif scheme == "hf":
        data = _fetch_http(hub_address(url), url, token=os.environ.get("HF_TOKEN"))
    else:
        data = _fetch_fsspec(url)
    return gunzip_if_needed(data, url)


def hub_address(url: str) -> str:
    """Return the HTTPS address of a file named by an ``hf://`` URL, as Polars resolves it.

    ``hf://datasets/<owner>/<name>[@<revision>]/<path>`` (``spaces/`` alike; no prefix:
    a model). The endpoint is ``HF_ENDPOINT`` when set.

    Examples
    --------
    >>> hub_address("hf://datasets/BeIR/scifact-qrels/test.tsv")
    'https://huggingface.co/datasets/BeIR/scifact-qrels/resolve/main/test.tsv'
    >>> hub_address("hf://datasets/mteb/scifact@refs/convert/parquet/default/test/0.parquet")
    'https://huggingface.co/datasets/mteb/scifact/resolve/refs%2Fconvert%2Fparquet/default/test/0.parquet'
    """
    parts = url.split("://", 1)[1].split("/")
    prefix = parts.pop(0) + "/" if parts[0] in ("datasets", "spaces") else ""
    owner, name, path = parts[0], parts[1] if len(parts) > 1 else "", parts[2:]
    name, _, revision = name.partition("@")
    if revision == "refs":  # refs/convert/parquet, refs/pr/1: the revision has slashes
        revision, path = "/".join([revision, *path[:2]]), path[2:]
    endpoint = os.environ.get("HF_ENDPOINT", "https://huggingface.co").rstrip("/")
    quoted = urllib.parse.quote(revision or "main", safe="")
    return f"{endpoint}/{prefix}{owner}/{name}/resolve/{quoted}/{'/'.join(path)}"


def _fetch_http(address: str, url: str, *, token: str | None = None) -> bytes:
    # Imported here: http.client and ssl cost about 15 ms of every start-up.
    import urllib.error
    import urllib.request

    headers = {"User-Agent": "rankset"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(address, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as response:
            return bytes(response.read())
    except urllib.error.HTTPError as exc:
        msg = f"{url}: the server answered HTTP {exc.code} ({exc.reason})"
        raise InputFormatError(msg) from None
    except (urllib.error.URLError, OSError) as exc:
        reason = exc.reason if isinstance(exc, urllib.error.URLError) else exc
        msg = f"{url}: cannot fetch it ({reason}); {_OFFLINE_ADVICE}"
        raise InputFormatError(msg) from None


def _fetch_fsspec(url: str) -> bytes:
    try:
        fsspec = importlib.import_module("fsspec")
    except ImportError:
        msg = (
            f"{url}: reading text from {_scheme(url)}:// needs fsspec and the file system's "
            "package (pip install fsspec huggingface_hub, or s3fs, gcsfs, adlfs); Parquet "
            "there is read by Polars without them"
        )
        raise InputFormatError(msg) from None
    try:
        with fsspec.open(url, "rb") as handle:
            return bytes(handle.read())
    except FileNotFoundError:
        raise InputFormatError(f"file not found: {url}") from None
    except ImportError as exc:
        msg = f"{url}: fsspec cannot open {_scheme(url)}:// here ({exc})"
        raise InputFormatError(msg) from None
    except (OSError, ValueError, RuntimeError) as exc:
        msg = f"{url}: cannot fetch it ({_first_line(exc)}); {_OFFLINE_ADVICE}"
        raise InputFormatError(msg) from None


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0]
