#include "widgets/topology/property_inspector.h"

#include "core/scenario/schema.h"

#include "core/scenario/scenario_io.h"
#include "widgets/document/scenario_document.h"
#include "widgets/topology/topology_scene.h"

#include <QCheckBox>
#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QRegularExpression>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QUndoStack>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace fog {

namespace {

/// Sets a range's lower end; an exact range (and a node's value) stays exact.
void setLower(const NodeSpec& owner, Range& r, double v) {
    const bool exact = r.isExact() || !owner.group;
    r.min = v;
    if (exact) r.max = v;
}

QString qs(const std::string& s) {
    return QString::fromStdString(s);
}
QString num(double v) {
    return QString::number(v, 'g', 12);
}

/// True when `path` is `prefix` or lies below it (as yaml_reader's pathWithin).
bool within(const QString& path, const QString& prefix) {
    if (!path.startsWith(prefix)) return false;
    return path.size() == prefix.size() || path[prefix.size()] == '.' || path[prefix.size()] == '[';
}

/// What an empty field of a key with a "not given" value means ("unlimited").
QString unsetText(const FieldInfo& f) {
    QString note = QString::fromStdString(f.defaultNote);
    if (note.startsWith(QLatin1String("absent: "))) note = note.mid(8);
    return note;
}

template <class E> void fillCombo(QComboBox* c, std::initializer_list<E> values) {
    for (E v : values)
        c->addItem(QString::fromLatin1(toString(v)), static_cast<int>(v));
}

template <class E> E comboValue(const QComboBox* c) {
    return static_cast<E>(c->currentData().toInt());
}

template <class E> void setCombo(QComboBox* c, E v) {
    c->setCurrentIndex(c->findData(static_cast<int>(v)));
}

QString traceText(const AvailabilitySpec& a) {
    QStringList parts;
    for (const auto& iv : a.offline)
        parts << QStringLiteral("[%1, %2]").arg(num(iv.fromS), num(iv.toS));
    return parts.join(", ");
}

} // namespace

PropertyInspector::PropertyInspector(ScenarioDocument* doc, QWidget* parent)
    : QWidget(parent), doc_(doc) {
    title_ = new QLabel(this);
    QFont f = title_->font();
    f.setBold(true);
    title_->setFont(f);
    general_ = new QLabel(this);
    general_->setWordWrap(true);
    general_->setStyleSheet(QStringLiteral("color: #d0312d;"));
    auto* body = new QWidget;
    grid_ = new QGridLayout(body);
    grid_->setColumnStretch(1, 1);
    buildMemberFields();
    buildLinkFields();
    grid_->setRowStretch(grid_->rowCount(), 1); // fields at the top, space below
    auto* scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff); // fields follow the width
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidget(body);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(title_);
    layout->addWidget(general_);
    layout->addWidget(scroll, 1);

    connect(doc_, &ScenarioDocument::scenarioChanged, this, [this] {
        // Ids may have changed under us (rename, delete, undo): keep those still there.
        QStringList kept;
        for (const QString& id : std::as_const(ids_))
            if (doc_->find(id).valid()) kept << id;
        ids_ = kept;
        if (link_ >= static_cast<int>(doc_->scenario().topology.links.size())) link_ = -1;
        reload();
    });
    connect(doc_, &ScenarioDocument::nodeRenamed, this,
            [this](const QString& from, const QString& to) {
                const int i = ids_.indexOf(from);
                if (i >= 0) ids_[i] = to;
            });
    reload();
}

void PropertyInspector::attach(TopologyScene* scene) {
    scene_ = scene;
    connect(scene, &QGraphicsScene::selectionChanged, this, [this] {
        if (scene_) setSelection(scene_->selectedIds(), scene_->selectedLinks());
    });
}

void PropertyInspector::setSelection(const QStringList& ids, const std::vector<int>& links) {
    ids_ = ids;
    link_ = ids.isEmpty() && links.size() == 1 ? links.front() : -1;
    lastKey_.clear();
    reload();
}

// --- fields ----------------------------------------------------------------------------------

PropertyInspector::Field& PropertyInspector::addField(const QString& key, const QString& label,
                                                      QWidget* editor, unsigned kinds) {
    Field f;
    f.key = key;
    f.msgKey = key;
    f.kinds = kinds;
    f.label = new QLabel(label);
    f.label->setBuddy(editor);
    // Long labels wrap rather than squeeze the editors to a character or two.
    f.label->setWordWrap(true);
    f.label->setMinimumHeight(editor->sizeHint().height());
    f.label->setMinimumWidth(fontMetrics().horizontalAdvance(QStringLiteral("bandwidth up")));
    f.label->setMaximumWidth(fontMetrics().horizontalAdvance(QStringLiteral("energy per sample (J) ")));
    f.label->setAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    editor->setMinimumWidth(fontMetrics().horizontalAdvance(QStringLiteral("0000000000")));
    f.box = new QWidget;
    auto* v = new QVBoxLayout(f.box);
    v->setContentsMargins(0, 0, 0, 0);
    v->setSpacing(1);
    v->addWidget(editor);
    // The message gets a row of its own, the inspector's whole width, under its field.
    f.message = new QLabel;
    f.message->setWordWrap(true);
    f.message->setStyleSheet(QStringLiteral("color: #d0312d;")); // error red, legible on both
    f.message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    f.message->hide();
    f.editor = editor;
    const int row = grid_->rowCount();
    grid_->addWidget(f.label, row, 0, Qt::AlignLeft | Qt::AlignTop);
    grid_->addWidget(f.box, row, 1);
    grid_->addWidget(f.message, row + 1, 0, 1, 2);
    fields_.push_back(std::move(f));
    return fields_.back();
}

