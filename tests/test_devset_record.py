"""formats.codrep2019.read_devset: the one reader of a development set's devset.json."""
import pytest

from formats.codrep2019 import DEVSET_FILE, read_devset
from formats.files import InputError


@pytest.mark.parametrize("text, expected", [
    (None, {}),
    ('{"config": {"name": "jdk", "held_out": false}}', {"config": {"name": "jdk", "held_out": False}}),
])
def test_read_devset(tmp_path, text, expected):
    if text is not None:
        (tmp_path / DEVSET_FILE).write_text(text)
    assert read_devset(tmp_path) == expected


@pytest.mark.parametrize("text", ["[1, 2]", "{not json", ""])
def test_a_broken_record_is_an_input_error_naming_the_file(tmp_path, text):
    (tmp_path / DEVSET_FILE).write_text(text)
    with pytest.raises(InputError, match=DEVSET_FILE):
        read_devset(tmp_path)
