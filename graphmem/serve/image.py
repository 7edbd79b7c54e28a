"""The server image's two helpers, run as ``python -m graphmem.serve.image``:

- ``prepare``: while the image is built, everything the first start would otherwise make
  (the embedder's ONNX graph under ``GRAPHMEM_HOME``) and a load of every model, so a start
  downloads and exports nothing;
- ``health URL``: the container's health check, exit 0 when the REST server at ``URL``
  answers ``/v1/health`` (no token needed) and 1 otherwise.
"""

from __future__ import annotations

import sys
import urllib.request


def prepare() -> None:
    from graphmem.config import Settings
    from graphmem.providers.embedder import SentenceTransformerEmbedder
    from graphmem.providers.nlp import parse

    embedder = SentenceTransformerEmbedder.from_settings(Settings())
    embedder.prepare()
    embedder.embed(["ready"])
    parse(["Ready on 1 May 2023."])


def health(url: str) -> int:
    try:
        with urllib.request.urlopen(f"{url.rstrip('/')}/v1/health", timeout=4) as answer:
            return 0 if answer.status == 200 else 1
    except OSError:
        return 1


def main(argv: list[str]) -> int:
    if argv[:1] == ["prepare"]:
        prepare()
        return 0
    if argv[:1] == ["health"] and len(argv) == 2:
        return health(argv[1])
    print("usage: python -m graphmem.serve.image prepare | health URL", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