QLineEdit* PropertyInspector::numberEdit(const QString& key, const QString& label, unsigned kinds,
                                         const std::function<double(const NodeSpec&)>& get,
                                         const std::function<void(NodeSpec&, double)>& set) {
    auto* edit = new QLineEdit;
    Field& f = addField(key, label, edit, kinds);
    f.load = [this, edit, get, kinds, key] {
        // Several items: their common value, or blank marked "(mixed)" when they differ.
        std::vector<double> values;
        const auto& t = doc_->scenario().topology;
        for (const EntityRef& e : refs()) {
            const NodeSpec& n = t.nodes[static_cast<std::size_t>(e.index)];
            if (kinds & (n.group ? OnGroup : OnNode)) values.push_back(get(n));
        }
        const bool mixed = std::any_of(values.begin(), values.end(),
                                       [&](double v) { return v != values.front(); });
        // A key whose "not given" value has a meaning (nic_mbps 0: unlimited) shows it empty.
        const NodeField* nf = findNodeField(key.toStdString());
        const bool unset = !values.empty() && !mixed && nf && isUnset(*nf, FieldValue(values.front()));
        if (nf && nf->unsetValue)
            edit->setPlaceholderText(mixed ? tr("(mixed)") : unsetText(*nf));
        else
            edit->setPlaceholderText(mixed ? tr("(mixed)") : QString());
        edit->setText(values.empty() || mixed || unset ? QString() : num(values.front()));
    };
    connect(edit, &QLineEdit::editingFinished, this, [this, key, edit, set, kinds] {
        if (loading_ || !edit->isModified()) return;
        edit->setModified(false);
        double v = 0;
        const NodeField* nf = findNodeField(key.toStdString());
        if (nf && nf->unsetValue && edit->text().trimmed().isEmpty()) {
            v = *nf->unsetValue; // empty: back to "not given"
        } else {
            if (!parseField(*field(key), edit->text(), v)) return;
            if (nf && isUnset(*nf, FieldValue(v))) {
                // The loader refuses the "not given" value written out, with this message.
                field(key)->rejected = QString::fromStdString(boundsProblem(fieldBounds(*nf), v) + " (" +
                                                              nf->defaultNote + ")") +
                                       tr("; leave it empty for that");
                showMessages();
                return;
            }
        }
        commitMembers(
            key, tr("Set %1").arg(key), [&](NodeSpec& n) { set(n, v); }, kinds);
    });
    return edit;
}

QLineEdit* PropertyInspector::linkNumber(const QString& key, const QString& label,
                                         const std::function<double(const LinkParams&)>& get,
                                         const std::function<void(LinkParams&, double)>& set) {
    auto* edit = new QLineEdit;
    Field& f = addField(key, label, edit, OnLink);
    f.load = [this, edit, get] {
        const auto& links = doc_->scenario().topology.links;
        if (link_ >= 0 && link_ < static_cast<int>(links.size()))
            edit->setText(num(get(links[static_cast<std::size_t>(link_)].params)));
    };
    connect(edit, &QLineEdit::editingFinished, this, [this, key, edit, set] {
        if (loading_ || !edit->isModified()) return;
        edit->setModified(false);
        double v = 0;
        if (!parseField(*field(key), edit->text(), v)) return;
        commitLink(key, [&](LinkSpec& l) { set(l.params, v); });
    });
    return edit;
}

bool PropertyInspector::parseField(Field& f, const QString& text, double& out) {
    bool ok = false;
    out = QLocale::c().toDouble(text.trimmed(), &ok);
    if (ok) return true;
    // The loader's wording for a value that is not a number.
    f.rejected = tr("must be a number, got '%1'").arg(text);
    showMessages();
    return false;
}

