#include "widgets/intervene/intervention.h"

#include "core/policies/policy_info.h"
#include "core/scenario/events_io.h"

#include <QCoreApplication>

#include <cmath>
#include <sstream>

namespace fog {

namespace {

QString tr(const char* s) { return QCoreApplication::translate("fog::Intervention", s); }

/// Shortest text that reads back as the same double ("2", "0.35", "1e-05").
std::string numberText(double v) {
    std::ostringstream out;
    out.precision(17);
    out << v;
    std::string shortest = out.str();
    for (int p = 1; p <= 17; ++p) {
        std::ostringstream o;
        o.precision(p);
        o << v;
        if (std::stod(o.str()) == v) return o.str();
    }
    return shortest;
}

QString num(double v) { return QString::number(v, 'g', 4); }

const LinkParams* linkParamsOf(const Scenario& s, const std::string& target, const std::string& linkTo) {
    const TopologySpec& t = s.topology;
    if (!linkTo.empty()) {
        for (const auto& l : t.links)
            if (l.from == target && l.to == linkTo) return &l.params;
        return nullptr;
    }
    const int i = t.find(target);
    if (i < 0) {
        // A member "phones-3": its group's link.
        const auto dash = target.rfind('-');
        if (dash == std::string::npos) return nullptr;
        const int g = t.find(target.substr(0, dash));
        if (g < 0 || !t.nodes[static_cast<std::size_t>(g)].group) return nullptr;
        return linkParamsOf(s, t.nodes[static_cast<std::size_t>(g)].id, {});
    }
    const NodeSpec& n = t.nodes[static_cast<std::size_t>(i)];
    if (n.link) return &*n.link;
    if (n.parent.empty()) return nullptr;
    return t.hasDefaultLink ? &t.defaultLink : nullptr;
}

const NodeSpec* nodeOf(const Scenario& s, const std::string& target) {
    const TopologySpec& t = s.topology;
    int i = t.find(target);
    if (i < 0) {
        const auto dash = target.rfind('-');
        if (dash != std::string::npos) i = t.find(target.substr(0, dash));
    }
    return i < 0 ? nullptr : &t.nodes[static_cast<std::size_t>(i)];
}

bool sameTarget(const TimedEvent& e, const Change& c) {
    if (e.target == c.target) return e.linkTo == c.linkTo;
    // An event on a whole group also sets the value of each member.
    const auto dash = c.target.rfind('-');
    return dash != std::string::npos && e.member < 0 && e.target == c.target.substr(0, dash) && e.linkTo == c.linkTo;
}

} // namespace

QString changeKindName(ChangeKind k) {
    switch (k) {
    case ChangeKind::LinkUp: return tr("Bandwidth up");
    case ChangeKind::LinkDown: return tr("Bandwidth down");
    case ChangeKind::LinkLatency: return tr("Latency");
    case ChangeKind::NodePrice: return tr("Price");
    case ChangeKind::NodeThroughput: return tr("Throughput");
    case ChangeKind::Offline: return tr("Take offline");
    case ChangeKind::Online: return tr("Bring online");
    case ChangeKind::PolicyParam: return tr("Policy parameter");
    }
    return {};
}

QString changeKindUnit(ChangeKind k) {
    switch (k) {
    case ChangeKind::LinkUp:
    case ChangeKind::LinkDown: return QStringLiteral("Mbit/s");
    case ChangeKind::LinkLatency: return QStringLiteral("ms");
    case ChangeKind::NodePrice: return QStringLiteral("$/h");
    case ChangeKind::NodeThroughput: return QStringLiteral("samples/s");
    case ChangeKind::Offline:
    case ChangeKind::Online:
    case ChangeKind::PolicyParam: return {};
    }
    return {};
}

std::string actionText(const Change& c) {
    const std::string v = numberText(c.value);
    const std::string to = c.linkTo.empty() ? std::string() : " to=" + c.linkTo;
    switch (c.kind) {
    case ChangeKind::LinkUp: return "link " + c.target + ".up=" + v + to;
    case ChangeKind::LinkDown: return "link " + c.target + ".down=" + v + to;
    case ChangeKind::LinkLatency: return "link " + c.target + ".latency=" + v + to;
    case ChangeKind::NodePrice: return "node " + c.target + " price=" + v;
    case ChangeKind::NodeThroughput: return "node " + c.target + " throughput=" + v;
    case ChangeKind::Offline:
    case ChangeKind::Online: {
        std::string s = (c.kind == ChangeKind::Offline ? "offline " : "online ") + c.target;
        if (c.value > 0 && c.value < 1) s += " fraction=" + v;
        return s;
    }
    case ChangeKind::PolicyParam: return "policy " + c.target + "=" + v;
    }
    return {};
}

std::string actionText(const std::vector<Change>& changes) {
    if (changes.empty()) return {};
    const Change& first = changes.front();
    const bool link = first.kind == ChangeKind::LinkUp || first.kind == ChangeKind::LinkDown ||
                      first.kind == ChangeKind::LinkLatency;
    if (!link || changes.size() == 1) return actionText(first);
    std::string s = "link " + first.target;
    bool firstKey = true;
    for (const Change& c : changes) {
        const char* key = c.kind == ChangeKind::LinkUp ? "up" : c.kind == ChangeKind::LinkDown ? "down" : "latency";
        s += (firstKey ? "." : " ") + std::string(key) + "=" + numberText(c.value);
        firstKey = false;
    }
    if (!first.linkTo.empty()) s += " to=" + first.linkTo;
    return s;
}

bool makeEvent(const Scenario& s, const Change& c, TimedEvent& out, QString* error) {
    return makeEvent(s, std::vector<Change>{c}, out, error);
}

bool makeEvent(const Scenario& s, const std::vector<Change>& changes, TimedEvent& out, QString* error) {
    if (changes.empty()) {
        if (error) *error = tr("nothing to change");
        return false;
    }
    for (const Change& c : changes)
        if (!std::isfinite(c.value)) {
            if (error) *error = tr("%1: not a number").arg(changeKindName(c.kind));
            return false;
        }
    return makeEventFromAction(s, actionText(changes), out, error);
}

bool makeEventFromAction(const Scenario& s, const std::string& action, TimedEvent& out, QString* error) {
    // The reader resolves and checks the event against a copy (its events: list only).
    Scenario probe;
    probe.topology = s.topology;
    probe.sync = s.sync;
    probe.selection = s.selection;
    probe.events.list.clear();
    const std::string text = "at 0: " + action;
    try {
        addEventArgument(probe, text);
    } catch (const ScenarioError& e) {
        if (error) {
            QStringList lines;
            // The reader names the --event text; here the user typed a value in a dialog.
            const std::string suffix = " (in --event '" + text + "')";
            for (const auto& d : e.diagnostics) {
                std::string m = d.message;
                if (m.size() >= suffix.size() && m.compare(m.size() - suffix.size(), suffix.size(), suffix) == 0)
                    m.erase(m.size() - suffix.size());
                // The field, not the probe's "events[0].link." path.
                const auto dot = d.path.rfind('.');
                const std::string field = dot == std::string::npos ? d.path : d.path.substr(dot + 1);
                lines << QString::fromStdString(field.empty() || field.rfind("events[", 0) == 0 ? m : field + ": " + m);
            }
            *error = lines.join('\n');
        }
        return false;
    } catch (const std::exception& e) {
        if (error) *error = QString::fromUtf8(e.what());
        return false;
    }
    if (probe.events.list.size() != 1) {
        if (error) *error = tr("'%1' is not a valid change").arg(QString::fromStdString(text));
        return false;
    }
    out = probe.events.list.front();
    return true;
}

QString eventLabel(const TimedEvent& e) {
    const QString who = QString::fromStdString(e.target) +
                        (e.linkTo.empty() ? QString() : QStringLiteral("→") + QString::fromStdString(e.linkTo));
    QStringList parts;
    switch (e.action) {
    case TimedEvent::Action::Link:
        if (e.bandwidthUpMbps && e.bandwidthDownMbps && *e.bandwidthUpMbps == *e.bandwidthDownMbps)
            parts << tr("%1 Mbit/s").arg(num(*e.bandwidthUpMbps));
        else {
            if (e.bandwidthUpMbps) parts << tr("up %1 Mbit/s").arg(num(*e.bandwidthUpMbps));
            if (e.bandwidthDownMbps) parts << tr("down %1 Mbit/s").arg(num(*e.bandwidthDownMbps));
        }
        if (e.latencyMs) parts << tr("%1 ms").arg(num(*e.latencyMs));
        return who + ' ' + parts.join(", ");
    case TimedEvent::Action::Node:
        if (e.pricePerHour) parts << tr("$%1/h").arg(num(*e.pricePerHour));
        if (e.throughput) parts << tr("%1 samples/s").arg(num(*e.throughput));
        return who + ' ' + parts.join(", ");
    case TimedEvent::Action::Offline:
    case TimedEvent::Action::Online: {
        QString s = who + ' ' + (e.action == TimedEvent::Action::Offline ? tr("offline") : tr("online"));
        if (e.fraction) s += QStringLiteral(" %1%").arg(num(100 * *e.fraction));
        return s;
    }
    case TimedEvent::Action::Add: return tr("%1 +%2 devices").arg(who).arg(e.count);
    case TimedEvent::Action::Remove: return tr("%1 −%2 devices").arg(who).arg(e.count);
    case TimedEvent::Action::Policy:
        return QStringLiteral("%1.%2 = %3")
            .arg(QString::fromStdString(e.policyOf), QString::fromStdString(e.policyParam), num(e.policyValue));
    }
    return who;
}

std::optional<double> currentValue(const Scenario& s, const std::vector<TimedEvent>& applied, const Change& c) {
    std::optional<double> v;
    switch (c.kind) {
    case ChangeKind::LinkUp:
    case ChangeKind::LinkDown:
    case ChangeKind::LinkLatency:
        if (const LinkParams* p = linkParamsOf(s, c.target, c.linkTo))
            v = c.kind == ChangeKind::LinkUp     ? p->bandwidthUpMbps
                : c.kind == ChangeKind::LinkDown ? p->bandwidthDownMbps
                                                 : p->latencyMs;
        break;
    case ChangeKind::NodePrice:
        if (const NodeSpec* n = nodeOf(s, c.target)) v = n->pricePerHour.min;
        break;
    case ChangeKind::NodeThroughput:
        if (const NodeSpec* n = nodeOf(s, c.target)) v = n->compute.throughput.min;
        break;
    case ChangeKind::PolicyParam: {
        const auto dot = c.target.find('.');
        const std::string of = dot == std::string::npos ? "sync" : c.target.substr(0, dot);
        const std::string key = dot == std::string::npos ? c.target : c.target.substr(dot + 1);
        const PolicySpec& p = of == "selection" ? s.selection : s.sync;
        if (auto it = p.params.find(key); it != p.params.end()) v = it->second;
        else {
            const PolicyInfo* info = of == "selection" ? findSelectionPolicy(p.name) : findSyncPolicy(p.name);
            if (info)
                for (const auto& q : info->params)
                    if (q.key == key) v = q.defaultValue;
        }
        break;
    }
    case ChangeKind::Offline:
    case ChangeKind::Online: return std::nullopt;
    }
    for (const TimedEvent& e : applied) {
        if (c.kind == ChangeKind::PolicyParam) {
            if (e.action == TimedEvent::Action::Policy &&
                (e.policyOf + "." + e.policyParam == c.target || e.policyParam == c.target))
                v = e.policyValue;
            continue;
        }
        if (!sameTarget(e, c)) continue;
        if (e.action == TimedEvent::Action::Link) {
            if (c.kind == ChangeKind::LinkUp && e.bandwidthUpMbps) v = *e.bandwidthUpMbps;
            if (c.kind == ChangeKind::LinkDown && e.bandwidthDownMbps) v = *e.bandwidthDownMbps;
            if (c.kind == ChangeKind::LinkLatency && e.latencyMs) v = *e.latencyMs;
        } else if (e.action == TimedEvent::Action::Node) {
            if (c.kind == ChangeKind::NodePrice && e.pricePerHour) v = *e.pricePerHour;
            if (c.kind == ChangeKind::NodeThroughput && e.throughput) v = *e.throughput;
        }
    }
    return v;
}

std::vector<LinkRef> scenarioLinks(const Scenario& s) {
    std::vector<LinkRef> out;
    for (const auto& n : s.topology.nodes) {
        if (n.parent.empty()) continue;
        out.push_back({n.id, {}, QStringLiteral("%1 → %2").arg(QString::fromStdString(n.id), QString::fromStdString(n.parent))});
    }
    for (const auto& l : s.topology.links)
        out.push_back({l.from, l.to,
                       QStringLiteral("%1 ⇢ %2").arg(QString::fromStdString(l.from), QString::fromStdString(l.to))});
    return out;
}

QStringList policyParameters(const Scenario& s) {
    QStringList out;
    auto add = [&](const char* of, const PolicySpec& p, const PolicyInfo* info) {
        if (info)
            for (const auto& q : info->params) out << QStringLiteral("%1.%2").arg(of, QString::fromStdString(q.key));
        for (const auto& kv : p.params) {
            const QString k = QStringLiteral("%1.%2").arg(of, QString::fromStdString(kv.first));
            if (!out.contains(k)) out << k;
        }
    };
    add("sync", s.sync, findSyncPolicy(s.sync.name));
    add("selection", s.selection, findSelectionPolicy(s.selection.name));
    return out;
}

} // namespace fog
