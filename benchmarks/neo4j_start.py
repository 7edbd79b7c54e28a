"""Cold and warm start of the local Neo4j + GDS, and its resident memory.

Uses its own home and ports so that it never touches a running server:
    python benchmarks/neo4j_start.py
"Cold" is a fresh home: Maven packaging (jars already in ~/.m2), store creation, first start.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from common import make_parser, publish

from graphmem.config import Settings
from graphmem.neo4j_server.local import LocalNeo4j


def timed_start(server: LocalNeo4j) -> tuple[float, float | None]:
    began = time.perf_counter()
    status = server.start()
    return time.perf_counter() - began, status.rss_mb


def main() -> None:
    parser = make_parser(__doc__)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as home:
        settings = Settings(home=Path(home), neo4j_uri="bolt://127.0.0.1:27687",
                            neo4j_http_port=27474)
        server = LocalNeo4j(settings)
        began = time.perf_counter()
        server.build()
        build = time.perf_counter() - began
        cold, rss_cold = timed_start(server)
        server.stop()
        warm, rss_warm = timed_start(server)
        time.sleep(5)
        rss_idle = server.status().rss_mb
        began = time.perf_counter()
        server.stop()
        stop = time.perf_counter() - began
    publish({"build_s": round(build, 1), "cold_start_s": round(cold, 1),
             "warm_start_s": round(warm, 1), "stop_s": round(stop, 1),
             "rss_mb_after_cold_start": rss_cold, "rss_mb_after_warm_start": rss_warm,
             "rss_mb_idle": rss_idle}, args.out, indent=2)


if __name__ == "__main__":
    main()