void PropertyInspector::buildMemberFields() {
    auto* id = new QLineEdit;
    addField("id", tr("&Id"), id, OnMember).load = [this, id] {
        id->setText(ids_.size() == 1 ? ids_.front() : tr("(%n items)", "", int(ids_.size())));
        id->setEnabled(ids_.size() == 1);
    };
    connect(id, &QLineEdit::editingFinished, this, [this, id] {
        if (!loading_ && id->isModified() && ids_.size() == 1) {
            id->setModified(false);
            commitRename(id->text().trimmed());
        }
    });

    auto* count = new QSpinBox;
    count->setRange(-1, 100000000); // the loader's range check speaks for out-of-range values
    count->setSuffix(tr(" devices"));
    count->setKeyboardTracking(false);
    addField("count", tr("&Count"), count, OnGroup).load = [this, count] {
        if (const NodeSpec* g = firstGroup()) count->setValue(g->count);
    };
    connect(count, qOverload<int>(&QSpinBox::valueChanged), this, [this](int v) {
        if (!loading_)
            commitMembers(
                "count", tr("Set count"), [v](NodeSpec& g) { g.count = v; }, OnGroup);
    });

    auto* tier = new QComboBox;
    fillCombo(tier, {Tier::Cloud, Tier::Edge, Tier::Device});
    addField("tier", tr("&Tier"), tier, OnMember).load = [this, tier] {
        if (const NodeSpec* n = firstNode()) setCombo(tier, n->tier);
    };
    connect(tier, qOverload<int>(&QComboBox::activated), this, [this, tier] {
        const Tier t = comboValue<Tier>(tier);
        commitMembers("tier", tr("Set tier"), [t](NodeSpec& n) { n.tier = t; });
    });

    auto* role = new QComboBox;
    fillCombo(role, {Role::Trainer, Role::Aggregator, Role::Both, Role::Relay});
    addField("role", tr("&Role"), role, OnMember).load = [this, role] {
        if (const NodeSpec* n = firstNode()) setCombo(role, n->role);
    };
    connect(role, qOverload<int>(&QComboBox::activated), this, [this, role] {
        const Role r = comboValue<Role>(role);
        commitMembers("role", tr("Set role"), [r](NodeSpec& n) { n.role = r; });
    });

    auto* parent = new QComboBox;
    parent->setEditable(true);
    parent->setInsertPolicy(QComboBox::NoInsert);
    addField("parent", tr("&Parent"), parent, OnMember).load = [this, parent] {
        parent->clear();
        parent->addItem(QString());
        // Offer the aggregators and relays (a group's first members; for a group also the aggregating
        // groups, to nest it under every member); any node id may be typed.
        const auto& nodes = doc_->scenario().topology.nodes;
        const bool groupSelected = firstGroup() != nullptr;
        for (const bool groups : {false, true})
            for (const auto& n : nodes) {
                if (n.group != groups || n.role == Role::Trainer || ids_.contains(qs(n.id)))
                    continue;
                if (!n.group) {
                    parent->addItem(qs(n.id));
                    continue;
                }
                if (groupSelected) parent->addItem(qs(n.id));
                if (doc_->scenario().topology.nestedParent(
                        static_cast<std::size_t>(&n - nodes.data())) >= 0)
                    continue; // its members' ids carry their parents' indices: type them
                for (int k = 0; k < std::min(n.count, 20); ++k)
                    parent->addItem(qs(n.id) + "-" + QString::number(k));
            }
        QString p;
        if (const NodeSpec* n = firstNode()) p = qs(n->parent);
        parent->setEditText(p);
    };
    auto commitParent = [this, parent] {
        if (loading_) return;
        const std::string p = parent->currentText().trimmed().toStdString();
        QString current;
        if (const NodeSpec* n = firstNode()) current = qs(n->parent);
        if (qs(p) == current && ids_.size() == 1) return;
        commitMembers("parent", tr("Set parent"), [p](NodeSpec& n) { n.parent = p; });
    };
    connect(parent, qOverload<int>(&QComboBox::activated), this, commitParent);
    connect(parent->lineEdit(), &QLineEdit::editingFinished, this, commitParent);

    auto* region = new QLineEdit;
    addField("region", tr("Re&gion"), region, OnMember).load = [this, region] {
        if (const NodeSpec* n = firstNode()) region->setText(qs(n->region));
    };
    connect(region, &QLineEdit::editingFinished, this, [this, region] {
        if (loading_ || !region->isModified()) return;
        region->setModified(false);
        const std::string r = region->text().trimmed().toStdString();
        commitMembers("region", tr("Set region"), [r](NodeSpec& n) { n.region = r; });
    });

    // Throughput: a node has one value, a group a range {min, max} drawn per member.
    numberEdit(
        "compute.throughput", tr("Throughput (samples/s)"), OnMember,
        [](const NodeSpec& n) { return n.compute.throughput.min; },
        [](NodeSpec& n, double v) { setLower(n, n.compute.throughput, v); });
    field("compute.throughput")->label->setToolTip(tr("For a group: the minimum of the range"));
    numberEdit(
        "compute.throughput.max", tr("  … up to (samples/s)"), OnGroup,
        [](const NodeSpec& g) { return g.compute.throughput.max; },
        [](NodeSpec& g, double v) { g.compute.throughput.max = v; });
    field("compute.throughput.max")->msgKey.clear();

    auto* noise = new QComboBox;
    using NK = NoiseSpec::Kind;
    fillCombo(noise, {NK::None, NK::Exponential, NK::ShiftedExponential, NK::LogNormal});
    addField("compute.noise.kind", tr("Step-time &noise"), noise, OnMember).load = [this, noise] {
        if (const NodeSpec* n = firstNode()) setCombo(noise, n->compute.noise.kind);
    };
    connect(noise, qOverload<int>(&QComboBox::activated), this, [this, noise] {
        const NK k = comboValue<NK>(noise);
        commitMembers("compute.noise.kind", tr("Set noise"),
                      [k](NodeSpec& n) { n.compute.noise.kind = k; });
    });
    numberEdit(
        "compute.noise.shift", tr("  Shift (fraction of mean, [0, 1))"), OnMember,
        [](const NodeSpec& n) { return n.compute.noise.shift; },
        [](NodeSpec& n, double v) { n.compute.noise.shift = v; });
    numberEdit(
        "compute.noise.sigma", tr("  Sigma (log-normal)"), OnMember,
        [](const NodeSpec& n) { return n.compute.noise.sigma; },
        [](NodeSpec& n, double v) { n.compute.noise.sigma = v; });

    using AK = AvailabilitySpec::Kind;
    auto* avail = new QComboBox;
    fillCombo(avail, {AK::Always, AK::Markov, AK::Trace});
    addField("availability.kind", tr("&Availability"), avail, OnMember).load = [this, avail] {
        if (const NodeSpec* n = firstNode()) setCombo(avail, n->availability.kind);
    };
    connect(avail, qOverload<int>(&QComboBox::activated), this, [this, avail] {
        const AK k = comboValue<AK>(avail);
        commitMembers("availability.kind", tr("Set availability"),
                      [k](NodeSpec& n) { n.availability.kind = k; });
    });
    numberEdit(
        "availability.mean_up_s", tr("  Mean time online (s)"), OnMember,
        [](const NodeSpec& n) { return n.availability.meanUpS; },
        [](NodeSpec& n, double v) { n.availability.meanUpS = v; });
    numberEdit(
        "availability.mean_down_s", tr("  Mean time offline (s)"), OnMember,
        [](const NodeSpec& n) { return n.availability.meanDownS; },
        [](NodeSpec& n, double v) { n.availability.meanDownS = v; });

    auto* start = new QComboBox;
    start->addItem(tr("online"), 0);
    start->addItem(tr("offline"), 1);
    start->addItem(tr("stationary"), 2);
    auto startOf = [](const AvailabilitySpec& a) {
        return a.startStationary ? 2 : a.startOnline ? 0 : 1;
    };
    Field& startField = addField("availability.start", tr("  State at t = 0"), start, OnMember);
    startField.load = [this, start, startOf] {
        if (const NodeSpec* n = firstNode()) start->setCurrentIndex(startOf(n->availability));
    };
    connect(start, qOverload<int>(&QComboBox::activated), this, [this](int i) {
        auto set = [i](AvailabilitySpec& a) {
            a.startStationary = i == 2;
            a.startOnline = i != 1;
        };
        commitMembers("availability.start", tr("Set start state"),
                      [set](NodeSpec& n) { set(n.availability); });
    });

    auto* trace = new QLineEdit;
    trace->setPlaceholderText(tr("[from_s, to_s], ...  e.g. [0, 60], [300, 420]"));
    Field& traceField =
        addField("availability.offline", tr("  Offline intervals (s)"), trace, OnMember);
    traceField.load = [this, trace] {
        if (const NodeSpec* n = firstNode()) trace->setText(traceText(n->availability));
    };
    connect(trace, &QLineEdit::editingFinished, this, [this, trace] {
        if (loading_ || !trace->isModified()) return;
        trace->setModified(false);
        std::vector<double> values;
        static const QRegularExpression number(
            QStringLiteral("[-+]?[0-9]*\\.?[0-9]+(?:[eE][-+]?[0-9]+)?"));
        for (auto it = number.globalMatch(trace->text()); it.hasNext();)
            values.push_back(QLocale::c().toDouble(it.next().captured()));
        if (values.size() % 2 != 0) {
            field("availability.offline")->rejected =
                tr("must be a list of [from_s, to_s] pairs, got an odd count of numbers");
            showMessages();
            return;
        }
        std::vector<AvailabilitySpec::Interval> ivs;
        for (std::size_t i = 0; i + 1 < values.size(); i += 2)
            ivs.push_back({values[i], values[i + 1]});
        commitMembers("availability.offline", tr("Set offline intervals"),
                      [ivs](NodeSpec& n) { n.availability.offline = ivs; });
    });

    numberEdit(
        "price_per_hour", tr("Price ($/hour)"), OnMember,
        [](const NodeSpec& n) { return n.pricePerHour.min; },
        [](NodeSpec& n, double v) { setLower(n, n.pricePerHour, v); });
    numberEdit(
        "price_per_hour.max", tr("  … up to ($/hour)"), OnGroup,
        [](const NodeSpec& g) { return g.pricePerHour.max; },
        [](NodeSpec& g, double v) { g.pricePerHour.max = v; });
    field("price_per_hour.max")->msgKey.clear();
    auto* billing = new QComboBox;
    fillCombo(billing, {Billing::Held, Billing::Serverless});
    addField("billing", tr("&Billing"), billing, OnMember).load = [this, billing] {
        if (const NodeSpec* n = firstNode()) setCombo(billing, n->billing);
    };
    connect(billing, qOverload<int>(&QComboBox::activated), this, [this, billing] {
        const Billing b = comboValue<Billing>(billing);
        commitMembers("billing", tr("Set billing"), [b](NodeSpec& n) { n.billing = b; });
    });
    numberEdit(
        "invocation_fee_usd", tr("  Fee per invocation ($)"), OnMember,
        [](const NodeSpec& n) { return n.invocationFeeUsd; },
        [](NodeSpec& n, double v) { n.invocationFeeUsd = v; });
    numberEdit(
        "energy.per_sample_j", tr("Energy per sample (J)"), OnMember,
        [](const NodeSpec& n) { return n.energy.perSampleJ; },
        [](NodeSpec& n, double v) { n.energy.perSampleJ = v; });
    numberEdit(
        "energy.per_byte_j", tr("Energy per byte sent (J)"), OnMember,
        [](const NodeSpec& n) { return n.energy.perByteJ; },
        [](NodeSpec& n, double v) { n.energy.perByteJ = v; });
    numberEdit(
        "energy.per_byte_forwarded_j", tr("Energy per byte forwarded (J)"), OnMember,
        [](const NodeSpec& n) { return n.energy.perByteForwardedJ; },
        [](NodeSpec& n, double v) { n.energy.perByteForwardedJ = v; });
    numberEdit(
        "energy.per_byte_received_j", tr("Energy per byte received (J)"), OnMember,
        [](const NodeSpec& n) { return n.energy.perByteReceivedJ; },
        [](NodeSpec& n, double v) { n.energy.perByteReceivedJ = v; });
    numberEdit(
        "energy.idle_w", tr("Idle power (W)"), OnMember, [](const NodeSpec& n) { return n.energy.idleW; },
        [](NodeSpec& n, double v) { n.energy.idleW = v; });
    numberEdit(
        "energy.per_update_aggregated_j", tr("Energy per update aggregated (J)"), OnMember,
        [](const NodeSpec& n) { return n.energy.perUpdateAggregatedJ; },
        [](NodeSpec& n, double v) { n.energy.perUpdateAggregatedJ = v; });
    numberEdit(
        "data_share", tr("Data share (relative)"), OnMember,
        [](const NodeSpec& n) { return n.dataShare.min; },
        [](NodeSpec& n, double v) { setLower(n, n.dataShare, v); });
    numberEdit(
        "data_share.max", tr("  … up to"), OnGroup,
        [](const NodeSpec& g) { return g.dataShare.max; },
        [](NodeSpec& g, double v) { g.dataShare.max = v; });
    field("data_share.max")->msgKey.clear();

    // The network interface: empty is the schema's "not given" value (unlimited).
    numberEdit(
        "nic_mbps", tr("Network interface (Mbit/s)"), OnMember,
        [](const NodeSpec& n) { return n.nicMbps; }, [](NodeSpec& n, double v) { n.nicMbps = v; });

    auto* sharing = new QComboBox;
    sharing->addItem(QString(), -1); // absent: the scenario's topology.link_sharing
    for (LinkSharing v : {LinkSharing::Shared, LinkSharing::Private})
        sharing->addItem(QString::fromLatin1(toString(v)), static_cast<int>(v));
    addField("link_sharing", tr("Link &sharing"), sharing, OnGroup).load = [this, sharing] {
        sharing->setItemText(0, tr("scenario default (%1)")
                                    .arg(QString::fromLatin1(toString(doc_->scenario().topology.linkSharing))));
        const NodeSpec* g = firstGroup();
        sharing->setCurrentIndex(g && g->linkSharing ? sharing->findData(static_cast<int>(*g->linkSharing)) : 0);
    };
    connect(sharing, qOverload<int>(&QComboBox::activated), this, [this, sharing] {
        const int v = sharing->currentData().toInt();
        const std::optional<LinkSharing> s =
            v < 0 ? std::nullopt : std::optional<LinkSharing>(static_cast<LinkSharing>(v));
        commitMembers(
            "link_sharing", tr("Set link sharing"), [s](NodeSpec& g) { g.linkSharing = s; }, OnGroup);
    });

    auto* ownLink = new QCheckBox(tr("own link to the parent"));
    ownLink->setToolTip(tr("Unchecked: the scenario's default link (or none: instantaneous)"));
    Field& linkField = addField("link", tr("&Link"), ownLink, OnMember);
    linkField.msgKey.clear(); // its values' problems show at their own fields
    linkField.load = [this, ownLink] {
        if (const NodeSpec* n = firstNode()) ownLink->setChecked(n->link.has_value());
    };
    connect(ownLink, &QCheckBox::clicked, this, [this](bool on) {
        const LinkParams defaults = doc_->scenario().topology.hasDefaultLink
                                        ? doc_->scenario().topology.defaultLink
                                        : LinkParams{};
        auto set = [on, defaults](std::optional<LinkParams>& l) {
            if (!on)
                l.reset();
            else if (!l)
                l = defaults;
        };
        commitMembers("link", on ? tr("Give own link") : tr("Use default link"),
                      [set](NodeSpec& n) { set(n.link); });
    });
    auto linkParam = [this](const QString& key, const QString& label,
                                     double LinkParams::*member) {
        numberEdit(
            "link." + key, "  " + label, OnMember,
            [member](const NodeSpec& n) { return n.link ? (*n.link).*member : 0.0; },
            [member](NodeSpec& n, double v) {
                if (!n.link) n.link = LinkParams{};
                (*n.link).*member = v;
            });
    };
    linkParam("bandwidth_up_mbps", tr("Bandwidth up (Mbit/s)"), &LinkParams::bandwidthUpMbps);
    linkParam("bandwidth_down_mbps", tr("Bandwidth down (Mbit/s)"), &LinkParams::bandwidthDownMbps);
    linkParam("latency_ms", tr("Latency (ms)"), &LinkParams::latencyMs);
    linkParam("price_per_gb", tr("Traffic price ($/GB)"), &LinkParams::pricePerGb);

    buildAggregateFields();

    // When a key applies (noise shift only with shifted-exponential, the Markov means only
    // with kind markov, link keys only with a link of its own) and what it means: the
    // schema's, not a copy of the loader's rule.
    for (Field& f : fields_) {
        const NodeField* nf = findNodeField(f.key.toStdString());
        if (!nf) continue;
        if (nf->when || nf->parent() == "link")
            f.visible = [this, nf] {
                const NodeSpec* n = firstNode();
                return n && fieldApplies(*nf, *n);
            };
        QString help = QString::fromStdString(nf->help);
        if (nf->isBounded()) {
            const NumericBounds b = fieldBounds(*nf);
            if (std::isfinite(b.min)) help += tr(" (%1 %2)").arg(b.minInclusive ? ">=" : ">").arg(b.min);
        }
        f.help = help;
        if (f.editor) f.editor->setToolTip(help);
        if (f.label && f.label->toolTip().isEmpty()) f.label->setToolTip(help);
    }
}

