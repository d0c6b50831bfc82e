// The property inspector's own editors of `aggregate:` (core/policies/tiered.h): whether the
// aggregator runs a policy of its own, its sync and selection policy (from the policies'
// descriptors) and their parameters as "key=value" pairs. Its other keys (server optimizer,
// rounds, local steps) are edited as the node table declares them; the schema
// (core/scenario/schema.cpp, aggregate.*) gives labels and help texts.

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

void PropertyInspector::buildAggregateField(const NodeField& nf, const QString& label) {
    auto own = [this] {
        const NodeSpec* n = firstNode();
        return n && n->aggregate.has_value();
    };
    if (nf.path == "aggregate") {
        auto* on = new QCheckBox(tr("own policy (tiered tree)"));
        Field& onField = addField("aggregate", label, on, OnMember);
        onField.load = [this, on, &nf] {
            if (const NodeSpec* n = firstNode()) on->setChecked(nf.present(*n));
        };
        onField.visible = [this] {
            const NodeSpec* n = firstNode();
            return n && roleAggregates(n->role);
        };
        connect(on, &QCheckBox::clicked, this, [this, &nf](bool checked) {
            commitMembers("aggregate", checked ? tr("Give own aggregation policy") : tr("Use scenario's policy"),
                          [checked, &nf](NodeSpec& n) { nf.setPresent(n, checked); });
        });
        return;
    }

    // aggregate.sync and aggregate.selection: the policies an aggregator may run, from their
    // descriptors; the first entry is the scenario's.
    const bool sync = nf.path == "aggregate.sync";
    const QString key = QString::fromStdString(nf.path);
    auto* c = new QComboBox;
    Field& f = addField(key, label, c, OnMember);
    f.visible = own;
    f.load = [this, c, sync, &nf] {
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
        const std::string current = n ? std::get<std::string>(nf.get(*n)) : "";
        const int i = c->findData(QString::fromStdString(current));
        c->setCurrentIndex(i < 0 ? 0 : i);
    };
    connect(c, qOverload<int>(&QComboBox::activated), this, [this, c, key, &nf] {
        const std::string v = c->currentData().toString().toStdString();
        commitMembers(key, tr("Set %1").arg(key), [v, &nf](NodeSpec& n) { nf.set(n, FieldValue(v)); });
    });
    if (sync) return;

    // The policies' parameters as "key=value" pairs: not a key of the table (they are the
    // policies' own, core/policies), edited in one line below the selection.
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
}

} // namespace fog
