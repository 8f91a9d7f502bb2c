"""Protocol version 3's domain-separation tags (SPEC 15.1), as section 2 states tags:
ASCII ``fairdeal/v3/<name>`` then one NUL byte. Not used by any table yet."""

CARD_POINT = b"fairdeal/v3/card-point\x00"
ROUND_KEY = b"fairdeal/v3/round-key\x00"
KEY_PROOF = b"fairdeal/v3/key-proof\x00"
SHARE_PROOF = b"fairdeal/v3/share-proof\x00"

# The shuffle proof's (SPEC 15.11.1)
SHUFFLE_GENERATOR = b"fairdeal/v3/shuffle-generator\x00"
SHUFFLE_STATEMENT = b"fairdeal/v3/shuffle-statement\x00"
SHUFFLE_U_SEED = b"fairdeal/v3/shuffle-u-seed\x00"
SHUFFLE_U = b"fairdeal/v3/shuffle-u\x00"
SHUFFLE_CHALLENGE = b"fairdeal/v3/shuffle-challenge\x00"

# What every round shares (SPEC 15.12)
PROOF_CONTEXT = b"fairdeal/v3/proof-context\x00"
SERVER_NONCE = b"fairdeal/v3/server-nonce\x00"
SERVER_STEP = b"fairdeal/v3/server-step\x00"
