"""The frameworks' own test suites, run whole against graphmem's adapters.

    python benchmarks/upstream_suites.py --langgraph LANGGRAPH --agents OPENAI_AGENTS
        [--out upstream_suites.json]

LANGGRAPH and OPENAI_AGENTS are checkouts of langchain-ai/langgraph and
openai/openai-agents-python (e.g. ``git archive HEAD libs/checkpoint libs/checkpoint-sqlite``
of a clone, or of the ``fetch`` tool's snapshot). Needs pytest-mock beside the test extras,
and langgraph-checkpoint-sqlite for its suite's imports (``pip install --target DIR
langgraph-checkpoint-sqlite sqlite-vec --no-deps`` and ``--site DIR``). Each suite runs in a
folder of its own holding only its tests (so that the checkout's packages never shadow the
installed ones), with ``benchmarks/upstream_plugin.py``, which swaps the reference store each
test constructs for graphmem's adapter on the configured Neo4j and changes nothing else.
Reported per suite: tests run, passed, failed, and the failed tests' names, which
``docs/integrations.md`` accounts for one by one (fixed, or different on purpose).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree
from pathlib import Path

from common import make_parser, publish

HERE = Path(__file__).resolve().parent
# suite -> (checkout argument, test files within it)
SUITES = {
    "langgraph checkpoint test_store.py": (
        "langgraph", ["libs/checkpoint/tests/test_store.py",
                      "libs/checkpoint/tests/embed_test_utils.py"]),
    "langgraph checkpoint-sqlite test_store.py": (
        "langgraph", ["libs/checkpoint-sqlite/tests/test_store.py"]),
    "openai-agents tests/memory test_session.py, test_session_limit.py": (
        "agents", ["tests"]),
}
RUN = {"openai-agents tests/memory test_session.py, test_session_limit.py":
       ["tests/memory/test_session.py", "tests/memory/test_session_limit.py"]}


def run_suite(name: str, checkout: Path, files: list[str], site: Path | None) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as folder:
        tests = Path(folder) / "tests"
        for given in files:
            source = checkout / given
            if source.is_dir():
                shutil.copytree(source, tests, dirs_exist_ok=True)
            else:
                tests.mkdir(exist_ok=True)
                shutil.copy(source, tests / source.name)
        (tests / "__init__.py").touch()
        report = Path(folder) / "report.xml"
        path = [str(HERE), folder] + ([str(site)] if site else [])
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(path)}
        targets = RUN.get(name, [f"tests/{Path(files[0]).name}"])
        subprocess.run([sys.executable, "-m", "pytest", *targets, "-p", "upstream_plugin",
                        "-q", "-o", "asyncio_mode=auto", "-o", "addopts=", "-p",
                        "no:cacheprovider", f"--junitxml={report}"], cwd=folder, env=env,
                       stdout=subprocess.DEVNULL, check=False)
        cases = ElementTree.parse(report).getroot().iter("testcase")
        failed, run = [], 0
        for case in cases:
            if case.find("skipped") is not None:
                continue
            run += 1
            if case.find("failure") is not None or case.find("error") is not None:
                failed.append(case.get("name", "?"))
    return {"run": run, "passed": run - len(failed), "failed": len(failed),
            "failures": sorted(failed)}


def main() -> None:
    parser = make_parser(__doc__)
    parser.add_argument("--langgraph", type=Path, required=True)
    parser.add_argument("--agents", type=Path, required=True)
    parser.add_argument("--site", type=Path, default=None,
                        help="a folder of packages the suites import (checkout-sqlite's)")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    checkouts = {"langgraph": args.langgraph, "agents": args.agents}
    publish({name: run_suite(name, checkouts[which], files, args.site)
             for name, (which, files) in SUITES.items()}, args.out)


if __name__ == "__main__":
    main()
