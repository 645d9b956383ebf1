"""Every example runs as ``python examples/NAME.py`` against the embedded server."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT, child_environment

EXAMPLES_DIR = REPO_ROOT / "examples"

#: example file, extra arguments, a line its output must contain (regular expression)
CASES: list[tuple[str, list[str], str]] = [
    ("seed_json_schema_tools.py", [], r"tool call: get_current_weather \{'location': '北京'"),
    ("seed_json_schema_tools.py", [], r"answer: \S+"),
    ("seed_manifest_from_function.py", [], r"tool call: get_current_weather \{'location': '北京'"),
    ("seed_manifest_from_function.py", [], r"answer: \S+"),
    ("seed_manifest_decorators.py", [], r'"description": "城市名，例如：北京。"'),
    ("seed_manifest_decorators.py", [], r"answer: \S+"),
    ("streaming.py", [], r"tool call: get_current_weather \{'location': '北京'"),
    ("streaming.py", [], r"answer: \S+"),
    ("tool_choice.py", [], r"cloud component answer: \S+"),
    ("tool_choice.py", [], r"forced local call: get_current_weather \{'location': '上海'"),
    ("automatic_loop.py", [], r"round 1: agent calls get_current_weather .*Tokyo"),
    ("automatic_loop.py", [], r"round 1: agent calls get_current_weather .*Paris"),
    ("automatic_loop.py", [], r"round 2: agent calls get_n_day_weather_forecast .*Tokyo"),
    ("automatic_loop.py", [], r"answer: \S+"),
    ("toolkit_bound_secret.py", [], r"api_key in what the agent sees: False"),
    ("toolkit_bound_secret.py", [], r"call: WeatherService__today \{'city': '北京'\}"),
    ("toolkit_bound_secret.py", [], r"key leaked: False"),
    ("approval.py", [], r"cancelled orders: \['A1024'\]"),
    ("approval.py", ["--decline"], r"the user declined to run tool 'cancel_order'"),
    ("approval.py", ["--decline"], r"cancelled orders: none"),
    ("text_format_model.py", [], r"the model saw the tools in its prompt: True"),
    ("text_format_model.py", [], r"answer: 北京：北京今天23度，多云 \(celsius\)"),
    ("text_format_model.py", ["--tool-format", "react_zh"], r"answer: 北京：北京今天23度"),
    ("text_format_model.py", ["--tool-format", "internlm"], r"tool call: get_current_weather"),
    (
        "async_concurrent.py",
        [],
        r"上海的天气怎么样？ -> tool calls: get_current_weather\{'location': '上海'\}",
    ),
    ("async_concurrent.py", [], r"answer: .*广州今天25度"),
]

_RUNS: dict[tuple[str, tuple[str, ...]], subprocess.CompletedProcess[str]] = {}


def _run(name: str, args: list[str]) -> subprocess.CompletedProcess[str]:
    key = (name, tuple(args))
    if key not in _RUNS:
        env = child_environment()
        # Import this checkout's package, however (or whether) it is installed.
        env["PYTHONPATH"] = os.pathsep.join([str(REPO_ROOT), env.get("PYTHONPATH", "")])
        _RUNS[key] = subprocess.run(  # noqa: S603 - a fixed interpreter and our own scripts
            [sys.executable, str(EXAMPLES_DIR / name), *args],
            cwd=REPO_ROOT,
            env=env,
            capture_output=True,
            text=True,
            encoding="utf-8",
            timeout=120,
            check=False,
        )
    return _RUNS[key]


def _examples() -> list[Path]:
    return sorted(p for p in EXAMPLES_DIR.glob("*.py") if not p.name.startswith("_"))


def test_every_example_has_a_case() -> None:
    """No example is left out of the table of cases."""
    assert {p.name for p in _examples()} <= {case[0] for case in CASES}


@pytest.mark.parametrize(
    ("name", "args", "expected"),
    CASES,
    ids=[f"{c[0]}{' ' + ' '.join(c[1]) if c[1] else ''}: {c[2][:30]}" for c in CASES],
)
def test_example_runs_and_prints(name: str, args: list[str], expected: str) -> None:
    """The example exits 0 and prints the line that shows it worked."""
    result = _run(name, args)
    assert result.returncode == 0, result.stderr[-3000:]
    assert re.search(expected, result.stdout), result.stdout[-3000:]


def test_examples_use_the_embedded_server_by_default() -> None:
    """Without the hosted-app variables the examples say they use the embedded server."""
    result = _run("streaming.py", [])
    assert "embedded reference server" in result.stderr


def _target_module():  # examples/_target.py is a script helper, not a package module
    name = "_examples_target"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, EXAMPLES_DIR / "_target.py")
        assert spec is not None
        assert spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # dataclasses look their module up while being built
        spec.loader.exec_module(module)
    return sys.modules[name]


def test_hosted_app_is_chosen_when_fully_configured(monkeypatch: pytest.MonkeyPatch) -> None:
    """With token, gateway and app id set, the examples target the hosted app."""
    monkeypatch.setenv("APPBUILDER_TOKEN", "bce-v3/secret-token")
    monkeypatch.setenv("GATEWAY_URL_V2", "https://gateway.example")
    monkeypatch.setenv("APPBUILDER_APP_ID", "app-123")
    target = _target_module().hosted_settings()
    assert (target.app_id, target.base_url, target.hosted) == (
        "app-123",
        "https://gateway.example",
        True,
    )
    assert "secret-token" not in repr(target)


def test_partial_configuration_means_the_embedded_server(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without an app id the examples do not try the hosted service."""
    monkeypatch.setenv("APPBUILDER_TOKEN", "bce-v3/secret-token")
    monkeypatch.setenv("GATEWAY_URL_V2", "https://gateway.example")
    assert _target_module().hosted_settings() is None


def test_embedded_target_restores_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """The embedded server's variables are set inside the block and removed after it."""
    module = _target_module()
    with module.app_target() as target:
        assert os.environ["GATEWAY_URL_V2"] == target.base_url
        assert not target.hosted
    assert "GATEWAY_URL_V2" not in os.environ
    assert "APPBUILDER_TOKEN" not in os.environ


@pytest.mark.parametrize("path", _examples(), ids=lambda p: p.name)
def test_example_help_describes_it_without_running(path: Path) -> None:
    """``--help`` prints the example's usage and purpose and starts no server."""
    result = _run(path.name, ["--help"])
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.startswith("usage:"), result.stdout[-3000:]
    assert "APPBUILDER_APP_ID" in result.stdout
    assert "embedded reference server" not in result.stderr
