// The property inspector's editors of `aggregate:` (core/policies/tiered.h): whether the
// aggregator runs a policy of its own, its sync and selection policy, their parameters as
// "key=value" pairs, its rounds per parent model and its local steps per dispatch. The
// schema (core/scenario/schema.cpp, aggregate.*) gives the help texts.

#include "widgets/topology/property_inspector.h"

#include "core/policies/policy_descriptor.h"

#include <QCheckBox>
#include <QComboBox>
#include <QLineEdit>
#include <QRegularExpression>

namespace fog {

namespace {

QString paramsText(const AggregateSpec& a) {
    QStringList parts;
    for (const auto& [k, v] : a.params)
        parts << QString::fromStdString(k) + "=" + QString::number(v, 'g', 12);
    return parts.join(QStringLiteral(", "));
}

/// "n=2, k=10" (commas or spaces between pairs); false and `why` for a malformed pair.
bool parseParams(const QString& text, std::map<std::string, double>& out, QString& why) {
    out.clear();
    const auto parts = text.split(QRegularExpression(QStringLiteral("[,;\\s]+")), Qt::SkipEmptyParts);
    for (const QString& p : parts) {
        const int eq = p.indexOf('=');
        bool ok = false;
        const double v = eq > 0 ? p.mid(eq + 1).toDouble(&ok) : 0.0;
        if (!ok) {
            why = QObject::tr("'%1' is not key=number").arg(p);
            return false;
        }
        out[p.left(eq).toStdString()] = v;
    }
    return true;
}

} // namespace

void PropertyInspector::buildAggregateFields() {
    auto own = [this] {
        const NodeSpec* n = firstNode();
        return n && n->aggregate.has_value();
    };
    auto isAggregator = [this] {
        const NodeSpec* n = firstNode();
        return n && roleAggregates(n->role);
    };

    auto* on = new QCheckBox(tr("own policy (tiered tree)"));
    Field& onField = addField("aggregate", tr("&Aggregation"), on, OnMember);
    onField.load = [this, on] {
        if (const NodeSpec* n = firstNode()) on->setChecked(n->aggregate.has_value());
    };
    onField.visible = isAggregator;
    connect(on, &QCheckBox::clicked, this, [this](bool checked) {
        commitMembers("aggregate", checked ? tr("Give own aggregation policy") : tr("Use scenario's policy"),
                      [checked](NodeSpec& n) {
                          if (!checked) n.aggregate.reset();
                          else if (!n.aggregate) n.aggregate = AggregateSpec{};
                      });
    });

    auto policyCombo = [this, own](const QString& key, const QString& label, bool sync) {
        auto* c = new QComboBox;
        Field& f = addField(key, label, c, OnMember);
        f.visible = own;
        f.load = [this, c, sync] {
            c->clear();
            const Scenario& s = doc_->scenario();
            c->addItem(tr("scenario's (%1)").arg(QString::fromStdString(sync ? s.sync.name : s.selection.name)),
                       QString());
            if (sync) {
                for (const auto* d : syncDescriptors())
                    if (d->level.usable) c->addItem(QString::fromStdString(d->info.name), QString::fromStdString(d->info.name));
            } else {
                for (const auto* d : selectionDescriptors())
                    c->addItem(QString::fromStdString(d->info.name), QString::fromStdString(d->info.name));
            }
            const NodeSpec* n = firstNode();
            const std::string current = n && n->aggregate ? (sync ? n->aggregate->sync : n->aggregate->selection) : "";
            const int i = c->findData(QString::fromStdString(current));
            c->setCurrentIndex(i < 0 ? 0 : i);
        };
        connect(c, qOverload<int>(&QComboBox::activated), this, [this, c, key, sync] {
            const std::string v = c->currentData().toString().toStdString();
            commitMembers(key, tr("Set %1").arg(key), [v, sync](NodeSpec& n) {
                if (!n.aggregate) n.aggregate = AggregateSpec{};
                (sync ? n.aggregate->sync : n.aggregate->selection) = v;
            });
        });
    };
    policyCombo("aggregate.sync", tr("  Sync policy"), true);
    policyCombo("aggregate.selection", tr("  Selection"), false);

    auto* params = new QLineEdit;
    params->setPlaceholderText(tr("e.g. n=2, k=10"));
    Field& pf = addField("aggregate.params", tr("  Parameters"), params, OnMember);
    pf.visible = own;
    pf.help = tr("the policies' parameters as key=value pairs (each a parameter of the sync or the "
                 "selection policy)");
    params->setToolTip(pf.help);
    pf.load = [this, params] {
        const NodeSpec* n = firstNode();
        params->setText(n && n->aggregate ? paramsText(*n->aggregate) : QString());
    };
    connect(params, &QLineEdit::editingFinished, this, [this, params] {
        if (loading_ || !params->isModified()) return;
        params->setModified(false);
        std::map<std::string, double> values;
        QString why;
        if (!parseParams(params->text(), values, why)) {
            field("aggregate.params")->rejected = why;
            showMessages();
            return;
        }
        commitMembers("aggregate", tr("Set aggregation parameters"), [values](NodeSpec& n) {
            if (!n.aggregate) n.aggregate = AggregateSpec{};
            n.aggregate->params = values;
            n.aggregate->paramLines.clear();
        });
    });

    auto integer = [this, own](const QString& key, const QString& label, int AggregateSpec::*member, int def) {
        numberEdit(
            key, label, OnMember,
            [member, def](const NodeSpec& n) { return static_cast<double>(n.aggregate ? (*n.aggregate).*member : def); },
            [member](NodeSpec& n, double v) {
                if (!n.aggregate) n.aggregate = AggregateSpec{};
                (*n.aggregate).*member = static_cast<int>(v);
            });
        field(key)->visible = own;
    };
    integer("aggregate.rounds", tr("  Rounds per parent model"), &AggregateSpec::rounds, 1);
    integer("aggregate.local_steps", tr("  Local steps (0: default)"), &AggregateSpec::localSteps, 0);
}

} // namespace fog
