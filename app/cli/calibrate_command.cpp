// `fogstudio-cli calibrate MODEL [SHAPE]`: this machine's training speed for a model, in
// samples/s and FLOP/s (core/model/calibrate.h; docs/own-model.md, "Compute in FLOP/s").

#include "app/cli/commands.h"

#include "core/data/dataset.h"
#include "core/model/calibrate.h"
#include "core/model/learner.h"
#include "core/model/torchscript_model.h"
#include "core/scenario/scenario_io.h"
#include "core/scenario/yaml_reader.h"

#include <QRegularExpression>

#include <cstdio>
#include <iostream>

namespace fog::cli {

namespace {

std::string si(double v, const char* unit) {
    const char* prefixes[] = {"", "k", "M", "G", "T", "P"};
    int k = 0;
    while (v >= 1000.0 && k < 5) {
        v /= 1000.0;
        ++k;
    }
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3g %s%s", v, prefixes[k], unit);
    return buf;
}

} // namespace

int cmdCalibrate(const CliOptions& o, bool quick) {
    if (o.args.isEmpty()) {
        std::cerr << "fogstudio-cli: calibrate needs a MODEL: logreg, mlp, cnn, a TorchScript file (.pt) or "
                     "a scenario (.yaml)\nTry 'fogstudio-cli --help'.\n";
        return 2;
    }
    const QString model = o.args.value(0);
    ModelSpec spec;
    int channels = 1, height = 28, width = 28, classes = 10, batch = 10;
    try {
        if (model.endsWith(".yaml") || model.endsWith(".yml")) {
            std::vector<Override> sets;
            for (const auto& s : o.sets) sets.push_back(parseOverride(s.toStdString()));
            const Scenario s = loadScenarioFile(model.toStdString(), sets);
            spec = s.model;
            batch = s.training.batchSize;
            if (s.data.kind == DataSpec::Kind::Synthetic) {
                height = 1;
                width = s.data.syntheticFeatures;
                classes = s.data.syntheticClasses;
            } else if (s.data.kind != DataSpec::Kind::FashionMnist) {
                const DataFacts f = probeData(s.data);
                if (!f.known) throw DataError("calibrate: the scenario's data cannot be read");
                channels = f.channels;
                height = f.height;
                width = f.width;
            }
        } else if (model == "logreg" || model == "mlp" || model == "cnn") {
            spec.kind = model == "logreg" ? ModelSpec::Kind::LogReg
                        : model == "mlp"  ? ModelSpec::Kind::Mlp
                                          : ModelSpec::Kind::Cnn;
        } else {
            spec.kind = ModelSpec::Kind::TorchScript;
            spec.path = model.toStdString();
        }
        if (o.args.size() > 1) { // SHAPE: CxHxW or F, then :CLASSES
            static const QRegularExpression re(R"(^(?:(\d+)x(\d+)x(\d+)|(\d+))(?::(\d+))?$)");
            const auto m = re.match(o.args.value(1));
            if (!m.hasMatch()) {
                std::cerr << "fogstudio-cli: calibrate: SHAPE is CxHxW (images, e.g. 3x32x32) or a feature count "
                             "(e.g. 60), optionally followed by :CLASSES (default 10)\n";
                return 2;
            }
            if (m.captured(4).isEmpty()) {
                channels = m.captured(1).toInt();
                height = m.captured(2).toInt();
                width = m.captured(3).toInt();
            } else {
                channels = height = 1;
                width = m.captured(4).toInt();
            }
            if (!m.captured(5).isEmpty()) classes = m.captured(5).toInt();
            if (channels < 1 || channels > 64 || height < 1 || height > 4096 || width < 1 || width > 1 << 20 ||
                classes < 2 || classes > 10000) {
                std::cerr << "fogstudio-cli: calibrate: SHAPE out of range (channels 1..64, sides up to 4096, "
                             "2..10000 classes)\n";
                return 2;
            }
        }
        if (spec.kind == ModelSpec::Kind::None) {
            std::cerr << "fogstudio-cli: calibrate: the scenario's model is none (timing only): nothing to train\n";
            return 1;
        }
        const CalibrationResult r = calibrateModel(spec, channels, height, width, classes, batch, quick ? 0.5 : 3.0);
        const std::string shape = height > 1 ? std::to_string(channels) + "x" + std::to_string(height) + "x" +
                                                   std::to_string(width)
                                             : std::to_string(width) + " features";
        if (o.json) {
            std::printf("{\"model\": \"%s\", \"input\": \"%s\", \"classes\": %d, \"batch\": %d, \"parameters\": %lld, "
                        "\"training_flops_per_sample\": %.17g, \"samples_per_second\": %.6g, "
                        "\"flops_per_second\": %.6g, \"seconds\": %.3f, \"samples\": %lld}\n",
                        toString(spec.kind), shape.c_str(), classes, batch, static_cast<long long>(r.parameters),
                        r.trainingFlopsPerSample, r.samplesPerSecond, r.flopsPerSecond, r.seconds,
                        static_cast<long long>(r.samples));
            return 0;
        }
        std::cout << "model: " << toString(spec.kind) << (spec.path.empty() ? "" : " " + spec.path) << ", input "
                  << shape << ", " << classes << " classes: " << formatNumber(double(r.parameters))
                  << " parameters, " << si(r.trainingFlopsPerSample, "FLOP") << " per training sample"
                  << " (3 x forward)\n";
        for (const auto& l : r.summary.layers) {
            std::string shape;
            for (std::size_t i = 0; i < l.weightShape.size(); ++i)
                shape += (i ? "x" : "") + std::to_string(l.weightShape[i]);
            std::cout << "  " << l.name << "  " << l.kind << "  weight " << shape << "  "
                      << formatNumber(double(l.parameters)) << " parameters\n";
        }
        std::cout << "this machine, one thread, batch " << batch << ": " << formatNumber(std::round(r.samplesPerSecond))
                  << " samples/s = " << si(r.flopsPerSecond, "FLOP/s") << " (" << r.samples << " samples in "
                  << std::round(r.seconds * 100) / 100 << " s; a wall-clock measurement, it varies)\n"
                  << "a node like it: compute: {throughput: " << formatNumber(std::round(r.samplesPerSecond))
                  << "} for this model, or compute: {flops: " << formatNumber(std::round(r.flopsPerSecond / 1e6) * 1e6)
                  << "} for any model\n";
        return 0;
    } catch (const std::exception& e) {
        std::cerr << "fogstudio-cli: calibrate: " << e.what() << "\n";
        return 1;
    }
}

} // namespace fog::cli
