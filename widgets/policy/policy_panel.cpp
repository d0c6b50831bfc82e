#include "widgets/policy/policy_panel.h"

#include "widgets/document/scenario_document.h"
#include "core/policies/local_optimizers.h"
#include "core/policies/server_optimizer.h"
#include "core/policies/update_codec.h"
#include "core/scenario/schema.h"
#include "widgets/policy/edit_ids.h"
#include "widgets/policy/wide_spin_box.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace fog {

namespace {

const PolicyInfo* findPolicy(const std::vector<PolicyInfo>& catalogue, const std::string& name) {
    auto it = std::find_if(catalogue.begin(), catalogue.end(), [&](const PolicyInfo& i) { return i.name == name; });
    return it == catalogue.end() ? nullptr : &*it;
}

/// Decimals enough to show the default and typical values without rounding them away.
int decimalsFor(const PolicyParamInfo& p) {
    const double v = std::abs(p.defaultValue);
    if (v != 0 && v < 0.01) return 6;
    return 4;
}

/// The explanation of a catalogue entry: summary (with its formula), parameters, source.
QString explanationHtml(const PolicyInfo& info) {
    QString html = "<p>" + QString::fromStdString(info.summary).toHtmlEscaped() + "</p>";
    if (!info.params.empty()) {
        html += "<p>";
        for (const auto& p : info.params)
            html += "<b>" + QString::fromStdString(p.key).toHtmlEscaped() + "</b>: " +
                    QString::fromStdString(p.help).toHtmlEscaped() + "<br>";
        html += "</p>";
    }
    if (!info.source.empty())
        html += "<p><i>" + QObject::tr("Source: ") + QString::fromStdString(info.source).toHtmlEscaped() + "</i></p>";
    return html;
}

/// The catalogue of a LearningChooser row (the downlink has no top-k).
std::vector<PolicyInfo> learningCatalogue(std::size_t row) {
    switch (row) {
    case 0:
        return localOptimizerInfos();
    case 1:
        return serverOptimizerInfos();
    case 2: // the devices' uplink
    case 4: // between aggregators, up the tree
        return codecInfos();
    default: { // the downlinks: to the devices (3) and between aggregators (5)
        std::vector<PolicyInfo> down;
        for (const auto& info : codecInfos())
            if (info.name != "topk") down.push_back(info);
        return down;
    }
    }
}

std::string& learningValue(TrainingSpec& t, std::size_t row) {
    switch (row) {
    case 0:
        return t.optimizer;
    case 1:
        return t.serverOptimizer;
    case 2:
        return t.codecUp;
    case 3:
        return t.codecDown;
    case 4:
        return t.aggregatorCodecUp;
    default:
        return t.aggregatorCodecDown;
    }
}

} // namespace

PolicyChooser::PolicyChooser(const QString& title, const std::vector<PolicyInfo>& catalogue, QWidget* parent)
    : QWidget(parent), catalogue_(catalogue) {
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    box_ = new QGroupBox(title, this);
    outer->addWidget(box_);
    auto* layout = new QVBoxLayout(box_);
    name_ = new QComboBox(box_);
    for (const auto& info : catalogue_) {
        name_->addItem(QString::fromStdString(info.name));
        name_->setItemData(name_->count() - 1, QString::fromStdString(info.summary), Qt::ToolTipRole);
    }
    name_->setAccessibleName(title + tr(" policy"));
    layout->addWidget(name_);
    params_ = new QFormLayout;
    params_->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    layout->addLayout(params_);
    explanation_ = new QLabel(box_);
    explanation_->setWordWrap(true);
    explanation_->setTextFormat(Qt::RichText);
    explanation_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    explanation_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    layout->addWidget(explanation_);

    connect(name_, &QComboBox::currentIndexChanged, this, [this](int) {
        if (updating_) return;
        // A new policy starts from its documented defaults.
        PolicySpec fresh;
        fresh.name = name_->currentText().toStdString();
        const PolicyInfo* info = findPolicy(catalogue_, fresh.name);
        rebuildParams(info, fresh);
        showExplanation(info);
        Q_EMIT edited(true);
    });
}

void PolicyChooser::setSpec(const PolicySpec& spec) {
    updating_ = true;
    const int index = name_->findText(QString::fromStdString(spec.name));
    if (index < 0) {
        // Not in the catalogue (the loader refuses such files; keep it visible anyway).
        name_->addItem(QString::fromStdString(spec.name));
        name_->setCurrentIndex(name_->count() - 1);
    } else {
        name_->setCurrentIndex(index);
    }
    const PolicyInfo* info = findPolicy(catalogue_, spec.name);
    rebuildParams(info, spec);
    showExplanation(info);
    updating_ = false;
}

