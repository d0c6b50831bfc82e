#include "widgets/plots/link_plot.h"

#include "core/analysis/link_throughput.h"
#include "core/store/run_store.h"
#include "widgets/figures/qcustomplot.h"
#include "widgets/figures/run_plots.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QMouseEvent>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace fog {

namespace {

constexpr double kMbit = 1e6 / 8.0; // bytes per second in one Mbit/s

QString bytesText(double b) {
    if (b >= 1e9) return QString("%1 GB").arg(b / 1e9, 0, 'f', 2);
    if (b >= 1e6) return QString("%1 MB").arg(b / 1e6, 0, 'f', 1);
    if (b >= 1e3) return QString("%1 kB").arg(b / 1e3, 0, 'f', 1);
    return QString("%1 B").arg(b, 0, 'f', 0);
}

} // namespace

LinkThroughputPlot::LinkThroughputPlot(QWidget* parent) : QWidget(parent) {
    list_ = new QListWidget(this);
    list_->setToolTip(tr("Links and network interfaces, busiest first: tick those to plot"));
    list_->setMaximumWidth(260);
    list_->setMinimumWidth(140);
    summary_ = new QLabel(this);
    summary_->setWordWrap(true);
    plot_ = new QCustomPlot(this);
    plot_->setMinimumSize(200, 100);
    plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    plot_->axisRect()->setRangeDrag(Qt::Horizontal);
    plot_->axisRect()->setRangeZoom(Qt::Horizontal);
    plot_->setToolTip(tr("Drag to pan, wheel to zoom time, double-click to fit"));
    plot_->installEventFilter(this);
    plot_->setMouseTracking(true);
    auto* right = new QVBoxLayout;
    right->setContentsMargins(0, 0, 0, 0);
    right->addWidget(summary_);
    right->addWidget(plot_, 1);
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(list_);
    layout->addLayout(right, 1);

    refresh_ = new QTimer(this);
    refresh_->setSingleShot(true);
    refresh_->setInterval(200); // spans come by the thousand: a few redraws a second
    connect(refresh_, &QTimer::timeout, this, &LinkThroughputPlot::flush);
    connect(list_, &QListWidget::itemChanged, this, [this](QListWidgetItem*) {
        userPicked_ = true;
        shown_.clear();
        for (int i = 0; i < list_->count(); ++i)
            if (list_->item(i)->checkState() == Qt::Checked) shown_.push_back(list_->item(i)->data(Qt::UserRole).toInt());
        redraw();
    });
    connect(plot_, &QCustomPlot::mouseMove, this, [this](QMouseEvent* e) {
        if (spans_.empty()) return;
        const double t = plot_->xAxis->pixelToCoord(e->pos().x());
        setCursorTime(t);
        Q_EMIT cursorMoved(t);
    });
    // Zoomed or panned: rebin over what is visible.
    connect(plot_->xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this, [this] {
        if (!followX_) schedule();
    });
    reset(RunInfo{});
}

LinkThroughputPlot::~LinkThroughputPlot() = default;

void LinkThroughputPlot::reset(const RunInfo& info) {
    links_ = info.links;
    spans_.clear();
    bytes_.assign(links_.size(), 0.0);
    shown_.clear();
    userPicked_ = false;
    followX_ = true;
    until_ = 0.0;
    cursorOn_ = false;
    listDirty_ = true;
    flush();
}

void LinkThroughputPlot::appendUsage(const std::vector<LinkUsage>& spans) {
    if (spans.empty()) return;
    for (const auto& s : spans) {
        if (s.link < 0) continue;
        if (s.link >= static_cast<int>(bytes_.size())) bytes_.resize(static_cast<std::size_t>(s.link) + 1, 0.0);
        if (s.to > s.from && std::isfinite(s.bytesPerS)) bytes_[s.link] += s.bytesPerS * (s.to - s.from);
        until_ = std::max(until_, s.to);
    }
    spans_.insert(spans_.end(), spans.begin(), spans.end());
    listDirty_ = true;
    schedule();
}

bool LinkThroughputPlot::showStoredRun(const RunStore& store, std::int64_t runId) {
    RunInfo info;
    if (!store.run(runId)) {
        reset(info);
        return false;
    }
    info.links = store.links(runId);
    reset(info);
    appendUsage(store.linkUsage(runId));
    flush();
    return true;
}

QString LinkThroughputPlot::linkName(int link) const {
    if (link >= 0 && link < static_cast<int>(links_.size()) && !links_[link].id.empty())
        return QString::fromStdString(links_[link].id);
    return tr("link %1").arg(link);
}

