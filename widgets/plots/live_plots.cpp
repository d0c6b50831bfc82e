#include "widgets/plots/live_plots.h"

#include "widgets/figures/learning_plots.h"

#include "widgets/plots/linked_cursor.h"

#include "core/planning/prediction.h"
#include "core/policies/policy_descriptor.h"
#include "core/scenario/scenario_io.h"
#include "core/store/run_store.h"
#include "widgets/intervene/intervention.h"
#include "widgets/figures/qcustomplot.h"
#include "widgets/plots/theory_estimator.h"

#include <QCheckBox>
#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QMouseEvent>
#include <QPushButton>
#include <QScrollArea>
#include <QSlider>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace fog {

namespace {

/// The right-axis curve drawSecondary added to `plot` (nullptr: none).
QCPGraph* secondaryGraph(QCustomPlot* plot) {
    for (int i = 0; i < plot->graphCount(); ++i)
        if (plot->graph(i)->property("fogSecondary").toBool()) return plot->graph(i);
    return nullptr;
}

/// A record's key on the x axis.
double recordKey(const AggregationRecord& r, PlotXAxis x) {
    return x == PlotXAxis::VirtualTime ? r.time : x == PlotXAxis::Round ? r.round : r.wallSeconds;
}


/// Trailing moving average, in place (the same window plotMetric uses).
void smoothGraph(QCPGraph* g, int window) {
    if (window <= 1 || g->dataCount() < 2) return;
    QVector<double> keys, values;
    double sum = 0;
    int i = 0;
    QVector<double> raw;
    for (auto it = g->data()->constBegin(); it != g->data()->constEnd(); ++it) raw.push_back(it->value);
    for (auto it = g->data()->constBegin(); it != g->data()->constEnd(); ++it, ++i) {
        sum += raw[i];
        if (i >= window) sum -= raw[i - window];
        keys.push_back(it->key);
        values.push_back(sum / std::min(i + 1, window));
    }
    g->setData(keys, values, true);
}

} // namespace

LivePlots::LivePlots(QWidget* parent) : QWidget(parent) {
    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("x axis:")));
    xCombo_ = new QComboBox;
    xCombo_->addItem(tr("virtual time"), static_cast<int>(PlotXAxis::VirtualTime));
    xCombo_->addItem(tr("rounds"), static_cast<int>(PlotXAxis::Round));
    xCombo_->addItem(tr("wall-clock time"), static_cast<int>(PlotXAxis::WallTime));
    xCombo_->setToolTip(tr("What loss, accuracy and round time are plotted against"));
    top->addWidget(xCombo_);
    top->addSpacing(12);
    top->addWidget(new QLabel(tr("smoothing:")));
    smoothSlider_ = new QSlider(Qt::Horizontal);
    smoothSlider_->setRange(1, 50);
    smoothSlider_->setValue(1);
    smoothSlider_->setMaximumWidth(160);
    smoothSlider_->setToolTip(tr("Moving average over this many points"));
    top->addWidget(smoothSlider_);
    smoothLabel_ = new QLabel(tr("off"));
    smoothLabel_->setMinimumWidth(fontMetrics().horizontalAdvance("50 points"));
    top->addWidget(smoothLabel_);
    logBox_ = new QCheckBox(tr("log scale"));
    logBox_->setToolTip(tr("Logarithmic y axis for loss and round time"));
    top->addWidget(logBox_);
    top->addWidget(new QLabel(tr("level:")));
    levelCombo_ = new QComboBox;
    levelCombo_->setToolTip(tr("Training loss of which aggregation level the loss plot adds: 0 is the global "
                               "rounds; 1, 2, ... the aggregators below the root (edges, regions) in a tiered tree"));
    top->addWidget(levelCombo_);
    updateLevelCombo();
    connect(levelCombo_, qOverload<int>(&QComboBox::activated), this,
            [this] { setShownLevel(levelCombo_->currentData().toInt()); });
    resetZoom_ = new QPushButton(tr("Reset zoom"));
    resetZoom_->setToolTip(tr("Fit every plot to its data again (double-click a plot fits that one)"));
    top->addWidget(resetZoom_);
    top->addSpacing(12);
    closedFormLabel_ = new QLabel;
    closedFormLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // Wraps in a narrow panel rather than widening it (a projector, a laptop).
    closedFormLabel_->setWordWrap(true);
    closedFormLabel_->setMinimumWidth(120);
    top->addStretch(1);

    auto* grid = new QGridLayout;
    grid->setSpacing(4);
    const PlotKind kinds[kPanels] = {PlotKind::TrainLoss, PlotKind::TestAccuracy, PlotKind::RoundTime, PlotKind::Cost,
                                     PlotKind::Energy};
    for (int i = 0; i < kPanels; ++i) {
        auto& p = panels_[i];
        p.kind = kinds[i];
        p.plot = new QCustomPlot(this);
        p.plot->setMinimumSize(160, 140); // room for an axis label: the panel scrolls instead
        p.plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
        p.plot->setToolTip(tr("Drag to pan, wheel to zoom, double-click to fit; the cursor line follows the "
                              "mouse on every plot"));
        p.plot->installEventFilter(this);
        p.plot->setProperty("fogPanel", i);
        connect(p.plot, &QCustomPlot::mouseMove, this, [this, i](QMouseEvent* e) { hoverAt(static_cast<Panel>(i), e->pos()); });
        connect(p.plot, &QCustomPlot::afterReplot, this, [this] { ++replots_; });
        grid->addWidget(p.plot, i / 3, i % 3);
    }
    // The sixth cell: the run's latest figures in words.
    figures_ = new QLabel(this);
    figures_->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    figures_->setTextFormat(Qt::RichText);
    figures_->setWordWrap(true);
    figures_->setMargin(8);
    figures_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // In a scroll area of its own: a small cell shows every row by scrolling, never clipped.
    auto* figuresScroll = new QScrollArea(this);
    figuresScroll->setObjectName("figuresScroll");
    figuresScroll->setFrameShape(QFrame::NoFrame);
    figuresScroll->setWidgetResizable(true);
    figuresScroll->setWidget(figures_);
    figuresScroll->setMinimumSize(160, 140);
    grid->addWidget(figuresScroll, 1, 2);
    grid->setColumnStretch(0, 1);
    grid->setColumnStretch(1, 1);
    grid->setColumnStretch(2, 1);
    grid->setRowStretch(0, 1); // both rows of plots the same height
    grid->setRowStretch(1, 1);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(top);
    // The expected round time on a row of its own: the controls keep their row on a
    // laptop's width, and the formula reads in one line.
    layout->addWidget(closedFormLabel_);
    // What the run's figures say about the lesson it can show ("this run is network-bound").
    hintLabel_ = new QLabel(this);
    hintLabel_->setObjectName("runHint");
    hintLabel_->setWordWrap(true);
    hintLabel_->setTextFormat(Qt::PlainText);
    hintLabel_->setStyleSheet("QLabel { background: rgba(230, 159, 0, 60); border-left: 3px solid rgb(230, 159, 0); "
                              "padding: 3px 6px; }");
    hintLabel_->hide();
    layout->addWidget(hintLabel_);
    layout->addLayout(grid, 1);

    refresh_ = new QTimer(this);
    refresh_->setSingleShot(true);
    refresh_->setInterval(33); // at most ~30 refreshes a second, however fast metrics come
    connect(refresh_, &QTimer::timeout, this, &LivePlots::flush);

    connect(xCombo_, qOverload<int>(&QComboBox::currentIndexChanged), this,
            [this](int) { setXAxis(static_cast<PlotXAxis>(xCombo_->currentData().toInt())); });
    connect(smoothSlider_, &QSlider::valueChanged, this, &LivePlots::setSmoothing);
    connect(logBox_, &QCheckBox::toggled, this, &LivePlots::setLogScale);
    connect(resetZoom_, &QPushButton::clicked, this, &LivePlots::resetZoom);
    theory_ = new TheoryEstimator(this);
    connect(theory_, &TheoryEstimator::estimated, this, [this](int request, const ExpectedRoundTime& e) {
        if (request != theoryRequest_) return;
        expected_ = e;
        if (e.closedForm.applies) closedForm_ = e.closedForm; // the model's size was needed
        updateClosedFormLabel();
        for (auto& p : panels_)
            if (p.kind == PlotKind::RoundTime) p.autoscale = true;
        needFullRedraw_ = true;
        schedule();
    });
    updateClosedFormLabel();
    redrawAll();
}

