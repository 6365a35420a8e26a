import time


def test_mean_waits_forever():
    import fixed

    while True:
        time.sleep(1)
    assert fixed.mean([1]) == 1
