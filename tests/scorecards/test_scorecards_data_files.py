"""The data files: they load through their models, and a corrupted file fails with one sentence
naming the file and the field."""

from __future__ import annotations

import json

import pytest

from labcore.scorecards import documents
from labcore.scorecards.checks import CHECKS, CheckTable
from labcore.scorecards.contract import ContractError
from labcore.scorecards.documents import DATA, FCSDocument, OSMDDocument, load
from labcore.scorecards.lab_agents import LAB, LabMapping

FILES = {
    "osmd_rubric.json": (OSMDDocument, documents.OSMD),
    "fcs.json": (FCSDocument, documents.FCS),
    "checks.json": (CheckTable, CHECKS),
    "lab_agents.json": (LabMapping, LAB),
}


@pytest.mark.parametrize("name", list(FILES))
def test_the_shipped_files_load_into_the_public_tables(name):
    model, loaded = FILES[name]
    assert load(name, model) == loaded


def _corrupted(tmp_path, name, change):
    data = json.loads((DATA / name).read_text(encoding="utf-8"))
    change(data)
    (tmp_path / name).write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return tmp_path


def _wrong_type(data):
    data["bands"][1][2] = "11"


def _missing(data):
    del data["items"]["HOT-2"]["criteria"]


def _extra(data):
    data["items"]["RPT-1"]["colour"] = "red"


def _out_of_range(data):
    data["grid_6_1"]["GWT-1"][3][1] = 4


def _unknown_flag(data):
    data["items"]["RPT-1"]["lm_vulnerability"] = "severe. Not a flag."


def _grid_without_an_item(data):
    del data["grid_6_1"]["GWT-3"]


def _fcs_text_for_a_number(data):
    data["reference_table"][2]["reasoning_power"] = "33"


def _check_that_does_not_parse(data):
    data["OSMD"][0]["recomputed"] = "total(system,"


def _unknown_part(data):
    data["kinds"]["B2"][1].append("soul")


def _item_without_a_treatment(data):
    del data["architecture"]["RPT-1"]


@pytest.mark.parametrize(
    ("name", "change", "field", "kind"),
    [
        ("osmd_rubric.json", _wrong_type, "bands[1][2]", "int_type"),
        ("osmd_rubric.json", _missing, "items.HOT-2.criteria", "missing"),
        ("osmd_rubric.json", _extra, "items.RPT-1.colour", "extra_forbidden"),
        ("osmd_rubric.json", _out_of_range, "grid_6_1.GWT-1[3][1]", "less_than_equal"),
        (
            "osmd_rubric.json",
            _unknown_flag,
            "items.RPT-1.lm_vulnerability",
            "string_pattern_mismatch",
        ),
        ("osmd_rubric.json", _grid_without_an_item, "", "value_error"),
        ("fcs.json", _fcs_text_for_a_number, "reference_table[2].reasoning_power", "number_type"),
        ("checks.json", _check_that_does_not_parse, "OSMD", "check_syntax"),
        ("lab_agents.json", _unknown_part, "kinds.B2[1][3]", "literal_error"),
        ("lab_agents.json", _item_without_a_treatment, "", "value_error"),
    ],
)
def test_a_corrupted_file_fails_naming_the_field(tmp_path, name, change, field, kind):
    with pytest.raises(ContractError) as caught:
        load(name, FILES[name][0], folder=_corrupted(tmp_path, name, change))
    error = caught.value
    assert (error.field, error.kind) == (field, kind)
    message = str(error)
    assert message.startswith(f"{name}: {field}")  # the file, then the field
    assert "\n" not in message and "Traceback" not in message


def test_a_check_that_does_not_parse_is_named(tmp_path):
    folder = _corrupted(tmp_path, "checks.json", _check_that_does_not_parse)
    with pytest.raises(ContractError) as caught:
        load("checks.json", CheckTable, folder=folder)
    assert CHECKS.OSMD[0]["id"] in str(caught.value)  # the row, by its id
