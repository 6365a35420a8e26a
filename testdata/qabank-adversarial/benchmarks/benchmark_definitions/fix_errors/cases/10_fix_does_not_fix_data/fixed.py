import csv


def oldest(path):
    with open(path, newline="") as f:
        return max(csv.DictReader(f), key=lambda r: r["age"])["name"]
