"""Store the LoCoMo release (locomo10.json, or a file of the same shape) in a memory space of
any Neo4j instance: one conversation per sample, its session_N lists and dates; the question
annotations are not read.

    python ingest/locomo.py locomo10.json --space locomo --uri bolt://host:7687 --password ...
"""

from graphmem.cli.scripts import ingest_command

main = ingest_command("locomo", __doc__)

if __name__ == "__main__":
    main()
