#include "widgets/sweep/sweep_dialog.h"

#include "core/policies/policy_info.h"
#include "core/scenario/schema.h"
#include "core/scenario/scenario_io.h"
#include "core/store/run_store.h"

#include <QComboBox>
#include <QCompleter>
#include <QDateTime>
#include <QDialogButtonBox>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHash>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QThread>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace fog {

namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }

QString fmt(double v, int digits = 4) { return std::isnan(v) ? QString("–") : QString::number(v, 'g', digits); }

QString typeName(FieldType t) {
    switch (t) {
    case FieldType::Real: return "number";
    case FieldType::Integer: return "integer";
    case FieldType::Bool: return "true / false";
    case FieldType::Text: return "text";
    case FieldType::Enum: return "one of";
    case FieldType::Seed: return "seed";
    case FieldType::IntList: return "list of integers, e.g. [200, 100]";
    case FieldType::Range: return "number (or {min, max} in a group)";
    case FieldType::Section: return "section";
    }
    return {};
}

QString helpOf(const FieldInfo& f) {
    QString h = qs(f.help);
    QString type = typeName(f.type);
    if (f.type == FieldType::Enum || (!f.enumValues.empty() && f.type == FieldType::Text)) {
        QStringList v;
        for (const auto& e : f.enumValues) v << qs(e);
        type = QObject::tr("one of: %1").arg(v.join(", "));
    }
    if (f.isBounded() && f.type != FieldType::IntList) {
        const NumericBounds b = fieldBounds(f);
        QString range;
        if (std::isfinite(b.min)) range += QString(b.minInclusive ? ">= %1" : "> %1").arg(b.min);
        if (std::isfinite(b.max)) range += QString(range.isEmpty() ? "" : ", ") + QString(b.maxInclusive ? "<= %1" : "< %1").arg(b.max);
        if (!range.isEmpty()) type += " (" + range + ")";
    }
    if (!f.unit.empty()) type += ", " + qs(f.unit);
    return h.isEmpty() ? type : h + "\n" + type;
}

/// A field the dialog can vary: a value, not a section or free text such as a path.
bool variable(const FieldInfo& f) {
    if (f.type == FieldType::Section || f.type == FieldType::Text) return false;
    return !f.custom || f.key() == "policy";
}

} // namespace

std::vector<SweepDialog::Key> SweepDialog::keysFor(const Scenario& s) {
    std::vector<Key> keys;
    for (const ScenarioField& f : scenarioSchema()) {
        if (!variable(f) || !f.get || !fieldApplies(f, s)) continue;
        keys.push_back({qs(f.path), qs(f.path), helpOf(f), qs(formatFieldValue(f.get(s)))});
    }
    // The policies' own parameters (each policy describes them, not the schema).
    for (const bool sync : {true, false}) {
        const PolicySpec& p = sync ? s.sync : s.selection;
        const PolicyInfo* info = sync ? findSyncPolicy(p.name) : findSelectionPolicy(p.name);
        if (!info) continue;
        for (const auto& param : info->params) {
            const QString path = QString(sync ? "sync." : "selection.") + qs(param.key);
            const double v = p.get(param.key, param.defaultValue);
            QString help = qs(param.help) + "\n" +
                           QObject::tr("%1 of %2, %3 .. %4")
                               .arg(QString(param.integer ? "integer parameter" : "parameter"), qs(p.name))
                               .arg(param.min)
                               .arg(param.max >= 1e299 ? QString("∞") : QString::number(param.max));
            keys.push_back({path, path, help, QString::number(v, 'g', 10)});
        }
    }
    // Nodes and groups: two lists in the file (nodes, then groups), indexed separately.
    int index[2] = {0, 0};
    for (const NodeSpec& n : s.topology.nodes) {
        const QString list = n.group ? "groups" : "nodes";
        const QString prefix = QString("topology.%1[%2].").arg(list).arg(index[n.group ? 1 : 0]++);
        const QString who = "  (" + qs(n.id) + ")";
        if (n.group) keys.push_back({prefix + "count", prefix + "count" + who, QObject::tr("members of group %1").arg(qs(n.id)),
                                     QString::number(n.count)});
        for (const NodeField& f : nodeSchema()) {
            if (!variable(f) || !f.get || !fieldApplies(f, n)) continue;
            const QString path = prefix + qs(f.path);
            keys.push_back({path, path + who, helpOf(f), qs(formatFieldValue(f.get(n)))});
        }
    }
    return keys;
}

