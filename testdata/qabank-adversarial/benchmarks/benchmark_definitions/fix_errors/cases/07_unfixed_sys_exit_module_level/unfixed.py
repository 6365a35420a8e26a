import sys


def answer():
    return 1


if True:
    sys.exit("configuration missing")
