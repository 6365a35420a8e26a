def halve(n):
    return n // 2
