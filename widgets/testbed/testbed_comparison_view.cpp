// A testbed run against its prediction (testbed_comparison_view.h).

#include "widgets/testbed/testbed_comparison_view.h"
#include "core/store/run_store.h"
#include "widgets/figures/qcustomplot.h"
#include "widgets/figures/run_plots.h"

#include <QDialog>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace fog {

std::optional<TestbedComparisonData> loadTestbedComparison(const RunStore& store, qint64 run, QString* why) {
    auto refuse = [&](const QString& text) -> std::optional<TestbedComparisonData> {
        if (why) *why = text;
        return std::nullopt;
    };
    try {
        const auto measured = store.run(run);
        if (!measured) return refuse(QObject::tr("There is no run %1 in the store.").arg(run));
        const auto events = store.events(run);
        const auto prediction = testbed::predictionOf(events);
        if (!prediction)
            return refuse(QObject::tr("Run %1 is not a testbed run with a stored prediction (a run measured by "
                                      "Run on Testbed or fogstudio-cli testbed).")
                              .arg(run));
        const auto predicted = store.run(*prediction);
        if (!predicted)
            return refuse(QObject::tr("Run %1's prediction, run %2, is no longer stored.").arg(run).arg(*prediction));
        TestbedComparisonData d;
        d.measuredRun = run;
        d.predictionRun = *prediction;
        d.measuredName = QString::fromStdString(measured->name);
        d.predictionName = QString::fromStdString(predicted->name);
        const auto predictedRows = store.metrics(*prediction), measuredRows = store.metrics(run);
        d.comparison = testbed::compareRuns(predictedRows, measuredRows);
        bool trained = false;
        for (const auto& r : measuredRows) trained = trained || (r.level == 0 && !std::isnan(r.trainLoss));
        if (trained) d.training = testbed::compareTraining(predictedRows, measuredRows);
        d.links = testbed::storedLinks(events);
        for (const auto& e : events)
            if (e.kindName() == testbed::kEventKind && e.detail.rfind("prediction=", 0) == 0)
                d.description = QString::fromStdString(e.detail);
        return d;
    } catch (const StoreError& e) {
        return refuse(QString::fromStdString(e.what()));
    }
}

namespace {

QCustomPlot* newPlot(QWidget* parent, const QString& name, const QString& title) {
    auto* plot = new QCustomPlot(parent);
    plot->setObjectName(name);
    plot->setMinimumHeight(170);
    plot->plotLayout()->insertRow(0);
    plot->plotLayout()->addElement(0, 0, new QCPTextElement(plot, title, QFont(plot->font().family(), -1, QFont::Bold)));
    styleAxes(plot);
    return plot;
}

QString number(double v, int decimals) { return std::isnan(v) ? QString("-") : QString::number(v, 'f', decimals); }

} // namespace

TestbedComparisonView::TestbedComparisonView(QWidget* parent) : QWidget(parent) {
    setObjectName("testbedComparisonView");
    auto* layout = new QVBoxLayout(this);
    summary_ = new QLabel(this);
    summary_->setObjectName("testbedComparisonSummary");
    summary_->setWordWrap(true);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(summary_);
    auto* split = new QSplitter(Qt::Vertical, this);
    time_ = newPlot(split, "testbedRoundTimes", tr("Round time: predicted and measured"));
    error_ = newPlot(split, "testbedRoundErrors", tr("Error per round: (measured - predicted) / predicted"));
    bytes_ = newPlot(split, "testbedLinkBytes", tr("Bytes per link"));
    table_ = new QTableWidget(split);
    table_->setObjectName("testbedComparisonTable");
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->verticalHeader()->hide();
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    for (QWidget* w : {static_cast<QWidget*>(time_), static_cast<QWidget*>(error_), static_cast<QWidget*>(bytes_),
                       static_cast<QWidget*>(table_)})
        split->addWidget(w);
    layout->addWidget(split, 1);

    time_->xAxis->setLabel(tr("round"));
    time_->yAxis->setLabel(tr("time (s)"));
    QCPGraph* p = time_->addGraph();
    p->setName(tr("predicted (emulator)"));
    p->setPen(QPen(seriesColor(0), 2));
    p->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 6));
    QCPGraph* m = time_->addGraph();
    m->setName(tr("measured (testbed)"));
    m->setPen(QPen(seriesColor(1), 2));
    m->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCross, 8));
    time_->legend->setVisible(true);
    time_->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignBottom | Qt::AlignRight);

    error_->xAxis->setLabel(tr("round"));
    error_->yAxis->setLabel(tr("error (%)"));
    auto* bars = new QCPBars(error_->xAxis, error_->yAxis);
    bars->setName(tr("error"));
    bars->setWidth(0.6);
    bars->setPen(QPen(seriesColor(1)));
    bars->setBrush(seriesColor(1).lighter(130));

    bytes_->yAxis->setLabel(tr("MB"));
    auto* group = new QCPBarsGroup(bytes_);
    const QString names[3] = {tr("predicted"), tr("payload moved"), tr("on the wire (kernel)")};
    for (int i = 0; i < 3; ++i) {
        auto* b = new QCPBars(bytes_->xAxis, bytes_->yAxis);
        b->setName(names[i]);
        b->setWidth(0.25);
        b->setPen(QPen(seriesColor(i)));
        b->setBrush(seriesColor(i).lighter(130));
        b->setBarsGroup(group);
    }
    bytes_->legend->setVisible(true);
    legendBelowTheCurves(bytes_, 3); // not over the bars
    resize(900, 820);
}

