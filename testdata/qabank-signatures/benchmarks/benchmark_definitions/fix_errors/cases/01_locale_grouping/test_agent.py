def test_price_in_german():
    from fixed import price

    assert price(1234.5) == "1.234,50"
