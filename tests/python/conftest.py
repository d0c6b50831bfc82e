"""Shared fixtures of the Python suite (run by CTest as test_python: python/CMakeLists.txt).

The build's package comes first on PYTHONPATH; FOGSTUDIO_CLI names the build's
fogstudio-cli, which the tests compare against."""

import json
import os
import subprocess

import pytest

import fogstudio

SOURCE_DIR = os.environ.get("FOGSTUDIO_SOURCE_DIR",
                            os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))
# Short runs on little data (as tests/test_golden.cpp shortens the presets).
QUICK = {"data.max_train_samples": 1200, "data.max_test_samples": 300, "stop.rounds": 3}


def preset(name):
    return os.path.join(SOURCE_DIR, "presets", name)


def cli(*args, check=True):
    exe = os.environ.get("FOGSTUDIO_CLI") or fogstudio._cli()
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    p = subprocess.run([exe, *args], capture_output=True, text=True, env=env)
    if check and p.returncode != 0:
        raise AssertionError("fogstudio-cli %s: exit %d\n%s%s" % (" ".join(args), p.returncode, p.stdout, p.stderr))
    return p


def cli_json(*args):
    out = cli(*args).stdout
    return json.loads(out[out.index("{"):])


def sets(overrides):
    out = []
    for k, v in overrides.items():
        out += ["--set", "%s=%s" % (k, v)]
    return out


@pytest.fixture
def db(tmp_path):
    return str(tmp_path / "runs.db")
