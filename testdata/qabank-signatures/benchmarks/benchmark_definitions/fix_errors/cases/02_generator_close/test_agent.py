def test_close_runs_the_cleanup():
    import fixed

    g = fixed.reader()
    next(g)
    g.close()
    assert fixed.log == ["open", "closed"]
