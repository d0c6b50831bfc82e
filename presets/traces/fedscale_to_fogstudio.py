#!/usr/bin/python3
"""Converts FedScale's client traces to FogStudio's CSV traces (docs/own-model.md,
"Devices from FedScale traces").

FedScale (Lai et al., OSDI'22) ships two pickled dicts keyed by client id:

  client_device_capacity  {id: {"computation": ms per sample (inference),
                                "communication": kbit/s}}
  client_behave_trace     {id: {"active": [s, ...], "inactive": [s, ...],
                                "finish_time": s, ...}}

FedScale times a client's local training as 3 x batch x steps x computation / 1000 seconds
(forward + backward = 3 forward passes) and keeps it online in [active[k], inactive[k]],
repeating every finish_time seconds. This script writes, for the first --clients clients
(sorted by id, or those --ids names), mapped to the members <group>-0, <group>-1, ... of
one FogStudio group:

  compute.csv            time_s,<members>: training samples/s = 1000 / (3 x computation);
                         with --flops-per-sample F: FLOP/s (samples/s x F), for compute.flops
  bandwidth.csv          time_s,<members>: Mbit/s = communication / 1000 (for link.trace)
  availability-<m>.csv   time_s,value: 1 online, 0 offline, unrolled up to --horizon seconds
                         (for availability.file: availability-{member}.csv)
  members.csv            member,fedscale_client
  group.yaml             the group entry using them

Usage (Debian's Python, standard library only):
  /usr/bin/python3 presets/traces/fedscale_to_fogstudio.py \
      --capacity client_device_capacity --behavior client_behave_trace \
      --clients 20 --group phones --parent edge --out traces/
"""

import argparse
import csv
import os
import pickle
import sys


def fail(msg):
    sys.exit(f"fedscale_to_fogstudio: {msg}")


def load(path, what):
    try:
        with open(path, "rb") as f:
            data = pickle.load(f)
    except (OSError, pickle.UnpicklingError, EOFError) as e:
        fail(f"{path}: cannot read the {what} pickle: {e}")
    if not isinstance(data, dict):
        fail(f"{path}: the {what} trace is a dict keyed by client id, got {type(data).__name__}")
    return data


def number(v, path, cid, key, positive=True):
    try:
        x = float(v)
    except (TypeError, ValueError):
        fail(f"{path}: client {cid}: {key} is not a number")
    if positive and not x > 0:
        fail(f"{path}: client {cid}: {key} must be > 0, got {x}")
    return x


def fmt(x):
    return repr(float(x)) if x != int(x) else str(int(x))


