from fixed import fahrenheit


def test_boiling(temperature):
    assert fahrenheit(temperature) == 212
