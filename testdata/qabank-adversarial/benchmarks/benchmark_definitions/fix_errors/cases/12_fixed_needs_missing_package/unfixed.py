def parse(text):
    return text
