#pragma once
// Data sets as plain arrays (no LibTorch here: core/model turns them into tensors), and the
// partition of a training set over trainers.

#include "core/spec/scenario.h"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace fog {

/// Row-major samples: features has size() * featureCount() floats, labels size() ints.
struct Dataset {
    std::vector<float> features;
    std::vector<std::int64_t> labels;
    int channels = 1; ///< image shape when the data are images (channels x height x width)
    int height = 1;
    int width = 0;
    int classes = 10;

    std::size_t size() const { return labels.size(); }
    int featureCount() const { return channels * height * width; }
    bool isImage() const { return height > 1; }
};

struct DataBundle {
    Dataset train;
    Dataset test;
    /// Sample indices into `train` for each trainer, in trainer order.
    std::vector<std::vector<std::int64_t>> parts;
    /// Natural per-trainer data (synthetic sets come already split): empty otherwise.
    bool natural = false;
    /// Natural partitions from writers (LEAF users, a CSV client column): each part's writer.
    std::vector<std::string> writers;
};

/// Thrown for unreadable or malformed data files; the message names the file.
struct DataError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// Limits on IDX files, checked against the header before anything is allocated: sides of at
/// most 16384 pixels and 2^28 pixels in all (1 GiB as floats; Fashion-MNIST has 47 million).
inline constexpr std::uint32_t kMaxIdxSide = 16384;
inline constexpr std::uint64_t kMaxIdxPixels = std::uint64_t(1) << 28;
/// Largest CSV data file read (1 GiB), and the largest label (so at most 10,000 classes).
inline constexpr std::uint64_t kMaxCsvBytes = std::uint64_t(1) << 30;
inline constexpr std::int64_t kMaxLabel = 9999;
/// Most samples held from one CSV data file (labels take 8 bytes each).
inline constexpr std::uint64_t kMaxCsvSamples = std::uint64_t(1) << 24;
/// Longest CSV line (16 MiB): a row of 100,000 features is a few MB.
inline constexpr std::size_t kMaxCsvLineBytes = std::size_t(16) << 20;

/// Reads an IDX image file and its label file (plain or .gz). Only regular files; the
/// header is checked against the file's length before any allocation. Messages never quote
/// the file's bytes. Pixels are scaled to [0, 1]
/// and standardised with the Fashion-MNIST mean/std when `standardise` is true.
/// `keep` > 0: only the seeded subset subsetIndices(count, keep, seed) of the images is held
/// (all are inflated, one image at a time), so max_train_samples bounds the memory whatever
/// the file announces; labels and classes are those of the whole file's subset the same way.
Dataset readIdx(const std::string& imagesPath, const std::string& labelsPath,
                bool standardise = true, int keep = 0, std::uint64_t seed = 0);

/// The seeded random subset of `keep` of n samples that max_train_samples / max_test_samples
/// keep: sorted indices (all of them when keep <= 0 or keep >= n). Up to kLargeSubsetSource
/// samples the first `keep` of a seeded shuffle of all n; beyond, Floyd's sampling with the
/// same seed, holding a bit per sample (a shuffle of n would take 8 bytes per sample).
inline constexpr std::size_t kLargeSubsetSource = std::size_t(1) << 24;
std::vector<std::int64_t> subsetIndices(std::size_t n, int keep, std::uint64_t seed);

/// Shape of an IDX pair from its headers alone (the checks of readIdx, without the pixels).
struct IdxShape {
    std::uint64_t count = 0;
    int rows = 0;
    int cols = 0;
};
IdxShape probeIdx(const std::string& imagesPath, const std::string& labelsPath);

/// Reads a CSV file: one sample per line, label in the first column, features after it;
/// a first line that does not parse as numbers is taken as a header. Only regular files of
/// at most kMaxCsvBytes; labels 0 .. kMaxLabel. Messages name the line and column but never
/// quote the file's text.
Dataset readCsv(const std::string& path);

/// The same with a client column (1-based; 0: none), which is not a feature: `clients` gets
/// each sample's writer id (at most 200 bytes, not empty). A header is recognised by its
/// other columns not being numbers.
Dataset readCsv(const std::string& path, int clientColumn, std::vector<std::string>* clients);

/// The same, holding only the seeded subset subsetIndices(rows, keep, seed) of the data rows
/// when `keep` > 0 (every row is still checked; classes are the whole file's): memory follows
/// max_train_samples / max_test_samples, not the file's length. What is held is at most
/// kMaxCsvSamples samples and kMaxIdxPixels feature values.
Dataset readCsv(const std::string& path, int clientColumn, std::vector<std::string>* clients, int keep,
                std::uint64_t seed);

/// CIFAR-10's binary format (cifar-10-batches-bin): records of 1 label byte (0..9) and
/// 3 x 32 x 32 pixel bytes (red, green, blue planes, rows top to bottom). Each file's size
/// must be a whole number of records (checked before reading); pixels are scaled to [0, 1]
/// and standardised per channel with CIFAR-10's mean and std. Several files are concatenated.
inline constexpr std::uint64_t kCifarRecordBytes = 1 + 3 * 32 * 32;
Dataset readCifar10(const std::vector<std::string>& paths);
/// The training files of a CIFAR-10 folder (data_batch_1.bin .. data_batch_5.bin, those that
/// exist) and its test file (test_batch.bin); throws DataError naming what is missing.
std::vector<std::string> cifarTrainFiles(const std::string& dir);
std::string cifarTestFile(const std::string& dir);

