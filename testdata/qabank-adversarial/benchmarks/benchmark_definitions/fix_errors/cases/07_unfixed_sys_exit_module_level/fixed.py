def answer():
    return 1
