"""The shape of the house: no import cycles inside graphmem, small modules, one registry each
for layers and strategies whose entries declare what they need and use."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from graphmem import cypher
from graphmem.config import Settings
from graphmem.ingest.edits import STATEMENTS as FORGET_STATEMENTS
from graphmem.ingest.layer import SHARED_WRITES, with_options
from graphmem.ingest.layers import LAYERS, run_order, with_needs
from graphmem.ingest.live import STATEMENTS as LIVE_STATEMENTS
from graphmem.retrieve.registry import RECIPES

PACKAGE = Path(__file__).resolve().parents[2] / "graphmem"
MAX_LINES = 400
MAX_MODULES = 20  # in one folder


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path, known: set[str]) -> set[str]:
    """graphmem modules that ``path`` imports (anywhere in it, lazily or under TYPE_CHECKING
    too), resolved to the modules that exist."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            targets = [base, *(f"{base}.{alias.name}" for alias in node.names)]
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            # importing an enclosing package is not a cycle through that package's code
            if target and target != name and not name.startswith(target + "."):
                found.add(target)
    return found


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt):], nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def test_the_cycle_finder_finds_cycles() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None


def import_graph() -> dict[str, set[str]]:
    files = sorted(PACKAGE.rglob("*.py"))
    known = {module_name(p) for p in files}
    return {module_name(p): imports(p, known) for p in files}


def test_no_import_cycles_in_graphmem() -> None:
    graph = import_graph()
    assert graph["graphmem.retrieve.registry"] >= {"graphmem.retrieve.emem"}  # sanity
    assert find_cycle(graph) is None


def package_of(module: str) -> str:
    """The part of graphmem a module belongs to: its package right under ``graphmem`` (a
    module at the root is a part of its own)."""
    parts = module.split(".")
    path = PACKAGE.joinpath(*parts[1:2])
    return ".".join(parts[:2]) if len(parts) > 1 and path.is_dir() else module


def package_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for module, targets in import_graph().items():
        part = package_of(module)
        graph.setdefault(part, set()).update(
            package_of(t) for t in targets if package_of(t) != part)
    for targets in list(graph.values()):
        for target in targets:
            graph.setdefault(target, set())
    return graph


def test_no_import_cycles_between_packages() -> None:
    """A module-level rule cannot see two packages leaning on each other through different
    modules (training and eval, store and ingest did): packages, and root modules, form no
    cycle either."""
    graph = package_graph()
    assert {"graphmem.ingest", "graphmem.cli", "graphmem.store"} <= set(graph)  # sanity
    assert "graphmem.ingest" in graph["graphmem.cli"]
    assert find_cycle(graph) is None


