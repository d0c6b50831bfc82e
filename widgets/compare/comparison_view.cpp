#include "widgets/common/scroll_page.h"
#include "widgets/common/tool_button.h"
#include "widgets/compare/comparison_view.h"

#include "widgets/figures/learning_plots.h"

#include "core/analysis/analysis.h"

#include "core/analysis/run_labels.h"
#include "core/store/run_store.h"
#include "widgets/compare/cluster_comparison.h"
#include "widgets/compare/run_picker_dialog.h"
#include "widgets/figures/time_markers.h"
#include "widgets/plots/linked_cursor.h"
#include "widgets/figures/qcustomplot.h"
#include "widgets/runs/runs_table_model.h"

#include <QApplication>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFontDatabase>
#include <QBoxLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLineEdit>
#include <QLabel>
#include <QMenu>
#include <QListWidget>
#include <QPainter>
#include <QPlainTextEdit>
#include <QScrollArea>
#include <QSpinBox>
#include <QSplitter>
#include <QStyle>
#include <QTabWidget>
#include <QTableWidget>
#include <QTimer>
#include <QToolButton>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <limits>
#include <map>
#include <cmath>
#include <exception>

namespace fog {

namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }

QIcon swatch(const QColor& c, bool dashed) {
    const qreal dpr = qApp->devicePixelRatio(); // sharp on high-DPI screens
    QPixmap pm(QSize(14, 14) * dpr);
    pm.setDevicePixelRatio(dpr);
    pm.fill(Qt::transparent);
    QPainter p(&pm);
    p.setRenderHint(QPainter::Antialiasing);
    p.setPen(QPen(c.darker(130), 1));
    p.setBrush(dashed ? QBrush(c, Qt::Dense3Pattern) : QBrush(c));
    p.drawRoundedRect(QRectF(1.5, 1.5, 11, 11), 2, 2);
    return QIcon(pm);
}

QCustomPlot* makePlot(QWidget* parent) {
    auto* p = new QCustomPlot(parent);
    p->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    p->setMinimumSize(220, 180);
    p->setToolTip("Drag to pan, wheel to zoom, double-click to fit");
    return p;
}

QWidget* titled(const QString& title, QWidget* w, QWidget* parent) {
    auto* box = new QWidget(parent);
    auto* l = new QVBoxLayout(box);
    l->setContentsMargins(0, 0, 0, 0);
    l->setSpacing(2);
    auto* label = new QLabel("<b>" + title + "</b>", box);
    label->setAlignment(Qt::AlignHCenter);
    label->setObjectName("plotTitle");
    label->setProperty("fogTitle", title);
    l->addWidget(label);
    l->addWidget(w, 1);
    return box;
}

/// Display text of a value of the summary table's column.
QString formatValue(int column, double v) {
    switch (column) {
    case ComparisonView::FinalAccCol:
    case ComparisonView::BestAccCol: return formatAccuracy(v);
    case ComparisonView::RoundsCol: return std::isnan(v) ? QString::fromUtf8("–") : QString::number(v, 'f', 0);
    case ComparisonView::TimeToTargetCol:
    case ComparisonView::TimeCol: return formatSeconds(v);
    case ComparisonView::CostToTargetCol:
    case ComparisonView::CostCol: return formatCost(v);
    case ComparisonView::EnergyToTargetCol:
    case ComparisonView::EnergyCol: return formatEnergy(v);
    }
    return QString::number(v);
}

QString formatMeanCi(int column, const MeanCi& m) {
    if (m.n == 0) return QString::fromUtf8("–");
    if (std::isnan(m.halfWidth)) return formatValue(column, m.mean);
    switch (column) {
    case ComparisonView::FinalAccCol:
    case ComparisonView::BestAccCol:
        return QString::fromUtf8("%1 ± %2 %").arg(100 * m.mean, 0, 'f', 2).arg(100 * m.halfWidth, 0, 'f', 2);
    case ComparisonView::RoundsCol:
        return QString::fromUtf8("%1 ± %2").arg(m.mean, 0, 'f', 1).arg(m.halfWidth, 0, 'f', 1);
    case ComparisonView::TimeToTargetCol:
    case ComparisonView::TimeCol:
        return QString::fromUtf8("%1 ± %2 s").arg(m.mean, 0, 'f', 1).arg(m.halfWidth, 0, 'f', 1);
    case ComparisonView::CostToTargetCol:
    case ComparisonView::CostCol:
        return QString::fromUtf8("%1 ± %2").arg(m.mean, 0, 'f', 4).arg(m.halfWidth, 0, 'f', 4);
    case ComparisonView::EnergyToTargetCol:
    case ComparisonView::EnergyCol: {
        // One unit for both numbers, chosen by the mean.
        const double scale = std::abs(m.mean) >= 1e6 ? 1e6 : std::abs(m.mean) >= 1e3 ? 1e3 : 1;
        const char* unit = scale == 1e6 ? " MJ" : scale == 1e3 ? " kJ" : " J";
        const int decimals = scale == 1 ? 1 : 2; // as formatEnergy
        return QString::fromUtf8("%1 ± %2").arg(m.mean / scale, 0, 'f', decimals).arg(m.halfWidth / scale, 0, 'f', decimals) +
               unit;
    }
    }
    return QString::number(m.mean);
}

} // namespace

