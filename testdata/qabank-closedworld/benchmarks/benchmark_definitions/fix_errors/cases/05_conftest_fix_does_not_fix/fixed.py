def first(words):
    return sorted(words)[-1]
