def mean(values):
    # Still divides by zero on an empty list.
    return sum(values) / max(len(values), 0)