void PropertyInspector::buildLinkFields() {
    auto end = [this](const QString& key, const QString& label) {
        auto* c = new QComboBox;
        c->setEditable(true);
        c->setInsertPolicy(QComboBox::NoInsert);
        addField(key, label, c, OnLink).load = [this, c, key] {
            c->clear();
            for (const auto& n : doc_->scenario().topology.nodes)
                c->addItem(qs(n.id));
            const auto& links = doc_->scenario().topology.links;
            if (link_ >= 0 && link_ < static_cast<int>(links.size())) {
                const LinkSpec& l = links[static_cast<std::size_t>(link_)];
                c->setEditText(qs(key == "from" ? l.from : l.to));
            }
        };
        auto commit = [this, c, key] {
            if (loading_) return;
            const std::string v = c->currentText().trimmed().toStdString();
            const auto& links = doc_->scenario().topology.links;
            if (link_ < 0 || link_ >= static_cast<int>(links.size())) return;
            const LinkSpec& l = links[static_cast<std::size_t>(link_)];
            if ((key == "from" ? l.from : l.to) == v) return;
            commitLink(key, [&](LinkSpec& s) { (key == "from" ? s.from : s.to) = v; });
        };
        connect(c, qOverload<int>(&QComboBox::activated), this, commit);
        connect(c->lineEdit(), &QLineEdit::editingFinished, this, commit);
    };
    end("from", tr("&From"));
    end("to", tr("T&o"));
    linkNumber(
        "bandwidth_up_mbps", tr("Bandwidth up (Mbit/s)"),
        [](const LinkParams& l) { return l.bandwidthUpMbps; },
        [](LinkParams& l, double v) { l.bandwidthUpMbps = v; });
    linkNumber(
        "bandwidth_down_mbps", tr("Bandwidth down (Mbit/s)"),
        [](const LinkParams& l) { return l.bandwidthDownMbps; },
        [](LinkParams& l, double v) { l.bandwidthDownMbps = v; });
    linkNumber(
        "latency_ms", tr("Latency (ms)"), [](const LinkParams& l) { return l.latencyMs; },
        [](LinkParams& l, double v) { l.latencyMs = v; });
    linkNumber(
        "price_per_gb", tr("Traffic price ($/GB)"),
        [](const LinkParams& l) { return l.pricePerGb; },
        [](LinkParams& l, double v) { l.pricePerGb = v; });
}

