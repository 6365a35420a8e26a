def rate():
    return 1.0
