// A selection policy written in Python (or any front end): each round it hands the
// candidates to the selector installed through external_selection.h and uses the trainers it
// returns. The fogstudio Python module installs a callable there (docs/python.md).

#include "core/policies/external_selection.h"
#include "core/policies/policy_descriptor.h"
#include "core/policies/selection_estimates.h"
#include "core/policies/selection_policy.h"
#include "core/system/metrics.h"

#include <algorithm>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>

namespace fog {

namespace {

struct Slot {
    std::mutex mutex;
    const void* owner = nullptr;
    int leases = 0;
    std::shared_ptr<const ExternalSelector> selector;
};

Slot& slot() {
    static Slot s;
    return s;
}

struct PythonSettings {
    int k = 0; ///< trainers per round the callable is told to pick; 0: it decides
};

const ParamTable<PythonSettings>& pythonParams() {
    static const auto t = ParamTable<PythonSettings>()
                              .integer("k", &PythonSettings::k, 0, 0,
                                       "trainers per round the callable is told to pick (0: it decides; "
                                       "with an async sync policy, the most trainers busy at once)")
                              .live();
    return t;
}

class SelectPython : public SelectionPolicy {
public:
    SelectPython(const PolicyParams& p, const SystemView& e)
        : settings_(pythonParams(), p), selector_(currentExternalSelector()) {
        if (!selector_)
            throw EngineError("selection policy 'python' chooses trainers with a Python callable: run the scenario "
                              "from the fogstudio Python module with selection=CALLABLE (docs/python.md); "
                              "fogstudio-cli and the studio cannot run it");
        const auto n = static_cast<std::size_t>(e.topology().size());
        lastLoss_.assign(n, kNaN);
        lastSeconds_.assign(n, kNaN);
        chosen_.assign(n, 0);
    }

    std::vector<int> select(const SystemView& e, int aggregator, int round, const std::vector<int>& candidates,
                            Rng&) override {
        const Topology& topo = e.topology();
        SelectionQuery q;
        q.aggregator = aggregator >= 0 ? topo.id(aggregator) : std::string();
        q.aggregatorIndex = aggregator;
        q.round = round;
        q.time = e.now();
        q.k = settings_.of(e).k;
        q.candidates.reserve(candidates.size());
        for (int t : candidates) {
            SelectionCandidate c;
            c.index = t;
            c.id = topo.id(t);
            c.tier = toString(topo.node(t).spec.tier);
            c.throughput = topo.throughput(t);
            c.pricePerHour = topo.pricePerHour(t);
            c.samples = e.samplesOf(t);
            c.expectedRoundSeconds = expectedRoundSeconds(e, t);
            c.expectedRoundCost = expectedRoundCost(e, t);
            c.availability = stationaryAvailability(e, t);
            c.lastLoss = lastLoss_[static_cast<std::size_t>(t)];
            c.lastRoundSeconds = lastSeconds_[static_cast<std::size_t>(t)];
            c.timesSelected = chosen_[static_cast<std::size_t>(t)];
            q.candidates.push_back(std::move(c));
        }
        std::vector<int> out = (*selector_)(q);
        std::set<int> seen;
        for (int t : out) {
            if (!std::binary_search(candidates.begin(), candidates.end(), t))
                throw EngineError("selection policy 'python' returned node " +
                                  (t >= 0 && t < topo.size() ? "'" + topo.id(t) + "'" : std::to_string(t)) +
                                  " in round " + std::to_string(round) +
                                  ", which is not among the candidates (online, idle trainers of " + q.aggregator + ")");
            if (!seen.insert(t).second)
                throw EngineError("selection policy 'python' returned '" + topo.id(t) + "' twice in round " +
                                  std::to_string(round));
        }
        std::sort(out.begin(), out.end());
        for (int t : out) ++chosen_[static_cast<std::size_t>(t)];
        return out;
    }

    void observe(int trainer, double loss, double seconds) override {
        if (trainer < 0 || static_cast<std::size_t>(trainer) >= lastLoss_.size()) return;
        lastLoss_[static_cast<std::size_t>(trainer)] = loss;
        lastSeconds_[static_cast<std::size_t>(trainer)] = seconds;
    }

private:
    SelectionSettings<PythonSettings> settings_;
    std::shared_ptr<const ExternalSelector> selector_;
    std::vector<double> lastLoss_, lastSeconds_;
    std::vector<int> chosen_;
};

} // namespace

ExternalSelectorLease::ExternalSelectorLease(const void* owner, std::shared_ptr<const ExternalSelector> selector) {
    Slot& s = slot();
    std::lock_guard<std::mutex> lock(s.mutex);
    if (s.leases > 0 && s.owner != owner)
        throw std::runtime_error("another run of this process is using a different Python selection policy; "
                                 "runs with selection policy 'python' at the same time must share one callable");
    if (s.leases == 0) {
        s.owner = owner;
        s.selector = std::move(selector);
    }
    ++s.leases;
}

ExternalSelectorLease::~ExternalSelectorLease() {
    Slot& s = slot();
    std::lock_guard<std::mutex> lock(s.mutex);
    if (--s.leases == 0) {
        s.owner = nullptr;
        s.selector.reset();
    }
}

std::shared_ptr<const ExternalSelector> currentExternalSelector() {
    Slot& s = slot();
    std::lock_guard<std::mutex> lock(s.mutex);
    return s.selector;
}

FOG_SELECTION_POLICY(selectPythonPolicy) {
    static const SelectionPolicyDescriptor d = [] {
        SelectionPolicyDescriptor d;
        d.info.name = "python";
        d.info.summary = "Each round, the trainers a Python callable chooses among the online idle ones "
                         "(it receives their ids, speeds, data sizes, availability, expected round times "
                         "and costs and last losses). Runs only from the fogstudio Python module, which "
                         "passes the callable (docs/python.md).";
        d.info.params = pythonParams().infos();
        d.order = 200;
        d.make = [](const PolicyParams& p, const SystemView& e) -> std::unique_ptr<SelectionPolicy> {
            return std::make_unique<SelectPython>(p, e);
        };
        d.perRound = [](const PolicyParams& p) { return pythonParams().read(p).k; };
        return d;
    }();
    return d;
}

} // namespace fog
