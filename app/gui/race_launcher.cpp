#include "app/gui/race_launcher.h"

#include "core/scenario/scenario_io.h"
#include "core/scenario/variants.h"

#include <QDialog>
#include <QDialogButtonBox>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

#include <algorithm>

namespace fog {

namespace {

int trainerCount(const Scenario& s) {
    int n = 0;
    for (const NodeSpec& node : s.topology.nodes)
        if (node.role == Role::Trainer) n += node.group ? std::max(1, node.count) : 1;
    return n;
}

} // namespace

std::vector<RaceView::Entry> raceCandidates(const Scenario& scenario, QString* why) {
    std::vector<RaceView::Entry> out;
    try {
        if (hasVariants(scenario) && !scenario.variants.empty()) {
            const std::string text = saveScenarioText(scenario);
            std::vector<std::string> seen;
            for (const VariantConfig& c : variantConfigurations(scenario)) {
                if (std::find(seen.begin(), seen.end(), c.label) != seen.end()) continue;
                seen.push_back(c.label);
                Scenario v = withoutVariants(loadScenarioText(text, "race", c.overrides));
                v.data.baseDir = scenario.data.baseDir; // relative data and model files as the file has them
                v.model.baseDir = scenario.model.baseDir;
                out.push_back({QString::fromStdString(c.label), v});
            }
            return out;
        }
        const int trainers = trainerCount(scenario);
        if (trainers < 2) {
            if (why) *why = QObject::tr("A race needs a scenario with variants, or at least two trainers to race "
                                        "fully-sync against n-sync (this one has %1).").arg(trainers);
            return out;
        }
        Scenario base = withoutVariants(scenario);
        Scenario full = base;
        full.sync.name = "fully-sync";
        full.sync.params.clear();
        full.sync.paramLines.clear();
        Scenario nsync = base;
        nsync.sync.name = "n-sync";
        nsync.sync.params = {{"n", std::max(1, trainers / 2)}};
        nsync.sync.paramLines.clear();
        out.push_back({QStringLiteral("fully-sync"), full});
        out.push_back({QStringLiteral("n-sync n=%1").arg(std::max(1, trainers / 2)), nsync});
    } catch (const std::exception& e) {
        if (why) *why = QString::fromUtf8(e.what());
        out.clear();
    }
    return out;
}

std::vector<RaceView::Entry> pickRacers(const std::vector<RaceView::Entry>& candidates, const QStringList& labels,
                                        QString* why) {
    if (labels.isEmpty() || (labels.size() == 1 && labels.front() == "all")) {
        std::vector<RaceView::Entry> first(candidates.begin(),
                                           candidates.begin() + std::min<std::ptrdiff_t>(RaceView::kMaxRacers,
                                                                                          candidates.size()));
        return first;
    }
    std::vector<RaceView::Entry> out;
    QStringList unknown;
    for (const QString& l : labels) {
        auto it = std::find_if(candidates.begin(), candidates.end(), [&](const RaceView::Entry& e) { return e.label == l; });
        if (it == candidates.end()) unknown << l;
        else out.push_back(*it);
    }
    if (!unknown.isEmpty() && why) {
        QStringList known;
        for (const auto& c : candidates) known << c.label;
        *why = QObject::tr("no variant %1 to race (there are: %2)").arg(unknown.join(", "), known.join(", "));
    }
    return unknown.isEmpty() ? out : std::vector<RaceView::Entry>{};
}

QStringList askRacers(QWidget* parent, const std::vector<RaceView::Entry>& candidates) {
    QDialog d(parent);
    d.setWindowTitle(QObject::tr("Race Variants"));
    auto* list = new QListWidget(&d);
    list->setObjectName("raceCandidates");
    for (std::size_t i = 0; i < candidates.size(); ++i) {
        auto* item = new QListWidgetItem(candidates[i].label, list);
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        item->setCheckState(i < static_cast<std::size_t>(RaceView::kMaxRacers) ? Qt::Checked : Qt::Unchecked);
    }
    auto* note = new QLabel(QObject::tr("Two or three variants run side by side on one virtual clock, each on its own "
                                        "canvas, with their plots overlaid."), &d);
    note->setWordWrap(true);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &d);
    buttons->button(QDialogButtonBox::Ok)->setText(QObject::tr("Race"));
    auto checked = [list] {
        QStringList out;
        for (int i = 0; i < list->count(); ++i)
            if (list->item(i)->checkState() == Qt::Checked) out << list->item(i)->text();
        return out;
    };
    auto update = [buttons, checked] {
        const int n = static_cast<int>(checked().size());
        buttons->button(QDialogButtonBox::Ok)->setEnabled(n >= 2 && n <= RaceView::kMaxRacers);
    };
    QObject::connect(list, &QListWidget::itemChanged, &d, update);
    QObject::connect(buttons, &QDialogButtonBox::accepted, &d, &QDialog::accept);
    QObject::connect(buttons, &QDialogButtonBox::rejected, &d, &QDialog::reject);
    auto* layout = new QVBoxLayout(&d);
    layout->addWidget(note);
    layout->addWidget(list);
    layout->addWidget(buttons);
    update();
    return d.exec() == QDialog::Accepted ? checked() : QStringList{};
}

} // namespace fog
