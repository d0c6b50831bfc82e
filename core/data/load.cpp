// loadData: reads or generates a scenario's data, trims it to the requested size and
// partitions the training set over the trainers.
//
// Each random step has its own stream derived from the seed and a fixed name, so e.g. the
// partition stays the same when the test subset size changes.

#include "core/data/dataset.h"

#include "core/data/regular_file.h"
#include "core/util/random.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <mutex>
#include <tuple>

namespace fog {

namespace {

const std::uint64_t kStreamTrainSubset = hashName("data.trainSubset");
const std::uint64_t kStreamTestSubset = hashName("data.testSubset");
const std::uint64_t kStreamPartition = hashName("data.partition");
const std::uint64_t kStreamSynthetic = hashName("data.synthetic");

bool exists(const std::string& path) {
    std::error_code ec;
    return std::filesystem::is_regular_file(path, ec);
}

/// `name`.gz in `dir`, or `name` itself when only the unpacked file is there.
std::string findIdx(const std::string& dir, const std::string& name) {
    const std::filesystem::path base(dir);
    const std::string gz = (base / (name + ".gz")).string();
    if (exists(gz)) return gz;
    const std::string plain = (base / name).string();
    if (exists(plain)) return plain;
    throw DataError("Fashion-MNIST file " + name + "(.gz) not found in " + dir +
                    " (install the Debian package dataset-fashion-mnist, or set the data "
                    "folder of the scenario)");
}

/// The label file beside an image file named in the usual way (…-images-idx3-ubyte…).
std::string labelsBeside(const std::string& imagesPath, const std::string& given,
                         const char* which) {
    if (!given.empty()) return given;
    std::filesystem::path p(imagesPath);
    std::string name = p.filename().string();
    const auto at = name.find("images-idx3");
    if (at != std::string::npos) {
        name.replace(at, 11, "labels-idx1");
        const std::string guess = (p.parent_path() / name).string();
        if (exists(guess)) return guess;
    }
    throw DataError(std::string("IDX data: no label file given for the ") + which + " images " +
                    imagesPath);
}

/// Keeps a seeded random subset of `keep` samples, in their original order.
void subset(Dataset& d, int keep, std::uint64_t seed) {
    if (keep <= 0 || static_cast<std::size_t>(keep) >= d.size()) return;
    const std::vector<std::int64_t> order = subsetIndices(d.size(), keep, seed);

    const auto f = static_cast<std::size_t>(d.featureCount());
    std::vector<float> features(order.size() * f);
    std::vector<std::int64_t> labels(order.size());
    for (std::size_t k = 0; k < order.size(); ++k) {
        const auto i = static_cast<std::size_t>(order[k]);
        labels[k] = d.labels[i];
        if (f > 0 && !d.features.empty())
            std::copy_n(d.features.begin() + i * f, f, features.begin() + k * f);
    }
    if (d.features.empty()) features.clear();
    d.features = std::move(features);
    d.labels = std::move(labels);
}

void checkSameShape(const Dataset& train, const Dataset& test, const std::string& trainName,
                    const std::string& testName) {
    if (train.channels != test.channels || train.height != test.height || train.width != test.width)
        throw DataError("train and test data differ in shape: " + trainName + " has " +
                        std::to_string(train.featureCount()) + " features per sample (" +
                        std::to_string(train.height) + "x" + std::to_string(train.width) + "), " +
                        testName + " has " + std::to_string(test.featureCount()) + " (" +
                        std::to_string(test.height) + "x" + std::to_string(test.width) + ")");
}

/// The spec with every path resolved against its base folder.
DataSpec resolved(const DataSpec& spec) {
    DataSpec r = spec;
    r.dir = resolveDataPath(spec, spec.dir);
    r.trainPath = resolveDataPath(spec, spec.trainPath);
    r.testPath = resolveDataPath(spec, spec.testPath);
    r.trainLabelsPath = resolveDataPath(spec, spec.trainLabelsPath);
    r.testLabelsPath = resolveDataPath(spec, spec.testLabelsPath);
    r.baseDir.clear();
    return r;
}

/// Probe results per file, valid while the files keep their size and modification time.
template <class Shape> class ProbeCache {
  public:
    /// `tag`: what else the probe depends on (a column), part of the key.
    template <class F> Shape get(const std::vector<std::string>& files, F&& probe, const std::string& tag = {}) {
        std::vector<FileStamp> stamps;
        for (const auto& f : files) {
            FileStamp st;
            checkRegularFile(f, &st); // a failure leaves a zero stamp; probe() then reports it
            stamps.push_back(st);
        }
        std::vector<std::string> key = files;
        key.push_back(tag);
        {
            std::lock_guard lock(mutex_);
            auto it = cache_.find(key);
            if (it != cache_.end() && it->second.first == stamps) return it->second.second;
        }
        Shape shape = probe(); // throws DataError: failures are not cached
        std::lock_guard lock(mutex_);
        if (cache_.size() > 64) cache_.clear();
        cache_[key] = {stamps, shape};
        return shape;
    }

  private:
    std::mutex mutex_;
    std::map<std::vector<std::string>, std::pair<std::vector<FileStamp>, Shape>> cache_;
};

IdxShape cachedIdx(const std::string& images, const std::string& labels) {
    static ProbeCache<IdxShape> cache;
    return cache.get({images, labels}, [&] { return probeIdx(images, labels); });
}

CsvShape cachedCsv(const std::string& path, int clientColumn = 0) {
    static ProbeCache<CsvShape> cache;
    return cache.get({path}, [&] { return probeCsv(path, clientColumn); }, std::to_string(clientColumn));
}

LeafShape cachedLeaf(const std::string& path) {
    static ProbeCache<LeafShape> cache;
    return cache.get({path}, [&] { return probeLeaf(path); });
}

} // namespace

std::string resolveDataPath(const DataSpec& spec, const std::string& path) {
    if (path.empty() || spec.baseDir.empty()) return path;
    const std::filesystem::path p(path);
    if (p.is_absolute()) return path;
    return (std::filesystem::path(spec.baseDir) / p).lexically_normal().string();
}

DataSpec withAbsoluteDataPaths(const DataSpec& spec) {
    DataSpec r = resolved(spec);
    for (std::string* p :
         {&r.dir, &r.trainPath, &r.testPath, &r.trainLabelsPath, &r.testLabelsPath}) {
        if (p->empty()) continue;
        std::error_code ec;
        const auto abs = std::filesystem::absolute(*p, ec);
        if (!ec) *p = abs.lexically_normal().string();
    }
    return r;
}

DataFacts probeData(const DataSpec& given) {
    using K = DataSpec::Kind;
    const DataSpec spec = resolved(given);
    DataFacts facts;
    // Which key a file came from, for placing a problem at it.
    auto keyOf = [&](const std::string& file) -> std::string {
        if (!spec.trainPath.empty() && file == spec.trainPath) return "train";
        if (!spec.testPath.empty() && file == spec.testPath) return "test";
        if (!spec.trainLabelsPath.empty() && file == spec.trainLabelsPath) return "train_labels";
        if (!spec.testLabelsPath.empty() && file == spec.testLabelsPath) return "test_labels";
        return spec.kind == K::FashionMnist || !spec.dir.empty() ? "dir" : "train";
    };
    try {
        switch (spec.kind) {
        case K::FashionMnist:
        case K::Idx: {
            std::string trainImages = spec.trainPath, testImages = spec.testPath;
            const std::string dir = spec.kind == K::FashionMnist && spec.dir.empty()
                                        ? defaultFashionMnistDir()
                                        : spec.dir;
            if (spec.kind == K::FashionMnist) {
                trainImages = findIdx(dir, "train-images-idx3-ubyte");
                testImages = findIdx(dir, "t10k-images-idx3-ubyte");
            }
            if (trainImages.empty() && !dir.empty())
                trainImages = findIdx(dir, "train-images-idx3-ubyte");
            if (testImages.empty() && !dir.empty())
                testImages = findIdx(dir, "t10k-images-idx3-ubyte");
            if (trainImages.empty() || testImages.empty())
                return facts; // reported by the validator
            const std::string trainLabels =
                spec.kind == K::FashionMnist
                    ? findIdx(dir, "train-labels-idx1-ubyte")
                    : labelsBeside(trainImages, spec.trainLabelsPath, "training");
            const std::string testLabels =
                spec.kind == K::FashionMnist
                    ? findIdx(dir, "t10k-labels-idx1-ubyte")
                    : labelsBeside(testImages, spec.testLabelsPath, "test");
            IdxShape train, test;
            try {
                train = cachedIdx(trainImages, trainLabels);
            } catch (const DataError& e) {
                facts.problems.push_back({keyOf(trainImages), e.what()});
            }
            try {
                test = cachedIdx(testImages, testLabels);
            } catch (const DataError& e) {
                facts.problems.push_back({keyOf(testImages), e.what()});
            }
            if (!facts.problems.empty()) return facts;
            if (train.rows != test.rows || train.cols != test.cols) {
                facts.problems.push_back(
                    {keyOf(testImages), "train and test data differ in shape: " + trainImages +
                                            " has " + std::to_string(train.rows) + "x" +
                                            std::to_string(train.cols) + " images, " + testImages +
                                            " " + std::to_string(test.rows) + "x" +
                                            std::to_string(test.cols)});
                return facts;
            }
            facts.train = train.count;
            facts.test = test.count;
            facts.features = train.rows * train.cols;
            facts.height = train.rows;
            facts.width = train.cols;
            facts.known = true;
            return facts;
        }
        case K::Csv: {
            if (spec.trainPath.empty() || spec.testPath.empty()) return facts;
            CsvShape train, test;
            try {
                train = cachedCsv(spec.trainPath, spec.clientColumn);
            } catch (const DataError& e) {
                facts.problems.push_back({"train", e.what()});
            }
            try {
                test = cachedCsv(spec.testPath);
            } catch (const DataError& e) {
                facts.problems.push_back({"test", e.what()});
            }
            if (!facts.problems.empty()) return facts;
            if (train.features != test.features) {
                facts.problems.push_back(
                    {"test", "train and test data differ in shape: " + spec.trainPath + " has " +
                                 std::to_string(train.features) + " features per sample, " +
                                 spec.testPath + " has " + std::to_string(test.features)});
                return facts;
            }
            facts.train = train.rows;
            facts.test = test.rows;
            facts.writers = train.clients;
            // A client column is not a feature.
            facts.features = train.features - (spec.clientColumn > 0 ? 1 : 0);
            facts.width = facts.features;
            facts.known = true;
            return facts;
        }
        case K::Cifar10: {
            std::vector<std::string> train;
            std::string test = spec.testPath;
            if (!spec.trainPath.empty()) train = {spec.trainPath};
            else if (!spec.dir.empty()) train = cifarTrainFiles(spec.dir);
            if (test.empty() && !spec.dir.empty()) test = cifarTestFile(spec.dir);
            if (train.empty() || test.empty()) return facts; // reported by the validator
            auto records = [&](const std::string& file, const char* key) -> std::uint64_t {
                FileStamp st;
                const std::string why = checkRegularFile(file, &st);
                if (!why.empty()) {
                    facts.problems.push_back({key, file + ": cannot open: " + why});
                    return 0;
                }
                if (st.size == 0 || st.size % kCifarRecordBytes != 0)
                    facts.problems.push_back({key, file + ": " + std::to_string(st.size) +
                                                       " bytes is not a whole number of CIFAR-10 records (" +
                                                       std::to_string(kCifarRecordBytes) + " bytes each)"});
                return st.size / kCifarRecordBytes;
            };
            for (const auto& f : train) facts.train += records(f, spec.trainPath.empty() ? "dir" : "train");
            facts.test = records(test, spec.testPath.empty() ? "dir" : "test");
            if (!facts.problems.empty()) return facts;
            facts.features = 3 * 32 * 32;
            facts.channels = 3;
            facts.height = facts.width = 32;
            facts.known = true;
            return facts;
        }
        case K::Leaf: {
            // The users, their counts and the first sample's shape (the first pass of readLeaf).
            LeafShape train, test;
            for (auto [key, file, shape] : {std::tuple{"train", spec.trainPath, &train},
                                            std::tuple{"test", spec.testPath, &test}}) {
                if (file.empty()) continue; // reported by the validator
                try {
                    *shape = cachedLeaf(file);
                } catch (const DataError& e) {
                    facts.problems.push_back({key, e.what()});
                }
            }
            if (!facts.problems.empty() || spec.trainPath.empty() || spec.testPath.empty()) return facts;
            if (train.known && test.known && (train.height != test.height || train.width != test.width)) {
                facts.problems.push_back({"test", "train and test data differ in shape: " + spec.trainPath +
                                                      " has samples of " + std::to_string(train.height) + "x" +
                                                      std::to_string(train.width) + ", " + spec.testPath + " " +
                                                      std::to_string(test.height) + "x" + std::to_string(test.width)});
                return facts;
            }
            facts.train = train.samples;
            facts.test = test.samples;
            facts.writers = train.writers;
            if (train.known) {
                facts.height = train.height;
                facts.width = train.width;
                facts.features = train.height * train.width;
            }
            facts.known = true;
            return facts;
        }
        case K::Synthetic:
        case K::None:
            return facts;
        }
    } catch (const DataError& e) { // a file not found by name (findIdx, labelsBeside)
        const std::string what = e.what();
        facts.problems.push_back({what.find("label file") == std::string::npos ? "dir"
                                  : what.find("the test images") != std::string::npos
                                      ? "test_labels"
                                      : "train_labels",
                                  what});
    }
    return facts;
}

std::vector<std::int64_t> subsetIndices(std::size_t n, int keep, std::uint64_t seed) {
    if (keep > 0 && static_cast<std::size_t>(keep) < n && n > kLargeSubsetSource) {
        // A shuffle of every index would take 8 bytes per sample of the file (2 GiB for a
        // 1 GiB CSV of short rows): Floyd's sampling draws the same kind of uniform subset
        // holding one bit per sample and the `keep` indices chosen.
        Rng rng(seed);
        std::vector<bool> chosen(n);
        for (std::size_t j = n - static_cast<std::size_t>(keep); j < n; ++j) {
            const auto t = static_cast<std::size_t>(rng.below(j + 1));
            chosen[chosen[t] ? j : t] = true;
        }
        std::vector<std::int64_t> out;
        out.reserve(static_cast<std::size_t>(keep));
        for (std::size_t i = 0; i < n; ++i)
            if (chosen[i]) out.push_back(static_cast<std::int64_t>(i));
        return out;
    }
    std::vector<std::int64_t> order(n);
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = static_cast<std::int64_t>(i);
    if (keep <= 0 || static_cast<std::size_t>(keep) >= n) return order;
    Rng rng(seed);
    rng.shuffle(order);
    order.resize(static_cast<std::size_t>(keep));
    std::sort(order.begin(), order.end());
    return order;
}

DataBundle loadData(const DataSpec& given, const std::vector<double>& trainerWeights,
                    std::uint64_t seed) {
    const int trainers = static_cast<int>(trainerWeights.size());
    if (trainers < 1) throw DataError("data: the scenario has no trainers to hold data");
    const DataSpec spec = resolved(given);

    DataBundle b;
    std::vector<std::string> clients;                 // Csv with a client column: per sample
    std::vector<std::string> writers;                 // Leaf: the users
    std::vector<std::vector<std::int64_t>> writerParts; // Leaf: their samples
    switch (spec.kind) {
    case DataSpec::Kind::FashionMnist: {
        const std::string dir = spec.dir.empty() ? defaultFashionMnistDir() : spec.dir;
        // Only the subsets max_train_samples / max_test_samples keep are held (subset() below
        // then has nothing left to do): the same samples as subsetting afterwards.
        b.train = readIdx(findIdx(dir, "train-images-idx3-ubyte"), findIdx(dir, "train-labels-idx1-ubyte"), true,
                          spec.maxTrainSamples, deriveSeed(seed, kStreamTrainSubset));
        b.test = readIdx(findIdx(dir, "t10k-images-idx3-ubyte"), findIdx(dir, "t10k-labels-idx1-ubyte"), true,
                         spec.maxTestSamples, deriveSeed(seed, kStreamTestSubset));
        // Fashion-MNIST has ten classes even if a (sub)set happens to miss the last ones.
        b.train.classes = std::max(b.train.classes, 10);
        break;
    }
    case DataSpec::Kind::Idx: {
        std::string trainImages = spec.trainPath, testImages = spec.testPath;
        // Without explicit files, a folder with the four standard names will do.
        if (trainImages.empty() && !spec.dir.empty())
            trainImages = findIdx(spec.dir, "train-images-idx3-ubyte");
        if (testImages.empty() && !spec.dir.empty())
            testImages = findIdx(spec.dir, "t10k-images-idx3-ubyte");
        if (trainImages.empty() || testImages.empty())
            throw DataError("IDX data: both a training and a test image file are required");
        b.train = readIdx(trainImages, labelsBeside(trainImages, spec.trainLabelsPath, "training"), true,
                          spec.maxTrainSamples, deriveSeed(seed, kStreamTrainSubset));
        b.test = readIdx(testImages, labelsBeside(testImages, spec.testLabelsPath, "test"), true,
                         spec.maxTestSamples, deriveSeed(seed, kStreamTestSubset));
        checkSameShape(b.train, b.test, trainImages, testImages);
        break;
    }
    case DataSpec::Kind::Csv:
        if (spec.trainPath.empty() || spec.testPath.empty())
            throw DataError("CSV data: both a training and a test file are required");
        // As for IDX, only what max_train_samples / max_test_samples keep is held (the
        // natural partition keeps every writer's samples, so it reads the whole file).
        b.train = readCsv(spec.trainPath, spec.clientColumn, &clients,
                          spec.partition.kind == PartitionSpec::Kind::Natural ? 0 : spec.maxTrainSamples,
                          deriveSeed(seed, kStreamTrainSubset));
        b.test = readCsv(spec.testPath, spec.clientColumn, nullptr, spec.maxTestSamples,
                         deriveSeed(seed, kStreamTestSubset));
        checkSameShape(b.train, b.test, spec.trainPath, spec.testPath);
        break;
    case DataSpec::Kind::Cifar10: {
        std::vector<std::string> train;
        if (!spec.trainPath.empty()) train = {spec.trainPath};
        else if (!spec.dir.empty()) train = cifarTrainFiles(spec.dir);
        const std::string test = !spec.testPath.empty() ? spec.testPath
                                 : !spec.dir.empty()    ? cifarTestFile(spec.dir)
                                                        : std::string();
        if (train.empty() || test.empty())
            throw DataError("CIFAR-10 data: give data.dir (cifar-10-batches-bin) or data.train and data.test");
        b.train = readCifar10(train);
        b.test = readCifar10({test});
        break;
    }
    case DataSpec::Kind::Leaf: {
        if (spec.trainPath.empty() || spec.testPath.empty())
            throw DataError("LEAF data: both a training and a test file are required");
        LeafData train = readLeaf(spec.trainPath);
        b.test = readLeaf(spec.testPath).data;
        b.train = std::move(train.data);
        checkSameShape(b.train, b.test, spec.trainPath, spec.testPath);
        writers = std::move(train.writers);
        writerParts = std::move(train.parts);
        break;
    }
    case DataSpec::Kind::Synthetic:
        // Already split per device; the size limits do not apply (devices are capped).
        return makeSynthetic(spec, trainers, deriveSeed(seed, kStreamSynthetic));
    case DataSpec::Kind::None: {
        // Timing-only runs: no samples, only how many each trainer would hold.
        if (spec.samplesPerTrainer < 0) throw DataError("data: samplesPerTrainer must be >= 0");
        b.train.width = b.test.width = 0;
        std::vector<std::int64_t> held(static_cast<std::size_t>(spec.samplesPerTrainer));
        for (std::size_t i = 0; i < held.size(); ++i)
            held[i] = static_cast<std::int64_t>(i);
        b.parts.assign(static_cast<std::size_t>(trainers), held);
        return b;
    }
    }
    // Train and test must agree on the label space (a small test set may miss a class).
    b.train.classes = b.test.classes = std::max(b.train.classes, b.test.classes);

    const bool natural = spec.partition.kind == PartitionSpec::Kind::Natural;
    if (!natural) subset(b.train, spec.maxTrainSamples, deriveSeed(seed, kStreamTrainSubset));
    subset(b.test, spec.maxTestSamples, deriveSeed(seed, kStreamTestSubset));

    const PartitionSpec& p = spec.partition;
    const std::uint64_t ps = deriveSeed(seed, kStreamPartition);
    switch (p.kind) {
    case PartitionSpec::Kind::Iid:
        b.parts = partitionIid(b.train.size(), trainers, ps);
        break;
    case PartitionSpec::Kind::Dirichlet:
        b.parts = partitionDirichlet(b.train.labels, b.train.classes, trainers, p.alpha,
                                     p.minPerClient, ps);
        break;
    case PartitionSpec::Kind::Shards:
        b.parts = partitionShards(b.train.labels, trainers, p.shardsPerClient, ps);
        break;
    case PartitionSpec::Kind::QuantitySkew:
        b.parts = partitionQuantitySkew(b.train.size(), trainerWeights, p.sigma, ps);
        break;
    case PartitionSpec::Kind::Natural: {
        // One trainer per writer: LEAF's users, or the CSV client column's ids in the order
        // they first appear.
        if (spec.kind == DataSpec::Kind::Csv && spec.clientColumn > 0) {
            std::map<std::string, std::size_t> index;
            for (std::size_t i = 0; i < clients.size(); ++i) {
                auto [it, added] = index.emplace(clients[i], writers.size());
                if (added) {
                    writers.push_back(clients[i]);
                    writerParts.emplace_back();
                }
                writerParts[it->second].push_back(static_cast<std::int64_t>(i));
            }
        } else if (spec.kind != DataSpec::Kind::Leaf) {
            throw DataError("data: the 'natural' partition needs data that name their writers: "
                            "synthetic or LEAF data, or a CSV file with data.client_column; choose "
                            "iid, dirichlet, shards or quantity skew for this data set");
        }
        const std::string source = spec.kind == DataSpec::Kind::Leaf ? "the LEAF file " + spec.trainPath + " has "
                                                                     : "the client column of " + spec.trainPath + " names ";
        if (writers.size() != static_cast<std::size_t>(trainers))
            throw DataError("data: " + source + std::to_string(writers.size()) + " writers but the topology has " +
                            std::to_string(trainers) + " trainers; a natural partition gives each writer one "
                            "trainer (set the devices' group count to " + std::to_string(writers.size()) + ")");
        b.parts = std::move(writerParts);
        b.writers = std::move(writers);
        b.natural = true;
        break;
    }
    }
    return b;
}

DataBundle loadData(const DataSpec& spec, int trainers, std::uint64_t seed) {
    if (trainers < 1) throw DataError("data: the scenario has no trainers to hold data");
    return loadData(spec, std::vector<double>(static_cast<std::size_t>(trainers), 1.0), seed);
}

} // namespace fog
