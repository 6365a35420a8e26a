import pytest


def test_zero_divisor_is_refused_with_its_reason():
    from fixed import ratio

    with pytest.raises(ValueError, match="b must not be zero"):
        ratio(1, 0)
