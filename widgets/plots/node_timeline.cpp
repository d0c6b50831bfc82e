#include "widgets/plots/node_timeline.h"

#include "core/store/run_store.h"
#include "widgets/figures/qcustomplot.h"
#include "widgets/figures/run_plots.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>
#include <QHelpEvent>
#include <QToolTip>
#include <QScrollBar>
#include <QTimer>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace fog {

namespace {

constexpr int kRowPixels = 18;
constexpr double kTieSeconds = 1e-9;

/// Work that ends a trainer's job: the update arriving (or computed, with free links).
bool endsWork(NodeState s) { return s == NodeState::Sending || s == NodeState::Computing; }

} // namespace

NodeTimeline::NodeTimeline(QWidget* parent) : QWidget(parent) {
    plot_ = new QCustomPlot(this);
    // Its legend would otherwise ask for ~800 px: the window must fit a 1024 px screen.
    plot_->setMinimumSize(200, 100);
    plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    plot_->axisRect()->setRangeDrag(Qt::Horizontal);
    plot_->axisRect()->setRangeZoom(Qt::Horizontal);
    plot_->setToolTip(tr("Wheel: scroll nodes; Ctrl+wheel: zoom time; drag: pan; double-click: fit"));
    plot_->installEventFilter(this);
    // The legend goes below the plot, in one row, where it never hides a node's row.
    plot_->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    plot_->legend->setWrap(8);
    auto* below = new QCPLayoutGrid;
    plot_->plotLayout()->addElement(1, 0, below);
    below->setMargins(QMargins(0, 0, 0, 0));
    plot_->axisRect()->insetLayout()->take(plot_->legend);
    below->addElement(0, 0, plot_->legend);
    plot_->plotLayout()->setRowStretchFactor(1, 0.001);
    scroll_ = new QScrollBar(Qt::Vertical, this);
    totalsLabel_ = new QLabel(this);
    totalsLabel_->setWordWrap(true);
    totalsLabel_->setContentsMargins(4, 2, 4, 2);
    totalsLabel_->setToolTip(tr("Node-seconds over all nodes: computing, and waiting for the network (receiving "
                                "the model, sending the update) counted apart. Hover a row for one node's totals."));
    auto* rows = new QHBoxLayout;
    rows->setContentsMargins(0, 0, 0, 0);
    rows->setSpacing(0);
    rows->addWidget(plot_, 1);
    rows->addWidget(scroll_);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(totalsLabel_);
    layout->addLayout(rows, 1);
    plot_->setMouseTracking(true);
    connect(plot_, &QCustomPlot::mouseMove, this, [this](QMouseEvent* e) {
        if (until_ <= 0) return;
        const double t = plot_->xAxis->pixelToCoord(e->pos().x());
        setCursorTime(t);
        Q_EMIT cursorMoved(t);
    });
    connect(scroll_, &QScrollBar::valueChanged, this, [this](int v) {
        if (v == first_) return;
        first_ = v;
        updateRows();
        schedule();
    });
    refresh_ = new QTimer(this);
    refresh_->setSingleShot(true);
    refresh_->setInterval(50); // bounded refresh, however fast intervals come
    connect(refresh_, &QTimer::timeout, this, &NodeTimeline::flush);
    reset(RunInfo{});
}

NodeTimeline::~NodeTimeline() = default;

