#include "widgets/cluster/cluster_editor.h"

#include "core/cluster/cluster_io.h"
#include "core/cluster/cluster_scheduler.h"
#include "core/scenario/yaml_reader.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <filesystem>
#include <set>

namespace fog {

using namespace fog::cluster;

namespace {

QString num(double v) {
    return QString::fromStdString(formatNumber(v));
}

QTableWidget* makeTable(const QStringList& headers, const QStringList& tips, QWidget* parent) {
    auto* t = new QTableWidget(0, headers.size(), parent);
    t->setHorizontalHeaderLabels(headers);
    for (int i = 0; i < headers.size() && i < tips.size(); ++i)
        t->horizontalHeaderItem(i)->setToolTip(tips[i]);
    t->verticalHeader()->setVisible(false);
    t->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    t->setSelectionBehavior(QAbstractItemView::SelectRows);
    t->setAlternatingRowColors(true);
    return t;
}

std::string resolveNear(const std::string& sourcePath, const std::string& file) {
    if (file.empty() || sourcePath.empty() || std::filesystem::path(file).is_absolute())
        return file;
    return (std::filesystem::path(sourcePath).parent_path() / file).lexically_normal().string();
}

} // namespace

ClusterEditor::ClusterEditor(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);

    auto* top = new QFormLayout;
    name_ = new QLineEdit(this);
    seed_ = new QSpinBox(this);
    seed_->setRange(0, std::numeric_limits<int>::max());
    seed_->setToolTip(tr(
        "Arrivals, task sizes and the Random scheduler's draws come from streams derived from it"));
    top->addRow(tr("Name"), name_);
    top->addRow(tr("Seed"), seed_);
    layout->addLayout(top);

    auto* serverBox =
        new QGroupBox(tr("Edge servers (one agent of the learned scheduler per cluster)"), this);
    auto* sl = new QVBoxLayout(serverBox);
    servers_ = makeTable({tr("Cluster"), tr("Server"), tr("CPUs"), tr("GPUs"), tr("Memory GB"),
                          tr("Bandwidth Gbps")},
                         {tr("Servers with the same cluster name form one cluster"),
                          tr("A unique name"), tr("Whole CPUs"), tr("Whole GPUs"),
                          tr("Memory the tasks' memory_gb is taken from"),
                          tr("Bandwidth the tasks' bandwidth_gbps is taken from")},
                         serverBox);
    sl->addWidget(servers_);
    auto* sButtons = new QHBoxLayout;
    auto* addCluster = new QPushButton(tr("Add cluster"), serverBox);
    auto* addServer = new QPushButton(tr("Add server"), serverBox);
    auto* removeServer = new QPushButton(tr("Remove"), serverBox);
    addServer->setToolTip(tr("A server in the selected server's cluster (or the last cluster)"));
    sButtons->addWidget(addCluster);
    sButtons->addWidget(addServer);
    sButtons->addWidget(removeServer);
    sButtons->addStretch(1);
    sl->addLayout(sButtons);
    layout->addWidget(serverBox, 1);

    auto* taskBox = new QGroupBox(
        tr("Task types: speed(c, g) = base * min(c, max CPUs)^a * min(g, max GPUs)^b"), this);
    auto* tl = new QVBoxLayout(taskBox);
    tasks_ = makeTable(
        {tr("Name"), tr("Weight"), tr("Work"), tr("Mean"), tr("Min"), tr("Max"), tr("Min CPUs"),
         tr("Min GPUs"), tr("Max CPUs"), tr("Max GPUs"), tr("Req. CPUs"), tr("Req. GPUs"),
         tr("Base"), tr("CPU exp. a"), tr("GPU exp. b"), tr("Memory GB"), tr("Bandwidth Gbps")},
        {tr("A unique name"), tr("Relative probability among arrivals"),
         tr("Task size distribution in work units: exponential, fixed or uniform"),
         tr("Mean (exponential) or value (fixed)"), tr("Uniform: least size"),
         tr("Uniform: largest size"), tr("The least a task runs on"),
         tr("The least a task runs on"), tr("More does not speed it up"),
         tr("More does not speed it up"), tr("What a user would ask for (FIFO, Tiresias, DRF)"),
         tr("What a user would ask for"), tr("Work units per step on 1 CPU and 1 GPU"),
         tr("In [0, 1]: diminishing returns of CPUs (0: CPUs do not matter)"),
         tr("In [0, 1]: diminishing returns of GPUs (0: GPUs do not matter)"),
         tr("Held on the server while the task runs"),
         tr("Held on the server while the task runs")},
        taskBox);
    tl->addWidget(tasks_);
    auto* tButtons = new QHBoxLayout;
    auto* addType = new QPushButton(tr("Add task type"), taskBox);
    auto* removeType = new QPushButton(tr("Remove"), taskBox);
    tButtons->addWidget(addType);
    tButtons->addWidget(removeType);
    tButtons->addStretch(1);
    tl->addLayout(tButtons);
    layout->addWidget(taskBox, 1);

