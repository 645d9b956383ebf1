"""docs/protocol.md stays true to the code: endpoints, error codes, section references."""

from __future__ import annotations

import ast
import re

from appclient._core import _constants
from tests.conftest import REPO_ROOT

PROTOCOL = (REPO_ROOT / "docs" / "protocol.md").read_text("utf-8")
SECTIONS = {int(n) for n in re.findall(r"^## (\d+)\. ", PROTOCOL, flags=re.MULTILINE)}


def test_every_endpoint_is_documented() -> None:
    """Each endpoint path the client and server use appears in the reference."""
    paths = [v for k, v in vars(_constants).items() if k.startswith("PATH_")]
    assert paths
    assert [path for path in paths if f"`{path}`" not in PROTOCOL] == []


def test_every_error_code_the_server_answers_is_documented() -> None:
    """Each error code the reference server writes is in the reference's error table."""
    source = "".join(
        p.read_text("utf-8") for p in (REPO_ROOT / "appclient" / "server").rglob("*.py")
    )
    codes = set(re.findall(r"HTTPProblem\(\s*\d{3},\s*\"([A-Za-z]+)\"", source))
    assert codes
    assert sorted(code for code in codes if f"`{code}`" not in PROTOCOL) == []


def test_section_references_in_the_code_point_at_real_sections() -> None:
    """Every "docs/protocol.md section N" in the code names a section that exists."""
    cited: set[int] = set()
    for path in [
        *(REPO_ROOT / "appclient").rglob("*.py"),
        *(REPO_ROOT / "java-interop").rglob("*.java"),
    ]:
        for first, last in re.findall(
            r"protocol\.md sections? (\d+)(?:-(\d+))?", path.read_text("utf-8")
        ):
            cited.update(range(int(first), int(last or first) + 1))
    assert cited
    assert cited <= SECTIONS


def test_the_architecture_names_every_module_and_no_other() -> None:
    """docs/architecture.md has a line for each module of the package, and only for those."""
    text = (REPO_ROOT / "docs" / "architecture.md").read_text("utf-8")
    documented = set(re.findall(r"^\| `([\w/]+\.py)` \|", text, flags=re.MULTILINE))
    package = REPO_ROOT / "appclient"
    modules = {path.relative_to(package).as_posix() for path in package.rglob("*.py")}
    assert sorted(modules - documented) == []
    assert sorted(documented - modules) == []


def _plain(text: str) -> str:
    """Docstring or Markdown text without its markup: roles, module paths, backquotes."""
    text = re.sub(r":(?:class|func|mod|meth|attr|data|exc):", "", text)
    text = re.sub(r"~?appclient(?:\.\w+)*\.(\w+)", r"\1", text)
    return " ".join(text.replace("`", "").split()).rstrip(".")


def test_each_architecture_line_is_its_module_s_first_docstring_line() -> None:
    """What docs/architecture.md says of a module is what the module's docstring says."""
    text = (REPO_ROOT / "docs" / "architecture.md").read_text("utf-8")
    rows = re.findall(r"^\| `([\w/]+\.py)` \| (.*) \|$", text, flags=re.MULTILINE)
    differ = {}
    for path, line in rows:
        source = (REPO_ROOT / "appclient" / path).read_text("utf-8")
        first = (ast.get_docstring(ast.parse(source)) or "").partition("\n")[0]
        if _plain(first) != _plain(line):
            differ[path] = (first, line)
    assert rows
    assert differ == {}
