def test_safe():
    import fixed
    assert fixed.safe_div(6, 3) == 2