    auto* rest = new QGroupBox(tr("Arrivals and scheduler"), this);
    auto* form = new QFormLayout(rest);
    arrivalKind_ = new QComboBox(rest);
    arrivalKind_->addItems({"poisson", "trace"});
    rate_ = new QDoubleSpinBox(rest);
    rate_->setRange(0.001, 1e6);
    rate_->setDecimals(3);
    taskCount_ = new QSpinBox(rest);
    taskCount_->setRange(1, 10000000);
    traceFile_ = new QLineEdit(rest);
    traceFile_->setPlaceholderText(tr("CSV time,type[,work], relative to the scenario's folder"));
    queueLimit_ = new QSpinBox(rest);
    queueLimit_->setRange(1, 100000);
    queueLimit_->setToolTip(
        tr("Pending tasks a scheduler sees (oldest first); the rest wait in a backlog"));
    scheduler_ = new QComboBox(rest);
    for (const auto& n : schedulerNames())
        scheduler_->addItem(QString::fromStdString(n));
    thresholds_ = new QLineEdit(rest);
    thresholds_->setToolTip(
        tr("Tiresias: GPU-steps of attained service between priority queues, increasing"));
    policyFile_ = new QLineEdit(rest);
    policyFile_->setPlaceholderText(tr("learned: a policy file (or train one here)"));
    form->addRow(tr("Arrivals"), arrivalKind_);
    form->addRow(tr("Rate (tasks / step)"), rate_);
    form->addRow(tr("Tasks per episode"), taskCount_);
    form->addRow(tr("Trace file"), traceFile_);
    form->addRow(tr("Queue limit"), queueLimit_);
    form->addRow(tr("Scheduler"), scheduler_);
    form->addRow(tr("Tiresias thresholds"), thresholds_);
    form->addRow(tr("Policy file"), policyFile_);
    layout->addWidget(rest);

    problems_ = new QLabel(this);
    problems_->setWordWrap(true);
    problems_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(problems_);

    connect(addCluster, &QPushButton::clicked, this, &ClusterEditor::addCluster);
    connect(addServer, &QPushButton::clicked, this, &ClusterEditor::addServer);
    connect(removeServer, &QPushButton::clicked, this, &ClusterEditor::removeSelectedServers);
    connect(addType, &QPushButton::clicked, this, &ClusterEditor::addTaskType);
    connect(removeType, &QPushButton::clicked, this, &ClusterEditor::removeSelectedTaskTypes);
    connect(servers_, &QTableWidget::itemChanged, this, &ClusterEditor::edited);
    connect(tasks_, &QTableWidget::itemChanged, this, &ClusterEditor::edited);
    connect(name_, &QLineEdit::textEdited, this, &ClusterEditor::edited);
    connect(seed_, &QSpinBox::valueChanged, this, &ClusterEditor::edited);
    connect(arrivalKind_, &QComboBox::currentIndexChanged, this, &ClusterEditor::edited);
    connect(rate_, &QDoubleSpinBox::valueChanged, this, &ClusterEditor::edited);
    connect(taskCount_, &QSpinBox::valueChanged, this, &ClusterEditor::edited);
    connect(traceFile_, &QLineEdit::textEdited, this, &ClusterEditor::edited);
    connect(queueLimit_, &QSpinBox::valueChanged, this, &ClusterEditor::edited);
    connect(scheduler_, &QComboBox::currentIndexChanged, this, &ClusterEditor::edited);
    connect(thresholds_, &QLineEdit::textEdited, this, &ClusterEditor::edited);
    connect(policyFile_, &QLineEdit::textEdited, this, &ClusterEditor::edited);
}

