from fixed import total


def test_total(prices):
    assert total(prices) == 7
