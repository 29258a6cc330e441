"""RELU_FRAMES_FULL: the switch between the notebooks' fast default and the paper's sizes."""

import pytest

import relu_frames_nb as rf
from relu_frames_nb.errors import InputError


@pytest.mark.parametrize("value", ["1", "true", "YES", " on "])
def test_full_size_on(value):
    assert rf.full_size({"RELU_FRAMES_FULL": value}) is True


@pytest.mark.parametrize("value", ["", "0", "false", "No", "off"])
def test_full_size_off(value):
    assert rf.full_size({"RELU_FRAMES_FULL": value}) is False


def test_full_size_unset_reads_the_process_environment(monkeypatch):
    monkeypatch.delenv("RELU_FRAMES_FULL", raising=False)
    assert rf.full_size() is False
    monkeypatch.setenv("RELU_FRAMES_FULL", "1")
    assert rf.full_size() is True


@pytest.mark.parametrize("value", ["2", "full", "yes please"])
def test_full_size_rejects_typos(value):
    with pytest.raises(InputError, match="RELU_FRAMES_FULL"):
        rf.full_size({"RELU_FRAMES_FULL": value})
