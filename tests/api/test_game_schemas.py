"""Each game's options and join data in the OpenAPI document (issue 28): what a game states
beside its options parser (``options_schema``, ``join_schema``) agrees with the game at every
bound, the document shows it (capped at the deployment's limit) and the service takes its
examples; a game that states nothing (tests/toy_game.py) is shown taking any object, and one
that states its own gets it."""

import copy
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest

from fairdeal.api.http.app import close_app, create_app
from fairdeal.api.service.config import Config
from fairdeal.errors import OptionsError
from fairdeal.games import register, unregister
from fairdeal.games.kvitlach import options as kvitlach_options
from fairdeal.games.toto21 import options as toto21_options
from tests import toy_game
from tests.api.bots import send
from tests.api.conftest import Server
from tests.api.contract import document_of

GAMES = {"toto21": toto21_options, "kvitlach": kvitlach_options}
# What the other options are set to while one is tried: room for every value of it (Kvitlach's
# max_bet is at most its bank_funding, a rule the schema cannot state: contract.py), with each
# number of decks.
ROOMY: dict[str, list[dict[str, Any]]] = {
    "toto21": [{}],
    "kvitlach": [{"bank_funding": 10**12}, {"bank_funding": 10**12, "decks": 2}],
}


def bounds(schema: Mapping[str, Any]) -> Iterator[tuple[str, Any]]:
    """Each member with values at and just beyond every bound the schema states, with values
    of other types; and a member of no game."""
    for name, member in schema["properties"].items():
        if "enum" in member:
            yield from ((name, value) for value in member["enum"])
            yield name, "other" if member["type"] == "string" else max(member["enum"]) + 1
        else:
            low, high = member["minimum"], member["maximum"]
            yield from (
                (name, value) for value in (low - 1, low, low + 1, high - 1, high, high + 1)
            )
        yield from ((name, value) for value in (True, 1.0, "1", None))
    yield "targt", 4


def accepted(parse: Callable[[Mapping[str, Any]], Any], options: Mapping[str, Any]) -> bool:
    try:
        parse(options)
    except OptionsError:
        return False
    return True


@pytest.mark.parametrize("game", list(GAMES))
def test_the_options_schema_and_the_parser_agree_at_every_bound(game: str) -> None:
    module = GAMES[game]
    validator = jsonschema_rs.Draft4Validator(module.options_schema())
    for roomy in ROOMY[game]:
        for name, value in bounds(module.options_schema()):
            options = {**roomy, name: value}
            assert validator.is_valid(options) == accepted(module.parse, options), options


@pytest.mark.parametrize("game", list(GAMES))
def test_the_full_form_the_defaults_and_the_example_are_the_parsers(game: str) -> None:
    module = GAMES[game]
    schema = module.options_schema()
    full = module.parse({}).to_json()
    assert jsonschema_rs.Draft4Validator(schema).is_valid(full)
    for name, member in schema["properties"].items():
        if name not in full:  # left out of the full form at its default (SPEC 15.13.1)
            assert (game, name) == ("toto21", "dealing")
            assert module.parse({name: member["default"]}).to_json() == full
        elif "default" in member:
            assert full[name] == member["default"], name
    assert accepted(module.parse, schema["example"])


@pytest.fixture
def document(server: Server) -> dict[str, Any]:
    return document_of(server.url)


@pytest.mark.parametrize("game", list(GAMES))
def test_creating_a_table_shows_the_games_own_options_and_join_data(
    document: dict[str, Any], game: str
) -> None:
    components = document["components"]["schemas"]
    title = game.capitalize()
    assert components["CreateTable"]["discriminator"]["mapping"][game] == (
        f"#/components/schemas/Create{title}Table"
    )
    creating = components[f"Create{title}Table"]
    assert creating["properties"]["game"] == {"type": "string", "enum": [game]}
    assert components[f"{title}Options"] == GAMES[game].options_schema()
    assert components[f"{title}Join"] == GAMES[game].join_schema()
    assert {"$ref": f"#/components/schemas/{title}Join"} in (
        components["Join"]["properties"]["join"]["anyOf"]
    )


@pytest.mark.parametrize("game", list(GAMES))
def test_the_service_takes_the_documents_examples_and_refuses_beyond_the_join_bounds(
    server: Server, document: dict[str, Any], game: str
) -> None:
    creating = document["components"]["schemas"][f"Create{game.capitalize()}Table"]
    example = creating["example"]
    created = send(server.url, {"method": "POST", "path": "/v1/tables", "body": example})
    assert created.status == 201, created.text
    join_schema = GAMES[game].join_schema()
    validator = jsonschema_rs.Draft4Validator(join_schema)
    for name, value in bounds(join_schema) if join_schema["properties"] else []:
        body = {**example, "join": {name: value}}
        reply = send(server.url, {"method": "POST", "path": "/v1/tables", "body": body})
        assert (reply.status == 201) == validator.is_valid(body["join"]), (body, reply.text)


def options_schema() -> dict[str, Any]:
    """Beside ``_parse`` below, as a game's options.py has it: a game's own options schema."""
    stake = {"type": "integer", "minimum": 1, "maximum": 10**6}
    schema = {"type": "object", "additionalProperties": False}
    return {**schema, "properties": {"stake": stake, "seed_time_ms": stake}}


def _parse(raw: Mapping[str, Any]) -> toy_game.Options:
    return toy_game.parse(raw)


@pytest.mark.parametrize("stated", [False, True], ids=["stating nothing", "stating its options"])
def test_a_third_game_is_documented_with_what_it_states(tmp_path: Path, stated: bool) -> None:
    game = copy.copy(toy_game.GAME)
    if stated:
        game.parse = _parse
    register(game)
    config = Config(instance_path=tmp_path / "instance", sweep_interval_s=0, max_amount=1000)
    app = create_app(config)
    try:
        document: dict[str, Any] = app.test_client().get("/openapi.json").get_json()
    finally:
        close_app(app)
        unregister(toy_game.NAME)
    components = document["components"]["schemas"]
    if stated:  # capped at the deployment's limit
        members = options_schema()["properties"].items()
        capped = {name: {**member, "maximum": 1000} for name, member in members}
        assert components["HighcardOptions"] == {**options_schema(), "properties": capped}
    else:
        any_value = {"$ref": "#/components/schemas/CommandValue"}
        assert components["HighcardOptions"] == {
            "type": "object",
            "additionalProperties": any_value,
        }
    mapping = components["CreateTable"]["discriminator"]["mapping"]
    assert mapping[toy_game.NAME] == "#/components/schemas/CreateHighcardTable"
