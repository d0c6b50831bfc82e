// fork RUN --at SECONDS [--set K=V]... [--event 'ACTION']...: a new run continuing a stored
// one from a virtual instant with changed settings (core/fork/fork.h), printed like `run`.
// And what `runs show` says of forks and snapshots.

#include "app/cli/commands.h"
#include "core/fork/fork.h"
#include "core/store/run_store.h"

#include <cstdio>
#include <iomanip>
#include <iostream>

namespace fog::cli {

namespace {

std::string seconds(double t) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", t);
    return buf;
}

std::string kib(std::int64_t bytes) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f KiB", static_cast<double>(bytes) / 1024.0);
    return buf;
}

} // namespace

int cmdFork(const CliOptions& o) {
    if (o.args.size() != 1) {
        std::cerr << "fogstudio-cli: fork takes exactly one RUN id, e.g. fogstudio-cli fork 12 --at 600 --set "
                     "edge-1.bandwidth_up_mbps=2\n";
        return 2;
    }
    bool ok = false;
    const std::int64_t parent = o.args[0].toLongLong(&ok);
    if (!ok || parent <= 0) {
        std::cerr << "fogstudio-cli: fork: '" << o.args[0].toStdString() << "' is not a run id\n";
        return 2;
    }
    if (o.at < 0) {
        std::cerr << "fogstudio-cli: fork needs --at SECONDS: the virtual instant it branches at\n";
        return 2;
    }
    if (o.noStore) {
        std::cerr << "fogstudio-cli: fork: a fork is stored with its parent; --no-store does not apply\n";
        return 2;
    }
    if (!o.until.isEmpty()) {
        std::cerr << "fogstudio-cli: fork: --until is not supported; the fork runs to its parent's stop rules\n";
        return 2;
    }
    ForkChanges changes;
    for (const auto& s : o.sets) changes.sets.push_back(s.toStdString());
    for (const auto& e : o.events) changes.events.push_back(e.toStdString());

    ForkPlan plan;
    {
        auto store = openStore(o);
        if (!store) return 1;
        try {
            plan = planFork(*store, parent, o.at, changes);
        } catch (const ForkError& e) {
            std::cerr << "fogstudio-cli: fork: " << e.what() << "\n";
            return 1;
        } catch (const StoreError& e) {
            std::cerr << "fogstudio-cli: " << e.what() << "\n";
            return 1;
        }
    }
    if (!o.json)
        std::cout << plan.label << "\n  replaying run " << parent << " from t = 0 to " << seconds(plan.atSeconds)
                  << " s, checked against its " << plan.parentRows.size() << " metric rows and "
                  << plan.verify.size() << " snapshots before that instant\n";
    NewRun meta; // runFork names and tags the run; --name and --tag apply on top
    meta.name = plan.label;
    StoredRunner runner = [&plan](RunStore& store, const NewRun& m, const EngineOptions& options, RunSummary& summary) {
        // runScenario added --tag and --name to `m`; runFork names the run after the fork.
        const std::int64_t id = runFork(store, plan, options, summary);
        if (m.name != plan.label) store.rename(id, m.name);
        if (!m.tags.empty()) {
            auto run = store.run(id);
            auto tags = run ? run->tags : std::vector<std::string>{};
            tags.insert(tags.end(), m.tags.begin(), m.tags.end());
            store.setTags(id, tags);
        }
        return id;
    };
    return runScenario(plan.scenario, o, meta, "fork of run " + std::to_string(parent), std::nullopt, runner);
}

void showForkAndSnapshots(const RunStore& store, std::int64_t id) {
    auto row = [](const char* k, const std::string& v) {
        std::cout << "  " << std::left << std::setw(20) << k << v << "\n";
    };
    if (const auto f = forkInfo(store, id)) {
        std::string changes;
        for (const auto& c : f->changes) changes += (changes.empty() ? "" : "; ") + c;
        row("fork of", "run " + std::to_string(f->parentId) + (f->parentStored ? "" : " (deleted)") + " at t = " +
                           seconds(f->atSeconds) + " s");
        row("changes", changes.empty() ? "none" : changes);
    }
    const auto forks = forksOf(store, id);
    if (!forks.empty()) {
        std::string list;
        for (const auto& f : forks)
            list += (list.empty() ? "" : ", ") + std::to_string(f.runId) + " (t = " + seconds(f.atSeconds) + " s)";
        row("forks", list);
    }
    const auto snaps = store.snapshots(id);
    if (snaps.empty()) {
        row("snapshots", "none");
        return;
    }
    std::int64_t bytes = 0;
    for (const auto& s : snaps) bytes += s.compressedBytes;
    std::string times;
    for (std::size_t i = 0; i < snaps.size() && i < 8; ++i) times += (i ? ", " : "") + seconds(snaps[i].time);
    if (snaps.size() > 8) times += ", ...";
    row("snapshots", std::to_string(snaps.size()) + " at t = " + times + " s (" + kib(bytes) + " compressed)");
}

} // namespace fog::cli