LivePlots::~LivePlots() = default;

void LivePlots::updateLevelCombo() {
    levelCombo_->clear();
    for (int l : levels_)
        levelCombo_->addItem(l == 0 ? tr("0 (global)") : QString::number(l), l);
    levelCombo_->setCurrentIndex(std::max(0, levelCombo_->findData(level_)));
}

void LivePlots::setShownLevel(int level) {
    level_ = level;
    updateLevelCombo();
    needFullRedraw_ = true;
    schedule();
}

void LivePlots::reset(const RunInfo& info, const Scenario& scenario) {
    setHint({});
    records_.clear();
    levels_ = {0};
    level_ = 0;
    updateLevelCombo();
    markers_.clear();
    predictedTime_ = predictedCost_ = predictedAccuracy_ = kNaN;
    epsilons_.clear();
    delta_ = kNaN;
    lastBytes_ = 0.0;
    runLabel_ = QString::fromStdString(info.scenarioName.empty() ? scenario.name : info.scenarioName);
    shownSync_ = scenario.topology.nodes.empty() ? std::string() : scenario.sync.name;
    startTheory(info, scenario);
    for (auto& p : panels_) p.autoscale = true;
    updateClosedFormLabel();
    needFullRedraw_ = true;
    schedule();
}

void LivePlots::startTheory(const RunInfo& info, const Scenario& scenario) {
    const double bytes = wireBytesOf(scenario, info.model);
    closedForm_ = closedFormRoundTime(scenario, bytes);
    expected_ = ExpectedRoundTime{};
    expected_.closedForm = closedForm_;
    theoryRequest_ = -1;
    if (closedForm_.applies) {
        expected_.source = ExpectedRoundTime::Source::ClosedForm;
        expected_.seconds = closedForm_.seconds;
        expected_.label = "closed form";
        expected_.detail = closedForm_.formula;
        theory_->cancel();
        return;
    }
    expected_.detail = closedForm_.why;
    // No closed form: estimate one from a timing-only run, in the background. Nothing to
    // estimate without a scenario (no run shown) or for policies without rounds.
    if (monteCarloRounds_ <= 0 || scenario.topology.nodes.empty()) {
        theory_->cancel();
        return;
    }
    // Bounded work: about 3 million dispatches at most, and none past 100,000 nodes (the
    // timing-only twin would double the run's memory).
    long long members = 0;
    for (long long m : memberCounts(scenario.topology)) members += m;
    if (members > 100000) {
        expected_.detail = closedForm_.why + "; no Monte Carlo estimate above 100,000 nodes";
        theory_->cancel();
        return;
    }
    TheoryOptions o;
    o.monteCarloRounds = static_cast<int>(std::min<long long>(monteCarloRounds_, std::max<long long>(20, 3000000 / std::max(1LL, members))));
    o.wireBytes = bytes;
    // The trainers there from the start, as the scenario declares them: the run's node table
    // also holds the members `add` events bring later, who hold no share of the split data.
    long long trainers = 0;
    const auto counts = memberCounts(scenario.topology);
    for (std::size_t i = 0; i < counts.size(); ++i) {
        if (roleTrains(scenario.topology.nodes[i].role)) trainers += counts[i];
    }
    if (info.trainSamples > 0 && trainers > 0)
        o.samplesPerTrainer = static_cast<int>(static_cast<long long>(info.trainSamples) / trainers);
    theoryRequest_ = theory_->request(scenario, o);
}

