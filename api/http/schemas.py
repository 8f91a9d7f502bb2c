"""Request and response schemas (marshmallow), which also make the OpenAPI document.

Game options, join data and action data are checked by the game itself, which knows them;
here they are typed as JSON objects, and the document shows each game's own
(request_schemas.py). Integers are strict: a float or a numeric string is refused.
"""

from typing import Any

from marshmallow import RAISE, Schema, ValidationError, fields, validate, validates_schema

from fairdeal import bundle
from fairdeal.games import registry
from fairdeal.protocol import CLIENT_SEED, SEED_COMMITMENT
from fairdeal.statements import MAX_N

from ..service import ids

_TYPE = validate.Regexp(r"^[a-z][a-z0-9_]{0,39}$", error="not a command type")
_HEX64 = validate.Regexp(r"^[0-9a-f]{64}$", error="not 64 lowercase hex digits")
_HEX128 = validate.Regexp(r"^[0-9a-f]{128}$", error="not 128 lowercase hex digits")


class KnownGame(validate.OneOf):
    """A game's name that the registry knows when the request comes (and when the OpenAPI
    document is made): the choices are the registry's live keys."""

    def __init__(self) -> None:
        super().__init__(registry().keys())

    def _format_error(self, value: Any) -> str:
        return self.error.format(input=value, choices=", ".join(self.choices), labels="")


class StrictSchema(Schema):
    class Meta:
        unknown = RAISE


def _key() -> fields.String:
    """A seat's Ed25519 public key, bound when the seat is taken (SPEC 6.7)."""
    return fields.String(
        load_default=None,
        allow_none=True,
        validate=_HEX64,
        metadata={
            "description": "the seat's Ed25519 public key, 64 lowercase hex (raw 32 bytes); "
            "then every command of the seat carries `signed`. Absent or null: a keyless seat, "
            "whose moves the operator alone attests"
        },
    )


class _KeyBesideJoin(StrictSchema):
    @validates_schema
    def key_beside_join(self, data: dict[str, Any], **_: Any) -> None:
        if "key" in data["join"]:
            raise ValidationError("the seat's key goes in key, beside join", "join")


class AfterSchema(StrictSchema):
    """The event of the table's chain a seat's statement was made after (SPEC 6.7)."""

    seq = fields.Integer(required=True, strict=True, validate=validate.Range(min=0, max=2**53 - 1))
    hash = fields.String(
        required=True, validate=_HEX64, metadata={"description": "64 lowercase hex"}
    )


class SignedSchema(StrictSchema):
    """A keyed seat's signature over its command's statement (SPEC 6.7)."""

    n = fields.Integer(
        required=True,
        strict=True,
        validate=validate.Range(min=1, max=MAX_N),
        metadata={"description": "above every n this seat signed before"},
    )
    after = fields.Nested(
        AfterSchema,
        required=True,
        metadata={
            "description": "the table's head {seq, hash} when the seat last looked (the `head` "
            "of GET /v1/tables/T): at rest the latest, in a round any event from the one before "
            "the round's table_state on; a reveal names seeds_committed or later. Older: 409 "
            "signature_stale; not the chain's event there: 403 signature_invalid"
        },
    )
    signature = fields.String(
        required=True,
        validate=_HEX128,
        metadata={"description": "Ed25519 over the seat statement, 128 lowercase hex"},
    )


def _signed() -> fields.Nested:
    return fields.Nested(
        SignedSchema,
        metadata={
            "description": "required from a seat that bound a key, refused from one that "
            "did not: `fairdeal sign` prints it"
        },
    )


class CreateTableSchema(_KeyBesideJoin):
    game = fields.String(required=True, validate=KnownGame())
    options = fields.Dict(
        keys=fields.String(),
        load_default=dict,
        metadata={"description": "the game's options, as SPEC.md states each game's"},
    )
    join = fields.Dict(
        keys=fields.String(),
        load_default=dict,
        metadata={"description": "the creator's seat_joined data, as its game asks"},
    )
    key = _key()


class JoinSchema(_KeyBesideJoin):
    join = fields.Dict(keys=fields.String(), load_default=dict)
    key = _key()