SweepDialog::SweepDialog(const Scenario& scenario, RunStore* store, QWidget* parent)
    : QDialog(parent), scenario_(scenario), store_(store), keys_(keysFor(scenario)) {
    setWindowTitle(tr("Sweep: %1").arg(qs(scenario.name)));
    setObjectName("sweepDialog");
    resize(860, 600);

    auto* intro = new QLabel(tr("Runs the scenario as it is now (unsaved edits included) for every combination of "
                                "the values below, each repeat with its own seed shared by all configurations "
                                "(common random numbers: differences come from the parameters, not from luck)."));
    intro->setWordWrap(true);

    axes_ = new QTableWidget(0, 2);
    axes_->setObjectName("sweepAxes");
    axes_->setHorizontalHeaderLabels({tr("Parameter"), tr("Values (comma-separated; [a,b] for a list)")});
    axes_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Interactive);
    axes_->horizontalHeader()->setStretchLastSection(true);
    axes_->setColumnWidth(0, 340);
    axes_->verticalHeader()->setVisible(true);
    axes_->setSelectionBehavior(QAbstractItemView::SelectRows);
    axes_->setMinimumHeight(110);
    addButton_ = new QPushButton(tr("Add Parameter"));
    addButton_->setObjectName("sweepAdd");
    removeButton_ = new QPushButton(tr("Remove"));
    removeButton_->setObjectName("sweepRemove");
    connect(addButton_, &QPushButton::clicked, this, [this] { addAxis(QString()); });
    connect(removeButton_, &QPushButton::clicked, this, [this] {
        const int row = axes_->currentRow();
        removeAxis(row >= 0 ? row : axes_->rowCount() - 1);
    });
    auto* axisButtons = new QVBoxLayout;
    axisButtons->addWidget(addButton_);
    axisButtons->addWidget(removeButton_);
    axisButtons->addStretch();
    auto* axesRow = new QHBoxLayout;
    axesRow->addWidget(axes_, 1);
    axesRow->addLayout(axisButtons);

    repeats_ = new QSpinBox;
    repeats_->setObjectName("sweepRepeats");
    repeats_->setRange(1, 1000);
    repeats_->setValue(1);
    repeats_->setToolTip(tr("Runs per configuration; repeat 0 uses the scenario's seed, repeat r a seed derived from it"));
    parallel_ = new QSpinBox;
    parallel_->setObjectName("sweepParallel");
    parallel_->setRange(1, std::max(1, QThread::idealThreadCount()));
    parallel_->setValue(1);
    parallel_->setToolTip(tr("Runs at once (results do not depend on it)"));
    threads_ = new QSpinBox;
    threads_->setObjectName("sweepThreads");
    threads_->setRange(1, std::max(1, QThread::idealThreadCount()));
    threads_->setValue(1);
    threads_->setToolTip(tr("Training threads of each run (results do not depend on it)"));
    name_ = new QLineEdit;
    name_->setObjectName("sweepName");
    name_->setPlaceholderText(qs(scenario.name));
    tags_ = new QLineEdit;
    tags_->setObjectName("sweepTags");
    tags_->setPlaceholderText(tr("comma-separated, e.g. lesson-3"));
    auto* options = new QHBoxLayout;
    options->addWidget(new QLabel(tr("Repeats")));
    options->addWidget(repeats_);
    options->addWidget(new QLabel(tr("Runs at once")));
    options->addWidget(parallel_);
    options->addWidget(new QLabel(tr("Threads per run")));
    options->addWidget(threads_);
    options->addStretch();
    auto* naming = new QFormLayout;
    naming->addRow(tr("Name"), name_);
    naming->addRow(tr("Tags"), tags_);

    summary_ = new QLabel;
    summary_->setObjectName("sweepSummary");
    summary_->setWordWrap(true);
    progress_ = new QProgressBar;
    progress_->setObjectName("sweepProgress");
    progress_->setRange(0, 1);
    progress_->setValue(0);
    progress_->setFormat(tr("%v of %m runs"));
    status_ = new QLabel;
    status_->setObjectName("sweepStatus");
    status_->setWordWrap(true);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    results_ = new QTableWidget(0, 8);
    results_->setObjectName("sweepResults");
    results_->setHorizontalHeaderLabels({tr("Run"), tr("Configuration"), tr("Repeat"), tr("Status"), tr("Rounds"),
                                         tr("Virtual s"), tr("Cost"), tr("Accuracy")});
    results_->horizontalHeader()->setStretchLastSection(false);
    results_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    results_->horizontalHeader()->setSectionResizeMode(1, QHeaderView::Stretch); // the varied values
    results_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    results_->verticalHeader()->setVisible(false);

    auto* buttons = new QDialogButtonBox;
    startButton_ = buttons->addButton(tr("Start"), QDialogButtonBox::ActionRole);
    startButton_->setObjectName("sweepStart");
    stopButton_ = buttons->addButton(tr("Stop"), QDialogButtonBox::ActionRole);
    stopButton_->setObjectName("sweepStop");
    stopButton_->setEnabled(false);
    compareButton_ = buttons->addButton(tr("Compare"), QDialogButtonBox::ActionRole);
    compareButton_->setObjectName("sweepCompare");
    compareButton_->setEnabled(false);
    compareButton_->setToolTip(tr("Open the comparison view on the sweep's runs"));
    buttons->addButton(QDialogButtonBox::Close);
    connect(startButton_, &QPushButton::clicked, this, &SweepDialog::start);
    connect(stopButton_, &QPushButton::clicked, this, &SweepDialog::stop);
    connect(compareButton_, &QPushButton::clicked, this, &SweepDialog::compare);
    connect(buttons, &QDialogButtonBox::rejected, this, &SweepDialog::reject);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addLayout(axesRow, 2);
    layout->addLayout(options);
    layout->addLayout(naming);
    layout->addWidget(summary_);
    layout->addWidget(progress_);
    layout->addWidget(status_);
    layout->addWidget(results_, 3);
    layout->addWidget(buttons);

    connect(repeats_, &QSpinBox::valueChanged, this, &SweepDialog::updateSummary);

    // The sweep reads a file, and the store keeps its path in the sweep's command (for
    // `fogstudio-cli sweep --resume`): next to the database when possible, so it stays.
    QString dir;
    if (store_) {
        const QDir sweeps(QFileInfo(qs(store_->path())).absoluteDir().filePath("sweeps"));
        if (QDir().mkpath(sweeps.path())) dir = sweeps.path();
    }
    if (dir.isEmpty()) {
        tmp_ = std::make_unique<QTemporaryDir>();
        dir = tmp_->path();
    }
    QString stem = qs(scenario.name).toLower();
    stem.replace(QRegularExpression("[^a-z0-9]+"), "-");
    file_ = QDir(dir).filePath(stem.left(40) + "-" + QDateTime::currentDateTime().toString("yyyyMMdd-hhmmss-zzz") + ".yaml");
    QFile out(file_);
    if (out.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
        out.write(QByteArray::fromStdString(storedScenarioText(scenario_)));
        out.close();
    } else {
        status_->setText(tr("Cannot write %1: %2").arg(QDir::toNativeSeparators(file_), out.errorString()));
        file_.clear();
    }

    // A first row to start from: the learning rate, halved and doubled.
    const auto lr = std::find_if(keys_.begin(), keys_.end(), [](const Key& k) { return k.path == "training.learning_rate"; });
    if (lr != keys_.end()) {
        const double v = lr->value.toDouble();
        addAxis(lr->path, QString("%1, %2, %3").arg(v / 2, 0, 'g', 6).arg(v, 0, 'g', 6).arg(v * 2, 0, 'g', 6));
    } else {
        addAxis(QString());
    }
    updateSummary();
}

