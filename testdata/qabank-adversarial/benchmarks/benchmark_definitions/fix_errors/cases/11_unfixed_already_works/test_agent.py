def test_upper():
    import fixed
    assert fixed.shout("hi") == "HI"
