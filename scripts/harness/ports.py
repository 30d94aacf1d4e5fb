"""A free TCP port on the loopback interface."""

from __future__ import annotations

import socket

LOOPBACK = "127.0.0.1"


def free_port(host: str = LOOPBACK) -> int:
    """A port nothing listens on now. The kernel picks it; there is a window before the server
    binds it, which on a test machine is harmless (a collision fails loudly at start-up)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((host, 0))
        port: int = probe.getsockname()[1]
        return port
