// CIFAR-10's binary format (https://www.cs.toronto.edu/~kriz/cifar.html, "binary version"):
// each record is one label byte and 3072 pixel bytes, the red, green and blue 32 x 32
// planes in turn. Users bring the files; nothing is downloaded.

#include "core/data/dataset.h"
#include "core/data/regular_file.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

namespace fog {

namespace {

constexpr int kSide = 32;
constexpr int kPlane = kSide * kSide;
// Per-channel mean and std of CIFAR-10's training set (pixels in [0, 1]), as torchvision's
// examples use them.
constexpr float kMean[3] = {0.4914f, 0.4822f, 0.4465f};
constexpr float kStd[3] = {0.2470f, 0.2435f, 0.2616f};
/// At most 2^28 pixel values in all (as for IDX files): 87,381 images, 1 GiB as floats.
constexpr std::uint64_t kMaxRecords = kMaxIdxPixels / (3 * kPlane);

} // namespace

Dataset readCifar10(const std::vector<std::string>& paths) {
    if (paths.empty()) throw DataError("CIFAR-10 data: no file given");
    // Sizes first: every file a whole number of records, the total within the limit.
    std::uint64_t records = 0;
    for (const auto& p : paths) {
        FileStamp st;
        const std::string why = checkRegularFile(p, &st);
        if (!why.empty()) throw DataError(p + ": cannot open: " + why);
        if (st.size == 0 || st.size % kCifarRecordBytes != 0)
            throw DataError(p + ": " + std::to_string(st.size) +
                            " bytes is not a whole number of CIFAR-10 records (" +
                            std::to_string(kCifarRecordBytes) +
                            " bytes each: a label byte and 3 x 32 x 32 pixels); is it the "
                            "binary version (cifar-10-batches-bin)?");
        records += st.size / kCifarRecordBytes;
    }
    if (records > kMaxRecords)
        throw DataError(paths.front() + ": " + std::to_string(records) + " CIFAR-10 images in all; at most " +
                        std::to_string(kMaxRecords) + " are read (1 GiB as floats): use fewer files");

    Dataset d;
    d.channels = 3;
    d.height = d.width = kSide;
    d.classes = 10;
    d.features.resize(records * 3 * kPlane);
    d.labels.resize(records);
    std::vector<unsigned char> buffer(kCifarRecordBytes * 256);
    std::uint64_t at = 0;
    for (const auto& p : paths) {
        RegularFile f(p);
        if (!f.ok()) throw DataError(p + ": cannot open: " + f.error());
        if (f.size() % kCifarRecordBytes != 0 || at + f.size() / kCifarRecordBytes > records)
            throw DataError(p + ": changed while being read");
        const std::uint64_t first = at, end = at + f.size() / kCifarRecordBytes;
        while (at < end) {
            const std::uint64_t batch = std::min<std::uint64_t>(256, end - at);
            const std::size_t want = static_cast<std::size_t>(batch * kCifarRecordBytes);
            std::size_t got = 0;
            while (got < want) {
                const long long n = f.read(buffer.data() + got, want - got);
                if (n < 0) throw DataError(p + ": read error: " + std::strerror(errno));
                if (n == 0) throw DataError(p + ": ended early (changed while being read)");
                got += static_cast<std::size_t>(n);
            }
            for (std::uint64_t r = 0; r < batch; ++r, ++at) {
                const unsigned char* rec = buffer.data() + r * kCifarRecordBytes;
                if (rec[0] > 9)
                    throw DataError(p + ": record " + std::to_string(at - first + 1) + " (byte offset " +
                                    std::to_string((at - first) * kCifarRecordBytes) + "): label " +
                                    std::to_string(rec[0]) + " is not a CIFAR-10 class (0..9)");
                d.labels[at] = rec[0];
                float* out = d.features.data() + at * 3 * kPlane;
                for (int c = 0; c < 3; ++c)
                    for (int i = 0; i < kPlane; ++i)
                        out[c * kPlane + i] = (static_cast<float>(rec[1 + c * kPlane + i]) / 255.0f - kMean[c]) / kStd[c];
            }
        }
    }
    return d;
}

std::vector<std::string> cifarTrainFiles(const std::string& dir) {
    std::vector<std::string> out;
    for (int k = 1; k <= 5; ++k) {
        const std::string p = (std::filesystem::path(dir) / ("data_batch_" + std::to_string(k) + ".bin")).string();
        std::error_code ec;
        if (std::filesystem::is_regular_file(p, ec)) out.push_back(p);
    }
    if (out.empty())
        throw DataError("CIFAR-10 data: no data_batch_1.bin .. data_batch_5.bin in " + dir +
                        " (the binary version, cifar-10-batches-bin; or give data.train and data.test)");
    return out;
}

std::string cifarTestFile(const std::string& dir) {
    const std::string p = (std::filesystem::path(dir) / "test_batch.bin").string();
    std::error_code ec;
    if (!std::filesystem::is_regular_file(p, ec))
        throw DataError("CIFAR-10 data: no test_batch.bin in " + dir + " (or give data.test)");
    return p;
}

} // namespace fog
