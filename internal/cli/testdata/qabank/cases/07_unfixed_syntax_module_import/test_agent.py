import fixed


def test_mean_of_nothing_is_zero():
    assert fixed.mean([]) == 0.0
