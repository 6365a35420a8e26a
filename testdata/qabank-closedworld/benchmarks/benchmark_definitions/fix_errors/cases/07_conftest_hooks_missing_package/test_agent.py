def test_parse(payload, request):
    from fixed import parse
    assert request.node.get_closest_marker('case_marker') is not None
    assert parse(payload) == {'a': 1}
