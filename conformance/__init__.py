"""fairdeal's language-neutral conformance suite (README.md); ``generate`` makes it."""
