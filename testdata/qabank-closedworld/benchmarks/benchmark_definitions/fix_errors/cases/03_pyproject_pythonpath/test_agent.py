from fixed import metres


def test_metres():
    assert metres(2) == 2000