void TestbedComparisonView::setData(const TestbedComparisonData& data) {
    data_ = data;
    const testbed::Comparison& c = data.comparison;
    summary_->setText(tr("<b>%1</b> (run %2) against its prediction <b>%3</b> (run %4): %5 rounds, predicted "
                         "%6 s, measured %7 s, total error %8%; per round mean |error| %9%, max %10%.")
                          .arg(data.measuredName.toHtmlEscaped())
                          .arg(data.measuredRun)
                          .arg(data.predictionName.toHtmlEscaped())
                          .arg(data.predictionRun)
                          .arg(c.rounds.size())
                          .arg(number(c.predictedEndS, 4), number(c.measuredEndS, 4))
                          .arg(QString::asprintf("%+.2f", c.totalErrorPct))
                          .arg(number(c.meanAbsErrorPct, 2), number(c.maxAbsErrorPct, 2)) +
                      (data.description.isEmpty() ? QString() : "<br><small>" + data.description.toHtmlEscaped() + "</small>"));

    // Round times and errors, x = the round's number.
    QVector<double> rounds, predicted, measured, errors;
    for (const auto& r : c.rounds) {
        rounds << r.round;
        predicted << r.predictedS;
        measured << r.measuredS;
        errors << r.errorPct;
    }
    time_->graph(0)->setData(rounds, predicted, true);
    time_->graph(1)->setData(rounds, measured, true);
    auto* bars = qobject_cast<QCPBars*>(error_->plottable(0));
    bars->setData(rounds, errors, true);
    for (QCustomPlot* plot : {time_, error_}) {
        plot->rescaleAxes();
        const double lo = rounds.isEmpty() ? 0.0 : rounds.front(), hi = rounds.isEmpty() ? 1.0 : rounds.back();
        plot->xAxis->setRange(lo - 0.6, hi + 0.6);
        QSharedPointer<QCPAxisTickerFixed> ticker(new QCPAxisTickerFixed);
        ticker->setTickStep(1.0);
        ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
        plot->xAxis->setTicker(ticker);
    }
    {
        double top = 0.0;
        for (double v : predicted + measured) top = std::max(top, v);
        time_->yAxis->setRange(0.0, top > 0 ? top * 1.15 : 1.0);
        double lo = 0.0, hi = 0.0;
        for (double e : errors) {
            lo = std::min(lo, e);
            hi = std::max(hi, e);
        }
        const double pad = std::max(1.0, 0.15 * (hi - lo));
        error_->yAxis->setRange(lo - (lo < 0 ? pad : 0.0), hi + pad);
    }

    // Bytes: a tick per link and direction, three bars on each.
    QVector<double> ticks, values[3];
    QVector<QString> labels;
    for (const auto& l : data.links) {
        for (int up = 1; up >= 0; --up) {
            ticks << ticks.size() + 1;
            labels << QString::fromStdString(l.name) + (up ? tr(" up") : tr(" down"));
            values[0] << (up ? l.predictedUp : l.predictedDown) / 1e6;
            values[1] << (up ? l.payloadUp : l.payloadDown) / 1e6;
            values[2] << (up ? l.wireUp : l.wireDown) / 1e6;
        }
    }
    double top = 0.0;
    for (int i = 0; i < 3; ++i) {
        qobject_cast<QCPBars*>(bytes_->plottable(i))->setData(ticks, values[i], true);
        for (double v : values[i]) top = std::max(top, v);
    }
    QSharedPointer<QCPAxisTickerText> text(new QCPAxisTickerText);
    text->setTicks(ticks, labels);
    bytes_->xAxis->setTicker(text);
    const bool rotated = ticks.size() > 4;
    bytes_->xAxis->setTickLabelRotation(rotated ? 30 : 0);
    // A rotated label runs right of its tick: the last one (a tiered tree's many links fill
    // the axis) needs a right margin as wide as its run, which the automatic margins leave out.
    bytes_->axisRect()->setAutoMargins(rotated ? QCP::msLeft | QCP::msTop | QCP::msBottom : QCP::msAll);
    if (rotated) {
        const QFontMetrics fm(bytes_->xAxis->tickLabelFont());
        const int run = static_cast<int>(std::ceil(fm.horizontalAdvance(labels.back()) * std::cos(M_PI / 6.0)));
        QMargins m = bytes_->axisRect()->margins();
        m.setRight(run + 8);
        bytes_->axisRect()->setMargins(m);
    }
    bytes_->xAxis->setRange(0.4, ticks.size() + 0.6);
    bytes_->yAxis->setRange(0.0, top > 0 ? top * 1.25 : 1.0);
    bytes_->setVisible(!data.links.empty());

    // The table: the values plotted, and the training values when the processes trained.
    QStringList headers{tr("round"), tr("predicted s"), tr("measured s"), tr("error %")};
    if (!data.training.empty())
        headers << tr("train loss predicted") << tr("train loss measured") << tr("accuracy predicted")
                << tr("accuracy measured") << tr("same bits");
    table_->clear();
    table_->setColumnCount(headers.size());
    table_->setHorizontalHeaderLabels(headers);
    table_->setRowCount(static_cast<int>(c.rounds.size()));
    for (int i = 0; i < static_cast<int>(c.rounds.size()); ++i) {
        const auto& r = c.rounds[static_cast<std::size_t>(i)];
        QStringList cells{QString::number(r.round), number(r.predictedS, 4), number(r.measuredS, 4),
                          QString::asprintf("%+.2f", r.errorPct)};
        if (i < static_cast<int>(data.training.size())) {
            const auto& t = data.training[static_cast<std::size_t>(i)];
            cells << QString::number(t.predictedTrainLoss, 'g', 10) << QString::number(t.measuredTrainLoss, 'g', 10)
                  << number(100.0 * t.predictedTestAccuracy, 2) << number(100.0 * t.measuredTestAccuracy, 2)
                  << (t.same ? tr("yes") : tr("NO"));
        }
        for (int k = 0; k < cells.size() && k < headers.size(); ++k) {
            auto* item = new QTableWidgetItem(cells[k]);
            item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            table_->setItem(i, k, item);
        }
    }
    for (QCustomPlot* plot : {time_, error_, bytes_}) plot->replot();
}

QDialog* showTestbedComparison(QWidget* parent, const RunStore& store, qint64 run) {
    QString why;
    const auto data = loadTestbedComparison(store, run, &why);
    if (!data) {
        QMessageBox::information(parent, QObject::tr("Testbed Comparison"), why);
        return nullptr;
    }
    auto* dialog = new QDialog(parent);
    dialog->setObjectName("testbedComparison");
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowTitle(QObject::tr("Testbed run %1 against its prediction").arg(run));
    auto* layout = new QVBoxLayout(dialog);
    auto* view = new TestbedComparisonView(dialog);
    view->setData(*data);
    layout->addWidget(view);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, dialog);
    QObject::connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::close);
    layout->addWidget(buttons);
    dialog->resize(960, 900);
    dialog->show();
    return dialog;
}

} // namespace fog
