from money import cents


def price_in_cents(amount):
    return int(amount * 100)
