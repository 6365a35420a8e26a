import pathlib


def test_oldest():
    import fixed
    assert fixed.oldest(pathlib.Path(__file__).parent / "people.csv") == "grace"