PolicySpec PolicyChooser::spec() const {
    PolicySpec s;
    s.name = name_->currentText().toStdString();
    for (const auto& [key, editor] : editors_) {
        if (auto* i = qobject_cast<QSpinBox*>(editor)) s.params[key] = i->value();
        else if (auto* d = qobject_cast<QDoubleSpinBox*>(editor)) s.params[key] = d->value();
    }
    return s;
}

QWidget* PolicyChooser::paramEditor(const QString& key) const {
    for (const auto& [k, editor] : editors_)
        if (k == key.toStdString()) return editor;
    return nullptr;
}

void PolicyChooser::rebuildParams(const PolicyInfo* info, const PolicySpec& values) {
    // Rebuilding only when the set of parameters changes keeps keyboard focus in the field
    // being typed into (the document echoes every edit back through setSpec).
    std::vector<std::string> wanted;
    if (info)
        for (const auto& p : info->params) wanted.push_back(p.key);
    std::vector<std::string> have;
    for (const auto& e : editors_) have.push_back(e.first);
    const bool sameShape = wanted == have;

    if (!sameShape) {
        while (params_->rowCount() > 0) params_->removeRow(0);
        editors_.clear();
    }
    if (!info) return;
    const bool wasUpdating = updating_;
    updating_ = true;
    for (std::size_t i = 0; i < info->params.size(); ++i) {
        const auto& p = info->params[i];
        const double value = values.get(p.key, p.defaultValue);
        const QString help = QString::fromStdString(p.help);
        if (sameShape) {
            QWidget* editor = editors_[i].second;
            if (auto* sb = qobject_cast<QSpinBox*>(editor)) {
                if (sb->value() != static_cast<int>(value)) sb->setValue(static_cast<int>(value));
            } else if (auto* db = qobject_cast<QDoubleSpinBox*>(editor)) {
                if (db->value() != value) db->setValue(value);
            }
            continue;
        }
        QWidget* editor = nullptr;
        // The loader's bounds (core/scenario/schema.h), not a copy of them.
        const NumericBounds bounds = policyParamBounds(p);
        if (p.integer) {
            auto* sb = new WideIntSpinBox(box_);
            const SpinRange r = spinRange(bounds, 0);
            sb->setRange(static_cast<int>(r.min), static_cast<int>(r.max));
            sb->setValue(static_cast<int>(value));
            connect(sb, &QSpinBox::valueChanged, this, [this] {
                if (!updating_) Q_EMIT edited(false);
            });
            editor = sb;
        } else {
            auto* db = new WideRangeSpinBox(box_);
            db->setDecimals(decimalsFor(p));
            const SpinRange r = spinRange(bounds, db->decimals());
            db->setRange(r.min, r.max);
            db->setSingleStep(p.max <= 1.0 ? 0.05 : 1.0);
            db->setValue(value);
            connect(db, &QDoubleSpinBox::valueChanged, this, [this] {
                if (!updating_) Q_EMIT edited(false);
            });
            editor = db;
        }
        editor->setToolTip(help);
        editor->setObjectName(QString::fromStdString(p.key));
        editor->setAccessibleName(QString::fromStdString(p.key));
        auto* label = new QLabel(QString::fromStdString(p.key) + ":", box_);
        label->setToolTip(help);
        params_->addRow(label, editor);
        editors_.emplace_back(p.key, editor);
    }
    updating_ = wasUpdating;
}

void PolicyChooser::showExplanation(const PolicyInfo* info) {
    if (!info) {
        explanation_->setText(tr("<i>Unknown policy.</i>"));
        return;
    }
    explanation_->setText(explanationHtml(*info));
}

const std::vector<std::string>& LearningChooser::keys() {
    static const std::vector<std::string> k{"training.optimizer",           "training.server_optimizer",
                                            "training.codec_up",            "training.codec_down",
                                            "training.aggregator_codec_up", "training.aggregator_codec_down"};
    return k;
}

LearningChooser::LearningChooser(QWidget* parent) : QWidget(parent) {
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    auto* box = new QGroupBox(tr("Learning algorithm"), this);
    outer->addWidget(box);
    auto* layout = new QVBoxLayout(box);
    const QString titles[] = {tr("Local optimiser"),         tr("Server optimiser"),
                              tr("Codec up"),                tr("Codec down"),
                              tr("Codec up, aggregators"),   tr("Codec down, aggregators")};
    for (std::size_t row = 0; row < keys().size(); ++row) {
        auto* line = new QFormLayout;
        auto* combo = new QComboBox(box);
        for (const auto& info : learningCatalogue(row)) {
            combo->addItem(QString::fromStdString(info.name));
            combo->setItemData(combo->count() - 1, QString::fromStdString(info.summary), Qt::ToolTipRole);
        }
        combo->setObjectName(QString::fromStdString(keys()[row]));
        combo->setAccessibleName(titles[row]);
        line->addRow(titles[row] + ":", combo);
        layout->addLayout(line);
        auto* label = new QLabel(box);
        label->setObjectName(QString::fromStdString(keys()[row]) + ".explanation");
        label->setWordWrap(true);
        label->setTextFormat(Qt::RichText);
        label->setTextInteractionFlags(Qt::TextSelectableByMouse);
        layout->addWidget(label);
        boxes_.push_back(combo);
        labels_.push_back(label);
        connect(combo, &QComboBox::currentIndexChanged, this, [this, row](int) {
            explain(row);
            if (!updating_) Q_EMIT chosen(keys()[row], boxes_[row]->currentText().toStdString());
        });
        explain(row);
    }
}

