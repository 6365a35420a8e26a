def test_echo():
    import fixed
    assert fixed.echo(b"ping") == b"ping"
