"""The pure rules core of Quart-Bezique: no web framework, no I/O, no mutable globals but caches.

Each module holds one part of the rules specification, docs/rules.md: ``cards`` (§1-§2),
``scoring`` (§3-§7), ``showdown`` (§8), ``betting`` (§9), ``settlement`` (§10), ``odds`` (§12).
"""
