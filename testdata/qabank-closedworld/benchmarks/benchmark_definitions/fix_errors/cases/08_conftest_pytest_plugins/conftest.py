pytest_plugins = ['case_fixtures']
