// IDX reader (the format of MNIST and Fashion-MNIST), plain or gzip-compressed.
//
// Pixels are inflated in 1 MiB gzread chunks and each chunk is converted through a 256-entry
// lookup table straight into the float buffer, so the 47 MB of Fashion-MNIST training pixels
// are never held twice; the load time is then mostly zlib and first-touch page faults.

#include "core/data/dataset.h"
#include "core/data/regular_file.h"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>

#include <unistd.h>

#ifdef __linux__
#include <sys/mman.h>
#endif

namespace fog {

namespace {

constexpr std::uint32_t kImagesMagic = 0x00000803; // unsigned bytes, 3 dimensions
constexpr std::uint32_t kLabelsMagic = 0x00000801; // unsigned bytes, 1 dimension
// Fashion-MNIST training-set pixel mean and standard deviation (on the [0, 1] scale).
constexpr float kFmnistMean = 0.2860f;
constexpr float kFmnistStd = 0.3530f;

/// A plain or gzip-compressed file read through zlib (gzread passes plain files through).
class IdxFile {
  public:
    explicit IdxFile(const std::string& path) : path_(path) {
        // Only regular files (a FIFO would block, /dev/zero never end); the first two bytes
        // tell whether the file is gzip-compressed.
        RegularFile f(path);
        if (!f.ok()) throw DataError(path + ": cannot open: " + f.error());
        unsigned char head[2] = {0, 0};
        gzipped_ = f.read(head, 2) == 2 && head[0] == 0x1f && head[1] == 0x8b;
        size_ = f.size();
        if (::lseek(f.fd(), 0, SEEK_SET) != 0)
            throw DataError(path + ": cannot read: " + std::strerror(errno));
        const int fd = f.release();
        file_ = gzdopen(fd, "rb");
        if (!file_) {
            ::close(fd);
            throw DataError(path + ": cannot open: " + std::strerror(errno));
        }
        gzbuffer(file_, 1u << 18);
    }
    ~IdxFile() { gzclose(file_); }
    IdxFile(const IdxFile&) = delete;
    IdxFile& operator=(const IdxFile&) = delete;

    /// Reads up to n bytes; fewer only at the end of the data.
    std::size_t read(unsigned char* dst, std::size_t n) {
        std::size_t done = 0;
        while (done < n) {
            const unsigned want = static_cast<unsigned>(std::min<std::size_t>(n - done, 1u << 30));
            const int got = gzread(file_, dst + done, want);
            if (got < 0) fail();
            done += static_cast<std::size_t>(got);
            if (static_cast<unsigned>(got) < want) break;
        }
        // A gzip stream cut short reads as a short file; zlib says so only through gzerror.
        if (done < n) {
            int code = Z_OK;
            gzerror(file_, &code);
            if (code != Z_OK) fail();
        }
        return done;
    }
    bool atEnd() {
        unsigned char extra;
        return read(&extra, 1) == 0;
    }
    bool gzipped() const { return gzipped_; }
    /// Size of the file on disk (compressed, for gzip).
    std::uint64_t fileSize() const { return size_; }
    /// Most bytes the file can hold once inflated: its size when plain; for gzip, deflate's
    /// best ratio (1032:1) bounds it, so a forged header is caught before any allocation.
    std::uint64_t maxDataBytes() const { return gzipped_ ? size_ * 1032 + 1024 : size_; }

  private:
    [[noreturn]] void fail() {
        int code = Z_OK;
        const char* msg = gzerror(file_, &code);
        throw DataError(path_ + ": " +
                        (gzipped_ ? "truncated or corrupt gzip data: " : "read error: ") +
                        (msg && *msg ? msg : "unknown error"));
    }

