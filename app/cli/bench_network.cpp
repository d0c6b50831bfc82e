// `fogstudio-cli bench network`: what flow-level sharing (issue 12, docs/network.md) costs
// in speed. Two timing-only workloads, each with topology.contention off (every transfer
// alone on its links) and on (max-min sharing): presets/edge-1000-devices.yaml made timing
// only as its description says (docs/lessons.md, lesson 8), and 10,000 devices built in
// code (100 relay sites of 100 phones each under one cloud, fully-sync over all of them, so
// that 10,000 downloads and 10,000 uploads are in flight at once). Prints wall time, events
// per second, the on/off ratio and how many flows each flow start or end made the network
// recompute (the measure that must stay flat, not grow with the flows in flight). A
// benchmark, not a test: it asserts nothing.
//
// `bench network --presets [DIR]`: every training preset, shortened, contention off vs on:
// the table docs/network.md shows.

#include "app/cli/bench_network.h"
#include "core/engine/engine.h"
#include "core/scenario/scenario_io.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace fog::cli {

namespace {

double wallNow() {
    using namespace std::chrono;
    return duration<double>(steady_clock::now().time_since_epoch()).count();
}

/// 10,000 phones: a cloud, 100 relay sites (1 Gbps each to the cloud, private), 100 phones
/// per site sharing the site's cell (20 Mbps up, 100 down, 15 ms); timing only, 0.64 MB models.
Scenario tenThousand(int sites, int phonesPerSite, int rounds) {
    Scenario s;
    s.name = "bench network: " + std::to_string(sites * phonesPerSite) + " devices";
    s.seed = 12;
    NodeSpec cloud;
    cloud.id = "cloud";
    cloud.tier = Tier::Cloud;
    cloud.role = Role::Aggregator;
    cloud.compute.throughput = Range::exactly(50000);
    cloud.pricePerHour = Range::exactly(0.4);
    s.topology.nodes.push_back(cloud);
    NodeSpec site;
    site.group = true;
    site.id = "site";
    site.count = sites;
    site.tier = Tier::Edge;
    site.role = Role::Relay;
    site.parent = "cloud";
    site.compute.throughput = Range::exactly(1);
    LinkParams wan;
    wan.bandwidthUpMbps = wan.bandwidthDownMbps = 1000;
    wan.latencyMs = 30;
    wan.pricePerGb = 0.02;
    site.link = wan;
    site.energy.perByteForwardedJ = 1e-8;
    site.linkSharing =
        LinkSharing::Private; // each site its own uplink; the phones share their site's cell
    s.topology.nodes.push_back(site);
    NodeSpec phone;
    phone.group = true;
    phone.id = "phone";
    phone.count = phonesPerSite;
    phone.tier = Tier::Device;
    phone.role = Role::Trainer;
    phone.parent = "site";
    phone.compute.throughput = Range{50, 250};
    phone.compute.noise.kind = NoiseSpec::Kind::LogNormal;
    phone.compute.noise.sigma = 0.5;
    phone.energy.perSampleJ = 0.002;
    phone.energy.perByteJ = 2e-7;
    LinkParams cell;
    cell.bandwidthUpMbps = 20;
    cell.bandwidthDownMbps = 100;
    cell.latencyMs = 15;
    phone.link = cell;
    s.topology.nodes.push_back(phone);
    s.data.kind = DataSpec::Kind::None;
    s.data.samplesPerTrainer = 60;
    s.model.kind = ModelSpec::Kind::None;
    s.model.wireBytes = 636040;
    s.training.batchSize = 10;
    s.training.localSteps = 5;
    s.sync.name = "fully-sync";
    s.selection.name = "all";
    s.stop.rounds = rounds;
    return s;
}

struct Measured {
    double wall = 0.0;
    std::uint64_t events = 0;
    RunSummary summary;
    Network::Stats net;
    bool hasNet = false;
};

Measured measure(Scenario s, bool contention) {
    s.topology.contention = contention;
    EngineOptions o;
    o.threads = 1;
    Engine engine(s, o);
    Measured m;
    const double t0 = wallNow();
    m.summary = engine.run();
    m.wall = wallNow() - t0;
    m.events = engine.eventsRun();
    if (const Network* n = engine.network()) {
        m.net = n->stats();
        m.hasNet = true;
    }
    return m;
}

void report(std::ostream& out, const std::string& title, const Scenario& s) {
    out << title << "\n";
    // Off and on alternated over three passes; the pass with the median wall time of each is
    // shown (the runs are deterministic: only the wall time differs between passes).
    std::vector<Measured> offs, ons;
    for (int pass = 0; pass < 3; ++pass) {
        offs.push_back(measure(s, false));
        ons.push_back(measure(s, true));
    }
    auto medianRun = [](std::vector<Measured> v) {
        std::sort(v.begin(), v.end(), [](const Measured& a, const Measured& b) { return a.wall < b.wall; });
        return v[v.size() / 2];
    };
    const Measured off = medianRun(offs);
    const Measured on = medianRun(ons);
    auto line = [&](const char* label, const Measured& m) {
        out << "  " << label << std::fixed << std::setprecision(3) << std::setw(9) << m.wall
            << " s wall, " << std::setw(9) << m.events << " events, " << std::setprecision(0)
            << std::setw(9) << (m.wall > 0 ? static_cast<double>(m.events) / m.wall : 0.0)
            << " events/s; " << m.summary.rounds << " rounds in " << std::setprecision(1)
            << m.summary.virtualTime << " virtual s, cost " << std::setprecision(2)
            << m.summary.cost << " $, " << std::setprecision(1) << m.summary.bytes / 1e9
            << " GB moved (" << toString(m.summary.status) << ")\n";
    };
    line("contention off ", off);
    line("contention on  ", on);
    out << std::setprecision(2)
        << "  wall ratio on/off (medians of 3 alternated passes): " << (off.wall > 0 ? on.wall / off.wall : 0.0)
        << "; virtual time ratio on/off: "
        << (off.summary.virtualTime > 0 ? on.summary.virtualTime / off.summary.virtualTime : 0.0)
        << "\n";
    if (on.hasNet) {
        const auto& n = on.net;
        out << "  network: " << n.transfers << " transfers, " << n.flowEvents
            << " flow starts/ends, " << n.recomputes << " recomputes; per flow start/end "
            << std::setprecision(2)
            << (n.flowEvents
                    ? static_cast<double>(n.classesRecomputed) / static_cast<double>(n.flowEvents)
                    : 0.0)
            << " flow classes recomputed (the work), settling the rates of " << std::setprecision(1)
            << (n.flowEvents
                    ? static_cast<double>(n.flowsRecomputed) / static_cast<double>(n.flowEvents)
                    : 0.0)
            << " flows; largest component " << n.maxComponent << " classes, most flows at once "
            << n.maxConcurrent << "\n";
    }
}

/// Every training preset in `dir`, shortened as test_golden does (a data subset: 4,000
/// samples or 50 per trainer, 500 test samples; at most `maxRounds` global rounds), run with
/// contention off and on (2 threads): time per global round, cost and bytes.
int presetTable(const std::string& dir, int maxRounds, std::ostream& out) {
    std::vector<std::string> files;
    for (const auto& e : std::filesystem::directory_iterator(dir))
        if (e.path().extension() == ".yaml") files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
    out << "bench network --presets: every training preset, data subset (max(4000, 50/trainer) "
           "train, 500 "
           "test), at most "
        << maxRounds
        << " global rounds, 2 threads; s/round = virtual time of the last global round / rounds\n";
    out << "| preset | rounds | s/round off | s/round on | ratio | cost off $ | cost on $ | GB off "
           "| GB on |\n";
    out << "| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n";
    for (const auto& f : files) {
        const std::string name = std::filesystem::path(f).filename().string();
        std::ifstream in(f);
        std::stringstream text;
        text << in.rdbuf();
        if (text.str().find("\nkind: cluster") != std::string::npos ||
            name.rfind("tapfinger", 0) == 0)
            continue;
        try {
            const Scenario full = loadScenarioFile(f);
            std::size_t trainers = 0;
            const auto members = memberCounts(full.topology);
            for (std::size_t i = 0; i < full.topology.nodes.size(); ++i)
                if (roleTrains(full.topology.nodes[i].role))
                    trainers += static_cast<std::size_t>(members[i]);
            const int rounds =
                full.stop.rounds > 0 ? std::min(full.stop.rounds, maxRounds) : maxRounds;
            const Scenario s =
                loadScenarioFile(f, {{"data.max_train_samples",
                                      std::to_string(std::max<std::size_t>(4000, 50 * trainers))},
                                     {"data.max_test_samples", "500"},
                                     {"stop.rounds", std::to_string(rounds)}});
            struct Row {
                double perRound = 0, cost = 0, gb = 0;
                int rounds = 0;
            };
            auto one = [&](bool contention) {
                Scenario x = s;
                x.topology.contention = contention;
                EngineOptions o;
                o.threads = 2;
                Engine engine(x, o);
                const RunSummary r = engine.run();
                Row row;
                row.rounds = r.rounds;
                row.perRound = r.rounds > 0 ? r.virtualTime / r.rounds : 0.0;
                row.cost = r.cost;
                row.gb = r.bytes / 1e9;
                return row;
            };
            const Row off = one(false), on = one(true);
            out << std::fixed << "| " << name << " | " << on.rounds << " | " << std::setprecision(2)
                << off.perRound << " | " << on.perRound << " | "
                << (off.perRound > 0 ? on.perRound / off.perRound : 0.0) << " | "
                << std::setprecision(4) << off.cost << " | " << on.cost << " | "
                << std::setprecision(3) << off.gb << " | " << on.gb << " |\n";
            out.flush();
        } catch (const std::exception& e) {
            out << "| " << name << " | failed: " << e.what() << " |\n";
        }
    }
    return 0;
}

} // namespace

