"""``python -m fairdeal.verifier``: the same as the fairdeal-verify command."""

from fairdeal.verifier.cli import main

raise SystemExit(main())