// --- committing ------------------------------------------------------------------------------

const std::vector<EntityRef>& PropertyInspector::refs() const {
    return refs_;
}

void PropertyInspector::updateRefs() {
    // One look-up per id per reload: every field's loader asks for the selection.
    refs_.clear();
    for (const QString& id : std::as_const(ids_))
        if (const EntityRef e = doc_->find(id); e.valid()) refs_.push_back(e);
}

QString PropertyInspector::prefixOf(const EntityRef& e) const {
    return doc_->keyPath(e);
}

QStringList PropertyInspector::newProblems(const Scenario& candidate, const QString& key) const {
    std::vector<QString> prefixes;
    if (link_ >= 0 && ids_.isEmpty())
        prefixes.push_back(QStringLiteral("topology.links[%1].%2").arg(link_).arg(key));
    for (const EntityRef& e : refs())
        prefixes.push_back(prefixOf(e) + "." + key);
    const std::vector<Diagnostic> before = doc_->diagnostics();
    QStringList out;
    for (const Diagnostic& d : validateScenario(candidate)) {
        const QString path = qs(d.path);
        if (std::none_of(prefixes.begin(), prefixes.end(),
                         [&](const QString& p) { return within(path, p); }))
            continue;
        const bool old = std::any_of(before.begin(), before.end(), [&](const Diagnostic& b) {
            return b.path == d.path && b.message == d.message;
        });
        if (!old) out << qs(d.message);
    }
    return out;
}

