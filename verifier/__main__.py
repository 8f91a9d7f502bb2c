"""``python -m fairdeal.verifier``: the same as the fairdeal-verify command."""

from .cli import main

raise SystemExit(main())
