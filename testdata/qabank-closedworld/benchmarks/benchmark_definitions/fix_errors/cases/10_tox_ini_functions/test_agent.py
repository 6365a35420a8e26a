from fixed import halve


def check_halve_is_whole():
    assert halve(7) == 3
