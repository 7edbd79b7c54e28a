"""The Neo4j side: one driver, named statements, managed read and write transactions."""

from __future__ import annotations

import itertools
import random
import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache
from typing import TYPE_CHECKING, Any, LiteralString, TypeVar, cast

from neo4j import Driver, GraphDatabase, ManagedTransaction, Query, unit_of_work
from neo4j.exceptions import (
    AuthError,
    DriverError,
    ResultFailedError,
    ServiceUnavailable,
    SessionExpired,
    TransientError,
)

from graphmem import cypher
from graphmem.config import Settings
from graphmem.errors import BusyError, ConfigurationError, DatabaseUnavailable
from graphmem.telemetry import current_actor

if TYPE_CHECKING:
    from graphmem.providers.embedder import Embedder

T = TypeVar("T")


def _text(name: str) -> LiteralString:
    # the text comes from a file in the closed set under cypher/, never from user input
    return cypher.load(name)


_WRITING = re.compile(r"\b(CREATE|MERGE|SET|DELETE|REMOVE)\b")
# write statements that change no space's data, so they need no door (GraphStore.change)
OUTSIDE_THE_DOOR = {
    "admin/reembed/stage_vectors": "staged vectors are read by nothing until the swap moves "
                                   "them in, which goes through the door",
    "retrieve/ppr_project": "a GDS projection of a space, named by its revision: not its data",
    "retrieve/ppr_evict": "drops a GDS projection", "retrieve/ppr_forget": "drops projections",
    "retrieve/ppr_drop": "drops a GDS projection",
}


# set by statement_by_statement: tests that run one Cypher file at a time, outside any door
_ONE_AT_A_TIME: ContextVar[bool] = ContextVar("graphmem_one_statement_at_a_time", default=False)


@contextmanager
def statement_by_statement() -> Iterator[None]:
    """Lets named statements change a space outside :meth:`GraphStore.change`, in this
    context only: for tests of one Cypher file at a time (as Neo4j Browser runs them), never
    for a write path of graphmem's own."""
    token = _ONE_AT_A_TIME.set(True)
    try:
        yield
    finally:
        _ONE_AT_A_TIME.reset(token)


@cache
def changes_a_space(name: str) -> bool:
    """Whether the named statement writes (a write clause outside its comments) and is not
    one of ``OUTSIDE_THE_DOOR``."""
    code = "\n".join(line.split("//", 1)[0] for line in cypher.load(name).splitlines())
    return name not in OUTSIDE_THE_DOOR and _WRITING.search(code) is not None


APPENDS_KEPT = 5_000  # appended turns a space lists before its readers read it whole again
COUNTED = ("nodes_created", "nodes_deleted", "relationships_created",
           "relationships_deleted", "properties_set")


class Tx:
    """A managed transaction that runs statements by name and counts what they change."""

    def __init__(self, tx: ManagedTransaction) -> None:
        self._tx = tx
        self.counts = dict.fromkeys(COUNTED, 0)
        self.space: str | None = None  # the space GraphStore.change opened this for
        self.lock: dict[str, Any] = {}  # its lock's row: the new revision, the embedder
        # the Turn ids a change only appended (set by the live path), else None: what
        # ``ingest/note_appends`` lets readers read alone
        self.appended: list[str] | None = None

    def _check(self, name: str) -> None:
        if self.space is None and changes_a_space(name) and not _ONE_AT_A_TIME.get():
            raise RuntimeError(f"{name} changes a space outside GraphStore.change, the one "
                               "door that takes the space's lock, gives it a new revision "
                               "and records the change in its history")

    def _count(self, result: Any) -> None:
        counters = result.consume().counters
        for name in COUNTED:
            self.counts[name] += getattr(counters, name)

    def run(self, name: str, **params: Any) -> list[dict[str, Any]]:
        self._check(name)
        result = self._tx.run(_text(name), params)
        rows = [record.data() for record in result]
        self._count(result)
        return rows

    def run_plain(self, name: str, **params: Any) -> list[dict[str, Any]]:
        """Like :meth:`run` for a statement that returns plain values only (no nodes,
        relationships or paths): the rows as the driver decoded them, without
        ``Record.data()``'s walk over every value (7x faster for rows of vectors)."""
        self._check(name)
        result = self._tx.run(_text(name), params)
        rows = [dict(record) for record in result]
        self._count(result)
        return rows

    def record(self, space: str, what: str) -> None:
        """The last statement of a transaction that changed ``space`` (run by
        :meth:`GraphStore.change`): one entry of its history (``what``, when, through which
        surface and caller, the counts of what the transaction changed). ``what`` says what
        kind of change it was, never its content."""
        from graphmem.ids import space_prefix  # ids: a leaf module of the write path

        actor = current_actor()
        self.run("admin/record_change", space=space, prefix=f"{space_prefix(space)}change/",
                 what=what, surface=actor.surface, caller=actor.caller, counts=dict(self.counts))


