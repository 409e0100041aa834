"""Small rules of the JSON inputs: scalar fields as text, a dataset query's labels.

Kept apart from :mod:`rankset.io._json` (the walking of documents) so each stays short.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from rankset._validation import warn_user
from rankset.errors import InputFormatError, RanksetWarning
from rankset.io._parsed import id_text

__all__ = [
    "dataset_query_labels",
    "implied_relevance_level",
    "scalar_text",
    "warn_broken_rules",
]


def scalar_text(value: Any) -> str | None:
    """JSON scalar -> text for a checked numeric cast (None stays null)."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool):
        return json.dumps(value)
    if isinstance(value, int | float):
        return repr(value)
    return json.dumps(value)


def dataset_query_labels(
    query: Mapping[str, Any], where: str, problems: list[str] | None = None
) -> list[tuple[str, str | None]]:
    """Return a dataset query's ``(doc_id, grade)`` labels, checked against its rules.

    The dataset's own rules: a query has a relevant document, and ``relevance_scores``,
    when given, grades every one of them (else a document would silently get grade 1).
    A broken rule raises, unless ``problems`` is given: then its message is appended and
    the query is read anyway (an empty query as one with no relevant document, an
    ungraded document with grade 1).
    """
    relevant = query.get("relevant_documents") or []
    scores = query.get("relevance_scores") or {}
    if not isinstance(relevant, list) or not isinstance(scores, Mapping):
        msg = f"{where}: relevant_documents must be a list and relevance_scores an object"
        raise InputFormatError(msg)
    docs = [id_text(doc, where, "relevant document") for doc in relevant]
    broken: list[str] = []
    if not docs:
        broken.append(
            f"{where}: no relevant document; every query of a dataset needs at least one "
            "in relevant_documents."
        )
    ungraded = [doc for doc in docs if scores and doc not in scores]
    if ungraded:
        broken.append(
            f"{where}: relevance_scores does not grade {', '.join(map(repr, ungraded[:3]))}"
            f"{' and more' if len(ungraded) > 3 else ''}; when given it must cover every "
            "document of relevant_documents."
        )
    if broken and problems is None:
        raise InputFormatError(broken[0])
    if problems is not None:
        problems += broken
    # Documents graded only in relevance_scores are labels too.
    docs += [doc for doc in scores if doc not in set(docs)]
    return [(doc, scalar_text(scores[doc]) if doc in scores else "1") for doc in docs]


def warn_broken_rules(name: str, broken: int, total: int, first: str) -> None:
    """Say once, for a dataset read with ``dataset_checks="warn"``, what was read anyway."""
    warn_user(
        f"{name}: {broken} of {total} queries break the dataset's rules, read anyway (no "
        "relevant document: scored as such; ungraded: grade 1). First, "
        f"{first.removeprefix(name + ', ')}",
        RanksetWarning,
    )


def implied_relevance_level(grades: Iterable[str | None]) -> float | None:
    """Return the level that makes every positive gain of a sample file's maps relevant.

    A sample's ``expected_output`` map names the relevant set: a gain of 0.5 must count
    as relevant, which rankset's default level of 1 would not. Lists of ids give grade 1
    (and an empty list -1), so a positive grade below 1 can only come from a map; the
    smallest one is the level. None when there is none (the default level stands).
    Text that is no number is skipped: the checked cast of the grades names it later.

    Examples
    --------
    >>> implied_relevance_level(["1", "0.25", "0.5", "0"]), implied_relevance_level(["2"])
    (0.25, None)
    """
    positive = []
    for grade in grades:
        try:
            value = float(grade)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            continue
        if 0 < value < 1:
            positive.append(value)
    return min(positive, default=None)
