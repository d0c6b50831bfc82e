"""FogStudio from Python: load and validate scenarios, run them (with a progress callback,
cancellation and selection policies written in Python), run variants and sweeps, fork
stored runs, and read the run database as pandas DataFrames.

The emulator is the one fogstudio-cli and the studio run (the same C++ core, the same
results for the same scenario and seed). See docs/python.md for the whole API.

    import fogstudio
    s = fogstudio.load("presets/quickstart.yaml", {"stop.rounds": 20})
    r = fogstudio.run(s, db="runs.db")
    r.metrics.plot(x="virtual_time_s", y="test_accuracy")
"""

import os
import shutil
import subprocess
import tempfile

import pandas as pd

from ._fogstudio import (  # noqa: F401  (re-exported)
    Candidate,
    ForkError,
    Scenario,
    ScenarioError,
    SelectionContext,
    StoreError,
    __version__,
)
from . import _fogstudio as _native

__all__ = [
    "Candidate", "ForkError", "RunDatabase", "RunResult", "Scenario", "ScenarioError", "SelectionContext",
    "StoreError", "SweepResult", "default_db_path", "fork", "load", "open_db", "policies", "preset", "run",
    "run_variants", "schema", "sweep", "validate",
]


# ---------------------------------------------------------------- scenarios

def _looks_like_yaml(text):
    return "\n" in text or ": " in text or text.lstrip().startswith("{")


def load(source, overrides=None):
    """A validated scenario from a file path, a dict (the YAML structure), YAML text or a
    Scenario (then the overrides are added to its own).

    overrides: {"sync.policy": "n-sync", "selection.k": 4} or ["sync.n=3", ...], applied as
    fogstudio-cli's --set. Raises ScenarioError listing every problem as file:line:col."""
    if isinstance(source, Scenario):
        return source.with_overrides(overrides) if overrides else source
    if isinstance(source, dict):
        return _native.load_dict(source, "<dict>", overrides)
    if isinstance(source, os.PathLike):
        return _native.load_file(os.fspath(source), overrides)
    if isinstance(source, str):
        if _looks_like_yaml(source) and not os.path.exists(source):
            return _native.load_text(source, "<string>", overrides)
        return _native.load_file(source, overrides)
    raise TypeError("load() takes a file path, a dict, YAML text or a Scenario, not %r" % type(source).__name__)


def validate(source, overrides=None):
    """Like load(): returns the scenario when it is valid, raises ScenarioError otherwise."""
    return load(source, overrides)


def policies(kind=None):
    """The sync and selection policies with their parameters, as a DataFrame (one row per
    policy; column params lists the parameters as dicts). kind: "sync" or "selection"."""
    rows = _native.policies()
    if kind is not None:
        rows = [r for r in rows if r["kind"] == kind]
    return pd.DataFrame(rows, columns=["name", "kind", "summary", "source", "params"])


def schema():
    """Every scenario key (and the link keys) with type, unit, default, bounds, enum values,
    when it applies and its help, as a DataFrame."""
    return pd.DataFrame(_native.schema(),
                        columns=["path", "group", "type", "unit", "default", "min", "max", "values",
                                 "only_with", "help"])


def preset(name):
    """The path of a preset scenario shipped with FogStudio, e.g. preset("quickstart.yaml"):
    from $FOGSTUDIO_PRESETS, the source tree of this build, or /usr/share/fogstudio/presets."""
    dirs = [os.environ.get("FOGSTUDIO_PRESETS")]
    try:
        from ._paths import PRESETS
        dirs.append(PRESETS)
    except ImportError:
        pass
    dirs.append("/usr/share/fogstudio/presets")
    for d in dirs:
        if d and os.path.exists(os.path.join(d, name)):
            return os.path.join(d, name)
    raise FileNotFoundError("no preset %r in %s" % (name, ", ".join(d for d in dirs if d)))


def default_db_path():
    """The run database fogstudio-cli and the studio use by default."""
    return _native.default_db_path()


# ---------------------------------------------------------------- results

