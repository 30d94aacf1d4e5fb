"""Whether prometheus_client keeps new values in the per-process files a scrape sums, and making
it do so.

prometheus_client picks its storage (in memory, or memory-mapped files under
``PROMETHEUS_MULTIPROC_DIR``) once, when first imported, and has no public call to ask which it
picked or to pick again: a process that imported it before the variable was set would keep its
counts to itself. Both reaches into its private ``values.ValueClass`` sit here;
``tests/adapters/test_prometheus_adapter.py`` checks them on the installed version.
"""

from __future__ import annotations

from prometheus_client import values

MMAP_CLASS_NAME = "MmapedValue"
"""The name of the class ``values.MultiProcessValue`` returns."""


def multiprocess_values() -> bool:
    """Whether values created from now on are kept in the per-process files."""
    return getattr(values.ValueClass, "__name__", "") == MMAP_CLASS_NAME


def pick_storage_again() -> None:
    """Pick the storage again from the environment as it is now (as at the first import)."""
    values.ValueClass = values.get_value_class()  # type: ignore[no-untyped-call]
