import json
import os


def total(items):
    with open(os.path.join(os.path.dirname(__file__), "prices.json")) as f:
        prices = json.load(f)
    return sum(prices[i] for i in items)