class DecisionSchema(StrictSchema):
    accept = fields.Boolean(required=True, truthy={True}, falsy={False})
    signed = _signed()


class ProofSchema(StrictSchema):
    """A Schnorr proof of knowledge (SPEC 15.6): two canonical scalars."""

    c = fields.String(required=True, validate=_HEX64, metadata={"description": "64 lowercase hex"})
    s = fields.String(required=True, validate=_HEX64, metadata={"description": "64 lowercase hex"})


class RoundKeySchema(StrictSchema):
    """A seat's round key at a dealer-blind table, with its proof (SPEC 15.13.3.2)."""

    key = fields.String(
        required=True,
        validate=_HEX64,
        metadata={"description": "the seat's fresh round key X_j, an element (64 lowercase hex)"},
    )
    proof = fields.Nested(ProofSchema, required=True)


def seed_command(body: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The seat command a seeds body is: ``seed_commitment`` of its commitment (with the
    round key a dealer-blind table asks beside it), or ``client_seed`` of its seed."""
    if "commitment" not in body:
        return CLIENT_SEED, {"seed": body["seed"]}
    data = {"commitment": body["commitment"]}
    if "round_key" in body:
        data["round_key"] = body["round_key"]
    return SEED_COMMITMENT, data


class SeedSchema(StrictSchema):
    """Exactly one of ``seed`` (client_seed) and ``commitment`` (seed_commitment); at a
    dealer-blind table ``round_key`` goes with the commitment."""

    seed = fields.String(
        validate=validate.Length(min=1, max=256),
        metadata={
            "pattern": "^[ -~]*$",
            "description": "the client seed, printable ASCII (0x20 to 0x7E): before the "
            "reveals from a seat that did not commit, during them the committed seed",
        },
    )
    commitment = fields.String(
        validate=_HEX64,
        metadata={
            "description": "the seat's commitment to its seed, 64 lowercase hex (`fairdeal "
            "commit` prints it), before any seed is revealed"
        },
    )
    round_key = fields.Nested(
        RoundKeySchema,
        metadata={
            "description": "a dealer-blind table's seat sends its round key with its "
            "commitment (SPEC 15.13.3.2); any other table refuses it"
        },
    )
    signed = _signed()

    @validates_schema
    def one_of_seed_and_commitment(self, data: dict[str, Any], **_: Any) -> None:
        if ("seed" in data) == ("commitment" in data):
            raise ValidationError("send exactly one of seed and commitment")
        if "round_key" in data and "commitment" not in data:
            raise ValidationError("round_key goes with a commitment", "round_key")


# OpenAPI 3.0 states "exactly one of" as a oneOf of the two ``required`` lists.
SEED_ONE_OF: list[dict[str, Any]] = [
    {
        "required": ["seed"],
        "not": {"anyOf": [{"required": ["commitment"]}, {"required": ["round_key"]}]},
    },
    {"required": ["commitment"], "not": {"required": ["seed"]}},
]


class ActionSchema(StrictSchema):
    type = fields.String(required=True, validate=_TYPE)
    data = fields.Dict(keys=fields.String(), load_default=dict)
    signed = _signed()

    @validates_schema
    def signed_beside_data(self, data: dict[str, Any], **_: Any) -> None:
        if "signed" in data["data"]:
            raise ValidationError("the signature goes in signed, beside data", "data")


# Examples of the request bodies (ReDoc shows them, schemathesis sends them); creating a table
# has each game's own (request_schemas.py). A seat's key, and a signature of its commands:
_KEY_EXAMPLE = "7095185ba71cc3b037aa6fcd71411c82044949bdac1ac40a9047e14cc3fbdaa7"
_SIGNED_EXAMPLE = {
    "n": 1,
    "after": {"seq": 3, "hash": "2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881"},
    "signature": "5f" * 64,
}


def _examples(*cases: tuple[str, str, dict[str, Any]]) -> dict[str, Any]:
    return {name: {"summary": summary, "value": value} for name, summary, value in cases}


JOIN_EXAMPLES = _examples(
    ("keyless", "a keyless seat, at a table whose game asks nothing (Toto21)", {}),
    (
        "keyed",
        "a seat bound to its key, bringing 100 chips (Kvitlach)",
        {"join": {"buy_in": 100}, "key": _KEY_EXAMPLE},
    ),
)
DECISION_EXAMPLES = _examples(
    ("accept", "accept the joiner", {"accept": True}),
    ("reject", "reject the joiner, as a keyed seat", {"accept": False, "signed": _SIGNED_EXAMPLE}),
)
SEED_EXAMPLES = _examples(
    ("commit", "commit to a seed", {"commitment": "9a4f" * 16}),
    ("reveal", "send the seed (once the reveals open, the committed one)", {"seed": "my seed"}),
)
ROUND_ACTION_EXAMPLES = _examples(
    ("stand", "stand (Toto21)", {"type": "stand"}),
    (
        "bet",
        "bet 10, as a keyed seat (Kvitlach)",
        {"type": "bet", "data": {"amount": 10}, "signed": _SIGNED_EXAMPLE},
    ),
)
TABLE_ACTION_EXAMPLES = _examples(("leave", "leave the table (Kvitlach)", {"type": "seat_left"}))

EVENTS_PAGE = 1000

# Ids in paths and queries: of any other shape they name nothing (404, SPEC 13.3). The shape
# is documented here; the service checks it itself, before any schema.
TABLE_ID_SHAPE = {"pattern": f"^{ids.TABLE_ID.pattern}$"}
ROUND_ID_SHAPE = {"pattern": f"^{ids.ROUND_ID.pattern}$"}
TABLE_ID = {
    "in": "path",
    "name": "table_id",
    "description": "t and 16 lowercase hex digits",
    "schema": {"type": "string", **TABLE_ID_SHAPE},
}
ROUND_ID = {
    "in": "path",
    "name": "round_id",
    "description": "the table's id, a dot, and the round's number from 1",
    "schema": {"type": "string", **ROUND_ID_SHAPE},
}

# The seat in a path: Config caps a table's seats at 7, so no deployment has a seat above 6.
SEAT_PARAMETER = {
    "in": "path",
    "name": "seat",
    "description": "a seat number",
    "schema": {"type": "integer", "minimum": 0, "maximum": 6},
}


class EventsQuerySchema(StrictSchema):
    from_seq = fields.Integer(
        load_default=0, strict=False, validate=validate.Range(min=0, max=2**53 - 1)
    )
    limit = fields.Integer(
        load_default=EVENTS_PAGE,
        strict=False,
        validate=validate.Range(min=1, max=EVENTS_PAGE),
        metadata={"description": f"events in this page, at most {EVENTS_PAGE}"},
    )


class InclusionQuerySchema(StrictSchema):
    """A round's head (``round``), or a table's head at rest (``table`` and ``seq``)."""

    round = fields.String(
        load_default=None, validate=validate.Length(min=1, max=64), metadata=ROUND_ID_SHAPE
    )
    table = fields.String(
        load_default=None, validate=validate.Length(min=1, max=64), metadata=TABLE_ID_SHAPE
    )
    seq = fields.Integer(load_default=None, validate=validate.Range(min=0, max=2**53 - 1))
    size = fields.Integer(load_default=None, validate=validate.Range(min=1, max=2**53 - 1))

    @validates_schema
    def one_head(self, data: dict[str, Any], **_: Any) -> None:
        by_round = data["round"] is not None
        by_table = data["table"] is not None and data["seq"] is not None
        if by_round == by_table or (by_round and (data["table"], data["seq"]) != (None, None)):
            raise ValidationError("name a round, or a table and a seq")


# OpenAPI 3.0 links query parameters only as the members of one object parameter (form
# style, exploded: the same query string); the link is then the object's oneOf.
INCLUSION_QUERY = "InclusionQuery"
INCLUSION_ONE_OF = [
    {"required": ["round"], "not": {"anyOf": [{"required": ["table"]}, {"required": ["seq"]}]}},
    {"required": ["table", "seq"], "not": {"required": ["round"]}},
]
INCLUSION_HEAD = {
    "in": "query",
    "name": "head",
    "required": True,
    "style": "form",
    "explode": True,
    "description": "the head to prove, in the query's own parameters: `round` (a finished "
    "round's head) or `table` and `seq` (a table's head at rest), never both; `size`, the "
    "tree size, else the latest checkpoint's",
    "schema": {"$ref": f"#/components/schemas/{INCLUSION_QUERY}"},
}


class TableBundleQuerySchema(StrictSchema):
    seq = fields.Integer(
        load_default=None,
        validate=validate.Range(min=0, max=2**53 - 1),
        metadata={"description": "the head's seq; the table's latest head in the log if absent"},
    )


class ConsistencyQuerySchema(Schema):
    first = fields.Integer(
        required=True,
        data_key="from",
        validate=validate.Range(min=1, max=2**53 - 1),
        metadata={"description": "the smaller tree size: at most `to` (else 422)"},
    )
    second = fields.Integer(
        required=True,
        data_key="to",
        validate=validate.Range(min=1, max=2**53 - 1),
        metadata={
            "description": "the larger tree size: at least `from` (else 422), at most "
            "the log's size (else 409)"
        },
    )

    class Meta:
        unknown = RAISE

    @validates_schema
    def ordered(self, data: dict[str, Any], **_: Any) -> None:
        if data["first"] > data["second"]:
            raise ValidationError("from must not exceed to")


class ExportQuerySchema(StrictSchema):
    from_leaf = fields.Integer(
        load_default=0,
        strict=False,
        validate=validate.Range(min=0, max=2**53 - 1),
        metadata={"description": "the leaf index to start at: a line's log.leaf_index + 1 resumes"},
    )
    since = fields.Integer(load_default=None, validate=validate.Range(min=0, max=2**53 - 1))
    until = fields.Integer(load_default=None, validate=validate.Range(min=0, max=2**53 - 1))
    table = fields.String(
        load_default=None, validate=validate.Length(min=1, max=64), metadata=TABLE_ID_SHAPE
    )


# Responses


class EventsSchema(Schema):
    events = fields.List(fields.Dict(), metadata={"description": "signed events: the receipts"})


class SeatSchema(EventsSchema):
    table_id = fields.String()
    seat = fields.Integer()
    token = fields.String(metadata={"description": "the seat's bearer token, shown only now"})


class RoundOpenedSchema(EventsSchema):
    round_id = fields.String()
    commitment = fields.String()


class HeadSchema(Schema):
    seq = fields.Integer(required=True)
    hash = fields.String(required=True, metadata={"description": "64 lowercase hex"})


class ViewSchema(Schema):
    table_id = fields.String()
    game = fields.String()
    seat = fields.Integer(allow_none=True)
    current_round = fields.String(allow_none=True)
    round_id = fields.String()
    commitment = fields.String()
    note = fields.String()
    head = fields.Nested(HeadSchema, metadata={"description": "the last logged event"})
    legal_actions = fields.List(fields.String())
    view = fields.Dict(allow_none=True)


class EventPageSchema(Schema):
    events = fields.List(fields.Dict(), required=True, metadata={"description": "signed events"})
    next_from_seq = fields.Integer(
        required=True,
        allow_none=True,
        metadata={"description": "the from_seq of the next page; null: no event after this page"},
    )


class CheckpointSchema(Schema):
    size = fields.Integer()
    root_hash = fields.String()
    note = fields.String(metadata={"description": "a C2SP signed note holding the checkpoint"})


class InclusionSchema(Schema):
    round_id = fields.String(allow_none=True)
    table_id = fields.String()
    seq = fields.Integer(allow_none=True)
    leaf_index = fields.Integer()
    tree_size = fields.Integer()
    head_hash = fields.String()
    root_hash = fields.String()
    proof = fields.List(fields.String())


class ConsistencySchema(Schema):
    first = fields.Integer(data_key="from", attribute="from")
    second = fields.Integer(data_key="to", attribute="to")
    from_root = fields.String()
    to_root = fields.String()
    proof = fields.List(fields.String())


class KeysSchema(Schema):
    keys = fields.List(fields.Dict())
    log = fields.Dict()
    development_key = fields.Boolean()


class BundleKeySchema(Schema):
    key_id = fields.String(required=True)
    public_key_pem = fields.String(required=True)
    current = fields.Boolean(required=True, metadata={"description": "the signing key"})


class BundleLogSchema(StrictSchema):
    """The head's place in the log (SPEC 13.1): exactly these seven members."""

    origin = fields.String(required=True)
    verifier_key = fields.String(required=True)
    leaf_index = fields.Integer(required=True)
    head_hash = fields.String(required=True)
    tree_size = fields.Integer(required=True)
    inclusion_proof = fields.List(fields.String(), required=True)
    checkpoint = fields.String(required=True, metadata={"description": "a C2SP signed note"})


class BundleSchema(Schema):
    """Everything needed to verify one leaf of the log offline (SPEC 13.1)."""

    format = fields.String(
        required=True,
        validate=validate.OneOf((bundle.FORMAT, bundle.COMPACT)),
        metadata={"description": "fairdeal-bundle/3 (compact events) for a dealer-blind table"},
    )
    table_id = fields.String(required=True)
    round_id = fields.String(
        required=True, allow_none=True, metadata={"description": "null for a table's head"}
    )
    events = fields.List(
        fields.Dict(),
        required=True,
        metadata={
            "description": "the table's signed events through the head: from the table_state"
            " logged right after the table's previous head, or from table_created (seq 0);"
            " in fairdeal-bundle/3 written compactly (SPEC 13.1.1)"
        },
    )
    keys = fields.List(fields.Nested(BundleKeySchema), required=True)
    log = fields.Nested(BundleLogSchema, required=True)


class HealthSchema(Schema):
    status = fields.String(required=True)


class ReadinessSchema(HealthSchema):
    checks = fields.Dict(
        keys=fields.String(),
        values=fields.String(),
        required=True,
        metadata={"description": "each check (database, signing_key) and its state"},
    )
    key_id = fields.String(required=True, metadata={"description": "the signing key's id"})


class ErrorBodySchema(StrictSchema):
    code = fields.String(required=True, metadata={"description": "stable, for programs"})
    message = fields.String(required=True, metadata={"description": "for people"})
    details = fields.Dict(keys=fields.String(), required=True)


class ErrorSchema(StrictSchema):
    """The one body of every error response."""

    error = fields.Nested(ErrorBodySchema, required=True)


# The export's body: JSON Lines, not one JSON value. OpenAPI 3.0 has no schema for a line
# (3.2's itemSchema): the body is described as text, with the line's schema by reference.
EXPORT_LINES = {
    "type": "string",
    "description": "JSON Lines (application/jsonl): one Bundle a line, compact JSON, "
    "each line self-contained, in leaf order (SPEC 13.2)",
    "x-itemSchema": {"$ref": "#/components/schemas/Bundle"},
}


def _link(path: str, method: str, **parameters: str) -> dict[str, Any]:
    ref = "#/paths/" + path.replace("/", "~1") + "/" + method
    return {"operationRef": ref, "parameters": parameters}


# Where a new table's id leads (OpenAPI links, followed by clients and by stateful testing).
_TABLE_ID = "$response.body#/table_id"
TABLE_LINKS = {
    "view": _link("/v1/tables/{table_id}", "get", table_id=_TABLE_ID),
    "events": _link("/v1/tables/{table_id}/events", "get", table_id=_TABLE_ID),
    "bundle": _link("/v1/tables/{table_id}/bundle", "get", table_id=_TABLE_ID),
    "join": _link("/v1/tables/{table_id}/seats", "post", table_id=_TABLE_ID),
}
_ROUND_ID = "$response.body#/round_id"
ROUND_LINKS = {
    "view": _link("/v1/rounds/{round_id}", "get", round_id=_ROUND_ID),
    "events": _link("/v1/rounds/{round_id}/events", "get", round_id=_ROUND_ID),
    "bundle": _link("/v1/rounds/{round_id}/bundle", "get", round_id=_ROUND_ID),
}
