def biggest(numbers):
    return max(numbers)
