#include "widgets/seek/seek_dialog.h"

#include "core/policies/policy_info.h"
#include "core/scenario/scenario_io.h"
#include "core/store/run_store.h"
#include "core/sweep/sweep.h"

#include <QCheckBox>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QThread>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace fog {

namespace {

QString fmt(double v, int digits = 4) { return std::isnan(v) ? QString("-") : QString::number(v, 'g', digits); }

} // namespace

QStringList SeekDialog::paramCandidates(const Scenario& scenario) {
    QStringList lines;
    // selection.k only where the selection policy has a k (the presets that select `all`
    // refuse it), over what the scenario's trainers allow.
    long long trainers = 0;
    const auto counts = memberCounts(scenario.topology);
    for (std::size_t i = 0; i < counts.size(); ++i)
        if (roleTrains(scenario.topology.nodes[i].role)) trainers += counts[i];
    if (const PolicyInfo* sel = findSelectionPolicy(scenario.selection.name)) {
        const auto k = std::find_if(sel->params.begin(), sel->params.end(), [](const PolicyParamInfo& p) { return p.key == "k"; });
        if (k != sel->params.end() && trainers >= 2) {
            const long long lo = std::max<long long>(1, static_cast<long long>(k->min));
            const long long hi = std::min<long long>(trainers, 8);
            if (hi > lo) lines << QString("selection.k=int:%1..%2").arg(lo).arg(hi);
        }
    }
    // The scenario's sync policy against the first other one of the catalogue that fits
    // the same tree (refused where the scenario or a variant sets the policy's parameters).
    const auto& syncs = syncPolicyInfos();
    const std::string current = scenario.sync.name.empty() ? syncs.front().name : scenario.sync.name;
    const PolicyInfo* cur = findSyncPolicy(current);
    const auto other = std::find_if(syncs.begin(), syncs.end(), [&](const PolicyInfo& i) {
        return i.name != current && (!cur || i.shape == cur->shape);
    });
    if (other != syncs.end())
        lines << "sync.policy=choice:" + QString::fromStdString(current) + "," + QString::fromStdString(other->name);
    // The current policy's first whole-number parameter, around its value.
    if (cur)
        for (const PolicyParamInfo& p : cur->params) {
            if (!p.integer) continue;
            const long long lo = std::max<long long>(static_cast<long long>(p.min), 1);
            const long long hi = std::min<long long>(static_cast<long long>(std::min(p.max, 1e6)), std::max<long long>(lo + 1, 8));
            if (hi > lo) lines << QString("sync.%1=int:%2..%3").arg(QString::fromStdString(p.key)).arg(lo).arg(hi);
            break;
        }
    // Trained models: the learning rate, a third to three times the scenario's.
    if (scenario.model.kind != ModelSpec::Kind::None && scenario.training.learningRate > 0)
        lines << QString("training.learning_rate=log:%1..%2")
                     .arg(scenario.training.learningRate / 3, 0, 'g', 3)
                     .arg(scenario.training.learningRate * 3, 0, 'g', 3);
    return lines;
}

QString SeekDialog::chooseDefaultParams() {
    // The first two candidates the search accepts for this scenario (its variants
    // included): the form never starts with a parameter the scenario refuses.
    QStringList kept;
    for (const QString& c : paramCandidates(scenario_)) {
        if (kept.size() == 2) break;
        params_->setPlainText(c);
        try {
            planSeek(spec());
            kept << c;
        } catch (const std::exception&) {
        }
    }
    // None: the first, so that the form says why it cannot start.
    if (kept.isEmpty() && !paramCandidates(scenario_).isEmpty()) kept << paramCandidates(scenario_).front();
    return kept.join('\n');
}

void SeekDialog::checkForm() {
    if (thread_) return;
    QString why;
    try {
        planSeek(spec());
    } catch (const std::exception& e) {
        why = QString::fromStdString(e.what());
    }
    startButton_->setEnabled(why.isEmpty() && store_);
    startButton_->setToolTip(why.isEmpty() ? QString() : tr("Cannot start: %1").arg(why));
    problem_ = why;
    if (!why.isEmpty()) {
        status_->setText(tr("Cannot start: %1").arg(why));
        status_->setStyleSheet("QLabel { color: #d55e00; }");
    } else if (status_->styleSheet().contains("d55e00")) {
        status_->setStyleSheet(QString());
        status_->setText(intro_);
    }
}

