def slug(title):
    return title.lower().replace(' ', '-')
