"""Each operation's parameters, field by field: every surface that offers an operation (the
CLI, REST, MCP) takes each parameter of the ``Memory`` method under the same name with the
same default, and takes nothing else, unless ``graphmem.operations`` declares the difference
and says why. Each surface is read from its own schema: click's parameters, the OpenAPI
document, the MCP server's tool list."""

from __future__ import annotations

import asyncio
import inspect
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import click
import pytest

from graphmem import Memory
from graphmem.cli import main
from graphmem.operations import OPERATIONS, Operation
from graphmem.serve.access import Spaces
from graphmem.serve.mcp_tools import build_server
from graphmem.serve.rest import build_app

REQUIRED = "<required>"
SURFACES = ("cli", "rest", "mcp")
# an MCP server started for one space takes it as the default; a parameter of every tool
MCP_SPACE = "an MCP server may serve one space, which is then the default"


def python_parameters(op: Operation) -> dict[str, Any]:
    signature = inspect.signature(getattr(Memory, op.name))
    return {n: REQUIRED if p.default is inspect.Parameter.empty else p.default
            for n, p in signature.parameters.items()
            if n != "self" and p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)}


def cli_parameters(path: str) -> dict[str, Any]:
    command: Any = main
    for part in path.split():
        command = command.commands[part]
    found: dict[str, Any] = {}
    for param in command.params:
        default = param.default
        if param.required:
            default = REQUIRED
        elif isinstance(param, click.Option) and (param.is_flag or param.multiple) \
                and not isinstance(default, (bool, str, int, float)) and default is not None:
            default = False if param.is_flag else None  # click's "not given"
        found[str(param.name)] = default
    return found


def rest_parameters(spec: dict[str, Any], route: str) -> dict[str, Any]:
    method, path = route.split(" ", 1)
    operation = spec["paths"][path][method.lower()]
    found = {p["name"]: REQUIRED if p.get("required") else p.get("schema", {}).get("default")
             for p in operation.get("parameters", [])}
    body = operation.get("requestBody", {}).get("content", {}).get("application/json", {})
    ref = body.get("schema", {}).get("$ref")
    if ref:
        schema = spec["components"]["schemas"][ref.rsplit("/", 1)[-1]]
        found.update({k: REQUIRED if k in schema.get("required", []) else v.get("default")
                      for k, v in schema.get("properties", {}).items()})
    return found


@pytest.fixture(scope="module")
def surfaces(settings: Any) -> dict[str, Any]:
    memory = Memory(settings)
    try:
        tools = asyncio.run(build_server(memory, Spaces.of(["s"])).list_tools())
        return {"spec": build_app(memory, {"t": Spaces.of(["s"])}, 1_000_000).openapi(),
                "tools": {t.name: t.input_schema for t in tools}}
    finally:
        memory.close()


def surface_parameters(surfaces: dict[str, Any], op: Operation, surface: str) -> dict[str, Any]:
    where = op.on(surface)
    assert where is not None
    if surface == "cli":
        return cli_parameters(where)
    if surface == "rest":
        return rest_parameters(surfaces["spec"], where)
    schema = surfaces["tools"][where]
    return {k: REQUIRED if k in schema.get("required", []) else v.get("default")
            for k, v in schema["properties"].items()}


CASES = [(op.name, s) for op in OPERATIONS for s in SURFACES if op.on(s)]


@pytest.mark.parametrize(("name", "surface"), CASES)
def test_each_parameter_is_on_each_surface_as_declared(surfaces: dict[str, Any], name: str,
                                                       surface: str) -> None:
    op = next(o for o in OPERATIONS if o.name == name)
    theirs = surface_parameters(surfaces, op, surface)
    ours = python_parameters(op)
    problems: list[str] = []
    expected: set[str] = set()
    for parameter, default in ours.items():
        called = op.name_on(surface, parameter)
        why_not = op.why_not_on(surface, parameter)
        if why_not is not None:
            if called in theirs:
                problems.append(f"{called}: declared absent ({why_not}) but offered")
            continue
        if called not in theirs:
            problems.append(f"{parameter} (as {called!r}) is missing")
            continue
        expected.add(called)
        differs = op.defaults_on.get(surface, {}).get(called)
        if surface == "mcp" and parameter == "space":
            differs = differs or MCP_SPACE
        if theirs[called] != default and differs is None:
            problems.append(f"{called}: default {theirs[called]!r} here, {default!r} in Python")
    for extra in set(theirs) - expected:
        if extra not in op.only_on.get(surface, {}):
            problems.append(f"{extra}: not a parameter of Memory.{op.name} and not declared")
    # every declaration is of something that exists: none is left behind by a rename
    for declared in (*op.only_on.get(surface, {}), *op.defaults_on.get(surface, {})):
        if declared not in theirs:
            problems.append(f"{declared}: declared for {surface}, which has no such parameter")
    assert problems == [], f"{surface} {op.on(surface)}: " + "; ".join(problems)


def test_the_messages_page_is_the_same_everywhere(surfaces: dict[str, Any]) -> None:
    """The disagreements this check found first: a page of 50 messages in MCP and the CLI but
    100 in Python and REST, no `since` in MCP and the CLI, no strategy for MCP's answers."""
    op = next(o for o in OPERATIONS if o.name == "messages")
    for surface in SURFACES:
        found = surface_parameters(surfaces, op, surface)
        assert found["limit"] == 100 and "since" in found, surface
    assert "strategy" in surfaces["tools"]["answer_question"]["properties"]


@pytest.fixture(scope="module")
def typescript_methods() -> dict[str, Any]:
    """What each method of the TypeScript client sends (``clients/typescript/scripts/
    methods.mjs`` reads its source with the TypeScript compiler)."""
    client = Path(__file__).resolve().parents[2] / "clients" / "typescript"
    npm = shutil.which("npm")
    assert npm is not None, "the TypeScript client's checks need Node 20 and npm on the PATH"
    if not (client / "node_modules" / "typescript").exists():
        subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=client,
                       check=True, timeout=600)
    done = subprocess.run(["node", "scripts/methods.mjs"], cwd=client, capture_output=True,
                          text=True, check=True, timeout=120)
    return json.loads(done.stdout)  # type: ignore[no-any-return]


TS_CASES = [op.name for op in OPERATIONS if op.typescript and op.rest]


@pytest.mark.parametrize("name", TS_CASES)
def test_the_typescript_client_sends_each_rest_field(surfaces: dict[str, Any],
                                                      typescript_methods: dict[str, Any],
                                                      name: str) -> None:
    """Each method of the TypeScript client calls its operation's route, can fill every field
    the route takes (snake_cased from its options) unless ``typescript`` is declared without
    it, sends nothing else, and sends the route's own default for what the caller leaves out
    (or nothing, for the server to fill in)."""
    op = next(o for o in OPERATIONS if o.name == name)
    method = typescript_methods[str(op.typescript)]
    assert method["route"] in (op.rest, op.rest_also)
    theirs = rest_parameters(surfaces["spec"], method["route"])
    declared = op.unoffered_on.get("typescript", {})
    problems = [f"{f}: taken by the route, not by the client" for f in theirs
                if f not in method["fields"] and f not in declared]
    problems += [f"{f}: declared absent ({declared[f]}) but offered" for f in declared
                 if f in method["fields"]]
    problems += [f"{f}: the route takes no such field" for f in method["fields"]
                 if f not in theirs]
    problems += [f"{f}: {v!r} sent when left out, the route's default is {theirs.get(f)!r}"
                 for f, v in method["left_out"].items() if v is not None and v != theirs.get(f)]
    assert problems == [], f"typescript {op.typescript}: " + "; ".join(problems)
