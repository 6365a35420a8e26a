from fixed import price_in_cents


def test_price():
    assert price_in_cents(0.29) == 29
