import pytest


@pytest.fixture
def temperature():
    return 100
