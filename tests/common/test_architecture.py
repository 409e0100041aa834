"""The layout of the house, read from the code: layers, no cycles, sizes, ``__all__``.

The packages follow the data flow io → measures → evaluation → compare/diagnose/curves
→ charts → report → cli. Every import found in the source (module level, inside
functions, or for type checking) may point to the same layer or a lower one, and the
graph of imports between modules has no cycle.
"""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

import pytest

import rankset

SRC = Path(rankset.__file__).resolve().parent
# Lowest first. A module belongs to the layer of its top-level name under rankset.
LAYERS: list[set[str]] = [
    {"errors", "_version", "_typing", "_validation", "_dependencies", "_format", "_progress"},
    {"stats"},
    {"io"},
    {"schema"},
    {"measures"},
    {"evaluation"},
    # the analyses of an evaluation, side by side; "testing" and "compat" use them too
    {"comparison", "diagnosis", "label_quality", "fusion", "compat", "testing", "experiments"},
    {"charts"},
    {"pages"},
    {"cli"},
    {"__init__", "__main__"},
]
# The ground floor: the only modules directly under src/rankset.
GROUND_FLOOR = {
    "__init__",
    "__main__",
    "errors",
    "_version",
    "_typing",
    "_validation",
    "_dependencies",
    "_format",
    "_progress",
}
MAX_TOP_LEVEL_MODULES = 10
MAX_LINES = 600


def _module_name(path: Path) -> str:
    parts = path.relative_to(SRC.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(path): path for path in sorted(SRC.rglob("*.py"))}


def _layer(module: str) -> int:
    top = module.split(".")[1] if "." in module else "__init__"
    for rank, layer in enumerate(LAYERS):
        if top in layer:
            return rank
    raise AssertionError(f"{module} belongs to no layer: add it to LAYERS")


