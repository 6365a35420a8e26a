def price(amount):
    return f"{amount:.2f}"
