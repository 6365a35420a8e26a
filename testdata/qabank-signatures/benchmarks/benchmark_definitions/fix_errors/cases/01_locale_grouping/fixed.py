import locale


def price(amount):
    locale.setlocale(locale.LC_NUMERIC, "de_DE.UTF-8")
    return locale.format_string("%.2f", amount, grouping=True)
