"""Store a LongMemEval file (oracle, S or M; .json or .json.gz) in a memory space of any Neo4j
instance: each question's haystack becomes one conversation keyed by its question id.

    python ingest/longmemeval.py longmemeval_s.json --space lme --uri bolt://host:7687
"""

from graphmem.cli.scripts import ingest_command

main = ingest_command("longmemeval", __doc__)

if __name__ == "__main__":
    main()
