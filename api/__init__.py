"""fairdeal's edges: the HTTP service, the command lines and the client SDK. Thin: the rules live
in ``fairdeal``.

- ``http/``: the Flask app (routes, request and response schemas, the OpenAPI document, rate
  limits, metrics, readiness, the tiles, logs) and ``fairdeal serve``'s WSGI server.
- ``service/``: what the routes call, without Flask: the ``Service``, its configuration, keys,
  tokens, ids and errors, the tables it folds, what it publishes, its transparency log and the
  witnesses' cosignatures.
- ``storage/``: the database (SQLite or PostgreSQL), and files for the service's user alone.
- ``cli/``: the ``fairdeal`` command: the seat's commands, ``serve``, ``witness`` and ``demo``.
- ``web/``: the pages browsers get; their files are in ``static/``.
- ``client/``: the Python SDK (core install only: no Flask, nothing of the service).
- ``witness/``: ``fairdeal witness``, a witness apart from the service.

Installed as ``fairdeal.api`` (pyproject.toml maps this folder to that name), and importable by
that name only: a checkout's ``api`` folder on ``sys.path`` is not a second copy of the service.
"""

if __name__ != "fairdeal.api":
    raise ImportError(f"api/ is the package fairdeal.api: import it by that name, not {__name__}")
