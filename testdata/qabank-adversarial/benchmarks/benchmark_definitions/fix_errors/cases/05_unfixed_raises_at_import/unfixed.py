VALUE = int("forty-two")
