"""Every ``Transaction`` method, over one open database transaction: the query modules'
parts put together. A backend subclass runs the SQL and supplies the two locking reads."""

from fairdeal.api.storage.events import EventQueries
from fairdeal.api.storage.heads import HeadQueries
from fairdeal.api.storage.idempotency import IdempotencyQueries
from fairdeal.api.storage.log import LogQueries
from fairdeal.api.storage.rounds import RoundQueries
from fairdeal.api.storage.seats import SeatQueries
from fairdeal.api.storage.tables import TableQueries


class SqlTransaction(
    TableQueries,
    EventQueries,
    RoundQueries,
    HeadQueries,
    SeatQueries,
    IdempotencyQueries,
    LogQueries,
):
    """A read-write (or, from ``Store.reader()``, read-only) transaction of either backend."""