SweepDialog::~SweepDialog() {
    cancel_ = true;
    if (thread_) {
        thread_->wait();
        delete thread_;
    }
}

void SweepDialog::addAxis(const QString& path, const QString& values) {
    const int row = axes_->rowCount();
    axes_->insertRow(row);
    auto* key = new QComboBox;
    key->setObjectName(QString("sweepKey%1").arg(row));
    key->setEditable(true);
    key->setInsertPolicy(QComboBox::NoInsert);
    key->setMaxVisibleItems(20);
    for (const Key& k : keys_) {
        key->addItem(k.label, k.path);
        key->setItemData(key->count() - 1, k.help, Qt::ToolTipRole);
    }
    key->completer()->setFilterMode(Qt::MatchContains);
    key->completer()->setCompletionMode(QCompleter::PopupCompletion);
    key->setToolTip(tr("A key of the scenario (pick one, or type any key path such as topology.groups[0].count)"));
    auto* value = new QLineEdit;
    value->setObjectName(QString("sweepValues%1").arg(row));
    axes_->setCellWidget(row, 0, key);
    axes_->setCellWidget(row, 1, value);
    const int at = key->findData(path);
    if (at >= 0) key->setCurrentIndex(at);
    else key->setEditText(path);
    if (values.isEmpty()) fillValues(row);
    else value->setText(values);
    connect(key, &QComboBox::currentIndexChanged, this, [this, key] {
        for (int r = 0; r < axes_->rowCount(); ++r)
            if (axes_->cellWidget(r, 0) == key) fillValues(r);
    });
    connect(key, &QComboBox::editTextChanged, this, &SweepDialog::updateSummary);
    connect(value, &QLineEdit::textChanged, this, &SweepDialog::updateSummary);
    updateSummary();
}