SeekDialog::SeekDialog(const Scenario& scenario, RunStore* store, std::function<void()> onRunsStored, QWidget* parent)
    : QDialog(parent), scenario_(scenario), store_(store), onRunsStored_(std::move(onRunsStored)) {
    setWindowTitle(tr("Seek a configuration: %1").arg(QString::fromStdString(scenario.name)));
    setObjectName("seekDialog");
    resize(820, 640);

    auto* form = new QFormLayout;
    objective_ = new QComboBox;
    objective_->setObjectName("seekObjective");
    for (const char* o : {"min:cost", "min:time", "min:energy", "min:bytes", "max:accuracy"})
        objective_->addItem(QString::fromLatin1(o), QString::fromLatin1(o));
    form->addRow(tr("Objective"), objective_);

    auto* accRow = new QHBoxLayout;
    useAccuracy_ = new QCheckBox(tr("test accuracy at least"));
    useAccuracy_->setObjectName("seekUseAccuracy");
    useAccuracy_->setChecked(scenario.model.kind != ModelSpec::Kind::None); // timing only: no accuracy
    accuracy_ = new QDoubleSpinBox;
    accuracy_->setObjectName("seekAccuracy");
    accuracy_->setRange(1, 100); // in percent, like every accuracy the studio shows
    accuracy_->setDecimals(1);
    accuracy_->setSuffix(" %");
    accuracy_->setSingleStep(5);
    accuracy_->setValue(80);
    deadline_ = new QDoubleSpinBox;
    deadline_->setRange(0, 1e9);
    deadline_->setSuffix(tr(" s"));
    deadline_->setSpecialValueText(tr("any time"));
    deadline_->setValue(scenario.stop.virtualTimeS);
    accRow->addWidget(useAccuracy_);
    accRow->addWidget(accuracy_);
    accRow->addWidget(new QLabel(tr("by virtual time")));
    accRow->addWidget(deadline_);
    accRow->addStretch();
    form->addRow(tr("Constraint"), accRow);

    auto* budgetRow = new QHBoxLayout;
    useBudget_ = new QCheckBox(tr("cost at most"));
    useBudget_->setObjectName("seekUseBudget");
    budget_ = new QDoubleSpinBox;
    budget_->setObjectName("seekBudget");
    budget_->setRange(0.0001, 1e9);
    budget_->setDecimals(4);
    budget_->setValue(scenario.stop.budget > 0 ? scenario.stop.budget : 1.0);
    budgetRow->addWidget(useBudget_);
    budgetRow->addWidget(budget_);
    budgetRow->addStretch();
    form->addRow(tr("Budget"), budgetRow);

    params_ = new QPlainTextEdit;
    params_->setObjectName("seekParams");
    params_->setPlaceholderText(tr("one per line: KEY=int:LO..HI[:STEP] | real:LO..HI | log:LO..HI | choice:A,B"));
    params_->setMaximumHeight(90);
    form->addRow(tr("Parameters"), params_);

    auto* searchRow = new QHBoxLayout;
    halving_ = new QComboBox;
    halving_->addItem(tr("automatic"), "");
    halving_->addItem(tr("rounds"), "rounds");
    halving_->addItem(tr("virtual time"), "time");
    repeats_ = new QSpinBox;
    repeats_->setRange(1, 50);
    repeats_->setValue(2);
    eta_ = new QSpinBox;
    eta_->setRange(2, 10);
    eta_->setValue(3);
    trials_ = new QSpinBox;
    trials_->setRange(0, 10000);
    trials_->setSpecialValueText(tr("auto"));
    parallel_ = new QSpinBox;
    parallel_->setRange(1, std::max(1, QThread::idealThreadCount()));
    parallel_->setValue(std::max(1, QThread::idealThreadCount() / 2));
    searchRow->addWidget(new QLabel(tr("halving on")));
    searchRow->addWidget(halving_);
    searchRow->addWidget(new QLabel(tr("eta")));
    searchRow->addWidget(eta_);
    searchRow->addWidget(new QLabel(tr("repeats")));
    searchRow->addWidget(repeats_);
    searchRow->addWidget(new QLabel(tr("configurations")));
    searchRow->addWidget(trials_);
    searchRow->addWidget(new QLabel(tr("runs at once")));
    searchRow->addWidget(parallel_);
    searchRow->addStretch();
    form->addRow(tr("Search"), searchRow);

    progress_ = new QProgressBar;
    progress_->setObjectName("seekProgress");
    progress_->setValue(0);
    intro_ = tr("Successive halving: every configuration runs with the same random numbers per "
                "repeat; the best third goes on with three times the budget.");
    status_ = new QLabel(intro_);
    status_->setObjectName("seekStatus");
    status_->setWordWrap(true);
    best_ = new QLabel;
    best_->setObjectName("seekBest");
    best_->setWordWrap(true);
    best_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    table_ = new QTableWidget(0, 7);
    table_->setObjectName("seekTable");
    table_->setHorizontalHeaderLabels(
        {tr("Rung"), tr("Feasible"), tr("Objective (95% CI)"), tr("Accuracy"), tr("Time s"), tr("Cost"), tr("Configuration")});
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->verticalHeader()->setVisible(true);

    auto* buttons = new QDialogButtonBox;
    startButton_ = buttons->addButton(tr("Start"), QDialogButtonBox::ActionRole);
    startButton_->setObjectName("seekStart");
    cancelButton_ = buttons->addButton(tr("Cancel search"), QDialogButtonBox::ActionRole);
    cancelButton_->setEnabled(false);
    buttons->addButton(QDialogButtonBox::Close);
    connect(startButton_, &QPushButton::clicked, this, &SeekDialog::start);
    connect(cancelButton_, &QPushButton::clicked, this, &SeekDialog::cancel);
    connect(buttons, &QDialogButtonBox::rejected, this, &SeekDialog::reject);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(progress_);
    layout->addWidget(status_);
    layout->addWidget(best_);
    layout->addWidget(table_, 1);
    layout->addWidget(buttons);

    // The search reads a file: the scenario as it is in the studio now, edits included. The
    // store keeps its path with the search's runs: beside the database (sweeps/), so it stays
    // after the dialog closes; a temporary folder only when that cannot be written.
    QString dir;
    if (store_) {
        const QDir sweeps(QFileInfo(QString::fromStdString(store_->path())).absoluteDir().filePath("sweeps"));
        if (QDir().mkpath(sweeps.path())) dir = sweeps.path();
    }
    if (dir.isEmpty()) {
        tmp_ = std::make_unique<QTemporaryDir>();
        dir = tmp_->path();
    }
    QString stem = QString::fromStdString(scenario.name).toLower();
    stem.replace(QRegularExpression("[^a-z0-9]+"), "-");
    file_ = QDir(dir).filePath("seek-" + stem.left(40) + "-" +
                               QDateTime::currentDateTime().toString("yyyyMMdd-hhmmss-zzz") + ".yaml");
    // As the sweep dialog writes it: trace files by their absolute paths, so that the copy
    // reads the same traces from its folder.
    QFile out(file_);
    if (out.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
        out.write(QByteArray::fromStdString(storedScenarioText(scenario_)));
        out.close();
    } else {
        status_->setText(tr("Cannot write %1: %2").arg(QDir::toNativeSeparators(file_), out.errorString()));
        file_.clear();
    }

    if (!file_.isEmpty()) params_->setPlainText(chooseDefaultParams());
    // Every problem of the form as it is typed, where the user looks: beside Start, which
    // stays off while the search could not start.
    checkTimer_ = new QTimer(this);
    checkTimer_->setSingleShot(true);
    checkTimer_->setInterval(300);
    connect(checkTimer_, &QTimer::timeout, this, &SeekDialog::checkForm);
    connect(params_, &QPlainTextEdit::textChanged, checkTimer_, qOverload<>(&QTimer::start));
    for (QCheckBox* c : {useAccuracy_, useBudget_}) connect(c, &QCheckBox::toggled, checkTimer_, qOverload<>(&QTimer::start));
    checkForm();
}

