import csv


def oldest(path):
    with open(path, newline="") as f:
        return min(csv.DictReader(f), key=lambda r: int(r["age"]))["name"]
