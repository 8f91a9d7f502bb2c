"""What the verifier found: stable codes, one finding per problem, and the verdict.

Every code belongs to one step of SPEC.md's verification procedure (section 7), or to
step 0 for input that cannot be read at all. Codes are stable: tools match on them.
The verdict is unusable for a finding of step 0, and for the two findings that say the
verifier could not judge what it read (``UNJUDGED``): no signature by a pinned key, a game
it does not know. Neither proves anything about the operator, either way.
"""

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

VALID, INVALID, UNUSABLE = "valid", "invalid", "unusable"

# code: (step, what it means). Step 0 is "the input cannot be used": exit status 2.
CODES: dict[str, tuple[int, str]] = {
    "input.unreadable": (0, "a file cannot be read"),
    "input.malformed_json": (0, "not UTF-8 JSON, or JSON the log never writes"),
    "input.too_large": (0, "over a hard size limit"),
    "input.wrong_format": (0, "not a bundle, export, checkpoint or proof"),
    "input.missing_proof": (0, "a claim needs a proof that was not given"),
    "schema.bundle": (1, "the bundle is not of the documented shape"),
    "schema.event": (1, "an event is not of the logged shape"),
    "schema.data": (1, "an event's data do not have the members its type requires"),
    "canonical.encoding": (2, "an event has no canonical encoding"),
    "canonical.duplicate_key": (2, "a member name appears twice in one object"),
    "chain.table": (3, "an event of another table"),
    "chain.gap": (3, "seq does not follow the previous event's by one"),
    "chain.fork": (3, "prev is not the previous event's hash"),
    "chain.genesis": (3, "the chain does not start with table_created at seq 0"),
    "chain.misplaced": (3, "an event outside the round it names, or a round id used twice"),
    "chain.start": (3, "the bundle starts at neither table_created nor a table_state"),
    "chain.version": (3, "an event whose version is not its chain's first event's"),
    "sig.hash_mismatch": (4, "the stated hash is not the event's hash"),
    "sig.unknown_key": (4, "signed by a key that is not trusted"),
    "sig.bad_signature": (4, "the signature does not verify"),
    "sig.wrong_key": (4, "no event is signed by a trusted key (one finding for the bundle)"),
    "time.went_back": (5, "an event is stamped before the event before it"),
    "time.timeout_early": (5, "a timeout is stamped before its deadline"),
    "seed.commitment": (6, "the revealed seed is not the one committed to"),
    "seed.client": (7, "seeds or commitments missing, extra, late or not the sealed ones"),
    "seed.reveal": (7, "a seed out of the commit-then-reveal order, or not opening its commitment"),
    "seed.withheld": (7, "a withheld reveal not voided under exactly the withholding seats"),
    "deck.rules": (8, "the deck cannot be derived from the table's rules"),
    "blind.key": (
        8,
        "a round key or its proof of knowledge that is malformed or does not verify for its "
        "context; a round key O or equal to another party's",
    ),
    "blind.server_key": (8, "X_0 is not the round key of the revealed server seed"),
    "blind.shuffle": (
        8,
        "a shuffle step that 15.11.7 refuses for its context, joint key and input deck",
    ),
    "blind.server_step": (8, "the service's step is not the one its shuffle key gives"),
    "card.position": (9, "a card left the deck out of order, twice, or past its end"),
    "card.wrong_card": (9, "a face-up card is not the deck's card at its position"),
    "card.commitment": (9, "a hidden card's commitment is not the deck's"),
    "card.shown": (9, "a shown card or salt is not the one dealt at its position"),
    "card.ciphertext": (
        9,
        "a card_dealt's ciphertext that is not the deck's entry at its position",
    ),
    "blind.share": (
        9,
        "a decryption share missing where 15.13.6.1 requires it, present on a blind card, "
        "or whose proof does not verify",
    ),
    "blind.reveal": (9, "a revealed round key that is not its seat's"),
    "blind.deck": (9, "the opened deck is not every card once"),
    "rules.illegal_action": (10, "a player action the rules refuse"),
    "rules.out_of_turn": (10, "a player acted out of turn"),
    "rules.over_limit": (10, "a bet or raise over a limit"),
    "rules.round_sealed": (10, "a client seed after the seal"),
    "sig.seat_missing": (10, "a keyed seat's command without the seat's signature"),
    "sig.seat_bad": (10, "a seat's signature malformed, or not its bound key's over the statement"),
    "sig.seat_replayed": (10, "a seat's statement number not above its last: used twice"),
    "sig.seat_unexpected": (10, "a signature on a keyless seat's command"),
    "sig.seat_stale": (10, "a seat's statement made after an event the table no longer takes"),
    "sig.seat_key": (10, "a seat_joined's key, or a starting table_state's seat_keys, malformed"),
    "rules.not_due": (11, "a timeout the rules do not allow yet"),
    "rules.invalid_options": (11, "table options the rules refuse or not in full form"),
    "rules.unknown_game": (11, "the table names a game this verifier does not know"),
    "rules.server_refused": (11, "a server command the rules refuse"),
    "rules.mismatch": (11, "a logged run is not what the rules decide"),
    "rules.crashed": (11, "the rules could not process the logged events"),
    "rules.state": (11, "a table_state that is not the table the events before it leave"),
    "money.transfer": (12, "a transfer that is not a positive amount an account can pay"),
    "money.balances": (12, "balances that are not the previous ones with the transfers"),
    "money.not_conserved": (13, "money appeared or vanished"),
    "round.unfinished": (14, "a sealed round without its reveal, or the bundle's round not last"),
    "round.void_reason": (14, "a voided round without a reason"),
    "round.after_reveal": (14, "a round event after the round's reveal"),
    "log.head": (15, "the stated round head is not the hash of the round's reveal"),
    "log.inclusion": (15, "the inclusion proof does not lead to the checkpoint's root"),
    "log.not_in_checkpoint": (15, "the round is not covered by the required checkpoint"),
    "log.round_missing": (15, "a leaf of the log is missing from the export"),
    "log.order": (15, "export lines out of leaf order, or a round twice"),
    "checkpoint.malformed": (16, "not a well-formed signed checkpoint"),
    "checkpoint.signature": (16, "the checkpoint is not signed by a trusted key"),
    "checkpoint.origin": (16, "a checkpoint of another log"),
    "checkpoint.rollback": (17, "a later checkpoint is smaller than an earlier one"),
    "checkpoint.fork": (17, "two signed checkpoints that cannot both be true"),
    "checkpoint.inconsistent": (17, "the consistency proof fails"),
    "export.fork": (17, "two bundles of one table disagree about its history"),
    "export.link": (17, "a table's bundle does not start where its previous bundle ended"),
    "export.state": (17, "a table's bundle starts at a state its previous bundle does not end in"),
    "witness.quorum": (18, "a checkpoint without the cosignatures of a quorum of the witnesses"),
    "witness.signature": (18, "a cosignature by a given witness's key, malformed or not verifying"),
    "witness.time": (18, "a checkpoint cosigned by the quorum before its head was logged"),
}