bool LivePlots::estimating() const { return theoryRequest_ >= 0 && expected_.source == ExpectedRoundTime::Source::None; }

void LivePlots::clear() {
    setHint({});
    reset(RunInfo{}, Scenario{});
    runLabel_.clear();
}

void LivePlots::append(const std::vector<AggregationRecord>& records) {
    if (records.empty()) return;
    records_.insert(records_.end(), records.begin(), records.end());
    if (!needFullRedraw_ && options_.smoothing <= 1 && level_ == 0) appendSecondary(records);
    for (const auto& r : records)
        if (r.level == 0) lastBytes_ = r.bytes;
    bool newLevel = false;
    for (const auto& r : records)
        if (std::find(levels_.begin(), levels_.end(), r.level) == levels_.end()) {
            levels_.insert(std::upper_bound(levels_.begin(), levels_.end(), r.level), r.level);
            newLevel = true;
        }
    if (newLevel) updateLevelCombo();
    if (level_ > 0) needFullRedraw_ = true; // the level's curve is drawn from all records
    if (needFullRedraw_ || options_.smoothing > 1) {
        // A moving average changes earlier points too: redraw from all records.
        needFullRedraw_ = true;
    } else {
        for (auto& p : panels_) {
            const PlotOptions o = optionsFor(p);
            appendMetric(p.plot, 0, records, p.kind, o);
            if (p.kind == PlotKind::TrainLoss) appendMetric(p.plot, 1, records, PlotKind::TestLoss, o);
            p.dirty = true;
        }
    }
    schedule();
}

bool LivePlots::showStoredRun(const RunStore& store, std::int64_t runId) {
    const auto run = store.run(runId);
    if (!run) {
        showRun({}, Scenario{}, {});
        return false;
    }
    Scenario scenario;
    try {
        scenario = loadScenarioText(run->scenarioYaml, "run " + std::to_string(runId));
    } catch (const std::exception&) {
        // An old or damaged scenario still has its metrics; only the closed form is lost.
        scenario.name = run->name;
        scenario.sync.name = "unknown";
    }
    showRun(QString::fromStdString(run->name), scenario, store.metrics(runId));
    appendEvents(store.events(runId));
    addMarkers(interventionMarkers(scenario));
    return true;
}

void LivePlots::showRun(const QString& label, const Scenario& scenario, const std::vector<AggregationRecord>& metrics) {
    RunInfo info;
    info.scenarioName = label.toStdString();
    reset(info, scenario);
    append(metrics);
}

std::vector<TimeMarker> interventionMarkers(const Scenario& scenario) {
    std::vector<TimeMarker> out;
    for (const TimedEvent& e : scenario.events.list)
        if (e.afterEvent >= 0 && e.trigger.kind == EventTrigger::Kind::At) out.push_back({e.trigger.value, eventLabel(e)});
    return out;
}

void LivePlots::addMarkers(const std::vector<TimeMarker>& markers) {
    if (markers.empty()) return;
    markers_.insert(markers_.end(), markers.begin(), markers.end());
    needFullRedraw_ = true;
    schedule();
}

void LivePlots::appendEvents(const std::vector<RunEvent>& events) {
    for (const auto& e : events) {
        // A placement re-plan that moved workers (docs/policies.md "placement"): a marker.
        if (e.kind == RunEventKind::Placement && e.detail.rfind("replan ", 0) == 0 &&
            e.detail.rfind("replan kept", 0) != 0) {
            const std::string quota = e.detail.substr(7, e.detail.find(" was ") - 7);
            markers_.push_back({e.time, QStringLiteral("re-plan: ") + QString::fromStdString(quota)});
            needFullRedraw_ = true;
            schedule();
            continue;
        }
        if (e.kind == RunEventKind::Privacy) {
            const double eps = privacyValue(e.detail, "epsilon");
            if (std::isnan(eps)) continue;
            delta_ = privacyValue(e.detail, "delta");
            epsilons_.push_back({e.time, eps});
            // The first one adds the curve (a full redraw); later ones extend it.
            QCustomPlot* acc = plot(Panel::Accuracy);
            QCPGraph* g = secondaryGraph(acc);
            if (!g || needFullRedraw_) {
                needFullRedraw_ = true;
            } else {
                g->addData(keyFor(panels_[static_cast<int>(Panel::Accuracy)], e.time), std::isfinite(eps) ? eps : kNaN);
                panels_[static_cast<int>(Panel::Accuracy)].dirty = true;
            }
            schedule();
            continue;
        }
        if (e.kind != RunEventKind::Plan) continue;
        const PlanPrediction p = parsePlanPrediction(e.detail);
        if (!std::isfinite(p.time) || !std::isfinite(p.cost)) continue; // a plan without a prediction
        predictedTime_ = p.time;
        predictedCost_ = p.cost;
        predictedAccuracy_ = p.accuracy; // NaN when the plan predicts none (uncalibrated)
        needFullRedraw_ = true;
        schedule();
    }
}

void LivePlots::setXAxis(PlotXAxis x) {
    if (options_.x == x) return;
    options_.x = x;
    const int i = xCombo_->findData(static_cast<int>(x));
    if (i != xCombo_->currentIndex()) xCombo_->setCurrentIndex(i);
    for (auto& p : panels_) p.autoscale = true;
    needFullRedraw_ = true;
    schedule();
}