int runNetworkBench(const QStringList& args, std::ostream& out) {
    if (args.value(0) == "--presets")
        return presetTable(args.value(1, "presets").toStdString(), 5, out);
    try {
        const std::string preset = "presets/edge-1000-devices.yaml";
        if (std::filesystem::exists(preset)) {
            const Scenario s =
                loadScenarioFile(preset, {{"data", "{dataset: none, samples_per_trainer: 60}"},
                                          {"model", "{kind: none, wire_bytes: 636040}"}});
            report(out, "bench network: " + preset + " (timing only, 1 thread)", s);
        } else {
            out << "bench network: " << preset
                << " not found (run from the source folder); skipped\n";
        }
        report(out,
               "bench network: 10,000 devices (100 relay sites with private uplinks x 100 phones "
               "sharing "
               "their site's cell), fully-sync, "
               "timing only, 5 rounds (1 thread)",
               tenThousand(100, 100, 5));
        report(out,
               "bench network: worst case, 10,000 devices in ONE shared cell, fully-sync, timing "
               "only, "
               "1 round (1 thread)",
               tenThousand(1, 10000, 1));
    } catch (const std::exception& e) {
        std::cerr << "fogstudio-cli: bench network: " << e.what() << "\n";
        return 1;
    }
    return 0;
}

} // namespace fog::cli
