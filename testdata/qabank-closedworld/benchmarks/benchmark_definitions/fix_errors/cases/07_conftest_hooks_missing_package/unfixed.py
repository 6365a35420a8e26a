import ujson_not_installed_anywhere as json


def parse(text):
    return json.loads(text)
