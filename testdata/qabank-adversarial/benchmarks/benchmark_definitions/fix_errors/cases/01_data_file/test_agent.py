def test_total():
    import fixed
    assert fixed.total(["apple", "pear"]) == 5