void SweepDialog::removeAxis(int row) {
    if (row < 0 || row >= axes_->rowCount()) return;
    axes_->removeRow(row);
    updateSummary();
}

int SweepDialog::axisCount() const { return axes_->rowCount(); }
void SweepDialog::setRepeats(int repeats) { repeats_->setValue(repeats); }
QString SweepDialog::rowPath(int row) const {
    auto* key = qobject_cast<QComboBox*>(axes_->cellWidget(row, 0));
    if (!key) return {};
    // The label of an item carries the node's id after the path: the path is the first word.
    const QString text = key->currentText().trimmed();
    const int i = key->findText(text);
    if (i >= 0) return key->itemData(i).toString();
    return text.section(QRegularExpression("\\s+"), 0, 0);
}

void SweepDialog::fillValues(int row) {
    auto* value = qobject_cast<QLineEdit*>(axes_->cellWidget(row, 1));
    if (!value) return;
    const QString path = rowPath(row);
    const auto k = std::find_if(keys_.begin(), keys_.end(), [&](const Key& x) { return x.path == path; });
    value->setText(k == keys_.end() ? QString() : k->value);
    value->setToolTip(k == keys_.end() ? QString() : k->help);
    value->setPlaceholderText(k == keys_.end() ? tr("values, comma-separated") : k->help.section('\n', -1));
    updateSummary();
}

