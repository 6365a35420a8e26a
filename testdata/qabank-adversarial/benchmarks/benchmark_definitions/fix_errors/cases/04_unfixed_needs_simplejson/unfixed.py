import simplejson


def dump(obj):
    return simplejson.dumps(obj)