void ClusterEditor::fillServerRow(int row, const QString& cluster, const ServerSpec& s) {
    const QStringList cells = {cluster,
                               QString::fromStdString(s.id),
                               QString::number(s.cpus),
                               QString::number(s.gpus),
                               num(s.memoryGb),
                               num(s.bandwidthGbps)};
    for (int c = 0; c < SColumns; ++c)
        servers_->setItem(row, c, new QTableWidgetItem(cells[c]));
}

void ClusterEditor::fillTaskRow(int row, const TaskType& t) {
    const QStringList cells = {QString::fromStdString(t.name),
                               num(t.probability),
                               toString(t.work.kind),
                               num(t.work.mean),
                               num(t.work.min),
                               num(t.work.max),
                               QString::number(t.min.cpus),
                               QString::number(t.min.gpus),
                               QString::number(t.max.cpus),
                               QString::number(t.max.gpus),
                               QString::number(t.request.cpus),
                               QString::number(t.request.gpus),
                               num(t.speed.base),
                               num(t.speed.cpuExponent),
                               num(t.speed.gpuExponent),
                               num(t.memoryGb),
                               num(t.bandwidthGbps)};
    for (int c = 0; c < TColumns; ++c)
        tasks_->setItem(row, c, new QTableWidgetItem(cells[c]));
    tasks_->item(row, TWorkKind)->setToolTip(tr("exponential, fixed or uniform"));
}

void ClusterEditor::setScenario(const ClusterScenario& s) {
    filling_ = true;
    base_ = s;
    name_->setText(QString::fromStdString(s.name));
    seed_->setValue(
        static_cast<int>(std::min<std::uint64_t>(s.seed, std::numeric_limits<int>::max())));
    servers_->setRowCount(0);
    for (const auto& c : s.clusters)
        for (const auto& v : c.servers) {
            servers_->insertRow(servers_->rowCount());
            fillServerRow(servers_->rowCount() - 1, QString::fromStdString(c.id), v);
        }
    tasks_->setRowCount(0);
    for (const auto& t : s.taskTypes) {
        tasks_->insertRow(tasks_->rowCount());
        fillTaskRow(tasks_->rowCount() - 1, t);
    }
    arrivalKind_->setCurrentIndex(s.arrivals.kind == ArrivalSpec::Kind::Poisson ? 0 : 1);
    rate_->setValue(s.arrivals.ratePerStep);
    taskCount_->setValue(s.arrivals.tasks);
    traceFile_->setText(QString::fromStdString(s.arrivals.traceFile));
    queueLimit_->setValue(s.queueLimit);
    scheduler_->setCurrentText(QString::fromStdString(s.scheduler.name));
    QStringList th;
    for (double x : s.scheduler.thresholds)
        th << num(x);
    thresholds_->setText(th.join(", "));
    policyFile_->setText(QString::fromStdString(s.scheduler.policyFile));
    filling_ = false;
    updateApplicability();
    updateProblems();
    Q_EMIT filled();
}

