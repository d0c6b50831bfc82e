#include "widgets/run/live_network.h"

#include <algorithm>
#include <string>

namespace fog {

void LiveNetwork::start(const RunInfo& info) {
    nodes_ = static_cast<int>(info.nodes.size());
    links_ = info.links;
    forwarder_.assign(info.nodes.size(), 0);
    parent_.assign(info.nodes.size(), -1);
    std::unordered_map<std::string, int> index;
    for (std::size_t i = 0; i < info.nodes.size(); ++i) index[info.nodes[i].id] = static_cast<int>(i);
    for (std::size_t i = 0; i < info.nodes.size(); ++i)
        if (auto it = index.find(info.nodes[i].parent); it != index.end()) parent_[i] = it->second;
    for (std::size_t i = 0; i < info.nodes.size(); ++i) forwarder_[i] = info.nodes[i].role == "relay";
    latest_.assign(links_.size(), LinkLoad{});
    latestTo_.assign(links_.size(), -1.0);
    for (std::size_t i = 0; i < latest_.size(); ++i) {
        latest_[i].link = static_cast<int>(i);
        latest_[i].flows = -1;
    }
    byId_.clear();
    noId_.clear();
    earlyEnds_.clear();
    sawIds_ = false;
}

void LiveNetwork::message(const LinkMessage& m) {
    if (!(m.arrive >= m.depart)) return; // NaN or reversed: nothing to draw
    Entry e{m, -1.0, false};
    if (m.id == 0) {
        // An engine without message ids does not say which way a message goes either: one
        // to the sender's parent is an update going up, anything else a model.
        const bool up = m.from >= 0 && m.from < static_cast<int>(parent_.size()) &&
                        parent_[static_cast<std::size_t>(m.from)] == m.to;
        e.m.model = !up;
        if (m.arrive > m.depart) noId_.push_back(e);
        return;
    }
    sawIds_ = true;
    if (auto it = earlyEnds_.find(m.id); it != earlyEnds_.end()) {
        e.end = it->second.first;
        e.cut = !it->second.second;
        earlyEnds_.erase(it);
    }
    byId_[m.id] = e;
}

void LiveNetwork::messageEnd(std::uint64_t id, double time, bool arrived) {
    if (id == 0) return;
    auto it = byId_.find(id);
    if (it == byId_.end()) {
        earlyEnds_[id] = {time, arrived};
        return;
    }
    it->second.end = time;
    it->second.cut = !arrived;
}

void LiveNetwork::usage(const std::vector<LinkUsage>& spans) {
    for (const LinkUsage& u : spans) {
        if (u.link < 0 || u.link >= static_cast<int>(latest_.size())) continue;
        const auto k = static_cast<std::size_t>(u.link);
        if (u.to < latestTo_[k]) continue; // batches arrive in order; an older span changes nothing
        latestTo_[k] = u.to;
        latest_[k] = {u.link, u.bytesPerS, u.flows, u.from};
    }
}

MessageInFlight LiveNetwork::shown(const Entry& e, double t) {
    const LinkMessage& m = e.m;
    const double span = m.arrive - m.depart;
    const double at = e.cut ? std::min(t, e.end) : t;
    const double progress = span > 0 ? std::clamp((at - m.depart) / span, 0.0, 1.0) : 1.0;
    return {m.from, m.to, m.model, progress, m.id, e.cut && e.end >= 0 && e.end <= t};
}

void LiveNetwork::fill(ActivityFrame& f, double t, const std::vector<MessageInFlight>& planned) {
    const auto n = static_cast<std::size_t>(std::max(nodes_, 0));
    sending_.assign(n, 0);
    receiving_.assign(n, 0);
    auto mark = [&](int from, int to) {
        if (from >= 0 && static_cast<std::size_t>(from) < n) sending_[static_cast<std::size_t>(from)] = 1;
        if (to >= 0 && static_cast<std::size_t>(to) < n) receiving_[static_cast<std::size_t>(to)] = 1;
    };
    auto push = [&](const MessageInFlight& m) {
        if (f.messages.size() < kMaxMessages) f.messages.push_back(m);
    };

    noId_.erase(std::remove_if(noId_.begin(), noId_.end(), [t](const Entry& e) { return e.m.arrive <= t; }),
                noId_.end());
    for (const Entry& e : noId_) {
        if (e.m.depart > t) continue;
        push(shown(e, t));
        mark(e.m.from, e.m.to);
    }
    // Trainers whose transfers the engine reports itself (any message from or to them).
    std::vector<char> reported(n, 0);
    auto report = [&](int i) {
        if (i >= 0 && static_cast<std::size_t>(i) < n) reported[static_cast<std::size_t>(i)] = 1;
    };
    for (const Entry& e : noId_) {
        report(e.m.from);
        report(e.m.to);
    }
    for (auto it = byId_.begin(); it != byId_.end();) {
        const Entry& e = it->second;
        const bool over = e.end >= 0 && e.end <= t;
        if (e.m.depart <= t) {
            report(e.m.from);
            report(e.m.to);
            if (!over || e.cut) push(shown(e, t)); // a cut one once more, to fade out
            if (!over) mark(e.m.from, e.m.to);
        }
        it = over ? byId_.erase(it) : std::next(it);
    }
    for (const MessageInFlight& m : planned) {
        if (sawIds_) break; // the engine reports every transfer itself
        const int trainer = m.modelDown ? m.to : m.from;
        if (trainer >= 0 && static_cast<std::size_t>(trainer) < n && reported[static_cast<std::size_t>(trainer)]) continue;
        push(m);
        mark(m.from, m.to);
    }

    f.links.clear();
    for (std::size_t k = 0; k < latest_.size(); ++k) {
        const LinkLoad& l = latest_[k];
        if (l.flows <= 0) continue;
        const LinkInfo& info = links_[k];
        auto flag = [n](const std::vector<char>& v, int i) {
            return i >= 0 && static_cast<std::size_t>(i) < n && v[static_cast<std::size_t>(i)];
        };
        // A trainer's up link is busy while it sends, its down link while it receives; a
        // relay passes on what reaches its parent or leaves it.
        bool busy;
        if (info.kind == "nic-out")
            busy = flag(sending_, info.from);
        else if (info.kind == "nic-in")
            busy = flag(receiving_, info.to);
        else if (info.from < 0 || info.to < 0)
            busy = !f.messages.empty();
        else if (info.kind == "up")
            busy = flag(sending_, info.from) || (flag(forwarder_, info.from) && flag(receiving_, info.to));
        else if (info.kind == "down")
            busy = flag(receiving_, info.to) || (flag(forwarder_, info.to) && flag(sending_, info.from));
        else
            busy = flag(sending_, info.from) || flag(receiving_, info.to);
        if (busy) f.links.push_back(l);
    }
}

} // namespace fog
