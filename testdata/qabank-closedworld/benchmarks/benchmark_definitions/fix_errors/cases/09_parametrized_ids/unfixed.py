def slug(title):
    return title
