"""TCP relays on loopback: ``Listener``, what every relay of the tests is built on (the
PostgreSQL one of test_database_loss.py too), and ``Relay``, between a client and the service,
which sees every HTTP request go by.

It keeps the client's connection alive as a reverse proxy in front of the service would
(werkzeug's server, which the tests run, closes its connection after every
answer): each request goes to the service on a connection of its own, and its answer comes
back without the service's ``Connection: close``. It counts the connections it accepts,
keeps each request's line and headers, and on demand loses the answer to a request (the
service applied it; the client's connection is cut before the answer reaches it) or answers
in the service's place with a 503 ``database_unavailable``. Requests and answers are passed
one at a time per connection (each answer has a Content-Length, as the service's JSON
answers do).
"""

import socket
import threading
from contextlib import suppress
from dataclasses import dataclass, field

UNAVAILABLE = (
    b'{"error": {"code": "database_unavailable", "message": "away", '
    b'"details": {"outcome": "rolled_back"}}}'
)


@dataclass
class Seen:
    """One request as it went by: its request line and headers (names in lower case)."""

    line: str
    headers: dict[str, str]

    @property
    def method(self) -> str:
        return self.line.split(" ")[0]

    @property
    def path(self) -> str:
        return self.line.split(" ")[1]


class Listener:
    """A loopback port whose every connection is served, on a thread of its own, by ``serve``;
    ``accepted`` counts them. ``close`` stops listening and shuts every connection."""

    def __init__(self) -> None:
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = int(self._listener.getsockname()[1])
        self.accepted = 0
        self._lock = threading.Lock()
        self._sockets: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def serve(self, client: socket.socket) -> None:
        raise NotImplementedError

    def close(self) -> None:
        self._listener.close()
        with self._lock:
            for end in self._sockets:
                shut(end)

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            with self._lock:
                self.accepted += 1
                self._sockets.append(client)
            threading.Thread(target=self.serve, args=(client,), daemon=True).start()


def shut(end: socket.socket) -> None:
    """Shut and close one end of a connection (already shut by the other side or not)."""
    with suppress(OSError):
        end.shutdown(socket.SHUT_RDWR)
    end.close()


@dataclass
class Relay(Listener):
    upstream_port: int
    seen: list[Seen] = field(default_factory=list)
    lose_answer_to: str | None = None  # a path's end: lose the next answer to a request there
    unavailable: int = 0  # answer the next n requests 503 in the service's place
    retry_after: str = "3"

    def __post_init__(self) -> None:
        super().__init__()

    def serve(self, client: socket.socket) -> None:
        from_client = _Reader(client)
        try:
            while (request := from_client.message()) is not None:
                seen = _seen(request)
                with self._lock:
                    self.seen.append(seen)
                    lose = self.lose_answer_to is not None and seen.path.endswith(
                        self.lose_answer_to
                    )
                    if lose:
                        self.lose_answer_to = None
                    refuse = self.unavailable > 0
                    self.unavailable -= refuse
                if refuse:
                    client.sendall(self._unavailable())
                    continue
                answer = self._pass_on(request)
                if answer is None or lose:
                    return  # the service has answered; the client never hears it
                client.sendall(answer)
        except OSError:
            return
        finally:
            shut(client)

    def _pass_on(self, request: bytes) -> bytes | None:
        """The service's answer to ``request``, without its ``Connection`` header."""
        with socket.create_connection(("127.0.0.1", self.upstream_port)) as server:
            server.sendall(request)
            answer = _Reader(server).message()
        if answer is None:
            return None
        head, _, body = answer.partition(b"\r\n\r\n")
        lines = [
            line for line in head.split(b"\r\n") if not line.lower().startswith(b"connection:")
        ]
        return b"\r\n".join(lines) + b"\r\n\r\n" + body

    def _unavailable(self) -> bytes:
        head = (
            "HTTP/1.1 503 SERVICE UNAVAILABLE\r\nContent-Type: application/json\r\n"
            f"Retry-After: {self.retry_after}\r\nContent-Length: {len(UNAVAILABLE)}\r\n\r\n"
        )
        return head.encode() + UNAVAILABLE


class _Reader:
    """Whole HTTP messages (head and Content-Length body) from one end of a connection."""

    def __init__(self, end: socket.socket) -> None:
        self.end, self.buffer = end, b""

    def message(self) -> bytes | None:
        while b"\r\n\r\n" not in self.buffer:
            if not self._more():
                return None
        head, _, _ = self.buffer.partition(b"\r\n\r\n")
        length = int(_headers(head).get("content-length", "0"))
        total = len(head) + 4 + length
        while len(self.buffer) < total:
            if not self._more():
                return None
        message, self.buffer = self.buffer[:total], self.buffer[total:]
        return message

    def _more(self) -> bool:
        data = self.end.recv(65536)
        self.buffer += data
        return bool(data)


def _headers(head: bytes) -> dict[str, str]:
    lines = head.decode("latin-1").split("\r\n")[1:]
    pairs = (line.partition(":") for line in lines)
    return {name.strip().lower(): value.strip() for name, _, value in pairs}


def _seen(request: bytes) -> Seen:
    head, _, _ = request.partition(b"\r\n\r\n")
    return Seen(head.decode("latin-1").split("\r\n")[0], _headers(head))
