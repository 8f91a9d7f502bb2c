"""What browsers get (``pages``): the player's, verify and rules pages and the headers they are
sent with. Their files (HTML, CSS, the JavaScript verifier and player) are in ``api/static/``,
the package data beside this package.
"""
