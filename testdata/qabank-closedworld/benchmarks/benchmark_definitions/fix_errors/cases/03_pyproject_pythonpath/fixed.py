import units


def metres(km):
    return km * units.KM
