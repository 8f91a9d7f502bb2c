"""Domain-separation tags: every hash, HMAC and signature input starts with one.

Each tag is ASCII text ending in a NUL byte, so no tag is a prefix of another and
no input of one purpose can be read as the input of another. SPEC.md lists them.
"""

SEED_COMMITMENT = b"fairdeal/v1/seed-commitment\x00"
SHUFFLE_KEY = b"fairdeal/v1/shuffle-key\x00"
STREAM = b"fairdeal/v1/stream\x00"
CARD_SALT = b"fairdeal/v1/card-salt\x00"
CARD_COMMITMENT = b"fairdeal/v1/card-commitment\x00"
EVENT = b"fairdeal/v1/event\x00"
EVENT_SIGNATURE = b"fairdeal/v1/event-signature\x00"
KEY_ID = b"fairdeal/v1/key-id\x00"
TOKEN = b"fairdeal/v1/token\x00"
# Version 2 (SPEC 3.9, 6.7): a seat's commitment to its client seed, and its signed statements.
CLIENT_SEED_COMMITMENT = b"fairdeal/v2/client-seed-commitment\x00"
SEAT_STATEMENT = b"fairdeal/v2/seat-statement\x00"