SeekDialog::~SeekDialog() {
    cancel_ = true;
    if (thread_) {
        thread_->wait();
        delete thread_;
    }
}

SeekSpec SeekDialog::spec() const {
    SeekSpec s;
    s.file = file_.toStdString();
    s.objective = parseObjective(objective_->currentData().toString().toStdString());
    if (useAccuracy_->isChecked()) {
        std::string c = "accuracy>=" + QString::number(accuracy_->value() / 100.0, 'g', 6).toStdString();
        if (deadline_->value() > 0) c += "@" + QString::number(deadline_->value()).toStdString();
        s.constraints.push_back(parseConstraint(c));
    }
    if (useBudget_->isChecked())
        s.constraints.push_back(parseConstraint("cost<=" + QString::number(budget_->value(), 'g', 10).toStdString()));
    for (const QString& line : params_->toPlainText().split('\n', Qt::SkipEmptyParts))
        if (!line.trimmed().isEmpty()) s.params.push_back(parseParam(line.trimmed().toStdString()));
    const QString h = halving_->currentData().toString();
    if (!h.isEmpty()) {
        s.resourceGiven = true;
        s.resource = h == "time" ? SeekSpec::Resource::Time : SeekSpec::Resource::Rounds;
    }
    s.repeats = repeats_->value();
    s.eta = eta_->value();
    s.trials = trials_->value();
    s.parallel = parallel_->value();
    s.threadsPerRun = 1;
    s.name = "seek " + describe(s.objective) + ": " + scenario_.name;
    s.tags = {"studio"};
    return s;
}

