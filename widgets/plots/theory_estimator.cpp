#include "widgets/plots/theory_estimator.h"

#include "core/scenario/scenario_io.h"

#include <QPointer>
#include <QThread>

#include <cmath>
#include <sstream>

namespace fog {

struct TheoryEstimator::Job {
    std::atomic<bool> cancel{false};
};

TheoryEstimator::TheoryEstimator(QObject* parent) : QObject(parent) {
    qRegisterMetaType<fog::ExpectedRoundTime>();
}

TheoryEstimator::~TheoryEstimator() {
    cancel();
    for (auto& [thread, job] : running_) {
        thread->wait();
        delete thread;
    }
    running_.clear();
}

void TheoryEstimator::cancel() {
    ++generation_;
    for (auto& [thread, job] : running_) job->cancel = true;
}

void TheoryEstimator::reap() {
    for (auto it = running_.begin(); it != running_.end();) {
        if (it->first->isFinished()) {
            it->first->wait();
            delete it->first;
            it = running_.erase(it);
        } else {
            ++it;
        }
    }
}

int TheoryEstimator::request(const Scenario& scenario, const TheoryOptions& options) {
    cancel();
    reap();
    const int generation = generation_;
    // The same scenario with the same options: the last answer stands.
    std::ostringstream key;
    try {
        key << saveScenarioText(scenario);
    } catch (const std::exception&) {
        key << scenario.name;
    }
    key << '|' << options.monteCarloRounds << '|' << options.wireBytes << '|' << options.samplesPerTrainer << '|'
        << options.forceMonteCarlo;
    if (key.str() == cachedKey_ && cached_.source != ExpectedRoundTime::Source::None) {
        const ExpectedRoundTime result = cached_;
        QMetaObject::invokeMethod(
            this, [this, generation, result] {
                if (generation == generation_) Q_EMIT estimated(generation, result);
            },
            Qt::QueuedConnection);
        return generation;
    }
    auto job = std::make_shared<Job>();
    QPointer<TheoryEstimator> self(this);
    const std::string k = key.str();
    QThread* thread = QThread::create([self, job, scenario, options, generation, k] {
        ExpectedRoundTime result = expectedRoundTimeOf(scenario, options, &job->cancel);
        if (job->cancel) return;
        // Delivered on the estimator's thread; dropped if a later request came meanwhile.
        QMetaObject::invokeMethod(
            self.data(), [self, generation, result, k] {
                if (!self || generation != self->generation_) return;
                self->cachedKey_ = k;
                self->cached_ = result;
                Q_EMIT self->estimated(generation, result);
                self->reap();
            },
            Qt::QueuedConnection);
    });
    thread->setObjectName("theory-estimate");
    running_.emplace_back(thread, job);
    thread->start(QThread::LowPriority);
    return generation;
}

} // namespace fog
