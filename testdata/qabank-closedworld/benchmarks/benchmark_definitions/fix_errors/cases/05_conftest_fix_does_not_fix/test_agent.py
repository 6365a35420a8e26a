from fixed import first


def test_first_alphabetically(words):
    assert first(words) == 'a'
