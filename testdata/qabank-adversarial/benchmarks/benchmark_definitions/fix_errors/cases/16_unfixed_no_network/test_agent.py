def test_rate():
    import fixed
    assert fixed.rate() == 1.0
