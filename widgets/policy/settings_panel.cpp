#include "widgets/policy/settings_panel.h"

#include "core/model/torchscript_model.h"
#include "core/scenario/scenario_io.h"
#include "widgets/document/scenario_document.h"
#include "widgets/policy/edit_ids.h"
#include "widgets/policy/wide_spin_box.h"

#include <QCheckBox>
#include <QComboBox>
#include <QEvent>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLocale>
#include <QLineEdit>
#include <QRegularExpression>
#include <QRegularExpressionValidator>
#include <QScrollArea>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>
#include <limits>

namespace fog {

namespace {

QString editText(const QString& keyPath) { return QObject::tr("Set %1").arg(keyPath); }

/// "3 layers, 159,010 parameters, 953 kFLOP per training sample" and the layers, or why not.
QString modelSummaryText(const Scenario& s) {
    if (s.model.kind == ModelSpec::Kind::None) return QObject::tr("no model (timing only)");
    const auto summary = scenarioModelSummary(s);
    if (!summary) return QObject::tr("known when the data are read (shape or classes not known before)");
    const QLocale locale;
    QString text = QObject::tr("%1 layers, %2 parameters, %3 kFLOP per training sample")
                       .arg(summary->layers.size())
                       .arg(locale.toString(static_cast<qlonglong>(summary->parameters)))
                       .arg(locale.toString(summary->trainingFlopsPerSample() / 1e3, 'f', 1));
    for (const auto& l : summary->layers) {
        QStringList dims;
        for (auto d : l.weightShape) dims << QString::number(d);
        text += "\n" + QString::fromStdString(l.name + "  " + l.kind) + "  " + dims.join(QChar(0x00d7));
    }
    return text;
}

} // namespace

SettingsPanel::SettingsPanel(QWidget* parent) : QWidget(parent) {
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    scroll_ = new QScrollArea(this);
    scroll_->setWidgetResizable(true);
    scroll_->setFrameShape(QFrame::NoFrame);
    outer->addWidget(scroll_);
    body_ = new QWidget(scroll_);
    scroll_->setWidget(body_);
    scroll_->viewport()->installEventFilter(this);
    auto* layout = new QVBoxLayout(body_);

    // Labels and presentation here; what each key is, its bounds and values: the schema.
    QFormLayout* general = section(tr("Scenario"));
    addKey(general, tr("Name"), "name");
    addKey(general, tr("Description"), "description");
    addKey(general, tr("Seed"), "seed");

    QFormLayout* data = section(tr("Data"));
    addKey(data, tr("Data set"), "data.dataset");
    addKey(data, tr("IDX folder"), "data.dir");
    addKey(data, tr("Train file"), "data.train");
    addKey(data, tr("Test file"), "data.test");
    addKey(data, tr("Train samples"), "data.max_train_samples", 0, tr(" (0 = all)"));
    addKey(data, tr("Test samples"), "data.max_test_samples", 0, tr(" (0 = all)"));
    addKey(data, tr("Samples per trainer"), "data.samples_per_trainer", 0, tr(" (timing only)"));
    addKey(data, tr("Client column"), "data.client_column", 0, tr(" (0 = none)"));
    addKey(data, tr("Partition"), "data.partition.kind");
    addKey(data, tr("Dirichlet alpha"), "data.partition.alpha", 3);
    addKey(data, tr("Shards per client"), "data.partition.per_client");
    addKey(data, tr("Quantity-skew sigma"), "data.partition.sigma", 3);
    addKey(data, tr("Synthetic alpha"), "data.synthetic.alpha", 3);
    addKey(data, tr("Synthetic beta"), "data.synthetic.beta", 3);
    addKey(data, tr("Synthetic IID"), "data.synthetic.iid");

    QFormLayout* model = section(tr("Model"));
    addKey(model, tr("Model"), "model.kind");
    addKey(model, tr("Hidden layers"), "model.hidden");
    addKey(model, tr("Dropout"), "model.dropout", 2);
    addKey(model, tr("TorchScript file"), "model.path");
    addKey(model, tr("Bytes on the wire"), "model.wire_bytes", 0, tr(" B (0 = 4 per parameter)"));
    addKey(model, tr("FLOPs per sample"), "model.flops_per_sample", 0, tr(" (0 = counted)"));
    modelSummary_ = new QLabel(model->parentWidget());
    modelSummary_->setObjectName("modelSummary");
    modelSummary_->setWordWrap(true);
    modelSummary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    model->addRow(tr("Summary:"), modelSummary_);

    QFormLayout* training = section(tr("Training"));
    addKey(training, tr("Learning rate"), "training.learning_rate", 5);
    addKey(training, tr("Schedule"), "training.schedule.kind");
    addKey(training, tr("Schedule gamma"), "training.schedule.gamma", 4);
    addKey(training, tr("Step every"), "training.schedule.every_rounds", 0, tr(" rounds"));
    addKey(training, tr("Momentum"), "training.momentum", 3);
    addKey(training, tr("Weight decay"), "training.weight_decay", 5);
    addKey(training, tr("Batch size"), "training.batch_size", 0, tr(" samples"));
    addKey(training, tr("Local steps"), "training.local_steps");
    addKey(training, tr("Local epochs"), "training.local_epochs", 0, tr(" (0 = use steps)"));
    addKey(training, tr("Backend"), "training.backend");

    QFormLayout* stop = section(tr("Stop and evaluation"));
    addKey(stop, tr("Rounds"), "stop.rounds", 0, tr(" (0 = no limit)"));
    addKey(stop, tr("Virtual time"), "stop.virtual_time_s", 1, tr(" s (0 = no limit)"));
    addKey(stop, tr("Target accuracy"), "stop.target_accuracy", 3, tr(" (0 = none)"));
    addKey(stop, tr("Budget"), "stop.budget", 2, tr(" $ (0 = none)"));
    addKey(stop, tr("Evaluate every"), "evaluation.every_rounds", 0, tr(" rounds"));

    QFormLayout* network = section(tr("Network"));
    addKey(network, tr("Links are shared"), "topology.contention");
    addKey(network, tr("Group link sharing"), "topology.link_sharing");

    layout->addStretch(1);
    setEnabled(false);
}

void SettingsPanel::arrangeSections() {
    const QMargins page = body_->layout()->contentsMargins();
    const int available = scroll_->viewport()->width() - page.left() - page.right();
    for (QGroupBox* box : body_->findChildren<QGroupBox*>()) {
        auto* form = qobject_cast<QFormLayout*>(box->layout());
        if (!form) continue;
        int label = 0, field = 0;
        for (int row = 0; row < form->rowCount(); ++row) {
            const QLayoutItem* l = form->itemAt(row, QFormLayout::LabelRole);
            const QLayoutItem* f = form->itemAt(row, QFormLayout::FieldRole);
            if (!l || !f || (l->widget() && l->widget()->isHidden())) continue;
            label = std::max(label, l->sizeHint().width());
            field = std::max(field, f->minimumSize().width());
        }
        const QMargins m = form->contentsMargins();
        const int frame = box->width() - box->contentsRect().width();
        const bool beside = m.left() + label + form->horizontalSpacing() + field + m.right() + frame <= available;
        const auto policy = beside ? QFormLayout::DontWrapRows : QFormLayout::WrapAllRows;
        if (form->rowWrapPolicy() != policy) form->setRowWrapPolicy(policy);
    }
}

void SettingsPanel::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::FontChange || event->type() == QEvent::StyleChange) arrangeSections();
}

