"""Write ``expected.json``: what eRAG's own code computes on its README example.

Run from the repository root with eRAG importable (``pip install --no-deps --target
/tmp/erag-pkg erag``; it needs ``pytrec_eval``, which the dev environment has)::

    PYTHONPATH=tests:/tmp/erag-pkg python tests/data/erag/make_expected.py

The generator and the downstream metrics are those of ``tests/_support/erag_reference.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).parent

CASES = {
    # continuous labels: eRAG computes P and success itself
    "f1": ("f1_metric", ["P_1", "P_2", "P", "success_1", "success_2", "success"]),
    # 0/1 labels: eRAG hands the measures to pytrec_eval
    "containment": (
        "containment_metric",
        [
            "P_1",
            "P_2",
            "success_1",
            "success_2",
            "map",
            "recip_rank",
            "ndcg",
            "ndcg_cut_2",
            "recall_1",
            "recall_2",
        ],
    ),
}


def main() -> None:
    """Run eRAG on the README example for each case and write the results."""
    import erag

    from _support import erag_reference

    example = json.loads((HERE / "readme_example.json").read_text(encoding="utf-8"))
    cases = {}
    for case, (metric_name, metrics) in CASES.items():
        scores, result = erag_reference.run_erag(
            erag.eval,
            example["retrieval_results"],
            example["expected_outputs"],
            getattr(erag_reference, metric_name),
            metrics,
        )
        cases[case] = {
            "downstream_metric": metric_name,
            "retrieval_metrics": metrics,
            "scores": scores,
            "per_input": result["per_input"],
            "aggregated": result["aggregated"],
        }
    out = {"erag": "erag 0.0.1 (PyPI), erag/eval.py as at commit 2181fd8", "cases": cases}
    text = json.dumps(out, indent=2, ensure_ascii=False, sort_keys=True) + "\n"
    (HERE / "expected.json").write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
