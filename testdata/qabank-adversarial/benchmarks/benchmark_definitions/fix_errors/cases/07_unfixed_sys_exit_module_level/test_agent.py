import fixed


def test_answer():
    assert fixed.answer() == 1
