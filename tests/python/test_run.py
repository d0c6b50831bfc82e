"""Runs from Python: equal to the CLI's, stored as the CLI stores them, progress and
cancellation, the GIL released."""

import math
import os
import signal
import sqlite3
import threading

import pandas as pd
import pytest

import fogstudio
from conftest import QUICK, cli, cli_json, preset, sets

SUMMARY_KEYS = ["status", "stop_reason", "final_test_accuracy", "best_test_accuracy", "final_test_loss",
                "final_train_loss", "rounds", "aggregations", "virtual_time_s", "cost", "energy_j",
                "energy_compute_j", "energy_network_j", "energy_idle_j", "bytes_moved", "samples_computed",
                "lost_jobs"]


def same(a, b):
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b


def test_results_equal_the_clis(db, tmp_path):
    r = fogstudio.run(preset("quickstart.yaml"), overrides=QUICK, db=db, threads=2)
    assert r.ok and r.run_id > 0 and r.rounds == 3
    j = cli_json("run", preset("quickstart.yaml"), *sets(QUICK), "--no-store", "--json", "--quiet", "--threads", "1")
    for k in SUMMARY_KEYS:
        cli_value = j[k] if j[k] is not None else float("nan")
        assert same(r.summary[k], cli_value), k
    # The CLI's stored rows equal the Python run's (the scenario and seed are the same).
    cli_db = str(tmp_path / "cli.db")
    cli("run", preset("quickstart.yaml"), *sets(QUICK), "--db", cli_db, "--quiet", "--threads", "1")
    with fogstudio.open_db(db) as a, fogstudio.open_db(cli_db) as b:
        ma, mb = a.metrics([r.run_id]), b.metrics([1])
        drop = ["run_id", "wall_s"]
        pd.testing.assert_frame_equal(ma.drop(columns=drop), mb.drop(columns=drop))
        ea, eb = a.events(r.run_id), b.events(1)
        pd.testing.assert_frame_equal(ea.drop(columns=["run_id"]), eb.drop(columns=["run_id"]))
        assert a.run(r.run_id)["scenario_yaml"] == b.run(1)["scenario_yaml"]


def test_frames_equal_stored_rows(db):
    r = fogstudio.run(preset("quickstart.yaml"), overrides=QUICK, db=db, tags=["py"])
    with fogstudio.open_db(db) as d:
        m = d.metrics([r.run_id])
        info = d.run(r.run_id)
        events = d.events(r.run_id)
        intervals = d.intervals(r.run_id)
        runs = d.runs(tag="py")
    con = sqlite3.connect(db)
    rows = con.execute("SELECT round, level, aggregator, time, train_loss, participants, cost, energy_j, bytes, "
                       "test_accuracy FROM metrics WHERE run_id = ? ORDER BY seq", (r.run_id,)).fetchall()
    assert len(m) == len(rows) == info["metric_rows"] == info["produced_metric_rows"]
    cols = ["round", "level", "aggregator", "virtual_time_s", "train_loss", "participants", "cost", "energy_j",
            "bytes", "test_accuracy"]
    for (i, row), stored in zip(m[cols].iterrows(), rows):
        for got, want in zip(row.tolist(), stored):
            assert same(got, float("nan") if want is None else want)
    # The frame of the run itself holds the same rows the store got.
    pd.testing.assert_frame_equal(r.metrics.drop(columns=["run_name", "wall_s"]),
                                  m.drop(columns=["run_name", "wall_s"]))
    n_events = con.execute("SELECT COUNT(*) FROM events WHERE run_id = ?", (r.run_id,)).fetchone()[0]
    n_intervals = con.execute("SELECT COUNT(*) FROM intervals WHERE run_id = ?", (r.run_id,)).fetchone()[0]
    assert len(events) == n_events == info["event_rows"]
    assert len(intervals) == n_intervals == info["interval_rows"]
    assert list(runs["run_id"]) == [r.run_id]
    # The columns are the CLI export's.
    header = cli("export", "metrics", str(r.run_id), "--db", db).stdout.splitlines()[0].split(",")
    assert list(m.columns) == header
    summary_header = cli("export", "summary", str(r.run_id), "--db", db).stdout.splitlines()[0].split(",")
    with fogstudio.open_db(db) as d:
        assert list(d.summary([r.run_id]).columns) == summary_header


def test_not_stored_run():
    r = fogstudio.run(preset("quickstart.yaml"), overrides=QUICK, store=False)
    assert r.run_id == 0 and r.db is None and r.ok
    assert len(r.metrics) == r.aggregations


def test_progress_false_cancels(db):
    seen = []

    def progress(p):
        seen.append(p["round"])
        return p["round"] < 2

    r = fogstudio.run(preset("quickstart.yaml"), overrides=dict(QUICK, **{"stop.rounds": 10}), db=db,
                      progress=progress)
    assert r.status == "cancelled"
    assert seen[:2] == [1, 2] and r.rounds < 10
    with fogstudio.open_db(db) as d:
        assert d.run(r.run_id)["status"] == "cancelled"


def test_callback_exception_cancels_and_is_raised(db):
    def progress(p):
        raise ZeroDivisionError("from the callback")

    with pytest.raises(ZeroDivisionError, match="from the callback"):
        fogstudio.run(preset("quickstart.yaml"), overrides=dict(QUICK, **{"stop.rounds": 10}), db=db,
                      progress=progress)
    with fogstudio.open_db(db) as d:
        runs = d.runs()
        assert list(runs["status"]) == ["cancelled"]


def test_ctrl_c_cancels_the_run(db):
    def progress(p):
        if p["round"] == 1:
            os.kill(os.getpid(), signal.SIGINT)  # what Ctrl-C does

    with pytest.raises(KeyboardInterrupt):
        fogstudio.run(preset("quickstart.yaml"), overrides=dict(QUICK, **{"stop.rounds": 30}), db=db,
                      progress=progress)
    with fogstudio.open_db(db) as d:
        runs = d.runs()
        assert list(runs["status"]) == ["cancelled"] and runs["rounds"][0] < 30


def test_gil_is_released_while_the_engine_runs():
    ticks = []
    done = threading.Event()

    def count():
        while not done.is_set():
            ticks.append(1)
            done.wait(0.001)

    rounds_at_tick = []

    def progress(p):
        rounds_at_tick.append(len(ticks))

    t = threading.Thread(target=count)
    t.start()
    try:
        fogstudio.run(preset("quickstart.yaml"), overrides=dict(QUICK, **{"stop.rounds": 4}), store=False,
                      progress=progress)
    finally:
        done.set()
        t.join()
    # The other Python thread ran between the engine's rounds.
    assert rounds_at_tick[-1] > rounds_at_tick[0]


def test_until_and_events():
    r = fogstudio.run(preset("quickstart.yaml"), overrides=dict(QUICK, **{"stop.rounds": 10}), store=False,
                      until="round >= 2")
    assert r.rounds == 2 and "condition reached" in r.stop_reason
    with pytest.raises(ValueError):
        fogstudio.run(preset("quickstart.yaml"), overrides=QUICK, store=False, until="sometimes")


def test_variant_must_be_named():
    with pytest.raises(ValueError, match="run_variants"):
        fogstudio.run(preset("volatile-spot-sync.yaml"), store=False)
