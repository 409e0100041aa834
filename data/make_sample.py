"""Regenerate the bundled sample data (synthetic, deterministic; standard library only).

    python data/make_sample.py

Writes into data/sample/:

* ``qrels.txt``: graded labels 0-3 for 40 queries (TREC qrels);
* ``bm25.trec``: a first-stage run, 100 documents per query, a few tied scores;
* ``rerank.trec``: a reranking of bm25's top 20 (same candidates, better order);
* ``samples.jsonl``: 8 RAG samples in the JSON sample contract (ids, passage text,
  expected answers, per-sample ``metadata.k``).

Everything is made up by this script, so it may be redistributed freely (CC0).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

OUT = Path(__file__).resolve().parent / "sample"
N_QUERIES = 40
DEPTH = 100
RERANK_DEPTH = 20


def main() -> None:
    """Write every sample file."""
    rng = random.Random(20261122)
    OUT.mkdir(exist_ok=True)
    qrels_lines, bm25_lines, rerank_lines = [], [], []
    for q in range(1, N_QUERIES + 1):
        qid = f"q{q:03d}"
        n_judged = rng.randint(12, 30)
        judged = rng.sample(range(1, 5001), n_judged)
        grades = {
            f"D{d:05d}": rng.choices([0, 1, 2, 3], weights=[50, 25, 15, 10])[0] for d in judged
        }
        if q % 10 == 0:  # a few queries with no relevant document at all
            grades = dict.fromkeys(grades, 0)
        for doc, grade in sorted(grades.items()):
            qrels_lines.append(f"{qid} 0 {doc} {grade}")

        # First stage: each judged doc is retrieved with a probability growing with its
        # grade and placed with a noisy score; the rest of the list is unjudged filler.
        scored = []
        for doc, grade in grades.items():
            if rng.random() < 0.45 + 0.15 * grade:
                scored.append((doc, round(8 + 2.2 * grade + rng.gauss(0, 3.0), 2)))
        taken = {doc for doc, _ in scored}
        while len(scored) < DEPTH:
            doc = f"D{rng.randint(1, 5000):05d}"
            if doc not in taken and doc not in grades:
                taken.add(doc)
                scored.append((doc, round(rng.uniform(2, 14), 2)))  # 2 decimals: ties occur
        scored.sort(key=lambda item: (-item[1], item[0]))
        for rank, (doc, score) in enumerate(scored, start=1):
            bm25_lines.append(f"{qid} Q0 {doc} {rank} {score:.2f} bm25")

        # Reranker: reorder the top 20 by a less noisy view of the grade.
        top = scored[:RERANK_DEPTH]
        reranked = sorted(top, key=lambda item: -(2.5 * grades.get(item[0], 0) + rng.gauss(0, 1.5)))
        for rank, (doc, _) in enumerate(reranked + scored[RERANK_DEPTH:], start=1):
            rerank_lines.append(f"{qid} Q0 {doc} {rank} {1000 - rank} rerank")

    (OUT / "qrels.txt").write_text("\n".join(qrels_lines) + "\n")
    (OUT / "bm25.trec").write_text("\n".join(bm25_lines) + "\n")
    (OUT / "rerank.trec").write_text("\n".join(rerank_lines) + "\n")
    _write_samples(rng)


def _write_samples(rng: random.Random) -> None:
    facts = [
        (
            "What is the refund window?",
            "30 days",
            "Refunds are accepted within 30 days of purchase.",
        ),
        ("Which port does the API use?", "8443", "The API listens on port 8443 over TLS."),
        ("Who approves travel?", "the team lead", "Travel is approved by the team lead."),
        ("How long are logs kept?", "90 days", "Access logs are kept for 90 days."),
        ("What is the on-call rotation?", "weekly", "On-call rotates weekly on Mondays."),
        ("Where are backups stored?", "cold storage", "Nightly backups go to cold storage."),
        ("What is the max upload size?", "2 GB", "Uploads are limited to 2 GB per file."),
        (
            "Which plan includes SSO?",
            "Enterprise",
            "Single sign-on is part of the Enterprise plan.",
        ),
    ]
    fillers = [
        "The office is closed on public holidays.",
        "Invoices are sent at the start of each month.",
        "Passwords must be rotated every quarter.",
        "The cafeteria serves lunch from noon.",
        "Support tickets are answered within one business day.",
        "Laptops are replaced every three years.",
    ]
    lines = []
    for i, (question, answer, gold_text) in enumerate(facts, start=1):
        gold = f"doc-{i}-gold"
        partial = f"doc-{i}-partial"
        docs = [(gold, gold_text), (partial, f"Policy notes for question {i}.")]
        docs += [(f"doc-{i}-f{j}", text) for j, text in enumerate(rng.sample(fillers, 4))]
        rng.shuffle(docs)
        if i % 4 == 0:  # the retriever missed the gold passage for some questions
            docs = [d for d in docs if d[0] != gold]
        sample = {
            "id": f"s{i}",
            "input": {"question": question},
            "expected_output": {gold: 3, partial: 1} if i % 2 else [gold],
            "expected_answer": answer,
            "actual_output": {"retrieved": [{"id": d, "text": t} for d, t in docs]},
            "metadata": {"k": 3 if i % 3 == 0 else 5},
        }
        lines.append(json.dumps(sample))
    (OUT / "samples.jsonl").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
