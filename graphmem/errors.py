"""Exceptions that graphmem raises on purpose; each message names the place of the problem."""

from __future__ import annotations

from typing import Any


class GraphmemError(Exception):
    """Base class of graphmem's own errors."""

    def __reduce__(self) -> tuple[Any, ...]:
        # rebuilt from its message and attributes, not by calling ``__init__`` again (whose
        # arguments differ by class): a search process's error reaches the server unchanged
        return _rebuilt, (type(self), self.args, self.__dict__)


def _rebuilt(cls: type[GraphmemError], args: tuple[Any, ...],
             state: dict[str, Any]) -> GraphmemError:
    error = cls.__new__(cls, *args)
    error.args = args
    error.__dict__.update(state)
    return error


class InputError(GraphmemError):
    """Bad input: names the file, the record and the field, where known."""

    def __init__(
        self, message: str, *, file: str | None = None, record: str | None = None,
        field: str | None = None,
    ) -> None:
        self.file, self.record, self.field, self.reason = file, record, field, message
        where = ", ".join(
            f"{label} {value}"
            for label, value in (("file", file), ("record", record), ("field", field))
            if value is not None
        )
        super().__init__(f"{where}: {message}" if where else message)


class NotFoundError(InputError):
    """What was asked for by name (a conversation, a unit) is not stored (REST: 404)."""


class ConfigurationError(GraphmemError):
    """A setting is missing or contradicts another."""


class DatabaseUnavailable(GraphmemError):
    """Neo4j cannot be reached, or refuses the configured credentials (CLI exit code 4)."""


class BusyError(GraphmemError):
    """A write could not commit before its deadline (``GRAPHMEM_WRITE_DEADLINE``): other
    writers of the space held it, or deadlocked with it, all along. Nothing of it was stored;
    the same call later will (HTTP 503 with ``Retry-After``)."""

    retry_after = 1  # seconds a client waits before trying again


class UnknownStrategyError(GraphmemError):
    """No retrieval strategy has that name."""


class MissingLayerError(GraphmemError):
    """A strategy needs a layer that the space does not hold (yet)."""

    def __init__(self, message: str, *, layer: str) -> None:
        self.layer = layer
        super().__init__(message)


class MixedModelsError(ConfigurationError):
    """A space's vectors come from another embedder than the one configured."""

    def __init__(self, space: str, held: str, configured: str) -> None:
        self.space, self.held, self.configured = space, held, configured
        super().__init__(
            f"space {space!r} holds vectors of the embedder {held!r}, and this process embeds "
            f"with {configured!r}: vectors of two models do not compare. Configure {held!r} "
            f"again, or move the space to {configured!r} with: graphmem reembed --space {space}")

