"""configs/default.toml as a document to edit, for the tests of the configuration's rules
(tests/test_config.py, tests/test_config_accel.py)."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from couplet import paths
from couplet.model.config import ConfigError, SocConfig, parse_config

DELETE = object()  # an edit's value that removes the key


def default_doc() -> dict[str, Any]:
    return tomllib.loads((paths.CONFIGS_DIR / "default.toml").read_text())


def parse(doc: dict[str, Any]) -> SocConfig:
    return parse_config(doc, Path("test.toml"))


def edited(edits: Mapping[str, object]) -> dict[str, Any]:
    """The default document with each dotted key ("core.boot_addr") set to its value, or deleted."""
    doc = default_doc()
    for key, value in edits.items():
        *tables, name = key.split(".")
        table = doc
        for part in tables:
            table = table[part]
        if value is DELETE:
            del table[name]
        else:
            table[name] = value
    return doc


def assert_rejected(doc: dict[str, Any], message: str) -> None:
    """Loading `doc` fails with an error that matches the regular expression `message`."""
    with pytest.raises(ConfigError, match=message):
        parse(doc)
