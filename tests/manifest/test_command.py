"""appclient manifest: print or write tool JSON for importable functions."""

from __future__ import annotations

import argparse
import json
import sys

import pytest

from appclient._manifest import _command

MODULE = "tests.manifest.command_tools"


def run(*argv: str) -> int:
    """Parse argv with the subcommand's own arguments and run it."""
    parser = argparse.ArgumentParser()
    _command.add_arguments(parser)
    return _command.run(parser.parse_args(list(argv)))


def test_prints_one_tool_as_an_object(capsys):
    """One reference prints one tool object."""
    assert run(f"{MODULE}:lookup") == 0
    assert json.loads(capsys.readouterr().out)["function"]["name"] == "lookup"


def test_prints_several_tools_as_a_list(capsys):
    """Several references print a list."""
    assert run(f"{MODULE}:lookup", f"{MODULE}:Toolkit.convert") == 0
    names = [t["function"]["name"] for t in json.loads(capsys.readouterr().out)]
    assert names == ["lookup", "convert"]


def test_two_tools_with_one_name_exit_2_when_printing(capsys):
    """Printing refuses two tools with one name, as writing them with -o does."""
    assert run(MODULE, f"{MODULE}:lookup") == 2
    assert "appears twice" in capsys.readouterr().err


def test_module_alone_selects_its_manifest_functions(capsys):
    """A module without :function selects every @manifest function it defines."""
    assert run(MODULE) == 0
    assert json.loads(capsys.readouterr().out)["function"]["name"] == "lookup"


def test_writes_a_file(tmp_path):
    """-o FILE writes one tool object to that file."""
    target = tmp_path / "lookup.json"
    assert run(f"{MODULE}:lookup", "-o", str(target)) == 0
    assert json.loads(target.read_text("utf-8"))["function"]["name"] == "lookup"


def test_writes_one_file_per_tool_into_a_folder(tmp_path):
    """-o DIR/ writes <name>.json per tool."""
    assert run(f"{MODULE}:lookup", f"{MODULE}:Toolkit.convert", "-o", f"{tmp_path}/out/") == 0
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["convert.json", "lookup.json"]


def test_strict_flag(capsys):
    """--strict prints the strict form."""
    assert run(f"{MODULE}:lookup", "--strict") == 0
    parameters = json.loads(capsys.readouterr().out)["function"]["parameters"]
    assert parameters["required"] == ["word", "limit"]


def test_python_file_reference(tmp_path, capsys):
    """path/to/file.py:function loads the file."""
    source = tmp_path / "my_tools_file.py"
    source.write_text("def hello(name: str) -> str:\n    '''Say hello.'''\n    return name\n")
    assert run(f"{source}:hello") == 0
    assert json.loads(capsys.readouterr().out)["function"]["description"] == "Say hello."


def test_python_file_imports_its_neighbours(tmp_path, capsys, monkeypatch):
    """A file.py reference may import modules next to it, as `python file.py` allows."""
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.setattr(sys, "modules", dict(sys.modules))
    (tmp_path / "neighbour_texts_4f1c.py").write_text("GREETING = 'Say hello.'\n")
    source = tmp_path / "tools_with_neighbour_4f1c.py"
    source.write_text(
        "from neighbour_texts_4f1c import GREETING\n\n"
        "def hello(name: str) -> str:\n    return name\n\nhello.__doc__ = GREETING\n"
    )
    assert run(f"{source}:hello") == 0
    assert json.loads(capsys.readouterr().out)["function"]["description"] == "Say hello."


@pytest.mark.parametrize(
    "reference", ["no_such_module:f", f"{MODULE}:missing", f"{MODULE}:NOT_CALLABLE"]
)
def test_bad_reference_exits_2_with_a_message(reference, capsys):
    """An unknown module or attribute, or a non-callable, exits 2 naming the problem."""
    assert run(reference) == 2
    assert "appclient manifest:" in capsys.readouterr().err


def test_the_appclient_command_runs_the_subcommand(capsys):
    """`appclient manifest` reaches this subcommand through the CLI's parser."""
    cli = pytest.importorskip("appclient.cli")
    assert cli.main(["manifest", f"{MODULE}:lookup"]) == 0
    assert json.loads(capsys.readouterr().out)["function"]["name"] == "lookup"
