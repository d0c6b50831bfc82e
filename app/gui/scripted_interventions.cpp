#include "app/gui/scripted_interventions.h"

#include "app/gui/main_window.h"
#include "core/engine/condition.h"
#include "widgets/intervene/fork_launcher.h"
#include "widgets/intervene/intervention.h"
#include "widgets/run/run_controller.h"
#include "widgets/topology/edge_item.h"
#include "widgets/topology/node_item.h"
#include "widgets/topology/topology_canvas.h"
#include "widgets/topology/topology_scene.h"

#include <QMenu>
#include <QPainter>

#include <algorithm>
#include <iostream>
#include <stdexcept>

namespace fog {

ScriptedInterventions::ScriptedInterventions(MainWindow* window, const QStringList& specs)
    : QObject(window), window_(window) {
    for (const QString& spec : specs) {
        const int colon = spec.indexOf(':');
        bool ok = false;
        const double at = colon > 0 ? spec.left(colon).trimmed().toDouble(&ok) : 0.0;
        const std::string action = spec.mid(colon + 1).trimmed().toStdString();
        if (!ok || at < 0 || action.empty())
            throw std::invalid_argument("--intervene '" + spec.toStdString() +
                                        "': write 'SECONDS: ACTION', e.g. '600: link edge.up=2'");
        steps_.push_back({at, action});
    }
    std::stable_sort(steps_.begin(), steps_.end(), [](const Step& a, const Step& b) { return a.at < b.at; });
    connect(window->controller(), &RunController::pausedBecause, this, &ScriptedInterventions::paused);
}

void ScriptedInterventions::arm() {
    if (next_ < steps_.size()) window_->controller()->runUntil(Condition{ConditionMetric::Time, steps_[next_].at});
}

void ScriptedInterventions::paused() {
    RunController* c = window_->controller();
    if (next_ >= steps_.size() || c->runClock() < steps_[next_].at) return; // the user's own pause
    const Step step = steps_[next_++];
    TimedEvent e;
    QString why;
    if (!makeEventFromAction(c->scenario(), step.action, e, &why)) {
        std::cerr << "fogstudio: --intervene '" << step.action << "': " << why.toStdString() << std::endl;
    } else if (e.action == TimedEvent::Action::Add) {
        // As the canvas's Add devices… does: a fork of this run at this instant (the run
        // goes on to its end first), since devices cannot join the run going.
        auto* forks = window_->forkLauncher();
        if (!forks || !forks->startAfterRunGoing(c->runClock(), {step.action}, ForkLauncher::Parent::RunToEnd, &why))
            std::cerr << "fogstudio: --intervene '" << step.action << "': "
                      << (forks ? why.toStdString() : std::string("no fork launcher")) << std::endl;
    } else if (!c->intervene(e, &why))
        std::cerr << "fogstudio: --intervene '" << step.action << "': " << why.toStdString() << std::endl;
    if (next_ < steps_.size()) arm(); // runs on to the next one
    else c->resume();
}

QPixmap withCanvasMenu(MainWindow& window, const QPixmap& shot, const QString& target) {
    TopologyCanvas* canvas = window.canvas();
    QGraphicsItem* item = nullptr;
    const int arrow = target.indexOf("->");
    if (arrow > 0) {
        for (QGraphicsItem* it : canvas->topologyScene()->items())
            if (it->type() == EdgeItem::Type) {
                auto* e = static_cast<EdgeItem*>(it);
                if (e->from() && e->to() && e->from()->id() == target.left(arrow) && e->to()->id() == target.mid(arrow + 2))
                    item = e;
            }
    } else {
        item = canvas->topologyScene()->item(target);
    }
    if (!item) {
        std::cerr << "fogstudio: --shot-menu: no node or link '" << target.toStdString() << "' on the canvas" << std::endl;
        return shot;
    }
    QPointF at = item->sceneBoundingRect().center();
    if (item->type() == EdgeItem::Type) at = static_cast<EdgeItem*>(item)->line().center();
    const QPoint viewPos = canvas->mapFromScene(at);
    QMenu menu(&window);
    canvas->fillContextMenu(menu, viewPos);
    menu.ensurePolished();
    menu.resize(menu.sizeHint());
    const QPixmap picture = menu.grab();
    QPixmap out = shot;
    QPainter p(&out);
    const qreal scale = shot.devicePixelRatio();
    QPoint topLeft = canvas->viewport()->mapTo(&window, viewPos); // logical pixels, like the painter
    topLeft.setX(std::min(topLeft.x(), static_cast<int>(out.width() / scale - menu.width())));
    topLeft.setY(std::min(topLeft.y(), static_cast<int>(out.height() / scale - menu.height())));
    p.drawPixmap(topLeft, picture);
    p.setPen(QPen(window.palette().color(QPalette::Mid)));
    p.drawRect(QRect(topLeft, menu.size()).adjusted(0, 0, -1, -1));
    return out;
}

} // namespace fog
