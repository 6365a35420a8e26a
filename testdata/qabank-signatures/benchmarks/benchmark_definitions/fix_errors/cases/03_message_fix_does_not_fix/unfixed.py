def ratio(a, b):
    return a / b
