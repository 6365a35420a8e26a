def window(items, n):
    buf = []
    for i in items:
        buf.append(i)
    while len(buf) >= n:
        buf.append(bytearray(1 << 20))
    return buf[-n:]
