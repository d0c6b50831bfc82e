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

/// The undo step's text of a change of the key: "Set step-time noise", "Set billing".
QString undoText(const FieldInfo& f) {
    QString label = QString::fromStdString(f.editorLabel()).remove('&');
    if (const int unit = label.lastIndexOf(QLatin1String(" (")); unit > 0) label.truncate(unit);
    if (!label.isEmpty()) label[0] = label[0].toLower();
    return PropertyInspector::tr("Set %1").arg(label);
}

/// What an empty field of a key with a "not given" value means ("unlimited").
QString unsetText(const FieldInfo& f) {
    QString note = QString::fromStdString(f.defaultNote);
    if (note.startsWith(QLatin1String("absent: "))) note = note.mid(8);
    return note;
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

// --- fields from the node table ------------------------------------------------------------
// One row per key of nodeSchema(), in its order: the table gives the label, the editor's kind
// (number, range, choice, text, switch), when it shows and its help. A few keys have editors of
// their own (buildCustomField): renaming, a group's count, the parent's candidates, a trace's
// intervals, a node's own link and the aggregation policies; `position` is the canvas's.

QString PropertyInspector::labelOf(const FieldInfo& f) {
    // Keys that apply only under a condition, or inside an optional map, sit below the key
    // they depend on.
    bool under = f.when.has_value();
    std::string p = f.path;
    while (!under && p.find('.') != std::string::npos) {
        p = p.substr(0, p.rfind('.'));
        const NodeField* section = findNodeField(p);
        under = section && section->optional;
    }
    return (under ? QStringLiteral("  ") : QString()) + qs(f.editorLabel());
}

void PropertyInspector::buildMemberFields() {
    for (const NodeField& nf : nodeSchema()) {
        if (buildCustomField(nf)) continue;
        const QString key = qs(nf.path);
        const unsigned kinds = nf.groupsOnly ? OnGroup : OnMember;
        switch (nf.type) {
        case FieldType::Real:
        case FieldType::Integer:
            numberEdit(
                key, labelOf(nf), kinds, [&nf](const NodeSpec& n) { return std::get<double>(nf.get(n)); },
                [&nf](NodeSpec& n, double v) { nf.set(n, FieldValue(v)); });
            break;
        case FieldType::Range:
            rangeEdits(nf);
            break;
        case FieldType::Enum:
            choiceBox(nf, kinds);
            break;
        case FieldType::Text:
            if (nf.enumValues.empty())
                textEdit(nf, kinds);
            else
                choiceBox(nf, kinds);
            break;
        case FieldType::Bool:
            switchBox(nf, kinds);
            break;
        case FieldType::Section: // a heading in the file only; optional ones are custom
        case FieldType::Seed:
        case FieldType::IntList:
            break;
        }
    }

    // When a key applies (noise shift only with shifted-exponential, the Markov means only
    // with kind markov, link keys only with a link of its own) and what it means: the
    // schema's, not a copy of the loader's rule.
    for (Field& f : fields_) {
        const NodeField* nf = findNodeField(f.key.toStdString());
        if (!nf) continue;
        if (!f.visible)
            f.visible = [this, nf] {
                const NodeSpec* n = firstNode();
                return n && fieldApplies(*nf, *n);
            };
        QString help = qs(nf->help);
        if (nf->isBounded()) {
            const NumericBounds b = fieldBounds(*nf);
            if (std::isfinite(b.min)) help += tr(" (%1 %2)").arg(b.minInclusive ? ">=" : ">").arg(b.min);
        }
        f.help = help;
        if (f.editor) f.editor->setToolTip(help);
        if (f.label && f.label->toolTip().isEmpty()) f.label->setToolTip(help);
    }
}

void PropertyInspector::rangeEdits(const NodeField& nf) {
    // A node has one value, a group a range {min, max} drawn per member: the key edits the
    // lower end (both while the range is exact), key.max the upper end of a group's.
    const QString key = qs(nf.path);
    numberEdit(
        key, labelOf(nf), OnMember, [&nf](const NodeSpec& n) { return std::get<Range>(nf.get(n)).min; },
        [&nf](NodeSpec& n, double v) {
            Range r = std::get<Range>(nf.get(n));
            setLower(n, r, v);
            nf.set(n, FieldValue(r));
        });
    field(key)->label->setToolTip(tr("For a group: the minimum of the range"));
    const QString label = qs(nf.editorLabel());
    const int unit = label.lastIndexOf(QLatin1String(" ("));
    numberEdit(
        key + ".max", tr("  … up to") + (unit >= 0 ? label.mid(unit) : QString()), OnGroup,
        [&nf](const NodeSpec& g) { return std::get<Range>(nf.get(g)).max; },
        [&nf](NodeSpec& g, double v) {
            Range r = std::get<Range>(nf.get(g));
            r.max = v;
            nf.set(g, FieldValue(r));
        });
    field(key + ".max")->msgKey.clear();
}

void PropertyInspector::choiceBox(const NodeField& nf, unsigned kinds) {
    // The spellings of the table; a key whose default is none of them (absent: the
    // scenario's value, or none) offers that first, named after what it stands for.
    const QString key = qs(nf.path);
    auto* c = new QComboBox;
    const std::string byDefault = std::get<std::string>(nf.get(NodeSpec{}));
    const bool absent = std::find(nf.enumValues.begin(), nf.enumValues.end(), byDefault) == nf.enumValues.end();
    if (absent) c->addItem(QString(), qs(byDefault));
    for (const auto& v : nf.enumValues)
        c->addItem(qs(v), qs(v));
    addField(key, labelOf(nf), c, kinds).load = [this, c, &nf, absent, kinds] {
        if (absent) c->setItemText(0, absentText(nf));
        const NodeSpec* n = kinds == OnGroup ? firstGroup() : firstNode();
        if (!n) return;
        const int i = c->findData(qs(std::get<std::string>(nf.get(*n))));
        c->setCurrentIndex(std::max(i, 0));
    };
    connect(c, qOverload<int>(&QComboBox::activated), this, [this, c, &nf, key, kinds] {
        const std::string v = c->currentData().toString().toStdString();
        commitMembers(
            key, undoText(nf), [&nf, v](NodeSpec& n) { nf.set(n, FieldValue(v)); }, kinds);
    });
}

QString PropertyInspector::absentText(const FieldInfo& f) const {
    QString note = unsetText(f);
    // "absent: topology.link_sharing": the scenario's value it falls back to, named.
    if (const ScenarioField* s = findScenarioField(note.toStdString()); s && s->get)
        return tr("scenario default (%1)").arg(qs(formatFieldValue(s->get(doc_->scenario()))));
    return note;
}

void PropertyInspector::textEdit(const NodeField& nf, unsigned kinds) {
    const QString key = qs(nf.path);
    auto* edit = new QLineEdit;
    addField(key, labelOf(nf), edit, kinds).load = [this, edit, &nf, kinds] {
        if (const NodeSpec* n = kinds == OnGroup ? firstGroup() : firstNode())
            edit->setText(qs(std::get<std::string>(nf.get(*n))));
    };
    connect(edit, &QLineEdit::editingFinished, this, [this, edit, &nf, key, kinds] {
        if (loading_ || !edit->isModified()) return;
        edit->setModified(false);
        const std::string v = edit->text().trimmed().toStdString();
        commitMembers(
            key, undoText(nf), [&nf, v](NodeSpec& n) { nf.set(n, FieldValue(v)); }, kinds);
    });
}

void PropertyInspector::switchBox(const NodeField& nf, unsigned kinds) {
    const QString key = qs(nf.path);
    auto* box = new QCheckBox;
    addField(key, labelOf(nf), box, kinds).load = [this, box, &nf, kinds] {
        if (const NodeSpec* n = kinds == OnGroup ? firstGroup() : firstNode()) box->setChecked(std::get<bool>(nf.get(*n)));
    };
    connect(box, &QCheckBox::clicked, this, [this, &nf, key, kinds](bool on) {
        commitMembers(
            key, undoText(nf), [&nf, on](NodeSpec& n) { nf.set(n, FieldValue(on)); }, kinds);
    });
}

bool PropertyInspector::buildCustomField(const NodeField& nf) {
    const std::string& p = nf.path;
    const QString label = labelOf(nf);
    if (p == "position") return true; // dragged on the canvas
    if (p == "id") {
        auto* id = new QLineEdit;
        addField("id", label, id, OnMember).load = [this, id] {
            id->setText(ids_.size() == 1 ? ids_.front() : tr("(%n items)", "", int(ids_.size())));
            id->setEnabled(ids_.size() == 1);
        };
        connect(id, &QLineEdit::editingFinished, this, [this, id] {
            if (!loading_ && id->isModified() && ids_.size() == 1) {
                id->setModified(false);
                commitRename(id->text().trimmed());
            }
        });
        return true;
    }
    if (p == "count") {
        auto* count = new QSpinBox;
        count->setRange(-1, 100000000); // the loader's range check speaks for out-of-range values
        count->setSuffix(tr(" devices"));
        count->setKeyboardTracking(false);
        addField("count", label, count, OnGroup).load = [this, count, &nf] {
            if (const NodeSpec* g = firstGroup()) count->setValue(static_cast<int>(std::get<double>(nf.get(*g))));
        };
        connect(count, qOverload<int>(&QSpinBox::valueChanged), this, [this, &nf](int v) {
            if (!loading_)
                commitMembers(
                    "count", tr("Set count"), [v, &nf](NodeSpec& g) { nf.set(g, FieldValue(double(v))); }, OnGroup);
        });
        return true;
    }
    if (p == "parent") {
        buildParentField(nf, label);
        return true;
    }
    if (p == "availability.offline") {
        buildOfflineField(label);
        return true;
    }
    if (p == "link") {
        buildOwnLinkField(nf, label);
        return true;
    }
    if (p == "aggregate" || p == "aggregate.sync" || p == "aggregate.selection") {
        buildAggregateField(nf, label); // property_inspector_aggregate.cpp
        return true;
    }
    return false;
}

void PropertyInspector::buildParentField(const NodeField& nf, const QString& label) {
    auto* parent = new QComboBox;
    parent->setEditable(true);
    parent->setInsertPolicy(QComboBox::NoInsert);
    auto parentOf = [&nf](const NodeSpec& n) { return qs(std::get<std::string>(nf.get(n))); };
    addField("parent", label, parent, OnMember).load = [this, parent, parentOf] {
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
        if (const NodeSpec* n = firstNode()) p = parentOf(*n);
        parent->setEditText(p);
    };
    auto commitParent = [this, parent, parentOf, &nf] {
        if (loading_) return;
        const std::string p = parent->currentText().trimmed().toStdString();
        QString current;
        if (const NodeSpec* n = firstNode()) current = parentOf(*n);
        if (qs(p) == current && ids_.size() == 1) return;
        commitMembers("parent", tr("Set parent"), [p, &nf](NodeSpec& n) { nf.set(n, FieldValue(p)); });
    };
    connect(parent, qOverload<int>(&QComboBox::activated), this, commitParent);
    connect(parent->lineEdit(), &QLineEdit::editingFinished, this, commitParent);
}

void PropertyInspector::buildOfflineField(const QString& label) {
    auto* trace = new QLineEdit;
    trace->setPlaceholderText(tr("[from_s, to_s], ...  e.g. [0, 60], [300, 420]"));
    Field& traceField = addField("availability.offline", label, trace, OnMember);
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
}

void PropertyInspector::buildOwnLinkField(const NodeField& nf, const QString& label) {
    auto* ownLink = new QCheckBox(tr("own link to the parent"));
    ownLink->setToolTip(tr("Unchecked: the scenario's default link (or none: instantaneous)"));
    Field& linkField = addField("link", label, ownLink, OnMember);
    linkField.msgKey.clear(); // its values' problems show at their own fields
    linkField.load = [this, ownLink, &nf] {
        if (const NodeSpec* n = firstNode()) ownLink->setChecked(nf.present(*n));
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
    // Checked or not, the link shows whatever the node is: never hidden by the table.
    linkField.visible = [] { return true; };
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
    for (const LinkField& lf : linkSchema())
        linkNumber(
            qs(lf.path), qs(lf.editorLabel()), [&lf](const LinkParams& l) { return std::get<double>(lf.get(l)); },
            [&lf](LinkParams& l, double v) { lf.set(l, FieldValue(v)); });
    // The help and the bounds of the link table, as for a node's own link.
    for (Field& f : fields_) {
        if (f.kinds != OnLink) continue;
        for (const LinkField& lf : linkSchema())
            if (qs(lf.path) == f.key) {
                QString help = qs(lf.help);
                const NumericBounds b = fieldBounds(lf);
                if (std::isfinite(b.min)) help += tr(" (%1 %2)").arg(b.minInclusive ? ">=" : ">").arg(b.min);
                f.help = help;
                f.editor->setToolTip(help);
            }
    }
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

QStringList PropertyInspector::memberKeys() const {
    QStringList keys;
    for (const Field& f : fields_)
        if (f.kinds != OnLink) keys << f.key;
    return keys;
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