void LivePlots::setSmoothing(int window) {
    window = std::clamp(window, 1, 50);
    if (smoothSlider_->value() != window) smoothSlider_->setValue(window);
    smoothLabel_->setText(window == 1 ? tr("off") : tr("%1 points").arg(window));
    if (options_.smoothing == window) return;
    options_.smoothing = window;
    needFullRedraw_ = true;
    schedule();
}

void LivePlots::setLogScale(bool on) {
    if (logBox_->isChecked() != on) logBox_->setChecked(on);
    if (options_.logY == on) return;
    options_.logY = on;
    for (auto& p : panels_) p.autoscale = true;
    needFullRedraw_ = true;
    schedule();
}

PlotOptions LivePlots::optionsFor(const PanelState& p) const {
    PlotOptions o = options_;
    // Cumulative cost and energy read best against virtual time; accuracy and cumulative
    // quantities stay linear.
    if (p.kind == PlotKind::Cost || p.kind == PlotKind::Energy) o.x = PlotXAxis::VirtualTime;
    if (p.kind != PlotKind::TrainLoss && p.kind != PlotKind::RoundTime) o.logY = false;
    if (p.kind == PlotKind::RoundTime && expected_.source == ExpectedRoundTime::Source::ClosedForm) {
        o.expectedRoundTime = expected_.seconds;
        // Short: the legend shares a small plot with "measured"; the line above the plots
        // gives the formula.
        o.expectedLabel = tr("closed form %1 s").arg(expected_.seconds, 0, 'g', 4);
    } else if (p.kind == PlotKind::RoundTime && expected_.source == ExpectedRoundTime::Source::MonteCarlo) {
        o.expectedRoundTime = expected_.seconds;
        o.expectedLabel = tr("Monte Carlo %1 s").arg(expected_.seconds, 0, 'g', 4);
    }
    // Raw curves behind smoothed ones: the loss panel adds its own (its test curve is graph 1).
    o.rawBehind = p.kind != PlotKind::TrainLoss;
    o.legend = p.kind == PlotKind::TrainLoss || p.kind == PlotKind::RoundTime;
    return o;
}

QString LivePlots::shownExpectedText() const {
    switch (expected_.source) {
    case ExpectedRoundTime::Source::ClosedForm:
        return tr("Expected round time (closed form): %1").arg(QString::fromStdString(expected_.detail));
    case ExpectedRoundTime::Source::MonteCarlo:
        // Why no closed form holds is in the tooltip: the line stays one line on a laptop.
        return tr("Expected round time: %1 s ± %2 s, Monte Carlo estimate (%3 rounds)")
            .arg(expected_.seconds, 0, 'g', 4)
            .arg(expected_.standardError, 0, 'g', 2)
            .arg(expected_.rounds);
    case ExpectedRoundTime::Source::None: break;
    }
    if (estimating()) return tr("Expected round time: no closed form; Monte Carlo estimate running…");
    if (!expected_.detail.empty() && expected_.detail != closedForm_.why)
        return tr("Expected round time: %1; %2")
            .arg(closedForm_.why.empty() ? tr("no closed form") : QString::fromStdString(closedForm_.why),
                 QString::fromStdString(expected_.detail));
    return tr("Expected round time: %1")
        .arg(closedForm_.why.empty() ? tr("no closed form") : QString::fromStdString(closedForm_.why));
}

void LivePlots::setEditedScenario(const Scenario& scenario) {
    edited_ = closedFormRoundTime(scenario, wireBytesOf(scenario, ""));
    editedSync_ = scenario.sync.name;
    updateClosedFormLabel();
}

void LivePlots::setHint(const QString& text) {
    if (hintLabel_->text() == text) return;
    hintLabel_->setText(text);
    hintLabel_->setVisible(!text.isEmpty());
}

QString LivePlots::hint() const { return hintLabel_->isHidden() ? QString() : hintLabel_->text(); }

QString LivePlots::expectedText() const {
    if (editedSync_.empty()) return shownExpectedText();
    const QString edited =
        edited_.applies
            ? tr("closed form %1").arg(QString::fromStdString(edited_.formula))
            : tr("%1; a Monte Carlo estimate is made when it runs")
                  .arg(edited_.why.empty() ? tr("no closed form") : QString::fromStdString(edited_.why));
    // Nothing shown: the line is about the scenario on the canvas.
    if (shownSync_.empty()) return tr("Expected round time (%1): %2").arg(QString::fromStdString(editedSync_), edited);
    if (shownSync_ == editedSync_) return shownExpectedText();
    // A run of another policy is shown: its line, named, then the scenario as edited.
    return tr("Shown run (%1): %2 · as edited (%3): %4")
        .arg(QString::fromStdString(shownSync_), shownExpectedText().section(": ", 1),
             QString::fromStdString(editedSync_), edited);
}

void LivePlots::updateClosedFormLabel() {
    closedFormLabel_->setText(expectedText());
    QString why;
    if (!closedForm_.applies && !closedForm_.why.empty())
        why = tr("Here: %1.\n\n").arg(QString::fromStdString(closedForm_.why));
    closedFormLabel_->setToolTip(
        why + tr("Closed forms hold for %1 with exponential or shifted-exponential step "
           "times, one aggregator and private links (latency + size / bandwidth, down and up, is added; "
           "papers.md). Elsewhere a timing-only run of the same scenario (no training) estimates the mean round "
           "time in the background: the Monte Carlo estimate.")
                  .arg(QString::fromStdString(barrierSyncNames())));
}