int PropertyInspector::mergeIdFor(const QString& key) {
    // Edits of one field in a row, with nothing else pushed in between, are one undo step.
    if (key == lastKey_ && doc_->undoStack()->index() == lastIndex_) return lastMerge_;
    lastKey_ = key;
    lastMerge_ = doc_->newMergeId();
    return lastMerge_;
}

void PropertyInspector::commitMembers(const QString& key, const QString& text,
                                      const std::function<void(NodeSpec&)>& change,
                                      unsigned kinds) {
    Field* f = field(key);
    Scenario candidate = doc_->scenario();
    // Fields of groups only (count, the upper ends of ranges) leave the selected nodes alone.
    auto applies = [kinds](const NodeSpec& n) {
        return (kinds & (n.group ? OnGroup : OnNode)) != 0;
    };
    auto onEntry = [&](NodeSpec& n) {
        if (applies(n)) change(n);
    };
    for (const EntityRef& e : refs())
        onEntry(candidate.topology.nodes[static_cast<std::size_t>(e.index)]);
    const QString checkKey = f && !f->msgKey.isEmpty() ? f->msgKey : key.section('.', 0, -2);
    const QStringList problems = newProblems(candidate, checkKey.isEmpty() ? key : checkKey);
    if (f) f->rejected = problems.join('\n');
    if (!problems.isEmpty()) {
        showMessages(); // shown, not applied
        return;
    }
    const int merge = mergeIdFor(key);
    doc_->changeEntities(ids_, onEntry, text, merge);
    lastIndex_ = doc_->undoStack()->index();
}

