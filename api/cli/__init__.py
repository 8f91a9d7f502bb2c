"""The ``fairdeal`` command (``main``): check a shuffle by hand, the seat's commands (``seat``:
keygen, sign, commit, vkey), and with the server extra ``serve``, ``witness`` and ``demo``
(``server``, ``demo``). ``python -m fairdeal.api.cli`` runs it too.
"""
