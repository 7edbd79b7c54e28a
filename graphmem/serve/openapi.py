"""The REST server's OpenAPI schema as a file, which the TypeScript client is generated from
(``clients/typescript``: ``npm run generate``). Building it reads no database.

    python -m graphmem.serve.openapi clients/typescript/openapi.json
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

CLIENT_SCHEMA = Path(__file__).resolve().parents[2] / "clients" / "typescript" / "openapi.json"


def schema() -> dict[str, Any]:
    from graphmem.client import Memory
    from graphmem.config import Settings
    from graphmem.serve.rest import build_app

    with Memory(Settings()) as memory:
        return build_app(memory, {}, 1).openapi()


def render() -> str:
    return json.dumps(schema(), indent=2, sort_keys=True) + "\n"


def main(argv: list[str]) -> None:
    target = Path(argv[0]) if argv else CLIENT_SCHEMA
    target.write_text(render(), encoding="utf-8")
    print(f"wrote {target}")


if __name__ == "__main__":
    main(sys.argv[1:])