ComparisonView::ComparisonView(QWidget* parent) : QWidget(parent) {
    // Tool bar: runs, x axis, target, export.
    addButton_ = makeToolButton(this, QStyle::SP_FileDialogNewFolder, "Add runs...", "Pick runs from the store");
    removeButton_ = makeToolButton(this, QStyle::SP_DialogDiscardButton, "Remove", "Remove the selected run from the comparison");
    xCombo_ = new QComboBox(this);
    xCombo_->addItem("virtual time", int(PlotXAxis::VirtualTime));
    xCombo_->addItem("rounds", int(PlotXAxis::Round));
    xCombo_->setToolTip("x axis of the curves");
    legendButton_ = new QToolButton(this);
    legendButton_->setText("Legend");
    legendButton_->setCheckable(true);
    legendButton_->setChecked(true);
    legendButton_->setAutoRaise(true);
    legendButton_->setToolTip("Show the legend in the accuracy plot (the runs list is the legend of every plot)");
    meanButton_ = new QToolButton(this);
    meanButton_->setObjectName("repeatsMean");
    meanButton_->setText("Mean of repeats");
    meanButton_->setCheckable(true);
    meanButton_->setChecked(true);
    meanButton_->setAutoRaise(true);
    meanButton_->setToolTip("Repeats of one configuration (a sweep's or a lesson's) as one curve: their mean with a "
                            "95% confidence band, one colour per configuration. Off: one curve per run.");
    meanButton_->hide(); // shown when some configuration has repeats
    targetSpin_ = new QDoubleSpinBox(this);
    targetSpin_->setRange(1, 100);
    targetSpin_->setDecimals(1);
    targetSpin_->setSingleStep(1);
    targetSpin_->setSuffix(" %");
    targetSpin_->setValue(80);
    tradeMode_ = new QComboBox(this);
    tradeMode_->addItem("trade-off at the end");
    tradeMode_->addItem("trade-off at the target");
    tradeMode_->setToolTip("Plot each run's total virtual time and cost, or the time and cost it took to reach the "
                           "target accuracy (runs that never reach it are left out)");
    targetSpin_->setToolTip("Target test accuracy for the time, cost and energy columns");
    exportPlots_ = makeToolButton(this, QStyle::SP_DialogSaveButton, "Export plots...",
                                  "Save the comparison's plots (PNG, SVG or PDF; light colours whatever the theme)");
    exportReport_ = makeToolButton(this, QStyle::SP_FileIcon, "Export report...", "Write an HTML or PDF report of these runs");
    smoothSpin_ = new QSpinBox(this);
    smoothSpin_->setRange(1, 50);
    smoothSpin_->setValue(1);
    smoothSpin_->setSuffix(" pt");
    smoothSpin_->setKeyboardTracking(false);
    smoothSpin_->setToolTip("Smoothing: a trailing moving average over this many points; the raw curves stay faint "
                            "behind the smoothed ones (1 = raw only)");
    resetZoom_ = new QToolButton(this);
    resetZoom_->setText("Reset zoom");
    resetZoom_->setAutoRaise(true);
    resetZoom_->setToolTip("Fit every plot to its data again (wheel zooms, dragging pans, double-click fits one)");
    // Two groups that sit in one row when the window is wide enough, else in two rows: a
    // button is never squeezed below its text ("Export...ort...").
    for (QToolButton* b : {addButton_, removeButton_, legendButton_, meanButton_, resetZoom_, exportPlots_, exportReport_})
        b->setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed);
    toolsA_ = new QWidget(this);
    toolsA_->setObjectName("comparisonToolsRuns");
    auto* barA = new QHBoxLayout(toolsA_);
    barA->setContentsMargins(0, 0, 0, 0);
    barA->addWidget(addButton_);
    barA->addWidget(removeButton_);
    barA->addSpacing(12);
    barA->addWidget(new QLabel("x axis:", this));
    barA->addWidget(xCombo_);
    barA->addWidget(legendButton_);
    barA->addWidget(meanButton_);
    barA->addWidget(new QLabel("smooth:", this));
    barA->addWidget(smoothSpin_);
    barA->addWidget(resetZoom_);
    barA->addStretch(1);
    toolsB_ = new QWidget(this);
    toolsB_->setObjectName("comparisonToolsTarget");
    auto* barB = new QHBoxLayout(toolsB_);
    barB->setContentsMargins(0, 0, 0, 0);
    barB->addWidget(new QLabel("target:", this));
    barB->addWidget(targetSpin_);
    barB->addWidget(tradeMode_);
    barB->addStretch(1);
    barB->addWidget(exportPlots_);
    barB->addWidget(exportReport_);
    auto* bar = new QBoxLayout(QBoxLayout::LeftToRight);
    bar->setContentsMargins(0, 0, 0, 0);
    bar->addWidget(toolsA_);
    bar->addWidget(toolsB_, 1);
    toolsBar_ = bar;

    list_ = new QListWidget(this);
    list_->setToolTip("The compared runs; \u2605 marks the pinned baseline (dashed curves)");
    list_->setMinimumWidth(150);

    acc_ = makePlot(this);
    loss_ = makePlot(this);
    cost_ = makePlot(this);
    trade_ = makePlot(this);
    trade_->setToolTip("Click a point to see its run's scenario");
    trade_->setMinimumHeight(140); // with its two-line title, whole in the middle row at 1280x720
    auto* curves = new QSplitter(Qt::Horizontal, this);
    curves->addWidget(titled(plotTitle(PlotKind::TestAccuracy), acc_, this));
    curves->addWidget(titled(plotTitle(PlotKind::TrainLoss), loss_, this));
    // MB per round and epsilon in tabs beside the cost: the row keeps three plots wide enough
    // to read at 1280x720, and a tab shows only when some run has that figure.
    bytes_ = makePlot(this);
    privacy_ = makePlot(this);
    costTabs_ = new QTabWidget(this);
    costTabs_->setObjectName("costTabs");
    costTabs_->setDocumentMode(true);
    costTabs_->addTab(titled(plotTitle(PlotKind::Cost), cost_, this), "Cost");
    costTabs_->addTab(titled("Megabytes per round", bytes_, this), "MB per round");
    costTabs_->addTab(titled(QString::fromUtf8("Privacy spent (ε)"), privacy_, this), QString::fromUtf8("Privacy ε"));
    costTabs_->setTabVisible(1, false);
    costTabs_->setTabVisible(2, false);
    curves->addWidget(costTabs_);

    runInfo_ = new QLabel(this);
    runInfo_->setWordWrap(true);
    runInfo_->setTextFormat(Qt::RichText);
    runInfo_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    runInfo_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    yaml_ = new QPlainTextEdit(this);
    yaml_->setReadOnly(true);
    yaml_->setLineWrapMode(QPlainTextEdit::NoWrap);
    yaml_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    yaml_->setPlaceholderText("The scenario of the selected run");
    auto* side = new QWidget(this);
    auto* sl = new QVBoxLayout(side);
    sl->setContentsMargins(0, 0, 0, 0);
    sl->addWidget(runInfo_);
    sl->addWidget(yaml_, 1);
    auto* middle = new QSplitter(Qt::Horizontal, this);
    QWidget* tradeBox = titled("Trade-off", trade_, this);
    tradeBox_ = tradeBox;
    tradeTitle_ = tradeBox->findChild<QLabel*>();
    tradeTitle_->setWordWrap(true);
    middle->addWidget(tradeBox);
    middle->addWidget(titled("Selected run", side, this));
    middle->setStretchFactor(0, 3);
    middle->setStretchFactor(1, 2);

    table_ = new QTableWidget(0, ColumnCount, this);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->verticalHeader()->hide();
    table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 8);
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->setWordWrap(false);

    paretoNote_ = new QLabel(this);
    paretoNote_->setObjectName("paretoNote");
    paretoNote_->setWordWrap(true);
    auto* tableBox = new QWidget(this);
    auto* tl = new QVBoxLayout(tableBox);
    tl->setContentsMargins(0, 0, 0, 0);
    tl->setSpacing(2);
    tl->addWidget(table_, 1);
    tl->addWidget(paretoNote_);
    tableBox_ = tableBox;

    cluster_ = new ClusterComparison(this);
    cluster_->setVisible(false);
    curvesPane_ = curves;
    auto* right = new QSplitter(Qt::Vertical, this);
    right->addWidget(curves);
    right->addWidget(cluster_);
    right->addWidget(middle);
    right->addWidget(tableBox);
    right->setStretchFactor(0, 3);
    right->setStretchFactor(1, 3);
    right->setStretchFactor(2, 3);
    right->setStretchFactor(3, 3);
    right->setChildrenCollapsible(false);
    // The curves and the trade-off first: the table scrolls (at 1280x720 equal thirds left
    // the trade-off less than its plot and title need, and cut its axis label).
    right->setSizes({380, 0, 340, 200});

    auto* main = new QSplitter(Qt::Horizontal, this);
    main->addWidget(list_);
    main->addWidget(right);
    main->setStretchFactor(0, 0);
    main->setStretchFactor(1, 1);
    main->setSizes({230, 1000});

    // Everything scrolls where the window is smaller than the comparison needs (a projector,
    // a laptop, a large scale factor), rather than widening the window past the screen.
    auto* content = new QWidget(this);
    auto* layout = new QVBoxLayout(content);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(bar);
    layout->addWidget(main, 1);
    content->setMinimumSize(720, 480);
    fillWithScrolling(this, content, "comparisonScroll");

    connect(addButton_, &QToolButton::clicked, this, &ComparisonView::pickRuns);
    connect(removeButton_, &QToolButton::clicked, this, [this] {
        if (selected_) removeRun(selected_);
    });
    connect(xCombo_, &QComboBox::currentIndexChanged, this,
            [this](int i) { setXAxis(static_cast<PlotXAxis>(xCombo_->itemData(i).toInt())); });
    connect(legendButton_, &QToolButton::toggled, this, [this] { redrawCurves(); }); // below the curves, or none
    connect(targetSpin_, &QDoubleSpinBox::valueChanged, this, [this] {
        fillTable();
        showDetails();
        redrawTradeOff(); // its title names the target
    });
    connect(meanButton_, &QToolButton::toggled, this, [this] {
        fillList();
        redrawCurves();
        redrawTradeOff();
        fillTable();
    });
    // The user's choice of trade-off stays; until then it follows the runs (rebuild).
    connect(tradeMode_, &QComboBox::activated, this, [this] { tradeModeAuto_ = false; });
    connect(tradeMode_, &QComboBox::currentIndexChanged, this, [this] {
        redrawTradeOff();
        fillTable(); // the Pareto column follows the trade-off's definition
    });
    connect(exportPlots_, &QToolButton::clicked, this, [this] { Q_EMIT exportPlotsRequested(runIds()); });
    connect(exportReport_, &QToolButton::clicked, this, [this] { Q_EMIT exportReportRequested(runIds()); });
    connect(list_, &QListWidget::currentRowChanged, this, [this](int row) {
        if (row >= 0 && row < static_cast<int>(runs_.size())) selectRun(runs_[static_cast<std::size_t>(row)].run.id);
    });
    list_->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(list_, &QListWidget::customContextMenuRequested, this, [this](const QPoint& pos) {
        QListWidgetItem* item = list_->itemAt(pos);
        if (!item || !store_) return;
        const qint64 id = item->data(Qt::UserRole).toLongLong();
        QMenu menu(this);
        menu.addAction("Rename...", this, [this, id] { renameRun(id); });
        menu.exec(list_->viewport()->mapToGlobal(pos));
    });
    connect(list_, &QListWidget::itemActivated, this,
            [this](QListWidgetItem* item) { Q_EMIT runActivated(item->data(Qt::UserRole).toLongLong()); });
    connect(table_, &QTableWidget::currentCellChanged, this, [this](int row) {
        if (const QTableWidgetItem* item = row >= 0 ? table_->item(row, RunCol) : nullptr) {
            const qint64 id = item->data(IdRole).toLongLong();
            if (id) selectRun(id);
        }
    });
    connect(table_, &QTableWidget::cellDoubleClicked, this, [this](int row) {
        if (const QTableWidgetItem* item = table_->item(row, RunCol))
            if (const qint64 id = item->data(IdRole).toLongLong()) Q_EMIT runActivated(id);
    });

    // The three curve plots share their x range: panning or zooming one moves the others.
    const QList<QCustomPlot*> curvePlots{acc_, loss_, cost_};
    for (QCustomPlot* p : curvePlots) {
        connect(p->xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this, [p, curvePlots](const QCPRange& r) {
            for (QCustomPlot* other : curvePlots)
                if (other != p && other->xAxis->range() != r) {
                    other->xAxis->setRange(r);
                    other->replot(QCustomPlot::rpQueuedReplot);
                }
        });
        connect(p, &QCustomPlot::mouseDoubleClick, this, [this] { redrawCurves(); });
    }
    connect(trade_, &QCustomPlot::mouseDoubleClick, this, [this] { redrawTradeOff(); });
    // One hover cursor over the three curve plots: the same x on all, each curve's value there.
    cursor_ = new PlotCursor(curvePlots, this);
    cursor_->setHeading([this](double key) {
        return x_ == PlotXAxis::Round ? QString("round %1").arg(key, 0, 'g', 6)
                                      : QString("t = %1").arg(formatSeconds(key));
    });
    connect(smoothSpin_, &QSpinBox::valueChanged, this, [this] { redrawCurves(); });
    connect(resetZoom_, &QToolButton::clicked, this, &ComparisonView::resetZoom);
    connect(trade_, &QCustomPlot::mousePress, this, [this](QMouseEvent* e) { pressPos_ = e->position(); });
    connect(trade_, &QCustomPlot::mouseRelease, this, [this](QMouseEvent* e) {
        // A click, not the end of a pan.
        if ((e->position() - pressPos_).manhattanLength() > 4) return;
        if (const qint64 id = runAtPixel(e->position())) selectRun(id);
    });
    connect(trade_, &QCustomPlot::mouseMove, this, [this](QMouseEvent* e) {
        const qint64 id = runAtPixel(e->position());
        const int i = indexOf(id);
        if (i < 0) {
            QToolTip::hideText();
            return;
        }
        const ComparedRun& r = runs_[static_cast<std::size_t>(i)];
        const SummaryValues v = summarize(r, target());
        QToolTip::showText(e->globalPosition().toPoint(),
                           QString("%1\n%2, cost %3, accuracy %4")
                               .arg(labelOf(r), formatSeconds(v.virtualTime), formatCost(v.cost),
                                    formatAccuracy(v.finalAccuracy)),
                           trade_);
    });
    rebuild(false);
}