void NodeTimeline::reset(const RunInfo& info) {
    names_.clear();
    for (const auto& n : info.nodes) names_.push_back(QString::fromStdString(n.id));
    pendingEnds_.clear();
    barriers_.clear();
    cells_.assign(names_.size() * kBins, 0);
    totals_.assign(names_.size() * kStates, 0.0);
    span_ = until_ = lastBarrier_ = 0.0;
    first_ = 0;
    followX_ = true;

    plot_->clearPlottables();
    plot_->clearItems();
    plot_->xAxis->setLabel(tr("virtual time (s)"));
    plot_->yAxis->setRangeReversed(true); // first node on top, like a list
    plot_->yAxis->setSubTicks(false);

    map_ = new QCPColorMap(plot_->xAxis, plot_->yAxis);
    map_->setName(QString());
    map_->removeFromLegend();
    applyStateColors(map_);

    barrierLines_ = plot_->addGraph();
    barrierLines_->setName(tr("round end"));
    barrierLines_->setAdaptiveSampling(false);
    holders_ = plot_->addGraph();
    holders_->setName(tr("last arrival (held the barrier)"));
    holders_->setLineStyle(QCPGraph::lsNone);
    holders_->setAdaptiveSampling(false);
    addStateLegend(plot_);
    plot_->legend->setVisible(true);
    fitLegend();
    cursor_ = new QCPItemStraightLine(plot_);
    cursor_->setVisible(false);
    applyPalette();
    updateTotals();

    updateRows();
    updateXRange();
    mapDirty_ = true;
    flush();
}

void NodeTimeline::applyPalette() {
    // The theme's colours, read now: the timeline is built before the window picks its
    // theme, and the theme can change while it shows a run.
    const QPalette pal = palette();
    const QColor fg = pal.color(QPalette::WindowText);
    plot_->setBackground(pal.color(QPalette::Base));
    for (QCPAxis* a : {plot_->xAxis, plot_->yAxis}) {
        a->setBasePen(QPen(fg));
        a->setTickPen(QPen(fg));
        a->setSubTickPen(QPen(fg));
        a->setTickLabelColor(fg);
        a->setLabelColor(fg);
        a->grid()->setVisible(false);
    }
    if (barrierLines_) barrierLines_->setPen(QPen(QColor(fg.red(), fg.green(), fg.blue(), 150), 1, Qt::DashLine));
    if (cursor_) cursor_->setPen(QPen(QColor(fg.red(), fg.green(), fg.blue(), 160), 1.2, Qt::DotLine));
    if (holders_)
        holders_->setScatterStyle(
            QCPScatterStyle(QCPScatterStyle::ssDiamond, QPen(fg, 1.2), QBrush(QColor(204, 121, 167)), 10));
    plot_->legend->setBrush(pal.color(QPalette::Base));
    plot_->legend->setTextColor(fg);
    plot_->legend->setBorderPen(QPen(pal.color(QPalette::Mid)));
}

void NodeTimeline::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange && plot_) {
        applyPalette();
        plot_->replot(QCustomPlot::rpQueuedReplot);
    }
}

void NodeTimeline::appendIntervals(const std::vector<NodeInterval>& intervals) {
    if (intervals.empty()) return;
    double latest = until_;
    for (const auto& iv : intervals) latest = std::max(latest, iv.to);
    grow(latest);
    for (const auto& iv : intervals) {
        paint(iv);
        if (iv.node >= 0 && iv.node < nodeCount() && iv.to > iv.from)
            totals_[static_cast<std::size_t>(iv.node) * kStates + static_cast<int>(iv.state)] += iv.to - iv.from;
        if (endsWork(iv.state) && iv.node >= 0 && iv.node < nodeCount() && iv.to > lastBarrier_ + kTieSeconds)
            pendingEnds_.push_back({iv.to, iv.node});
    }
    until_ = latest;
    mapDirty_ = true;
    updateTotals();
    schedule();
}

double NodeTimeline::totalSeconds(int node, NodeState state) const {
    if (node < 0 || node >= nodeCount()) return 0.0;
    return totals_[static_cast<std::size_t>(node) * kStates + static_cast<int>(state)];
}

double NodeTimeline::totalSeconds(NodeState state) const {
    double sum = 0.0;
    for (int n = 0; n < nodeCount(); ++n) sum += totalSeconds(n, state);
    return sum;
}

QString NodeTimeline::totalsText() const { return totalsLabel_->text(); }

