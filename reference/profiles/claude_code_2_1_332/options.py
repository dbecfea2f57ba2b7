"""How the ``cli`` profile's options map to the real CLI's environment.

The reference stays pure (options in, JSON out); the oracle adapter and the
recorder set the variables below so a recorded case and the reference run
under the same switches.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

RESUME_INTERRUPTED_TURN = "CLAUDE_CODE_RESUME_INTERRUPTED_TURN"
# case / protocol option name -> the environment variable the CLI reads
OPTION_ENV = {"resume_interrupted_turn": RESUME_INTERRUPTED_TURN}
SWITCH_ENV = frozenset(OPTION_ENV.values())


def env_for_options(options: Mapping[str, Any]) -> dict[str, str]:
    """The variables to set for the options that are on (``"1"``, as a user would)."""
    return {name: "1" for option, name in OPTION_ENV.items() if options.get(option)}


TRUTHY = frozenset({"1", "true", "yes", "on"})  # probed: "1" and "true" on, "0" and "false" off


def switches_from_env(env: Mapping[str, str]) -> dict[str, bool]:
    """The ``Options`` switches an environment turns on, read as the CLI reads them."""
    return {option: env.get(name, "").strip().lower() in TRUTHY
            for option, name in OPTION_ENV.items()}
