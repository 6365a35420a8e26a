def title(s):
    return s[:1].upper() + s[1:]