void ComparisonView::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    arrangeTools();
}

void ComparisonView::arrangeTools() {
    const int need = toolsA_->sizeHint().width() + toolsB_->sizeHint().width() + 24;
    const auto dir = width() >= need ? QBoxLayout::LeftToRight : QBoxLayout::TopToBottom;
    if (toolsBar_->direction() != dir) toolsBar_->setDirection(dir);
}

void ComparisonView::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    // A theme change: plots and the table's muted cells take the new colours.
    // Deferred: the plots inside receive the new palette after this widget (and a hidden
    // comparison restyled with the old one stayed dark after a switch to light).
    if ((event->type() == QEvent::PaletteChange || event->type() == QEvent::ApplicationPaletteChange ||
         event->type() == QEvent::StyleChange) &&
        !restyling_ && !restylePending_) {
        restylePending_ = true;
        QTimer::singleShot(0, this, [this] {
            restylePending_ = false;
            restyling_ = true;
            redrawCurves();
            redrawTradeOff();
            fillTable();
            restyling_ = false;
        });
    }
}

void ComparisonView::setStore(RunStore* store) {
    store_ = store;
    chosen_.clear();
    baseline_ = 0;
    selected_ = 0;
    rebuild(true);
}

QList<qint64> ComparisonView::runIds() const {
    QList<qint64> ids;
    for (const auto& r : runs_) ids.push_back(r.run.id);
    return ids;
}

QColor ComparisonView::colorOf(qint64 id) const {
    const int i = indexOf(id);
    return i < 0 ? QColor() : seriesColor(colorIndex(static_cast<std::size_t>(i)));
}

int ComparisonView::colorIndex(std::size_t run) const {
    return grouped() && run < groupOf_.size() ? groupOf_[run] : static_cast<int>(run);
}

bool ComparisonView::grouped() const {
    if (!meanButton_->isChecked()) return false;
    for (const auto& g : groups_)
        if (g.size() >= 2) return true;
    return false;
}

void ComparisonView::groupRepeats() {
    // Repeats of one configuration: runs of one sweep with the same varied values (a
    // lesson's variant, a sweep's configuration), core/analysis/run_labels.
    std::vector<RunLabelInput> input;
    for (const auto& r : runs_)
        input.push_back({r.run.name, std::string(), r.run.sweepConfig, r.run.repeat, r.run.sweepId});
    groups_ = configurationGroups(input);
    groupOf_.assign(runs_.size(), -1);
    bool repeats = false;
    for (std::size_t g = 0; g < groups_.size(); ++g) {
        for (std::size_t i : groups_[g]) groupOf_[i] = static_cast<int>(g);
        repeats = repeats || groups_[g].size() >= 2;
    }
    meanButton_->setVisible(repeats);
}