void PropertyInspector::commitRename(const QString& newId) {
    if (ids_.size() != 1 || newId == ids_.front()) return;
    const EntityRef e = doc_->find(ids_.front());
    if (!e.valid()) return;
    Scenario candidate = doc_->scenario();
    auto& t = candidate.topology;
    t.nodes[static_cast<std::size_t>(e.index)].id = newId.toStdString();
    QStringList problems = newProblems(candidate, "id");
    // A group's own id may clash with a node id without the loader minding; the editor looks
    // entities up by id, so it refuses that too.
    const EntityRef clash = doc_->find(newId);
    if (problems.isEmpty() && clash.valid() && !(clash == e))
        problems << tr("duplicate id '%1', already used by %2").arg(newId, doc_->keyPath(clash));
    field("id")->rejected = problems.join('\n');
    if (!problems.isEmpty()) {
        showMessages();
        return;
    }
    NodeSpec n = doc_->scenario().topology.nodes[static_cast<std::size_t>(e.index)];
    n.id = newId.toStdString();
    doc_->setNode(ids_.front(), n);
}

void PropertyInspector::commitLink(const QString& key,
                                   const std::function<void(LinkSpec&)>& change) {
    auto& links = doc_->scenario().topology.links;
    if (link_ < 0 || link_ >= static_cast<int>(links.size())) return;
    Scenario candidate = doc_->scenario();
    LinkSpec l = links[static_cast<std::size_t>(link_)];
    change(l);
    candidate.topology.links[static_cast<std::size_t>(link_)] = l;
    const QStringList problems = newProblems(candidate, key);
    Field* f = field(key);
    if (f) f->rejected = problems.join('\n');
    if (!problems.isEmpty()) {
        showMessages();
        return;
    }
    doc_->setLink(link_, l, mergeIdFor("link:" + key));
    lastIndex_ = doc_->undoStack()->index();
}

// --- showing ---------------------------------------------------------------------------------

const NodeSpec* PropertyInspector::firstNode() const {
    // A node's values before a group's (a node has no ranges, so its values show exactly).
    const auto& t = doc_->scenario().topology;
    for (const EntityRef& e : refs())
        if (!t.nodes[static_cast<std::size_t>(e.index)].group)
            return &t.nodes[static_cast<std::size_t>(e.index)];
    return firstGroup();
}

const NodeSpec* PropertyInspector::firstGroup() const {
    const auto& t = doc_->scenario().topology;
    for (const EntityRef& e : refs())
        if (t.nodes[static_cast<std::size_t>(e.index)].group)
            return &t.nodes[static_cast<std::size_t>(e.index)];
    return nullptr;
}

bool PropertyInspector::selectionHasGroup() const {
    return firstGroup() != nullptr;
}

PropertyInspector::Field* PropertyInspector::field(const QString& key) {
    for (Field& f : fields_)
        if (f.key == key) return &f;
    return nullptr;
}

