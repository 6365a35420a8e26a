import fixed


def test_value():
    assert fixed.VALUE == 42