bool SettingsPanel::eventFilter(QObject* watched, QEvent* event) {
    if (watched == scroll_->viewport() && event->type() == QEvent::Resize) arrangeSections();
    return QWidget::eventFilter(watched, event);
}

QFormLayout* SettingsPanel::section(const QString& title) {
    auto* box = new QGroupBox(title, body_);
    auto* form = new QFormLayout(box);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    static_cast<QVBoxLayout*>(body_->layout())->addWidget(box);
    return form;
}

void SettingsPanel::addField(QFormLayout* form, const QString& label, const QString& keyPath, QWidget* editor,
                             std::function<void()> load) {
    editor->setObjectName(keyPath);
    editor->setAccessibleName(label);
    editor->setToolTip(keyPath);
    auto* problem = new QLabel(form->parentWidget());
    problem->setWordWrap(true);
    problem->setVisible(false);
    QPalette pal = problem->palette();
    pal.setColor(QPalette::WindowText, QColor(0xd0, 0x30, 0x30));
    problem->setPalette(pal);
    auto* cell = new QWidget(form->parentWidget());
    auto* v = new QVBoxLayout(cell);
    v->setContentsMargins(0, 0, 0, 0);
    v->setSpacing(1);
    v->addWidget(editor);
    v->addWidget(problem);
    form->addRow(label + ":", cell);
    fields_.push_back({keyPath, editor, problem, std::move(load)});
}

