#pragma once
// Live intervention from the topology canvas: the entries a right click on a node, a group,
// a group member or a link adds to the canvas's context menu (take offline / bring online,
// a share of a group; change throughput, price; change a link's bandwidth or latency). Each
// asks for its value in a small dialog that shows the value in effect and refuses bad ones
// with the scenario reader's message, then goes to RunController::intervene. On a group of
// trainers, "Add devices…" asks how many: devices cannot join the run going (the engine sizes
// its tables when a run starts), so the `add` goes to a fork of the run at its instant
// (setForkAction; docs/emulator.md "Devices that join"). Outside a run
// (or while it starts or ends) the entries are there but disabled, their tool tip saying why.
//
// Threads: GUI thread.

#include "widgets/intervene/intervention.h"
#include "widgets/intervene/values_dialog.h"

#include <QObject>
#include <QPointer>

#include <functional>
#include <optional>
#include <vector>

class QAction;
class QGraphicsItem;
class QMenu;
class QWidget;

namespace fog {

class RunController;

class InterveneMenu : public QObject {
    Q_OBJECT
public:
    InterveneMenu(RunController* controller, QWidget* dialogParent);

    /// Adds the intervention entries for `item` (NodeItem, MemberItem, EdgeItem; anything
    /// else adds nothing) at the top of `menu`. A run going is paused until the menu closes
    /// or its entry's change was sent, so that the instant the menu names is the one the
    /// change is applied at.
    void populate(QMenu& menu, QGraphicsItem* item);

    /// Asks for values: a ValuesDialog by default. Returns the accepted values, nothing when
    /// cancelled. Tests install an asker that answers without a dialog.
    using Asker = std::function<std::optional<std::vector<double>>(
        const QString& title, const QString& intro, const std::vector<ValueField>& fields,
        const ValuesDialog::Check& check)>;
    void setAsker(Asker asker) { asker_ = std::move(asker); }
    /// What "Add devices…" does with its action ("add phones 4"): fork the run going at its
    /// instant with it (the main window's fork launcher). Without one the entry is disabled.
    using ForkAction = std::function<void(const std::string& action)>;
    void setForkAction(ForkAction fork) { fork_ = std::move(fork); }

    /// Sends `changes` (one change, or several of one link) as one intervention. False with
    /// the reason (no run, an unknown target, a bad value) in `error`.
    bool apply(const std::vector<Change>& changes, QString* error = nullptr);

    /// Why the entries are disabled ("" while a run is going or paused).
    QString unavailableReason() const;

Q_SIGNALS:
    /// An intervention went to the engine: its label ("edge-1 up 2 Mbit/s").
    void requested(const QString& label);
    /// An intervention was refused: why.
    void refused(const QString& message);

private:
    struct Target {
        std::string id;      ///< node, group or member id
        std::string linkTo;  ///< explicit link: its `to`
        bool group = false;
        bool link = false;
        QString shown;       ///< how menus name it
    };
    void addNodeEntries(QMenu& menu, const Target& t, bool enabled);
    void addLinkEntries(QMenu& menu, const Target& t, bool enabled);
    QAction* addEntry(QMenu& menu, const QString& text, bool enabled, std::function<void()> run);
    void askOffline(const Target& t, bool offline);
    void askNode(const Target& t, ChangeKind kind);
    void askLink(const Target& t);
    void askAddDevices(const Target& t);
    std::optional<std::vector<double>> ask(const QString& title, const QString& intro,
                                           const std::vector<ValueField>& fields, const ValuesDialog::Check& check);

    /// Resumes the run the menu paused (if it is still paused).
    void releaseHold();

    QPointer<RunController> controller_;
    bool heldByMenu_ = false; ///< populate() paused the run going
    bool asking_ = false;     ///< an entry's dialog is open
    QPointer<QWidget> parent_;
    Asker asker_;
    ForkAction fork_;
};

} // namespace fog
