"""The measure reference table, generated from the registry (``docs/measures.md``)."""

from __future__ import annotations

from collections.abc import Sequence

from rankset.errors import ParameterError
from rankset.measures._features import PER_QUERY, Features
from rankset.measures._registry import (
    EmptyValue,
    MeasureSpec,
    Metric,
    ParamSpec,
    available_measures,
)

__all__ = ["COLUMNS", "measure_table"]

_FORMS = {"required": ("{}@k",), "optional": ("{}", "{}@k"), "none": ("{}",)}
_CUTOFF_RULES = {
    "required": "required (none given: k per query)",
    "optional": "optional (none given: the full ranking)",
    "none": "none",
}
COLUMNS = (
    "measure",
    "cutoff",
    "parameters",
    "what it answers",
    "NA when",
    "better",
    "unanswered query",
    "trec_eval",
    "ir-measures",
    "ranx",
    "also accepted",
)


def measure_table(columns: Sequence[str] = COLUMNS) -> str:
    """Return the reference table of every registered measure, as Markdown.

    One row per measure, sorted by name: its forms, cutoff rule, parameters with their
    defaults, description, NA rule, direction, value for an unanswered query, its names in
    trec_eval, ir-measures and ranx, and its other accepted names; ``columns`` picks and
    orders some of them (:data:`COLUMNS` names them all).

    Examples
    --------
    >>> print(measure_table().splitlines()[0])  # doctest: +NORMALIZE_WHITESPACE
    | measure | cutoff | parameters | what it answers | NA when | better | unanswered query |
    trec_eval | ir-measures | ranx | also accepted |
    >>> rows = measure_table(["measure", "better"]).splitlines()
    >>> print(next(row for row in rows if row.startswith("| `ap`")))
    | `ap`, `ap@k` | higher |
    """
    unknown = [column for column in columns if column not in COLUMNS]
    if unknown or not columns:
        msg = f"The 'columns' parameter must name some of {', '.join(COLUMNS)}. Got {columns!r}."
        raise ParameterError(msg)
    picked = [COLUMNS.index(column) for column in columns]
    lines = [
        "| " + " | ".join(columns) + " |",
        "|" + "---|" * len(columns),
    ]
    for name, spec in sorted(available_measures().items()):
        cells = (
            _code(*(form.format(name) for form in _FORMS[spec.cutoff])),
            _cutoff_rule(spec),
            _code(*(_param(param) for param in spec.params)),
            spec.description,
            spec.na_rule or "never",
            "higher" if spec.greater_is_better else "lower",
            _empty(spec.empty_value),
            _code(*spec.trec_eval),
            _code(spec.ir_measures),
            _code(spec.ranx),
            _code(*_other_names(spec)),
        )
        lines.append("| " + " | ".join(_cell(cells[i]) for i in picked) + " |")
    return "\n".join(lines) + "\n"


def _cutoff_rule(spec: MeasureSpec) -> str:
    """Describe the cutoff rule; "required" splits into per-query k and explicit @k only."""
    if spec.cutoff == "required":
        try:  # measures whose features need an int cutoff refuse a per-query one
            spec.build(Features(), Metric(spec.name, PER_QUERY))
        except ParameterError:
            return "required (write @k: no per-query k)"
    return _CUTOFF_RULES[spec.cutoff]


def _code(*names: str | None) -> str:
    return ", ".join(f"`{name}`" for name in names if name is not None)


def _param(param: ParamSpec) -> str:
    if param.default is None:
        return param.name
    if isinstance(param.default, float):
        return f"{param.name}={param.default:g}"
    return f"{param.name}={param.default}"


def _empty(value: EmptyValue) -> str:
    if value is None:
        return "NA"
    if value == "labels":
        return "as answered (reads the labels only)"
    if value == "nothing retrieved":
        return "as if nothing labelled were retrieved"
    return f"{value:g}"


def _other_names(spec: MeasureSpec) -> list[str]:
    tools = {name.lower() for name in (spec.ir_measures, spec.ranx) if name is not None}
    tools |= {name.removesuffix("_{k}").lower() for name in spec.trec_eval}
    return [name for name in spec.accepted_names()[1:] if name not in tools]


def _cell(text: str) -> str:
    return text.replace("|", "\\|") if text else "-"