void NodeTimeline::updateTotals() {
    const QString hint = boundHint();
    if (hint != lastHint_) {
        lastHint_ = hint;
        Q_EMIT boundHintChanged(hint);
    }
    const double computing = totalSeconds(NodeState::Computing);
    const double receiving = totalSeconds(NodeState::Receiving);
    const double sending = totalSeconds(NodeState::Sending);
    const double busy = computing + receiving + sending;
    if (busy <= 0) {
        totalsLabel_->setText(tr("Node time: nothing yet"));
        return;
    }
    auto pct = [busy](double v) { return QString::number(100.0 * v / busy, 'f', 1); };
    totalsLabel_->setText(tr("Node time (all nodes): computing %1 s (%2%), waiting for the network %3 s (%4%: "
                             "receiving %5 s, sending %6 s)")
                              .arg(computing, 0, 'f', 1)
                              .arg(pct(computing))
                              .arg(receiving + sending, 0, 'f', 1)
                              .arg(pct(receiving + sending))
                              .arg(receiving, 0, 'f', 1)
                              .arg(sending, 0, 'f', 1));
}

QString NodeTimeline::boundHint() const {
    const double computing = totalSeconds(NodeState::Computing);
    const double network = totalSeconds(NodeState::Receiving) + totalSeconds(NodeState::Sending);
    const double busy = computing + network;
    if (busy <= 0 || barriers_.size() < 2) return {}; // too early to tell
    const double share = network / busy;
    if (share < kNetworkBoundShare) return {};
    return tr("This run is network-bound: its nodes spend %1% of their busy time waiting for the network and %2% "
              "computing, so sync policies that differ in how long they wait for slow trainers (fully-sync, n-sync, "
              "n-batch-sync) will take about the same time per round. To show stragglers, let computing dominate: "
              "more local work per round (Training: local steps or epochs, batch size), slower devices (Inspector: "
              "throughput), or faster links (Inspector: bandwidth); or open Presets: Volatile spot workers.")
        .arg(100 * share, 0, 'f', 1)
        .arg(100 * (1 - share), 0, 'f', 1);
}

