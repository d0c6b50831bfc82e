#pragma once
// The studio's open scenario: the model (a fog::Scenario), its undo stack and its file. Views
// (canvas, inspector, policy panel) never change the scenario directly: they call the
// editing methods below, each of which pushes small undoable commands, and they listen to
// the typed change signals. The dirty flag follows QUndoStack::cleanChanged.

#include "core/spec/scenario.h"
#include "core/scenario/scenario_io.h"

#include <QList>
#include <QObject>
#include <QPointF>
#include <QString>
#include <QStringList>

#include <functional>
#include <vector>

class QUndoStack;

namespace fog {

/// A node or a group: its index in the topology's one list of entries.
struct EntityRef {
    int index = -1;
    bool valid() const { return index >= 0; }
    bool operator==(const EntityRef& o) const { return index == o.index; }
};

/// What a delete does to the children of a removed node or group (those not removed too).
enum class DeleteChildren {
    Reparent, ///< they report to the removed node's own parent (or become roots)
    Remove,   ///< they are removed as well, with their whole subtree
};

class ScenarioDocument : public QObject {
    Q_OBJECT
  public:
    explicit ScenarioDocument(QObject* parent = nullptr);
    ~ScenarioDocument() override;

    // --- file and state ---------------------------------------------------------------
    /// Loads and validates; on failure the document is unchanged and `error` gets the
    /// loader's messages ("file:line:col: key.path message", one per line).
    bool load(const QString& path, QString* error = nullptr);
    /// Opens a file however many problems it has, so that it can be fixed here: what could
    /// be read is shown and diagnostics() lists every problem (read problems, where a default
    /// stands in, stay listed until the file is saved). False, document unchanged, only when
    /// the file is not a scenario at all (unreadable, YAML syntax).
    bool open(const QString& path, QString* error = nullptr);
    /// Saves to filePath() and marks the undo stack clean.
    bool save(QString* error = nullptr);
    bool saveAs(const QString& path, QString* error = nullptr);
    QString filePath() const { return filePath_; }
    void setFilePath(const QString& path);

    /// Replaces the whole scenario (a new document): clears the undo stack, clean.
    void setScenario(const Scenario& s);
    const Scenario& scenario() const { return scenario_; }
    QUndoStack* undoStack() const { return undo_; }
    bool isModified() const;
    /// validateScenario() of the current scenario (the loader's range and reference rules),
    /// after the read problems of a file opened with open().
    std::vector<Diagnostic> diagnostics() const;

    // --- look-up ----------------------------------------------------------------------
    /// The node or group with exactly this id.
    EntityRef find(const QString& id) const;
    /// The node with this id, or the group a member id `<group>-<k>` belongs to (nested
    /// groups: `<group>-<i>-<k>`, one index per level).
    EntityRef resolve(const QString& id) const;
    /// The entry at "topology.nodes[k]" / "topology.groups[k]" (a diagnostic's path).
    EntityRef atKeyPath(const QString& path) const;
    bool isGroup(EntityRef e) const;
    QString idOf(EntityRef e) const;
    /// "topology.nodes[3]" / "topology.groups[0]": prefix of the entity's diagnostics.
    QString keyPath(EntityRef e) const;
    Tier tierOf(EntityRef e) const;
    Role roleOf(EntityRef e) const;
    QString parentOf(EntityRef e) const;
    bool hasPositionOf(EntityRef e) const;
    QPointF positionOf(EntityRef e) const;
    /// The id to use when naming a node after a group member: a group's member 0 (nested:
    /// `<id>-0-0`).
    QString nodeIdFor(EntityRef e) const;
    /// An id no node, group or group member uses: `base`, else base1, base2, ...
    QString uniqueId(const QString& base, const QStringList& alsoTaken = {}) const;
    /// True when `ancestor` is `e` or lies on e's parent chain.
    bool isAncestor(EntityRef ancestor, EntityRef e) const;
    /// Index of the explicit link between a and b (either direction), or -1.
    int linkBetween(const QString& a, const QString& b) const;
    /// A fresh id for mergeWith: edits passing the same one become one undo step.
    int newMergeId() { return ++lastMergeId_; }

