"""The protocol's shared names and value shapes, in one place (SPEC 5, 6.2, 6.4, 6.5).

The core, the games and the verifier name the events every game shares by these
constants, and check a 64-hex digest or seed with ``is_hex64``: a renamed event or a
loosened check then changes in one line, which the vectors catch.
"""

import re
from typing import TypeGuard

# Table-level events (SPEC 6.2, 6.5; seats and joins, SPEC 11.3 and 12.2).
TABLE_CREATED = "table_created"
SEAT_JOINED = "seat_joined"
SEAT_LEFT = "seat_left"
JOINER_ACCEPTED = "joiner_accepted"
JOINER_REJECTED = "joiner_rejected"
# The table at rest, logged by the engine before a run that starts at rest (SPEC 6.6).
TABLE_STATE = "table_state"

# The round protocol every game uses (SPEC 6.4), in the order a round logs them.
ROUND_OPENED = "round_opened"
SEED_COMMITMENT = "seed_commitment"  # version 2: a seat commits before any seed is shown
SEEDS_COMMITTED = "seeds_committed"  # version 2: every seat committed or timed out
CLIENT_SEED = "client_seed"
SEED_TIMEOUT = "seed_timeout"
ROUND_SEALED = "round_sealed"
CARD_DEALT = "card_dealt"
ROUND_VOIDED = "round_voided"
ROUND_REVEALED = "round_revealed"

# Why a round is voided when a seat that committed to its seed does not reveal it (SPEC 6.4).
SEED_WITHHELD = "seed_withheld"

# Dealer-blind tables (protocol version 3, SPEC 15.13): the option that asks for one, and the
# events of the round's cryptography, in the order a round logs them.
DEALING, BLIND_DEALING = "dealing", "blind"
DECK_SHUFFLED = "deck_shuffled"
SHUFFLE_DUE = "shuffle_due"
SHUFFLE_TIMEOUT = "shuffle_timeout"
SHARES_DUE = "shares_due"
DECRYPTION_SHARES = "decryption_shares"
SHARES_TIMEOUT = "shares_timeout"
CARD_OPENED = "card_opened"
KEYS_DUE = "keys_due"
ROUND_KEY = "round_key"
KEYS_TIMEOUT = "keys_timeout"
GOLDEN_POINT = "golden_point"
# A seat's answer to each request, which its statement must name or follow (SPEC 15.13.11)
ANSWERS = {SHUFFLE_DUE: DECK_SHUFFLED, SHARES_DUE: DECRYPTION_SHARES, KEYS_DUE: ROUND_KEY}

# The actor of every event the service logs on its own account (SPEC 5.1).
SERVER = "server"

_HEX64 = re.compile(r"[0-9a-f]{64}")


def is_hex64(value: object) -> TypeGuard[str]:
    """Whether ``value`` is 64 lowercase hex digits: a seed, a commitment or a hash as
    the log writes them (SPEC 1)."""
    return isinstance(value, str) and _HEX64.fullmatch(value) is not None
