#pragma once
// The undo commands of ScenarioDocument (Tiled's pattern): each holds the other state and
// swaps it in on both redo and undo, then announces what changed with the document's typed
// signals. Index-based: the undo stack replays commands in strict order, so an index stored
// when a command was made is valid whenever it is undone or redone.

#include "widgets/document/scenario_document.h"

#include <QUndoCommand>

namespace fog {

/// Ids for mergeWith (QUndoCommand::id), one per mergeable command type.
enum CommandId { kChangeItemsCommand = 1, kEditScenarioCommand = 2 };

class DocumentCommand : public QUndoCommand {
  public:
    DocumentCommand(ScenarioDocument* doc, const QString& text) : doc_(doc) { setText(text); }

  protected:
    Scenario& model() { return doc_->mutableScenario(); }
    TopologySpec& topology() { return doc_->mutableScenario().topology; }
    ScenarioDocument* doc_;
};

/// Sets nodes/groups and links at given indices (properties, positions, parents, renames).
class ChangeItemsCommand : public DocumentCommand {
  public:
    ChangeItemsCommand(ScenarioDocument* doc, const QString& text, int mergeId,
                       std::vector<std::pair<int, NodeSpec>> nodes,
                       std::vector<std::pair<int, LinkSpec>> links);
    void redo() override { swap(); }
    void undo() override { swap(); }
    int id() const override { return mergeId_ < 0 ? -1 : kChangeItemsCommand; }
    bool mergeWith(const QUndoCommand* other) override;

  private:
    void swap();
    int mergeId_;
    std::vector<std::pair<int, NodeSpec>> nodes_;
    std::vector<std::pair<int, LinkSpec>> links_;
};

/// Inserts (or removes) one node or group at an index.
class EntityPresenceCommand : public DocumentCommand {
  public:
    /// Insert `node` (a node or a group) at ref.index.
    static EntityPresenceCommand* insert(ScenarioDocument* doc, EntityRef ref, NodeSpec node);
    /// Remove the entity at `ref`.
    static EntityPresenceCommand* remove(ScenarioDocument* doc, EntityRef ref);
    void redo() override { inserting_ ? add() : take(); }
    void undo() override { inserting_ ? take() : add(); }

  private:
    EntityPresenceCommand(ScenarioDocument* doc, const QString& text, EntityRef ref, bool inserting)
        : DocumentCommand(doc, text), ref_(ref), inserting_(inserting) {}
    void add();
    void take();
    EntityRef ref_;
    bool inserting_;
    NodeSpec node_;
};

/// Inserts (or removes) one explicit link at an index.
class LinkPresenceCommand : public DocumentCommand {
  public:
    LinkPresenceCommand(ScenarioDocument* doc, int index, LinkSpec link, bool inserting);
    void redo() override { inserting_ ? add() : take(); }
    void undo() override { inserting_ ? take() : add(); }

  private:
    void add();
    void take();
    int index_;
    LinkSpec link_;
    bool inserting_;
};

/// Any change to the scenario as a whole (policies, training, data, stop rules): swaps the
/// complete scenario. Announces a topology reset only when the topology changed.
class EditScenarioCommand : public DocumentCommand {
  public:
    EditScenarioCommand(ScenarioDocument* doc, const QString& text, int mergeId, Scenario after,
                        bool topologyChanged);
    void redo() override { swap(); }
    void undo() override { swap(); }
    int id() const override { return mergeId_ < 0 ? -1 : kEditScenarioCommand; }
    bool mergeWith(const QUndoCommand* other) override;

  private:
    void swap();
    int mergeId_;
    Scenario other_;
    bool topologyChanged_;
};

} // namespace fog
