import asyncio


def test_fetch():
    import fixed
    assert asyncio.run(fixed.main()) == 3
