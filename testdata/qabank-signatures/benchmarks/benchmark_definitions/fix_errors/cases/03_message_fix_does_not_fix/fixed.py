def ratio(a, b):
    if b == 0:
        raise ValueError("b must be non-zero")
    return a / b