QString ComparisonView::groupLabel(int g) const {
    const auto& members = groups_[static_cast<std::size_t>(g)];
    const StoredRun& first = runs_[members.front()].run;
    if (members.size() < 2) return labelOf(runs_[members.front()]);
    return QString("%1 (%2)").arg(qs(shortConfigLabel(first.sweepConfig))).arg(members.size());
}

double ComparisonView::target() const { return targetSpin_->value() / 100.0; }

QCustomPlot* ComparisonView::curvePlot(PlotKind kind) const {
    switch (kind) {
    case PlotKind::TestAccuracy: return acc_;
    case PlotKind::TrainLoss: return loss_;
    case PlotKind::Cost: return cost_;
    default: return nullptr;
    }
}

QList<QPair<QString, QCustomPlot*>> ComparisonView::plots() const {
    QList<QPair<QString, QCustomPlot*>> out;
    if (anyTraining_) out = {{"accuracy", acc_}, {"train_loss", loss_}, {"cost", cost_}, {"tradeoff", trade_}};
    if (anyTraining_ && hasBytes_) out += {{"bytes_per_round", bytes_}};
    if (anyTraining_ && hasPrivacy_) out += {{"privacy", privacy_}};
    if (anyCluster_) out += {{"completion_cdf", cluster_->cdfPlot()}, {"completion_by_scheduler", cluster_->groupPlot()}};
    return out;
}

void ComparisonView::loadClusterRuns() {
    // Cluster runs (tag "cluster") have no training metrics: their completion times come from
    // the cluster tables and are compared in a pane of their own.
    std::vector<std::int64_t> ids;
    std::vector<std::string> scenarios;
    for (const auto& r : runs_)
        if (std::find(r.run.tags.begin(), r.run.tags.end(), "cluster") != r.run.tags.end()) {
            ids.push_back(r.run.id);
            const auto cut = r.run.name.rfind(" / ");
            scenarios.push_back(cut == std::string::npos ? r.run.name : r.run.name.substr(0, cut));
        }
    std::vector<cluster::ComparedClusterRun> loaded;
    if (store_ && !ids.empty()) {
        try {
            loaded = cluster::loadClusterRuns(store_->path(), ids, scenarios);
        } catch (const std::exception& e) {
            runInfo_->setText("<span style='color:#d55e00'>" + QString("Cannot read the cluster runs: %1").arg(e.what()).toHtmlEscaped() + "</span>");
        }
    }
    std::vector<QString> labels;
    std::vector<QColor> colors;
    for (const auto& c : loaded) {
        // What tells cluster runs apart: the scheduler and the seed.
        const int i = indexOf(c.runId);
        labels.push_back(QString("#%1 %2, seed %3")
                             .arg(c.runId)
                             .arg(QString::fromStdString(c.data.result.summary.scheduler))
                             .arg(c.data.result.summary.seed));
        colors.push_back(seriesColor(i < 0 ? 0 : colorIndex(static_cast<std::size_t>(i))));
    }
    anyCluster_ = !loaded.empty();
    anyTraining_ = runs_.empty() || static_cast<std::size_t>(ids.size()) < runs_.size();
    cluster_->setRuns(std::move(loaded), labels, colors);
    cluster_->setVisible(anyCluster_);
    // Training figures (curves, trade-off, time-to-accuracy table) mean nothing for cluster runs.
    curvesPane_->setVisible(anyTraining_);
    tradeBox_->setVisible(anyTraining_);
    tableBox_->setVisible(anyTraining_);
}

QString ComparisonView::scenarioText() const { return yaml_->toPlainText(); }

QString ComparisonView::selectedSummaryText() const { return runInfo_->text(); }

void ComparisonView::setRuns(const QList<qint64>& ids) {
    chosen_.clear();
    for (qint64 id : ids)
        if (id && !chosen_.contains(id)) chosen_.push_back(id);
    rebuild(false);
}

void ComparisonView::addRuns(const QList<qint64>& ids) {
    QList<qint64> all = chosen_;
    for (qint64 id : ids)
        if (id && !all.contains(id)) all.push_back(id);
    chosen_ = all;
    rebuild(false);
    if (!ids.isEmpty()) selectRun(ids.last());
}

void ComparisonView::removeRun(qint64 id) {
    if (id == baseline_) return; // unpinned from the runs dock, not here
    chosen_.removeAll(id);
    rebuild(false);
}

void ComparisonView::setBaseline(qint64 id) {
    if (id == baseline_) return;
    baseline_ = id;
    rebuild(false);
}

void ComparisonView::setTarget(double accuracy) { targetSpin_->setValue(accuracy * 100.0); }

void ComparisonView::setTradeOffAtTarget(bool atTarget) {
    tradeModeAuto_ = false; // chosen: no longer follows the runs
    tradeMode_->setCurrentIndex(atTarget ? 1 : 0);
}

void ComparisonView::setXAxis(PlotXAxis x) {
    const int i = xCombo_->findData(int(x));
    if (i >= 0 && i != xCombo_->currentIndex()) xCombo_->setCurrentIndex(i); // comes back here
    if (x_ == x) return;
    x_ = x;
    redrawCurves();
}

void ComparisonView::setLegendVisible(bool on) { legendButton_->setChecked(on); }

int ComparisonView::smoothing() const { return smoothSpin_->value(); }

void ComparisonView::setSmoothing(int window) { smoothSpin_->setValue(window); }

void ComparisonView::resetZoom() {
    redrawCurves(); // draws every curve plot fitted to all the runs
    redrawTradeOff();
}

bool ComparisonView::legendVisible() const { return legendButton_->isChecked(); }

TradeOffMode ComparisonView::tradeOffMode() const {
    return tradeMode_->currentIndex() == 1 ? TradeOffMode::AtTarget : TradeOffMode::AtEnd;
}

std::vector<RunFigures> ComparisonView::figures() const {
    std::vector<RunFigures> out;
    for (const auto& r : runs_) out.push_back(runFigures(r.run.summary, r.run.status, r.metrics, target()));
    return out;
}

QString ComparisonView::runLabel(qint64 id) const {
    const int i = indexOf(id);
    return i < 0 ? QString() : labelOf(runs_[static_cast<std::size_t>(i)]);
}

void ComparisonView::renameRun(qint64 id) {
    const int i = indexOf(id);
    if (i < 0 || !store_) return;
    bool ok = false;
    const QString current = labels_.size() > static_cast<std::size_t>(i) ? labels_[static_cast<std::size_t>(i)] : QString();
    const QString name = QInputDialog::getText(this, "Rename run", QString("Name of run %1 (empty: automatic label):").arg(id),
                                               QLineEdit::Normal, current, &ok);
    if (!ok) return;
    try {
        // An empty name gives the run its scenario's name back, so the automatic label returns.
        std::string stored = name.trimmed().toStdString();
        if (stored.empty()) {
            stored = scenarioNameOf(runs_[static_cast<std::size_t>(i)].run.scenarioYaml);
            if (stored.empty()) stored = runs_[static_cast<std::size_t>(i)].run.name;
        }
        store_->rename(id, stored);
    } catch (const std::exception& e) {
        runInfo_->setText("<span style='color:#d55e00'>" + QString::fromUtf8(e.what()).toHtmlEscaped() + "</span>");
        return;
    }
    rebuild(true);
}

void ComparisonView::reload() { rebuild(true); }

