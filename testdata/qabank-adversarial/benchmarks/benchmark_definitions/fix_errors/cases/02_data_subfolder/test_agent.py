import pathlib


def test_rows():
    import fixed
    here = pathlib.Path(__file__).parent
    assert fixed.rows(here / "fixtures" / "people.csv") == 3
