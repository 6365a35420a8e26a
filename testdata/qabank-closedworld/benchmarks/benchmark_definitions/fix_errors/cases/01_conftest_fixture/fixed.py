def total(prices):
    return sum(prices.values())