void ComparisonView::runsDeleted(const QList<qint64>& ids) {
    for (qint64 id : ids) {
        chosen_.removeAll(id);
        if (id == baseline_) baseline_ = 0;
    }
    rebuild(false);
}

void ComparisonView::pickRuns() {
    if (!store_) return;
    const QList<qint64> ids = RunPickerDialog::pick(store_, this);
    if (!ids.isEmpty()) addRuns(ids);
}

int ComparisonView::indexOf(qint64 id) const {
    for (std::size_t i = 0; i < runs_.size(); ++i)
        if (runs_[i].run.id == id) return static_cast<int>(i);
    return -1;
}

QString ComparisonView::labelOf(const ComparedRun& r) const {
    // Runs of one preset share its name: what tells them apart is what differs between
    // them (or a name the user gave), worked out for the whole set in rebuild().
    const int i = indexOf(r.run.id);
    QString text = i >= 0 && static_cast<std::size_t>(i) < labels_.size() ? labels_[static_cast<std::size_t>(i)]
                                                                           : qs(r.run.name);
    // Long labels lose their middle, not their end (a sweep run's repeat, "… r2").
    if (text.size() > 40) text = text.left(28) + QString::fromUtf8("…") + text.right(11);
    QString label = QString("#%1 %2").arg(r.run.id).arg(text);
    if (r.run.id == baseline_) label = QString::fromUtf8("★ ") + label;
    return label;
}

void ComparisonView::rebuild(bool reloadAll) {
    QList<qint64> ids;
    if (baseline_) ids.push_back(baseline_);
    for (qint64 id : chosen_)
        if (id != baseline_) ids.push_back(id);
    std::vector<ComparedRun> next;
    QString problem;
    for (qint64 id : ids) {
        const int old = indexOf(id);
        if (!reloadAll && old >= 0) {
            next.push_back(std::move(runs_[static_cast<std::size_t>(old)]));
            continue;
        }
        if (!store_) continue;
        try {
            auto r = store_->run(id);
            if (!r) continue; // deleted meanwhile
            next.push_back({std::move(*r), store_->metrics(id)});
        } catch (const std::exception& e) {
            problem = QString("Cannot read run %1: %2").arg(id).arg(e.what());
        }
    }
    runs_ = std::move(next);
    std::vector<RunLabelInput> labelInput;
    for (const auto& r : runs_) labelInput.push_back({r.run.name, r.run.scenarioYaml, r.run.sweepConfig, r.run.repeat, r.run.sweepId});
    labels_.clear();
    for (const auto& l : runLabels(labelInput)) labels_.push_back(qs(l));
    // Forget runs that are gone, so the lists stay truthful.
    chosen_.erase(std::remove_if(chosen_.begin(), chosen_.end(), [this](qint64 id) { return indexOf(id) < 0; }),
                  chosen_.end());
    if (baseline_ && indexOf(baseline_) < 0) baseline_ = 0;
    if (indexOf(selected_) < 0) selected_ = runs_.empty() ? 0 : runs_.front().run.id;
    groupRepeats();
    // Runs that all stopped at one time limit make a degenerate time-cost scatter of totals:
    // until the user chooses, it compares what they took to reach the target.
    if (tradeModeAuto_ && runs_.size() >= 3) {
        std::vector<double> ends;
        for (const auto& r : runs_) ends.push_back(r.run.summary.virtualTime);
        const QSignalBlocker block(tradeMode_);
        tradeMode_->setCurrentIndex(defaultTradeOffMode(ends, 3) == TradeOffMode::AtTarget ? 1 : 0);
    }
    fillList();
    redrawCurves();
    redrawTradeOff();
    fillTable();
    showDetails();
    loadClusterRuns();
    if (!problem.isEmpty()) runInfo_->setText("<span style='color:#d55e00'>" + problem.toHtmlEscaped() + "</span>");
    updateButtons();
    Q_EMIT runsChanged(runIds());
}

void ComparisonView::fillList() {
    const QSignalBlocker block(list_);
    list_->clear();
    for (std::size_t i = 0; i < runs_.size(); ++i) {
        const ComparedRun& r = runs_[i];
        auto* item = new QListWidgetItem(swatch(seriesColor(colorIndex(i)), r.run.id == baseline_), labelOf(r), list_);
        item->setData(Qt::UserRole, QVariant::fromValue<qint64>(r.run.id));
        item->setToolTip(QString("%1\n%2 · %3 rounds · accuracy %4")
                             .arg(qs(r.run.name), qs(r.run.status))
                             .arg(r.run.summary.rounds)
                             .arg(formatAccuracy(summarize(r, target()).finalAccuracy)));
        if (r.run.id == baseline_) {
            QFont f = item->font();
            f.setBold(true);
            item->setFont(f);
        }
        if (r.run.id == selected_) list_->setCurrentItem(item);
    }
    if (runs_.empty()) {
        auto* hint = new QListWidgetItem("Select runs in the runs dock and choose Compare, or use Add runs.", list_);
        hint->setFlags(Qt::NoItemFlags);
        list_->setWordWrap(true);
    }
}

void ComparisonView::drawForkMarkers() {
    std::vector<std::int64_t> ids;
    for (const auto& r : runs_) ids.push_back(r.run.id);
    for (const TimeMarker& m : forkMarkers(*store_, ids)) {
        // The branching point on the axis shown: the time, or the fork's round reached then.
        double key = m.time;
        if (x_ != PlotXAxis::VirtualTime) {
            key = std::nan("");
            for (const auto& r : runs_)
                if (r.run.id == m.run)
                    for (const auto& a : r.metrics)
                        if (a.level == 0 && a.time <= m.time) key = x_ == PlotXAxis::Round ? a.round : a.wallSeconds;
        }
        const QColor c = colorOf(m.run);
        for (PlotKind kind : {PlotKind::TestAccuracy, PlotKind::TrainLoss, PlotKind::Cost})
            addTimeMarker(curvePlot(kind), key, kind == PlotKind::TestAccuracy ? m.label : QString(), c);
    }
}

void ComparisonView::drawGroupedCurves(QCustomPlot* p, PlotKind kind, const PlotOptions& o) {
    // Each configuration: the mean of its repeats inside its 95% confidence band (Student t
    // over the repeats, widgets/figures/run_plots.h); a configuration of one run is its curve.
    std::vector<PlotGroup> groups;
    for (std::size_t g = 0; g < groups_.size(); ++g) {
        PlotGroup group{groupLabel(static_cast<int>(g)), seriesColor(static_cast<int>(g)), {},
                        seriesPenStyle(static_cast<int>(g))};
        for (std::size_t i : groups_[g]) group.runs.push_back(runs_[i].metrics);
        groups.push_back(std::move(group));
    }
    plotGroupedMetric(p, groups, kind, o);
}

void ComparisonView::redrawLearning() {
    std::vector<PlotSeries> series;
    std::vector<PrivacySeries> privacy;
    for (std::size_t i = 0; i < runs_.size(); ++i) {
        const QColor c = seriesColor(colorIndex(i));
        series.push_back({labelOf(runs_[i]), c, runs_[i].metrics});
        if (!store_) continue;
        PrivacySeries p{labelOf(runs_[i]), c, {}, kNaN};
        try {
            p.epsilons = privacyCurve(store_->events(runs_[i].run.id), &p.delta);
        } catch (const std::exception&) {
            // A store without events (or a damaged one): no privacy curve for this run.
        }
        if (!p.epsilons.empty()) privacy.push_back(p);
    }
    PlotOptions o;
    o.x = x_;
    o.legend = false; // the runs list is the legend, as for the other plots
    hasBytes_ = anyBytes(series);
    hasPrivacy_ = !privacy.empty();
    plotBytesPerRound(bytes_, series, o);
    plotPrivacy(privacy_, privacy);
    privacy_->legend->setVisible(false);
    costTabs_->setTabVisible(1, hasBytes_);
    costTabs_->setTabVisible(2, hasPrivacy_);
    bytes_->replot();
    privacy_->replot();
}