const PropertyInspector::Field* PropertyInspector::field(const QString& key) const {
    for (const Field& f : fields_)
        if (f.key == key) return &f;
    return nullptr;
}

void PropertyInspector::reload() {
    updateRefs();
    const std::vector<EntityRef>& sel = refs();
    unsigned kind = 0;
    if (!sel.empty()) {
        const auto& t = doc_->scenario().topology;
        auto isGroup = [&t](const EntityRef& e) {
            return t.nodes[static_cast<std::size_t>(e.index)].group;
        };
        for (const EntityRef& e : sel)
            kind |= isGroup(e) ? OnGroup : OnNode;
        const int n = static_cast<int>(sel.size());
        title_->setText(
            n == 1 ? (isGroup(sel.front()) ? tr("Group %1") : tr("Node %1")).arg(ids_.front())
                   : tr("%n items selected (edits apply to all)", "", n));
    } else if (link_ >= 0) {
        kind = OnLink;
        const LinkSpec& l = doc_->scenario().topology.links[static_cast<std::size_t>(link_)];
        title_->setText(tr("Link %1 – %2").arg(qs(l.from), qs(l.to)));
    } else {
        title_->setText(tr("Select a node, group or link to edit it"));
    }
    loading_ = true;
    for (Field& f : fields_) {
        f.rejected.clear();
        const bool groupOnly = f.kinds == OnGroup;
        bool show = (f.kinds & kind) != 0 && (!groupOnly || (kind & OnGroup));
        if (show && f.visible) show = f.visible();
        f.label->setVisible(show);
        f.box->setVisible(show);
        if (show && f.load) {
            const QSignalBlocker block(f.editor);
            f.load();
        }
    }
    loading_ = false;
    showMessages();
}

void PropertyInspector::showMessages() {
    std::vector<std::pair<QString, QString>> prefixes; // (key path prefix, id for the text)
    for (const EntityRef& e : refs())
        prefixes.emplace_back(prefixOf(e), doc_->idOf(e));
    if (ids_.isEmpty() && link_ >= 0)
        prefixes.emplace_back(QStringLiteral("topology.links[%1]").arg(link_), QString());
    const bool many = prefixes.size() > 1;
    std::vector<Diagnostic> diags = doc_->diagnostics();
    std::vector<bool> used(diags.size(), false);
    for (Field& f : fields_) {
        QStringList lines;
        if (!f.rejected.isEmpty()) {
            // Shown as rejected: the refused text stays to be corrected, marked, and the
            // message says what the scenario (and so a run) keeps using.
            QString kept;
            if (auto* le = qobject_cast<QLineEdit*>(f.editor); le && f.load) {
                const QString shown = le->text();
                const bool wasLoading = loading_;
                loading_ = true;
                {
                    const QSignalBlocker block(le);
                    f.load();
                    kept = le->text();
                    le->setText(shown);
                }
                loading_ = wasLoading;
                if (kept == shown) kept.clear();
            }
            lines << (kept.isEmpty() ? tr("%1 (not applied)").arg(f.rejected)
                                     : tr("%1 (not applied: the scenario keeps %2)").arg(f.rejected, kept));
        }
        f.editor->setProperty("fogRejected", !f.rejected.isEmpty());
        f.editor->setStyleSheet(f.rejected.isEmpty()
                                    ? QString()
                                    : QStringLiteral("border: 2px solid #d0312d; background: rgba(208, 49, 45, 45);"));
        if (!f.msgKey.isEmpty())
            for (std::size_t i = 0; i < diags.size(); ++i)
                for (const auto& [prefix, id] : prefixes)
                    if (within(qs(diags[i].path), prefix + "." + f.msgKey)) {
                        lines << (many ? id + ": " : QString()) + qs(diags[i].message);
                        used[i] = true;
                    }
        f.message->setText(lines.join('\n'));
        f.message->setVisible(!lines.isEmpty() && !f.box->isHidden());
        f.editor->setToolTip(lines.isEmpty() ? f.help : lines.join('\n'));
    }
    QStringList rest;
    for (std::size_t i = 0; i < diags.size(); ++i) {
        if (used[i]) continue;
        for (const auto& [prefix, id] : prefixes)
            if (within(qs(diags[i].path), prefix)) {
                rest << qs(diags[i].path) + " " + qs(diags[i].message);
                break;
            }
    }
    general_->setText(rest.join('\n'));
    general_->setVisible(!rest.isEmpty());
}

QWidget* PropertyInspector::editor(const QString& key) const {
    const Field* f = field(key);
    return f ? f->editor : nullptr;
}

QString PropertyInspector::message(const QString& key) const {
    const Field* f = field(key);
    return f && f->message->isVisibleTo(const_cast<PropertyInspector*>(this)) ? f->message->text()
                                                                              : QString();
}

bool PropertyInspector::isFieldVisible(const QString& key) const {
    const Field* f = field(key);
    return f && !f->box->isHidden();
}

QString PropertyInspector::generalMessage() const {
    return general_->text();
}

} // namespace fog
