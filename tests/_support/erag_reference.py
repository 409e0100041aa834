"""Drive eRAG's own ``erag.eval`` without a generator model, and record what it scores.

eRAG (``pip install erag``, <https://github.com/alirezasalemi7/eRAG>) asks for a text
generator and a downstream metric. Here the "generator" writes back the passage it is
given (an extractive reader), and two downstream metrics score that text against the gold
answers: whether an answer occurs in it (0/1 labels: eRAG hands them to pytrec_eval) and
the best token F1 against an answer (continuous labels: eRAG computes P and success
itself). :func:`run_erag` wraps the metric to record, in eRAG's own loop, the score of
every (query, position): the labels rankset reads.

Nothing here imports rankset; ``erag`` is imported by the caller (the live tests skip
without it).
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from typing import Any

Scores = dict[str, list[float]]
Metric = Callable[[dict[str, str], dict[str, list[str]]], dict[str, Any]]

_ARTICLES = re.compile(r"\b(a|an|the)\b")


def copy_generator(inputs: Mapping[str, list[str]]) -> dict[str, str]:
    """The "generator": the answer to a query is the passage it was given."""
    return {query: " ".join(documents) for query, documents in inputs.items()}


def _tokens(text: str) -> list[str]:
    lowered = text.lower()
    kept = "".join(ch for ch in lowered if ch not in string.punctuation)
    return _ARTICLES.sub(" ", kept).split()


def token_f1(prediction: str, answer: str) -> float:
    """SQuAD's token F1 (lower case, no punctuation or articles) of two texts."""
    predicted, gold = _tokens(prediction), _tokens(answer)
    common = sum((Counter(predicted) & Counter(gold)).values())
    if common == 0:
        return 0.0
    precision = common / len(predicted)
    recall = common / len(gold)
    return 2 * precision * recall / (precision + recall)


def f1_metric(generated: dict[str, str], expected: dict[str, list[str]]) -> dict[str, float]:
    """Continuous downstream metric: the best token F1 against any gold answer."""
    return {q: max(token_f1(text, a) for a in expected[q]) for q, text in generated.items()}


def containment_metric(generated: dict[str, str], expected: dict[str, list[str]]) -> dict[str, int]:
    """Binary downstream metric: 1 if a gold answer occurs in the text (any case)."""
    return {
        q: int(any(a.lower() in text.lower() for a in expected[q])) for q, text in generated.items()
    }


def lookup_metric(table: Mapping[str, float]) -> Metric:
    """A downstream metric whose score for a generated text is ``table[text]``."""

    def metric(generated: dict[str, str], expected: dict[str, list[str]]) -> dict[str, float]:
        del expected
        return {query: table[text] for query, text in generated.items()}

    return metric


def run_erag(
    erag_eval: Callable[..., dict[str, Any]],
    retrieval_results: Mapping[str, list[str]],
    expected_outputs: Mapping[str, list[str]],
    metric: Metric,
    retrieval_metrics: Iterable[str],
) -> tuple[Scores, dict[str, Any]]:
    """Run ``erag.eval`` with :func:`copy_generator`; return the scores it read, its result.

    The scores are recorded from eRAG's own calls of the downstream metric: call ``i``
    scores position ``i`` of every query that has one.
    """
    scores: Scores = {query: [] for query in retrieval_results}

    def recording(generated: dict[str, str], expected: dict[str, list[str]]) -> dict[str, Any]:
        result = metric(generated, expected)
        for query, score in result.items():
            scores[query].append(score)
        return result

    result = erag_eval(
        retrieval_results=dict(retrieval_results),
        expected_outputs=dict(expected_outputs),
        text_generator=copy_generator,
        downstream_metric=recording,
        retrieval_metrics=set(retrieval_metrics),
    )
    return scores, result
