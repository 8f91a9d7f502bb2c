"""``fairdeal witness``: a C2SP tlog-witness, a process apart from the service.

It shares nothing with the service but the core: its own Ed25519 key and its own SQLite file,
in its own state folder.
"""
