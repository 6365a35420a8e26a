def test_greeting():
    import fixed
    assert fixed.greet("ada") == "Hello, Ada!"
