import pytest


@pytest.fixture
def words():
    return ['b', 'a', 'c']
