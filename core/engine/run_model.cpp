// The model a run trains (see run_model.h).

#include "core/engine/run_model.h"
#include "core/engine/local_job_tap.h"
#include "core/model/torchscript_model.h"

namespace fog {

RunModel::RunModel(const Scenario& scenario, const std::shared_ptr<const DataBundle>& data)
    : spec_(scenario.model), channels_(data->train.channels), height_(data->train.height),
      width_(data->train.width), classes_(data->train.classes) {
    if (scenario.model.kind != ModelSpec::Kind::None) {
        learner_ = std::make_unique<Learner>(scenario.model, data->train, data->test, scenario.training.backend);
        initial_ = std::make_shared<Params>(learner_->initialParameters(scenario.seed));
        if (LocalJobTap* tap = localJobTap()) tap->trainingData(data);
    } else {
        initial_ = std::make_shared<Params>();
    }
    wireBytes_ = scenario.model.wireBytes > 0 ? scenario.model.wireBytes
                                              : 4.0 * static_cast<double>(learner_ ? learner_->parameterCount() : 0);
}

double RunModel::flopsPerSample() const {
    if (flopsPerSample_ <= 0) flopsPerSample_ = modelTrainingFlops(spec_, channels_, height_, width_, classes_);
    return flopsPerSample_;
}

} // namespace fog