void LearningChooser::setTraining(const TrainingSpec& training) {
    updating_ = true;
    TrainingSpec t = training;
    for (std::size_t row = 0; row < boxes_.size(); ++row) {
        const QString name = QString::fromStdString(learningValue(t, row));
        int index = boxes_[row]->findText(name);
        if (index < 0) { // not in the catalogue (the validator says so); keep it visible
            boxes_[row]->addItem(name);
            index = boxes_[row]->count() - 1;
        }
        boxes_[row]->setCurrentIndex(index);
        explain(row);
    }
    updating_ = false;
}

QComboBox* LearningChooser::box(const std::string& key) const {
    for (std::size_t row = 0; row < keys().size(); ++row)
        if (keys()[row] == key) return boxes_[row];
    return nullptr;
}

QString LearningChooser::explanation(const std::string& key) const {
    for (std::size_t row = 0; row < keys().size(); ++row)
        if (keys()[row] == key) return labels_[row]->text();
    return {};
}

void LearningChooser::explain(std::size_t row) {
    const std::string name = boxes_[row]->currentText().toStdString();
    const auto catalogue = learningCatalogue(row);
    const PolicyInfo* info = findPolicy(catalogue, name);
    labels_[row]->setText(info ? explanationHtml(*info) : tr("<i>Unknown: %1.</i>").arg(QString::fromStdString(name).toHtmlEscaped()));
}

PolicyPanel::PolicyPanel(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    sync_ = new PolicyChooser(tr("Synchronisation"), syncPolicyInfos(), this);
    selection_ = new PolicyChooser(tr("Selection"), selectionPolicyInfos(), this);
    layout->addWidget(sync_);
    layout->addWidget(selection_);
    learning_ = new LearningChooser(this);
    layout->addWidget(learning_);
    layout->addStretch(1);
    connect(learning_, &LearningChooser::chosen, this, [this](const std::string& key, const std::string& name) {
        if (!document_) return;
        const auto& keys = LearningChooser::keys();
        const std::size_t row = static_cast<std::size_t>(std::find(keys.begin(), keys.end(), key) - keys.begin());
        document_->edit(tr("Set %1 to %2").arg(QString::fromStdString(key), QString::fromStdString(name)),
                        [row, name](Scenario& s) { learningValue(s.training, row) = name; });
    });
    connect(sync_, &PolicyChooser::edited, this, [this](bool nameChanged) { commit(true, nameChanged); });
    connect(selection_, &PolicyChooser::edited, this, [this](bool nameChanged) { commit(false, nameChanged); });
    setEnabled(false);
}

void PolicyPanel::setDocument(ScenarioDocument* document) {
    if (document_) disconnect(document_, nullptr, this, nullptr);
    document_ = document;
    setEnabled(document_ != nullptr);
    if (!document_) return;
    connect(document_, &ScenarioDocument::scenarioChanged, this, &PolicyPanel::refresh);
    refresh();
}

void PolicyPanel::refresh() {
    if (!document_) return;
    sync_->setSpec(document_->scenario().sync);
    selection_->setSpec(document_->scenario().selection);
    learning_->setTraining(document_->scenario().training);
}

void PolicyPanel::commit(bool sync, bool nameChanged) {
    if (!document_) return;
    const PolicySpec spec = (sync ? sync_ : selection_)->spec();
    const QString what = sync ? tr("sync policy") : tr("selection policy");
    const QString text = nameChanged ? tr("Set %1 to %2").arg(what, QString::fromStdString(spec.name))
                                     : tr("Change %1 parameters").arg(what);
    // Parameter typing merges into one undo step; a policy switch is a step of its own.
    const int mergeId = nameChanged ? -1 : (sync ? kEditSyncParams : kEditSelectionParams);
    document_->edit(
        text,
        [sync, spec](Scenario& s) {
            PolicySpec& target = sync ? s.sync : s.selection;
            const int line = target.line;
            target = spec;
            target.line = line;
        },
        mergeId);
}

} // namespace fog
