#pragma once
// The network side of a live run's activity frames: messages in flight (from the engine's
// onMessage / onMessageEnd, and from job plans when the engine does not report a trainer's
// transfers itself) and the links in use (onLinkUsage). Fed on the engine's thread and read
// on the GUI thread, both under the run controller's inbox mutex; it has no lock of its own.

#include "core/system/metrics.h"
#include "widgets/topology/run_activity.h"

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace fog {

class LiveNetwork {
  public:
    /// Most messages one frame carries (the canvas aggregates them per edge; this only
    /// bounds a frame's size in a pathological run).
    static constexpr std::size_t kMaxMessages = 50000;

    void start(const RunInfo& info);
    void message(const LinkMessage& m);
    void messageEnd(std::uint64_t id, double time, bool arrived);
    void usage(const std::vector<LinkUsage>& spans);

    /// Fills `f.messages` and `f.links` for virtual time `t`. `planned` are the transfers a
    /// job plan implies (model down while a trainer receives, update up while it sends);
    /// each is drawn unless the engine reports a message of its own from or to that trainer,
    /// and none once the engine gave any message an id (it then reports every transfer,
    /// with its real end, which a plan made at dispatch may not match under contention).
    /// Messages whose end is known and past are dropped (a cut one is handed over once, with
    /// `cut` set, for the canvas to fade out); one without an id goes at its `arrive`; one
    /// with an id waits at its target (progress clamped to 1) until its end is reported.
    /// A link is in `f.links` with its latest closed span while that span had flows and a
    /// message in flight uses it: one leaving its source (up) or reaching its target (down),
    /// or passing through when that end is a relay. A span closes only when the next begins,
    /// so "the link went idle" is read from the messages.
    void fill(ActivityFrame& f, double t, const std::vector<MessageInFlight>& planned);

    std::size_t messagesKept() const { return byId_.size() + noId_.size(); }

  private:
    struct Entry {
        LinkMessage m;
        double end = -1.0; ///< real end when known (< 0: not yet)
        bool cut = false;
    };
    static MessageInFlight shown(const Entry& e, double t);

    int nodes_ = 0;
    std::vector<LinkInfo> links_;
    std::vector<LinkLoad> latest_; ///< per link; flows < 0: no span yet
    std::vector<double> latestTo_;
    std::unordered_map<std::uint64_t, Entry> byId_;
    std::vector<Entry> noId_;
    /// Ends reported before their message (never by the engine; kept for robustness).
    std::unordered_map<std::uint64_t, std::pair<double, bool>> earlyEnds_;
    bool sawIds_ = false;         ///< the engine gives its messages ids (and reports them all)
    std::vector<char> forwarder_; ///< per node: a relay
    std::vector<int> parent_;     ///< per node: its parent's index, -1 for a root
    std::vector<char> sending_, receiving_; ///< scratch, per node
};

} // namespace fog
