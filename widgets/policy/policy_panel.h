#pragma once
// Choosing the sync and selection policies and their parameters, each with its explanation
// (what it does, the formula, the source paper). Reads the policy catalogue from
// core/policies/policy_info.h, so a newly registered policy appears here without changes.

#include "core/policies/policy_info.h"
#include "core/spec/scenario.h"

#include <QWidget>

class QComboBox;
class QFormLayout;
class QLabel;
class QGroupBox;

namespace fog {

class ScenarioDocument;

/// One policy slot (sync or selection): a name chooser, one editor per parameter, and the
/// explanation of the chosen policy.
class PolicyChooser : public QWidget {
    Q_OBJECT
public:
    PolicyChooser(const QString& title, const std::vector<PolicyInfo>& catalogue, QWidget* parent = nullptr);

    /// Shows `spec` (no signal is emitted).
    void setSpec(const PolicySpec& spec);
    /// The name and the parameters as shown (every parameter explicit).
    PolicySpec spec() const;
    QComboBox* nameBox() const { return name_; }
    /// The editor of parameter `key` of the shown policy (nullptr when it has none).
    QWidget* paramEditor(const QString& key) const;

Q_SIGNALS:
    /// The user changed the policy (`nameChanged` true) or one of its parameters.
    void edited(bool nameChanged);

private:
    void rebuildParams(const PolicyInfo* info, const PolicySpec& values);
    void showExplanation(const PolicyInfo* info);

    std::vector<PolicyInfo> catalogue_;
    QGroupBox* box_ = nullptr;
    QComboBox* name_ = nullptr;
    QFormLayout* params_ = nullptr;
    QLabel* explanation_ = nullptr;
    std::vector<std::pair<std::string, QWidget*>> editors_;
    bool updating_ = false;
};

/// The learning algorithm besides the sync policy (docs/learning.md): the local optimiser,
/// the server optimiser, the codecs up and down and the codecs between the aggregators of a
/// tiered tree (training.optimizer, server_optimizer, codec_up, codec_down,
/// aggregator_codec_up, aggregator_codec_down), each a chooser from its catalogue with the chosen one's formula,
/// source and the training keys it reads. (Client algorithms, DP-FedAvg and SecAgg are sync
/// policies: the Synchronisation chooser above.)
class LearningChooser : public QWidget {
    Q_OBJECT
public:
    explicit LearningChooser(QWidget* parent = nullptr);
    /// The training keys shown, in order.
    static const std::vector<std::string>& keys();
    /// Shows the scenario's choices (no signal is emitted).
    void setTraining(const TrainingSpec& training);
    /// The chooser of `key` ("training.optimizer", ...; nullptr for another key).
    QComboBox* box(const std::string& key) const;
    /// The explanation shown for `key`'s current choice (rich text).
    QString explanation(const std::string& key) const;

Q_SIGNALS:
    /// The user chose `name` for `key`.
    void chosen(const std::string& key, const std::string& name);

private:
    void explain(std::size_t row);
    std::vector<QComboBox*> boxes_;
    std::vector<QLabel*> labels_;
    bool updating_ = false;
};

/// The policy panel of the studio: sync and selection choosers bound to a document; every
/// change is one undoable edit (typing into one field merges into one step).
class PolicyPanel : public QWidget {
    Q_OBJECT
public:
    explicit PolicyPanel(QWidget* parent = nullptr);
    void setDocument(ScenarioDocument* document);

    PolicyChooser* syncChooser() const { return sync_; }
    LearningChooser* learningChooser() const { return learning_; }

private:
    void refresh();
    void commit(bool sync, bool nameChanged);

    ScenarioDocument* document_ = nullptr;
    PolicyChooser* sync_ = nullptr;
    PolicyChooser* selection_ = nullptr;
    LearningChooser* learning_ = nullptr;
};

} // namespace fog
