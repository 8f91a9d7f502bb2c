"""Every ``Transaction`` method, over one open database transaction: the query modules'
parts put together. A backend subclass runs the SQL and supplies the two locking reads."""

from .events import EventQueries
from .heads import HeadQueries
from .idempotency import IdempotencyQueries
from .log import LogQueries
from .rounds import RoundQueries
from .seats import SeatQueries
from .tables import TableQueries


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
