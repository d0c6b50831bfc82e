#include "widgets/policy/settings_panel.h"

#include "core/scenario/scenario_io.h"
#include "widgets/document/scenario_document.h"
#include "widgets/policy/edit_ids.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QRegularExpression>
#include <QRegularExpressionValidator>
#include <QScrollArea>
#include <QSpinBox>
#include <QVBoxLayout>

#include <limits>

namespace fog {

namespace {

constexpr int kIntMax = std::numeric_limits<int>::max();

QString editText(const QString& keyPath) { return QObject::tr("Set %1").arg(keyPath); }

} // namespace

SettingsPanel::SettingsPanel(QWidget* parent) : QWidget(parent) {
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    auto* scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    outer->addWidget(scroll);
    body_ = new QWidget(scroll);
    scroll->setWidget(body_);
    auto* layout = new QVBoxLayout(body_);

    using DK = DataSpec::Kind;
    using PK = PartitionSpec::Kind;
    using MK = ModelSpec::Kind;
    using SK = ScheduleSpec::Kind;

    QFormLayout* general = section(tr("Scenario"));
    addText(general, tr("Name"), "name", [](Scenario& s) -> std::string& { return s.name; });
    addText(general, tr("Description"), "description", [](Scenario& s) -> std::string& { return s.description; });
    addSeed(general);

    QFormLayout* data = section(tr("Data"));
    addEnum<DK>(data, tr("Data set"), "data.dataset", {DK::FashionMnist, DK::Synthetic, DK::Idx, DK::Csv, DK::None},
                [](Scenario& s) -> DK& { return s.data.kind; });
    addText(data, tr("IDX folder"), "data.dir", [](Scenario& s) -> std::string& { return s.data.dir; });
    addText(data, tr("Train file"), "data.train", [](Scenario& s) -> std::string& { return s.data.trainPath; });
    addText(data, tr("Test file"), "data.test", [](Scenario& s) -> std::string& { return s.data.testPath; });
    addInt(data, tr("Train samples"), "data.max_train_samples", 0, kIntMax, tr(" (0 = all)"),
           [](Scenario& s) -> int& { return s.data.maxTrainSamples; });
    addInt(data, tr("Test samples"), "data.max_test_samples", 0, kIntMax, tr(" (0 = all)"),
           [](Scenario& s) -> int& { return s.data.maxTestSamples; });
    addInt(data, tr("Samples per trainer"), "data.samples_per_trainer", 1, kIntMax, tr(" (timing only)"),
           [](Scenario& s) -> int& { return s.data.samplesPerTrainer; });
    addEnum<PK>(data, tr("Partition"), "data.partition.kind",
                {PK::Iid, PK::Dirichlet, PK::Shards, PK::QuantitySkew, PK::Natural},
                [](Scenario& s) -> PK& { return s.data.partition.kind; });
    addReal(data, tr("Dirichlet alpha"), "data.partition.alpha", 0.001, 1e6, 3, {},
            [](Scenario& s) -> double& { return s.data.partition.alpha; });
    addInt(data, tr("Shards per client"), "data.partition.per_client", 1, 1000, {},
           [](Scenario& s) -> int& { return s.data.partition.shardsPerClient; });
    addReal(data, tr("Quantity-skew sigma"), "data.partition.sigma", 0.0, 10.0, 3, {},
            [](Scenario& s) -> double& { return s.data.partition.sigma; });
    addReal(data, tr("Synthetic alpha"), "data.synthetic.alpha", 0.0, 100.0, 3, {},
            [](Scenario& s) -> double& { return s.data.syntheticAlpha; });
    addReal(data, tr("Synthetic beta"), "data.synthetic.beta", 0.0, 100.0, 3, {},
            [](Scenario& s) -> double& { return s.data.syntheticBeta; });
    addBool(data, tr("Synthetic IID"), "data.synthetic.iid", [](Scenario& s) -> bool& { return s.data.syntheticIid; });

    QFormLayout* model = section(tr("Model"));
    addEnum<MK>(model, tr("Model"), "model.kind", {MK::LogReg, MK::Mlp, MK::Cnn, MK::None},
                [](Scenario& s) -> MK& { return s.model.kind; });
    addHidden(model);
    addReal(model, tr("Dropout"), "model.dropout", 0.0, 0.99, 2, {},
            [](Scenario& s) -> double& { return s.model.dropout; });
    addReal(model, tr("Bytes on the wire"), "model.wire_bytes", 0.0, 1e15, 0, tr(" B (0 = 4 per parameter)"),
            [](Scenario& s) -> double& { return s.model.wireBytes; });

    QFormLayout* training = section(tr("Training"));
    addReal(training, tr("Learning rate"), "training.learning_rate", 0.0, 100.0, 5, {},
            [](Scenario& s) -> double& { return s.training.learningRate; });
    addEnum<SK>(training, tr("Schedule"), "training.schedule.kind", {SK::Constant, SK::Step, SK::InverseTime},
                [](Scenario& s) -> SK& { return s.training.schedule.kind; });
    addReal(training, tr("Schedule gamma"), "training.schedule.gamma", 0.0, 100.0, 4, {},
            [](Scenario& s) -> double& { return s.training.schedule.gamma; });
    addInt(training, tr("Step every"), "training.schedule.every_rounds", 1, kIntMax, tr(" rounds"),
           [](Scenario& s) -> int& { return s.training.schedule.stepRounds; });
    addReal(training, tr("Momentum"), "training.momentum", 0.0, 0.999, 3, {},
            [](Scenario& s) -> double& { return s.training.momentum; });
    addReal(training, tr("Weight decay"), "training.weight_decay", 0.0, 1.0, 5, {},
            [](Scenario& s) -> double& { return s.training.weightDecay; });
    addInt(training, tr("Batch size"), "training.batch_size", 1, kIntMax, tr(" samples"),
           [](Scenario& s) -> int& { return s.training.batchSize; });
    addInt(training, tr("Local steps"), "training.local_steps", 1, kIntMax, {},
           [](Scenario& s) -> int& { return s.training.localSteps; });
    addInt(training, tr("Local epochs"), "training.local_epochs", 0, kIntMax, tr(" (0 = use steps)"),
           [](Scenario& s) -> int& { return s.training.localEpochs; });

    QFormLayout* stop = section(tr("Stop and evaluation"));
    addInt(stop, tr("Rounds"), "stop.rounds", 0, kIntMax, tr(" (0 = no limit)"),
           [](Scenario& s) -> int& { return s.stop.rounds; });
    addReal(stop, tr("Virtual time"), "stop.virtual_time_s", 0.0, 1e12, 1, tr(" s (0 = no limit)"),
            [](Scenario& s) -> double& { return s.stop.virtualTimeS; });
    addReal(stop, tr("Target accuracy"), "stop.target_accuracy", 0.0, 1.0, 3, tr(" (0 = none)"),
            [](Scenario& s) -> double& { return s.stop.targetAccuracy; });
    addReal(stop, tr("Budget"), "stop.budget", 0.0, 1e12, 2, tr(" $ (0 = none)"),
            [](Scenario& s) -> double& { return s.stop.budget; });
    addInt(stop, tr("Evaluate every"), "evaluation.every_rounds", 1, kIntMax, tr(" rounds"),
           [](Scenario& s) -> int& { return s.evaluation.everyRounds; });

    layout->addStretch(1);
    setEnabled(false);
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

void SettingsPanel::addInt(QFormLayout* form, const QString& label, const QString& keyPath, int min, int max,
                           const QString& suffix, std::function<int&(Scenario&)> field) {
    auto* sb = new QSpinBox;
    sb->setRange(min, max);
    sb->setSuffix(suffix);
    sb->setKeyboardTracking(false); // one edit per finished value, not per keystroke
    connect(sb, &QSpinBox::valueChanged, this, [this, keyPath, field](int v) {
        if (!updating_) apply(keyPath, [field, v](Scenario& s) { field(s) = v; });
    });
    addField(form, label, keyPath, sb, [this, sb, field] { sb->setValue(field(current())); });
}

void SettingsPanel::addReal(QFormLayout* form, const QString& label, const QString& keyPath, double min,
                            double max, int decimals, const QString& suffix,
                            std::function<double&(Scenario&)> field) {
    auto* sb = new QDoubleSpinBox;
    sb->setDecimals(decimals);
    sb->setRange(min, max);
    sb->setSuffix(suffix);
    sb->setKeyboardTracking(false);
    connect(sb, &QDoubleSpinBox::valueChanged, this, [this, keyPath, field](double v) {
        if (!updating_) apply(keyPath, [field, v](Scenario& s) { field(s) = v; });
    });
    addField(form, label, keyPath, sb, [this, sb, field] { sb->setValue(field(current())); });
}

void SettingsPanel::addText(QFormLayout* form, const QString& label, const QString& keyPath,
                            std::function<std::string&(Scenario&)> field) {
    auto* le = new QLineEdit;
    connect(le, &QLineEdit::editingFinished, this, [this, le, keyPath, field] {
        const std::string v = le->text().toStdString();
        if (!updating_ && field(current()) != v) apply(keyPath, [field, v](Scenario& s) { field(s) = v; });
    });
    addField(form, label, keyPath, le, [this, le, field] {
        const QString v = QString::fromStdString(field(current()));
        if (le->text() != v) le->setText(v);
    });
}

void SettingsPanel::addBool(QFormLayout* form, const QString& label, const QString& keyPath,
                            std::function<bool&(Scenario&)> field) {
    auto* cb = new QCheckBox;
    connect(cb, &QCheckBox::toggled, this, [this, keyPath, field](bool v) {
        if (!updating_) apply(keyPath, [field, v](Scenario& s) { field(s) = v; });
    });
    addField(form, label, keyPath, cb, [this, cb, field] { cb->setChecked(field(current())); });
}

template <typename Enum>
void SettingsPanel::addEnum(QFormLayout* form, const QString& label, const QString& keyPath,
                            const std::vector<Enum>& values, std::function<Enum&(Scenario&)> field) {
    auto* combo = new QComboBox;
    for (Enum e : values) combo->addItem(QString::fromUtf8(toString(e)), static_cast<int>(e));
    connect(combo, &QComboBox::currentIndexChanged, this, [this, combo, keyPath, field](int) {
        const Enum v = static_cast<Enum>(combo->currentData().toInt());
        if (!updating_) apply(keyPath, [field, v](Scenario& s) { field(s) = v; });
    });
    addField(form, label, keyPath, combo, [this, combo, field] {
        combo->setCurrentIndex(combo->findData(static_cast<int>(field(current()))));
    });
}

void SettingsPanel::addHidden(QFormLayout* form) {
    // Hidden layer widths as "200, 100": a list is easier typed than edited cell by cell.
    auto* le = new QLineEdit;
    le->setPlaceholderText(tr("e.g. 200, 100"));
    connect(le, &QLineEdit::editingFinished, this, [this, le] {
        if (updating_) return;
        std::vector<int> widths;
        for (const QString& part : le->text().split(',', Qt::SkipEmptyParts)) {
            bool ok = false;
            const int w = part.trimmed().toInt(&ok);
            if (!ok || w <= 0) {
                for (auto& f : fields_)
                    if (f.keyPath == "model.hidden") {
                        f.problem->setText(tr("model.hidden must be positive whole numbers separated by "
                                              "commas, got '%1'")
                                               .arg(part.trimmed()));
                        f.problem->setVisible(true);
                    }
                return;
            }
            widths.push_back(w);
        }
        if (widths != current().model.hidden)
            apply("model.hidden", [widths](Scenario& s) { s.model.hidden = widths; });
    });
    addField(form, tr("Hidden layers"), "model.hidden", le, [this, le] {
        QStringList parts;
        for (int w : current().model.hidden) parts << QString::number(w);
        const QString v = parts.join(", ");
        if (le->text() != v) le->setText(v);
    });
}

void SettingsPanel::addSeed(QFormLayout* form) {
    // Seeds are 64-bit: a spin box cannot hold them, a validated line edit can.
    auto* le = new QLineEdit;
    le->setValidator(new QRegularExpressionValidator(QRegularExpression("[0-9]{1,20}"), le));
    connect(le, &QLineEdit::editingFinished, this, [this, le] {
        bool ok = false;
        const qulonglong v = le->text().toULongLong(&ok);
        if (!updating_ && ok && v != current().seed)
            apply("seed", [v](Scenario& s) { s.seed = static_cast<std::uint64_t>(v); });
    });
    addField(form, tr("Seed"), "seed", le, [this, le] {
        const QString v = QString::number(static_cast<qulonglong>(current().seed));
        if (le->text() != v) le->setText(v);
    });
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
    for (auto& f : fields_) f.load();
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