void SeekDialog::setBusy(bool busy) {
    startButton_->setEnabled(!busy);
    cancelButton_->setEnabled(busy);
    for (QWidget* w : std::initializer_list<QWidget*>{objective_, useAccuracy_, accuracy_, deadline_, useBudget_,
                                                      budget_, params_, halving_, repeats_, eta_, trials_, parallel_})
        w->setEnabled(!busy);
}

void SeekDialog::start() {
    if (thread_ || !store_) {
        if (!store_) status_->setText(tr("No run store is open: the search stores every trial, so it cannot run."));
        return;
    }
    SeekSpec s;
    try {
        s = spec();
        planSeek(s); // every problem now, before anything runs
    } catch (const ScenarioError& e) {
        status_->setText(tr("Cannot start: %1").arg(QString::fromStdString(e.what())));
        return;
    }
    cancel_ = false;
    table_->setRowCount(0);
    best_->clear();
    progress_->setRange(0, 0);
    status_->setText(tr("Searching..."));
    setBusy(true);
    thread_ = QThread::create([this, s] {
        SeekResult result;
        QString error;
        try {
            result = runSeek(
                s, *store_,
                [this](const SeekProgress& p) {
                    QMetaObject::invokeMethod(this, [this, p] { onProgress(p); }, Qt::QueuedConnection);
                },
                &cancel_);
        } catch (const std::exception& e) {
            error = QString::fromStdString(e.what());
        }
        QMetaObject::invokeMethod(this, [this, result, error] { onDone(result, error); }, Qt::QueuedConnection);
    });
    thread_->start();
}

void SeekDialog::cancel() {
    if (!thread_) return;
    cancel_ = true;
    status_->setText(tr("Cancelling: the runs under way stop, what ran stays stored..."));
}

void SeekDialog::reject() {
    if (thread_) {
        cancel();
        closeWhenDone_ = true; // closes once the search has stopped (onDone)
        return;
    }
    QDialog::reject();
}

void SeekDialog::onProgress(const SeekProgress& p) {
    progress_->setRange(0, std::max(1, p.total));
    progress_->setValue(p.done);
    progress_->setFormat(tr("rung %1/%2: %v of %m runs").arg(p.rung + 1).arg(p.rungs));
    status_->setText(tr("%1 #%2: %3, objective %4")
                         .arg(QString::fromStdString(p.config))
                         .arg(p.repeat)
                         .arg(p.score.feasible ? tr("meets the constraints") : tr("violates them"))
                         .arg(fmt(p.score.objective)));
    if (onRunsStored_) onRunsStored_();
}