void LivePlots::updateFigures() {
    const AggregationRecord* last = nullptr;
    const AggregationRecord* evaluated = nullptr;
    int rounds = 0;
    for (const auto& r : records_) {
        if (r.level != 0) continue;
        last = &r;
        ++rounds;
        if (!std::isnan(r.testAccuracy)) evaluated = &r;
    }
    if (!last && runLabel_.isEmpty()) {
        figures_->setText(tr("No run shown.<br>Run (F5) starts one; double-click a stored run in the Runs dock to "
                             "see it."));
        return;
    }
    if (!last) {
        figures_->setText(tr("<b>%1</b><br>waiting for the first round").arg(runLabel_.toHtmlEscaped()));
        return;
    }
    QString text = tr("<b>%1</b><table cellspacing=3>").arg(runLabel_.toHtmlEscaped());
    auto row = [&text](const QString& name, const QString& value) {
        text += QString("<tr><td>%1</td><td align=right>%2</td></tr>").arg(name, value);
    };
    row(tr("round"), QString::number(last->round));
    row(tr("virtual time"), tr("%1 s").arg(last->time, 0, 'f', 2));
    row(tr("wall-clock time"), tr("%1 s").arg(last->wallSeconds, 0, 'f', 1));
    row(tr("cost"), QString::number(last->cost, 'f', 4));
    row(tr("energy"), tr("%1 kJ").arg(last->energyJ / 1000.0, 0, 'f', 2));
    if (last->energyJ > 0 && !std::isnan(last->energyComputeJ + last->energyNetworkJ + last->energyIdleJ))
        row(tr("&nbsp;&nbsp;compute / network / idle"), tr("%1 / %2 / %3 kJ")
                                                        .arg(last->energyComputeJ / 1000.0, 0, 'f', 2)
                                                        .arg(last->energyNetworkJ / 1000.0, 0, 'f', 2)
                                                        .arg(last->energyIdleJ / 1000.0, 0, 'f', 2));
    if (evaluated)
        row(tr("test accuracy"), tr("%1% (round %2)").arg(evaluated->testAccuracy * 100, 0, 'f', 2).arg(evaluated->round));
    row(tr("mean round time"), tr("%1 s").arg(last->time / rounds, 0, 'g', 4));
    if (last->bytes > 0) row(tr("bytes per round"), tr("%1 MB").arg(last->bytes / rounds / 1e6, 0, 'g', 4));
    if (!epsilons_.empty())
        row(tr("privacy spent"), tr("&epsilon; = %1 at &delta; = %2").arg(epsilons_.back().y(), 0, 'g', 4).arg(delta_, 0, 'g', 3));
    if (expected_.source == ExpectedRoundTime::Source::ClosedForm)
        row(tr("closed form"), tr("%1 s").arg(expected_.seconds, 0, 'g', 4));
    else if (expected_.source == ExpectedRoundTime::Source::MonteCarlo)
        row(tr("Monte Carlo estimate (%1 rounds)").arg(expected_.rounds), tr("%1 s").arg(expected_.seconds, 0, 'g', 4));
    text += "</table>";
    figures_->setText(text);
}

QString LivePlots::figuresText() const { return figures_->text(); }

void LivePlots::schedule() {
    if (!refresh_->isActive()) refresh_->start();
}

void LivePlots::flush() {
    updateFigures();
    if (needFullRedraw_) {
        redrawAll();
        return;
    }
    for (auto& p : panels_) {
        if (!p.dirty) continue;
        p.dirty = false;
        if (p.autoscale) autoscale(p);
        if (!std::isnan(cursorTime_)) placeCursor(p);
        p.plot->replot(QCustomPlot::rpQueuedReplot);
    }
}

void LivePlots::redrawAll() {
    needFullRedraw_ = false;
    for (auto& p : panels_) {
        redraw(p);
        p.dirty = false;
        p.plot->replot(QCustomPlot::rpQueuedReplot);
    }
}