namespace {

/// Reads the table cells into the scenario; cells that are not numbers become problems.
struct Parser {
    QStringList* problems;
    int cellInt(QTableWidget* t, int row, int col, const std::string& path, int fallback) const {
        const QTableWidgetItem* it = t->item(row, col);
        bool ok = false;
        const int v = it ? it->text().trimmed().toInt(&ok) : 0;
        if (!ok && problems)
            problems->append(
                QString::fromStdString(path) +
                QObject::tr(" must be a whole number, got '%1'").arg(it ? it->text() : QString()));
        return ok ? v : fallback;
    }
    double cellDouble(QTableWidget* t, int row, int col, const std::string& path,
                      double fallback) const {
        const QTableWidgetItem* it = t->item(row, col);
        double v = 0;
        const bool ok = it && parseNumber(it->text().trimmed().toStdString(), v);
        if (!ok && problems)
            problems->append(
                QString::fromStdString(path) +
                QObject::tr(" must be a number, got '%1'").arg(it ? it->text() : QString()));
        return ok ? v : fallback;
    }
};

ClusterScenario build(const ClusterScenario& base, const QLineEdit* name, const QSpinBox* seed,
                      QTableWidget* servers, QTableWidget* tasks, const QComboBox* arrivalKind,
                      const QDoubleSpinBox* rate, const QSpinBox* count, const QLineEdit* trace,
                      const QSpinBox* queue, const QComboBox* scheduler,
                      const QLineEdit* thresholds, const QLineEdit* policy, QStringList* problems) {
    Parser p{problems};
    ClusterScenario s = base;
    s.name = name->text().toStdString();
    s.seed = static_cast<std::uint64_t>(seed->value());
    s.clusters.clear();
    for (int r = 0; r < servers->rowCount(); ++r) {
        const QString cid = servers->item(r, ClusterEditor::SCluster)
                                ? servers->item(r, ClusterEditor::SCluster)->text().trimmed()
                                : QString();
        ClusterSpec* c = nullptr;
        for (auto& x : s.clusters)
            if (x.id == cid.toStdString()) c = &x;
        if (!c) {
            s.clusters.push_back({cid.toStdString(), {}});
            c = &s.clusters.back();
        }
        const std::string path = itemPath(
            childPath(itemPath("clusters", static_cast<std::size_t>(c - s.clusters.data())),
                      "servers"),
            c->servers.size());
        ServerSpec v;
        v.id = servers->item(r, ClusterEditor::SId)
                   ? servers->item(r, ClusterEditor::SId)->text().trimmed().toStdString()
                   : "";
        v.cpus = p.cellInt(servers, r, ClusterEditor::SCpus, childPath(path, "cpus"), 0);
        v.gpus = p.cellInt(servers, r, ClusterEditor::SGpus, childPath(path, "gpus"), 0);
        v.memoryGb =
            p.cellDouble(servers, r, ClusterEditor::SMemory, childPath(path, "memory_gb"), 0);
        v.bandwidthGbps = p.cellDouble(servers, r, ClusterEditor::SBandwidth,
                                       childPath(path, "bandwidth_gbps"), 0);
        c->servers.push_back(v);
    }
    s.taskTypes.clear();
    for (int r = 0; r < tasks->rowCount(); ++r) {
        const std::string tp = itemPath("task_types", static_cast<std::size_t>(r));
        TaskType t;
        t.name = tasks->item(r, ClusterEditor::TName)
                     ? tasks->item(r, ClusterEditor::TName)->text().trimmed().toStdString()
                     : "";
        t.probability =
            p.cellDouble(tasks, r, ClusterEditor::TProbability, childPath(tp, "probability"), 1);
        const QString kind = tasks->item(r, ClusterEditor::TWorkKind)
                                 ? tasks->item(r, ClusterEditor::TWorkKind)->text().trimmed()
                                 : QString();
        if (kind == "exponential")
            t.work.kind = WorkSpec::Kind::Exponential;
        else if (kind == "fixed")
            t.work.kind = WorkSpec::Kind::Fixed;
        else if (kind == "uniform")
            t.work.kind = WorkSpec::Kind::Uniform;
        else if (problems)
            problems->append(
                QString::fromStdString(childPath(childPath(tp, "work"), "kind")) +
                QObject::tr(" must be one of exponential, fixed, uniform, got '%1'").arg(kind));
        t.work.mean =
            p.cellDouble(tasks, r, ClusterEditor::TWorkMean, childPath(tp, "work.mean"), 10);
        t.work.min = p.cellDouble(tasks, r, ClusterEditor::TWorkMin, childPath(tp, "work.min"), 1);
        t.work.max = p.cellDouble(tasks, r, ClusterEditor::TWorkMax, childPath(tp, "work.max"), 10);
        t.min.cpus = p.cellInt(tasks, r, ClusterEditor::TMinCpus, childPath(tp, "min.cpus"), 1);
        t.min.gpus = p.cellInt(tasks, r, ClusterEditor::TMinGpus, childPath(tp, "min.gpus"), 1);
        t.max.cpus = p.cellInt(tasks, r, ClusterEditor::TMaxCpus, childPath(tp, "max.cpus"), 8);
        t.max.gpus = p.cellInt(tasks, r, ClusterEditor::TMaxGpus, childPath(tp, "max.gpus"), 4);
        t.request.cpus =
            p.cellInt(tasks, r, ClusterEditor::TReqCpus, childPath(tp, "request.cpus"), 4);
        t.request.gpus =
            p.cellInt(tasks, r, ClusterEditor::TReqGpus, childPath(tp, "request.gpus"), 2);
        t.speed.base = p.cellDouble(tasks, r, ClusterEditor::TBase, childPath(tp, "speed.base"), 1);
        t.speed.cpuExponent = p.cellDouble(tasks, r, ClusterEditor::TCpuExp,
                                           childPath(tp, "speed.cpu_exponent"), 0.3);
        t.speed.gpuExponent = p.cellDouble(tasks, r, ClusterEditor::TGpuExp,
                                           childPath(tp, "speed.gpu_exponent"), 0.6);
        t.memoryGb = p.cellDouble(tasks, r, ClusterEditor::TMemory, childPath(tp, "memory_gb"), 0);
        t.bandwidthGbps =
            p.cellDouble(tasks, r, ClusterEditor::TBandwidth, childPath(tp, "bandwidth_gbps"), 0);
        s.taskTypes.push_back(t);
    }
    s.arrivals.kind =
        arrivalKind->currentIndex() == 0 ? ArrivalSpec::Kind::Poisson : ArrivalSpec::Kind::Trace;
    s.arrivals.ratePerStep = rate->value();
    s.arrivals.tasks = count->value();
    s.arrivals.traceFile = trace->text().trimmed().toStdString();
    s.arrivals.traceResolved = resolveNear(s.sourcePath, s.arrivals.traceFile);
    s.queueLimit = queue->value();
    s.scheduler.name = scheduler->currentText().toStdString();
    s.scheduler.thresholds.clear();
    for (const QString& x : thresholds->text().split(',', Qt::SkipEmptyParts)) {
        double v = 0;
        if (parseNumber(x.trimmed().toStdString(), v))
            s.scheduler.thresholds.push_back(v);
        else if (problems)
            problems->append(
                QObject::tr("scheduler.thresholds: '%1' is not a number").arg(x.trimmed()));
    }
    if (s.scheduler.thresholds.empty()) s.scheduler.thresholds = {4.0, 16.0};
    s.scheduler.policyFile = policy->text().trimmed().toStdString();
    s.scheduler.policyResolved = resolveNear(s.sourcePath, s.scheduler.policyFile);
    s.arrivals.trace.clear();
    return s;
}

} // namespace

