"""Small rules of the JSON inputs: scalar fields as text, a dataset query's labels.

Kept apart from :mod:`rankset.io._json` (the walking of documents) so each stays short.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from rankset.errors import InputFormatError
from rankset.io._parsed import id_text

__all__ = ["dataset_query_labels", "scalar_text"]


def scalar_text(value: Any) -> str | None:
    """JSON scalar -> text for a checked numeric cast (None stays null)."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool):
        return json.dumps(value)
    if isinstance(value, int | float):
        return repr(value)
    return json.dumps(value)


def dataset_query_labels(query: Mapping[str, Any], where: str) -> list[tuple[str, str | None]]:
    relevant = query.get("relevant_documents") or []
    scores = query.get("relevance_scores") or {}
    if not isinstance(relevant, list) or not isinstance(scores, Mapping):
        msg = f"{where}: relevant_documents must be a list and relevance_scores an object"
        raise InputFormatError(msg)
    docs = [id_text(doc, where, "relevant document") for doc in relevant]
    # The dataset's own rules: a query has a relevant document, and relevance_scores, when
    # given, grade every one of them (else a document would silently get grade 1).
    if not docs:
        msg = (
            f"{where}: no relevant document; every query of a dataset needs at least one "
            "in relevant_documents."
        )
        raise InputFormatError(msg)
    ungraded = [doc for doc in docs if scores and doc not in scores]
    if ungraded:
        msg = (
            f"{where}: relevance_scores does not grade {', '.join(map(repr, ungraded[:3]))}"
            f"{' and more' if len(ungraded) > 3 else ''}; when given it must cover every "
            "document of relevant_documents."
        )
        raise InputFormatError(msg)
    # Documents graded only in relevance_scores are labels too.
    docs += [doc for doc in scores if doc not in set(docs)]
    return [(doc, scalar_text(scores[doc]) if doc in scores else "1") for doc in docs]
