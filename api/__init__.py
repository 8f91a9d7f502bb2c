"""fairdeal's edges: the HTTP service and the command line. Thin: the rules live in ``fairdeal``.

Installed as ``fairdeal.api`` (pyproject.toml maps this folder to that name), and importable by
that name only: a checkout's ``api`` folder on ``sys.path`` is not a second copy of the service.
"""

if __name__ != "fairdeal.api":
    raise ImportError(f"api/ is the package fairdeal.api: import it by that name, not {__name__}")