void SettingsPanel::addKey(QFormLayout* form, const QString& label, const std::string& path, int decimals,
                           const QString& suffix) {
    const ScenarioField* f = findScenarioField(path);
    Q_ASSERT_X(f && f->get, "SettingsPanel::addKey", path.c_str()); // a key the schema lacks
    if (!f || !f->get) return;
    switch (f->type) {
    case FieldType::Real:
        addReal(form, label, *f, decimals, suffix);
        break;
    case FieldType::Integer:
        addInt(form, label, *f, suffix);
        break;
    case FieldType::Bool:
        addBool(form, label, *f);
        break;
    case FieldType::Text:
        addText(form, label, *f);
        break;
    case FieldType::Enum:
        addEnum(form, label, *f);
        break;
    case FieldType::IntList:
        addIntList(form, label, *f);
        break;
    case FieldType::Seed:
        addSeed(form, label, *f);
        break;
    case FieldType::Range: // node keys: the property inspector's
        return;
    case FieldType::Section:
        return;
    }
    fields_.back().schema = f;
    fields_.back().decimals = decimals;
    const QString help = QString::fromStdString(f->help);
    fields_.back().editor->setToolTip(QString::fromStdString(path) + (help.isEmpty() ? QString() : " - " + help));
}

void SettingsPanel::addInt(QFormLayout* form, const QString& label, const ScenarioField& f, const QString& suffix) {
    auto* sb = new WideIntSpinBox;
    const SpinRange r = spinRange(fieldBounds(f), 0);
    sb->setRange(static_cast<int>(r.min), static_cast<int>(r.max));
    sb->setSuffix(suffix);
    sb->setKeyboardTracking(false); // one edit per finished value, not per keystroke
    const QString keyPath = QString::fromStdString(f.path);
    connect(sb, &QSpinBox::valueChanged, this, [this, keyPath, &f](int v) {
        if (!updating_) apply(keyPath, [&f, v](Scenario& s) { f.set(s, FieldValue(double(v))); });
    });
    addField(form, label, keyPath, sb,
             [this, sb, &f] { sb->setValue(static_cast<int>(std::get<double>(f.get(current())))); });
}

void SettingsPanel::addReal(QFormLayout* form, const QString& label, const ScenarioField& f, int decimals,
                            const QString& suffix) {
    auto* sb = new WideRangeSpinBox;
    sb->setDecimals(decimals);
    const SpinRange r = spinRange(fieldBounds(f), decimals);
    sb->setRange(r.min, r.max);
    sb->setSuffix(suffix);
    sb->setKeyboardTracking(false);
    const QString keyPath = QString::fromStdString(f.path);
    connect(sb, &QDoubleSpinBox::valueChanged, this, [this, keyPath, &f](double v) {
        if (!updating_) apply(keyPath, [&f, v](Scenario& s) { f.set(s, FieldValue(v)); });
    });
    addField(form, label, keyPath, sb, [this, sb, &f] { sb->setValue(std::get<double>(f.get(current()))); });
}

