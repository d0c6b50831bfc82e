"""Loading and validating scenarios: files, dicts, overrides, the file:line:col messages."""

import pytest

import fogstudio
from conftest import QUICK, cli, preset


def test_load_file_with_overrides():
    s = fogstudio.load(preset("quickstart.yaml"), {"selection.k": 4, "sync.policy": "fully-sync"})
    assert s.name.startswith("Quickstart")
    assert s.seed == 42
    assert s.sync_policy == "fully-sync"
    assert "k: 4" in s.yaml()
    # The same overrides as --set strings, and added to a loaded scenario.
    t = fogstudio.load(preset("quickstart.yaml"), ["selection.k=4", "sync.policy=fully-sync"])
    assert t.yaml() == s.yaml()
    u = fogstudio.load(preset("quickstart.yaml")).with_overrides({"selection.k": 4, "sync.policy": "fully-sync"})
    assert u.yaml() == s.yaml()


def test_dict_round_trip():
    s = fogstudio.load(preset("quickstart.yaml"), QUICK)
    d = s.to_dict()
    assert d["data"]["max_train_samples"] == 1200
    assert d["topology"]["groups"][0]["count"] == 20
    again = fogstudio.load(d)
    assert again.yaml() == s.yaml()
    text = fogstudio.load(s.yaml())
    assert text.yaml() == s.yaml()


def test_bad_file_raises_with_the_clis_file_line_col(tmp_path):
    good = open(preset("quickstart.yaml")).read()
    bad = good.replace("learning_rate: 0.01", "learning_rate: -3").replace("batch_size: 10", "batch_size: ten")
    path = tmp_path / "bad.yaml"
    path.write_text(bad)
    lines = bad.splitlines()
    lr_line = next(i for i, l in enumerate(lines, 1) if "learning_rate: -3" in l)
    with pytest.raises(fogstudio.ScenarioError) as err:
        fogstudio.load(str(path))
    e = err.value
    assert isinstance(e, ValueError)
    paths = {d["path"]: d for d in e.diagnostics}
    assert "training.learning_rate" in paths and "training.batch_size" in paths
    d = paths["training.learning_rate"]
    assert d["file"] == str(path) and d["line"] == lr_line and d["column"] > 0
    assert str(e).startswith("%s:%d:%d: " % (path, lr_line, d["column"])) or \
        ("%s:%d:%d: " % (path, lr_line, d["column"])) in str(e)
    # Word for word what fogstudio-cli validate prints.
    p = cli("validate", str(path), check=False)
    assert p.returncode == 1
    assert p.stderr.strip() == str(e).strip()


def test_bad_override_and_bad_dict():
    with pytest.raises(fogstudio.ScenarioError) as err:
        fogstudio.load(preset("quickstart.yaml"), {"selection.k": -1})
    assert any(d["path"] == "selection.k" for d in err.value.diagnostics)
    with pytest.raises(fogstudio.ScenarioError) as err:
        fogstudio.load({"name": "x", "topology": {"nodes": [{"id": "a", "tier": "moon"}]}})
    assert "<dict>:" in str(err.value)
    assert any("tier" in d["path"] for d in err.value.diagnostics)


def test_policies_and_schema():
    p = fogstudio.policies()
    names = set(p["name"])
    assert {"fedavg", "fully-sync", "fastest-k", "random-k", "python"} <= names
    sel = fogstudio.policies("selection")
    assert set(sel["kind"]) == {"selection"}
    k = next(x for x in sel.set_index("name").loc["fastest-k", "params"] if x["key"] == "k")
    assert k["default"] == 10 and k["integer"]
    s = fogstudio.schema()
    row = s.set_index("path").loc["selection.policy"]
    assert "python" in row["values"] and "fastest-k" in row["values"]
    assert "training.learning_rate" in set(s["path"])


def test_structured_override_values():
    s = fogstudio.load(preset("quickstart.yaml"), {"model.hidden": [50, 20], "training.momentum": 0.25,
                                                   "topology.default_link": {"bandwidth_up_mbps": 5,
                                                                             "bandwidth_down_mbps": 10,
                                                                             "latency_ms": 1, "price_per_gb": 0.0}})
    d = s.to_dict()
    assert d["model"]["hidden"] == [50, 20] and d["training"]["momentum"] == 0.25
    assert d["topology"]["default_link"]["bandwidth_up_mbps"] == 5
    # As --set strings (what sweeps and forks pass on).
    assert fogstudio._override_list({"model.hidden": [50, 20], "x": True}) == ["model.hidden=[50, 20]", "x=true"]
