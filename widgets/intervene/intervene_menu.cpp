#include "widgets/intervene/intervene_menu.h"

#include "widgets/run/run_controller.h"
#include "widgets/topology/edge_item.h"
#include "widgets/topology/node_item.h"

#include <QAction>
#include <QFont>
#include <QGraphicsItem>
#include <QMenu>
#include <QTimer>

#include <cmath>

namespace fog {

namespace {

std::string memberId(const NodeItem* group, int k) { return group->id().toStdString() + "-" + std::to_string(k); }

QString timeText(double t) { return QString::number(t, 'f', 1); }

} // namespace

InterveneMenu::InterveneMenu(RunController* controller, QWidget* dialogParent)
    : QObject(dialogParent), controller_(controller), parent_(dialogParent) {}

QString InterveneMenu::unavailableReason() const {
    if (!controller_) return tr("No run controller");
    if (controller_->isActive()) return {};
    return tr("Interventions change a run while it goes: start a run (or pause one) first");
}

void InterveneMenu::populate(QMenu& menu, QGraphicsItem* item) {
    if (!item) return;
    Target t;
    if (item->type() == NodeItem::Type) {
        const auto* n = static_cast<const NodeItem*>(item);
        t.id = n->id().toStdString();
        t.group = n->isGroup();
        t.shown = n->isGroup() ? tr("group %1").arg(n->id()) : n->id();
    } else if (item->type() == MemberItem::Type) {
        const auto* m = static_cast<const MemberItem*>(item);
        if (!m->group()) return;
        t.id = memberId(m->group(), m->index());
        t.shown = QString::fromStdString(t.id);
    } else if (item->type() == EdgeItem::Type) {
        const auto* e = static_cast<const EdgeItem*>(item);
        if (!e->from() || !e->to()) return;
        t.link = true;
        t.id = e->fromMember() >= 0 ? memberId(e->from(), e->fromMember()) : e->from()->id().toStdString();
        if (!e->isParentLink())
            t.linkTo = e->toMember() >= 0 ? memberId(e->to(), e->toMember()) : e->to()->id().toStdString();
        const QString to = e->toMember() >= 0 ? QString::fromStdString(memberId(e->to(), e->toMember())) : e->to()->id();
        t.shown = QStringLiteral("%1 → %2").arg(QString::fromStdString(t.id), to);
    } else {
        return;
    }
    const QString why = unavailableReason();
    const bool enabled = why.isEmpty();
    // The run stands still while the menu and its dialog are open: what the menu says ("at
    // t = 3.9 s") is the instant the change is applied and stored at, and a run at full speed
    // does not end under the menu. It runs on when the menu closes or the change is sent.
    if (enabled && controller_->state() == RunController::State::Running) {
        controller_->holdStill();
        heldByMenu_ = true;
        connect(&menu, &QMenu::aboutToHide, this, [this] {
            // An entry's action comes after aboutToHide: let it say it is asking first.
            QTimer::singleShot(0, this, [this] {
                if (!asking_) releaseHold();
            });
        });
    }
    menu.setToolTipsVisible(true);
    // A disabled entry, not a section: a section's text does not widen the menu (clipped).
    QAction* title = menu.addAction(enabled ? tr("Intervene on %1 at t = %2 s").arg(t.shown, timeText(controller_->runClock()))
                                            : tr("Intervene on %1").arg(t.shown));
    title->setObjectName("interveneSection");
    title->setEnabled(false);
    QFont bold = title->font();
    bold.setBold(true);
    title->setFont(bold);
    if (t.link) addLinkEntries(menu, t, enabled);
    else addNodeEntries(menu, t, enabled);
    if (!enabled)
        for (QAction* a : menu.actions())
            if (a->property("fogIntervention").toBool()) a->setToolTip(why);
}

QAction* InterveneMenu::addEntry(QMenu& menu, const QString& text, bool enabled, std::function<void()> run) {
    QAction* a = menu.addAction(text);
    a->setProperty("fogIntervention", true);
    a->setEnabled(enabled);
    connect(a, &QAction::triggered, this, [this, run = std::move(run)] {
        asking_ = true;
        run();
        asking_ = false;
        releaseHold();
    });
    return a;
}

void InterveneMenu::releaseHold() {
    if (!heldByMenu_) return;
    heldByMenu_ = false;
    if (controller_ && controller_->state() == RunController::State::Paused) controller_->resume();
}

void InterveneMenu::addNodeEntries(QMenu& menu, const Target& t, bool enabled) {
    addEntry(menu, t.group ? tr("Take offline…") : tr("Take offline"), enabled, [this, t] { askOffline(t, true); })
        ->setObjectName("interveneOffline");
    addEntry(menu, t.group ? tr("Bring online…") : tr("Bring online"), enabled, [this, t] { askOffline(t, false); })
        ->setObjectName("interveneOnline");
    addEntry(menu, tr("Change throughput…"), enabled, [this, t] { askNode(t, ChangeKind::NodeThroughput); })
        ->setObjectName("interveneThroughput");
    addEntry(menu, tr("Change price…"), enabled, [this, t] { askNode(t, ChangeKind::NodePrice); })
        ->setObjectName("intervenePrice");
    if (t.group) {
        QAction* a = addEntry(menu, tr("Add devices…"), enabled && fork_, [this, t] { askAddDevices(t); });
        a->setObjectName("interveneAddDevices");
        if (enabled)
            a->setToolTip(fork_ ? tr("New devices join %1 in a fork of this run from now (a run going cannot grow)")
                                      .arg(t.shown)
                                : tr("No fork launcher"));
    }
}

void InterveneMenu::askAddDevices(const Target& t) {
    if (!fork_ || !controller_) return;
    // The scenario with the run's interventions and add events so far: the count is checked
    // against the node limit with them.
    Scenario s = controller_->scenario();
    for (const TimedEvent& e : controller_->interventions()) s.events.list.push_back(e);
    auto actionOf = [t](double n) { return "add " + t.id + " " + std::to_string(static_cast<long long>(n)); };
    auto check = [s, actionOf](const std::vector<double>& v) {
        if (v.empty() || !(v[0] >= 1) || v[0] != std::floor(v[0])) return tr("Devices: give a whole number of at least 1");
        TimedEvent e;
        QString why;
        return makeEventFromAction(s, actionOf(v[0]), e, &why) ? QString() : why;
    };
    const auto v = ask(tr("Add devices to %1").arg(t.shown),
                       tr("New devices join the group now. A run going cannot grow, so they join a fork of this run "
                          "from this instant (the fork replays the run up to here):"),
                       {{tr("Devices"), QString(), 1.0, false}}, check);
    if (!v) return;
    fork_(actionOf((*v)[0]));
}

void InterveneMenu::addLinkEntries(QMenu& menu, const Target& t, bool enabled) {
    addEntry(menu, tr("Change bandwidth / latency…"), enabled, [this, t] { askLink(t); })
        ->setObjectName("interveneLink");
}

std::optional<std::vector<double>> InterveneMenu::ask(const QString& title, const QString& intro,
                                                      const std::vector<ValueField>& fields,
                                                      const ValuesDialog::Check& check) {
    if (asker_) return asker_(title, intro, fields, check);
    ValuesDialog d(title, intro, fields, check, parent_);
    if (d.exec() != QDialog::Accepted) return std::nullopt;
    return d.values();
}

bool InterveneMenu::apply(const std::vector<Change>& changes, QString* error) {
    QString why = unavailableReason();
    TimedEvent e;
    if (why.isEmpty() && makeEvent(controller_->scenario(), changes, e, &why) && controller_->intervene(e, &why)) {
        Q_EMIT requested(eventLabel(e));
        return true;
    }
    if (error) *error = why;
    Q_EMIT refused(why);
    return false;
}

void InterveneMenu::askOffline(const Target& t, bool offline) {
    Change c{offline ? ChangeKind::Offline : ChangeKind::Online, t.id, {}, 1.0};
    if (!t.group) {
        apply({c});
        return;
    }
    const QString title = offline ? tr("Take %1 offline").arg(t.shown) : tr("Bring %1 online").arg(t.shown);
    const QString intro = offline ? tr("Share of the group's members that leave now (chosen with the run's seed):")
                                  : tr("Share of the group's members that come back now (chosen with the run's seed):");
    const Scenario* s = &controller_->scenario();
    auto check = [s, c](const std::vector<double>& v) {
        if (v.empty() || !(v[0] > 0 && v[0] <= 100)) return tr("Share: give a percentage above 0 and at most 100");
        Change x = c;
        x.value = v[0] / 100.0;
        TimedEvent e;
        QString why;
        return makeEvent(*s, x, e, &why) ? QString() : why;
    };
    const auto v = ask(title, intro, {{tr("Share of members"), QStringLiteral("%"), 100.0, false}}, check);
    if (!v) return;
    c.value = (*v)[0] / 100.0;
    apply({c});
}

void InterveneMenu::askNode(const Target& t, ChangeKind kind) {
    Change c{kind, t.id, {}, 0.0};
    const std::optional<double> now = currentValue(controller_->scenario(), controller_->interventions(), c);
    const QString title = tr("%1 of %2").arg(changeKindName(kind), t.shown);
    const QString intro = t.group ? tr("The new value for every member of the group, from now on:")
                                  : tr("The new value, from now on:");
    const Scenario* s = &controller_->scenario();
    auto check = [s, c](const std::vector<double>& v) {
        Change x = c;
        x.value = v.empty() ? NAN : v[0];
        TimedEvent e;
        QString why;
        return makeEvent(*s, x, e, &why) ? QString() : why;
    };
    const auto v = ask(title, intro, {{changeKindName(kind), changeKindUnit(kind), now, false}}, check);
    if (!v) return;
    c.value = (*v)[0];
    apply({c});
}

void InterveneMenu::askLink(const Target& t) {
    const Scenario* s = &controller_->scenario();
    const std::vector<ChangeKind> kinds{ChangeKind::LinkUp, ChangeKind::LinkDown, ChangeKind::LinkLatency};
    std::vector<ValueField> fields;
    for (ChangeKind k : kinds) {
        const Change c{k, t.id, t.linkTo, 0.0};
        fields.push_back({changeKindName(k), changeKindUnit(k), currentValue(*s, controller_->interventions(), c), true});
    }
    // Only the values the user changed go into the event (an untouched field keeps its value
    // even if a trace changes it meanwhile).
    auto changesOf = [t, kinds, fields](const std::vector<double>& v) {
        std::vector<Change> out;
        for (std::size_t i = 0; i < kinds.size() && i < v.size(); ++i) {
            if (std::isnan(v[i])) continue;
            if (fields[i].current && *fields[i].current == v[i]) continue;
            out.push_back({kinds[i], t.id, t.linkTo, v[i]});
        }
        return out;
    };
    auto check = [s, changesOf](const std::vector<double>& v) {
        const std::vector<Change> cs = changesOf(v);
        if (cs.empty()) return tr("Change at least one value");
        TimedEvent e;
        QString why;
        return makeEvent(*s, cs, e, &why) ? QString() : why;
    };
    const auto v = ask(tr("Link %1").arg(t.shown), tr("New values from now on (an unchanged field keeps its value):"),
                       fields, check);
    if (!v) return;
    apply(changesOf(*v));
}

} // namespace fog
