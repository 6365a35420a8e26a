import unicodedata

import pytest

from fixed import slug


@pytest.mark.parametrize('title,want', [('Hello World', 'hello-world'), ('Crème brûlée', 'creme-brulee')])
def test_slug(title, want):
    assert slug(title) == want