void SeekDialog::onDone(const SeekResult& r, const QString& error) {
    if (thread_) {
        thread_->wait();
        delete thread_;
        thread_ = nullptr;
    }
    setBusy(false);
    progress_->setRange(0, 1);
    progress_->setValue(1);
    if (onRunsStored_) onRunsStored_();
    const bool closing = closeWhenDone_;
    closeWhenDone_ = false;
    if (!error.isEmpty()) {
        status_->setText(tr("The search stopped: %1").arg(error));
        progress_->setFormat(tr("stopped"));
        Q_EMIT finished(false);
        if (closing) QDialog::reject();
        return;
    }
    SeekObjective objective;
    try {
        objective = parseObjective(objective_->currentData().toString().toStdString());
    } catch (const ScenarioError&) {
    }
    // Accuracies in percent, as everywhere in the studio (the objective too when it is one).
    const bool accuracyObjective = objective.metric == SeekMetric::Accuracy;
    auto percent = [](double v) { return std::isnan(v) ? QString("-") : QString::number(100 * v, 'f', 1) + " %"; };
    auto objText = [&](double v, int digits = 4) {
        return accuracyObjective ? (std::isnan(v) ? QString("-") : QString::number(100 * v, 'f', 1) + " %") : fmt(v, digits);
    };
    std::vector<std::size_t> order(r.configs.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        const auto &x = r.configs[a], &y = r.configs[b];
        if (x.rung != y.rung) return x.rung > y.rung;
        return ranksBefore(x, y, objective);
    });
    table_->setRowCount(static_cast<int>(order.size()));
    for (int row = 0; row < static_cast<int>(order.size()); ++row) {
        const auto& c = r.configs[order[static_cast<std::size_t>(row)]];
        int ok = 0;
        for (const auto& s : c.scores) ok += s.feasible;
        const QString obj = std::isnan(c.objective.halfWidth)
                                ? objText(c.objective.mean)
                                : objText(c.objective.mean) + QString::fromUtf8(" \u00b1 ") + objText(c.objective.halfWidth, 3);
        const QStringList cells{QString::number(c.rung + 1), QString("%1/%2").arg(ok).arg(c.scores.size()), obj,
                                percent(c.accuracy), fmt(c.time), fmt(c.cost), QString::fromStdString(c.label)};
        for (int col = 0; col < cells.size(); ++col) table_->setItem(row, col, new QTableWidgetItem(cells[col]));
    }
    table_->resizeColumnsToContents();
    if (r.best >= 0) {
        const auto& b = r.configs[static_cast<std::size_t>(r.best)];
        QString text = tr("<b>Best:</b> %1: %2 %3").arg(QString::fromStdString(b.label).toHtmlEscaped())
                           .arg(QString::fromLatin1(toString(objective.metric)))
                           .arg(objText(b.objective.mean));
        if (!std::isnan(b.objective.halfWidth))
            text += tr(", 95% CI [%1, %2]").arg(objText(b.objective.mean - b.objective.halfWidth))
                        .arg(objText(b.objective.mean + b.objective.halfWidth));
        best_->setText(text);
    } else {
        best_->setText(tr("No configuration met the constraints in every repeat."));
    }
    QString done = tr("%1 runs stored as sweep %2").arg(r.runs).arg(r.sweepId);
    if (r.gridSize > 0) done += tr("; the whole grid would take %1 runs").arg(r.gridSize * repeats_->value());
    if (r.cancelled) done = tr("Cancelled. ") + done;
    status_->setText(done + tr(". Compare them in the runs dock (sweep %1).").arg(r.sweepId));
    // The bar says it is over, not the last rung's count.
    progress_->setFormat(r.cancelled ? tr("cancelled after %1 runs").arg(r.runs) : tr("done: %1 runs").arg(r.runs));
    Q_EMIT finished(!r.cancelled);
    if (closing) QDialog::reject();
}

} // namespace fog