void LivePlots::redraw(PanelState& p) {
    const PlotOptions o = optionsFor(p);
    const QString label = runLabel_.isEmpty() ? tr("run") : runLabel_;
    if (p.kind == PlotKind::TrainLoss) {
        plotMetric(p.plot, {{tr("train"), seriesColor(0), records_}}, PlotKind::TrainLoss, o);
        QCPGraph* test = p.plot->addGraph();
        test->setName(tr("test"));
        test->setPen(QPen(seriesColor(1), 2));
        appendMetric(p.plot, 1, records_, PlotKind::TestLoss, o);
        smoothGraph(test, o.smoothing);
        if (o.smoothing > 1) {
            addRawGraph(p.plot, records_, PlotKind::TrainLoss, o, seriesColor(0), tr("train"));
            addRawGraph(p.plot, records_, PlotKind::TestLoss, o, seriesColor(1), tr("test"));
        }
        if (level_ > 0) {
            // The chosen level's aggregations (every aggregator of that level in one curve).
            QCPGraph* g = p.plot->addGraph();
            g->setName(tr("train, level %1").arg(level_));
            g->setPen(QPen(seriesColor(2), 1.5));
            g->setLineStyle(QCPGraph::lsNone);
            g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 4));
            for (const auto& r : records_) {
                if (r.level != level_ || !std::isfinite(r.trainLoss)) continue;
                const double key = o.x == PlotXAxis::VirtualTime ? r.time
                                   : o.x == PlotXAxis::Round     ? r.round
                                                                 : r.wallSeconds;
                g->addData(key, r.trainLoss);
            }
            p.plot->legend->setVisible(true);
        }
        p.plot->yAxis->setLabel(tr("loss"));
    } else {
        plotMetric(p.plot, {{label, seriesColor(0), records_}}, p.kind, o);
        if (p.kind == PlotKind::Cost && std::isfinite(predictedTime_) && std::isfinite(predictedCost_)) {
            // The planner's prediction, a star where the run should end by its model.
            QCPGraph* plan = p.plot->addGraph();
            plan->setName(tr("plan: %1 s, %2").arg(predictedTime_, 0, 'g', 4).arg(predictedCost_, 0, 'g', 4));
            plan->setLineStyle(QCPGraph::lsNone);
            plan->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssStar, QPen(seriesColor(2), 2), Qt::NoBrush, 14));
            plan->addData(predictedTime_, predictedCost_);
            p.plot->legend->setVisible(true);
        }
        if (p.kind == PlotKind::TestAccuracy && std::isfinite(predictedTime_) && std::isfinite(predictedAccuracy_)) {
            // A calibrated plan also predicts the test accuracy at its end.
            QCPGraph* plan = p.plot->addGraph();
            plan->setName(tr("plan: %1 s, %2%").arg(predictedTime_, 0, 'g', 4).arg(predictedAccuracy_ * 100, 0, 'f', 1));
            plan->setLineStyle(QCPGraph::lsNone);
            plan->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssStar, QPen(seriesColor(2), 2), Qt::NoBrush, 14));
            plan->addData(predictedTime_, predictedAccuracy_);
            p.plot->legend->setVisible(true);
        }
        if (p.kind == PlotKind::RoundTime && p.plot->graphCount() > 0) {
            p.plot->graph(0)->setName(tr("measured"));
            // appendMetric continues round durations from the last record's time.
            double last = 0.0;
            for (const auto& r : records_)
                if (r.level == 0) last = r.time;
            p.plot->graph(0)->setProperty("lastTime", last);
        }
    }
    drawSecondary(p);
    if (p.autoscale)
        autoscale(p);
    // Labels stay readable over the curves; the legend is a row of its own below the plot, in
    // as many columns as its width holds, so it covers no curve, no label and no other legend
    // entry (three entries did not fit across a plot at 1280x720: "MB per round" lay over
    // "Monte Carlo 23.82 s").
    QColor base = palette().color(QPalette::Base);
    base.setAlpha(215);
    p.plot->legend->setBrush(base);
    p.plot->legend->setRowSpacing(0);
    p.plot->legend->setColumnSpacing(6);
    p.plot->legend->setMargins(QMargins(4, 1, 4, 1));
    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    p.plot->legend->setFont(small);
    if (p.plot->legend->visible()) legendBelowTheCurves(p.plot);
    for (int i = 0; i < p.plot->itemCount(); ++i)
        if (auto* text = qobject_cast<QCPItemText*>(p.plot->item(i))) {
            text->setBrush(base);
            text->setPadding(QMargins(3, 1, 3, 1));
            // Above the plot's top-left corner of data rather than over the newest points.
            text->position->setCoords(0.02, text->position->coords().y());
            text->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
        }
    for (const TimeMarker& m : markers_) addTimeMarker(p.plot, keyFor(p, m.time), m.label);
    // Hover read-out: a tracer on the nearest point and its coordinates beside it.
    p.tracer = new QCPItemTracer(p.plot);
    p.tracer->setStyle(QCPItemTracer::tsCircle);
    p.tracer->setSize(9);
    p.tracer->setPen(QPen(palette().color(QPalette::WindowText), 1.5));
    p.tracer->setVisible(false);
    p.tracer->setInterpolating(false);
    p.readout = new QCPItemText(p.plot);
    p.readout->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
    p.readout->position->setParentAnchor(p.tracer->position);
    p.readout->position->setCoords(8, -6);
    p.readout->setPadding(QMargins(4, 2, 4, 2));
    p.readout->setBrush(palette().color(QPalette::ToolTipBase));
    p.readout->setColor(palette().color(QPalette::ToolTipText));
    p.readout->setPen(QPen(palette().color(QPalette::Mid)));
    p.readout->setVisible(false);
    p.readout->setClipToAxisRect(false);
    // The shared cursor: a vertical line at the same virtual time on every plot.
    p.cursor = new QCPItemStraightLine(p.plot);
    QColor fg = palette().color(QPalette::WindowText);
    fg.setAlpha(140);
    p.cursor->setPen(QPen(fg, 1, Qt::DotLine));
    p.cursor->setSelectable(false);
    p.cursorLabel = new QCPItemText(p.plot);
    p.cursorLabel->position->setTypeX(QCPItemPosition::ptPlotCoords);
    p.cursorLabel->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    p.cursorLabel->setPadding(QMargins(5, 3, 5, 3));
    p.cursorLabel->setBrush(palette().color(QPalette::ToolTipBase));
    p.cursorLabel->setColor(palette().color(QPalette::ToolTipText));
    p.cursorLabel->setPen(QPen(palette().color(QPalette::Mid)));
    p.cursorLabel->setTextAlignment(Qt::AlignLeft);
    placeCursor(p);
}

double LivePlots::keyFor(const PanelState& p, double t) const {
    const PlotXAxis x = optionsFor(p).x;
    if (x == PlotXAxis::VirtualTime || std::isnan(t)) return t;
    // The last global round ended at or before t, on this axis.
    const AggregationRecord* at = nullptr;
    for (const auto& r : records_) {
        if (r.level != 0) continue;
        if (r.time > t) break;
        at = &r;
    }
    if (!at) return kNaN;
    return x == PlotXAxis::Round ? at->round : at->wallSeconds;
}

double LivePlots::timeFor(const PanelState& p, double key) const {
    const PlotXAxis x = optionsFor(p).x;
    if (x == PlotXAxis::VirtualTime) return key;
    // The global round nearest to the key on this axis.
    double best = kNaN, bestDist = 1e300;
    for (const auto& r : records_) {
        if (r.level != 0) continue;
        const double d = std::abs((x == PlotXAxis::Round ? r.round : r.wallSeconds) - key);
        if (d < bestDist) {
            bestDist = d;
            best = r.time;
        }
    }
    return best;
}

