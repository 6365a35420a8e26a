log = []


def reader():
    log.append("open")
    try:
        for i in range(3):
            yield i
    finally:
        log.append("closed")
