"""``python -m fairdeal.api.cli``: the ``fairdeal`` command."""

import sys

from .main import main

sys.exit(main())