ClusterScenario ClusterEditor::scenario() const {
    ClusterScenario s =
        build(base_, name_, seed_, servers_, tasks_, arrivalKind_, rate_, taskCount_, traceFile_,
              queueLimit_, scheduler_, thresholds_, policyFile_, nullptr);
    if (s.arrivals.kind == ArrivalSpec::Kind::Trace) {
        std::vector<Diagnostic> ignored;
        s.arrivals.trace = readArrivalTrace(s.arrivals.traceResolved, s.taskTypes, ignored);
    }
    return s;
}

QStringList ClusterEditor::problems() const {
    QStringList out;
    ClusterScenario s =
        build(base_, name_, seed_, servers_, tasks_, arrivalKind_, rate_, taskCount_, traceFile_,
              queueLimit_, scheduler_, thresholds_, policyFile_, &out);
    for (const auto& d : validateClusterScenario(s))
        out << QString::fromStdString(d.path + " " + d.message);
    if (out.isEmpty() && s.arrivals.kind == ArrivalSpec::Kind::Trace) {
        if (s.arrivals.traceFile.empty()) {
            out << tr("arrivals.file: a trace needs a CSV file");
        } else {
            std::vector<Diagnostic> traceProblems;
            readArrivalTrace(s.arrivals.traceResolved, s.taskTypes, traceProblems);
            for (const auto& d : traceProblems)
                out << QString::fromStdString(d.format());
        }
    }
    return out;
}

void ClusterEditor::updateProblems() {
    const QStringList p = problems();
    if (p.isEmpty()) {
        problems_->setText(tr("No problems: the scenario can run."));
        return;
    }
    QStringList shown = p.mid(0, 8);
    if (p.size() > 8) shown << tr("... and %n more", nullptr, int(p.size() - 8));
    problems_->setText(tr("<b>%n problem(s)</b> (fix them to run):<br>", nullptr, int(p.size())) +
                       shown.join("<br>").toHtmlEscaped().replace("&lt;br&gt;", "<br>"));
}