/// LEAF's JSON format (FEMNIST, Sent140, ...): {"users": [...], "num_samples": [...],
/// "user_data": {user: {"x": [[features] ...], "y": [labels]}}}. Numeric features only (flat
/// lists, or nested lists of equal shape: [rows][cols] is read as a one-channel image); a flat
/// list of 784 is FEMNIST's 28 x 28 image. Every user's x and y must have num_samples entries
/// and the same shape; sizes are checked against the file length and kMaxIdxPixels before
/// anything is allocated. Samples come user by user in `users` order; `writers` gets the users
/// and `parts` their sample indices. Messages give file, line and column.
struct LeafData {
    Dataset data;
    std::vector<std::string> writers;
    std::vector<std::vector<std::int64_t>> parts;
};
LeafData readLeaf(const std::string& path);

/// What validation needs of a LEAF file without reading its samples: its users (writers),
/// their num_samples added up (both checked as readLeaf checks them, before anything is
/// allocated for the samples) and the first sample's shape as readLeaf takes it. Throws
/// DataError as readLeaf for a file it would refuse in its first pass.
struct LeafShape {
    std::uint64_t writers = 0;
    std::uint64_t samples = 0;
    bool known = false; ///< a first sample was found (its shape below)
    int height = 1;
    int width = 0;
};
LeafShape probeLeaf(const std::string& path);

/// Rows and columns of a CSV file without parsing its numbers (a header line is not
/// counted): for validation. With a client column (1 = the first; 0: none) also the number of
/// distinct clients (writers) it names. Throws DataError as readCsv for unreadable files.
struct CsvShape {
    std::uint64_t rows = 0;
    int features = 0;
    std::uint64_t clients = 0;
};
CsvShape probeCsv(const std::string& path, int clientColumn = 0);

/// `path` as the spec means it: relative paths resolve against spec.baseDir (the scenario
/// file's folder) when it is set; absolute paths and empty ones are returned as given.
std::string resolveDataPath(const DataSpec& spec, const std::string& path);

/// The spec with every path made absolute (against baseDir, else the working directory):
/// for storing a run's scenario, so that a re-run finds the same files from anywhere.
DataSpec withAbsoluteDataPaths(const DataSpec& spec);

/// What validation can learn about a scenario's data without loading it: the sizes behind
/// the partition and memory checks. Problems are (key, message) pairs, key being the data
/// key at fault (dir, train, test, train_labels, test_labels). Results are cached per file
/// (size and modification time), so validating on every edit stays cheap.
struct DataFacts {
    bool known = false;      ///< false when a file could not be read (see problems)
    std::uint64_t train = 0; ///< training samples in the files (before max_train_samples)
    std::uint64_t test = 0;
    int features = 0;
    int channels = 1; ///< sample shape: channels x height x width (height 1: not images)
    int height = 1;
    int width = 0;
    /// Writers of the training file (LEAF users; 0: not known or not that kind of data): a
    /// natural partition needs one trainer each.
    std::uint64_t writers = 0;
    std::vector<std::pair<std::string, std::string>> problems;
};
DataFacts probeData(const DataSpec& spec);

/// The folder of the Debian package dataset-fashion-mnist.
std::string defaultFashionMnistDir();

/// Loads (or generates) the data of a scenario and partitions it over `trainers` clients,
/// using `seed` for every random choice. Throws DataError with a clear message.
DataBundle loadData(const DataSpec& spec, int trainers, std::uint64_t seed);
/// As above with one weight per trainer (trainers = weights.size()): QuantitySkew sizes
/// follow the weights (times the log-normal draw); other partitions ignore them.
DataBundle loadData(const DataSpec& spec, const std::vector<double>& trainerWeights,
                    std::uint64_t seed);

/// Partitions: each returns, for each of `clients`, indices into `labels`.
std::vector<std::vector<std::int64_t>> partitionIid(std::size_t n, int clients, std::uint64_t seed);
std::vector<std::vector<std::int64_t>> partitionDirichlet(const std::vector<std::int64_t>& labels,
                                                          int classes, int clients, double alpha,
                                                          int minPerClient, std::uint64_t seed);
std::vector<std::vector<std::int64_t>> partitionShards(const std::vector<std::int64_t>& labels,
                                                       int clients, int shardsPerClient,
                                                       std::uint64_t seed);
/// Client sizes proportional to `weights` times a log-normal(0, sigma) draw (sigma 0: just
/// the weights); samples themselves are IID.
std::vector<std::vector<std::int64_t>> partitionQuantitySkew(std::size_t n,
                                                             const std::vector<double>& weights,
                                                             double sigma, std::uint64_t seed);

/// FedProx Synthetic(alpha, beta) with one device per trainer; each device's samples are
/// split 90/10 into train and test; the bundle is natural (parts follow the devices).
DataBundle makeSynthetic(const DataSpec& spec, int trainers, std::uint64_t seed);

/// Label histogram of a set of samples (size = classes).
std::vector<double> labelHistogram(const Dataset& d, const std::vector<std::int64_t>& idx);

} // namespace fog
