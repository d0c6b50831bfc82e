// runs list|show|delete|tag|notes|rerun and export: the commands over the run store.

#include "app/cli/commands.h"
#include "app/cli/figure_module.h"
#include "core/analysis/analysis.h"
#include "core/analysis/run_figures.h"
#include "core/analysis/tidy_export.h"
#include "core/store/run_store.h"


#include <cmath>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>

namespace fog::cli {

namespace {

std::string pct(double v) {
    if (std::isnan(v)) return "-";
    std::ostringstream s;
    s << std::fixed << std::setprecision(2) << 100 * v << "%";
    return s.str();
}

std::string fixed(double v, int d) {
    if (std::isnan(v)) return "-";
    std::ostringstream s;
    s << std::fixed << std::setprecision(d) << v;
    return s.str();
}

bool parseIds(const QStringList& args, int from, std::vector<std::int64_t>& ids) {
    for (int i = from; i < args.size(); ++i) {
        bool ok = false;
        const qlonglong id = args[i].toLongLong(&ok);
        if (!ok || id <= 0) {
            std::cerr << "fogstudio-cli: '" << args[i].toStdString() << "' is not a run id (a whole number, see runs list)\n";
            return false;
        }
        ids.push_back(id);
    }
    return true;
}

int list(const CliOptions& o, RunStore& store) {
    RunFilter f;
    if (!o.tags.isEmpty()) f.tag = o.tags.first().toStdString();
    f.sweepId = o.sweep;
    f.limit = o.limit;
    const auto runs = store.listRuns(f);
    if (runs.empty()) {
        std::cout << "no runs in " << store.path() << (f.tag.empty() && !f.sweepId ? "" : " match") << "\n";
        return 0;
    }
    std::cout << std::left << std::setw(6) << "id" << std::setw(12) << "status" << std::setw(9) << "accuracy"
              << std::setw(11) << "virtual s" << std::setw(10) << "cost" << std::setw(7) << "rounds"
              << std::setw(21) << "started" << "name\n";
    bool fromRows = false;
    for (const auto& r : runs) {
        std::string name = r.name;
        if (!r.tags.empty()) name += "  [" + joinTags(r.tags) + "]";
        // A run killed mid-way has no summary: its figures come from the rows it stored.
        const std::string rounds = std::to_string(r.summary.rounds) + (r.summaryFromRows ? "*" : "");
        fromRows = fromRows || r.summaryFromRows;
        std::cout << std::left << std::setw(6) << r.id << std::setw(12) << r.status << std::setw(9)
                  << pct(r.summary.finalTestAccuracy) << std::setw(11) << fixed(r.summary.virtualTime, 1)
                  << std::setw(10) << fixed(r.summary.cost, 4) << std::setw(7) << rounds << std::setw(21)
                  << r.startedAt << name << "\n";
    }
    if (fromRows) std::cout << "* as far as the run got: figures of the last row it stored\n";
    return 0;
}

int show(RunStore& store, std::int64_t id) {
    const auto r = store.run(id);
    if (!r) {
        std::cerr << "fogstudio-cli: no run " << id << " in " << store.path() << "\n";
        return 1;
    }
    const auto metrics = store.metrics(id);
    const auto events = store.events(id);
    auto row = [](const char* k, const std::string& v) { std::cout << "  " << std::left << std::setw(20) << k << v << "\n"; };
    std::cout << "Run " << r->id << ": " << r->name << "\n";
    row("status", r->status + (r->summary.stopReason.empty() ? "" : " (" + r->summary.stopReason + ")"));
    row("tags", joinTags(r->tags));
    row("notes", r->notes);
    row("started / ended", r->startedAt + " / " + r->endedAt);
    row("program", "FogStudio " + r->programVersion);
    row("seed", std::to_string(r->seed));
    row("computed with", r->numerics.empty() ? "unknown kernels (stored before FogStudio recorded them)" : r->numerics);
    if (r->sweepId) row("sweep", std::to_string(r->sweepId) + ", " + r->sweepConfig + ", repeat " + std::to_string(r->repeat));
    // The figures come from core/analysis/run_figures, as in the studio and the reports.
    const RunFigures fig = runFigures(r->summary, r->status, metrics);
    row("test accuracy", pct(fig.finalAccuracy) + " (best " + pct(fig.bestAccuracy) + ")");
    if (!std::isnan(fig.lastEvaluatedAccuracy) && fig.lastEvaluatedAccuracy != fig.finalAccuracy)
        row("last evaluated", pct(fig.lastEvaluatedAccuracy) + " (round " + std::to_string(fig.lastEvaluatedRound) +
                                  "; the final model was evaluated at the end)");
    row("rounds", fixed(fig.rounds, 0));
    row("virtual time", fixed(fig.virtualTime, 3) + " s");
    row("mean round time", fixed(fig.meanRoundTime, 3) + " s");
    row("cost", fixed(fig.cost, 4));
    row("energy", fixed(fig.energyJ, 1) + " J");
    if (const RunSummary& su = r->summary; !std::isnan(su.energyComputeJ + su.energyNetworkJ + su.energyIdleJ))
        row("energy split", "compute " + fixed(su.energyComputeJ, 1) + " J, network " + fixed(su.energyNetworkJ, 1) +
                                " J, idle " + fixed(su.energyIdleJ, 1) + " J");
    row("bytes moved", fixed(fig.bytes, 0));
    row("wall clock", fixed(fig.wallSeconds, 2) + " s");
    const RowCounts rows = store.storedRows(id);
    if (r->produced) {
        const bool complete = *r->produced == rows;
        row("stored rows", std::to_string(rows.metrics) + " of " + std::to_string(r->produced->metrics) +
                               " metric rows, " + std::to_string(rows.events) + " of " +
                               std::to_string(r->produced->events) + " events, " + std::to_string(rows.intervals) +
                               " of " + std::to_string(r->produced->intervals) + " intervals" +
                               (complete ? " (complete)" : " (INCOMPLETE)"));
    } else {
        row("stored rows", std::to_string(rows.metrics) + " metric rows, " + std::to_string(rows.events) +
                               " events, " + std::to_string(rows.intervals) + " intervals" +
                               (r->status == "running" ? " so far"
                                                       : " (how many the run produced is not known: "
                                                         "it did not finish, or was stored before schema 3)"));
    }
    if (r->summaryFromRows) row("figures", "from the last stored row (the run has no summary)");
    int offline = 0, lost = 0;
    for (const auto& e : events) {
        offline += e.kind == RunEventKind::Offline;
        lost += e.kind == RunEventKind::WorkLost;
    }
    row("events", std::to_string(events.size()) + " (" + std::to_string(offline) + " offline, " +
                      std::to_string(lost) + " work lost)");
    for (double target : {0.5, 0.7, 0.8, 0.85}) {
        const RunFigures t = runFigures(r->summary, r->status, metrics, target);
        std::string label = "to " + pct(target);
        row(label.c_str(), !std::isnan(t.timeToTarget) ? fixed(t.timeToTarget, 1) + " s, cost " + fixed(t.costToTarget, 4) +
                                                             ", " + fixed(t.energyToTarget, 1) + " J"
                                                       : "not reached");
    }
    showForkAndSnapshots(store, id);
    std::cout << "re-run exactly with: fogstudio-cli runs rerun " << r->id << "\n";
    return 0;
}

std::vector<RunWithMetrics> selectRuns(const CliOptions& o, RunStore& store, int idsFrom, bool& ok) {
    std::vector<RunWithMetrics> out;
    std::vector<std::int64_t> ids;
    ok = parseIds(o.args, idsFrom, ids);
    if (!ok) return out;
    if (ids.empty()) {
        RunFilter f;
        f.sweepId = o.sweep;
        if (!o.tags.isEmpty()) f.tag = o.tags.first().toStdString();
        f.limit = o.limit;
        for (const auto& r : store.listRuns(f)) ids.insert(ids.begin(), r.id); // oldest first
    }
    for (auto id : ids) {
        auto r = store.run(id);
        if (!r) {
            std::cerr << "fogstudio-cli: no run " << id << " in " << store.path() << "\n";
            ok = false;
            return {};
        }
        out.push_back({*r, store.metrics(id)});
    }
    return out;
}

} // namespace

int cmdRuns(const CliOptions& o) {
    const QString sub = o.args.isEmpty() ? QString("list") : o.args.first();
    auto store = openStore(o);
    if (!store) return 1;
    std::vector<std::int64_t> ids;
    try {
        if (sub == "list") return list(o, *store);
        if (sub == "show" || sub == "delete" || sub == "rerun") {
            if (!parseIds(o.args, 1, ids) || ids.empty()) {
                std::cerr << "fogstudio-cli: runs " << sub.toStdString() << " needs run ids\n";
                return 2;
            }
            int rc = 0;
            for (auto id : ids) {
                if (sub == "show") rc |= show(*store, id);
                if (sub == "delete") {
                    if (store->deleteRun(id))
                        std::cout << "deleted run " << id << "\n";
                    else {
                        std::cerr << "fogstudio-cli: no run " << id << "\n";
                        rc = 1;
                    }
                }
                if (sub == "rerun") {
                    store.reset();
                    rc |= rerun(o, id);
                    store = openStore(o);
                    if (!store) return 1;
                }
            }
            return rc;
        }
        if (sub == "tag" || sub == "notes") {
            if (o.args.size() < 3 || !parseIds(o.args.mid(1, 1), 0, ids)) {
                std::cerr << "fogstudio-cli: usage: runs " << sub.toStdString() << " ID "
                          << (sub == "tag" ? "TAG [TAG...] (a tag '-x' removes x)" : "TEXT") << "\n";
                return 2;
            }
            const auto run = store->run(ids[0]);
            if (!run) {
                std::cerr << "fogstudio-cli: no run " << ids[0] << "\n";
                return 1;
            }
            if (sub == "notes") {
                store->setNotes(ids[0], o.args.mid(2).join(' ').toStdString());
                return 0;
            }
            auto tags = run->tags;
            for (const QString& t : o.args.mid(2)) {
                const std::string tag = t.startsWith('-') ? t.mid(1).toStdString() : t.toStdString();
                tags.erase(std::remove(tags.begin(), tags.end(), tag), tags.end());
                if (!t.startsWith('-')) tags.push_back(tag);
            }
            store->setTags(ids[0], tags);
            std::cout << "run " << ids[0] << " tags: " << joinTags(tags) << "\n";
            return 0;
        }
    } catch (const StoreError& e) {
        std::cerr << "fogstudio-cli: " << e.what() << "\n";
        return 1;
    }
    std::cerr << "fogstudio-cli: unknown runs command '" << sub.toStdString()
              << "' (list, show, delete, tag, notes, rerun)\n";
    return 2;
}

namespace {

int exportPlots(const CliOptions& o, RunStore& store, const std::vector<RunWithMetrics>& runs) {
    FigureRequest r;
    r.kind = FigureRequest::Kind::RunPlots;
    r.out = o.out.isEmpty() ? QString(".") : o.out;
    r.format = o.format.isEmpty() ? QString("png") : o.format;
    if (r.format != "png" && r.format != "svg" && r.format != "pdf") {
        std::cerr << "fogstudio-cli: export plots knows --format png, svg and pdf\n";
        return 2;
    }
    if (!o.tradeOff.isEmpty() && o.tradeOff != "end" && o.tradeOff != "target") {
        std::cerr << "fogstudio-cli: export plots --tradeoff takes end (each run's totals) or target (the time and "
                     "cost to reach --target accuracy), not '"
                  << o.tradeOff.toStdString() << "'\n";
        return 2;
    }
    if (!o.repeats.isEmpty() && o.repeats != "mean" && o.repeats != "each") {
        std::cerr << "fogstudio-cli: export plots --repeats takes mean (one curve per configuration, with its 95% "
                     "band) or each (one curve per run), not '"
                  << o.repeats.toStdString() << "'\n";
        return 2;
    }
    r.tradeOff = o.tradeOff;
    r.meanOfRepeats = o.repeats != "each";
    r.target = o.target;
    r.db = store.path();
    r.runs = runs;
    return runFigures(r);
}

int exportReport(const CliOptions& o, RunStore& store, const std::vector<RunWithMetrics>& runs) {
    if (o.out.isEmpty()) {
        std::cerr << "fogstudio-cli: export report needs --out FILE.html or FILE.pdf\n";
        return 2;
    }
    FigureRequest r;
    r.kind = FigureRequest::Kind::Report;
    for (const auto& run : runs) r.ids.push_back(run.run.id);
    r.target = o.target;
    r.dbOption = o.db;
    r.db = store.path();
    r.out = o.out;
    return runFigures(r);
}

} // namespace

namespace {
int exportRuns(const CliOptions& o, const QString& what);
}

int cmdExport(const CliOptions& o) {
    const QString what = o.args.isEmpty() ? QString() : o.args.first();
    if (what != "metrics" && what != "summary" && what != "plots" && what != "report") {
        std::cerr << "fogstudio-cli: usage: export metrics|summary|plots|report [IDS...] [--sweep S] [--tag T] "
                     "[--format F] [--out FILE_OR_DIR]\n";
        return 2;
    }
    try {
        return exportRuns(o, what);
    } catch (const StoreError& e) {
        std::cerr << "fogstudio-cli: " << e.what() << "\n";
        return 1;
    }
}

int cmdDb(const CliOptions& o) {
    const QString sub = o.args.isEmpty() ? QString() : o.args.first();
    if (sub != "check" || o.args.size() > 2) {
        std::cerr << "fogstudio-cli: usage: db check [FILE] [--db FILE]\n";
        return 2;
    }
    const std::string path = o.args.size() == 2 ? o.args[1].toStdString()
                             : o.db.isEmpty()    ? RunStore::defaultPath()
                                                 : o.db.toStdString();
    const DbCheck check = checkDatabase(path);
    std::cout << path << ":\n";
    for (const auto& line : check.lines) std::cout << "  " << line << "\n";
    std::cout << (check.ok ? "ok" : "NOT OK") << "\n";
    return check.ok ? 0 : 1;
}

namespace {

int exportRuns(const CliOptions& o, const QString& what) {
    auto store = openStore(o);
    if (!store) return 1;
    bool ok = true;
    const auto runs = selectRuns(o, *store, 1, ok);
    if (!ok) return 1;
    if (runs.empty()) {
        std::cerr << "fogstudio-cli: no runs to export\n";
        return 1;
    }
    if (what == "plots") return exportPlots(o, *store, runs);
    if (what == "report") return exportReport(o, *store, runs);
    std::ofstream file;
    std::ostream* out = &std::cout;
    if (!o.out.isEmpty()) {
        file.open(o.out.toStdString(), std::ios::trunc);
        if (!file) {
            std::cerr << "fogstudio-cli: cannot write " << o.out.toStdString() << "\n";
            return 1;
        }
        out = &file;
    }
    const QString format = o.format.isEmpty() ? QString("csv") : o.format;
    if (what == "metrics" && format == "csv")
        writeMetricsCsv(runs, *out);
    else if (what == "metrics" && format == "json")
        writeMetricsJson(runs, *out);
    else if (what == "summary" && format == "csv")
        writeSummaryCsv(runs, o.target, *out);
    else {
        std::cerr << "fogstudio-cli: export " << what.toStdString() << " knows --format csv"
                  << (what == "metrics" ? " and json" : "") << ", not '" << format.toStdString() << "'\n";
        return 2;
    }
    if (!o.out.isEmpty()) std::cerr << "wrote " << o.out.toStdString() << " (" << runs.size() << " runs)\n";
    return 0;
}

} // namespace

} // namespace fog::cli