# Findings after which nothing was judged: the input was read, but with the keys and the
# games this verifier has, it cannot tell whether the operator kept the rules (SPEC 7).
UNJUDGED = frozenset({"sig.wrong_key", "rules.unknown_game"})


@dataclass(frozen=True)
class Finding:
    """One problem: its stable code, where it is, and a one-line reason."""

    code: str
    table: str | None
    round: str | None
    seq: int | None
    reason: str

    def __post_init__(self) -> None:
        if self.code not in CODES:
            raise ValueError(f"unknown finding code {self.code!r}")

    @property
    def step(self) -> int:
        return CODES[self.code][0]

    @property
    def unusable(self) -> bool:
        """Whether this finding makes the verdict unusable: nothing could be judged."""
        return self.step == 0 or self.code in UNJUDGED

    def where(self) -> str:
        parts = [p for p in (self.table, self.round) if p]
        place = "/".join(parts)
        if self.seq is not None:
            place = f"{place} seq {self.seq}" if place else f"seq {self.seq}"
        return place or "-"

    def to_json(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "step": self.step,
            "table": self.table,
            "round": self.round,
            "seq": self.seq,
            "reason": self.reason,
        }

    def line(self) -> str:
        return f"({self.step}) {self.code}  {self.where()}: {self.reason}"


MAX_FINDINGS = 10_000  # kept in full; beyond this only counted (a huge bad export)


@dataclass
class Report:
    """Findings and counts for a whole run; the verdict follows from the findings."""

    findings: list[Finding] = field(default_factory=list)
    rounds: int = 0
    events: int = 0
    checked: list[str] = field(default_factory=list)
    dropped: int = 0
    _unusable: bool = False

    def add(self, findings: Iterable[Finding]) -> None:
        for finding in findings:
            self._unusable = self._unusable or finding.unusable
            if len(self.findings) < MAX_FINDINGS:
                self.findings.append(finding)
            else:
                self.dropped += 1

    @property
    def verdict(self) -> str:
        if self._unusable or any(f.unusable for f in self.findings):
            return UNUSABLE
        return INVALID if self.findings else VALID

    @property
    def exit_status(self) -> int:
        return {VALID: 0, INVALID: 1, UNUSABLE: 2}[self.verdict]

    def codes(self) -> set[str]:
        return {f.code for f in self.findings}

    def to_json(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "rounds": self.rounds,
            "events": self.events,
            "checked": self.checked,
            "findings": [f.to_json() for f in self.findings],
            "findings_not_listed": self.dropped,
        }
