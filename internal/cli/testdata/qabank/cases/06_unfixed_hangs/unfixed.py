def mean(values):
    while not values:
        pass
    return sum(values) / len(values)
