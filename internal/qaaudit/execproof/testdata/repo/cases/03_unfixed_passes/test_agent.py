def test_greet():
    import fixed

    assert fixed.greet("Ada") == "Hello, Ada!"
