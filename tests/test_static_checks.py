"""The package is ruff clean, mypy --strict clean and free of import cycles (the style gate)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO_ROOT


def _run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(  # noqa: S603 - fixed argument lists, no shell
        command, cwd=REPO_ROOT, capture_output=True, text=True, check=False, timeout=300
    )


def test_ruff_reports_nothing() -> None:
    """Ruff finds no problem in the package, tests or examples."""
    result = _run(sys.executable, "-m", "ruff", "check", "appclient", "tests", "examples")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format_changes_nothing() -> None:
    """Every file is already in ruff's format."""
    result = _run(
        sys.executable, "-m", "ruff", "format", "--check", "appclient", "tests", "examples"
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_strict_reports_nothing() -> None:
    """Mypy in strict mode (configured in pyproject.toml) finds no error in the package."""
    result = _run(sys.executable, "-m", "mypy")
    assert result.returncode == 0, result.stdout + result.stderr


def test_no_tracked_file_points_outside_the_repository() -> None:
    """No tracked file names a path beside the repository (a plain clone has nothing there)."""
    # Built from parts so that this file does not match its own pattern.
    pattern = r"\.\./" + "shared|" + "PROTOCOL" + r"\.md|" + "SHARED" + "_DIR"
    result = _run("git", "grep", "-nE", pattern, "--", ".", ":!CHANGELOG.md")
    if result.returncode == 128:  # not a git checkout (an sdist): nothing is tracked
        return
    assert result.stdout == "", "tracked files point outside the repository:\n" + result.stdout


def _import_graph() -> dict[str, set[str]]:
    """Each appclient module -> the appclient modules and packages it imports.

    Imports anywhere count (inside functions and ``if TYPE_CHECKING:`` too), and importing
    ``a.b.c`` runs ``a.b`` first, so it counts as importing ``a.b`` as well.
    """
    package = REPO_ROOT / "appclient"
    modules: dict[str, Path] = {}
    for path in package.rglob("*.py"):
        parts = path.relative_to(REPO_ROOT).with_suffix("").parts
        modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        here = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = here.rsplit(".", node.level - 1)[0] if node.level > 1 else here
                module = f"{base}.{node.module}" if node.level and node.module else base
                module = module if node.level else node.module or ""
                targets.update(f"{module}.{alias.name}" for alias in node.names)
                targets.add(module)
        edges = set()
        for target in targets:
            steps = target.split(".")
            for end in range(1, len(steps) + 1):
                prefix = ".".join(steps[:end])
                inside = name == prefix or name.startswith(prefix + ".")
                if prefix in modules and not inside:
                    edges.add(prefix)
        graph[name] = edges
    return graph


def test_no_module_imports_itself_through_others() -> None:
    """No import cycle, lazy or type-only: each module's imports form a tree towards leaves."""
    graph = _import_graph()
    cycles: list[list[str]] = []
    state: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for target in sorted(graph[node]):
            if state.get(target) == 1:
                cycles.append([*path[path.index(target) :], target])
            elif target not in state:
                visit(target, [*path, target])
        state[node] = 2

    for start in sorted(graph):
        if start not in state:
            visit(start, [start])
    assert cycles == [], "import cycles: " + "; ".join(" -> ".join(c) for c in cycles)


def _reachable(graph: dict[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    pending = [start]
    while pending:
        for target in graph[pending.pop()]:
            if target not in seen:
                seen.add(target)
                pending.append(target)
    return seen


#: The client side: what sends requests and dispatches tools.
_CLIENT = (
    "_clients._client",
    "_clients._http_transport",
    "_clients._stream",
    "_clients._async_client",
    "_tools._registry",
)
#: Where the two sides are joined on purpose.
_JOINS = ("appclient", "appclient.testing", "appclient._demo", "appclient.cli")


def test_the_server_and_the_client_do_not_import_each_other() -> None:
    """No server module reaches a client module, and no client module reaches the server."""
    graph = _import_graph()
    client = {f"appclient.{name}" for name in _CLIENT}
    crossings = []
    for module in sorted(graph):
        if module in _JOINS:
            continue
        reached = _reachable(graph, module)
        if module.startswith("appclient.server"):
            crossings += [f"{module} -> {target}" for target in sorted(reached & client)]
        else:
            crossings += [
                f"{module} -> {target}"
                for target in sorted(reached)
                if target.startswith("appclient.server")
            ]
    assert crossings == []
