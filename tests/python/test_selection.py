"""Selection policies written in Python."""

import pandas as pd
import pytest

import fogstudio
from conftest import QUICK, cli, preset

FASTEST = dict(QUICK, **{"selection.policy": "fastest-k", "selection.k": 4, "stop.rounds": 4})


def fastest_k(candidates, ctx):
    """The built-in fastest-k: the k smallest expected round trips, ties to the lower index."""
    ranked = sorted(candidates, key=lambda c: (c.expected_round_s, c.index))
    return [c.id for c in ranked[:ctx.k]]


def test_python_fastest_k_equals_the_builtin_bit_for_bit():
    builtin = fogstudio.run(preset("quickstart.yaml"), overrides=FASTEST, store=False)
    calls = []

    def policy(candidates, ctx):
        calls.append((ctx.round, len(candidates)))
        assert ctx.k == 4 and ctx.aggregator == "cloud"
        assert all(c.throughput > 0 and c.samples > 0 and 0 < c.availability <= 1 for c in candidates)
        return fastest_k(candidates, ctx)

    python = fogstudio.run(preset("quickstart.yaml"), overrides=FASTEST, store=False, selection=policy)
    assert calls, "the policy was never asked"
    assert python.ok and builtin.ok
    drop = ["wall_s"]
    pd.testing.assert_frame_equal(python.metrics.drop(columns=drop), builtin.metrics.drop(columns=drop),
                                  check_exact=True)
    for k, v in builtin.summary.items():
        if k != "wall_clock_s":
            assert python.summary[k] == v or (v != v and python.summary[k] != python.summary[k]), k


def test_python_policy_is_deterministic_and_sees_losses(db):
    seen_losses = []

    def by_loss(candidates, ctx):
        # Highest last loss first (unseen trainers first), as a utility policy would.
        seen_losses.extend(c.last_loss for c in candidates if c.last_loss == c.last_loss)
        key = lambda c: (-(c.last_loss if c.last_loss == c.last_loss else 1e9), c.index)
        return [c.index for c in sorted(candidates, key=key)[:3]]

    a = fogstudio.run(preset("quickstart.yaml"), overrides=FASTEST, db=db, selection=by_loss, threads=1)
    b = fogstudio.run(preset("quickstart.yaml"), overrides=FASTEST, db=db, selection=by_loss, threads=2)
    assert seen_losses, "no candidate ever had a last loss"
    drop = ["run_id", "wall_s"]
    pd.testing.assert_frame_equal(a.metrics.drop(columns=drop), b.metrics.drop(columns=drop), check_exact=True)
    with fogstudio.open_db(db) as d:
        assert "policy: python" in d.run(a.run_id)["scenario_yaml"]


def test_a_raising_policy_stops_the_run_with_its_traceback(db):
    def broken_policy(candidates, ctx):
        if ctx.round >= 2:
            raise RuntimeError("no idea whom to pick")
        return [c.id for c in candidates[:2]]

    r = fogstudio.run(preset("quickstart.yaml"), overrides=FASTEST, db=db, selection=broken_policy)
    assert r.status == "failed"
    assert "Traceback (most recent call last)" in r.stop_reason
    assert "broken_policy" in r.stop_reason and "RuntimeError: no idea whom to pick" in r.stop_reason
    assert r.rounds == 1
    with fogstudio.open_db(db) as d:
        stored = d.run(r.run_id)
        assert stored["status"] == "failed" and stored["stop_reason"] == r.stop_reason


def test_bad_answers_stop_the_run_with_a_clear_reason():
    r = fogstudio.run(preset("quickstart.yaml"), overrides=FASTEST, store=False,
                      selection=lambda cands, ctx: ["no-such-node"])
    assert r.status == "failed" and "'no-such-node', which is not a candidate" in r.stop_reason
    r = fogstudio.run(preset("quickstart.yaml"), overrides=FASTEST, store=False,
                      selection=lambda cands, ctx: [cands[0].index, cands[0].index])
    assert r.status == "failed" and "twice" in r.stop_reason
    r = fogstudio.run(preset("quickstart.yaml"), overrides=FASTEST, store=False, selection=lambda cands, ctx: None)
    assert r.status == "failed" and "must return a list" in r.stop_reason


def test_python_policy_needs_its_callable(tmp_path):
    s = fogstudio.load(preset("quickstart.yaml"), dict(FASTEST, **{"selection.policy": "python"}))
    with pytest.raises(ValueError, match="selection=CALLABLE"):
        fogstudio.run(s, store=False)
    path = tmp_path / "python-policy.yaml"
    s.save(str(path))
    p = cli("run", str(path), "--no-store", "--quiet", check=False)
    assert p.returncode != 0 and "fogstudio Python module" in p.stderr
