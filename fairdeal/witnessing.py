"""C2SP tlog-witness requests and answers (placeholder until the witness lands)."""

import base64
import re
from collections.abc import Sequence

from fairdeal.errors import FairdealError

_SIZE = re.compile("(0|[1-9][0-9]{0,19})\n")


def format_add_checkpoint(old_size: int, proof: Sequence[bytes], note: str) -> bytes:
    lines = [f"old {old_size}\n", *(base64.b64encode(h).decode() + "\n" for h in proof), "\n"]
    return ("".join(lines) + note).encode()


def parse_tlog_size(text: str) -> int:
    if not _SIZE.fullmatch(text):
        raise FairdealError("not a tlog size")
    return int(text)
