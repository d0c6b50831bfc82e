#pragma once
// The property inspector: edits every property of the selected node, group or explicit link
// through the document's undoable API. Values are checked with the loader's own rules
// (validateScenario): a value that would add a problem at that field is shown with the
// loader's message next to it and not applied; problems the scenario already has for the
// selection are shown next to their fields too. Several nodes selected: a field edited
// applies to all of them, in one undo step.

#include "core/scenario/schema.h"
#include "core/spec/scenario.h"
#include "widgets/document/scenario_document.h"

#include <QHash>
#include <QStringList>
#include <QWidget>

#include <deque>
#include <functional>
#include <vector>

class QCheckBox;
class QComboBox;
class QGridLayout;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace fog {

class ScenarioDocument;
class TopologyScene;

class PropertyInspector : public QWidget {
    Q_OBJECT
  public:
    explicit PropertyInspector(ScenarioDocument* doc, QWidget* parent = nullptr);

    /// Follows the scene's selection from now on.
    void attach(TopologyScene* scene);
    void setSelection(const QStringList& ids, const std::vector<int>& links);
    QStringList selectedIds() const { return ids_; }

    /// The editor of a field, by key path below the item ("compute.throughput",
    /// "price_per_hour.max", "link.latency_ms", "bandwidth_up_mbps" for a link, ...).
    QWidget* editor(const QString& key) const;
    /// The keys of the node and group editors, in row order (link editors left out).
    QStringList memberKeys() const;
    /// The problem text shown next to a field ("" when none), and whether it is visible.
    QString message(const QString& key) const;
    bool isFieldVisible(const QString& key) const;
    /// Problems of the selection that belong to no field (e.g. "topology has no aggregator").
    QString generalMessage() const;

  private:
    enum Kind : unsigned { OnNode = 1, OnGroup = 2, OnLink = 4, OnMember = OnNode | OnGroup };
    struct Field {
        QString key;    ///< key path below the item; diagnostics under it show here
        QString msgKey; ///< path diagnostics are matched against (usually key)
        unsigned kinds = OnMember;
        QLabel* label = nullptr;
        QWidget* box = nullptr;
        QWidget* editor = nullptr;
        QLabel* message = nullptr;
        QString rejected; ///< a value refused, with why; kept until reloaded
        std::function<void()> load;
        std::function<bool()> visible; ///< extra condition (e.g. only for noise kind x)
        QString help; ///< what the key means (the schema's); the editor's tooltip without problems
    };

    Field& addField(const QString& key, const QString& label, QWidget* editor, unsigned kinds);
    QLineEdit* numberEdit(const QString& key, const QString& label, unsigned kinds,
                          const std::function<double(const NodeSpec&)>& get,
                          const std::function<void(NodeSpec&, double)>& set);
    QLineEdit* linkNumber(const QString& key, const QString& label,
                          const std::function<double(const LinkParams&)>& get,
                          const std::function<void(LinkParams&, double)>& set);
    /// The label of a key's row: the table's, indented below the key it depends on.
    static QString labelOf(const FieldInfo& f);
    void buildMemberFields(); ///< a row per key of nodeSchema()
    void rangeEdits(const NodeField& nf);
    void choiceBox(const NodeField& nf, unsigned kinds);
    void textEdit(const NodeField& nf, unsigned kinds);
    void switchBox(const NodeField& nf, unsigned kinds);
    /// What an absent value stands for ("scenario default (shared)", "none").
    QString absentText(const FieldInfo& f) const;
    /// Editors of their own; false: the table's kind of editor.
    bool buildCustomField(const NodeField& nf);
    void buildParentField(const NodeField& nf, const QString& label);
    void buildOfflineField(const QString& label);
    /// The switch of a node's own link: on, it starts from the scenario's default link.
    void buildOwnLinkField(const NodeField& nf, const QString& label);
    void buildAggregateField(const NodeField& nf, const QString& label); ///< property_inspector_aggregate.cpp
    void buildLinkFields();

    /// Applies a change to every selected node/group that `kinds` covers (OnNode, OnGroup)
    /// unless it adds a problem at `key`.
    void commitMembers(const QString& key, const QString& text,
                       const std::function<void(NodeSpec&)>& change, unsigned kinds = OnMember);
    void commitRename(const QString& newId);
    void commitLink(const QString& key, const std::function<void(LinkSpec&)>& change);
    /// Messages a candidate scenario adds under `key` of the selection, vs the document's.
    QStringList newProblems(const Scenario& candidate, const QString& key) const;
    bool parseField(Field& f, const QString& text, double& out);
    int mergeIdFor(const QString& key);

    /// The selected nodes and groups, looked up at the last reload (every change reloads).
    const std::vector<EntityRef>& refs() const;
    void updateRefs();
    QString prefixOf(const EntityRef& e) const;
    /// The first selected node, else the first selected group; the first selected group.
    const NodeSpec* firstNode() const;
    const NodeSpec* firstGroup() const;
    void reload();
    void showMessages();
    Field* field(const QString& key);
    const Field* field(const QString& key) const;

    ScenarioDocument* doc_;
    TopologyScene* scene_ = nullptr;
    QStringList ids_;
    std::vector<EntityRef> refs_;
    int link_ = -1;
    QLabel* title_;
    QLabel* general_;
    QGridLayout*
        grid_; ///< not a QFormLayout: Qt 6.4 overruns memory in its heightForWidth with hidden rows
    std::deque<Field> fields_; ///< deque: Field addresses stay valid as rows are added
    QString lastKey_;
    int lastIndex_ = -1;
    int lastMerge_ = -1;
    bool loading_ = false;
};

} // namespace fog