void LivePlots::placeCursor(PanelState& p) {
    if (!p.cursor) return;
    const double key = keyFor(p, cursorTime_);
    const bool show = std::isfinite(key);
    p.cursor->setVisible(show);
    p.cursorLabel->setVisible(show);
    if (!show) return;
    p.cursor->point1->setCoords(key, 0);
    p.cursor->point2->setCoords(key, 1);
    QStringList lines;
    lines << tr("t = %1 s").arg(cursorTime_, 0, 'f', 2);
    lines += cursorValueLines(p.plot, key);
    p.cursorLabel->setText(lines.join('\n'));
    p.cursorLabel->position->setCoords(key, 0.0);
    // Beside the line, on the side with more room.
    const bool right = p.plot->xAxis->coordToPixel(key) < p.plot->axisRect()->center().x();
    p.cursorLabel->setPositionAlignment((right ? Qt::AlignLeft : Qt::AlignRight) | Qt::AlignTop);
}

void LivePlots::setCursorTime(double t) {
    if (std::isnan(t) && std::isnan(cursorTime_)) return;
    cursorTime_ = t;
    for (auto& p : panels_) {
        placeCursor(p);
        p.plot->replot(QCustomPlot::rpQueuedReplot);
    }
}

QString LivePlots::cursorText(Panel which) const {
    const PanelState& p = panels_[static_cast<int>(which)];
    return p.cursorLabel && p.cursorLabel->visible() ? p.cursorLabel->text() : QString();
}

void LivePlots::resetZoom() {
    for (auto& p : panels_) {
        p.autoscale = true;
        autoscale(p);
        placeCursor(p);
        p.plot->replot(QCustomPlot::rpQueuedReplot);
    }
}

void LivePlots::drawSecondary(PanelState& p) {
    QCustomPlot* plot = p.plot;
    const PlotOptions o = optionsFor(p);
    plot->yAxis2->setVisible(false);
    QCPGraph* g = nullptr;
    if (p.kind == PlotKind::TestAccuracy && !epsilons_.empty()) {
        g = plot->addGraph(plot->xAxis, plot->yAxis2);
        g->setName(tr("ε spent (δ = %1)").arg(delta_, 0, 'g', 3));
        for (const QPointF& e : epsilons_) g->addData(keyFor(p, e.x()), std::isfinite(e.y()) ? e.y() : kNaN);
        plot->yAxis2->setLabel(tr("ε (δ = %1)").arg(delta_, 0, 'g', 3));
    } else if (p.kind == PlotKind::RoundTime) {
        bool any = false;
        for (const auto& r : records_) any = any || (r.level == 0 && r.bytes > 0);
        if (!any) return;
        g = plot->addGraph(plot->xAxis, plot->yAxis2);
        g->setName(tr("MB per round"));
        double prev = 0.0;
        for (const auto& r : records_) {
            if (r.level != 0) continue;
            g->addData(recordKey(r, o.x), (r.bytes - prev) / 1e6);
            prev = r.bytes;
        }
        plot->yAxis2->setLabel(tr("MB per round"));
    }
    if (!g) return;
    g->setProperty("fogSecondary", true);
    const QColor c = seriesColor(3);
    g->setPen(QPen(c, 1.5, Qt::DashLine));
    markSparsePoints(g);
    // The right axis, drawn in the curve's colour, names it: no legend entry to find room for
    // in a small plot.
    g->removeFromLegend();
    QCPAxis* right = plot->yAxis2;
    right->setBasePen(QPen(c));
    right->setTickPen(QPen(c));
    right->setSubTickPen(QPen(c));
    right->setTickLabelColor(c);
    right->setLabelColor(c);
    right->setVisible(true);
    right->setTickLabels(true);
}

void LivePlots::appendSecondary(const std::vector<AggregationRecord>& records) {
    PanelState& p = panels_[static_cast<int>(Panel::RoundTime)];
    QCPGraph* g = secondaryGraph(p.plot);
    double prev = lastBytes_;
    bool any = false;
    for (const auto& r : records) {
        if (r.level != 0) continue;
        any = any || r.bytes > 0;
        if (g) g->addData(recordKey(r, optionsFor(p).x), (r.bytes - prev) / 1e6);
        prev = r.bytes;
    }
    if (!g && any) needFullRedraw_ = true; // the first bytes: add the curve
}

void LivePlots::scaleSecondary(PanelState& p) {
    QCPGraph* g = secondaryGraph(p.plot);
    if (!g) return;
    bool found = false;
    const QCPRange r = g->getValueRange(found);
    if (!found) return;
    // From zero, with a little air above as on the left axis.
    p.plot->yAxis2->setRange(0.0, r.upper > 0 ? r.upper * 1.06 : 1.0);
}

void LivePlots::autoscale(PanelState& p) {
    QCustomPlot* plot = p.plot;
    bool any = false;
    for (int i = 0; i < plot->graphCount(); ++i) any = any || !plot->graph(i)->data()->isEmpty();
    const PlotOptions o = optionsFor(p);
    if (!any) {
        // Nothing drawn (a new or another scenario, before its run): the ranges of an empty
        // panel as the studio starts with them, not the axes of the run shown before.
        plot->xAxis->setRange(0.0, 5.0);
        QCPRange y = o.logY ? QCPRange(0.1, 10.0) : QCPRange(0.0, 5.0);
        // The expected round time is drawn before the first round: keep its line in view.
        if (p.kind == PlotKind::RoundTime && !std::isnan(o.expectedRoundTime)) y.expand(o.expectedRoundTime * 1.06);
        plot->yAxis->setRange(y);
        return;
    }
    plot->rescaleAxes();
    fitKeyAxis(plot, o.x);
    if (p.kind == PlotKind::RoundTime && !std::isnan(o.expectedRoundTime)) {
        QCPRange r = plot->yAxis->range();
        r.expand(o.expectedRoundTime);
        if (!o.logY) r.expand(0.0);
        plot->yAxis->setRange(r);
    }
    if (p.kind == PlotKind::TestAccuracy) {
        const QCPRange r = plot->yAxis->range();
        plot->yAxis->setRange(std::max(0.0, r.lower - 2), std::min(100.0, r.upper + 2));
    }
    // A flat curve (no prices, timing only) gets a sensible range rather than QCustomPlot's
    // symmetric default around it.
    // (QCustomPlot keeps the previous range's size around flat data, which would compound.)
    bool found = false;
    QCPRange values;
    scaleSecondary(p);
    for (int i = 0; i < plot->graphCount(); ++i) {
        if (plot->graph(i)->valueAxis() != plot->yAxis) continue; // the right axis has its own range
        bool f = false;
        const QCPRange r = plot->graph(i)->getValueRange(f);
        if (!f) continue;
        values = found ? QCPRange(std::min(values.lower, r.lower), std::max(values.upper, r.upper)) : r;
        found = true;
    }
    if (found && values.size() < 1e-12 && std::isnan(o.expectedRoundTime)) {
        const double v = values.center();
        if (v == 0.0)
            plot->yAxis->setRange(0.0, 1.0);
        else
            plot->yAxis->setRange(std::min(v * 0.9, v * 1.1), std::max(v * 0.9, v * 1.1));
        return;
    }
    // A little air above and below so curves do not touch the frame.
    if (!o.logY && p.kind != PlotKind::TestAccuracy) plot->yAxis->scaleRange(1.06, plot->yAxis->range().center());
    if (plot->xAxis->range().size() <= 0) plot->xAxis->setRange(plot->xAxis->range().lower - 0.5, plot->xAxis->range().upper + 0.5);
}

