"""What a selection policy in Python costs (not a test: timings are never asserted).

Runs the 1,000-phone preset timing-only (no training) for 40 rounds with the built-in fastest-k
and with the same policy in Python, twice, and prints the extra wall time per call:

    PYTHONPATH=build/python /usr/bin/python3 tests/python/bench_selection.py
"""
import time, fogstudio
d = fogstudio.load(fogstudio.preset("edge-1000-devices.yaml")).to_dict()
d.pop("vary", None)
d["data"] = {"dataset": "none", "samples_per_trainer": 60}
d["model"] = {"kind": "none", "wire_bytes": 636040}
d["selection"] = {"policy": "fastest-k", "k": 10}
d["stop"] = {"rounds": 40}
s = fogstudio.load(d)
calls = [0, 0]
def fastest_k(c, ctx):
    calls[0] += 1; calls[1] += len(c)
    return [x.id for x in sorted(c, key=lambda x: (x.expected_round_s, x.index))[:ctx.k]]
for rep in range(2):
    t = time.perf_counter(); a = fogstudio.run(s, store=False); ta = time.perf_counter() - t
    calls[:] = [0, 0]
    t = time.perf_counter(); b = fogstudio.run(s, store=False, selection=fastest_k); tb = time.perf_counter() - t
    same = a.metrics.drop(columns=["wall_s"]).equals(b.metrics.drop(columns=["wall_s"]))
    print("built-in %.2f s, python %.2f s, %d calls, %.0f candidates/call, extra %.3f ms/call, identical rows: %s"
          % (ta, tb, calls[0], calls[1] / calls[0], 1000 * (tb - ta) / calls[0], same))
