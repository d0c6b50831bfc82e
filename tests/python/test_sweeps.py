"""Variants, sweeps, forks and exports from Python, against the CLI's."""

import io
import os

import pandas as pd

import fogstudio
from conftest import QUICK, cli, preset

VOLATILE = {"data.max_train_samples": 800, "data.max_test_samples": 200, "stop.virtual_time_s": 10,
            "evaluation.every_rounds": 5}


def test_sweep_matches_the_cli_export(db):
    progress = []
    r = fogstudio.sweep(preset("quickstart.yaml"), {"selection.k": [2, 4]}, overrides=QUICK, db=db,
                        progress=lambda p: progress.append((p["done"], p["total"], p["config"])))
    assert r.failed == 0 and not r.cancelled and len(r.run_ids) == 2
    assert [p[:2] for p in progress] == [(1, 2), (2, 2)]
    s = r.summary()
    assert list(s["sweep_config"]) == ["selection.k=2", "selection.k=4"]
    csv = cli("export", "summary", "--sweep", str(r.sweep_id), "--db", db).stdout
    want = pd.read_csv(io.StringIO(csv), keep_default_na=False, na_values=[""])
    assert list(s.columns) == list(want.columns)
    for col in ["run_id", "rounds", "sweep_config", "status", "seed"]:
        assert list(s[col]) == list(want[col]), col
    for col in ["virtual_time_s", "cost", "final_test_accuracy"]:
        assert (s[col] - want[col]).abs().max() < 1e-9 * max(1.0, s[col].abs().max()), col
    m = r.metrics()
    csv = cli("export", "metrics", "--sweep", str(r.sweep_id), "--db", db).stdout
    want = pd.read_csv(io.StringIO(csv))
    assert list(m.columns) == list(want.columns) and len(m) == len(want)
    # The same sweep from the CLI stores the same rows.
    cli_db = db + ".cli"
    cli("sweep", preset("quickstart.yaml"), "--vary", "selection.k=2,4", "--db", cli_db, "--quiet",
        *sum((["--set", "%s=%s" % kv] for kv in QUICK.items()), []))
    with fogstudio.open_db(cli_db) as d:
        other = d.metrics(sweep=1)
    drop = ["run_id", "wall_s", "sweep_id"]
    pd.testing.assert_frame_equal(m.drop(columns=drop), other.drop(columns=drop))


def test_variants_and_plots(db, tmp_path):
    r = fogstudio.run_variants(preset("volatile-spot-sync.yaml"), repeats=1, overrides=VOLATILE, db=db)
    assert r.failed == 0 and len(r.run_ids) == 3
    s = r.summary()
    assert list(s["sweep_config"]) == ["fully-sync", "n-sync", "n-batch-sync"]
    one = fogstudio.run(preset("volatile-spot-sync.yaml"), variant="n-sync", overrides=VOLATILE, db=db)
    assert one.virtual_time_s == s.set_index("sweep_config").loc["n-sync", "virtual_time_s"]
    with fogstudio.open_db(db) as d:
        files = d.export_plots(sweep=r.sweep_id, out=tmp_path / "plots")
        assert {os.path.basename(f) for f in files} >= {"accuracy.png", "cost.png", "tradeoff.png"}
        assert all(os.path.getsize(f) > 1000 for f in files)
        report = d.export_report(tmp_path / "report.html", sweep=r.sweep_id)
        assert "<html" in open(report).read(200).lower()


def test_fork(db):
    parent = fogstudio.run(preset("quickstart.yaml"), overrides=dict(QUICK, **{"stop.rounds": 4}), db=db)
    times = parent.metrics["virtual_time_s"]
    at = float(times.iloc[1] + times.iloc[2]) / 2  # between the second and third aggregation
    f = fogstudio.fork(parent.run_id, at, sets={"selection.k": 4}, db=db)
    assert f.ok and f.parent_id == parent.run_id and f.run_id != parent.run_id
    assert "fork of run %d" % parent.run_id in f.label
    # The replayed prefix equals the parent's rows.
    cols = ["round", "virtual_time_s", "train_loss", "cost"]
    pd.testing.assert_frame_equal(f.metrics[cols].iloc[:2], parent.metrics[cols].iloc[:2])
    with fogstudio.open_db(db) as d:
        info = d.fork_of(f.run_id)
        assert info["parent_id"] == parent.run_id and info["changes"] == ["policy selection.k=4"]
    try:
        fogstudio.fork(parent.run_id, 1e9, db=db)
        raise AssertionError("expected ForkError")
    except fogstudio.ForkError as e:
        assert "run %d" % parent.run_id in str(e)


def test_rerun_from_the_database(db):
    r = fogstudio.run(preset("quickstart.yaml"), overrides=QUICK, db=db)
    with fogstudio.open_db(db) as d:
        again = d.rerun(r.run_id)
    pd.testing.assert_frame_equal(again.metrics.drop(columns=["run_id", "wall_s", "run_name"]),
                                  r.metrics.drop(columns=["run_id", "wall_s", "run_name"]))