std::vector<int> LinkThroughputPlot::listedLinks() const {
    std::vector<int> out;
    for (int i = 0; i < list_->count(); ++i) out.push_back(list_->item(i)->data(Qt::UserRole).toInt());
    return out;
}

std::vector<int> LinkThroughputPlot::shownLinks() const { return shown_; }

void LinkThroughputPlot::setShownLinks(const std::vector<int>& links) {
    userPicked_ = true;
    shown_ = links;
    rebuildList();
    redraw();
}

QString LinkThroughputPlot::emptyText() const { return empty_ && empty_->visible() ? empty_->text() : QString(); }

void LinkThroughputPlot::schedule() {
    if (!refresh_->isActive()) refresh_->start();
}

void LinkThroughputPlot::flush() {
    if (listDirty_) {
        listDirty_ = false;
        if (!userPicked_) {
            // The busiest few that carried anything.
            shown_.clear();
            for (int l : linksByTraffic(spans_, static_cast<int>(bytes_.size())))
                if (static_cast<int>(shown_.size()) < kDefaultShown && bytes_[l] > 0) shown_.push_back(l);
        }
        rebuildList();
    }
    redraw();
}

void LinkThroughputPlot::rebuildList() {
    const QSignalBlocker block(list_);
    list_->clear();
    std::vector<int> order(bytes_.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
    std::stable_sort(order.begin(), order.end(), [this](int a, int b) { return bytes_[a] > bytes_[b]; });
    for (int l : order) {
        auto* item = new QListWidgetItem(tr("%1: %2").arg(linkName(l), bytesText(bytes_[l])), list_);
        QString tip = tr("%1 carried %2").arg(linkName(l), bytesText(bytes_[l]));
        if (l < static_cast<int>(links_.size())) {
            const LinkInfo& info = links_[l];
            if (info.capacityBytesPerS > 0) tip += tr("\ncapacity %1 Mbit/s").arg(info.capacityBytesPerS / kMbit, 0, 'g', 4);
            if (!info.kind.empty()) tip += tr("\nkind: %1").arg(QString::fromStdString(info.kind));
            if (info.members > 1) tip += tr("\nshared by %1 nodes").arg(info.members);
        }
        item->setToolTip(tip);
        item->setData(Qt::UserRole, l);
        item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
        item->setCheckState(std::find(shown_.begin(), shown_.end(), l) != shown_.end() ? Qt::Checked : Qt::Unchecked);
    }
}

void LinkThroughputPlot::redraw() {
    plot_->clearPlottables();
    plot_->clearItems();
    cursor_ = nullptr;
    cursorLabel_ = nullptr;
    styleAxes(plot_);
    plot_->xAxis->setLabel(tr("virtual time (s)"));
    plot_->yAxis->setLabel(tr("throughput (Mbit/s)"));
    empty_ = new QCPItemText(plot_);
    empty_->position->setType(QCPItemPosition::ptAxisRectRatio);
    empty_->position->setCoords(0.5, 0.5);
    empty_->setColor(palette().color(QPalette::WindowText));
    empty_->setVisible(false);

    double total = 0.0;
    for (double b : bytes_) total += b;
    if (links_.empty() && spans_.empty()) {
        empty_->setText(tr("No link usage: this run's network has no contention\n"
                           "(topology.contention off, or no links), so transfers share nothing."));
        empty_->setVisible(true);
        summary_->setText(tr("Per-link throughput needs a run with network contention."));
    } else if (spans_.empty()) {
        empty_->setText(tr("No traffic yet"));
        empty_->setVisible(true);
        summary_->setText(tr("%n link(s) and interface(s), no traffic yet", "", static_cast<int>(links_.size())));
    } else {
        summary_->setText(tr("%1 moved over %n link(s) and interface(s) in %2 s of virtual time; %3 shown",
                             "", static_cast<int>(bytes_.size()))
                              .arg(bytesText(total))
                              .arg(until_, 0, 'f', 1)
                              .arg(shown_.size()));
    }
    double t0 = 0.0, t1 = until_ > 0 ? until_ : 1.0;
    if (!followX_) {
        t0 = std::max(0.0, plot_->xAxis->range().lower);
        t1 = std::max(t0 + 1e-9, plot_->xAxis->range().upper);
    }
    const int bins = std::clamp(plot_->axisRect()->width() / 2, 50, 600);
    const auto rates = binnedThroughput(spans_, shown_, t0, t1, bins);
    const double width = (t1 - t0) / bins;
    for (std::size_t k = 0; k < shown_.size(); ++k) {
        QCPGraph* g = plot_->addGraph();
        g->setName(linkName(shown_[k]));
        g->setPen(QPen(seriesColor(static_cast<int>(k)), 1.8));
        g->setLineStyle(QCPGraph::lsStepLeft);
        QVector<double> xs, ys;
        xs.reserve(bins + 1);
        ys.reserve(bins + 1);
        for (int b = 0; b < bins; ++b) {
            xs.push_back(t0 + b * width);
            ys.push_back(rates[k][b] / kMbit);
        }
        xs.push_back(t1);
        ys.push_back(rates[k].empty() ? 0.0 : rates[k].back() / kMbit);
        g->setData(xs, ys, true);
        g->setProperty("link", shown_[k]);
    }
    plot_->legend->setVisible(!shown_.empty());
    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    plot_->legend->setFont(small);
    QColor base = palette().color(QPalette::Base);
    base.setAlpha(215);
    plot_->legend->setBrush(base);
    {
        const QSignalBlocker block(plot_->xAxis);
        if (followX_) plot_->xAxis->setRange(0, t1);
    }
    bool found = false;
    double top = 0.0;
    for (int i = 0; i < plot_->graphCount(); ++i) {
        bool f = false;
        const QCPRange r = plot_->graph(i)->getValueRange(f);
        if (f) top = std::max(top, r.upper);
        found = found || f;
    }
    plot_->yAxis->setRange(0, found && top > 0 ? top * 1.25 : 1.0); // room for the legend
    placeCursor();
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

void LinkThroughputPlot::placeCursor() {
    if (!cursor_) {
        cursor_ = new QCPItemStraightLine(plot_);
        QColor fg = palette().color(QPalette::WindowText);
        fg.setAlpha(140);
        cursor_->setPen(QPen(fg, 1, Qt::DotLine));
        cursorLabel_ = new QCPItemText(plot_);
        cursorLabel_->position->setTypeX(QCPItemPosition::ptPlotCoords);
        cursorLabel_->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
        cursorLabel_->setPadding(QMargins(5, 3, 5, 3));
        cursorLabel_->setBrush(palette().color(QPalette::ToolTipBase));
        cursorLabel_->setColor(palette().color(QPalette::ToolTipText));
        cursorLabel_->setPen(QPen(palette().color(QPalette::Mid)));
        cursorLabel_->setTextAlignment(Qt::AlignLeft);
    }
    const bool show = cursorOn_ && !spans_.empty();
    cursor_->setVisible(show);
    cursorLabel_->setVisible(show);
    if (!show) return;
    cursor_->point1->setCoords(cursorTime_, 0);
    cursor_->point2->setCoords(cursorTime_, 1);
    QStringList lines;
    lines << tr("t = %1 s").arg(cursorTime_, 0, 'f', 2);
    for (int i = 0; i < plot_->graphCount(); ++i) {
        const double v = valueAt(plot_->graph(i), cursorTime_);
        if (!std::isnan(v)) lines << tr("%1: %2 Mbit/s").arg(plot_->graph(i)->name()).arg(v, 0, 'g', 4);
    }
    cursorLabel_->setText(lines.join('\n'));
    cursorLabel_->position->setCoords(cursorTime_, 0.0);
    const bool right = plot_->xAxis->coordToPixel(cursorTime_) < plot_->axisRect()->center().x();
    cursorLabel_->setPositionAlignment((right ? Qt::AlignLeft : Qt::AlignRight) | Qt::AlignTop);
}

void LinkThroughputPlot::setCursorTime(double t) {
    const bool on = std::isfinite(t);
    if (!on && !cursorOn_) return;
    cursorOn_ = on;
    if (on) cursorTime_ = t;
    placeCursor();
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

QString LinkThroughputPlot::cursorText() const {
    return cursorLabel_ && cursorLabel_->visible() ? cursorLabel_->text() : QString();
}

bool LinkThroughputPlot::eventFilter(QObject* watched, QEvent* event) {
    if (watched == plot_) {
        switch (event->type()) {
        case QEvent::Wheel: followX_ = false; break;
        case QEvent::MouseMove:
            if (static_cast<QMouseEvent*>(event)->buttons() != Qt::NoButton) followX_ = false;
            break;
        case QEvent::MouseButtonDblClick:
            followX_ = true;
            redraw();
            return true;
        case QEvent::Leave:
            if (cursorOn_) {
                setCursorTime(kNaN);
                Q_EMIT cursorMoved(kNaN);
            }
            break;
        default: break;
        }
    }
    return QWidget::eventFilter(watched, event);
}

void LinkThroughputPlot::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange && plot_) redraw();
}

} // namespace fog
