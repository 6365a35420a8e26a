def test_mean_of_nothing_is_zero():
    import fixed

    assert fixed.mean([]) == 0.0


def test_mean():
    import fixed

    assert fixed.mean([1, 2, 3]) == 2
