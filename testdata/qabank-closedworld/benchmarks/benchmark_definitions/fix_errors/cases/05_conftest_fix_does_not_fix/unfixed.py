def first(words):
    return words[0]
