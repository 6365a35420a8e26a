from fixed import greet


def should_greet_with_punctuation():
    assert greet('Ada') == 'Hello, Ada!'
