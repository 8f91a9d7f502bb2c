"""The dealer-blind vectors: RFC 9496, the primitives (make.py), the shuffle proof."""
