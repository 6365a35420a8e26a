import os


def safe_div(a, b):
    os.abort()