    // --- topology edits (all undoable) -------------------------------------------------
    /// Adds a node or a group (n.group); its id is made unique (returned). Without a position
    /// it is placed by the automatic layout.
    QString addNode(NodeSpec n);
    /// Replaces a node's or group's properties. A new id is carried into every reference
    /// (children's parents, links, group member names) in the same undo step.
    void setNode(const QString& id, const NodeSpec& value, int mergeId = -1);
    /// Applies a change to several nodes and groups in one undo step (multi-selection
    /// editing); ids are not to be changed here.
    void changeEntities(const QStringList& ids, const std::function<void(NodeSpec&)>& change,
                        const QString& text, int mergeId = -1);
    /// Moves nodes and groups (item centres). A drag passes one merge id for its whole
    /// course, so the drag is one undo step.
    void moveEntities(const QStringList& ids, const QList<QPointF>& positions, int mergeId = -1);
    /// Sets the parent (an aggregator's id, a group member id, or empty for a root).
    void setParent(const QString& id, const QString& parent);

    int addLink(const LinkSpec& l);
    void setLink(int index, const LinkSpec& l, int mergeId = -1);
    void removeLink(int index);

    enum class Connection { None, Parent, Link };
    /// What drawing a link from `from` to `to` does: if one end has no parent and the other
    /// aggregates (and no cycle results), it becomes the parent (the end nearer the devices is
    /// the child when both could be); otherwise an explicit link is added (group ends name
    /// member 0). None when they are already linked or the same.
    Connection connect(const QString& from, const QString& to);

    /// Removes nodes and groups by id, and explicit links by index, in one undo step. Links
    /// touching a removed node are removed too; children are handled as `children` says.
    /// Returns the ids actually removed.
    QStringList remove(const QStringList& ids, const std::vector<int>& links,
                       DeleteChildren children = DeleteChildren::Reparent);

    /// The nodes and groups `ids` and the links among them, as scenario YAML (its topology
    /// section is the fragment). Entities without a position get their layout position.
    QString copy(const QStringList& ids) const;
    /// Adds the topology of a YAML scenario/fragment in one undo step: ids made unique,
    /// parents inside the fragment follow the renames, parents that exist in the document
    /// are kept, others cleared; positions shifted by `offset`. Returns the new ids, or an
    /// empty list with `error` set.
    QStringList paste(const QString& yaml, QPointF offset, QString* error = nullptr);

    /// Places every node and group by tier (core/scenario/layout.h): one undo step.
    void autoLayout();

    /// A change to any other part of the scenario (policies, training, data, stop rules):
    /// one undo step named `text`; consecutive edits with the same merge id merge.
    void edit(const QString& text, const std::function<void(Scenario&)>& change, int mergeId = -1);

  Q_SIGNALS:
    void nodeAdded(const QString& id); ///< a node or a group
    void nodeRemoved(const QString& id);
    void nodeChanged(const QString& id); ///< any property, including position and parent
    void nodeRenamed(const QString& oldId, const QString& newId);
    void linkAdded(int index);
    void linkRemoved(int index);
    void linkChanged(int index);
    void topologyReset();   ///< everything may have changed (new scenario, generic edit)
    void scenarioChanged(); ///< after every change, whatever it was
    void modifiedChanged(bool modified);
    void filePathChanged(const QString& path);

  private:
    friend class DocumentCommand;
    Scenario& mutableScenario() { return scenario_; }
    using NodeEdits = std::vector<std::pair<int, NodeSpec>>;
    using LinkEdits = std::vector<std::pair<int, LinkSpec>>;
    /// Pushes one command setting these nodes/groups and links (index, new value).
    void pushChange(NodeEdits nodes, LinkEdits links, const QString& text, int mergeId);
    /// Adds to the edits what renaming entity `e` to `newId` changes elsewhere.
    void collectRename(EntityRef e, const QString& newId, NodeEdits& nodes, LinkEdits& links) const;
    /// Levels of indices in a group's member ids (1, or more when nested), 0 for a node.
    int memberDepth(EntityRef e) const;
    /// Resolves the id to an entity or returns an invalid ref (with a warning).
    EntityRef require(const QString& id) const;

    Scenario scenario_;
    QUndoStack* undo_ = nullptr;
    QString filePath_;
    std::vector<Diagnostic> readProblems_; ///< of the file open() read, until it is saved
    std::vector<Diagnostic> nextReadProblems_;
    int lastMergeId_ = 0;
};

} // namespace fog