void ComparisonView::redrawCurves() {
    redrawLearning();
    // Repeats drawn as bands: the curve plots' titles say so once (the legend names the
    // configurations and their number of repeats).
    for (QLabel* title : findChildren<QLabel*>("plotTitle")) {
        const QString text = title->property("fogTitle").toString();
        const bool curve = text == plotTitle(PlotKind::TestAccuracy) || text == plotTitle(PlotKind::TrainLoss) ||
                           text == plotTitle(PlotKind::Cost);
        if (!curve) continue;
        title->setText("<b>" + text + "</b>" + (grouped() ? QString::fromUtf8(" · mean of repeats, 95% band") : QString()));
        title->setToolTip(grouped() ? QString("Each configuration: the mean of its repeats (their number in brackets) "
                                              "inside its 95% confidence band")
                                    : QString());
    }
    if (grouped()) {
        QCPRange xRange;
        bool haveRange = false;
        for (PlotKind kind : {PlotKind::TestAccuracy, PlotKind::TrainLoss, PlotKind::Cost}) {
            QCustomPlot* p = curvePlot(kind);
            const QSignalBlocker block(p->xAxis);
            PlotOptions o;
            o.x = x_;
            o.smoothing = smoothSpin_ ? smoothSpin_->value() : 1;
            o.legend = kind == PlotKind::TestAccuracy && legendButton_->isChecked();
            drawGroupedCurves(p, kind, o);
            QColor legendBg = p->palette().color(QPalette::Base);
            legendBg.setAlpha(190);
            p->legend->setBrush(legendBg);
            if (o.legend) legendBelowTheCurves(p);
            const QCPRange r = p->xAxis->range();
            xRange = haveRange ? QCPRange(std::min(xRange.lower, r.lower), std::max(xRange.upper, r.upper)) : r;
            haveRange = true;
        }
        styleSelection();
        for (PlotKind kind : {PlotKind::TestAccuracy, PlotKind::TrainLoss, PlotKind::Cost}) {
            QCustomPlot* p = curvePlot(kind);
            const QSignalBlocker block(p->xAxis);
            if (haveRange) p->xAxis->setRange(xRange);
        }
        if (cursor_) cursor_->restore();
        if (store_) drawForkMarkers();
        for (PlotKind kind : {PlotKind::TestAccuracy, PlotKind::TrainLoss, PlotKind::Cost}) curvePlot(kind)->replot();
        return;
    }
    std::vector<PlotSeries> series;
    for (std::size_t i = 0; i < runs_.size(); ++i)
        series.push_back({labelOf(runs_[i]), seriesColor(static_cast<int>(i)), runs_[i].metrics});
    QCPRange xRange;
    bool haveRange = false;
    for (PlotKind kind : {PlotKind::TestAccuracy, PlotKind::TrainLoss, PlotKind::Cost}) {
        QCustomPlot* p = curvePlot(kind);
        const QSignalBlocker block(p->xAxis);
        PlotOptions o;
        o.x = x_;
        o.smoothing = smoothSpin_ ? smoothSpin_->value() : 1;
        o.rawBehind = true;
        // One legend is enough: the runs list beside the plots has the same colours.
        o.legend = kind == PlotKind::TestAccuracy && legendButton_->isChecked();
        plotMetric(p, series, kind, o);
        // A lighter legend: the curves behind it stay visible.
        QColor legendBg = p->palette().color(QPalette::Base);
        legendBg.setAlpha(190);
        p->legend->setBrush(legendBg);
        QFont legendFont = font();
        legendFont.setPointSizeF(legendFont.pointSizeF() * 0.85);
        p->legend->setFont(legendFont);
        if (o.legend) legendBelowTheCurves(p);
        for (std::size_t i = 0; i < runs_.size(); ++i) {
            QCPGraph* g = p->graph(static_cast<int>(i));
            if (runs_[i].run.id == baseline_) {
                QPen pen = g->pen();
                pen.setStyle(Qt::DashLine);
                g->setPen(pen);
            }
            // Sparse curves (few evaluations) need their points to be seen.
            if (g->dataCount() < 40) g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 4));
        }
        bool found = false;
        const QCPRange r = p->xAxis->range();
        for (int g = 0; g < p->graphCount(); ++g) found = found || !p->graph(g)->data()->isEmpty();
        if (found) {
            xRange = haveRange ? QCPRange(std::min(xRange.lower, r.lower), std::max(xRange.upper, r.upper)) : r;
            haveRange = true;
        }
    }
    styleSelection();
    // Shared x axes: every plot spans every curve.
    for (PlotKind kind : {PlotKind::TestAccuracy, PlotKind::TrainLoss, PlotKind::Cost}) {
        QCustomPlot* p = curvePlot(kind);
        const QSignalBlocker block(p->xAxis);
        if (haveRange) p->xAxis->setRange(xRange);
    }
    if (cursor_) cursor_->restore(); // plotMetric cleared the plots' items
    if (store_) drawForkMarkers(); // a fork beside its parent: where they branch
    for (PlotKind kind : {PlotKind::TestAccuracy, PlotKind::TrainLoss, PlotKind::Cost})
        curvePlot(kind)->replot();
}