def present(rows: list[dict[str, Any]], needed: tuple[str, ...]) -> list[dict[str, Any]]:
    """The rows whose ``needed`` values are all there. Neo4j reads each value as committed
    when it is read, so a node another transaction deletes in the middle of a read comes back
    with nulls; the change that deleted it gave its space a new revision, so what was read
    is read again on the next call."""
    return [row for row in rows if all(row.get(k) is not None for k in needed)]


def _transient(exc: BaseException) -> bool:
    """A transient failure (a deadlock, a lock timeout), or an error it caused."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, TransientError):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False


def _unit(work: Callable[[Tx], T], name: str) -> Callable[[ManagedTransaction], T]:
    @unit_of_work(metadata={"graphmem": name})
    def run(tx: ManagedTransaction) -> T:
        return work(Tx(tx))
    return run


class GraphStore:
    """Reads and writes graphmem's graph. Every statement comes from ``cypher/``."""

    def __init__(self, settings: Settings, driver: Driver | None = None) -> None:
        self.settings = settings
        auth = (settings.neo4j_user, settings.neo4j_password.get_secret_value())
        timeout = settings.neo4j_timeout
        try:
            self.driver = driver or GraphDatabase.driver(
                settings.neo4j_uri, auth=auth,
                # schema-less hints such as "relationship type SYNONYM does not exist yet"
                notifications_min_severity="OFF",
                connection_timeout=timeout, connection_acquisition_timeout=2 * timeout,
                max_transaction_retry_time=timeout,
            )
        except (DriverError, ValueError) as exc:  # e.g. a URI the driver cannot use
            raise DatabaseUnavailable(f"cannot use GRAPHMEM_NEO4J_URI "
                                      f"{settings.neo4j_uri!r}: {exc}") from exc
        self.database = settings.neo4j_database
        self._reached = driver is not None  # a driver handed in is the caller's to check

    def close(self) -> None:
        self.driver.close()

    def __enter__(self) -> GraphStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _session(self) -> Iterator[Any]:
        """A session; a server that cannot be reached, or refuses us, is one clear error."""
        uri = self.settings.neo4j_uri
        try:
            if not self._reached:  # fail fast: transaction retries cannot help a dead server
                self.driver.verify_connectivity()
                self._reached = True
            with self.driver.session(database=self.database) as session:
                yield session
        except AuthError as exc:
            raise DatabaseUnavailable(
                f"Neo4j at {uri} refused user {self.settings.neo4j_user!r}: check "
                "GRAPHMEM_NEO4J_USER and GRAPHMEM_NEO4J_PASSWORD") from exc
        except (ServiceUnavailable, SessionExpired, OSError) as exc:
            raise DatabaseUnavailable(
                f"cannot reach Neo4j at {uri} within {self.settings.neo4j_timeout:g}s "
                f"({type(exc).__name__}): start it with `graphmem neo4j start`, or check "
                "GRAPHMEM_NEO4J_URI and GRAPHMEM_NEO4J_TIMEOUT") from exc

    def reach(self) -> None:
        """Make sure Neo4j answers (one clear ``DatabaseUnavailable`` when it does not), before
        anything slow (loading the models) is begun."""
        with self._session():
            pass

    def read(self, name: str, **params: Any) -> list[dict[str, Any]]:
        """Run one named statement in a managed read transaction."""
        return self.read_tx(lambda tx: tx.run(name, **params), name)

    def read_plain(self, name: str, **params: Any) -> list[dict[str, Any]]:
        """:meth:`read` for a statement that returns plain values only (``Tx.run_plain``)."""
        return self.read_tx(lambda tx: tx.run_plain(name, **params), name)

    def write(self, name: str, **params: Any) -> list[dict[str, Any]]:
        """Run one named statement in a managed write transaction."""
        return self.write_tx(lambda tx: tx.run(name, **params), name)

    def read_tx(self, work: Callable[[Tx], T], name: str) -> T:
        """Run ``work`` in a read transaction: with a ``neo4j://`` URI the driver may send it
        to any member of a cluster. ``name`` tags the transaction (``SHOW TRANSACTIONS``
        and the query log show it as metadata ``graphmem``)."""
        with self._session() as session:
            return cast(T, session.execute_read(_unit(work, name)))

    def write_tx(self, work: Callable[[Tx], T], name: str) -> T:
        """Run ``work`` in one write transaction: all of it is stored, or none of it. A
        transaction that meets other writers (a lock held too long, a deadlock Neo4j broke)
        is run again from the start, with a growing random pause, until
        ``GRAPHMEM_WRITE_DEADLINE``; past it, :class:`BusyError` (nothing stored)."""
        def once() -> T:
            with self._session() as session:
                return cast(T, session.execute_write(_unit(work, name)))
        return self._until_deadline(once, name, "nothing of this write was stored")

    def _until_deadline(self, attempt: Callable[[], T], name: str, lost: str) -> T:
        """``attempt()``, made again after a transient failure (other writers met) with a
        growing random pause until ``GRAPHMEM_WRITE_DEADLINE``; past it, :class:`BusyError`
        saying ``lost``."""
        deadline = time.monotonic() + self.settings.write_deadline
        for tries in itertools.count():
            try:
                return attempt()
            except (TransientError, ResultFailedError) as exc:
                # a deadlock met while a result is read surfaces, once the driver rolls back,
                # as a ResultFailedError caused by it: the same transient failure
                if not _transient(exc):
                    raise
                pause = min(1.0, 0.02 * 2 ** tries) * random.uniform(0.5, 1.5)
                if time.monotonic() + pause >= deadline:
                    raise BusyError(
                        f"{name}: other writers held the space for "
                        f"{self.settings.write_deadline:g}s (GRAPHMEM_WRITE_DEADLINE; "
                        f"{exc.code or type(exc).__name__}); {lost}: try again") from exc
                time.sleep(pause)
        raise AssertionError("unreachable")

    def change(self, space: str, what: str, work: Callable[[Tx], T], name: str,
               embedder: str | None = None) -> T:
        """The one door for changing a space: ``work`` in one write transaction (retried as
        :meth:`write_tx` does) that first takes the space's lock and gives it a new revision
        (``ingest/lock_space``; ``embedder``: the model of the vectors this change writes,
        checked by the caller against ``tx.lock["embedder"]``), so that every cache and
        projection of the space is read afresh, and last records ``what`` in its history and
        whether the change only appended turns (``tx.appended``; ``ingest/note_appends``).
        A statement that writes a space's data anywhere else raises (``Tx``)."""
        def door(tx: Tx) -> T:
            tx.space = space
            [tx.lock] = tx.run("ingest/lock_space", space=space, embedder=embedder)
            out = work(tx)
            tx.record(space, what)
            tx.run("ingest/note_appends", space=space, turn_ids=tx.appended,
                   most=APPENDS_KEPT)
            return out
        return self.write_tx(door, name)

    def run_autocommit(self, name: str, **params: Any) -> None:
        """For statements that batch themselves (``CALL {...} IN TRANSACTIONS``), which are
        written to be run again from the start: one that meets other writers is, as
        :meth:`write_tx` runs a transaction again."""
        def once() -> None:
            with self._session() as session:
                session.run(Query(_text(name), metadata={"graphmem": name}), params).consume()
        self._until_deadline(once, name, "what its batches had done stays, running it again "
                             "completes it")

    def apply_schema(self) -> list[str]:
        """Create every constraint and index (idempotent), then wait until they are online.
        Vector indexes get the configured embedding dimension."""
        applied = [name for name in cypher.names() if name.startswith("schema/")]
        for name in applied:
            self.run_statements(name, dimensions=self.settings.embedding_dimensions)
        with self._session() as session:
            session.run("CALL db.awaitIndexes(300)").consume()
        return applied

    def run_statements(self, name: str, **params: Any) -> None:
        """Every statement of a file of several (schema changes), one after another, each in
        its own auto-commit transaction."""
        with self._session() as session:
            for statement in cypher.statements(name):
                session.run(Query(statement, metadata={"graphmem": name}), params).consume()

    def check_vector_indexes(self, embedder: Embedder) -> None:
        """Refuse to go on when the embedder, GRAPHMEM_EMBEDDING_DIMENSIONS and the vector
        indexes that exist disagree on the dimension."""
        wanted = self.settings.embedding_dimensions
        if embedder.dimensions != wanted:
            raise ConfigurationError(
                f"embedder {embedder.name!r} gives {embedder.dimensions}-d vectors but "
                f"GRAPHMEM_EMBEDDING_DIMENSIONS is {wanted}")
        wrong = [f"{row['name']} ({row['dimensions']}-d)"
                 for row in self.read("admin/vector_indexes")
                 if row["dimensions"] is not None and int(row["dimensions"]) != wanted]
        if wrong:
            raise ConfigurationError(
                f"the vector indexes {', '.join(wrong)} of {self.settings.neo4j_uri} do not "
                f"hold the configured {wanted}-d embeddings (GRAPHMEM_EMBEDDING_DIMENSIONS, "
                f"embedder {embedder.name!r}); use a database made for this embedder, or drop "
                "those indexes and re-ingest")
