#include "core/data/regular_file.h"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fog {

namespace {

/// "" for a regular file, else what it is instead.
std::string notRegular(const struct stat& st) {
    if (S_ISREG(st.st_mode)) return {};
    if (S_ISDIR(st.st_mode)) return "is a directory, not a file";
    if (S_ISFIFO(st.st_mode)) return "is a FIFO (named pipe), not a regular file";
    if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) return "is a device, not a regular file";
    if (S_ISSOCK(st.st_mode)) return "is a socket, not a regular file";
    return "is not a regular file";
}

FileStamp stampOf(const struct stat& st) {
    return {static_cast<std::uint64_t>(st.st_size),
            static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec};
}

} // namespace

std::string checkRegularFile(const std::string& path, FileStamp* stamp) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return std::strerror(errno);
    if (std::string why = notRegular(st); !why.empty()) return why;
    if (stamp) *stamp = stampOf(st);
    return {};
}

RegularFile::RegularFile(const std::string& path) {
    // stat first, so that a FIFO is refused without being opened at all; then open without
    // blocking and check the descriptor again, in case the name changed in between.
    error_ = checkRegularFile(path);
    if (!error_.empty()) return;
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        error_ = std::strerror(errno);
        return;
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        error_ = std::strerror(errno);
        ::close(fd);
        return;
    }
    if (std::string why = notRegular(st); !why.empty()) {
        error_ = why;
        ::close(fd);
        return;
    }
    // Regular files ignore O_NONBLOCK, but clear it anyway for whoever reads the descriptor.
    const int flags = ::fcntl(fd, F_GETFL);
    if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    fd_ = fd;
    size_ = static_cast<std::uint64_t>(st.st_size);
}

RegularFile::~RegularFile() {
    if (fd_ >= 0) ::close(fd_);
}

int RegularFile::release() {
    const int fd = fd_;
    fd_ = -1;
    return fd;
}

long long RegularFile::read(void* dst, std::size_t n) {
    std::size_t done = 0;
    auto* p = static_cast<char*>(dst);
    while (done < n) {
        const ssize_t got = ::read(fd_, p + done, n - done);
        if (got < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        if (got == 0) break;
        done += static_cast<std::size_t>(got);
    }
    return static_cast<long long>(done);
}

} // namespace fog
