def test_dump():
    import fixed
    assert fixed.dump({"a": 1}) == '{"a": 1}'