def availability_rows(trace, path, cid, horizon):
    """[(time_s, 0|1)] change points of the FedScale behaviour trace up to horizon."""
    active = trace.get("active")
    inactive = trace.get("inactive")
    period = trace.get("finish_time")
    if not isinstance(active, (list, tuple)) or not isinstance(inactive, (list, tuple)):
        fail(f"{path}: client {cid}: needs lists 'active' and 'inactive'")
    if len(active) != len(inactive) or not active:
        fail(f"{path}: client {cid}: 'active' and 'inactive' must pair up (got {len(active)} and {len(inactive)})")
    period = number(period, path, cid, "finish_time")
    spans = []
    last = -1.0
    for a, b in zip(active, inactive):
        a = number(a, path, cid, "active", positive=False)
        b = number(b, path, cid, "inactive", positive=False)
        if not (last <= a <= b <= period):
            fail(f"{path}: client {cid}: spans must be ordered within [0, finish_time]: [{a}, {b}]")
        spans.append((a, b))
        last = b
    rows = []
    state = None
    start = 0.0
    while start < horizon:
        for a, b in spans:
            for t, v in ((start + a, 1), (start + b, 0)):
                if t >= horizon:
                    break
                if v != state:
                    if rows and rows[-1][0] == t:
                        rows[-1] = (t, v)
                    else:
                        rows.append((t, v))
                    state = v
        start += period
    if not rows or rows[0][0] > 0:
        rows.insert(0, (0.0, 0))  # offline until the first active span
    # A trace's times must increase strictly and its states alternate.
    out = []
    for t, v in rows:
        if out and out[-1][1] == v:
            continue
        if out and out[-1][0] == t:
            out[-1] = (t, v)
        else:
            out.append((t, v))
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--capacity", help="FedScale client_device_capacity (pickle)")
    p.add_argument("--behavior", help="FedScale client_behave_trace (pickle)")
    p.add_argument("--clients", type=int, default=10, help="how many clients (sorted by id); default 10")
    p.add_argument("--ids", help="comma-separated client ids to take instead, in member order")
    p.add_argument("--group", default="devices", help="FogStudio group id (members <group>-k)")
    p.add_argument("--parent", default="server", help="the group's parent in group.yaml")
    p.add_argument("--horizon", type=float, default=0.0,
                   help="availability unrolled up to this many seconds (default: one period)")
    p.add_argument("--flops-per-sample", type=float, default=0.0,
                   help="write compute in FLOP/s (samples/s x this) for compute.flops")
    p.add_argument("--out", required=True, help="output folder")
    a = p.parse_args()
    if not a.capacity and not a.behavior:
        fail("give --capacity, --behavior or both")
    if a.clients < 1:
        fail("--clients must be >= 1")

    cap = load(a.capacity, "device capacity") if a.capacity else None
    beh = load(a.behavior, "behaviour") if a.behavior else None
    known = set(cap or {}) & set(beh or {}) if cap and beh else set(cap or beh)
    if a.ids:
        ids = []
        for s in a.ids.split(","):
            s = s.strip()
            match = [k for k in known if str(k) == s]
            if not match:
                fail(f"client {s} is not in the trace(s)")
            ids.append(match[0])
    else:
        ids = sorted(known, key=lambda k: (not isinstance(k, int), k if isinstance(k, int) else str(k)))[: a.clients]
        if len(ids) < a.clients:
            fail(f"the trace(s) have {len(ids)} clients (in both files), {a.clients} asked")
    members = [f"{a.group}-{k}" for k in range(len(ids))]
    os.makedirs(a.out, exist_ok=True)

    with open(os.path.join(a.out, "members.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["member", "fedscale_client"])
        for m, cid in zip(members, ids):
            w.writerow([m, cid])

    keys = []
    if cap is not None:
        speeds, bands = [], []
        for cid in ids:
            entry = cap[cid]
            if not isinstance(entry, dict):
                fail(f"{a.capacity}: client {cid}: expected a dict with computation and communication")
            ms = number(entry.get("computation"), a.capacity, cid, "computation")
            kbps = number(entry.get("communication"), a.capacity, cid, "communication")
            sps = 1000.0 / (3.0 * ms)
            speeds.append(sps * a.flops_per_sample if a.flops_per_sample > 0 else sps)
            bands.append(kbps / 1000.0)
        for name, values in (("compute.csv", speeds), ("bandwidth.csv", bands)):
            with open(os.path.join(a.out, name), "w", newline="") as f:
                f.write("time_s," + ",".join(members) + "\n")
                f.write("0," + ",".join(fmt(v) for v in values) + "\n")
        keys.append(("compute", "flops" if a.flops_per_sample > 0 else "throughput", "compute.csv"))
    if beh is not None:
        horizon = a.horizon
        for m, cid in zip(members, ids):
            trace = beh[cid]
            if not isinstance(trace, dict):
                fail(f"{a.behavior}: client {cid}: expected a dict with active, inactive, finish_time")
            h = horizon if horizon > 0 else number(trace.get("finish_time"), a.behavior, cid, "finish_time")
            rows = availability_rows(trace, a.behavior, cid, h)
            with open(os.path.join(a.out, f"availability-{m}.csv"), "w", newline="") as f:
                f.write("time_s,value\n")
                for t, v in rows:
                    f.write(f"{fmt(t)},{v}\n")

    lines = [f"- id: {a.group}", f"  count: {len(ids)}", f"  parent: {a.parent}"]
    if cap is not None:
        unit = "flops: 1e9  # replaced by the trace" if a.flops_per_sample > 0 else "throughput: 100  # replaced by the trace"
        lines += ["  link_sharing: private  # one link per member: per-member bandwidth",
                  "  compute:", f"    {unit}", "    trace: compute.csv", "  link:",
                  "    bandwidth_up_mbps: 10", "    bandwidth_down_mbps: 10", "    trace: bandwidth.csv"]
    if beh is not None:
        lines += ["  availability:", "    kind: trace", "    file: availability-{member}.csv"]
    with open(os.path.join(a.out, "group.yaml"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"fedscale_to_fogstudio: {len(ids)} clients -> {a.group}-0..{len(ids) - 1} in {a.out}")


if __name__ == "__main__":
    main()
