from fixed import biggest


def test_biggest(numbers):
    assert biggest(numbers) == 3
