"""Every piece of measure metadata is checked against what the code does, or generates a doc."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import polars as pl
import pytest

import rankset
from rankset.measures import available_measures, measure_table, parse_metric

DOCS = Path(__file__).resolve().parents[2] / "docs"
SPECS = available_measures()

# q1 is answered; q2 is labelled (every tier, an answer) but absent from the run.
LABELS = pl.DataFrame(
    {
        "query_id": ["q1"] * 5 + ["q2"] * 5,
        "doc_id": ["a", "b", "c", "d", "e"] * 2,
        "grade": [5.0, 4, 3, 2, 1] * 2,
    }
)
ANSWERS = {"q1": ["alpha"], "q2": ["beta"]}
# Each query has a vital nugget supported by a and b, and an okay one by c (partly).
NUGGETS = pl.DataFrame(
    {
        "query_id": ["q1"] * 3 + ["q2"] * 3,
        "nugget_id": ["n1", "n1", "n2"] * 2,
        "doc_id": ["a", "b", "c"] * 2,
        "support": ["support", "support", "partial_support"] * 2,
        "importance": ["vital", "vital", "okay"] * 2,
    }
)


def _run(queries: list[str]) -> pl.DataFrame:
    docs = ["a", "c", "e", "x"]
    return pl.DataFrame(
        {
            "system": "s",
            "query_id": [q for q in queries for _ in docs],
            "doc_id": docs * len(queries),
            "score": [4.0, 3, 2, 1] * len(queries),
            "text": ["alpha beta", "c", "e", "x"] * len(queries),
        }
    )


def _value(metric: str, run: pl.DataFrame, query: str) -> float | None:
    result = rankset.evaluate(
        run, LABELS, [metric], missing="zero", answers=ANSWERS, nuggets=NUGGETS
    )
    values = result.per_query.filter(pl.col("query_id") == query)["value"].to_list()
    assert len(values) == 1
    value: float | None = values[0]
    return value


@pytest.mark.parametrize("measure", sorted(SPECS))
def test_empty_value_is_what_an_unanswered_query_gets(measure: str) -> None:
    spec = SPECS[measure]
    metric = measure if spec.cutoff == "none" else f"{measure}@3"
    unanswered = _value(metric, _run(["q1"]), "q2")
    if spec.empty_value == "labels":
        # A measure of the labels alone: as if the query had been answered.
        assert unanswered == _value(metric, _run(["q1", "q2"]), "q2")
    elif spec.empty_value == "nothing retrieved":
        # The measure's value for a ranking of one unlabelled document.
        nothing = pl.concat([_run(["q1"]), _run(["q2"]).filter(pl.col("doc_id") == "x")])
        assert unanswered == _value(metric, nothing, "q2")
    else:
        assert unanswered == spec.empty_value


def test_docs_measures_page_is_generated() -> None:
    script = DOCS / "generate_measures.py"
    spec = importlib.util.spec_from_file_location("generate_measures", script)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    expected = module.render()
    assert (DOCS / "measures.md").read_text(encoding="utf-8") == expected, (
        "docs/measures.md is out of date: run python docs/generate_measures.py"
    )
    readme = (DOCS.parent / "README.md").read_text(encoding="utf-8")
    assert module.render_readme(readme) == readme, (
        "README.md's measure table is out of date: run python docs/generate_measures.py"
    )
    block = readme.split(module.START)[1].split(module.END)[0]
    assert block.count("\n| `") == len(available_measures())  # one row per measure


def test_table_has_a_row_per_measure() -> None:
    rows = measure_table().splitlines()[2:]
    assert len(rows) == len(SPECS)
    assert [row.split("`")[1].partition("@")[0] for row in rows] == sorted(SPECS)


@pytest.mark.parametrize("measure", sorted(SPECS))
def test_every_accepted_name_parses_to_its_measure(measure: str) -> None:
    spec = SPECS[measure]
    for name in spec.accepted_names():
        form = name if spec.cutoff == "none" else f"{name}@10"
        assert parse_metric(form).measure == measure, form
    for tool_name in (spec.ir_measures, spec.ranx):
        if tool_name is not None:
            form = tool_name if spec.cutoff == "none" else f"{tool_name}@10"
            assert parse_metric(form).measure == measure


@pytest.mark.parametrize("measure", sorted(SPECS))
def test_trec_eval_names_parse_as_trec_eval_prints_them(measure: str) -> None:
    for template in SPECS[measure].trec_eval:
        if "{k}" in template:
            assert parse_metric(template.format(k=10)).name == f"{measure}@10"
            assert parse_metric(template.format(k=10).replace("_10", ".10")).name == (
                f"{measure}@10"
            )
        else:
            metric = parse_metric(template)
            assert metric.measure == measure
            assert metric.k is None


@pytest.mark.parametrize("measure", sorted(SPECS))
def test_direction_and_na_rule_are_stated(measure: str) -> None:
    spec = SPECS[measure]
    assert spec.description.endswith(".")
    if spec.empty_value is None:
        assert spec.na_rule, "an NA for an unanswered query needs an NA rule"
    assert isinstance(spec.greater_is_better, bool)