void ComparisonView::redrawTradeOff() {
    // At the target, runs stopped by a time or round limit compare on what they took to get
    // there; at the end, on what they spent in all. The Pareto column uses the same points.
    const TradeOffMode mode = tradeOffMode();
    const std::vector<RunFigures> figs = figures();
    std::vector<TradeOffRun> points;
    // Repeats of a configuration (a sweep's, a lesson's variant) are one point: the mean of
    // their times and costs, with 95% confidence bars, as the curves are one mean curve.
    const bool byConfig = grouped();
    std::vector<std::vector<std::size_t>> members; // point -> its runs
    if (byConfig) {
        std::vector<QString> labels;
        for (const auto& g : groups_) {
            const StoredRun& first = runs_[g.front()].run;
            QString label = g.size() < 2 ? QString("#%1").arg(first.id) : qs(shortConfigLabel(first.sweepConfig));
            if (label.size() > 28) label = label.left(26) + "…";
            labels.push_back(label);
        }
        points = groupedTradeOff(figs, groups_, mode, labels);
        members = groups_;
    } else {
        for (std::size_t i = 0; i < runs_.size(); ++i) {
            points.push_back({QString("#%1").arg(runs_[i].run.id), tradeOffPoint(figs[i], mode), MeanCi{}, MeanCi{}});
            members.push_back({i});
        }
    }
    plotTradeOff(trade_, points);
    // Graph k is point k: it stands for its runs (a click selects the first).
    for (int g = 0; g < trade_->graphCount(); ++g) {
        QCPGraph* graph = trade_->graph(g);
        const QVariant idx = graph->property("runIndex");
        if (!idx.isValid() || idx.toInt() >= static_cast<int>(members.size())) continue;
        const auto& m = members[static_cast<std::size_t>(idx.toInt())];
        QVariantList ids;
        for (std::size_t i : m) ids << static_cast<int>(i);
        graph->setProperty("runIndex", static_cast<int>(m.front()));
        graph->setProperty("fogMembers", ids);
    }
    const QString pct = QString::number(100 * target(), 'g', 4) + " %";
    // Two short lines (a long caption took the plot's room at 1280x720 and cut its axis
    // label): what is plotted, then the key; the whole key is in the tool tip.
    const QString key = QString::fromUtf8("<br><small>colour: final accuracy · ringed, dashed: Pareto front") +
                        (byConfig ? QString::fromUtf8(" · one point per configuration (repeats in brackets), "
                                                      "bars: 95% CI")
                                  : QString()) +
                        "</small>";
    if (mode == TradeOffMode::AtTarget) {
        trade_->xAxis->setLabel("virtual time to " + pct + " (s)");
        trade_->yAxis->setLabel(costAxisLabel("cost to " + pct));
        tradeTitle_->setText("<b>Trade-off: time vs cost to reach " + pct + "</b>" + key);
    } else {
        QString title = "<b>Trade-off: total time vs total cost</b>" + key;
        // Runs stopped at different budgets (a seek's rungs: 13.3 s and 120 s) are not alike
        // in totals: say so where the scatter is.
        double lo = std::numeric_limits<double>::infinity(), hi = 0;
        for (const auto& r : runs_) {
            lo = std::min(lo, r.run.summary.virtualTime);
            hi = std::max(hi, r.run.summary.virtualTime);
        }
        if (runs_.size() >= 2 && lo > 0 && hi > 1.5 * lo)
            title += QString("<br><span style='color:#d55e00'>The runs ended at different virtual times (%1 s to %2 s): "
                             "their totals cover different amounts of work. <i>Trade-off at the target</i> compares "
                             "what each took to reach %3.</span>")
                         .arg(lo, 0, 'g', 4)
                         .arg(hi, 0, 'g', 4)
                         .arg(pct);
        tradeTitle_->setText(title);
    }
    tradeTitle_->setToolTip(
        "Points coloured by final accuracy; ringed points and the dashed step line are the Pareto front. " +
        (byConfig ? QString("One point per configuration: the mean of its repeats (their number in brackets), bars: "
                            "95% confidence intervals of time and cost. ")
                  : QString()) +
        qs(paretoDefinition(mode, target())));
    styleSelection();
    trade_->replot();
}

void ComparisonView::fillTable() {
    const double tgt = target();
    const QString pct = QString::number(100 * tgt, 'g', 4) + " %";
    const QStringList headers{"run", "status", "rounds", "final acc.", "best acc.", "time to " + pct, "cost to " + pct,
                              "energy to " + pct, "virtual time", "cost", "energy", "Pareto"};
    table_->setHorizontalHeaderLabels(headers);
    // One Pareto definition, the trade-off scatter's: stated under the table.
    const QString definition = qs(paretoDefinition(tradeOffMode(), tgt));
    table_->horizontalHeaderItem(ParetoCol)->setToolTip(definition);
    paretoNote_->setText(QString::fromUtf8("Pareto \u2713: ") + definition +
                         " Final accuracy: the model each run ended with.");
    const auto front = tradeOffFront(figures(), tradeOffMode());
    const auto groups = repeatGroups(runs_, tgt);

    const QSignalBlocker block(table_);
    table_->setRowCount(0);
    table_->setRowCount(static_cast<int>(runs_.size() + groups.size()));
    auto numberItem = [](const QString& text, double value) {
        auto* item = new QTableWidgetItem(text);
        item->setData(ComparisonView::ValueRole, value);
        item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        return item;
    };
    QColor muted = palette().color(QPalette::Text); // "not reached": readable, but quieter
    muted.setAlphaF(0.55);
    for (std::size_t i = 0; i < runs_.size(); ++i) {
        const ComparedRun& r = runs_[i];
        const int row = static_cast<int>(i);
        const SummaryValues v = summarize(r, tgt);
        auto* name = new QTableWidgetItem(swatch(seriesColor(colorIndex(static_cast<std::size_t>(row))), r.run.id == baseline_), labelOf(r));
        name->setData(IdRole, QVariant::fromValue<qint64>(r.run.id));
        name->setToolTip(qs(r.run.name));
        table_->setItem(row, RunCol, name);
        auto* status = new QTableWidgetItem(qs(r.run.status));
        if (!r.run.summary.stopReason.empty()) status->setToolTip(qs(r.run.summary.stopReason));
        table_->setItem(row, StatusCol, status);
        const double values[] = {v.rounds, v.finalAccuracy, v.bestAccuracy, v.timeToTarget, v.costToTarget,
                                 v.energyToTarget, v.virtualTime, v.cost, v.energyJ};
        for (int c = RoundsCol; c <= EnergyCol; ++c) {
            const double x = values[c - RoundsCol];
            const bool missingTarget = c >= TimeToTargetCol && c <= EnergyToTargetCol && std::isnan(x);
            auto* item = numberItem(missingTarget ? QString("not reached") : formatValue(c, x), x);
            if (missingTarget) item->setForeground(muted);
            table_->setItem(row, c, item);
        }
        const bool onFront = std::find(front.begin(), front.end(), i) != front.end();
        auto* pareto = new QTableWidgetItem(onFront ? QString::fromUtf8("\u2713") : QString());
        pareto->setData(ValueRole, onFront);
        pareto->setTextAlignment(Qt::AlignCenter);
        table_->setItem(row, ParetoCol, pareto);
        if (r.run.id == baseline_)
            for (int c = 0; c < ColumnCount; ++c) {
                QFont f = table_->item(row, c)->font();
                f.setBold(true);
                table_->item(row, c)->setFont(f);
            }
    }
    QColor groupBg = palette().color(QPalette::Highlight);
    groupBg.setAlpha(30);
    for (std::size_t gi = 0; gi < groups.size(); ++gi) {
        const RepeatGroup& g = groups[gi];
        const int row = static_cast<int>(runs_.size() + gi);
        QStringList members;
        for (std::size_t m : g.members) members << QString("#%1").arg(runs_[m].run.id);
        auto* name = new QTableWidgetItem(QString::fromUtf8("%1 · mean ± 95% CI, n = %2 (sweep %3)")
                                              .arg(qs(shortConfigLabel(g.config.toStdString())))
                                              .arg(g.members.size())
                                              .arg(g.sweepId));
        name->setToolTip(g.config + "\n" + name->text() + "\nRepeats " + members.join(", ") +
                         " of one sweep configuration (common random numbers)");
        table_->setItem(row, RunCol, name);
        table_->setItem(row, StatusCol, new QTableWidgetItem(QString("%1 runs").arg(g.members.size())));
        const MeanCi* cis[] = {&g.rounds, &g.finalAccuracy, &g.bestAccuracy, &g.timeToTarget, &g.costToTarget,
                               &g.energyToTarget, &g.virtualTime, &g.cost, &g.energyJ};
        for (int c = RoundsCol; c <= EnergyCol; ++c) {
            const MeanCi& m = *cis[c - RoundsCol];
            QString text = formatMeanCi(c, m);
            const bool targetCol = c >= TimeToTargetCol && c <= EnergyToTargetCol;
            if (targetCol && g.reached < static_cast<int>(g.members.size()))
                text = g.reached == 0 ? QString("not reached")
                                      : text + QString(" (%1 of %2 reached)").arg(g.reached).arg(g.members.size());
            auto* item = numberItem(text, m.mean);
            item->setData(CiRole, m.halfWidth);
            table_->setItem(row, c, item);
        }
        table_->setItem(row, ParetoCol, new QTableWidgetItem());
        for (int c = 0; c < ColumnCount; ++c) {
            QTableWidgetItem* item = table_->item(row, c);
            QFont f = item->font();
            f.setItalic(true);
            item->setFont(f);
            item->setBackground(groupBg);
        }
    }
    table_->resizeColumnsToContents();
    // Long group labels keep their full text in the tooltip.
    table_->setColumnWidth(RunCol, std::min(table_->columnWidth(RunCol), 22 * fontMetrics().horizontalAdvance('M')));
    const int sel = indexOf(selected_);
    if (sel >= 0) table_->selectRow(sel);
}

