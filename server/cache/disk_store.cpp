#include "server/cache/disk_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "server/cache/digest.h"
#include "spdlog/spdlog.h"

namespace fs = std::filesystem;

namespace msjit::server {

DiskStore::DiskStore(std::string root, std::string suffix, bool content_addressed, std::string quarantine_dir)
    : root_(std::move(root)),
      suffix_(std::move(suffix)),
      content_addressed_(content_addressed),
      quarantine_dir_(std::move(quarantine_dir)) {
  std::error_code ec;
  fs::create_directories(root_, ec);
  ok_ = !ec && fs::is_directory(root_);
  if (!ok_) {
    spdlog::error("cache directory {} is not usable: {}", root_, ec.message());
    return;
  }
  for (const auto &shard : fs::directory_iterator(root_, ec)) {
    if (!shard.is_directory()) continue;
    for (const auto &file : fs::directory_iterator(shard.path(), ec)) {
      std::string name = file.path().filename().string();
      // Leftover temp files of an interrupted write are never valid entries.
      if (name.rfind(".tmp-", 0) == 0) {
        fs::remove(file.path(), ec);
        continue;
      }
      ++entries_;
      bytes_ += file.file_size(ec);
    }
  }
}

std::string DiskStore::pathFor(const std::string &key) const {
  if (!isDigest(key)) return "";
  return root_ + "/" + key.substr(0, 2) + "/" + key + suffix_;
}

std::optional<std::string> DiskStore::get(const std::string &key) {
  std::string path = pathFor(key);
  if (path.empty()) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream ss;
  ss << in.rdbuf();
  std::string bytes = ss.str();
  if (content_addressed_ && sha256Hex(bytes) != key) {
    spdlog::warn("cache blob {} does not match its digest (corrupt or replaced)", path);
    quarantine(key);
    return std::nullopt;
  }
  return bytes;
}

bool DiskStore::put(const std::string &key, const std::string &bytes) {
  std::string path = pathFor(key);
  if (path.empty() || !ok_) return false;
  if (content_addressed_ && sha256Hex(bytes) != key) {
    spdlog::error("refusing to store blob under {}: its digest differs", key);
    return false;
  }
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  static std::atomic<uint64_t> counter{0};
  std::string tmp = fs::path(path).parent_path().string() + "/.tmp-" + key + "-" +
                    std::to_string(::getpid()) + "-" + std::to_string(counter++);
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  bool written = done == bytes.size() && ::fsync(fd) == 0;
  ::close(fd);
  bool existed = fs::exists(path, ec);
  if (!written || ::rename(tmp.c_str(), path.c_str()) != 0) {
    ::unlink(tmp.c_str());
    spdlog::error("writing cache entry {} failed", path);
    return false;
  }
  if (!existed) {
    ++entries_;
    bytes_ += bytes.size();
  }
  return true;
}

bool DiskStore::contains(const std::string &key) {
  std::string path = pathFor(key);
  std::error_code ec;
  return !path.empty() && fs::exists(path, ec);
}

void DiskStore::forget(uint64_t size) {
  --entries_;
  bytes_ -= size;
}

void DiskStore::remove(const std::string &key) {
  std::string path = pathFor(key);
  std::error_code ec;
  uint64_t size = path.empty() ? 0 : fs::file_size(path, ec);
  if (!path.empty() && !ec && fs::remove(path, ec)) forget(size);
}

void DiskStore::quarantine(const std::string &key) {
  std::string path = pathFor(key);
  std::error_code ec;
  uint64_t size = path.empty() ? 0 : fs::file_size(path, ec);
  if (path.empty() || ec) return;
  if (quarantine_dir_.empty()) return remove(key);
  fs::create_directories(quarantine_dir_, ec);
  auto stamp = std::chrono::system_clock::now().time_since_epoch().count();
  std::string aside = quarantine_dir_ + "/" + fs::path(path).filename().string() + "." + std::to_string(stamp);
  if (::rename(path.c_str(), aside.c_str()) != 0) return remove(key);
  forget(size);
  ++quarantined_;
  spdlog::warn("quarantined {} as {}", path, aside);
}

}  // namespace msjit::server
