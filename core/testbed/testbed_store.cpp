// A testbed run as a stored run, and the comparison with its prediction (testbed_store.h).

#include "core/testbed/testbed_store.h"
#include "core/store/run_store.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iomanip>
#include <map>
#include <ostream>
#include <sstream>

namespace fog::testbed {

namespace {

std::string num(double v, int precision = 6) {
    std::ostringstream s;
    s << std::setprecision(precision) << v;
    return s.str();
}

double errorPct(double predicted, double measured) {
    return predicted > 0 ? 100.0 * (measured - predicted) / predicted : 0.0;
}

} // namespace

std::vector<AggregationRecord> measuredRecords(const TestbedPlan& plan, const TestbedResult& result) {
    std::vector<AggregationRecord> rows;
    double bytes = 0.0;
    // A job's bytes as the emulator counts them: each hop of its way (the payload moved, with
    // the 40-byte header; a lost job's update moved nothing).
    auto jobBytes = [&](int box, double down, double up) {
        int hops = 0;
        for (int b : plan.linksUp(box)) hops += plan.boxes[static_cast<std::size_t>(b)].modelLink ? 1 : 0;
        return std::max(hops, 1) * (down + up);
    };
    auto row = [&](const MeasuredRound& r, int level, const std::string& aggregator) {
        AggregationRecord a;
        a.round = r.round;
        a.level = level;
        a.aggregator = aggregator;
        a.time = r.endS;
        a.wallSeconds = r.endS * result.dilation;
        a.participants = 0;
        for (const MeasuredJob& j : r.jobs) a.participants += j.aggregated ? 1 : 0;
        a.cost = a.energyJ = kNaN;
        a.energyComputeJ = a.energyNetworkJ = a.energyIdleJ = kNaN;
        a.bytes = bytes;
        // Training values as the processes computed them (NaN when they did not train).
        a.trainLoss = r.trainLoss;
        a.testLoss = r.testLoss;
        a.testAccuracy = r.testAccuracy;
        return a;
    };
    // A tiered tree's sub-rounds are stored as their aggregators' own rows (level: how many
    // aggregators down), before the global round they are part of, in the order they ended,
    // with the round as the engine numbers them (the global rounds finished before).
    const bool subRows = result.subRounds.size() == plan.subRounds.size();
    for (std::size_t ri = 0; ri < result.rounds.size(); ++ri) {
        const MeasuredRound& r = result.rounds[ri];
        std::vector<std::size_t> subs;
        for (std::size_t k = 0; k < plan.subRounds.size(); ++k)
            if (plan.subRounds[k].rootRound == ri) subs.push_back(k);
        if (subRows)
            std::stable_sort(subs.begin(), subs.end(), [&](std::size_t x, std::size_t y) {
                return result.subRounds[x].endS < result.subRounds[y].endS;
            });
        for (std::size_t k : subs) {
            // Each job moved its plan's bytes and a header (also after a cancel, when the
            // intermediate processes did not report their sub-rounds).
            for (const PlanJob& j : plan.subRounds[k].jobs)
                bytes += jobBytes(j.trainerBox, std::llround(j.downBytes) + kMessageHeaderBytes,
                                  j.lost ? 0.0 : std::llround(j.upBytes) + kMessageHeaderBytes);
            if (!subRows) continue;
            const int box = plan.subRounds[k].aggregatorBox;
            int level = 0;
            for (int b = plan.boxes[static_cast<std::size_t>(box)].parent; b >= 0;
                 b = plan.boxes[static_cast<std::size_t>(b)].parent)
                level += plan.boxes[static_cast<std::size_t>(b)].aggregates ? 1 : 0;
            AggregationRecord a = row(result.subRounds[k], level, plan.boxes[static_cast<std::size_t>(box)].label);
            a.round = r.round - 1;
            rows.push_back(a);
        }
        for (const MeasuredJob& j : r.jobs) bytes += jobBytes(j.trainerBox, j.downBytes, j.upBytes);
        rows.push_back(row(r, 0, plan.boxes.front().label));
    }
    return rows;
}

std::vector<NodeInterval> measuredIntervals(const TestbedPlan& plan, const TestbedResult& result) {
    std::vector<NodeInterval> out;
    for (const auto* list : {&result.rounds, &result.subRounds})
        for (const MeasuredRound& r : *list)
        for (const MeasuredJob& j : r.jobs) {
            const PlanBox& box = plan.boxes[static_cast<std::size_t>(j.trainerBox)];
            const int node = box.node;
            if (!box.trains) continue; // a session of an intermediate aggregator
            if (j.lost || (j.receivedS <= 0 && j.computedS <= 0)) continue; // no trainer's times
            out.push_back({node, NodeState::Receiving, j.dispatchS, j.receivedS});
            out.push_back({node, NodeState::Computing, j.receivedS, j.computedS});
            if (j.aggregated) out.push_back({node, NodeState::Sending, j.computedS, j.arrivedS});
        }
    // The availability played: the spans each process was stopped.
    for (const auto& st : result.stopped)
        out.push_back({plan.boxes[static_cast<std::size_t>(st.box)].node, NodeState::Offline, st.fromS, st.toS});
    return out;
}

std::pair<double, double> predictedBytes(const TestbedPlan& plan, int box, std::size_t rounds) {
    double up = 0.0, down = 0.0;
    if (!plan.boxes[static_cast<std::size_t>(box)].modelLink) return {0.0, 0.0};
    auto add = [&](const PlanRound& r) {
        for (const PlanJob& j : r.jobs)
            for (int b : plan.linksUp(j.trainerBox))
                if (b == box) {
                    up += j.predictedUpBytes;
                    down += j.downBytes;
                }
    };
    for (std::size_t r = 0; r < rounds && r < plan.rounds.size(); ++r) add(plan.rounds[r]);
    // A tiered tree's sub-rounds, with the global rounds they are part of.
    for (const PlanRound& r : plan.subRounds)
        if (r.rootRound < rounds) add(r);
    return {up, down};
}

std::vector<RunEvent> testbedEvents(const TestbedPlan& plan, const TestbedResult& result, std::int64_t predictionRun) {
    std::vector<RunEvent> ev;
    std::ostringstream d;
    d << "prediction=" << (predictionRun > 0 ? "run " + std::to_string(predictionRun) : std::string("not stored"))
      << "; dilation=" << num(result.dilation) << "; compute=" << (result.computeReal ? "real" : "paced")
      << "; training=" << (result.trained ? "yes" : "no");
    if (result.trained && !result.computeReal) d << " (late updates=" << result.lateJobs << ")";
    d << "; latency="
      << (result.kernelLatency ? "netem" : "user-space") << "; relays=" << (result.storeAndForward ? "store" : "route")
      << "; processes=" << result.processes << "; availability_changes=" << result.availabilityChanges
      << "; setup_s=" << num(result.setupSeconds, 3) << "; tcp_segments=" << num(result.tcpSegmentsOut, 12)
      << " retransmitted=" << num(result.tcpRetransmitted, 12) << "; kernel: tbf=" << (result.kernel.tbf ? "yes" : "no")
      << " htb=" << (result.kernel.htb ? "yes" : "no") << " netem=" << (result.kernel.netem ? "yes" : "no");
    ev.push_back({0.0, RunEventKind::Other, plan.boxes.front().node, d.str(), kEventKind});
    const double end = result.rounds.empty() ? 0.0 : result.rounds.back().endS;
    for (const MeasuredLink& l : result.links) {
        const PlanBox& b = plan.boxes[static_cast<std::size_t>(l.box)];
        const auto [up, down] = predictedBytes(plan, l.box, result.rounds.size());
        std::ostringstream s;
        s << "link " << (b.modelLink ? b.linkName : b.label + " (port)") << ": predicted up=" << num(up, 10)
          << " down=" << num(down, 10) << "; payload up=" << num(l.payloadUpBytes, 10)
          << " down=" << num(l.payloadDownBytes, 10) << "; wire up=" << num(l.wireUpBytes, 10)
          << " down=" << num(l.wireDownBytes, 10);
        ev.push_back({end, RunEventKind::Other, b.node, s.str(), kEventKind});
    }
    return ev;
}

std::int64_t storeTestbedRun(RunStore& store, NewRun meta, const RunInfo& info, const TestbedPlan& plan,
                             const TestbedResult& result, std::int64_t predictionRun) {
    const std::int64_t id = store.beginRun(meta);
    store.setNodes(id, info.nodes);
    const auto rows = measuredRecords(plan, result);
    const auto intervals = measuredIntervals(plan, result);
    const auto events = testbedEvents(plan, result, predictionRun);
    store.appendBatch(id, rows, intervals, events);
    RunSummary s;
    s.status = result.cancelled ? RunStatus::Cancelled : RunStatus::Finished;
    s.stopReason = result.cancelled ? "interrupted (Ctrl-C): the rounds measured so far"
                                    : "the prediction's rounds, measured on the testbed";
    s.rounds = 0;
    for (const auto& r : rows) s.rounds += r.level == 0 ? 1 : 0;
    s.aggregations = static_cast<int>(rows.size());
    s.virtualTime = rows.empty() ? 0.0 : rows.back().time;
    s.wallSeconds = result.wallSeconds;
    s.cost = s.energyJ = kNaN;
    s.energyComputeJ = s.energyNetworkJ = s.energyIdleJ = kNaN;
    s.bytes = rows.empty() ? 0.0 : rows.back().bytes;
    if (result.trained && !result.cancelled) {
        s.finalTrainLoss = rows.empty() ? kNaN : rows.back().trainLoss;
        for (const auto& r : rows)
            if (!std::isnan(r.testAccuracy) &&
                (std::isnan(s.bestTestAccuracy) || r.testAccuracy > s.bestTestAccuracy))
                s.bestTestAccuracy = r.testAccuracy;
        s.finalTestLoss = result.finalTestLoss;
        s.finalTestAccuracy = result.finalTestAccuracy;
        if (!std::isnan(s.finalTestAccuracy) &&
            (std::isnan(s.bestTestAccuracy) || s.finalTestAccuracy > s.bestTestAccuracy))
            s.bestTestAccuracy = s.finalTestAccuracy;
    }
    RowCounts produced;
    produced.metrics = static_cast<std::int64_t>(rows.size());
    produced.intervals = static_cast<std::int64_t>(intervals.size());
    produced.events = static_cast<std::int64_t>(events.size());
    store.finishRun(id, s, produced);
    return id;
}

Comparison compareRuns(const std::vector<AggregationRecord>& predicted, const std::vector<AggregationRecord>& measured) {
    std::vector<const AggregationRecord*> p, m;
    for (const auto& r : predicted)
        if (r.level == 0) p.push_back(&r);
    for (const auto& r : measured)
        if (r.level == 0) m.push_back(&r);
    Comparison c;
    const std::size_t n = std::min(p.size(), m.size());
    double pPrev = 0.0, mPrev = 0.0, sumAbs = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
        ComparedRound r;
        r.round = p[i]->round;
        r.predictedS = p[i]->time - pPrev;
        r.measuredS = m[i]->time - mPrev;
        r.predictedEndS = p[i]->time;
        r.measuredEndS = m[i]->time;
        r.errorPct = errorPct(r.predictedS, r.measuredS);
        sumAbs += std::fabs(r.errorPct);
        c.maxAbsErrorPct = std::max(c.maxAbsErrorPct, std::fabs(r.errorPct));
        pPrev = p[i]->time;
        mPrev = m[i]->time;
        c.rounds.push_back(r);
    }
    c.predictedEndS = pPrev;
    c.measuredEndS = mPrev;
    c.totalErrorPct = errorPct(pPrev, mPrev);
    c.meanAbsErrorPct = n ? sumAbs / static_cast<double>(n) : 0.0;
    return c;
}