void ComparisonView::showDetails() {
    const int i = indexOf(selected_);
    if (i < 0) {
        runInfo_->setText(runs_.empty() ? "No runs to compare." : "Click a point or a run to see its scenario.");
        yaml_->clear();
        return;
    }
    const ComparedRun& r = runs_[static_cast<std::size_t>(i)];
    const SummaryValues v = summarize(r, target());
    const QColor c = seriesColor(i < 0 ? 0 : colorIndex(static_cast<std::size_t>(i)));
    QString h = QString("<span style='color:%1'>&#9632;</span> <b>Run %2: %3</b>")
                    .arg(c.name())
                    .arg(r.run.id)
                    .arg(qs(r.run.name).toHtmlEscaped());
    if (r.run.id == baseline_) h += QString::fromUtf8(" <i>(\u2605 baseline)</i>");
    h += "<br>" + qs(r.run.status).toHtmlEscaped();
    if (!r.run.summary.stopReason.empty()) h += " (" + qs(r.run.summary.stopReason).toHtmlEscaped() + ")";
    h += QString(" · seed %1 · started %2").arg(r.run.seed).arg(qs(r.run.startedAt).toHtmlEscaped());
    if (r.run.sweepId)
        h += QString("<br>sweep %1: %2, repeat %3")
                 .arg(r.run.sweepId)
                 .arg(qs(r.run.sweepConfig).toHtmlEscaped())
                 .arg(r.run.repeat);
    h += QString("<br>%1 rounds · %2 · cost %3 · %4")
             .arg(r.run.summary.rounds)
             .arg(formatSeconds(v.virtualTime), formatCost(v.cost), formatEnergy(v.energyJ));
    h += QString("<br>accuracy %1 (best %2)").arg(formatAccuracy(v.finalAccuracy), formatAccuracy(v.bestAccuracy));
    const QString pct = QString::number(100 * target(), 'g', 4) + " %";
    h += std::isnan(v.timeToTarget)
             ? QString("<br>%1 not reached").arg(pct)
             : QString("<br>to %1: %2, cost %3, %4")
                   .arg(pct, formatSeconds(v.timeToTarget), formatCost(v.costToTarget), formatEnergy(v.energyToTarget));
    runInfo_->setText(h);
    if (yaml_->toPlainText() != qs(r.run.scenarioYaml)) yaml_->setPlainText(qs(r.run.scenarioYaml));
}

void ComparisonView::selectRun(qint64 id) {
    const int i = indexOf(id);
    if (i < 0) return;
    const bool changed = id != selected_;
    selected_ = id;
    {
        const QSignalBlocker b1(list_);
        list_->setCurrentRow(i);
        const QSignalBlocker b2(table_);
        table_->selectRow(i);
    }
    if (changed) {
        styleSelection();
        for (QCustomPlot* p : {acc_, loss_, cost_}) p->replot(QCustomPlot::rpQueuedReplot);
    }
    showDetails();
    updateButtons();
    if (changed) Q_EMIT runSelected(id);
}

void ComparisonView::styleSelection() {
    // The selected run's curves are thicker; its scatter point, outlined in the run's colour
    // like every point (the fill is the accuracy), is larger.
    const int selectedIndex = indexOf(selected_);
    if (grouped()) {
        const int sel = selectedIndex >= 0 ? groupOf_[static_cast<std::size_t>(selectedIndex)] : -1;
        for (QCustomPlot* p : {acc_, loss_, cost_})
            for (int k = 0; k < p->graphCount(); ++k) {
                QCPGraph* g = p->graph(k);
                const QVariant group = g->property("fogGroup");
                if (!group.isValid()) continue;
                QPen pen = g->pen();
                pen.setWidthF(group.toInt() == sel && groups_.size() > 1 ? 3.0 : 1.8);
                g->setPen(pen);
            }
    } else
    for (QCustomPlot* p : {acc_, loss_, cost_})
        for (std::size_t k = 0; k < runs_.size() && static_cast<int>(k) < p->graphCount(); ++k) {
            QCPGraph* g = p->graph(static_cast<int>(k));
            QPen pen = g->pen();
            pen.setWidthF(runs_[k].run.id == selected_ && runs_.size() > 1 ? 3.0 : 1.8);
            g->setPen(pen);
        }
    for (int g = 0; g < trade_->graphCount(); ++g) {
        QCPGraph* graph = trade_->graph(g);
        const QVariant idx = graph->property("runIndex");
        if (!idx.isValid()) continue;
        const int k = idx.toInt();
        if (k < 0 || k >= static_cast<int>(runs_.size())) continue; // drawn for an older set of runs
        const bool sel = runs_[static_cast<std::size_t>(k)].run.id == selected_;
        QCPScatterStyle s = graph->scatterStyle();
        s.setPen(QPen(seriesColor(colorIndex(static_cast<std::size_t>(k))), sel ? 4.0 : 2.5));
        s.setSize(sel ? 17 : 12);
        graph->setScatterStyle(s);
    }
    trade_->replot(QCustomPlot::rpQueuedReplot);
}

void ComparisonView::updateButtons() {
    const bool any = !runs_.empty();
    exportPlots_->setEnabled(any);
    exportReport_->setEnabled(any);
    addButton_->setEnabled(store_ != nullptr);
    removeButton_->setEnabled(selected_ != 0 && selected_ != baseline_);
    removeButton_->setToolTip(selected_ && selected_ == baseline_
                                  ? "The pinned baseline stays in the comparison: unpin it in the runs dock"
                                  : "Remove the selected run from the comparison");
}

qint64 ComparisonView::runAtPixel(const QPointF& pixel) const {
    qint64 best = 0;
    double bestDist = 10.0; // pixels: about the marker's radius plus a little
    for (int g = 0; g < trade_->graphCount(); ++g) {
        const QCPGraph* graph = trade_->graph(g);
        const QVariant idx = graph->property("runIndex");
        if (!idx.isValid() || idx.toInt() >= static_cast<int>(runs_.size()) || graph->data()->isEmpty()) continue;
        const auto it = graph->data()->constBegin();
        const QPointF p = graph->coordsToPixels(it->key, it->value);
        const double d = std::hypot(p.x() - pixel.x(), p.y() - pixel.y());
        if (d <= bestDist) {
            bestDist = d;
            best = runs_[static_cast<std::size_t>(idx.toInt())].run.id;
        }
    }
    return best;
}

QPointF ComparisonView::pointPixel(qint64 id) const {
    const int i = indexOf(id);
    if (i < 0) return {};
    for (int g = 0; g < trade_->graphCount(); ++g) {
        const QCPGraph* graph = trade_->graph(g);
        const QVariantList members = graph->property("fogMembers").toList();
        if (!graph->property("runIndex").isValid() || (graph->property("runIndex").toInt() != i && !members.contains(i)))
            continue;
        if (graph->data()->isEmpty()) return {};
        const auto it = graph->data()->constBegin();
        return graph->coordsToPixels(it->key, it->value);
    }
    return {};
}

} // namespace fog
