#pragma once
// Opening user-named files (scenarios, data) safely: only regular files, checked before and
// after opening, and never blocking (a FIFO named as a file would otherwise wait forever for
// a writer; /dev/zero would be read without end).

#include <cstdint>
#include <string>

namespace fog {

/// An open read-only descriptor of a regular file, closed on destruction.
class RegularFile {
  public:
    /// Opens `path`; on failure ok() is false and error() says why in words ("is a
    /// directory, not a file", "No such file or directory"), without the path.
    explicit RegularFile(const std::string& path);
    ~RegularFile();
    RegularFile(const RegularFile&) = delete;
    RegularFile& operator=(const RegularFile&) = delete;

    bool ok() const { return fd_ >= 0; }
    const std::string& error() const { return error_; }
    int fd() const { return fd_; }
    /// Size in bytes when opened.
    std::uint64_t size() const { return size_; }
    /// Hands the descriptor over (e.g. to zlib's gzdopen, which closes it).
    int release();
    /// Reads up to n bytes; returns the count, or -1 on a read error (errno set).
    long long read(void* dst, std::size_t n);

  private:
    int fd_ = -1;
    std::uint64_t size_ = 0;
    std::string error_;
};

/// Identity of a file's current contents (for caches): size and modification time.
struct FileStamp {
    std::uint64_t size = 0;
    std::int64_t mtimeNs = 0;
    bool operator==(const FileStamp& o) const { return size == o.size && mtimeNs == o.mtimeNs; }
};

/// Checks without opening that `path` is a regular file; "" when it is, else why not (as
/// RegularFile::error()). `stamp` gets its size and modification time.
std::string checkRegularFile(const std::string& path, FileStamp* stamp = nullptr);

} // namespace fog
