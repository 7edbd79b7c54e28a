"""Store a JSONL message log (one JSON object per line: conversation, session, time, speaker,
text, id; docs/formats.md) in a memory space of any Neo4j instance. Lines are grouped into
conversations and sessions in the order they first appear; each error names its line.

    python ingest/message_log.py messages.jsonl --space support-bot
"""

from graphmem.cli.scripts import ingest_command

main = ingest_command("jsonl", __doc__)

if __name__ == "__main__":
    main()
