"""The committed hand table (tests/js/hands.json) is what the Python rules give today: the
browser's hand tests compare against the rules, not against an old copy of them."""

from tests.js import make_hands


def test_the_committed_hand_table_is_what_the_python_rules_give() -> None:
    assert make_hands.PATH.read_text() == make_hands.text(), "run python -m tests.js.make_hands"
