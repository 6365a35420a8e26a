def test_ready():
    import fixed
    assert fixed.ready() is True
