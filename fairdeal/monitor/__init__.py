"""The informed-play monitor (issue 29): from an export, each seat decision with what the
seat could see and what it could not, and a stratified test of whether a seat's decisions
(or a Kvitlach pair's) depend on what it could not see; the report as text, JSON or one
HTML page (page.py). Pure, like the core: the command that reads and writes files is the
verifier's (verifier/monitor_cli.py). docs/monitor.md says what a flag means."""

from fairdeal.monitor.observations import KINDS, Observation
from fairdeal.monitor.replay import Replayer, UnreadableBundleError, observations
from fairdeal.monitor.report import ALPHA, Report, SeatTest, judge, text
from fairdeal.monitor.stats import Cmh, chi2_sf_1df, cmh, holm

__all__ = [
    "ALPHA", "KINDS", "Cmh", "Observation", "Replayer", "Report", "SeatTest",
    "UnreadableBundleError", "chi2_sf_1df", "cmh", "holm", "judge", "observations", "text",
]  # fmt: skip
