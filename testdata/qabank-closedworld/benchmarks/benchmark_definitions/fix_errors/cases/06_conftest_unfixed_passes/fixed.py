def biggest(numbers):
    return sorted(numbers)[-1]
