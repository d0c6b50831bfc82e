#include "widgets/run/node_live_state.h"

#include "widgets/topology/node_item.h"
#include "widgets/topology/topology_scene.h"

#include <QLabel>
#include <QRegularExpression>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <array>
#include <cmath>

namespace fog {

namespace {

constexpr int kStates = 5;

QString secondsText(double s) { return QString::number(s, 'f', s < 100 ? 1 : 0) + QStringLiteral(" s"); }

/// A member of the group `group` by its run id ("phones-3", or deeper for nested groups).
bool isMemberOf(const QString& node, const QString& group) {
    if (!node.startsWith(group + '-')) return false;
    bool ok = false;
    node.mid(group.size() + 1).section('-', 0, 0).toInt(&ok);
    return ok;
}

} // namespace

NodeLiveState::NodeLiveState(QWidget* parent) : QWidget(parent) {
    setObjectName("nodeLiveState");
    label_ = new QLabel(this);
    label_->setObjectName("nodeLiveStateText");
    label_->setWordWrap(true);
    label_->setTextFormat(Qt::RichText);
    label_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    label_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 4, 6, 4);
    layout->addWidget(label_);
    // Frames come up to 30 times a second: the text is rebuilt at most 8 times a second.
    timer_ = new QTimer(this);
    timer_->setSingleShot(true);
    timer_->setInterval(125);
    connect(timer_, &QTimer::timeout, this, &NodeLiveState::refresh);
    hide();
}

void NodeLiveState::attach(TopologyScene* scene) {
    scene_ = scene;
    connect(scene, &QGraphicsScene::selectionChanged, this, &NodeLiveState::selectionChanged);
}

void NodeLiveState::reset(const RunInfo& info) {
    info_ = info;
    totals_.assign(info.nodes.size() * kStates, 0.0);
    states_.clear();
    messages_.clear();
    clock_ = 0.0;
    round_ = 0;
    accuracy_ = kNaN;
    ended_ = false;
    running_ = true;
    selectionChanged();
}

void NodeLiveState::clear() {
    running_ = false;
    ended_ = false;
    info_ = RunInfo{};
    totals_.clear();
    states_.clear();
    messages_.clear();
    selected_.clear();
    hide();
}

void NodeLiveState::finish() {
    ended_ = true;
    messages_.clear();
    refresh();
}

void NodeLiveState::showFrame(const ActivityFrame& frame) {
    if (!running_) return;
    states_ = frame.states;
    messages_ = frame.messages;
    clock_ = std::max(clock_, frame.virtualTime);
    scheduleRefresh();
}

void NodeLiveState::appendIntervals(const std::vector<NodeInterval>& intervals) {
    for (const NodeInterval& iv : intervals) {
        const std::size_t k = static_cast<std::size_t>(iv.node) * kStates + static_cast<std::size_t>(iv.state);
        if (iv.node < 0 || k >= totals_.size()) continue;
        totals_[k] += std::max(0.0, iv.to - iv.from);
    }
    scheduleRefresh();
}

void NodeLiveState::appendMetrics(const std::vector<AggregationRecord>& records) {
    for (const AggregationRecord& r : records) {
        if (r.level != 0) continue;
        round_ = std::max(round_, r.round);
        clock_ = std::max(clock_, r.time);
        if (!std::isnan(r.testAccuracy)) accuracy_ = r.testAccuracy;
    }
    scheduleRefresh();
}

double NodeLiveState::seconds(int node, NodeState state) const {
    const std::size_t k = static_cast<std::size_t>(node) * kStates + static_cast<std::size_t>(state);
    return node >= 0 && k < totals_.size() ? totals_[k] : 0.0;
}

void NodeLiveState::selectionChanged() {
    selected_.clear();
    selectedId_.clear();
    if (scene_) {
        const QStringList ids = scene_->selectedIds();
        if (ids.size() == 1) {
            selectedId_ = ids.front();
            selected_ = scene_->runNodesOf(selectedId_);
            if (selected_.empty()) // the run's own naming (a run shown after it ended)
                for (std::size_t i = 0; i < info_.nodes.size(); ++i) {
                    const QString id = QString::fromStdString(info_.nodes[i].id);
                    if (id == selectedId_ || isMemberOf(id, selectedId_)) selected_.push_back(static_cast<int>(i));
                }
        }
    }
    refresh();
}

void NodeLiveState::scheduleRefresh() {
    if (!isHidden() && !timer_->isActive()) timer_->start();
}