class RunResult:
    """One run's outcome: run_id (0 when not stored), db, summary (a dict: status,
    stop_reason, final_test_accuracy, virtual_time_s, cost, energy_j, ...; the summary keys
    are also attributes), metrics and events as DataFrames (the rows the run produced, as
    stored)."""

    def __init__(self, raw):
        self._raw = raw
        self.run_id = raw["run_id"]
        self.db = raw["db"] or None
        self.scenario = raw["scenario"]
        self.seed = raw["seed"]
        self.summary = dict(raw["summary"])
        self.metrics = pd.DataFrame(raw["metrics"])
        self.events = pd.DataFrame(raw["events"])
        for key in ("label", "parent_id", "at_s"):
            if key in raw:
                setattr(self, key, raw[key])

    def __getattr__(self, name):
        summary = self.__dict__.get("summary", {})
        if name in summary:
            return summary[name]
        raise AttributeError(name)

    @property
    def ok(self):
        """True when the run finished (not cancelled or failed)."""
        return self.summary["status"] == "finished"

    def __repr__(self):
        s = self.summary
        acc = s["final_test_accuracy"]
        return "<fogstudio.RunResult run %s: %s, %d rounds, t=%.1f s, cost %.4f, accuracy %s>" % (
            self.run_id or "(not stored)", s["status"], s["rounds"], s["virtual_time_s"], s["cost"],
            "-" if acc != acc else "%.2f%%" % (100 * acc))


class SweepResult:
    """A sweep's or a variant file's runs: sweep_id, run_ids, failed, cancelled, errors, db.
    summary() and metrics() read them back from the database as DataFrames."""

    def __init__(self, raw):
        self.sweep_id = raw["sweep_id"]
        self.run_ids = [i for i in raw["run_ids"] if i]
        self.failed = raw["failed"]
        self.skipped = raw["skipped"]
        self.replaced = raw["replaced"]
        self.cancelled = raw["cancelled"]
        self.errors = list(raw["errors"])
        self.db = raw["db"]

    def summary(self, target=0.8):
        with RunDatabase(self.db, read_only=True) as db:
            return db.summary(sweep=self.sweep_id, target=target)

    def metrics(self):
        with RunDatabase(self.db, read_only=True) as db:
            return db.metrics(sweep=self.sweep_id)

    def __repr__(self):
        return "<fogstudio.SweepResult sweep %d: %d runs%s%s in %s>" % (
            self.sweep_id, len(self.run_ids), ", %d failed" % self.failed if self.failed else "",
            ", cancelled" if self.cancelled else "", self.db)


# ---------------------------------------------------------------- running

def _db_arg(db):
    if isinstance(db, RunDatabase):
        return db.path
    return None if db is None else os.fspath(db)


def run(scenario, *, overrides=None, variant=None, store=True, db=None, threads=1, progress=None,
        selection=None, until=None, name=None, tags=(), events=(), snapshot_every=0.0):
    """Runs one scenario to its stop rules and returns a RunResult (blocking; the GIL is
    released while the engine runs).

    scenario: a Scenario, file path, dict or YAML text (see load()); with variants, name one
    (variant="n-sync") or use run_variants(). store: store the run in db (a path, a
    RunDatabase, or None for the default database). progress: called with a dict (round,
    virtual_time_s, train_loss, test_accuracy, cost, ...) at every global aggregation;
    returning False cancels the run, an exception cancels it and is raised once the run is
    stored; Ctrl-C cancels it too (KeyboardInterrupt follows). selection: a selection
    policy written in Python, fn(candidates, ctx) -> chosen ids (sets selection.policy to
    python; docs/python.md). until: a condition such as "accuracy >= 0.8" or "time >= 600".
    events: timed events as fogstudio-cli run --event takes them."""
    s = load(scenario, overrides)
    raw = _native.run(s, variant=variant or "", store=store, db=_db_arg(db), threads=threads, progress=progress,
                      selection=selection, until=until or "", name=name or "", tags=list(tags),
                      events=list(events), snapshot_every=snapshot_every)
    return RunResult(raw)


def _scenario_file(scenario, overrides):
    """A file for the sweep machinery: the path given, or a Scenario's own file, or a
    temporary copy of a dict's / text's YAML in the working directory."""
    if isinstance(scenario, Scenario):
        extra = list(scenario.overrides) + _override_list(overrides)
        if scenario.file:
            return scenario.file, extra, None
        text = scenario.yaml()
    elif isinstance(scenario, dict):
        text, extra = _native.dict_to_yaml(scenario), _override_list(overrides)
    elif isinstance(scenario, (str, os.PathLike)) and os.path.exists(os.fspath(scenario)):
        return os.fspath(scenario), _override_list(overrides), None
    elif isinstance(scenario, str):
        text, extra = scenario, _override_list(overrides)
    else:
        raise TypeError("expected a Scenario, file path, dict or YAML text")
    fd, path = tempfile.mkstemp(prefix=".fogstudio-", suffix=".yaml", dir=os.getcwd())
    with os.fdopen(fd, "w") as f:
        f.write(text)
    return path, extra, path


