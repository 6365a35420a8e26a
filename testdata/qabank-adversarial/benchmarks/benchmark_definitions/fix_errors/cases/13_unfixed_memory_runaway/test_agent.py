def test_window():
    import fixed
    assert fixed.window(range(10), 3) == [7, 8, 9]
