"""Reading a command's ``--help``: each option and the help text argparse prints for it."""

import re

_OPTION = re.compile(r"^  (\S.*?)(?:\s{2,}(\S.*))?$")


def options_and_help(text: str) -> dict[str, str]:
    """Every entry of the help's argument sections (``options:``, ``positional arguments:``)
    and its help text, its continuation lines joined."""
    found: dict[str, str] = {}
    current = None
    in_section = False
    for line in text.splitlines():
        if line.endswith(":") and not line.startswith(" "):
            in_section = line in ("options:", "positional arguments:")
            current = None
            continue
        if not in_section or not line.strip():
            continue
        entry = _OPTION.match(line)
        if entry and not line.startswith("   "):
            current = entry.group(1)
            found[current] = entry.group(2) or ""
        elif current is not None:
            found[current] = f"{found[current]} {line.strip()}".strip()
    return found
