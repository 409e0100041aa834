"""EvaluateOptions: one declaration read by evaluate, curves, diagnose and the CLI.

The bad values are generated from each field's declared constraint, so a new option
with a constraint is tested without a new line here (sklearn's test_public_functions).
"""

from __future__ import annotations

import argparse
import dataclasses
import inspect

import pytest

import rankset
from rankset._typing import MissingPolicy, OrderPolicy, choices_of
from rankset.cli._parser import build_parser as _build_parser
from rankset.evaluation import EvaluateOptions

RUN = {"q": {"a": 2.0, "b": 1.0}}
LABELS = {"q": {"a": 1}}
SUMMARY_OPTIONS = {"confidence", "n_resamples", "seed"}
# Arguments about which metrics to compute, not how: ks expands the metric list.
METRIC_ARGUMENTS = {"ks"}
# How the call reports on itself, not what it computes.
CALL_ARGUMENTS = {"progress"}
FIELDS = {field.name: field for field in dataclasses.fields(EvaluateOptions)}


def _bad_values(check: tuple[object, ...]) -> list[object]:
    kind, *args = check
    if kind == "int":
        low = args[0]
        assert isinstance(low, int)
        return [low - 1, 1.5, "3", True]
    if kind == "float":
        return ["2", float("nan")] + ([] if "optional" in args else [None])
    if kind == "choice":
        return ["no-such-choice", None]
    if kind == "bool":
        return ["yes", 1, None]
    raise AssertionError(f"no bad values for constraint {kind!r}")


CASES = [
    (name, value)
    for name, field in FIELDS.items()
    if "check" in field.metadata
    for value in _bad_values(field.metadata["check"])
]


def test_the_generated_cases_cover_the_constrained_options() -> None:
    constrained = {name for name, _ in CASES}
    assert {"k", "missing", "order", "duplicates", "default_k", "engine", "buckets"} <= (
        constrained
    )


@pytest.mark.parametrize(("name", "value"), CASES, ids=[f"{n}={v!r}" for n, v in CASES])
def test_a_bad_value_is_refused_by_name_everywhere(name: str, value: object) -> None:
    pattern = rf"The '{name}' parameter must be"
    with pytest.raises(rankset.ParameterError, match=pattern):
        EvaluateOptions(**{name: value})
    with pytest.raises(rankset.ParameterError, match=pattern):
        rankset.evaluate(RUN, LABELS, ["rr"], **{name: value})
    if name not in {"k", "default_k"}:  # curves takes its cutoffs from ks=
        with pytest.raises(rankset.ParameterError, match=pattern):
            rankset.curves(RUN, LABELS, ["ndcg"], ks=2, **{name: value})
    if name != "k":  # diagnose has a k of its own
        with pytest.raises(rankset.ParameterError, match=pattern):
            rankset.diagnose(RUN, LABELS, k=1, **{name: value})


def test_evaluate_takes_exactly_the_options_with_their_defaults() -> None:
    parameters = inspect.signature(rankset.evaluate).parameters
    keyword = {
        name: parameter.default
        for name, parameter in parameters.items()
        if parameter.kind is inspect.Parameter.KEYWORD_ONLY
        and name not in SUMMARY_OPTIONS | METRIC_ARGUMENTS | CALL_ARGUMENTS
    }
    defaults = {name: field.default for name, field in FIELDS.items()}
    assert keyword == defaults


def test_evaluate_annotates_the_options_as_the_dataclass_does() -> None:
    parameters = inspect.signature(rankset.evaluate).parameters
    for name, field in FIELDS.items():
        assert parameters[name].annotation == field.type, name


def test_unknown_options_are_named() -> None:
    with pytest.raises(rankset.ParameterError, match=r"curves\(\) got unexpected option\(s\) 'kk'"):
        rankset.curves(RUN, LABELS, ["ndcg"], ks=2, kk=3)
    with pytest.raises(rankset.ParameterError, match=r"diagnose\(\) got unexpected option"):
        rankset.diagnose(RUN, LABELS, k=1, relevance=2)


def test_options_are_frozen_and_replace_validates() -> None:
    options = EvaluateOptions()
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.k = 3  # type: ignore[misc]
    assert options.replace(k=3).k == 3
    assert options.k is None
    with pytest.raises(rankset.ParameterError, match="'k' parameter"):
        options.replace(k=0)


def _choices(parser: argparse.ArgumentParser, command: str, dest: str) -> argparse.Action:
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return next(a for a in sub.choices[command]._actions if a.dest == dest)


@pytest.mark.parametrize("command", ["evaluate", "compare", "curves", "diagnose", "report"])
def test_the_cli_shows_the_library_vocabularies_and_defaults(command: str) -> None:
    parser = _build_parser()
    defaults = EvaluateOptions()
    for dest, alias in (("missing", MissingPolicy), ("order", OrderPolicy)):
        action = _choices(parser, command, dest)
        assert tuple(action.choices) == choices_of(alias)
        assert action.default == getattr(defaults, dest)
    engine = _choices(parser, command, "engine")
    assert "dask" not in engine.choices  # --dask ADDRESS chooses a cluster
    assert set(engine.choices) | {"dask"} == set(rankset.evaluation.ENGINES)
    assert _choices(parser, command, "relevance_level").default == defaults.relevance_level
