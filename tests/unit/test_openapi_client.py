"""The TypeScript client is typed from the REST server's schema as it is now: a route or a
field changed without exporting the schema again fails here (and a schema exported without
regenerating the types fails the client's own test, test/generated.test.ts)."""

from graphmem.serve.openapi import CLIENT_SCHEMA, render


def test_the_client_schema_is_the_servers() -> None:
    assert CLIENT_SCHEMA.read_text(encoding="utf-8") == render(), (
        "the REST schema changed: run `python -m graphmem.serve.openapi` and "
        "`npm run generate` in clients/typescript")
