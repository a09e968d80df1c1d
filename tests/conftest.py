"""Shared fixtures live in tests/fixtures/, one module per part of the stack."""

pytest_plugins = [
    "tests.fixtures.processes",
    "tests.fixtures.redis",
    "tests.fixtures.postgres",
    "tests.fixtures.engine",
    "tests.fixtures.ai",
    "tests.fixtures.gateway",
]
