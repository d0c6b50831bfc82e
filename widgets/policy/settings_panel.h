#pragma once
// Everything of a scenario that is not the topology or a policy: name and seed, data set and
// partition, model, training hyper-parameters, stop rules and evaluation. Each field is
// bound to one value of the document's scenario; a change is one undoable edit, and the
// validator's messages for the field are shown beside it.

#include "core/spec/scenario.h"

#include <QWidget>

#include <functional>
#include <vector>

class QFormLayout;
class QLabel;

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
    };

    QFormLayout* section(const QString& title);
    void addField(QFormLayout* form, const QString& label, const QString& keyPath, QWidget* editor,
                  std::function<void()> load);
    void addInt(QFormLayout* form, const QString& label, const QString& keyPath, int min, int max,
                const QString& suffix, std::function<int&(Scenario&)> field);
    void addReal(QFormLayout* form, const QString& label, const QString& keyPath, double min, double max,
                 int decimals, const QString& suffix, std::function<double&(Scenario&)> field);
    void addText(QFormLayout* form, const QString& label, const QString& keyPath,
                 std::function<std::string&(Scenario&)> field);
    void addBool(QFormLayout* form, const QString& label, const QString& keyPath,
                 std::function<bool&(Scenario&)> field);
    template <typename Enum>
    void addEnum(QFormLayout* form, const QString& label, const QString& keyPath, const std::vector<Enum>& values,
                 std::function<Enum&(Scenario&)> field);
    void addHidden(QFormLayout* form);
    void addSeed(QFormLayout* form);

    /// Applies `change` to the document as one undoable edit named after the field.
    void apply(const QString& keyPath, const std::function<void(Scenario&)>& change);
    Scenario& current() const;
    void refresh();
    void showProblems(const std::vector<Diagnostic>& problems);

    ScenarioDocument* document_ = nullptr;
    QWidget* body_ = nullptr;
    std::vector<Field> fields_;
    bool updating_ = false;
};

} // namespace fog