QString NodeLiveState::text() const {
    QString t = label_->text();
    t.replace(QStringLiteral("<br>"), QStringLiteral("\n"));
    t.remove(QRegularExpression(QStringLiteral("<[^>]*>")));
    return t.replace(QStringLiteral("&amp;"), QStringLiteral("&"));
}

void NodeLiveState::refresh() {
    if (!running_ || selected_.empty()) {
        setVisible(running_ && !selectedId_.isEmpty());
        if (running_ && !selectedId_.isEmpty())
            label_->setText(tr("<b>%1</b>: not part of this run").arg(selectedId_.toHtmlEscaped()));
        return;
    }
    show();
    const bool group = selected_.size() > 1 || isMemberOf(QString::fromStdString(info_.nodes[selected_.front()].id), selectedId_);
    std::array<int, kStates> now{};
    std::array<double, kStates> spent{};
    for (int n : selected_) {
        if (n < static_cast<int>(states_.size())) now[static_cast<std::size_t>(states_[n])]++;
        for (int s = 0; s < kStates; ++s) spent[s] += seconds(n, static_cast<NodeState>(s));
    }
    int up = 0, down = 0;
    double upProgress = 0, downProgress = 0;
    for (const MessageInFlight& m : messages_) {
        if (m.cut) continue;
        const bool mine = std::find(selected_.begin(), selected_.end(), m.from) != selected_.end() ||
                          std::find(selected_.begin(), selected_.end(), m.to) != selected_.end();
        if (!mine) continue;
        if (m.modelDown) {
            ++down;
            downProgress += m.progress;
        } else {
            ++up;
            upProgress += m.progress;
        }
    }

    QStringList lines;
    const QString title = group ? tr("%1 × %2").arg(selectedId_.toHtmlEscaped()).arg(selected_.size())
                                : selectedId_.toHtmlEscaped();
    QString when = tr("t = %1, round %2").arg(secondsText(clock_)).arg(round_);
    if (!std::isnan(accuracy_)) when += tr(", accuracy %1%").arg(100 * accuracy_, 0, 'f', 1);
    lines << tr("<b>Live: %1</b> — %2%3").arg(title, when, ended_ ? tr(" (run ended)") : QString());
    if (!ended_ && !states_.empty()) {
        if (group) {
            QStringList parts;
            for (NodeState s : {NodeState::Computing, NodeState::Sending, NodeState::Receiving, NodeState::Idle,
                                NodeState::Offline})
                parts << tr("%1 %2").arg(NodeItem::stateName(s)).arg(now[static_cast<std::size_t>(s)]);
            lines << tr("Now: %1").arg(parts.join(", "));
        } else {
            for (int s = 0; s < kStates; ++s)
                if (now[s]) lines << tr("Now: <b>%1</b>").arg(NodeItem::stateName(static_cast<NodeState>(s)));
        }
    }
    const double computing = spent[static_cast<int>(NodeState::Computing)];
    const double network = spent[static_cast<int>(NodeState::Receiving)] + spent[static_cast<int>(NodeState::Sending)];
    const double idle = spent[static_cast<int>(NodeState::Idle)];
    const double offline = spent[static_cast<int>(NodeState::Offline)];
    const double all = computing + network + idle + offline;
    auto pct = [all](double v) { return all > 0 ? QString::number(100.0 * v / all, 'f', 0) + '%' : QStringLiteral("–"); };
    lines << tr("Time so far%1: computing %2 (%3), waiting for the network %4 (%5), idle %6 (%7), offline %8 (%9)")
                 .arg(group ? tr(" (all members)") : QString())
                 .arg(secondsText(computing), pct(computing), secondsText(network), pct(network), secondsText(idle), pct(idle),
                      secondsText(offline), pct(offline));
    if (!ended_) {
        if (up + down == 0) lines << tr("No message in flight");
        else {
            QStringList parts;
            if (up) parts << tr("%n update(s) going up (%1% of the way on average)", "", up).arg(100 * upProgress / up, 0, 'f', 0);
            if (down) parts << tr("%n model(s) coming down (%1%)", "", down).arg(100 * downProgress / down, 0, 'f', 0);
            lines << tr("In flight: %1").arg(parts.join("; "));
        }
    }
    const NodeInfo& first = info_.nodes[static_cast<std::size_t>(selected_.front())];
    if (first.throughput > 0 || first.pricePerHour > 0) {
        QString fig = tr("%1 samples/s").arg(first.throughput, 0, 'g', 4);
        if (first.pricePerHour > 0) fig += tr(", %1 per hour").arg(first.pricePerHour, 0, 'g', 4);
        lines << tr("As run: %1%2").arg(fig, group ? tr(" (first member)") : QString());
    }
    label_->setText(lines.join("<br>"));
}

} // namespace fog
