"""The pages' and charts' assets: found as the installed package finds them, shipped, filled.

Building a wheel takes too long for the suite; instead every asset the code reads is looked
up through importlib.resources (as an installed rankset reads it), and pyproject.toml's
package-data globs are checked to hold every file of an ``assets`` folder, so a wheel
built from them ships each one. And no Python module holds JavaScript any more: the
scripts are the ``.js`` files, linted (eslint) and unit-tested (node) as such.
"""

from __future__ import annotations

import ast
import importlib.resources
import re
import tomllib
from pathlib import Path

import pytest

from rankset.charts import _export
from rankset.pages import _shell

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "src" / "rankset"
ASSET_FOLDERS = {
    "rankset.pages": (PACKAGE / "pages" / "assets", _shell.ASSETS),
    "rankset.charts": (PACKAGE / "charts" / "assets", _export.SCRIPT_TEMPLATES),
}


@pytest.mark.parametrize("package", sorted(ASSET_FOLDERS))
def test_every_asset_is_found_through_importlib_resources(package: str) -> None:
    folder, listed = ASSET_FOLDERS[package]
    root = importlib.resources.files(package).joinpath("assets")
    for name in listed:
        assert root.joinpath(name).is_file(), f"{package}: {name} is not found"
        assert root.joinpath(name).read_text(encoding="utf-8").strip(), name
    # and the code lists every file of the folder: none is left behind or forgotten
    assert sorted(path.name for path in folder.iterdir()) == sorted(listed)


def test_the_package_data_globs_hold_every_asset() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    globs = config["tool"]["setuptools"]["package-data"]["rankset"]
    shipped = {path for pattern in globs for path in PACKAGE.glob(pattern)}
    files = {path for folder in PACKAGE.rglob("assets") for path in folder.iterdir()}
    assert files, "no assets folder found"
    missing = sorted(str(path.relative_to(PACKAGE)) for path in files - shipped)
    assert missing == [], f"pyproject.toml's package-data misses {missing}"


def test_every_page_asset_is_read_and_cached() -> None:
    for name in _shell.ASSETS:
        assert _shell.asset(name) is _shell.asset(name)
    with pytest.raises(ValueError, match="not one of the pages' assets"):
        _shell.asset("../__init__.py")


def test_the_dashboard_script_is_its_three_files_in_one_function() -> None:
    script = _shell.dashboard_script()
    assert "RANKSET_" not in script
    # each file, compacted, in order: what stays of it is its code, unchanged
    positions = [
        script.index(_shell.compact_script(_shell.browser_part(name)))
        for name in _shell.DASHBOARD_SCRIPTS
    ]
    assert positions == sorted(positions)
    assert script.lstrip().startswith("(function")
    assert script.rstrip().endswith("})();")
    assert "module.exports" not in script  # the core's block for node stays out


def test_the_compact_script_drops_only_comments_and_indentation() -> None:
    for name in _shell.DASHBOARD_SCRIPTS:
        source = _shell.asset(name)
        compact = _shell.compact_script(source)
        blocks = "\n".join(re.findall(r"/\*.*?\*/", source, flags=re.S))
        lines = iter(line.strip() for line in source.splitlines())
        for kept in compact.splitlines():
            # the source lines before it were blank, // comments or inside a /* */ block
            for line in lines:
                if line == kept or (
                    line.startswith(kept) and line[len(kept) :].lstrip()[:2] == "//"
                ):
                    break
                assert not line or line.startswith("//") or line in blocks, (name, line)
            else:
                raise AssertionError(f"{name}: {kept!r} is no line of the source, in order")
        assert len(compact.encode()) < len(source.encode())


def test_the_scripts_hold_no_markup() -> None:
    # Escaped or not, a "<script" in a script would throw off what the pages' tests count
    # (one element per "<script", one "</script>" each), and "<!--" is escaped on the way.
    for name in [*_shell.ASSETS, *_export.SCRIPT_TEMPLATES]:
        folder = "pages" if name in _shell.ASSETS else "charts"
        text = (PACKAGE / folder / "assets" / name).read_text(encoding="utf-8").lower()
        assert "<script" not in text, name
        assert "</" not in text, name
        assert "<!--" not in text, name


def test_templates_take_each_value_once() -> None:
    assert _shell.fill_template("a(RANKSET_X)", X="RANKSET_X") == "a(RANKSET_X)"
    with pytest.raises(ValueError, match="placeholders"):
        _shell.fill_template("a(RANKSET_X, RANKSET_X)", X="1")
    with pytest.raises(ValueError, match="placeholders"):
        _shell.fill_template("a(RANKSET_X)", X="1", Y="2")
    for name in _export.SCRIPT_TEMPLATES:  # the charts': their header comments stay out
        template = _export._template(name)
        assert not template.startswith("/*"), name
        assert re.findall(r"\bRANKSET_[A-Z_]+\b", template), name


def test_the_charts_scripts_keep_their_shape() -> None:
    fragment = _export.embed_fragment({"mark": "point"}, "chart-1")
    assert (
        'vegaEmbed(document.getElementById("chart-1"), {"mark":"point"}, '
        in fragment.splitlines()[2]
    )
    bundle = _export.javascript_bundle()
    assert bundle.startswith("(function (define, module, exports, require) {\n")
    assert bundle.endswith("}).call(typeof globalThis !== 'undefined' ? globalThis : window);")


# What JavaScript looks like, and prose does not: a function with its body, an arrow
# function, a listener, the DOM, a declaration.
_JAVASCRIPT = re.compile(
    r"function\s*\w*\s*\([^()]*\)\s*\{"
    r"|\)\s*=>\s*[{(\w]"
    r"|\baddEventListener\("
    r"|\bdocument\.(getElementById|querySelector|createElement|currentScript|body)\b"
    r"|\b(var|let|const)\s+\w+\s*=\s*[^=]"
)


def _docstrings(tree: ast.AST) -> set[int]:
    """ids of the docstring nodes (their examples may show an escaped snippet)."""
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def javascript_in(path: Path, root: Path = ROOT) -> list[str]:
    """The string constants of a Python file that hold JavaScript (docstrings left out)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = _docstrings(tree)
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            match = _JAVASCRIPT.search(node.value)
            if match and id(node) not in docstrings:
                found.append(f"{path.relative_to(root)}:{node.lineno}: {match.group(0)!r}")
    return found


def test_no_python_module_holds_javascript() -> None:
    found = [hit for path in sorted(PACKAGE.rglob("*.py")) for hit in javascript_in(path)]
    assert found == []


def test_the_javascript_check_sees_javascript(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text(
        'A = "(function () { return 1; })();"\n'
        'B = "items.map((x) => x + 1)"\n'
        "C = 'var spec = {};'\n"
        'D = """el.addEventListener("click", go)"""\n'
        'E = "A function (features, metric) -> pl.Expr, var = 1, the whole document."\n'
        'def f():\n    """Escape it: >>> f(\'var a = "x";\')"""\n',
        encoding="utf-8",
    )
    hits = javascript_in(probe, tmp_path)
    assert [hit.split(":")[1] for hit in hits] == ["1", "2", "3", "4"]