def _override_list(overrides):
    if not overrides:
        return []
    if isinstance(overrides, dict):
        return ["%s=%s" % (k, _override_value(v)) for k, v in overrides.items()]
    if isinstance(overrides, str):
        return [overrides]
    return list(overrides)


def _override_value(v):
    return _native.override_text(v)


def _sweep(scenario, overrides, axes, repeats, variants, variant, db, parallel, threads, progress, selection, name,
           tags, resume):
    path, extra, temporary = _scenario_file(scenario, overrides)
    try:
        raw = _native.sweep(path, extra, axes, repeats, variants, variant or "", parallel, threads, name or "",
                            list(tags), resume, _db_arg(db), progress, selection)
    finally:
        if temporary:
            os.unlink(temporary)
    return SweepResult(raw)


def run_variants(scenario, *, variant=None, repeats=None, overrides=None, db=None, parallel=1, threads=1,
                 progress=None, selection=None, name=None, tags=()):
    """Runs every variant x repeat of a scenario file (variants:, vary:, repeats:) with common
    random numbers, stored as one sweep labelled by variant, like fogstudio-cli run FILE.
    progress is called after each run with a dict (done, total, config, repeat, status, ...);
    returning False cancels the rest."""
    return _sweep(scenario, overrides, [], 0 if repeats is None else repeats, True, variant, db, parallel, threads,
                  progress, selection, name, tags, 0)


def sweep(scenario, vary, *, repeats=1, overrides=None, db=None, parallel=1, threads=1, progress=None,
          selection=None, name=None, tags=(), resume=0):
    """Runs every combination of vary ({"selection.k": [4, 8], "sync.policy": ["fully-sync",
    "n-sync"]}), repeats times each with common random numbers, like fogstudio-cli sweep;
    stored as one sweep. resume=S runs only what stored sweep S is missing."""
    axes = [(str(k), [_override_value(x) for x in (v if isinstance(v, (list, tuple)) else [v])])
            for k, v in dict(vary).items()]
    return _sweep(scenario, overrides, axes, repeats, False, None, db, parallel, threads, progress, selection, name,
                  tags, resume)


def fork(run_id, at, *, sets=None, events=(), db=None, threads=1, progress=None, selection=None):
    """A new run continuing stored run run_id from virtual time at (seconds) with changed
    settings, like fogstudio-cli fork: sets {"edge-1.bandwidth_up_mbps": 2} or
    ["sync.n=4"], events ["link edge-1.up=2", ...]. The replay to at is checked against the
    parent's rows. Returns a RunResult (label, parent_id, at_s besides the usual)."""
    raw = _native.fork(int(run_id), float(at), _override_list(sets), list(events), _db_arg(db), threads, progress,
                       selection)
    return RunResult(raw)


# ---------------------------------------------------------------- the run database

def _cli():
    cli = os.environ.get("FOGSTUDIO_CLI")
    if cli:
        return cli
    try:
        from ._paths import CLI  # written into the build tree by CMake
        if os.path.exists(CLI):
            return CLI
    except ImportError:
        pass
    found = shutil.which("fogstudio-cli") or ("/usr/bin/fogstudio-cli" if os.path.exists("/usr/bin/fogstudio-cli")
                                              else None)
    if not found:
        raise RuntimeError("fogstudio-cli not found (set FOGSTUDIO_CLI): plots and reports are drawn by it")
    return found