void SettingsPanel::addText(QFormLayout* form, const QString& label, const ScenarioField& f) {
    auto* le = new QLineEdit;
    const QString keyPath = QString::fromStdString(f.path);
    connect(le, &QLineEdit::editingFinished, this, [this, le, keyPath, &f] {
        const std::string v = le->text().toStdString();
        if (!updating_ && std::get<std::string>(f.get(current())) != v)
            apply(keyPath, [&f, v](Scenario& s) { f.set(s, FieldValue(v)); });
    });
    addField(form, label, keyPath, le, [this, le, &f] {
        const QString v = QString::fromStdString(std::get<std::string>(f.get(current())));
        if (le->text() != v) le->setText(v);
    });
}

void SettingsPanel::addBool(QFormLayout* form, const QString& label, const ScenarioField& f) {
    auto* cb = new QCheckBox;
    const QString keyPath = QString::fromStdString(f.path);
    connect(cb, &QCheckBox::toggled, this, [this, keyPath, &f](bool v) {
        if (!updating_) apply(keyPath, [&f, v](Scenario& s) { f.set(s, FieldValue(v)); });
    });
    addField(form, label, keyPath, cb, [this, cb, &f] { cb->setChecked(std::get<bool>(f.get(current()))); });
}

void SettingsPanel::addEnum(QFormLayout* form, const QString& label, const ScenarioField& f) {
    auto* combo = new QComboBox;
    for (const auto& v : f.enumValues) combo->addItem(QString::fromStdString(v));
    const QString keyPath = QString::fromStdString(f.path);
    connect(combo, &QComboBox::currentIndexChanged, this, [this, combo, keyPath, &f](int) {
        const std::string v = combo->currentText().toStdString();
        if (!updating_) apply(keyPath, [&f, v](Scenario& s) { f.set(s, FieldValue(v)); });
    });
    addField(form, label, keyPath, combo, [this, combo, &f] {
        combo->setCurrentIndex(combo->findText(QString::fromStdString(std::get<std::string>(f.get(current())))));
    });
}

void SettingsPanel::addIntList(QFormLayout* form, const QString& label, const ScenarioField& f) {
    // Hidden layer widths as "200, 100": a list is easier typed than edited cell by cell.
    auto* le = new QLineEdit;
    le->setPlaceholderText(tr("e.g. 200, 100"));
    const QString keyPath = QString::fromStdString(f.path);
    connect(le, &QLineEdit::editingFinished, this, [this, le, keyPath, &f] {
        if (updating_) return;
        const NumericBounds b = fieldBounds(f);
        std::vector<int> widths;
        for (const QString& part : le->text().split(',', Qt::SkipEmptyParts)) {
            bool ok = false;
            const int w = part.trimmed().toInt(&ok);
            if (!ok || w < b.min || w > b.max) {
                for (auto& field : fields_)
                    if (field.keyPath == keyPath) {
                        field.problem->setText(tr("%1 must be whole numbers from %2 to %3 separated by "
                                                  "commas, got '%4'")
                                                   .arg(keyPath)
                                                   .arg(b.min)
                                                   .arg(b.max)
                                                   .arg(part.trimmed()));
                        field.problem->setVisible(true);
                    }
                return;
            }
            widths.push_back(w);
        }
        if (!sameFieldValue(FieldValue(widths), f.get(current())))
            apply(keyPath, [&f, widths](Scenario& s) { f.set(s, FieldValue(widths)); });
    });
    addField(form, label, keyPath, le, [this, le, &f] {
        QStringList parts;
        const FieldValue widths = f.get(current()); // kept: the loop reads into it
        for (int w : std::get<std::vector<int>>(widths)) parts << QString::number(w);
        const QString v = parts.join(", ");
        if (le->text() != v) le->setText(v);
    });
}

