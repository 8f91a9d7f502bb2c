"""What the HTTP layer calls: the dealing service (``service.Service``) and what it knows.

Its configuration, signing keys, bearer tokens, ids and errors; the tables this process has
folded (``live``) and when their requests arrived (``arrivals``); what it publishes, its
transparency log, and the witnesses' cosignatures of its checkpoints. No Flask here: the
routes are ``http``'s, the database ``storage``'s.
"""
