"""The service's HTTP layer: the Flask app and its routes (``app.create_app``), what they take
and answer (schemas, the OpenAPI document, the one error body), rate limits, metrics,
readiness, the log's tiles, the access log, and the WSGI server ``fairdeal serve`` runs.

Thin over ``service``: a route reads its request, calls the ``Service`` and sends its answer.
"""
