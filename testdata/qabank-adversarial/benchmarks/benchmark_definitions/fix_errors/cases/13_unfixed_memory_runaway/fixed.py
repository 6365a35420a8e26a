def window(items, n):
    return list(items)[-n:]
