"""Request and response schemas (marshmallow), which also make the OpenAPI document.

Game options and action data are checked by the game itself, which knows them; here
they are typed as JSON objects. Integers are strict: a float or a numeric string is refused.
"""

from typing import Any

from marshmallow import RAISE, Schema, ValidationError, fields, validate, validates_schema

GAMES = ("toto21", "kvitlach")
_TYPE = validate.Regexp(r"^[a-z][a-z0-9_]{0,39}$", error="not a command type")


class StrictSchema(Schema):
    class Meta:
        unknown = RAISE


class CreateTableSchema(StrictSchema):
    game = fields.String(required=True, validate=validate.OneOf(GAMES))
    options = fields.Dict(
        keys=fields.String(),
        load_default=dict,
        metadata={"description": "the game's options (Toto21's conditions); see SPEC.md"},
    )
    join = fields.Dict(
        keys=fields.String(),
        load_default=dict,
        metadata={"description": 'the creator\'s seat_joined data (Kvitlach: {"buy_in": n})'},
    )


class JoinSchema(StrictSchema):
    join = fields.Dict(keys=fields.String(), load_default=dict)


class DecisionSchema(StrictSchema):
    accept = fields.Boolean(required=True, truthy={True}, falsy={False})


class SeedSchema(StrictSchema):
    seed = fields.String(required=True, validate=validate.Length(min=1, max=256))


class ActionSchema(StrictSchema):
    type = fields.String(required=True, validate=_TYPE)
    data = fields.Dict(keys=fields.String(), load_default=dict)


class EventsQuerySchema(StrictSchema):
    from_seq = fields.Integer(
        load_default=0, strict=False, validate=validate.Range(min=0, max=2**53 - 1)
    )


class InclusionQuerySchema(StrictSchema):
    """A round's head (``round``), or a table's head at rest (``table`` and ``seq``)."""

    round = fields.String(load_default=None, validate=validate.Length(min=1, max=64))
    table = fields.String(load_default=None, validate=validate.Length(min=1, max=64))
    seq = fields.Integer(load_default=None, validate=validate.Range(min=0, max=2**53 - 1))
    size = fields.Integer(load_default=None, validate=validate.Range(min=1, max=2**53 - 1))

    @validates_schema
    def one_head(self, data: dict[str, Any], **_: Any) -> None:
        by_round = data["round"] is not None
        by_table = data["table"] is not None and data["seq"] is not None
        if by_round == by_table or (by_round and (data["table"], data["seq"]) != (None, None)):
            raise ValidationError("name a round, or a table and a seq")


class TableBundleQuerySchema(StrictSchema):
    seq = fields.Integer(
        load_default=None,
        validate=validate.Range(min=0, max=2**53 - 1),
        metadata={"description": "the head's seq; the table's latest head in the log if absent"},
    )


class ConsistencyQuerySchema(Schema):
    first = fields.Integer(
        required=True, data_key="from", validate=validate.Range(min=1, max=2**53 - 1)
    )
    second = fields.Integer(
        required=True, data_key="to", validate=validate.Range(min=1, max=2**53 - 1)
    )

    class Meta:
        unknown = RAISE

    @validates_schema
    def ordered(self, data: dict[str, Any], **_: Any) -> None:
        if data["first"] > data["second"]:
            raise ValidationError("from must not exceed to")


class ExportQuerySchema(StrictSchema):
    since = fields.Integer(load_default=None, validate=validate.Range(min=0, max=2**53 - 1))
    until = fields.Integer(load_default=None, validate=validate.Range(min=0, max=2**53 - 1))
    table = fields.String(load_default=None, validate=validate.Length(min=1, max=64))


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


class ViewSchema(Schema):
    table_id = fields.String()
    game = fields.String()
    seat = fields.Integer(allow_none=True)
    current_round = fields.String(allow_none=True)
    round_id = fields.String()
    commitment = fields.String()
    note = fields.String()
    head = fields.Dict()
    legal_actions = fields.List(fields.String())
    view = fields.Dict(allow_none=True)


class EventListSchema(Schema):
    events = fields.List(fields.Dict())


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
