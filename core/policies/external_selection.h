#pragma once
// A selection policy whose choice is made outside the C++ core: the `python` selection
// policy (select_python.cpp) asks the selector a front end installed (the fogstudio Python
// module, python/). The core knows only this std::function; nothing here depends on Python.
//
// Threads: the selector is called on the engine thread of each run that uses it, from inside
// the engine's event loop (never concurrently within one run; runs of a sweep run in
// parallel may call it at once). A selector that throws stops the run as failed, the
// exception's message being the stop reason.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace fog {

/// One trainer the selection may choose: online and idle, under the aggregator asking.
struct SelectionCandidate {
    int index = -1;              ///< node index (what the selector returns)
    std::string id;              ///< node id, e.g. "phone-3"
    std::string tier;            ///< cloud, edge or device
    double throughput = 0.0;     ///< samples per second (this member's drawn value)
    double pricePerHour = 0.0;
    std::int64_t samples = 0;    ///< samples in its local data set
    double expectedRoundSeconds = 0.0; ///< model down + local steps at mean speed + update up
    double expectedRoundCost = 0.0;    ///< its price while held plus traffic prices
    double availability = 1.0;   ///< long-run fraction of time online
    double lastLoss;             ///< mean training loss of its last delivered update (NaN: none yet)
    double lastRoundSeconds;     ///< virtual seconds its last delivered dispatch took (NaN: none yet)
    int timesSelected = 0;       ///< rounds it was chosen in so far, in this run
};

/// What the selector is asked: choose among `candidates` for `aggregator`'s round.
struct SelectionQuery {
    std::string aggregator;
    int aggregatorIndex = -1;
    int round = 0;
    double time = 0.0;           ///< virtual seconds
    int k = 0;                   ///< selection.k (0: the selector decides how many)
    std::vector<SelectionCandidate> candidates; ///< ascending node index
};

/// Returns the chosen node indices: each a candidate's, no duplicates, any order (the engine
/// uses them in ascending order, as the built-in policies return them).
using ExternalSelector = std::function<std::vector<int>(const SelectionQuery&)>;

/// Installs `selector` for the runs of this process that use selection policy `python`
/// while the lease lives. Leases with the same `owner` (e.g. the same Python callable) may
/// overlap (parallel runs of a sweep, runs on several threads); a lease with another owner
/// while one is held throws std::runtime_error, so a run never picks up a stranger's policy.
class ExternalSelectorLease {
public:
    ExternalSelectorLease(const void* owner, std::shared_ptr<const ExternalSelector> selector);
    ~ExternalSelectorLease();
    ExternalSelectorLease(const ExternalSelectorLease&) = delete;
    ExternalSelectorLease& operator=(const ExternalSelectorLease&) = delete;
};

/// The selector installed now (null: none).
std::shared_ptr<const ExternalSelector> currentExternalSelector();

} // namespace fog