class RunDatabase:
    """A run database (SQLite, the one fogstudio-cli and the studio write). Tables come back
    as pandas DataFrames whose columns are those of fogstudio-cli export."""

    def __init__(self, path=None, read_only=False):
        self._store = _native.RunStore(None if path is None else os.fspath(path), read_only)
        self.path = self._store.path

    def close(self):
        self._store.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @property
    def read_only(self):
        return self._store.read_only

    def runs(self, tag="", name="", sweep=0, limit=0):
        """Stored runs, newest first: id, name, status, summary figures, tags, sweep."""
        rows = self._store.runs(tag or "", name or "", sweep or 0, limit or 0)
        columns = ["run_id", "name", "status", "stop_reason", "started_at", "ended_at", "seed", "sweep_id",
                   "sweep_config", "repeat", "tags", "notes", "rounds", "aggregations", "virtual_time_s", "cost",
                   "energy_j", "energy_compute_j", "energy_network_j", "energy_idle_j", "bytes_moved",
                   "final_test_accuracy", "best_test_accuracy", "final_test_loss", "final_train_loss",
                   "samples_computed", "lost_jobs", "wall_clock_s", "program_version", "summary_from_rows"]
        return pd.DataFrame(rows, columns=columns)

    def run(self, run_id):
        """One run as a dict (its summary, scenario YAML, rows produced and stored), or None."""
        return self._store.run(int(run_id))

    def metrics(self, ids=None, sweep=0, tag=""):
        """Metric rows (one per aggregation) of the runs given, of a sweep, of a tag, or of
        every run: the columns of fogstudio-cli export metrics."""
        return pd.DataFrame(self._store.metrics(ids, sweep or 0, tag or ""))

    def summary(self, ids=None, sweep=0, tag="", target=0.8):
        """One row per run with time, cost and energy to reach target accuracy: the columns
        of fogstudio-cli export summary."""
        return pd.DataFrame(self._store.summary(ids, sweep or 0, tag or "", target))

    def events(self, run_id):
        return pd.DataFrame(self._store.events(int(run_id)))

    def intervals(self, run_id):
        """Per node: intervals of idle / receiving / computing / sending / offline."""
        return pd.DataFrame(self._store.intervals(int(run_id)))

    def nodes(self, run_id):
        return pd.DataFrame(self._store.nodes(int(run_id)))

    def snapshots(self, run_id):
        return pd.DataFrame(self._store.snapshots(int(run_id)))

    def fork_of(self, run_id):
        """What makes run_id a fork (parent_id, at_s, changes, label), or None."""
        return self._store.fork_of(int(run_id))

    def scenario(self, run_id):
        """The scenario the run ran (with its seed), to run again or change."""
        return self._store.scenario(int(run_id))

    def rerun(self, run_id, **kwargs):
        """Runs the stored scenario again (exactly: it holds its seed) into this database."""
        kwargs.setdefault("name", "rerun of %d" % int(run_id))
        return run(self.scenario(run_id), db=self.path, **kwargs)

    def delete(self, run_id):
        return self._store.delete(int(run_id))

    def set_tags(self, run_id, tags):
        self._store.set_tags(int(run_id), list(tags))

    def set_notes(self, run_id, notes):
        self._store.set_notes(int(run_id), notes)

    def check(self):
        """fogstudio-cli db check: (ok, lines)."""
        c = _native.RunStore.check(self.path)
        return c["ok"], list(c["lines"])

    def _export(self, what, ids, sweep, extra):
        args = [_cli(), "export", what] + [str(int(i)) for i in (ids or [])]
        if sweep:
            args += ["--sweep", str(int(sweep))]
        args += ["--db", self.path] + extra
        env = dict(os.environ)
        if not env.get("DISPLAY") and not env.get("WAYLAND_DISPLAY"):
            env.setdefault("QT_QPA_PLATFORM", "offscreen")
        p = subprocess.run(args, capture_output=True, text=True, env=env)
        if p.returncode != 0:
            raise RuntimeError("fogstudio-cli export %s failed: %s" % (what, p.stderr.strip() or p.stdout.strip()))
        return [line for line in p.stdout.splitlines() if line.strip()]

    def export_plots(self, ids=None, sweep=0, out=".", format="png"):
        """Accuracy, loss, cost and energy against virtual time, and the trade-off scatter
        (several runs) or the node timeline (one run), drawn by fogstudio-cli export plots
        into the folder out. Returns the files written."""
        return self._export("plots", ids, sweep, ["--out", os.fspath(out), "--format", format])

    def export_report(self, out, ids=None, sweep=0, target=0.8):
        """An HTML or PDF report (by out's extension), drawn by fogstudio-cli export report."""
        return self._export("report", ids, sweep, ["--out", os.fspath(out), "--target", repr(float(target))])[0]

    def __repr__(self):
        return "<fogstudio.RunDatabase %s>" % self.path


def open_db(path=None, read_only=False):
    """The run database at path (None: the default one, default_db_path())."""
    return RunDatabase(path, read_only)