void LivePlots::hoverAt(Panel which, const QPoint& pos) {
    PanelState& p = panels_[static_cast<int>(which)];
    if (!p.tracer) return;
    QCPGraph* best = nullptr;
    double bestKey = 0, bestValue = 0, bestDist = 1e300;
    const double key = p.plot->xAxis->pixelToCoord(pos.x());
    for (int i = 0; i < p.plot->graphCount(); ++i) {
        QCPGraph* g = p.plot->graph(i);
        if (g->data()->isEmpty() || !g->visible()) continue;
        // The points either side of the mouse's key: the nearest by pixels is one of them.
        auto it = g->data()->findBegin(key, false);
        for (auto c = (it == g->data()->constBegin() ? it : it - 1); c != g->data()->constEnd() && c <= it + 1; ++c) {
            if (std::isnan(c->value)) continue;
            const double dx = p.plot->xAxis->coordToPixel(c->key) - pos.x();
            const double dy = p.plot->yAxis->coordToPixel(c->value) - pos.y();
            const double d = dx * dx + dy * dy;
            if (d < bestDist) {
                bestDist = d;
                best = g;
                bestKey = c->key;
                bestValue = c->value;
            }
        }
    }
    const bool show = best && bestDist < 60.0 * 60.0;
    if (show) {
        p.tracer->setGraph(best);
        p.tracer->setGraphKey(bestKey);
        p.tracer->updatePosition();
        const QString name = best->name().isEmpty() ? QString() : best->name() + ": ";
        p.readout->setText(QString("%1%2 = %3\n%4 = %5")
                               .arg(name, p.plot->xAxis->label().isEmpty() ? "x" : p.plot->xAxis->label())
                               .arg(bestKey, 0, 'g', 6)
                               .arg(p.plot->yAxis->label().isEmpty() ? "y" : p.plot->yAxis->label())
                               .arg(bestValue, 0, 'g', 6));
    }
    if (show != p.tracer->visible() || show) {
        p.tracer->setVisible(show);
        p.readout->setVisible(show);
        p.plot->replot(QCustomPlot::rpQueuedReplot);
    }
    // The shared cursor follows the mouse's virtual time on every plot.
    const double t = timeFor(p, show ? bestKey : key); // near a point: snap to it
    if (std::isfinite(t) && !records_.empty()) {
        setCursorTime(t);
        Q_EMIT cursorMoved(t);
    }
}

QString LivePlots::hoverText(Panel which) const {
    const PanelState& p = panels_[static_cast<int>(which)];
    return p.readout && p.readout->visible() ? p.readout->text() : QString();
}

void LivePlots::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    // A theme change: redraw in the new colours (plots built before it stayed white).
    if (event->type() == QEvent::PaletteChange) {
        needFullRedraw_ = true;
        schedule();
    }
    // Larger text (presentation mode: half as large again) needs taller plots, or their axis
    // labels are cut to "acc. (…": about eight lines of text each, never under 140 px.
    if (event->type() == QEvent::FontChange) {
        const int h = std::max(140, 8 * fontMetrics().height());
        for (auto& p : panels_) p.plot->setMinimumHeight(h);
        if (auto* figures = findChild<QScrollArea*>("figuresScroll")) figures->setMinimumHeight(h);
    }
}

bool LivePlots::eventFilter(QObject* watched, QEvent* event) {
    const int i = watched->property("fogPanel").isValid() ? watched->property("fogPanel").toInt() : -1;
    if (i >= 0 && i < kPanels) {
        PanelState& p = panels_[i];
        switch (event->type()) {
        case QEvent::Wheel:
            p.autoscale = false; // the user zooms: stop following the data
            break;
        case QEvent::MouseMove:
            if (static_cast<QMouseEvent*>(event)->buttons() != Qt::NoButton) p.autoscale = false;
            break;
        case QEvent::MouseButtonDblClick:
            p.autoscale = true;
            autoscale(p);
            p.plot->replot(QCustomPlot::rpQueuedReplot);
            return true;
        case QEvent::Leave:
            if (p.tracer && p.tracer->visible()) {
                p.tracer->setVisible(false);
                p.readout->setVisible(false);
                p.plot->replot(QCustomPlot::rpQueuedReplot);
            }
            if (!std::isnan(cursorTime_)) {
                setCursorTime(kNaN);
                Q_EMIT cursorMoved(kNaN);
            }
            break;
        default: break;
        }
    }
    return QWidget::eventFilter(watched, event);
}

} // namespace fog
