#include "widgets/intervene/fork_dialog.h"

#include "widgets/intervene/values_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include <cmath>

namespace fog {

namespace {

enum Column { WhatColumn, TargetColumn, NowColumn, ValueColumn, Columns };

const std::vector<ChangeKind>& forkKinds() {
    static const std::vector<ChangeKind> kinds{ChangeKind::LinkUp,    ChangeKind::LinkDown,
                                               ChangeKind::LinkLatency, ChangeKind::NodePrice,
                                               ChangeKind::NodeThroughput, ChangeKind::PolicyParam};
    return kinds;
}

bool isLink(ChangeKind k) {
    return k == ChangeKind::LinkUp || k == ChangeKind::LinkDown || k == ChangeKind::LinkLatency;
}

QString packTarget(const std::string& target, const std::string& linkTo) {
    return QString::fromStdString(target) + '\n' + QString::fromStdString(linkTo);
}

void unpackTarget(const QString& packed, std::string& target, std::string& linkTo) {
    const int nl = packed.indexOf('\n');
    target = packed.left(nl).toStdString();
    linkTo = nl < 0 ? std::string() : packed.mid(nl + 1).toStdString();
}

} // namespace

QString ForkDialog::instantText(double seconds) { return QString::number(seconds, 'g', 10); }

ForkDialog::ForkDialog(const Scenario& scenario, double at, double reached, const QString& parentLabel, QWidget* parent)
    : QDialog(parent), scenario_(scenario), reached_(reached) {
    setWindowTitle(tr("Fork %1").arg(parentLabel));
    setObjectName("forkDialog");
    recorded_ = scenario.events.list;
    auto* layout = new QVBoxLayout(this);
    auto* intro = new QLabel(
        tr("A fork replays %1 exactly up to the instant below (the same seed, the same events), then "
           "applies the changes there and runs on as a run of its own, grouped with its parent. "
           "Without a change it reproduces the parent.")
            .arg(parentLabel),
        this);
    intro->setWordWrap(true);
    layout->addWidget(intro);
    auto* form = new QFormLayout;
    at_ = new QLineEdit(instantText(at), this);
    at_->setObjectName("forkAt");
    at_->setToolTip(std::isnan(reached) ? tr("Virtual seconds")
                                        : tr("Virtual seconds, from 0 to %1 (how far the run went)").arg(instantText(reached)));
    form->addRow(tr("Fork at (virtual s)"), at_);
    layout->addLayout(form);
    connect(at_, &QLineEdit::textChanged, this, [this] {
        for (int r = 0; r < table_->rowCount(); ++r) updateCurrent(r);
    });

    table_ = new QTableWidget(0, Columns, this);
    table_->setObjectName("forkChanges");
    table_->setHorizontalHeaderLabels({tr("What"), tr("Which"), tr("Now"), tr("New value")});
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    table_->verticalHeader()->hide();
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    layout->addWidget(table_, 1);
    auto* rowButtons = new QHBoxLayout;
    auto* add = new QPushButton(tr("Add change"), this);
    add->setObjectName("forkAddChange");
    auto* remove = new QPushButton(tr("Remove"), this);
    remove->setObjectName("forkRemoveChange");
    rowButtons->addWidget(add);
    rowButtons->addWidget(remove);
    rowButtons->addStretch(1);
    layout->addLayout(rowButtons);
    connect(add, &QPushButton::clicked, this, [this] {
        addChange(scenarioLinks(scenario_).empty() ? ChangeKind::NodePrice : ChangeKind::LinkUp);
    });
    connect(remove, &QPushButton::clicked, this, [this] {
        const int r = table_->currentRow();
        if (r >= 0) removeChange(r);
    });

    message_ = new QLabel(this);
    message_->setObjectName("forkMessage");
    message_->setWordWrap(true);
    message_->setStyleSheet("color: #c0392b");
    message_->hide();
    layout->addWidget(message_);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Fork"));
    connect(buttons, &QDialogButtonBox::accepted, this, &ForkDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &ForkDialog::reject);
    layout->addWidget(buttons);
    resize(640, 360);
}

int ForkDialog::addChange(ChangeKind kind, const std::string& target, const std::string& linkTo, const QString& value) {
    const int row = table_->rowCount();
    table_->insertRow(row);
    auto* what = new QComboBox(table_);
    for (ChangeKind k : forkKinds()) what->addItem(changeKindName(k), static_cast<int>(k));
    what->setCurrentIndex(std::max(0, what->findData(static_cast<int>(kind))));
    table_->setCellWidget(row, WhatColumn, what);
    auto* which = new QComboBox(table_);
    table_->setCellWidget(row, TargetColumn, which);
    auto* now = new QTableWidgetItem;
    now->setFlags(Qt::ItemIsEnabled);
    table_->setItem(row, NowColumn, now);
    auto* edit = new QLineEdit(value, table_);
    edit->setPlaceholderText(tr("new value"));
    table_->setCellWidget(row, ValueColumn, edit);
    fillTargets(row);
    if (!target.empty()) {
        const int i = which->findData(packTarget(target, linkTo));
        if (i >= 0) which->setCurrentIndex(i);
        else { // not among the scenario's (a member): kept as typed, the check says if it is wrong
            which->addItem(QString::fromStdString(target), packTarget(target, linkTo));
            which->setCurrentIndex(which->count() - 1);
        }
    }
    updateCurrent(row);
    // The row's widgets find their row when they change (rows move as others are removed).
    connect(what, qOverload<int>(&QComboBox::currentIndexChanged), this, [this, what] {
        for (int r = 0; r < table_->rowCount(); ++r)
            if (table_->cellWidget(r, WhatColumn) == what) {
                fillTargets(r);
                updateCurrent(r);
            }
    });
    connect(which, qOverload<int>(&QComboBox::currentIndexChanged), this, [this, which] {
        for (int r = 0; r < table_->rowCount(); ++r)
            if (table_->cellWidget(r, TargetColumn) == which) updateCurrent(r);
    });
    return row;
}

void ForkDialog::removeChange(int row) {
    if (row >= 0 && row < table_->rowCount()) table_->removeRow(row);
}

void ForkDialog::fillTargets(int row) {
    auto* what = qobject_cast<QComboBox*>(table_->cellWidget(row, WhatColumn));
    auto* which = qobject_cast<QComboBox*>(table_->cellWidget(row, TargetColumn));
    if (!what || !which) return;
    const auto kind = static_cast<ChangeKind>(what->currentData().toInt());
    const QSignalBlocker block(which);
    which->clear();
    if (isLink(kind)) {
        for (const LinkRef& l : scenarioLinks(scenario_)) which->addItem(l.label, packTarget(l.target, l.linkTo));
    } else if (kind == ChangeKind::PolicyParam) {
        for (const QString& p : policyParameters(scenario_)) which->addItem(p, packTarget(p.toStdString(), {}));
    } else {
        for (const NodeSpec& n : scenario_.topology.nodes)
            which->addItem(n.group ? tr("%1 (group of %2)").arg(QString::fromStdString(n.id)).arg(n.count)
                                   : QString::fromStdString(n.id),
                           packTarget(n.id, {}));
    }
}

void ForkDialog::updateCurrent(int row) {
    auto* what = qobject_cast<QComboBox*>(table_->cellWidget(row, WhatColumn));
    auto* which = qobject_cast<QComboBox*>(table_->cellWidget(row, TargetColumn));
    QTableWidgetItem* now = table_->item(row, NowColumn);
    if (!what || !which || !now) return;
    Change c;
    c.kind = static_cast<ChangeKind>(what->currentData().toInt());
    unpackTarget(which->currentData().toString(), c.target, c.linkTo);
    // The value in effect at the fork instant: the scenario's, with the events recorded
    // before it.
    const std::optional<double> at = parseNumber(at_->text());
    std::vector<TimedEvent> before;
    for (const TimedEvent& e : recorded_)
        if (e.trigger.kind == EventTrigger::Kind::At && (!at || e.trigger.value <= *at)) before.push_back(e);
    const std::optional<double> v = currentValue(scenario_, before, c);
    now->setText(v ? QStringLiteral("%1 %2").arg(QString::number(*v, 'g', 6), changeKindUnit(c.kind)).trimmed()
                   : tr("not set"));
}

bool ForkDialog::rowChange(int row, Change& out, QString* error) const {
    auto* what = qobject_cast<QComboBox*>(table_->cellWidget(row, WhatColumn));
    auto* which = qobject_cast<QComboBox*>(table_->cellWidget(row, TargetColumn));
    auto* edit = qobject_cast<QLineEdit*>(table_->cellWidget(row, ValueColumn));
    if (!what || !which || !edit) return false;
    out.kind = static_cast<ChangeKind>(what->currentData().toInt());
    unpackTarget(which->currentData().toString(), out.target, out.linkTo);
    const QString name = tr("Change %1 (%2 of %3)").arg(row + 1).arg(changeKindName(out.kind), which->currentText());
    if (out.target.empty()) {
        if (error) *error = tr("%1: nothing to change (the scenario has none)").arg(name);
        return false;
    }
    const std::optional<double> v = parseNumber(edit->text());
    if (!v) {
        if (error)
            *error = edit->text().trimmed().isEmpty() ? tr("%1: give the new value").arg(name)
                                                      : tr("%1: '%2' is not a number").arg(name, edit->text());
        return false;
    }
    out.value = *v;
    TimedEvent e;
    QString why;
    if (!makeEvent(scenario_, out, e, &why)) {
        if (error) *error = tr("%1: %2").arg(name, why);
        return false;
    }
    return true;
}

QString ForkDialog::message() const { return message_->text(); }

void ForkDialog::accept() {
    auto refuse = [this](const QString& why) {
        message_->setText(why);
        message_->show();
    };
    const std::optional<double> at = parseNumber(at_->text());
    if (!at) return refuse(tr("Fork at: '%1' is not a number of virtual seconds").arg(at_->text()));
    if (*at < 0) return refuse(tr("Fork at: %1 s is before the run's start (0 s)").arg(*at));
    double instant = *at;
    // The prefilled instant is the parent's end written to 10 digits, which can round up
    // past it (18.11019235 for 18.1101923457): what reads as the end is the end.
    if (!std::isnan(reached_) && instant > reached_ && instantText(instant) == instantText(reached_)) instant = reached_;
    if (!std::isnan(reached_) && instant > reached_)
        return refuse(tr("Fork at: %1 s is past the end of the parent run (%2 s)")
                          .arg(instantText(instant), instantText(reached_)));
    std::vector<Change> changes;
    for (int r = 0; r < table_->rowCount(); ++r) {
        Change c;
        QString why;
        if (!rowChange(r, c, &why)) return refuse(why);
        changes.push_back(c);
    }
    message_->clear();
    message_->hide();
    atValue_ = instant;
    changes_ = changes;
    QDialog::accept();
}

std::vector<std::string> ForkDialog::actionTexts() const {
    std::vector<std::string> out;
    for (const Change& c : changes_) out.push_back(actionText(c));
    return out;
}

} // namespace fog
