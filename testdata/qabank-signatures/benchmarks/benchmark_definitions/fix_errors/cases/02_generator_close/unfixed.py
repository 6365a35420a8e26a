log = []


def reader():
    log.append("open")
    for i in range(3):
        yield i
    log.append("closed")