void ClusterEditor::updateApplicability() {
    const bool poisson = arrivalKind_->currentIndex() == 0;
    rate_->setEnabled(poisson);
    taskCount_->setEnabled(poisson);
    traceFile_->setEnabled(!poisson);
    const SchedulerInfo* scheduler = findScheduler(scheduler_->currentText().toStdString());
    thresholds_->setEnabled(scheduler && scheduler->uses("thresholds"));
    policyFile_->setEnabled(scheduler && scheduler->uses("policy"));
    // Work parameters that the row's distribution does not use are shown but not editable.
    const bool wasFilling = filling_;
    filling_ = true;
    for (int r = 0; r < tasks_->rowCount(); ++r) {
        const bool uniform =
            tasks_->item(r, TWorkKind) && tasks_->item(r, TWorkKind)->text().trimmed() == "uniform";
        for (int c : {TWorkMean, TWorkMin, TWorkMax}) {
            QTableWidgetItem* it = tasks_->item(r, c);
            if (!it) continue;
            const bool used = (c == TWorkMean) != uniform;
            it->setFlags(used ? (it->flags() | Qt::ItemIsEditable | Qt::ItemIsEnabled)
                              : (it->flags() & ~Qt::ItemIsEditable & ~Qt::ItemIsEnabled));
            it->setToolTip(used ? QString() : tr("Not used by this work distribution"));
        }
    }
    filling_ = wasFilling;
}

void ClusterEditor::edited() {
    if (filling_) return;
    updateApplicability();
    updateProblems();
    Q_EMIT changed();
}

void ClusterEditor::addCluster() {
    std::set<QString> used;
    for (int r = 0; r < servers_->rowCount(); ++r)
        for (int c : {SCluster, SId})
            if (servers_->item(r, c)) used.insert(servers_->item(r, c)->text());
    int n = 1;
    while (used.count(QString("edge-%1").arg(n)) || used.count(QString("edge-%1-0").arg(n)))
        ++n;
    ServerSpec v;
    v.id = QString("edge-%1-0").arg(n).toStdString();
    filling_ = true;
    servers_->insertRow(servers_->rowCount());
    fillServerRow(servers_->rowCount() - 1, QString("edge-%1").arg(n), v);
    filling_ = false;
    selectServerRows(servers_->rowCount() - 1, servers_->rowCount() - 1);
    edited();
}

void ClusterEditor::addServer() {
    if (servers_->rowCount() == 0) return addCluster();
    const int from =
        servers_->currentRow() >= 0 ? servers_->currentRow() : servers_->rowCount() - 1;
    addServerIn(servers_->item(from, SCluster) ? servers_->item(from, SCluster)->text()
                                               : QString("edge"));
}

QString ClusterEditor::cell(int row, int column) const {
    const QTableWidgetItem* it = servers_->item(row, column);
    return it ? it->text().trimmed() : QString();
}

QString ClusterEditor::uniqueServerId(const QString& stem) const {
    std::set<QString> used;
    for (int r = 0; r < servers_->rowCount(); ++r)
        used.insert(cell(r, SId));
    int n = 0;
    while (used.count(QString("%1-%2").arg(stem).arg(n)))
        ++n;
    return QString("%1-%2").arg(stem).arg(n);
}

void ClusterEditor::selectServerRows(int first, int last) {
    servers_->clearSelection();
    servers_->setCurrentCell(first, SId, QItemSelectionModel::NoUpdate);
    servers_->setRangeSelected(QTableWidgetSelectionRange(first, 0, last, SColumns - 1), true);
    servers_->scrollToItem(servers_->item(first, SId));
}

void ClusterEditor::addServerIn(const QString& cluster) {
    int last = servers_->rowCount() - 1;
    for (int r = 0; r < servers_->rowCount(); ++r)
        if (cell(r, SCluster) == cluster.trimmed()) last = r;
    ServerSpec v;
    v.id = uniqueServerId(cluster.trimmed()).toStdString();
    filling_ = true;
    servers_->insertRow(last + 1);
    fillServerRow(last + 1, cluster.trimmed(), v);
    filling_ = false;
    selectServerRows(last + 1, last + 1);
    edited();
}

void ClusterEditor::duplicateServer(int row) {
    if (row < 0 || row >= servers_->rowCount()) return;
    filling_ = true;
    servers_->insertRow(row + 1);
    for (int c = 0; c < SColumns; ++c)
        servers_->setItem(row + 1, c,
                          new QTableWidgetItem(
                              servers_->item(row, c) ? servers_->item(row, c)->text() : QString()));
    servers_->item(row + 1, SId)->setText(uniqueServerId(cell(row, SCluster)));
    filling_ = false;
    selectServerRows(row + 1, row + 1);
    edited();
}