def _imports(module: str) -> set[str]:
    """Every rankset module ``module`` imports, wherever the import statement is."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                # `from rankset.x import y` imports the module rankset.x.y when there is one,
                # else a name of rankset.x
                child = f"{base}.{alias.name}"
                found.add(child if child in MODULES else base)
    return {name for name in found if name in MODULES and name != module}


GRAPH = {module: _imports(module) for module in MODULES}


def test_every_module_has_a_layer() -> None:
    for module in MODULES:
        _layer(module)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_import_points_up(module: str) -> None:
    upward = sorted(target for target in GRAPH[module] if _layer(target) > _layer(module))
    assert upward == [], f"{module} imports higher layers: {upward}"


def test_the_import_graph_has_no_cycle() -> None:
    state: dict[str, int] = {}  # 1 on the current path, 2 done
    cycles: list[list[str]] = []

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        for target in sorted(GRAPH[module]):
            if state.get(target) == 1:
                cycles.append([*path[path.index(target) :], module, target])
            elif target not in state:
                visit(target, [*path, target])
        state[module] = 2

    for module in sorted(MODULES):
        if module not in state:
            visit(module, [module])
    assert cycles == []


def test_the_checker_sees_cycles_and_upward_imports() -> None:
    # Known edges, read from the code: the checker is not blind.
    assert "rankset.evaluation._evaluate" in GRAPH["rankset.evaluation.cutoff_curves"]
    assert "rankset.io" in GRAPH["rankset.evaluation._inputs"]
    assert _layer("rankset.cli") > _layer("rankset.evaluation._kernel")
    assert "rankset.evaluation._dask" in GRAPH["rankset.evaluation.cluster"]
    assert "rankset.comparison._inputs" in GRAPH["rankset.comparison.pairwise"]


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_module_is_too_long(module: str) -> None:
    lines = MODULES[module].read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_LINES, f"{module}: {lines} lines"


PUBLIC = sorted(
    module for module in MODULES if not any(part.startswith("_") for part in module.split("."))
)


def test_the_old_cluster_names_are_gone() -> None:
    # never in a release: no alias module rankset.cluster, no old name Partition
    with pytest.raises(ImportError):
        importlib.import_module("rankset.cluster")
    assert not hasattr(rankset, "cluster")
    assert not hasattr(importlib.import_module("rankset.evaluation.cluster"), "Partition")


@pytest.mark.parametrize("module", PUBLIC)
def test_all_is_complete_and_exists(module: str) -> None:
    imported = importlib.import_module(module)
    exported = getattr(imported, "__all__", None)
    assert exported is not None, f"{module} has no __all__"
    assert sorted(exported) == sorted(set(exported)), f"{module}: __all__ repeats a name"
    for name in exported:
        assert hasattr(imported, name), f"{module}.__all__ names {name!r}, which is missing"
    # Every public class and function defined or re-exported here is listed.
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    public: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef) and not node.name.startswith("_"):
            public.add(node.name)
        elif (
            isinstance(node, ast.ImportFrom)
            and MODULES[module].name == "__init__.py"
            and (node.module or "").startswith(f"{module}.")
        ):
            # a package's face: what it imports from its own modules, it re-exports
            public.update(
                alias.asname or alias.name
                for alias in node.names
                if not (alias.asname or alias.name).startswith("_")
            )
    missing = sorted(
        name
        for name in public - set(exported)
        if not inspect.ismodule(getattr(imported, name, None))
    )
    assert missing == [], f"{module}: public names missing from __all__: {missing}"


# Public faces that gather names from private modules of a lower package.
FACADES = {"rankset"}

# Private modules another package may import, by name: each holds what its package lends
# the others and no user calls, so the package's face lists only what users call.
SHARED_PRIVATE = {
    "rankset.io._shared": "the row rules, the sniffers of ranx mappings and foreign "
    "frames, the TREC scan, the partitioned and atomic writers that evaluation, schema "
    "and the trec_eval face build on, and the helpers the command line and pages share",
    "rankset.measures._shared": "the column names the kernel groups, counts and cuts by, "
    "and what the evaluation and the trec_eval face ask of a metric (averaging, gain map, "
    "grade scale)",
    "rankset.schema._rules": "the steps of the normalisation rules (the cast, the run "
    "profile, the duplicate and row checks, the labels' problem counts) that the "
    "evaluation's pass and the label-quality analyses apply to frames they already hold",
    "rankset.experiments._shared": "how the pages and the charts read a store's history "
    "(a store, its folder or a frame; its times in UTC), and the command line's --meta",
}


def _package(module: str) -> str:
    parts = module.split(".")
    return ".".join(parts[:2]) if len(parts) > 1 else module


def _foreign_private_imports(module: str) -> list[str]:
    """The private modules of other packages ``module`` imports, but the shared ones."""
    return sorted(
        target
        for target in GRAPH[module]
        if any(part.startswith("_") for part in target.split(".")[2:])
        and _package(target) != _package(module)
        and target not in SHARED_PRIVATE
    )


@pytest.mark.parametrize("module", sorted(set(MODULES) - FACADES))
def test_no_private_module_of_another_package_is_imported(module: str) -> None:
    foreign = _foreign_private_imports(module)
    assert foreign == [], f"{module} imports private modules of other packages: {foreign}"


def test_the_shared_private_modules_exist_and_are_private() -> None:
    for module, why in SHARED_PRIVATE.items():
        assert module in MODULES, f"SHARED_PRIVATE names {module}, which does not exist"
        assert module.split(".")[-1].startswith("_"), f"{module} is public: import its face"
        assert why.strip(), f"SHARED_PRIVATE: say why {module} is shared"


def test_the_private_module_check_sees_one() -> None:
    # an unlisted private module of another package is caught; a listed one is not
    GRAPH["rankset.fusion._probe"] = {"rankset.io._trec", "rankset.io._shared"}
    try:
        assert _foreign_private_imports("rankset.fusion._probe") == ["rankset.io._trec"]
    finally:
        del GRAPH["rankset.fusion._probe"]


def test_the_ground_floor_is_small() -> None:
    top = sorted(path.stem for path in SRC.glob("*.py"))
    assert len(top) <= MAX_TOP_LEVEL_MODULES, top
    assert set(top) <= GROUND_FLOOR, f"new top-level modules: {sorted(set(top) - GROUND_FLOOR)}"
    # every other module lives in a package named for its concern
    packages = sorted(path.parent.name for path in SRC.glob("*/__init__.py"))
    assert {"stats", "comparison", "diagnosis", "label_quality", "evaluation"} <= set(packages)


def _private_names_imported(module: str) -> list[str]:
    """``from X import _name`` where ``_name`` is not a module: a private name of X."""
    found: list[str] = []
    for node in ast.walk(ast.parse(MODULES[module].read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("rankset"):
            for alias in node.names:
                private = alias.name.startswith("_") and not alias.name.startswith("__")
                if private and f"{node.module}.{alias.name}" not in MODULES:
                    found.append(f"{node.module}.{alias.name}")
    return found


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_module_imports_a_private_name_of_another(module: str) -> None:
    assert _private_names_imported(module) == []


def test_the_private_name_check_sees_one(tmp_path: Path) -> None:
    # a module importing a private helper of another module is caught
    MODULES["rankset._probe"] = tmp_path / "probe.py"
    try:
        MODULES["rankset._probe"].write_text("from rankset.stats.paired import _pairs\n")
        assert _private_names_imported("rankset._probe") == ["rankset.stats.paired._pairs"]
    finally:
        del MODULES["rankset._probe"]


def test_the_evaluation_package_exports_only_what_users_call() -> None:
    import rankset.evaluation as evaluation

    building_blocks = {"plan_and_measure", "result_of", "Collected", "PartialResult"}
    building_blocks |= {"BUCKET_SEED", "metrics_of", "PreparedEvaluation"}
    assert building_blocks.isdisjoint(evaluation.__all__)


# Names of the faces' packages that no user calls: helpers of other rankset packages,
# lent through the SHARED_PRIVATE modules (or rankset._dependencies), and old names.
HELPERS = {
    "rankset.io": {
        "ID_CONTROL_CHARACTERS",
        "TextScan",
        "count_problems",
        "id_problems",
        "number_problems",
        "score_problems",
        "looks_like_ranx",
        "is_foreign_frame",
        "scan_trec_run",
        "write_partitioned",
        "atomic_path",
        "display_stem",
        "is_irds",
        "read_text_table",
        "with_official_measures",
        "read_run",
        "read_labels",
    },
    "rankset.measures": {
        "GROUP",
        "NUM_RET",
        "QUERY_K",
        "CWL_DEPTH",
        "gain_map",
        "geometric_metrics",
        "needs_grade_scale",
    },
    "rankset.schema": {
        "cast_run",
        "check_cutoffs",
        "duplicate_docs",
        "duplicate_labels",
        "label_problem_counts",
        "raise_on_bad_labels",
        "raise_on_bad_rows",
        "raise_on_duplicate_docs",
        "raise_on_duplicate_labels",
        "run_profile",
        "scores_present",
        "sorted_best_first",
    },
    "rankset.stats": {"require_scipy"},
    "rankset.experiments": {
        "git_commit",
        "parse_max_drop",
        "in_utc",
        "parse_meta",
        "read_history",
        "entry_names",
        "MARK_ALPHA",
    },
}


@pytest.mark.parametrize("face", sorted(HELPERS))
def test_a_face_lists_no_helper(face: str) -> None:
    exported = set(importlib.import_module(face).__all__)
    assert exported & HELPERS[face] == set()