void printComparison(std::ostream& out, const Comparison& c) {
    char line[160];
    out << "  round   predicted s    measured s    error\n";
    for (const auto& r : c.rounds) {
        std::snprintf(line, sizeof line, "  %5d  %12.4f  %12.4f  %+7.2f%%\n", r.round, r.predictedS, r.measuredS, r.errorPct);
        out << line;
    }
    std::snprintf(line, sizeof line, "  total  %12.4f  %12.4f  %+7.2f%%   (per round: mean |error| %.2f%%, max %.2f%%)\n",
                  c.predictedEndS, c.measuredEndS, c.totalErrorPct, c.meanAbsErrorPct, c.maxAbsErrorPct);
    out << line;
}

void printTransfers(std::ostream& out, const TestbedPlan& plan, const TestbedResult& result) {
    out << "  round   model down s: predicted min-max   measured min-max    update up s: predicted min-max   measured min-max\n";
    char line[200];
    for (std::size_t r = 0; r < result.rounds.size() && r < plan.rounds.size(); ++r) {
        const PlanRound& pr = plan.rounds[r];
        const MeasuredRound& mr = result.rounds[r];
        double pd[2] = {1e300, 0}, md[2] = {1e300, 0}, pu[2] = {1e300, 0}, mu[2] = {1e300, 0};
        auto span = [](double (&m)[2], double v) {
            m[0] = std::min(m[0], v);
            m[1] = std::max(m[1], v);
        };
        bool trainerTimes = true;
        int counted = 0;
        for (std::size_t j = 0; j < pr.jobs.size() && j < mr.jobs.size(); ++j) {
            const PlanJob& p = pr.jobs[j];
            const MeasuredJob& m = mr.jobs[j];
            if (!m.aggregated) continue; // lost, or late and discarded
            ++counted;
            span(pd, p.predictedReceivedS - (pr.startS + p.offsetS));
            // A session's change leaves at its last sub-round's aggregation.
            const double left = p.session() ? plan.subRounds[p.sessionFirst + static_cast<std::size_t>(p.sessionRounds) - 1].endS
                                            : p.predictedReceivedS + p.computeS;
            span(pu, p.predictedArriveS - left);
            span(md, m.receivedS - m.dispatchS);
            span(mu, m.arrivedS - m.computedS);
            trainerTimes = trainerTimes && m.computedS > 0;
        }
        if (counted == 0) {
            std::snprintf(line, sizeof line, "  %5d        (no update of the round was taken: lost, or late and discarded)\n", mr.round);
            out << line;
            continue;
        }
        if (!trainerTimes) {
            // Interrupted: the trainers' own times never came.
            std::snprintf(line, sizeof line, "  %5d        %8.4f - %-8.4f         (not measured)         %8.4f - %-8.4f         (not measured)\n",
                          mr.round, pd[0], pd[1], pu[0], pu[1]);
            out << line;
            continue;
        }
        std::snprintf(line, sizeof line, "  %5d        %8.4f - %-8.4f  %8.4f - %-8.4f       %8.4f - %-8.4f  %8.4f - %-8.4f\n",
                      mr.round, pd[0], pd[1], md[0], md[1], pu[0], pu[1], mu[0], mu[1]);
        out << line;
    }
    std::snprintf(line, sizeof line, "  TCP: %.0f segments sent, %.0f retransmitted (%.2f%%)\n", result.tcpSegmentsOut,
                  result.tcpRetransmitted,
                  result.tcpSegmentsOut > 0 ? 100.0 * result.tcpRetransmitted / result.tcpSegmentsOut : 0.0);
    out << line;
}

