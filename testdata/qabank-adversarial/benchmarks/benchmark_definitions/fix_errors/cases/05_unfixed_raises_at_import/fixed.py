VALUE = int("42")
