def test_parse():
    import fixed
    assert fixed.parse("a: 1") == {"a": 1}
