import urllib.request


def rate():
    with urllib.request.urlopen("http://203.0.113.7/rate", timeout=5) as r:
        return float(r.read())