void printSubRounds(std::ostream& out, const TestbedPlan& plan, const TestbedResult& result) {
    if (plan.subRounds.empty() || result.subRounds.size() != plan.subRounds.size()) return;
    out << "  round  aggregator            sub-round   predicted s    measured s    error\n";
    char line[200];
    std::map<int, int> nth; // per aggregator: its sub-rounds so far
    for (std::size_t k = 0; k < plan.subRounds.size(); ++k) {
        const PlanRound& p = plan.subRounds[k];
        const MeasuredRound& m = result.subRounds[k];
        const double predicted = p.endS - p.startS, measured = m.endS - m.startS;
        std::snprintf(line, sizeof line, "  %5d  %-20s  %9d  %12.4f  %12.4f  %+7.2f%%\n", p.round,
                      plan.boxes[static_cast<std::size_t>(p.aggregatorBox)].label.substr(0, 20).c_str(),
                      ++nth[p.aggregatorBox], predicted, measured, errorPct(predicted, measured));
        out << line;
    }
}

namespace {

bool sameBits(double a, double b) {
    if (std::isnan(a) && std::isnan(b)) return true;
    return std::memcmp(&a, &b, sizeof a) == 0;
}

} // namespace

std::vector<TrainingRound> compareTraining(const std::vector<AggregationRecord>& predicted,
                                           const std::vector<AggregationRecord>& measured) {
    std::vector<const AggregationRecord*> p, m;
    for (const auto& r : predicted)
        if (r.level == 0) p.push_back(&r);
    for (const auto& r : measured)
        if (r.level == 0) m.push_back(&r);
    std::vector<TrainingRound> out;
    for (std::size_t i = 0; i < std::min(p.size(), m.size()); ++i) {
        TrainingRound t;
        t.round = p[i]->round;
        t.predictedTrainLoss = p[i]->trainLoss;
        t.measuredTrainLoss = m[i]->trainLoss;
        t.predictedTestLoss = p[i]->testLoss;
        t.measuredTestLoss = m[i]->testLoss;
        t.predictedTestAccuracy = p[i]->testAccuracy;
        t.measuredTestAccuracy = m[i]->testAccuracy;
        t.same = sameBits(t.predictedTrainLoss, t.measuredTrainLoss) && sameBits(t.predictedTestLoss, t.measuredTestLoss) &&
                 sameBits(t.predictedTestAccuracy, t.measuredTestAccuracy);
        out.push_back(t);
    }
    return out;
}

