#!/usr/bin/env python3
"""Writes the example trace files of presets/traces/ (docs/scenario.md, "Events and traces").

Reproducible: a fixed seed and Python's Mersenne Twister (random.Random.random only, whose
sequence Python keeps stable across versions). Run from anywhere:

    python3 presets/traces/make_traces.py

and the three CSV files beside this script are rewritten byte for byte.

- phone-availability.csv: 24 h of 20 phones (columns phones-0 .. phones-19), one row per
  15 minutes, 1 = online. Diurnal: phones are mostly idle and charging (eligible) at night
  (about 80% at 03:00) and rarely during the day (about 15% at 15:00); each phone keeps its
  state for a slot with probability 0.6 and otherwise redraws it from the hour's share.
- spot-price.csv: 24 h of a spot price (USD/hour), one row per 5 minutes: a mean-reverting
  walk around 0.30 with four demand spikes (0.8 to 1.6 USD/hour for 20 to 60 minutes).
- wan-bandwidth.csv: 24 h of a WAN uplink (Mbit/s), one row per 5 minutes: an AR(1) walk
  around 20 Mbit/s, busier (lower) in the evening, with short dips to 1-3 Mbit/s.
"""

import math
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
DAY = 24 * 3600


def write(name, header, rows, comment):
    with open(os.path.join(HERE, name), "w", newline="\n") as f:
        for line in comment:
            f.write("# " + line + "\n")
        f.write(",".join(header) + "\n")
        for r in rows:
            f.write(",".join(r) + "\n")


def fmt(v, digits):
    return ("%." + str(digits) + "f") % v


def phones(rng):
    members = 20
    slot = 15 * 60
    state = [0] * members
    rows = []
    for t in range(0, DAY, slot):
        hour = t / 3600.0
        # Peak share at 03:00, trough at 15:00.
        share = 0.475 + 0.325 * math.cos(2 * math.pi * (hour - 3.0) / 24.0)
        for m in range(members):
            if t == 0 or rng.random() >= 0.6:
                state[m] = 1 if rng.random() < share else 0
        rows.append([str(t)] + [str(s) for s in state])
    header = ["time_s"] + ["phones-%d" % m for m in range(members)]
    write("phone-availability.csv", header, rows,
          ["Diurnal availability of 20 phones over 24 h (1 online, 0 offline), 15-minute slots.",
           "Made by make_traces.py (seeded); do not edit by hand."])


def spot(rng):
    step = 5 * 60
    spikes = []
    for _ in range(4):
        start = int(rng.random() * (DAY - 3600)) // step * step
        length = (4 + int(rng.random() * 9)) * step  # 20 to 60 minutes
        height = 0.8 + 0.8 * rng.random()
        spikes.append((start, start + length, height))
    price = 0.30
    rows = []
    for t in range(0, DAY, step):
        price += 0.2 * (0.30 - price) + 0.02 * (rng.random() - 0.5)
        value = price
        for a, b, h in spikes:
            if a <= t < b:
                value = max(value, h)
        rows.append([str(t), fmt(max(value, 0.05), 4)])
    write("spot-price.csv", ["time_s", "value"], rows,
          ["Spot price over 24 h (USD/hour), 5-minute steps, with four demand spikes.",
           "Made by make_traces.py (seeded); do not edit by hand."])


def wan(rng):
    step = 5 * 60
    level = 20.0
    rows = []
    for t in range(0, DAY, step):
        hour = t / 3600.0
        mean = 20.0 - 8.0 * math.exp(-((hour - 20.0) ** 2) / 8.0)  # evening busy hours
        level += 0.3 * (mean - level) + 4.0 * (rng.random() - 0.5)
        value = level
        if rng.random() < 0.03:
            value = 1.0 + 2.0 * rng.random()
        rows.append([str(t), fmt(max(value, 0.5), 2)])
    write("wan-bandwidth.csv", ["time_s", "value"], rows,
          ["A fluctuating WAN uplink over 24 h (Mbit/s), 5-minute steps, with short dips.",
           "Made by make_traces.py (seeded); do not edit by hand."])


def main():
    phones(random.Random(13001))
    spot(random.Random(13002))
    wan(random.Random(13003))


if __name__ == "__main__":
    main()
