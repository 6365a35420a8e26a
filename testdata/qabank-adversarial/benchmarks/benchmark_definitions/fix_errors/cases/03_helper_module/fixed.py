from helpers import title


def greet(name):
    return "Hello, " + title(name) + "!"
