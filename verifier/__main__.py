"""``python -m verifier``: the same as the fairdeal-verify command."""

from verifier.cli import main

raise SystemExit(main())