SweepSpec SweepDialog::spec() const {
    SweepSpec s;
    s.file = file_.toStdString();
    std::vector<Diagnostic> problems;
    for (int r = 0; r < axes_->rowCount(); ++r) {
        const QString path = rowPath(r);
        const auto* value = qobject_cast<QLineEdit*>(axes_->cellWidget(r, 1));
        const QString values = value ? value->text().trimmed() : QString();
        const std::string where = "row " + std::to_string(r + 1);
        if (path.isEmpty()) {
            problems.push_back({"sweep", r + 1, 0, "", where + ": choose a parameter"});
            continue;
        }
        if (values.isEmpty()) {
            problems.push_back({"sweep", r + 1, 0, path.toStdString(), where + ": give at least one value"});
            continue;
        }
        // The values as the CLI's --vary reads them, spaces after commas allowed.
        QStringList parts;
        for (const QString& v : values.split(QRegularExpression(",\\s+"))) parts << v.trimmed();
        try {
            s.axes.push_back(parseSweepAxis((path + "=" + parts.join(',')).toStdString()));
        } catch (const ScenarioError& e) {
            for (auto d : e.diagnostics) {
                d.file = "sweep";
                d.line = r + 1;
                d.message = where + ": " + d.message;
                problems.push_back(d);
            }
        }
    }
    for (std::size_t i = 0; i < s.axes.size(); ++i)
        for (std::size_t j = 0; j < i; ++j)
            if (s.axes[i].path == s.axes[j].path)
                problems.push_back({"sweep", 0, 0, s.axes[i].path, "is varied twice: give all its values in one row"});
    if (s.axes.empty() && problems.empty()) problems.push_back({"sweep", 0, 0, "", "add at least one parameter to vary"});
    if (file_.isEmpty()) problems.push_back({"sweep", 0, 0, "", "the scenario could not be written for the sweep"});
    if (!problems.empty()) throw ScenarioError(problems);
    s.repeats = repeats_->value();
    s.parallel = parallel_->value();
    s.threadsPerRun = threads_->value();
    s.name = name_->text().trimmed().isEmpty() ? scenario_.name : name_->text().trimmed().toStdString();
    s.tags = {"studio"};
    for (const QString& t : tags_->text().split(',', Qt::SkipEmptyParts))
        if (!t.trimmed().isEmpty()) s.tags.push_back(t.trimmed().toStdString());
    return s;
}

void SweepDialog::updateSummary() {
    if (running()) return;
    try {
        const SweepSpec s = spec();
        std::size_t configs = 1;
        for (const auto& a : s.axes) configs *= a.values.size();
        const std::size_t runs = configs * static_cast<std::size_t>(s.repeats);
        summary_->setText(tr("%1 configuration(s) × %2 repeat(s) = %3 run(s)").arg(configs).arg(s.repeats).arg(runs));
        startButton_->setEnabled(store_ != nullptr);
    } catch (const ScenarioError& e) {
        QStringList lines;
        for (const auto& d : e.diagnostics) lines << qs((d.path.empty() ? "" : d.path + ": ") + d.message);
        summary_->setText(lines.join('\n'));
        startButton_->setEnabled(false);
    }
}

void SweepDialog::setBusy(bool busy) {
    startButton_->setEnabled(!busy && store_);
    stopButton_->setEnabled(busy);
    compareButton_->setEnabled(!busy && runIds_.size() > 0);
    for (QWidget* w : std::initializer_list<QWidget*>{axes_, addButton_, removeButton_, repeats_, parallel_, threads_,
                                                      name_, tags_})
        w->setEnabled(!busy);
}

QString SweepDialog::statusText() const { return status_->text(); }

bool SweepDialog::start() {
    if (thread_) return false;
    if (!store_) {
        status_->setText(tr("No run store is open: a sweep stores every run, so it cannot start."));
        return false;
    }
    SweepSpec s;
    try {
        s = spec();
        planned_ = planSweep(s).items; // every configuration checked before anything runs
    } catch (const ScenarioError& e) {
        QStringList lines;
        for (const auto& d : e.diagnostics)
            lines << qs((d.path.empty() ? "" : d.path + ": ") + d.message);
        status_->setText(tr("Cannot start:\n%1").arg(lines.join('\n')));
        return false;
    }
    cancel_ = false;
    sweepId_ = 0;
    runIds_.clear();
    results_->setRowCount(0);
    progress_->setRange(0, static_cast<int>(planned_.size()));
    progress_->setValue(0);
    status_->setText(tr("Running %n run(s)...", nullptr, static_cast<int>(planned_.size())));
    setBusy(true);
    thread_ = QThread::create([this, s] {
        SweepResult result;
        QString error;
        try {
            result = runSweep(
                s, *store_,
                [this](const SweepProgress& p) {
                    QMetaObject::invokeMethod(this, [this, p] { onProgress(p); }, Qt::QueuedConnection);
                },
                &cancel_);
        } catch (const std::exception& e) {
            error = QString::fromStdString(e.what());
        }
        QMetaObject::invokeMethod(this, [this, result, error] { onDone(result, error); }, Qt::QueuedConnection);
    });
    thread_->setObjectName("fog-sweep");
    thread_->start();
    return true;
}

