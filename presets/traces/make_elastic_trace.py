#!/usr/bin/env python3
"""Writes presets/traces/elastic-spot-price.csv, the Shanghai spot price of
presets/elastic-placement.yaml (lesson 13).

Reproducible: a fixed seed and Python's Mersenne Twister (random.Random.random only, whose
sequence Python keeps stable across versions). Run from anywhere:

    python3 presets/traces/make_elastic_trace.py

3 h of a spot price (USD/hour), one row per 5 minutes:
- 00:00-00:40 and 02:10-03:00: quiet, 0.12 with +-4% noise;
- 00:40-01:10: a shoulder hovering around 0.25 (0.235-0.265), the price of the next
  cheapest region, where a re-planner without hysteresis chases every wiggle;
- 01:10-02:10: a demand spike, 0.85-0.95.
"""

import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    rng = random.Random(1813)
    rows = []
    for k in range(36):
        t = k * 300
        if 2400 <= t < 4200:
            # alternately above and below 0.25
            v = 0.25 + (0.008 + 0.007 * rng.random()) * (1 if k % 2 == 0 else -1)
        elif 4200 <= t < 7800:
            v = 0.85 + 0.10 * rng.random()
        else:
            v = 0.12 * (1 + 0.04 * (2 * rng.random() - 1))
        rows.append("%d,%.4f" % (t, v))
    with open(os.path.join(HERE, "elastic-spot-price.csv"), "w", newline="\n") as f:
        f.write("# Shanghai spot price over 3 h (USD/hour), 5-minute steps: quiet, a shoulder around\n")
        f.write("# 0.25, a spike to about 0.9, quiet again. Made by make_elastic_trace.py (seeded).\n")
        f.write("time_s,value\n")
        for r in rows:
            f.write(r + "\n")


if __name__ == "__main__":
    main()
