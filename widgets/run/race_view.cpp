#include "widgets/run/race_view.h"

#include "core/engine/condition.h"
#include "core/scenario/scenario_io.h"
#include "widgets/document/scenario_document.h"
#include "widgets/figures/qcustomplot.h"
#include "widgets/common/scroll_page.h"
#include "widgets/figures/run_plots.h"
#include "widgets/run/run_controller.h"
#include "widgets/topology/run_legend.h"
#include "widgets/topology/topology_canvas.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>

namespace fog {

struct RaceView::Racer {
    QString label;
    Scenario scenario;
    QColor color;
    ScenarioDocument* doc = nullptr;
    TopologyCanvas* canvas = nullptr;
    RunController* run = nullptr;
    QLabel* title = nullptr;
    QLabel* figures = nullptr;
    bool held = false;
    double permit = 0.0; ///< the instant it may run to (RunController::runUntil on time)
    bool ended = false;
    double endClock = 0.0;
    qint64 runId = 0;
    AggregationRecord last;
    bool hasLast = false;
    double accuracy = kNaN;
    QString endText;
};

namespace {

constexpr PlotKind kKinds[3] = {PlotKind::TestAccuracy, PlotKind::TrainLoss, PlotKind::Cost};

const QVector<QPair<QString, double>>& raceSpeeds() {
    static const QVector<QPair<QString, double>> list = {
        {QObject::tr("1 s per second"), 1.0},   {QObject::tr("5 s per second"), 5.0},
        {QObject::tr("20 s per second"), 20.0}, {QObject::tr("100 s per second"), 100.0},
        {QObject::tr("As fast as possible"), 0.0},
    };
    return list;
}

} // namespace

RaceView::RaceView(QWidget* parent) : QWidget(parent) {
    setObjectName("raceView");
    titleLabel_ = new QLabel(this);
    titleLabel_->setObjectName("raceTitle");
    QFont big = titleLabel_->font();
    big.setBold(true);
    big.setPointSizeF(big.pointSizeF() * 1.15);
    titleLabel_->setFont(big);
    clockLabel_ = new QLabel(this);
    clockLabel_->setObjectName("raceClock");
    clockLabel_->setFont(big);
    startButton_ = new QPushButton(tr("Start the Race"), this);
    startButton_->setObjectName("raceStart");
    pauseButton_ = new QPushButton(tr("Pause"), this);
    pauseButton_->setObjectName("racePause");
    stopButton_ = new QPushButton(tr("Stop"), this);
    stopButton_->setObjectName("raceStop");
    speedCombo_ = new QComboBox(this);
    speedCombo_->setObjectName("raceSpeed");
    for (const auto& [text, value] : raceSpeeds()) speedCombo_->addItem(text, value);
    speedCombo_->setCurrentIndex(1);
    speedCombo_->setToolTip(tr("Virtual seconds per wall second, the same for every variant: one shared clock"));
    titleLabel_->setWordWrap(true);
    auto* top = new QHBoxLayout;
    top->addWidget(clockLabel_);
    top->addSpacing(12);
    top->addWidget(new QLabel(tr("Speed:"), this));
    top->addWidget(speedCombo_);
    top->addWidget(startButton_);
    top->addWidget(pauseButton_);
    top->addWidget(stopButton_);
    top->addStretch(1);

    columns_ = new QWidget(this);
    new QHBoxLayout(columns_);
    columns_->layout()->setContentsMargins(0, 0, 0, 0);

    auto* plotRow = new QWidget(this);
    auto* pl = new QHBoxLayout(plotRow);
    pl->setContentsMargins(0, 0, 0, 0);
    for (int k = 0; k < 3; ++k) {
        auto* box = new QWidget(plotRow);
        auto* bl = new QVBoxLayout(box);
        bl->setContentsMargins(0, 0, 0, 0);
        bl->setSpacing(1);
        auto* t = new QLabel(plotTitle(kKinds[k]), box);
        t->setAlignment(Qt::AlignHCenter);
        plots_[k] = new QCustomPlot(box);
        plots_[k]->setObjectName(QStringLiteral("racePlot%1").arg(k));
        plots_[k]->setMinimumHeight(120);
        bl->addWidget(t);
        bl->addWidget(plots_[k], 1);
        pl->addWidget(box, 1);
    }

    // One key to the canvases' colours and tags, under all of them.
    auto* key = new RunLegend(this);
    key->setObjectName("raceKey");
    auto* upper = new QWidget(this);
    auto* ul = new QVBoxLayout(upper);
    ul->setContentsMargins(0, 0, 0, 0);
    ul->setSpacing(2);
    ul->addWidget(columns_, 1);
    ul->addWidget(key);
    key->setFixedHeight(key->heightForWidth(700));


    // Everything scrolls where the window is smaller than the race needs: it never widens
    // the window past the screen.
    auto* content = new QWidget(this);
    auto* layout = new QVBoxLayout(content);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(titleLabel_);
    layout->addLayout(top);
    layout->addWidget(upper, 3); // the canvases 3/5 of the height, the plots 2/5
    layout->addWidget(plotRow, 2);
    content->setMinimumSize(560, 420);
    fillWithScrolling(this, content, "raceScroll");

    timer_ = new QTimer(this);
    timer_->setInterval(50);
    connect(timer_, &QTimer::timeout, this, &RaceView::tick);
    connect(startButton_, &QPushButton::clicked, this, &RaceView::start);
    connect(pauseButton_, &QPushButton::clicked, this, [this] { paused_ ? resume() : pause(); });
    connect(stopButton_, &QPushButton::clicked, this, &RaceView::stop);
    connect(speedCombo_, &QComboBox::currentIndexChanged, this,
            [this] { setPlaybackSpeed(speedCombo_->currentData().toDouble()); });
    updateButtons();
}

RaceView::~RaceView() {
    // Runs first (each controller cancels its run and waits), then the canvases, then the
    // documents they show.
    for (auto& r : racers_) {
        delete r->run;
        r->run = nullptr;
    }
    delete columns_;
    columns_ = nullptr;
    for (auto& r : racers_) delete r->doc;
}

bool RaceView::setRacers(const std::vector<Entry>& entries, QString* why) {
    auto fail = [why](const QString& m) {
        if (why) *why = m;
        return false;
    };
    if (entries.size() < 2 || entries.size() > static_cast<std::size_t>(kMaxRacers))
        return fail(tr("A race takes two or three variants (%1 chosen).").arg(entries.size()));
    for (const Entry& e : entries) {
        const auto problems = validateScenario(e.scenario);
        if (!problems.empty())
            return fail(tr("%1 cannot run: %2 %3")
                            .arg(e.label, QString::fromStdString(problems.front().path),
                                 QString::fromStdString(problems.front().message)));
    }
    for (auto& r : racers_) {
        delete r->run;
        r->run = nullptr;
    }
    auto* old = columns_->layout();
    while (QLayoutItem* item = old->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    for (auto& r : racers_) delete r->doc;
    racers_.clear();
    started_ = paused_ = finishedEmitted_ = false;

    QStringList labels;
    for (std::size_t i = 0; i < entries.size(); ++i) {
        auto r = std::make_unique<Racer>();
        r->label = entries[i].label;
        r->scenario = entries[i].scenario;
        r->color = seriesColor(static_cast<int>(i));
        r->doc = new ScenarioDocument(this);
        r->doc->setScenario(r->scenario);
        auto* column = new QWidget(columns_);
        auto* cl = new QVBoxLayout(column);
        cl->setContentsMargins(2, 0, 2, 0);
        cl->setSpacing(2);
        r->title = new QLabel(column);
        r->title->setObjectName(QStringLiteral("raceTitle%1").arg(i));
        r->title->setTextFormat(Qt::RichText);
        r->title->setText(QStringLiteral("<span style=\"color:%1; font-size:large\">&#9632;</span> <b>%2</b>")
                              .arg(r->color.name(), r->label.toHtmlEscaped()));
        r->canvas = new TopologyCanvas(r->doc, column);
        r->canvas->setObjectName(QStringLiteral("raceCanvas%1").arg(i));
        r->canvas->setInteractive(false); // a race shows; the editor edits
        r->canvas->setProperty("fogNoRunLegend", true); // the race's one key is under the columns
        r->canvas->setMinimumSize(160, 120);
        // A race is watched, not panned: no scroll bars round the fitted topology (the scene
        // keeps room around it for panning, which drew them on every column).
        r->canvas->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
        r->canvas->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
        r->figures = new QLabel(column);
        r->figures->setObjectName(QStringLiteral("raceFigures%1").arg(i));
        r->figures->setWordWrap(true);
        cl->addWidget(r->title);
        cl->addWidget(r->canvas, 1);
        cl->addWidget(r->figures);
        columns_->layout()->addWidget(column);
        r->run = new RunController(this);
        Racer* raw = r.get();
        const int index = static_cast<int>(i);
        connect(r->run, &RunController::started, this, [raw](const RunInfo& info, qint64 id) {
            raw->runId = id;
            raw->canvas->setRunNodes(info.nodes);
            raw->canvas->setRunLinks(info.links);
        });
        connect(r->run, &RunController::activity, r->canvas, &TopologyCanvas::showFrame);
        connect(r->run, &RunController::metrics, this, [this, raw, index](const std::vector<AggregationRecord>& records) {
            for (int k = 0; k < 3; ++k) appendMetric(plots_[k], index, records, kKinds[k]);
            for (const AggregationRecord& rec : records) {
                if (rec.level != 0) continue;
                raw->last = rec;
                raw->hasLast = true;
                if (!std::isnan(rec.testAccuracy)) raw->accuracy = rec.testAccuracy;
            }
            updateFigures(index);
        });
        connect(r->run, &RunController::error, this, [this, raw](const QString& m) {
            Q_EMIT message(tr("%1: %2").arg(raw->label, m));
        });
        connect(r->run, &RunController::finished, this, [this, raw, index](const RunSummary& s, qint64 id) {
            raw->ended = true;
            raw->held = false;
            raw->runId = id;
            raw->endClock = s.virtualTime;
            if (!std::isnan(s.finalTestAccuracy)) raw->accuracy = s.finalTestAccuracy;
            raw->endText = tr("ended at t = %1 s after %2 rounds (%3)")
                               .arg(s.virtualTime, 0, 'f', 1)
                               .arg(s.rounds)
                               .arg(QString::fromStdString(s.stopReason));
            raw->canvas->clearRunState();
            updateFigures(index);
            tick();
        });
        labels << r->label;
        racers_.push_back(std::move(r));
    }
    titleLabel_->setText(tr("Race: %1").arg(labels.join(tr(" vs "))));

    std::vector<PlotSeries> series;
    for (const auto& r : racers_) series.push_back({r->label, r->color, {}});
    PlotOptions o;
    o.legend = false; // the columns' titles carry the colours: no legend over the curves
    for (int k = 0; k < 3; ++k) {
        plotMetric(plots_[k], series, kKinds[k], o);
        nowLines_[k] = new QCPItemStraightLine(plots_[k]);
        QColor c = plots_[k]->palette().color(QPalette::WindowText);
        c.setAlpha(110);
        nowLines_[k]->setPen(QPen(c, 1, Qt::DashLine));
        nowLines_[k]->point1->setCoords(0, 0);
        nowLines_[k]->point2->setCoords(0, 1);
        plots_[k]->xAxis->setRange(0, 10);
        plots_[k]->replot();
    }
    for (int i = 0; i < racerCount(); ++i) updateFigures(i);
    clockLabel_->setText(tr("t = 0 s"));
    updateButtons();
    QTimer::singleShot(0, this, [this] {
        for (auto& r : racers_) r->canvas->zoomFit();
    });
    return true;
}

void RaceView::setPlaybackSpeed(double speed) {
    speed_ = speed;
    for (int i = 0; i < speedCombo_->count(); ++i)
        if (std::abs(speedCombo_->itemData(i).toDouble() - speed) < 1e-9 && speedCombo_->currentIndex() != i)
            speedCombo_->setCurrentIndex(i);
    for (auto& r : racers_) r->run->setPlaybackSpeed(speed);
}

QString RaceView::label(int i) const { return racers_.at(static_cast<std::size_t>(i))->label; }
TopologyCanvas* RaceView::canvas(int i) const { return racers_.at(static_cast<std::size_t>(i))->canvas; }
RunController* RaceView::controller(int i) const { return racers_.at(static_cast<std::size_t>(i))->run; }

double RaceView::clockOf(int i) const {
    const Racer& r = *racers_.at(static_cast<std::size_t>(i));
    return r.ended ? r.endClock : r.run->runClock();
}

double RaceView::sharedClock() const {
    double lowest = std::numeric_limits<double>::infinity(), highest = 0.0;
    for (int i = 0; i < racerCount(); ++i) {
        const double c = clockOf(i);
        highest = std::max(highest, c);
        if (!racers_[static_cast<std::size_t>(i)]->ended) lowest = std::min(lowest, c);
    }
    return std::isfinite(lowest) ? lowest : highest;
}

double RaceView::slack() const {
    // About a seventh of a wall second of play at a teaching speed; at full speed 5% of the
    // time reached (at least 2 s): the horizon then grows by that much per tick (20 a
    // second), so a fast race is not slowed much, and the faster run waits rather than
    // races off.
    return speed_ > 0 ? std::max(0.5, 0.15 * speed_) : std::max(2.0, 0.05 * sharedClock());
}

bool RaceView::isRunning() const {
    for (const auto& r : racers_)
        if (r->run->isActive()) return true;
    return false;
}

QList<qint64> RaceView::runIds() const {
    QList<qint64> ids;
    for (const auto& r : racers_) ids << r->runId;
    return ids;
}

void RaceView::start() {
    if (racers_.empty() || isRunning()) return;
    const int each = std::max(1, threads_ / racerCount());
    started_ = true;
    holds_ = 0;
    paused_ = false;
    finishedEmitted_ = false;
    std::vector<PlotSeries> series;
    for (auto& r : racers_) {
        r->ended = r->held = r->hasLast = false;
        r->accuracy = kNaN;
        r->endText.clear();
        series.push_back({r->label, r->color, {}});
    }
    PlotOptions o;
    o.legend = false;
    for (int k = 0; k < 3; ++k) { // fresh curves (a second race after the first)
        plotMetric(plots_[k], series, kKinds[k], o);
        nowLines_[k] = new QCPItemStraightLine(plots_[k]);
        QColor c = plots_[k]->palette().color(QPalette::WindowText);
        c.setAlpha(110);
        nowLines_[k]->setPen(QPen(c, 1, Qt::DashLine));
    }
    for (auto& r : racers_) {
        r->run->setPlaybackSpeed(speed_);
        r->permit = slack();
        r->run->runUntil(Condition{ConditionMetric::Time, r->permit}); // applies to the run started next
        if (!r->run->start(r->scenario, dbPath_, each, namer_ ? namer_(r->label) : QString())) {
            stop();
            return;
        }
    }
    for (auto& r : racers_) r->canvas->zoomFit(); // the tab is shown by now: fit its real size
    timer_->start();
    updateButtons();
}

void RaceView::pause() {
    paused_ = true;
    for (auto& r : racers_)
        if (r->run->state() == RunController::State::Running) r->run->pause();
    updateButtons();
}

void RaceView::resume() {
    paused_ = false;
    const double horizon = sharedClock() + slack();
    for (auto& r : racers_) {
        r->held = false;
        if (r->ended || !r->run->isActive()) continue;
        r->permit = horizon; // resumes it, to the shared horizon
        r->run->runUntil(Condition{ConditionMetric::Time, horizon});
    }
    tick();
    updateButtons();
}

void RaceView::stop() {
    paused_ = false;
    for (auto& r : racers_) {
        r->held = false;
        if (r->run->isActive()) r->run->stop();
    }
    updateButtons();
}

void RaceView::tick() {
    if (!started_) return;
    const double shared = sharedClock();
    const double s = slack();
    if (!paused_) {
        // Each racer may run up to the shared clock plus the slack, and pauses there by
        // itself (the engine checks the time at every event): whoever gets ahead waits, at
        // the same instant, for the others. The horizon moves on as the slowest one runs.
        const double horizon = shared + s;
        for (std::size_t i = 0; i < racers_.size(); ++i) {
            Racer& r = *racers_[i];
            if (r.ended || !r.run->isActive()) continue;
            const bool waiting = r.run->state() == RunController::State::Paused;
            // Held: it waited at its horizon, ahead of the slowest, since the last tick. Read
            // before the new horizon lets it go on: a racer that reaches every horizon the
            // slowest one moves on is held all along, though it is running at this instant.
            const bool held = waiting && r.run->runClock() > shared + 1e-9;
            if (horizon > r.permit + 0.25 * s || (waiting && horizon > r.permit + 1e-9)) {
                r.permit = horizon;
                r.run->runUntil(Condition{ConditionMetric::Time, horizon});
            }
            if (held != r.held) {
                r.held = held;
                if (held) ++holds_;
                updateFigures(static_cast<int>(i));
            }
        }
    }
    clockLabel_->setText(tr("t = %1 s").arg(shared, 0, 'f', shared < 100 ? 1 : 0));
    for (int k = 0; k < 3; ++k) {
        QCustomPlot* p = plots_[k];
        p->xAxis->setRange(0, std::max(1.0, shared * 1.04));
        bool found = false;
        QCPRange values;
        for (int g = 0; g < p->graphCount(); ++g) {
            bool f = false;
            const QCPRange r = p->graph(g)->getValueRange(f);
            if (!f) continue;
            values = found ? QCPRange(std::min(values.lower, r.lower), std::max(values.upper, r.upper)) : r;
            found = true;
        }
        if (found) {
            const double pad = std::max(1e-9, 0.06 * values.size());
            p->yAxis->setRange(kKinds[k] == PlotKind::Cost ? 0.0 : values.lower - pad, values.upper + pad);
        }
        if (nowLines_[k]) {
            nowLines_[k]->point1->setCoords(shared, 0);
            nowLines_[k]->point2->setCoords(shared, 1);
        }
        p->replot(QCustomPlot::rpQueuedReplot);
    }
    bool allEnded = !racers_.empty();
    for (const auto& r : racers_) allEnded = allEnded && r->ended;
    if (allEnded) {
        timer_->stop();
        updateButtons();
        if (!finishedEmitted_) {
            finishedEmitted_ = true;
            Q_EMIT finished(runIds());
        }
    }
}

void RaceView::updateFigures(int i) {
    Racer& r = *racers_[static_cast<std::size_t>(i)];
    QStringList parts;
    if (r.hasLast) {
        parts << tr("round %1").arg(r.last.round) << tr("t = %1 s").arg(r.last.time, 0, 'f', 1);
        parts << tr("accuracy %1").arg(std::isnan(r.accuracy) ? QStringLiteral("–")
                                                                : QString::number(100 * r.accuracy, 'f', 1) + '%');
        parts << tr("cost $%1").arg(r.last.cost, 0, 'f', 3);
    } else {
        parts << (started_ ? tr("starting…") : tr("ready"));
    }
    QString text = parts.join(QStringLiteral(" · "));
    if (r.ended) text += QStringLiteral("\n") + r.endText;
    else if (r.held) text += QStringLiteral("\n") + tr("ahead: waits for the others (shared clock)");
    r.figures->setText(text);
}

void RaceView::updateButtons() {
    const bool going = isRunning();
    startButton_->setEnabled(!racers_.empty() && !going);
    startButton_->setText(started_ && !going ? tr("Race Again") : tr("Start the Race"));
    pauseButton_->setEnabled(going);
    pauseButton_->setText(paused_ ? tr("Resume") : tr("Pause"));
    stopButton_->setEnabled(going);
}

} // namespace fog
