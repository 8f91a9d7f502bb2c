"""The service of the app answering now, for the views: ``create_app`` keeps it in
``app.extensions[EXTENSION]``."""

from flask import current_app

from ..service.service import Service

EXTENSION = "fairdeal"


def service() -> Service:
    found: Service = current_app.extensions[EXTENSION]
    return found