void SettingsPanel::addSeed(QFormLayout* form, const QString& label, const ScenarioField& f) {
    // Seeds are 64-bit: a spin box cannot hold them, a validated line edit can.
    auto* le = new QLineEdit;
    le->setValidator(new QRegularExpressionValidator(QRegularExpression("[0-9]{1,20}"), le));
    const QString keyPath = QString::fromStdString(f.path);
    connect(le, &QLineEdit::editingFinished, this, [this, le, keyPath, &f] {
        bool ok = false;
        const qulonglong v = le->text().toULongLong(&ok);
        const auto seed = static_cast<std::uint64_t>(v);
        if (!updating_ && ok && !sameFieldValue(FieldValue(seed), f.get(current())))
            apply(keyPath, [&f, seed](Scenario& s) { f.set(s, FieldValue(seed)); });
    });
    addField(form, label, keyPath, le, [this, le, &f] {
        const QString v = QString::number(static_cast<qulonglong>(std::get<std::uint64_t>(f.get(current()))));
        if (le->text() != v) le->setText(v);
    });
}

void SettingsPanel::updateRanges() {
    for (auto& field : fields_) {
        if (!field.schema || !field.schema->isNumber()) continue;
        const SpinRange r = spinRange(fieldBounds(*field.schema, current()), field.decimals);
        if (auto* sb = qobject_cast<QSpinBox*>(field.editor)) {
            if (sb->minimum() != static_cast<int>(r.min) || sb->maximum() != static_cast<int>(r.max))
                sb->setRange(static_cast<int>(r.min), static_cast<int>(r.max));
        } else if (auto* db = qobject_cast<QDoubleSpinBox*>(field.editor)) {
            if (db->minimum() != r.min || db->maximum() != r.max) db->setRange(r.min, r.max);
        }
    }
}

QWidget* SettingsPanel::editorFor(const QString& keyPath) const {
    for (const auto& f : fields_)
        if (f.keyPath == keyPath) return f.editor;
    return nullptr;
}

Scenario& SettingsPanel::current() const {
    // Read-only use: the loaders only read through the accessor; writes go through apply().
    return const_cast<Scenario&>(document_->scenario());
}

void SettingsPanel::setDocument(ScenarioDocument* document) {
    if (document_) disconnect(document_, nullptr, this, nullptr);
    document_ = document;
    setEnabled(document_ != nullptr);
    if (!document_) return;
    connect(document_, &ScenarioDocument::scenarioChanged, this, &SettingsPanel::refresh);
    refresh();
}

void SettingsPanel::apply(const QString& keyPath, const std::function<void(Scenario&)>& change) {
    if (!document_) return;
    int index = 0;
    for (std::size_t i = 0; i < fields_.size(); ++i)
        if (fields_[i].keyPath == keyPath) index = static_cast<int>(i);
    document_->edit(editText(keyPath), change, kEditSettingsFirst + index);
}

void SettingsPanel::refresh() {
    if (!document_) return;
    updating_ = true;
    updateRanges();
    for (auto& f : fields_) f.load();
    modelSummary_->setText(modelSummaryText(document_->scenario()));
    updating_ = false;
    showProblems(validateScenario(document_->scenario()));
}

void SettingsPanel::showProblems(const std::vector<Diagnostic>& problems) {
    for (auto& f : fields_) {
        QStringList messages;
        const std::string key = f.keyPath.toStdString();
        for (const auto& d : problems)
            if (d.path == key || d.path.rfind(key + ".", 0) == 0 || d.path.rfind(key + "[", 0) == 0)
                messages << QString::fromStdString(d.path + " " + d.message);
        f.problem->setText(messages.join('\n'));
        f.problem->setVisible(!messages.isEmpty());
    }
}

} // namespace fog
