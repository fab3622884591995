"""The documents' data files: they load through their models, and a corrupted file fails with one
sentence naming the file and the field."""

from __future__ import annotations

import json

import pytest

from labcore.scorecards import tables
from labcore.scorecards.contract import ContractError
from labcore.scorecards.records import FCSTables, OSMDTables
from labcore.scorecards.tables import DATA, load_tables

FILES = {"osmd_rubric.json": OSMDTables, "fcs.json": FCSTables}


@pytest.mark.parametrize("name", list(FILES))
def test_the_shipped_files_load_into_the_public_tables(name):
    loaded = load_tables(DATA / name, FILES[name])
    assert loaded == (tables.OSMD if name == "osmd_rubric.json" else tables.FCS)


def _corrupted(tmp_path, name, change):
    data = json.loads((DATA / name).read_text(encoding="utf-8"))
    change(data)
    path = tmp_path / name
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def _wrong_type(data):
    data["bands"][1]["low"] = "11"


def _missing(data):
    del data["items"][3]["criteria"]


def _extra(data):
    data["clusters"][0]["colour"] = "red"


def _out_of_range(data):
    data["reference_systems"][3]["scores"][5][2] = 4


def _unknown_flag(data):
    data["items"][0]["lm_flag"] = "severe"


def _grid_without_an_item(data):
    del data["reference_systems"][0]["scores"][7]


def _fcs_text_for_a_number(data):
    data["reference_table"][2]["reasoning_power"] = "33"


@pytest.mark.parametrize(
    ("name", "change", "field", "kind"),
    [
        ("osmd_rubric.json", _wrong_type, "bands[1].low", "int_type"),
        ("osmd_rubric.json", _missing, "items[3].criteria", "missing"),
        ("osmd_rubric.json", _extra, "clusters[0].colour", "extra_forbidden"),
        ("osmd_rubric.json", _out_of_range, "reference_systems[3].scores[5][2]", "less_than_equal"),
        ("osmd_rubric.json", _unknown_flag, "items[0].lm_flag", "literal_error"),
        ("osmd_rubric.json", _grid_without_an_item, "", "value_error"),
        ("fcs.json", _fcs_text_for_a_number, "reference_table[2].reasoning_power", "number_type"),
    ],
)
def test_a_corrupted_file_fails_naming_the_field(tmp_path, name, change, field, kind):
    with pytest.raises(ContractError) as caught:
        load_tables(_corrupted(tmp_path, name, change), FILES[name])
    error = caught.value
    assert (error.field, error.kind) == (field, kind)
    assert isinstance(error, ValueError)
    message = str(error)
    assert message.startswith(f"{name}: {field}")  # the file, then the field
    assert "\n" not in message and "Traceback" not in message


def test_a_missing_field_reads_as_one_sentence(tmp_path):
    with pytest.raises(ContractError) as caught:
        load_tables(_corrupted(tmp_path, "osmd_rubric.json", _missing), OSMDTables)
    error = caught.value
    assert (error.field, error.kind) == ("items[3].criteria", "missing")
    assert str(error).startswith("osmd_rubric.json") and "\n" not in str(error)  # one sentence
