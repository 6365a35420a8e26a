import json


def dump(obj):
    return json.dumps(obj)