void ClusterEditor::duplicateCluster(const QString& cluster) {
    std::set<QString> used;
    std::vector<int> rows;
    for (int r = 0; r < servers_->rowCount(); ++r) {
        used.insert(cell(r, SCluster));
        used.insert(cell(r, SId));
        if (cell(r, SCluster) == cluster) rows.push_back(r);
    }
    if (rows.empty()) return;
    auto name = [&](int n) {
        return QString("%1-copy%2").arg(cluster, n == 1 ? QString() : QString::number(n));
    };
    int n = 1;
    while (used.count(name(n)))
        ++n;
    const QString id = name(n);
    const int first = servers_->rowCount();
    filling_ = true;
    for (int r : rows) {
        const int to = servers_->rowCount();
        servers_->insertRow(to);
        for (int c = 0; c < SColumns; ++c)
            servers_->setItem(to, c,
                              new QTableWidgetItem(
                                  servers_->item(r, c) ? servers_->item(r, c)->text() : QString()));
        servers_->item(to, SCluster)->setText(id);
        servers_->item(to, SId)->setText(uniqueServerId(id));
    }
    filling_ = false;
    selectServerRows(first, servers_->rowCount() - 1);
    edited();
}

void ClusterEditor::removeServerRows(QList<int> rows) {
    std::sort(rows.begin(), rows.end());
    rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
    filling_ = true;
    for (auto it = rows.rbegin(); it != rows.rend(); ++it)
        if (*it >= 0 && *it < servers_->rowCount()) servers_->removeRow(*it);
    filling_ = false;
    edited();
}

void ClusterEditor::removeCluster(const QString& cluster) {
    QList<int> rows;
    for (int r = 0; r < servers_->rowCount(); ++r)
        if (cell(r, SCluster) == cluster) rows << r;
    removeServerRows(rows);
}

void ClusterEditor::setServerCluster(int row, const QString& cluster) {
    if (row < 0 || row >= servers_->rowCount() || cell(row, SCluster) == cluster.trimmed()) return;
    // The row goes after the target cluster's last row: the table stays grouped by cluster,
    // and the server becomes that cluster's last.
    int last = -1;
    for (int r = 0; r < servers_->rowCount(); ++r)
        if (cell(r, SCluster) == cluster.trimmed()) last = r;
    filling_ = true;
    QList<QTableWidgetItem*> items;
    for (int c = 0; c < SColumns; ++c)
        items << servers_->takeItem(row, c);
    servers_->removeRow(row);
    const int to = last < 0 ? servers_->rowCount() : (last > row ? last : last + 1);
    servers_->insertRow(to);
    for (int c = 0; c < SColumns; ++c)
        servers_->setItem(to, c, items[c] ? items[c] : new QTableWidgetItem);
    servers_->item(to, SCluster)->setText(cluster.trimmed());
    filling_ = false;
    selectServerRows(to, to);
    edited();
}

void ClusterEditor::addTaskType() {
    std::set<QString> used;
    for (int r = 0; r < tasks_->rowCount(); ++r)
        if (tasks_->item(r, TName)) used.insert(tasks_->item(r, TName)->text());
    int n = 1;
    while (used.count(QString("type-%1").arg(n)))
        ++n;
    TaskType t;
    t.name = QString("type-%1").arg(n).toStdString();
    filling_ = true;
    tasks_->insertRow(tasks_->rowCount());
    fillTaskRow(tasks_->rowCount() - 1, t);
    filling_ = false;
    edited();
}

namespace {
void removeSelectedRows(QTableWidget* t) {
    std::set<int> rows;
    for (const auto& range : t->selectedRanges())
        for (int r = range.topRow(); r <= range.bottomRow(); ++r)
            rows.insert(r);
    if (rows.empty() && t->currentRow() >= 0) rows.insert(t->currentRow());
    for (auto it = rows.rbegin(); it != rows.rend(); ++it)
        t->removeRow(*it);
}
} // namespace

void ClusterEditor::removeSelectedServers() {
    filling_ = true;
    removeSelectedRows(servers_);
    filling_ = false;
    edited();
}

void ClusterEditor::removeSelectedTaskTypes() {
    filling_ = true;
    removeSelectedRows(tasks_);
    filling_ = false;
    edited();
}

} // namespace fog
