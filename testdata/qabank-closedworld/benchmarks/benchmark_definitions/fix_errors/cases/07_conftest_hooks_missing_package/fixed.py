import json


def parse(text):
    return json.loads(text)