    std::string path_;
    gzFile file_ = nullptr;
    bool gzipped_ = false;
    std::uint64_t size_ = 0;
};

std::uint32_t bigEndian32(const unsigned char* p) {
    return (std::uint32_t(p[0]) << 24) | (std::uint32_t(p[1]) << 16) | (std::uint32_t(p[2]) << 8) |
           std::uint32_t(p[3]);
}

void checkMagic(const std::string& path, std::uint32_t magic, std::uint32_t expected,
                const char* what) {
    if (magic == expected) return;
    // The bytes themselves are not shown: the file may be anything (a key, a password file),
    // and messages end up in logs and in the run's stored stop reason.
    std::string msg = path + ": not an IDX " + what + " file (bad magic number";
    if (magic == kImagesMagic) msg += "; it is an IDX image file";
    if (magic == kLabelsMagic) msg += "; it is an IDX label file";
    throw DataError(msg + ")");
}

std::string bytesText(std::uint64_t n) {
    return std::to_string(n) + (n == 1 ? " byte" : " bytes");
}

/// Refuses a header that announces more data than the file can hold, before allocating.
void checkAnnounced(const IdxFile& f, const std::string& path, std::uint64_t headerBytes,
                    std::uint64_t dataBytes, const std::string& what) {
    const std::uint64_t total = headerBytes + dataBytes;
    if (!f.gzipped() && total != f.fileSize()) {
        if (total > f.fileSize())
            throw DataError(path + ": truncated: the header announces " + what + " (" +
                            bytesText(total) + " with the header) but the file has " +
                            bytesText(f.fileSize()));
        throw DataError(path + ": unexpected bytes after the " + what +
                        " announced by the header (" + bytesText(total) +
                        " expected, the file has " + bytesText(f.fileSize()) + ")");
    }
    if (f.gzipped() && total > f.maxDataBytes())
        throw DataError(path + ": truncated: the header announces " + what + " (" +
                        bytesText(total) + " uncompressed) but a gzip file of " +
                        bytesText(f.fileSize()) + " cannot hold more than " +
                        bytesText(f.maxDataBytes()));
}

struct ImageHeader {
    std::uint32_t count = 0, rows = 0, cols = 0;
    std::string what() const {
        return std::to_string(count) + " images of " + std::to_string(rows) + "x" +
               std::to_string(cols);
    }
};

ImageHeader readImageHeader(IdxFile& images, const std::string& imagesPath) {
    unsigned char header[16];
    const std::size_t headerBytes = images.read(header, 16);
    if (headerBytes < 4 || (headerBytes < 16 && bigEndian32(header) == kImagesMagic))
        throw DataError(imagesPath + ": truncated: " + bytesText(headerBytes) +
                        ", shorter than the 16-byte IDX image header");
    checkMagic(imagesPath, bigEndian32(header), kImagesMagic, "image");
    ImageHeader h;
    h.count = bigEndian32(header + 4);
    h.rows = bigEndian32(header + 8);
    h.cols = bigEndian32(header + 12);
    if (h.count == 0) throw DataError(imagesPath + ": the file holds no images");
    // Dataset keeps its shape in ints, and the images become floats (4 bytes a pixel).
    if (h.rows == 0 || h.cols == 0 || h.rows > kMaxIdxSide || h.cols > kMaxIdxSide ||
        std::uint64_t(h.count) * h.rows * h.cols > kMaxIdxPixels)
        throw DataError(imagesPath + ": the header announces " + h.what() +
                        ", beyond the limits (sides of at most " + std::to_string(kMaxIdxSide) +
                        " pixels, at most " + std::to_string(kMaxIdxPixels) + " pixels in all)");
    checkAnnounced(images, imagesPath, 16, std::uint64_t(h.count) * h.rows * h.cols, h.what());
    return h;
}

std::uint32_t readLabelHeader(IdxFile& labelFile, const std::string& labelsPath) {
    unsigned char labelHeader[8];
    const std::size_t labelHeaderBytes = labelFile.read(labelHeader, 8);
    if (labelHeaderBytes < 4 || (labelHeaderBytes < 8 && bigEndian32(labelHeader) == kLabelsMagic))
        throw DataError(labelsPath + ": truncated: " + bytesText(labelHeaderBytes) +
                        ", shorter than the 8-byte IDX label header");
    checkMagic(labelsPath, bigEndian32(labelHeader), kLabelsMagic, "label");
    const std::uint32_t labelCount = bigEndian32(labelHeader + 4);
    checkAnnounced(labelFile, labelsPath, 8, labelCount, std::to_string(labelCount) + " labels");
    return labelCount;
}

/// Reads exactly n bytes (at byte `offset` of the data) or throws that the data are truncated.
void readExactly(IdxFile& f, const std::string& path, unsigned char* dst, std::size_t n,
                 std::uint64_t offset, const std::string& what) {
    const std::size_t got = f.read(dst, n);
    if (got < n)
        throw DataError(path + ": truncated: the header announces " + what + " (" +
                        std::to_string(offset + n) + " bytes) but the data end after " +
                        std::to_string(offset + got) + " bytes");
}

void checkEnd(IdxFile& f, const std::string& path, const std::string& what) {
    if (!f.atEnd())
        throw DataError(path + ": unexpected bytes after the " + what + " announced by the header");
}

#ifdef __linux__
/// Asks for transparent huge pages on a large buffer that is about to be filled: page
/// faults on 4 KiB pages dominate the load time of Fashion-MNIST (188 MB of floats) on
/// virtual machines. Only a hint; ignored where THP are off.
void preferHugePages(void* data, std::size_t bytes) {
    constexpr std::uintptr_t kPage = 4096;
    const auto begin = (reinterpret_cast<std::uintptr_t>(data) + kPage - 1) & ~(kPage - 1);
    const auto end = (reinterpret_cast<std::uintptr_t>(data) + bytes) & ~(kPage - 1);
    if (end > begin + (std::uintptr_t(2) << 20))
        madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
}
#else
void preferHugePages(void*, std::size_t) {}
#endif

std::array<float, 256> pixelTable(bool standardise) {
    std::array<float, 256> table{};
    for (int v = 0; v < 256; ++v) {
        const float x = static_cast<float>(v) / 255.0f;
        table[v] = standardise ? (x - kFmnistMean) / kFmnistStd : x;
    }
    return table;
}

/// The images at `chosen` (sorted) only: every image is inflated in turn, one at a time, and
/// only the chosen ones are kept, so memory is the subset's whatever the file holds.
Dataset readIdxSubset(IdxFile& images, const std::string& imagesPath, const std::string& imagesWhat, Dataset d,
                      const std::vector<unsigned char>& rawLabels, const std::vector<std::int64_t>& chosen,
                      bool standardise) {
    const auto table = pixelTable(standardise);
    const std::size_t per = static_cast<std::size_t>(d.height) * static_cast<std::size_t>(d.width);
    d.labels.resize(chosen.size());
    d.features.resize(chosen.size() * per);
    std::vector<unsigned char> image(per);
    const std::uint64_t count = rawLabels.size();
    std::size_t next = 0;
    for (std::uint64_t i = 0; i < count; ++i) {
        readExactly(images, imagesPath, image.data(), per, 16 + i * per, imagesWhat);
        if (next < chosen.size() && static_cast<std::uint64_t>(chosen[next]) == i) {
            float* dst = d.features.data() + next * per;
            for (std::size_t k = 0; k < per; ++k)
                dst[k] = table[image[k]];
            d.labels[next] = rawLabels[i];
            ++next;
        }
    }
    checkEnd(images, imagesPath, imagesWhat);
    return d;
}

} // namespace

IdxShape probeIdx(const std::string& imagesPath, const std::string& labelsPath) {
    IdxFile images(imagesPath);
    const ImageHeader h = readImageHeader(images, imagesPath);
    IdxFile labelFile(labelsPath);
    const std::uint32_t labelCount = readLabelHeader(labelFile, labelsPath);
    if (labelCount != h.count)
        throw DataError("count mismatch: " + imagesPath + " holds " + std::to_string(h.count) +
                        " images but " + labelsPath + " holds " + std::to_string(labelCount) +
                        " labels");
    return {h.count, static_cast<int>(h.rows), static_cast<int>(h.cols)};
}

Dataset readIdx(const std::string& imagesPath, const std::string& labelsPath, bool standardise, int keep,
                std::uint64_t seed) {
    IdxFile images(imagesPath);
    const ImageHeader h = readImageHeader(images, imagesPath);
    const std::uint32_t count = h.count, rows = h.rows, cols = h.cols;
    const std::uint64_t pixels = std::uint64_t(count) * rows * cols;
    const std::string imagesWhat = h.what();

    // Labels first: they are small, and a count mismatch is reported before the slow part.
    IdxFile labelFile(labelsPath);
    const std::uint32_t labelCount = readLabelHeader(labelFile, labelsPath);
    if (labelCount != count)
        throw DataError("count mismatch: " + imagesPath + " holds " + std::to_string(count) +
                        " images but " + labelsPath + " holds " + std::to_string(labelCount) +
                        " labels");
    const std::string labelsWhat = std::to_string(labelCount) + " labels";
    std::vector<unsigned char> rawLabels(labelCount);
    readExactly(labelFile, labelsPath, rawLabels.data(), labelCount, 8, labelsWhat);
    checkEnd(labelFile, labelsPath, labelsWhat);

    Dataset d;
    d.channels = 1;
    d.height = static_cast<int>(rows);
    d.width = static_cast<int>(cols);
    int maxLabel = 0;
    for (std::uint32_t i = 0; i < count; ++i)
        maxLabel = std::max<int>(maxLabel, rawLabels[i]);
    d.classes = maxLabel + 1; // of the whole file, as before a subset is taken
    if (keep > 0 && static_cast<std::uint64_t>(keep) < count)
        return readIdxSubset(images, imagesPath, imagesWhat, std::move(d), rawLabels,
                             subsetIndices(count, keep, seed), standardise);
    d.labels.resize(count);
    for (std::uint32_t i = 0; i < count; ++i)
        d.labels[i] = rawLabels[i];

    const auto table = pixelTable(standardise);
    // Inflate in chunks and convert each through the table: no second copy of the pixels.
    d.features.reserve(pixels);
    preferHugePages(d.features.data(), pixels * sizeof(float));
    d.features.resize(pixels);
    constexpr std::size_t kChunk = 1u << 20;
    std::vector<unsigned char> chunk(
        static_cast<std::size_t>(std::min<std::uint64_t>(pixels, kChunk)));
    float* dst = d.features.data();
    for (std::uint64_t done = 0; done < pixels;) {
        const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(pixels - done, kChunk));
        readExactly(images, imagesPath, chunk.data(), n, 16 + done, imagesWhat);
        for (std::size_t i = 0; i < n; ++i)
            dst[i] = table[chunk[i]];
        dst += n;
        done += n;
    }
    checkEnd(images, imagesPath, imagesWhat);
    return d;
}

std::string defaultFashionMnistDir() {
    return "/usr/share/datasets/fashion-mnist";
}

} // namespace fog
