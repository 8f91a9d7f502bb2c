"""How tests/vectors/legacy-export-1.jsonl was made, once, by the release before bounded
proofs (commit 4e4b1e1): an export in bundle format 1, every bundle its table's whole
chain from table_created, with no table_state anywhere (SPEC 6.6 did not exist).

The file is never regenerated: it is what that release wrote, and tests/test_vectors.py
checks that today's verifier still finds it valid, and still finds a change in it. It
was made with that release's own test helpers, from a checkout of 4e4b1e1:
``PYTHONPATH=<that checkout> python tests/vectors/legacy.py``. (Run against a later tree
it writes that tree's format instead, which is not this file.)
"""

import json
import sys
from pathlib import Path

from tests.verifier import helpers

OUTPUT = Path(__file__).with_name("legacy-export-1.jsonl")
CHECKPOINT = Path(__file__).with_name("legacy-export-1.checkpoint")
KEY = Path(__file__).with_name("legacy-export-1.key")  # the log's verifier key


def main() -> None:
    tables = [
        helpers.toto21_table("legacy-t21", rounds=3),
        helpers.kvitlach_table("legacy-kv", rounds=3, rule_set="classic"),
        helpers.kvitlach_table("legacy-kp", rounds=3, rule_set="pressburg"),
    ]
    log = helpers.Log().add_all(*tables)
    OUTPUT.write_text("".join(json.dumps(b, sort_keys=True) + "\n" for b in log.bundles()))
    CHECKPOINT.write_text(log.checkpoint())
    KEY.write_text(helpers.VERIFIER_KEY + "\n")
    sys.stdout.write(f"wrote {OUTPUT.name}, {CHECKPOINT.name} and {KEY.name}\n")


if __name__ == "__main__":
    main()
