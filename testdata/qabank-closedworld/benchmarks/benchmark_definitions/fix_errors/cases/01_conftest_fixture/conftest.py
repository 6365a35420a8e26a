import pytest


@pytest.fixture
def prices():
    return {'apple': 3, 'pear': 4}
