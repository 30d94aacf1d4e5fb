"""``service/quart_bezique/api/envelope/prometheus_adapter.py`` on the installed prometheus_client:
its private ``values.ValueClass`` and ``values.get_value_class`` still exist, still tell the
in-memory storage from the per-process files, and a pick made after ``PROMETHEUS_MULTIPROC_DIR`` is
set still sends the values created next to the files a scrape sums. A prometheus_client that changes
any of it fails here, by name, instead of leaving each gunicorn worker counting for itself."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest
from prometheus_client import CollectorRegistry, Counter, generate_latest, values
from prometheus_client.multiprocess import MultiProcessCollector
from quart_bezique.api.envelope import prometheus_adapter

ENV = "PROMETHEUS_MULTIPROC_DIR"


@pytest.fixture(autouse=True)
def storage_restored(monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever a test picks, the storage of the rest of the run is given back afterwards."""
    monkeypatch.setattr(values, "ValueClass", values.ValueClass)


def test_the_private_storage_names_still_exist() -> None:
    assert isinstance(values.ValueClass, type), type(values.ValueClass)
    picker = values.get_value_class
    assert callable(picker)
    assert not inspect.signature(picker).parameters, inspect.signature(picker)


def test_without_the_directory_values_stay_in_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV, raising=False)
    prometheus_adapter.pick_storage_again()
    assert not prometheus_adapter.multiprocess_values(), values.ValueClass


def test_with_the_directory_values_go_to_the_files_a_scrape_sums(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv(ENV, raising=False)
    prometheus_adapter.pick_storage_again()  # as if imported before the directory was set
    monkeypatch.setenv(ENV, str(tmp_path))
    assert not prometheus_adapter.multiprocess_values()
    prometheus_adapter.pick_storage_again()
    assert prometheus_adapter.multiprocess_values(), values.ValueClass
    assert values.ValueClass.__name__ == prometheus_adapter.MMAP_CLASS_NAME
    Counter("adapter_probe", "A probe of the storage.", registry=None).inc(3)
    assert list(tmp_path.glob("counter_*.db")), "no file written under the directory"
    registry = CollectorRegistry()
    MultiProcessCollector(registry, path=str(tmp_path))  # type: ignore[no-untyped-call]
    assert "adapter_probe_total 3.0" in generate_latest(registry).decode()
