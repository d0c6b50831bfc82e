#pragma once
// Everything of a scenario that is not the topology or a policy: name and seed, data set and
// partition, model, training hyper-parameters, stop rules and evaluation. Each field is
// bound to one value of the document's scenario; a change is one undoable edit, and the
// validator's messages for the field are shown beside it.

#include "core/scenario/schema.h"
#include "core/spec/scenario.h"

#include <QWidget>

#include <functional>
#include <vector>

class QFormLayout;
class QLabel;
class QScrollArea;

namespace fog {

class ScenarioDocument;
struct Diagnostic;

class SettingsPanel : public QWidget {
    Q_OBJECT
public:
    explicit SettingsPanel(QWidget* parent = nullptr);
    void setDocument(ScenarioDocument* document);

    /// The editor bound to a scenario key path such as "training.batch_size" (for tests and
    /// for jumping to a problem); nullptr when there is none.
    QWidget* editorFor(const QString& keyPath) const;

private:
    struct Field {
        QString keyPath;
        QWidget* editor = nullptr;
        QLabel* problem = nullptr;
        std::function<void()> load; ///< scenario -> editor
        const ScenarioField* schema = nullptr;
        int decimals = 0;
    };

    QFormLayout* section(const QString& title);
    void addField(QFormLayout* form, const QString& label, const QString& keyPath, QWidget* editor,
                  std::function<void()> load);
    /// The editor of one schema key (core/scenario/schema.h): its kind of widget, bounds,
    /// enum values, help and accessor all come from the schema; `decimals` and `suffix` are
    /// presentation only.
    void addKey(QFormLayout* form, const QString& label, const std::string& path, int decimals = 0,
                const QString& suffix = {});
    void addReal(QFormLayout* form, const QString& label, const ScenarioField& f, int decimals,
                 const QString& suffix);
    void addInt(QFormLayout* form, const QString& label, const ScenarioField& f, const QString& suffix);
    void addText(QFormLayout* form, const QString& label, const ScenarioField& f);
    void addBool(QFormLayout* form, const QString& label, const ScenarioField& f);
    void addEnum(QFormLayout* form, const QString& label, const ScenarioField& f);
    void addIntList(QFormLayout* form, const QString& label, const ScenarioField& f);
    void addSeed(QFormLayout* form, const QString& label, const ScenarioField& f);
    /// Spin-box ranges from the schema's bounds for the current scenario (a bound may depend
    /// on another key, e.g. schedule.gamma > 0 with kind step).
    void updateRanges();

    /// Applies `change` to the document as one undoable edit named after the field.
    void apply(const QString& keyPath, const std::function<void(Scenario&)>& change);
    Scenario& current() const;
    void refresh();
    void showProblems(const std::vector<Diagnostic>& problems);
    /// Each section puts its fields beside their labels where the page is wide enough for its
    /// widest label and widest field side by side, else below them (a narrow dock at 1280x720):
    /// a field is never narrower than its value needs. (QFormLayout's WrapLongRows decides
    /// row by row, yet places every field after the section's widest label: a field beside a
    /// short label ended up narrower than its minimum.)
    void arrangeSections();

  protected:
    void changeEvent(QEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override; ///< the page's resizes

  private:
    ScenarioDocument* document_ = nullptr;
    QWidget* body_ = nullptr;
    QScrollArea* scroll_ = nullptr;
    std::vector<Field> fields_;
    QLabel* modelSummary_ = nullptr; ///< layers, parameters, FLOPs per sample of the model
    bool updating_ = false;
};

} // namespace fog