void printTraining(std::ostream& out, const std::vector<TrainingRound>& rounds) {
    out << "  round   train loss: predicted      measured    test loss: predicted      measured    accuracy: "
           "predicted  measured   same bits\n";
    char line[240];
    std::size_t same = 0;
    for (const auto& r : rounds) {
        std::snprintf(line, sizeof line, "  %5d     %18.10g  %12.10g   %18.10g  %12.10g      %10.6g  %8.6g   %s\n", r.round,
                      r.predictedTrainLoss, r.measuredTrainLoss, r.predictedTestLoss, r.measuredTestLoss,
                      r.predictedTestAccuracy, r.measuredTestAccuracy, r.same ? "yes" : "NO");
        out << line;
        same += r.same ? 1 : 0;
    }
    out << "  training: " << same << " of " << rounds.size()
        << " rounds have the prediction's training values bit for bit\n";
}

std::optional<std::int64_t> predictionOf(const std::vector<RunEvent>& events) {
    for (const auto& e : events) {
        if (e.kindName() != kEventKind) continue;
        const auto at = e.detail.find("prediction=run ");
        if (at == std::string::npos) continue;
        return std::stoll(e.detail.substr(at + 15));
    }
    return std::nullopt;
}

std::vector<StoredLink> storedLinks(const std::vector<RunEvent>& events) {
    std::vector<StoredLink> out;
    // "link NAME: predicted up=U down=D; payload up=U down=D; wire up=U down=D"
    for (const auto& e : events) {
        if (e.kindName() != kEventKind || e.detail.rfind("link ", 0) != 0) continue;
        const auto colon = e.detail.find(": predicted up=");
        if (colon == std::string::npos) continue;
        StoredLink l;
        l.name = e.detail.substr(5, colon - 5);
        if (l.name.size() >= 7 && l.name.compare(l.name.size() - 7, 7, " (port)") == 0) continue;
        auto value = [&](const char* part, const char* direction, double& v) {
            const auto at = e.detail.find(std::string(part) + " up=", colon);
            if (at == std::string::npos) return false;
            const auto key = e.detail.find(std::string(direction) + "=", at);
            if (key == std::string::npos) return false;
            try {
                v = std::stod(e.detail.substr(key + std::strlen(direction) + 1));
            } catch (const std::exception&) {
                return false;
            }
            return true;
        };
        if (value("predicted", "up", l.predictedUp) && value("predicted", "down", l.predictedDown) &&
            value("payload", "up", l.payloadUp) && value("payload", "down", l.payloadDown) &&
            value("wire", "up", l.wireUp) && value("wire", "down", l.wireDown))
            out.push_back(std::move(l));
    }
    return out;
}

} // namespace fog::testbed
