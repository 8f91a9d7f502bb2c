"""fairdeal's pure core: cards, shuffle, commitments, events, signatures, Merkle log, game rules.

Nothing in this package does I/O or reads a clock: bytes and times are arguments.
"""
