"""The identity of the rules this core implements (docs/rules.md, "Conventions of this page").

Every answer that depends on the rules names this identifier, so a stored verdict can always be tied
to the exact reading that produced it. Bump the version whenever any rule's outcome changes.
"""

from typing import Final

RULESET_NAME: Final = "classic"
RULESET_VERSION: Final = 1
RULESET: Final = f"{RULESET_NAME}/{RULESET_VERSION}"
