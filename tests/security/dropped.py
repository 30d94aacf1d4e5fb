"""Whether the server has dropped a connection, seen from the kernel's connection table.

A server that gives up on a client that never reads closes its end, but its FIN waits behind
answers the client's closed window will not take: the client's own end cannot tell until it
reads, and reading would unblock the server, and how fast the kernel then releases what was
queued depends on the machine's load. The table (``/proc/net/tcp``) says it at once, without
reading.
"""

from __future__ import annotations

import time
from typing import Final

ESTABLISHED: Final = "01"
"""``st`` of an established connection in ``/proc/net/tcp``."""
DROP_GUARD: Final = 60.0
"""How long a test waits, without reading, for the server to drop a client that never reads:
a hang guard (how long the buffers take to fill depends on the load), not the limit under
test."""


def server_end_open(server: int, client: int) -> bool:
    """Whether the server's end of the connection between ports ``server`` and ``client`` (both
    on this machine) is still established."""
    with open("/proc/net/tcp", encoding="ascii") as table:
        for row in table.readlines()[1:]:
            fields = row.split()
            local, remote, state = fields[1], fields[2], fields[3]
            if int(local.split(":")[1], 16) == server and int(remote.split(":")[1], 16) == client:
                return state == ESTABLISHED
    return False  # gone: closed and done with


def dropped(server: int, client: int, guard: float = DROP_GUARD) -> bool:
    """Wait, without reading, until the server has closed its end; False if it still holds it
    after ``guard`` seconds."""
    end = time.monotonic() + guard
    while server_end_open(server, client) and time.monotonic() < end:
        time.sleep(0.1)
    return not server_end_open(server, client)
