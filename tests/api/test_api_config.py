"""Configuration is read from the environment once and validated."""

from __future__ import annotations

import pytest
from quart_bezique.api.config import Config, ConfigError


def test_defaults() -> None:
    config = Config.from_env({})
    assert config == Config()
    assert config.max_body_bytes == 1024 * 1024
    assert config.max_batch_hands == 10_000
    assert config.max_actions == 1_000
    assert config.build_tables is True


def test_overrides() -> None:
    env = {
        "MAX_BODY_BYTES": "2048",
        "MAX_BATCH_HANDS": " 50 ",
        "MAX_ACTIONS": "7",
        "BUILD_TABLES": "off",
    }
    assert Config.from_env(env) == Config(2048, 50, 7, False)


def test_blank_means_default() -> None:
    assert Config.from_env({"MAX_BODY_BYTES": "", "BUILD_TABLES": " "}) == Config()


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("MAX_BODY_BYTES", "lots"),
        ("MAX_BODY_BYTES", "10"),
        ("MAX_BATCH_HANDS", "0"),
        ("MAX_ACTIONS", "1.5"),
        ("BUILD_TABLES", "maybe"),
    ],
)
def test_bad_values_are_refused(name: str, value: str) -> None:
    with pytest.raises(ConfigError, match=name):
        Config.from_env({name: value})
