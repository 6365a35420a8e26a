import units


def metres(km):
    return km * 100