void NodeTimeline::setCursorTime(double t) {
    if (!cursor_) return;
    const bool show = std::isfinite(t);
    if (!show && !cursor_->visible()) return;
    cursor_->setVisible(show);
    if (show) {
        cursor_->point1->setCoords(t, 0);
        cursor_->point2->setCoords(t, 1);
    }
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

bool NodeTimeline::cursorVisible() const { return cursor_ && cursor_->visible(); }

void NodeTimeline::appendMetrics(const std::vector<AggregationRecord>& records) {
    std::vector<const AggregationRecord*> rounds;
    for (const auto& r : records)
        if (r.level == 0) rounds.push_back(&r);
    if (rounds.empty()) return;
    // Batches may hold many rounds: attribute each end of work to the first round end at or
    // after it. Stable: at equal times the update that ended the round was emitted first,
    // before the jobs the barrier cut short.
    std::stable_sort(pendingEnds_.begin(), pendingEnds_.end(),
                     [](const WorkEnd& a, const WorkEnd& b) { return a.time < b.time; });
    std::size_t next = 0;
    const double top = std::max<double>(1, names_.size()) - 0.5;
    for (const AggregationRecord* r : rounds) {
        Barrier b{r->round, r->time, -1};
        double best = -1.0;
        for (; next < pendingEnds_.size() && pendingEnds_[next].time <= r->time + kTieSeconds; ++next)
            if (pendingEnds_[next].time > best + kTieSeconds) {
                best = pendingEnds_[next].time;
                b.holder = pendingEnds_[next].node;
            }
        barriers_.push_back(b);
        lastBarrier_ = r->time;
        barrierLines_->addData(b.time, -0.5);
        barrierLines_->addData(b.time, top);
        barrierLines_->addData(b.time, qQNaN()); // a gap to the next line
        if (b.holder >= 0) holders_->addData(b.time, b.holder);
        until_ = std::max(until_, r->time);
    }
    pendingEnds_.erase(pendingEnds_.begin(), pendingEnds_.begin() + static_cast<long>(next));
    updateTotals(); // the bound hint waits for the second round
    schedule();
}

bool NodeTimeline::showStoredRun(const RunStore& store, std::int64_t runId) {
    RunInfo info;
    if (!store.run(runId)) {
        reset(info);
        return false;
    }
    info.nodes = store.nodes(runId);
    reset(info);
    appendIntervals(store.intervals(runId)); // in emission order, which the attribution needs
    appendMetrics(store.metrics(runId));
    return true;
}

NodeState NodeTimeline::stateAt(int node, double t) const {
    if (node < 0 || node >= nodeCount() || span_ <= 0 || t < 0 || t > span_) return NodeState::Idle;
    const int b = std::min(kBins - 1, static_cast<int>(t / span_ * kBins));
    const std::uint8_t c = cells_[static_cast<std::size_t>(node) * kBins + b];
    return c == 0 ? NodeState::Idle : static_cast<NodeState>(c - 1);
}

void NodeTimeline::scrollToRow(int row) { scroll_->setValue(row); }

void NodeTimeline::paint(const NodeInterval& iv) {
    if (iv.node < 0 || iv.node >= nodeCount() || iv.to <= iv.from || iv.state == NodeState::Idle || span_ <= 0) return;
    // Any activity in a bin outranks idle; later intervals paint over earlier ones.
    int b0 = static_cast<int>(std::floor(iv.from / span_ * kBins));
    int b1 = static_cast<int>(std::ceil(iv.to / span_ * kBins));
    b0 = std::clamp(b0, 0, kBins - 1);
    b1 = std::clamp(b1, b0 + 1, kBins);
    std::uint8_t* row = cells_.data() + static_cast<std::size_t>(iv.node) * kBins;
    std::fill(row + b0, row + b1, static_cast<std::uint8_t>(static_cast<int>(iv.state) + 1));
}

void NodeTimeline::grow(double until) {
    if (until <= span_) return;
    if (span_ <= 0) {
        span_ = std::max(until * 1.5, 1e-6);
        return;
    }
    // Double the covered span, merging bin pairs (activity outranks idle, later wins), so a
    // long run costs a few cheap rebinnings and no interval needs keeping.
    while (span_ < until) {
        span_ *= 2;
        for (std::size_t r = 0; r < names_.size(); ++r) {
            std::uint8_t* row = cells_.data() + r * kBins;
            for (int b = 0; b < kBins / 2; ++b) row[b] = row[2 * b + 1] ? row[2 * b + 1] : row[2 * b];
            std::fill(row + kBins / 2, row + kBins, 0);
        }
    }
    mapDirty_ = true;
}

void NodeTimeline::fillMap() {
    mapDirty_ = false;
    const int rows = std::max(1, visible_);
    map_->data()->setSize(kBins, rows);
    const double span = span_ > 0 ? span_ : 1.0;
    const double half = span / (2.0 * kBins);
    map_->data()->setRange(QCPRange(half, span - half), QCPRange(first_, first_ + rows - 1));
    for (int r = 0; r < rows; ++r) {
        const int node = first_ + r;
        if (node >= nodeCount()) {
            for (int b = 0; b < kBins; ++b) map_->data()->setCell(b, r, 0);
            continue;
        }
        const std::uint8_t* row = cells_.data() + static_cast<std::size_t>(node) * kBins;
        for (int b = 0; b < kBins; ++b) map_->data()->setCell(b, r, row[b] == 0 ? 0.0 : row[b] - 1.0);
    }
}

void NodeTimeline::updateRows() {
    const int n = nodeCount();
    const int px = std::max(kRowPixels, plot_->axisRect()->height() > 0 ? plot_->axisRect()->height() : height() - 60);
    visible_ = std::clamp(px / kRowPixels, 1, std::max(1, n));
    first_ = std::clamp(first_, 0, std::max(0, n - visible_));
    const QSignalBlocker block(scroll_);
    scroll_->setRange(0, std::max(0, n - visible_));
    scroll_->setPageStep(visible_);
    scroll_->setValue(first_);
    scroll_->setVisible(n > visible_);
    plot_->yAxis->setRange(first_ - 0.5, first_ + visible_ - 0.5);
    auto ticker = QSharedPointer<QCPAxisTickerText>(new QCPAxisTickerText);
    for (int r = first_; r < std::min(n, first_ + visible_); ++r) ticker->addTick(r, names_[r]);
    plot_->yAxis->setTicker(ticker);
    mapDirty_ = true;
}

void NodeTimeline::updateXRange() {
    if (followX_) plot_->xAxis->setRange(0, until_ > 0 ? until_ * 1.02 : 1.0);
}

void NodeTimeline::schedule() {
    if (!refresh_->isActive()) refresh_->start();
}

void NodeTimeline::flush() {
    if (mapDirty_) fillMap();
    updateXRange();
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

void NodeTimeline::fitLegend() {
    // As many legend columns as the plot is wide enough for: at 1280x720 the eight in one
    // row were cut at the right edge.
    QCPLegend* legend = plot_->legend;
    int widest = 0;
    for (int i = 0; i < legend->itemCount(); ++i)
        if (legend->item(i)) widest = std::max(widest, legend->item(i)->minimumOuterSizeHint().width());
    if (widest <= 0) return;
    const int room = plot_->width() - legend->margins().left() - legend->margins().right() - 12;
    const int columns = std::clamp(room / (widest + legend->columnSpacing()), 1, 8);
    if (legend->wrap() == columns) return;
    legend->setWrap(columns);
    legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

void NodeTimeline::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    // The axis rect's height is known after the next layout pass.
    QTimer::singleShot(0, this, [this] {
        fitLegend();
        const int before = visible_;
        updateRows();
        if (before != visible_) schedule();
    });
}

bool NodeTimeline::eventFilter(QObject* watched, QEvent* event) {
    if (watched == plot_) {
        switch (event->type()) {
        case QEvent::Wheel: {
            auto* w = static_cast<QWheelEvent*>(event);
            if (w->modifiers() & Qt::ControlModifier) {
                followX_ = false;
                break; // QCustomPlot zooms the time axis
            }
            scroll_->setValue(scroll_->value() - w->angleDelta().y() / 40);
            return true;
        }
        case QEvent::MouseMove:
            if (static_cast<QMouseEvent*>(event)->buttons() != Qt::NoButton) followX_ = false;
            break;
        case QEvent::MouseButtonDblClick:
            followX_ = true;
            schedule();
            return true;
        case QEvent::Leave:
            if (cursorVisible()) {
                setCursorTime(kNaN);
                Q_EMIT cursorMoved(kNaN);
            }
            break;
        case QEvent::ToolTip: {
            // Read-out under the mouse: node, virtual time, state, and the round it is in.
            auto* help = static_cast<QHelpEvent*>(event);
            const int node = static_cast<int>(std::lround(plot_->yAxis->pixelToCoord(help->pos().y())));
            const double t = plot_->xAxis->pixelToCoord(help->pos().x());
            if (node < 0 || node >= nodeCount() || t < 0 || t > until_) {
                QToolTip::showText(help->globalPos(), plot_->toolTip(), plot_);
                return true;
            }
            auto it = std::lower_bound(barriers_.begin(), barriers_.end(), t,
                                       [](const Barrier& b, double v) { return b.time < v; });
            QString text = tr("%1 at %2 s: %3").arg(names_[node]).arg(t, 0, 'f', 3).arg(toString(stateAt(node, t)));
            text += tr("\nin all: computing %1 s, receiving %2 s, sending %3 s, offline %4 s")
                        .arg(totalSeconds(node, NodeState::Computing), 0, 'f', 2)
                        .arg(totalSeconds(node, NodeState::Receiving), 0, 'f', 2)
                        .arg(totalSeconds(node, NodeState::Sending), 0, 'f', 2)
                        .arg(totalSeconds(node, NodeState::Offline), 0, 'f', 2);
            if (it != barriers_.end()) {
                text += tr("\nround %1 ends at %2 s").arg(it->round).arg(it->time, 0, 'f', 3);
                if (it->holder >= 0) text += tr(", last arrival: %1").arg(names_[it->holder]);
            }
            QToolTip::showText(help->globalPos(), text, plot_);
            return true;
        }
        default: break;
        }
    }
    return QWidget::eventFilter(watched, event);
}

} // namespace fog
