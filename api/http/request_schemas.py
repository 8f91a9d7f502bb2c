"""The request schemas of the OpenAPI document that the games and the deployment decide.

A game states what its options and a joining seat's data may be, as JSON Schemas (OpenAPI
3.0's dialect), with ``options_schema()`` and ``join_schema()`` beside its options parser
(its ``options.py``); they become the components ``<Game>Options`` and ``<Game>Join``.
Creating a table is a ``oneOf`` of one body a game, told apart by ``game``; joining one takes
the data of any game (the request does not name the table's). A game that states neither
takes any object.

Every integer in a request's options, join data and action data is bounded by the
deployment's ``max_amount`` (over it: 422 ``over_limit``), and the schemas say so: the
games' integers are capped at it, and any other value is a ``CommandValue`` (JSON without
fractions, its integers within it).
"""

import copy
import sys
from collections.abc import Mapping
from typing import Any

from fairdeal.games.base import AnyGame
from fairdeal.statements import KEY, SIGNATURE

VALUE = "CommandValue"
CREATE_TABLE, JOIN, ACTION = "CreateTable", "Join", "Action"
_COMPONENTS = "#/components/schemas/"
_VALUE_REF = {"$ref": _COMPONENTS + VALUE}


def request_schemas(
    games: Mapping[str, AnyGame], generated: Mapping[str, Any], max_amount: int
) -> dict[str, dict[str, Any]]:
    """The components to add or replace: each game's options and join data, creating a table
    by game, joining, an action's data. ``generated``: the components made from the views'
    marshmallow schemas, whose other members are kept."""
    found: dict[str, dict[str, Any]] = {VALUE: _value(max_amount)}
    joins, tables = [], {}
    for name, game in games.items():
        title = _title(name)
        options = _stated(game, "options_schema")
        join = _refusing(_stated(game, "join_schema"), KEY)
        found[f"{title}Options"] = _bounded(options, max_amount)
        found[f"{title}Join"] = _bounded(join, max_amount)
        found[f"Create{title}Table"] = _create_table(generated[CREATE_TABLE], name, options, join)
        joins.append(_ref(f"{title}Join"))
        tables[name] = f"Create{title}Table"
    found[CREATE_TABLE] = {
        "oneOf": [_ref(component) for component in tables.values()],
        "discriminator": {
            "propertyName": "game",
            "mapping": {name: _COMPONENTS + component for name, component in tables.items()},
        },
    }
    found[JOIN] = _with_members(
        generated[JOIN],
        join={"anyOf": joins, "description": "the data the table's game asks of a joining seat"},
    )
    data = {
        **_refusing(_any_object(), SIGNATURE),
        "description": "the action's data, as the table's game asks (SPEC 11, 12)",
    }
    found[ACTION] = _with_members(generated[ACTION], data=data)
    return found


def _bounded(schema: Any, max_amount: int) -> Any:
    """``schema`` with every integer's range capped at ±``max_amount`` (an enum excepted)."""
    if isinstance(schema, list):
        return [_bounded(item, max_amount) for item in schema]
    if not isinstance(schema, dict):
        return schema
    capped = {key: _bounded(value, max_amount) for key, value in schema.items()}
    if capped.get("type") == "integer" and "enum" not in capped:
        capped["minimum"] = max(capped.get("minimum", -max_amount), -max_amount)
        capped["maximum"] = min(capped.get("maximum", max_amount), max_amount)
    return capped


def _stated(game: AnyGame, function: str) -> dict[str, Any]:
    """What ``function`` beside the game's options parser says, or any object if it is not
    there (a game that states nothing)."""
    parse = getattr(game, "parse", None)
    module = sys.modules.get(getattr(parse, "__module__", ""))
    stating = getattr(module, function, None)
    if not callable(stating):
        return _any_object()
    stated: dict[str, Any] = stating()
    return stated


def _create_table(
    generated: Mapping[str, Any], name: str, options: Mapping[str, Any], join: Mapping[str, Any]
) -> dict[str, Any]:
    """Creating a table of the game ``name``: its options, and its join data for the creator
    (required if the game asks any member of a joining seat)."""
    title = _title(name)
    schema = _with_members(
        generated,
        game={"type": "string", "enum": [name]},
        options=_ref(f"{title}Options"),
        join=_ref(f"{title}Join"),
    )
    if join.get("required"):
        schema["required"] = [*schema["required"], "join"]
    example = {"game": name, "options": options.get("example"), "join": join.get("example")}
    example = {member: value for member, value in example.items() if value is not None}
    return {**schema, "title": name, "example": example}


def _with_members(generated: Mapping[str, Any], **members: Any) -> dict[str, Any]:
    """A generated component with these members' schemas in place of its own."""
    return copy.deepcopy({**generated, "properties": {**generated["properties"], **members}})


def _refusing(schema: dict[str, Any], member: str) -> dict[str, Any]:
    """``schema``, refusing ``member`` (which goes beside it) if it lets any member in."""
    if schema.get("additionalProperties") is False:
        return schema
    return {**schema, "not": {"required": [member]}}


def _any_object() -> dict[str, Any]:
    return {"type": "object", "additionalProperties": _VALUE_REF}


def _value(max_amount: int) -> dict[str, Any]:
    return {
        "description": f"a JSON value without fractions, its integers from -{max_amount} to "
        f"{max_amount} (the deployment's limit)",
        "anyOf": [
            {"type": "string", "nullable": True},
            {"type": "boolean"},
            {"type": "integer", "minimum": -max_amount, "maximum": max_amount},
            {"type": "array", "items": _VALUE_REF},
            _any_object(),
        ],
    }


def _title(name: str) -> str:
    return name[:1].upper() + name[1:]


def _ref(component: str) -> dict[str, str]:
    return {"$ref": _COMPONENTS + component}