def inside(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def reached_past(package: str, allowed: tuple[str, ...]) -> dict[str, set[str]]:
    """Modules outside ``package`` (and outside ``allowed`` packages) that import one of its
    modules other than its ``__init__``."""
    found: dict[str, set[str]] = {}
    for module, targets in import_graph().items():
        if inside(module, package) or any(inside(module, a) for a in allowed):
            continue
        deep = {t for t in targets if inside(t, package) and t != package}
        if deep:
            found[module] = deep
    return found


LAYER_PACKAGES = sorted(
    f"graphmem.ingest.layers.{p.name}" for p in (PACKAGE / "ingest" / "layers").iterdir()
    if (p / "__init__.py").is_file())


def test_the_layout_shows_the_plug_ins() -> None:
    names = [package.rpartition(".")[2] for package in LAYER_PACKAGES]
    assert names == ["edus", "episodes", "events", "scenes", "segments"]
    for name in LAYERS:  # every built-in layer is a module or package of the registry's folder
        assert LAYERS[name].__module__.startswith("graphmem.ingest.layers."), name
    assert RECIPES["graphmem"].strategy.__module__.startswith("graphmem.retrieve.fused.")


@pytest.mark.parametrize("package", LAYER_PACKAGES)
def test_a_layer_package_is_used_through_its_init(package: str) -> None:
    """Only the registry and training reach past a layer package's ``__init__``."""
    allowed = ("graphmem.ingest.layers", "graphmem.training")
    assert reached_past(package, allowed) == {}


def test_the_fused_strategy_keeps_its_parts() -> None:
    assert reached_past("graphmem.retrieve.fused", ("graphmem.training",)) == {}


def test_the_read_path_does_not_import_the_write_path() -> None:
    graph = import_graph()
    crossing = {m: {t for t in ts if inside(t, "graphmem.ingest")} for m, ts in graph.items()
                if inside(m, "graphmem.retrieve")}
    assert {m: ts for m, ts in crossing.items() if ts} == {}


def test_nothing_at_run_time_imports_training() -> None:
    """Only evaluation, and the command line that offers the train commands, reach it."""
    graph = import_graph()
    runtime = [m for m in graph if not inside(m, "graphmem.training")
               and not inside(m, "graphmem.eval") and not inside(m, "graphmem.cli")]
    assert {m: graph[m] & {t for t in graph if inside(t, "graphmem.training")}
            for m in runtime if any(inside(t, "graphmem.training") for t in graph[m])} == {}


def test_no_folder_holds_more_than_twenty_modules() -> None:
    crowded = {str(d.relative_to(PACKAGE.parent)): n for d in [PACKAGE, *PACKAGE.rglob("*")]
               if d.is_dir() and (n := len(list(d.glob("*.py")))) > MAX_MODULES}
    assert crowded == {}


def test_no_module_is_too_long() -> None:
    long = {str(p.relative_to(PACKAGE.parent)): n for p in PACKAGE.rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_layers_declare_real_files_and_known_needs(name: str) -> None:
    layer = LAYERS[name]
    assert layer.name == name
    assert set(layer.needs) <= set(LAYERS) and name not in layer.needs
    for statement in (*layer.reads, *layer.writes, *layer.prunes):
        assert statement in cypher.names(), f"{name} declares a missing file {statement}"
    for statement in (*layer.writes, *layer.prunes):  # what it writes is in its own folder
        assert statement.startswith(f"ingest/{name}/") or statement in SHARED_WRITES, \
            f"{statement} is not in {name}'s folder"


def test_the_ingest_folders_are_the_layers() -> None:
    """cypher/ingest/ holds a folder per layer and, beside them, the writer's, live
    messages' and edits' own statements."""
    folders = {n.split("/")[1] for n in cypher.names() if n.count("/") == 2
               and n.startswith("ingest/")}
    assert folders == {n for n in LAYERS if LAYERS[n].__module__.startswith("graphmem.")}


def test_every_ingest_statement_belongs_to_a_layer() -> None:
    declared = {s for layer in LAYERS.values() for s in (*layer.reads, *layer.writes,
                                                           *layer.prunes)}
    declared.update({"ingest/mark_layers", "ingest/lock_space",  # the writer's own
                     "ingest/note_appends"})  # and the door's
    declared.add("ingest/conversation_records")  # rebuilding input for `layers add`
    declared.update(LIVE_STATEMENTS)  # live messages: the open session and pending layers
    declared.update(FORGET_STATEMENTS)  # forgetting turns, sessions, conversations
    assert {n for n in cypher.names() if n.startswith("ingest/")} == declared


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_a_layers_options_are_declared_once_in_its_options_model(name: str) -> None:
    """Every option of a built-in layer is a field of its options model, with a description;
    ``Settings`` declares none of them again (GRAPHMEM_<LAYER>_* is read by the model)."""
    layer = LAYERS[name]
    assert not [f for f in Settings.model_fields if f.startswith(f"{name}_")]
    for option, info in layer.options_model.model_fields.items():
        assert info.description, f"{name}.{option} has no description"
    assert layer.read_options(None).model_dump() == layer.read_options(Settings()).model_dump()


def test_layer_options_come_from_code_then_the_environment(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRAPHMEM_SCENES_WINDOW", "5")
    scenes = LAYERS["scenes"]
    assert scenes.read_options(None).window == 5
    assert scenes.read_options(with_options(Settings(), "scenes", window=3)).window == 3
    assert [n for n in LAYERS if LAYERS[n].options_model.model_fields] == [
        "segments", "scenes", "episodes"]  # the fourteen options, in three models
    assert sum(len(LAYERS[n].options_model.model_fields) for n in LAYERS) == 14


@pytest.mark.parametrize("name", sorted(RECIPES))
def test_strategies_need_known_layers(name: str) -> None:
    strategy = RECIPES[name].strategy
    assert "turns" in strategy.needs and set(strategy.needs) <= set(LAYERS)
    assert RECIPES[name].about


def test_layers_run_after_what_they_need() -> None:
    assert with_needs(["events", "edus"]) == ["turns", "edus", "events"]
    assert run_order("events") == ["turns", "events"]
    # a layer the space holds already is read, not recomputed, unless it is asked for
    assert run_order("events", present=["turns"]) == ["events"]
    assert run_order("turns,events", present=["turns"]) == ["turns", "events"]