void SweepDialog::stop() {
    if (!thread_) return;
    cancel_ = true;
    stopButton_->setEnabled(false);
    status_->setText(tr("Stopping: the run under way ends as cancelled, the finished ones stay stored..."));
}

void SweepDialog::compare() {
    if (!runIds_.isEmpty()) Q_EMIT compareRequested(runIds_);
}

void SweepDialog::reject() {
    if (thread_) {
        stop();
        closeWhenDone_ = true; // closes once the sweep has stopped (onDone)
        return;
    }
    QDialog::reject();
}

void SweepDialog::onProgress(const SweepProgress& p) {
    progress_->setRange(0, std::max(1, p.total));
    progress_->setValue(p.done);
    const int row = results_->rowCount();
    results_->insertRow(row);
    const RunSummary& s = p.summary;
    const QStringList cells{QString(), qs(p.config), QString::number(p.repeat), qs(toString(s.status)),
                            QString::number(s.rounds), fmt(s.virtualTime, 6), fmt(s.cost),
                            std::isnan(s.finalTestAccuracy) ? QString("–")
                                                            : QString::number(100 * s.finalTestAccuracy, 'f', 2) + "%"};
    for (int c = 0; c < cells.size(); ++c) results_->setItem(row, c, new QTableWidgetItem(cells[c]));
    if (s.status == RunStatus::Failed) results_->item(row, 3)->setToolTip(qs(s.stopReason));
    results_->scrollToBottom();
    if (!cancel_) status_->setText(tr("%1 #%2: %3").arg(qs(p.config)).arg(p.repeat).arg(qs(toString(s.status))));
    Q_EMIT runStored();
}

void SweepDialog::onDone(const SweepResult& r, const QString& error) {
    if (thread_) {
        thread_->wait();
        delete thread_;
        thread_ = nullptr;
    }
    sweepId_ = r.sweepId;
    runIds_.clear();
    // Run ids into the results table: rows are per (configuration, repeat).
    QHash<QString, int> rowOf;
    for (int row = 0; row < results_->rowCount(); ++row)
        rowOf.insert(results_->item(row, 1)->text() + "#" + results_->item(row, 2)->text(), row);
    for (std::size_t i = 0; i < r.runIds.size() && i < planned_.size(); ++i) {
        if (!r.runIds[i]) continue;
        runIds_ << r.runIds[i];
        const int row = rowOf.value(qs(planned_[i].config) + "#" + QString::number(planned_[i].repeat), -1);
        if (row >= 0) results_->item(row, 0)->setText(QString::number(r.runIds[i]));
    }
    const bool closing = closeWhenDone_;
    closeWhenDone_ = false;
    setBusy(false);
    updateSummary();
    if (!error.isEmpty()) {
        status_->setText(tr("The sweep stopped: %1").arg(error));
    } else {
        QString text = r.cancelled ? tr("Stopped: %1 of %2 runs finished").arg(runIds_.size()).arg(planned_.size())
                                   : tr("Done: %n run(s)", nullptr, static_cast<int>(runIds_.size()));
        text += tr(", stored as sweep %1 (the runs dock lists them: sweep:%1)").arg(r.sweepId);
        if (r.failed) text += tr("; %n failed (hover the status for why)", nullptr, r.failed);
        if (!r.errors.empty()) text += tr("; not stored: %1").arg(qs(r.errors.front()));
        status_->setText(text);
    }
    Q_EMIT runStored();
    Q_EMIT sweepFinished(sweepId_, runIds_, r.cancelled || !error.isEmpty());
    if (closing) QDialog::reject();
}

} // namespace fog
