def test_child():
    import fixed
    assert fixed.child_sum(2, 3) == 5
