"""Store conversations in graphmem's own JSON chat format (docs/formats.md) in a memory space
of any Neo4j instance. Ingesting a file again changes nothing; a file with new sessions of a
stored conversation appends them.

    python ingest/chat_json.py chats.json --space alice
"""

from graphmem.cli.scripts import ingest_command

main = ingest_command("json", __doc__)

if __name__ == "__main__":
    main()
