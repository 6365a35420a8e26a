import pytest


def pytest_collection_modifyitems(items):
    for item in items:
        item.add_marker(pytest.mark.case_marker)


def pytest_configure(config):
    config.addinivalue_line('markers', 'case_marker: added by the case')


@pytest.fixture
def payload():
    return '{"a": 1}'
