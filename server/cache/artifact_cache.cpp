#include "server/cache/artifact_cache.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <vector>

#include "server/cache/digest.h"
#include "spdlog/spdlog.h"

namespace msjit::server {
namespace {

// Entries are small; their budget is a fixed slice so artifacts cannot evict them.
constexpr uint64_t kEntryBudget = 16ull << 20;

std::string absolute(const std::string &dir) {
  std::error_code ec;
  auto p = std::filesystem::absolute(dir, ec);
  return ec ? dir : p.lexically_normal().string();
}

}  // namespace

ArtifactCache::ArtifactCache(const std::string &dir, uint64_t memory_bytes, uint64_t disk_bytes)
    : dir_(absolute(dir)),
      disk_budget_(disk_bytes),
      memory_entries_(kEntryBudget),
      memory_artifacts_(memory_bytes),
      disk_entries_(dir_ + "/ac", "", /*content_addressed=*/false),
      disk_artifacts_(dir_ + "/cas", ".so", /*content_addressed=*/true, dir_ + "/quarantine") {}

std::optional<ArtifactCache::Stamp> ArtifactCache::stampOf(const std::string &digest) const {
  struct stat st {};
  if (::stat(disk_artifacts_.pathFor(digest).c_str(), &st) != 0) return std::nullopt;
  return Stamp{static_cast<int64_t>(st.st_ino), static_cast<int64_t>(st.st_size),
               st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec, st.st_ctim.tv_sec * 1000000000 + st.st_ctim.tv_nsec,
               static_cast<int64_t>(st.st_dev)};
}

void ArtifactCache::remember(const std::string &digest) {
  auto stamp = stampOf(digest);
  std::lock_guard<std::mutex> lock(verified_mu_);
  if (stamp) verified_[digest] = *stamp;
  else verified_.erase(digest);
}

bool ArtifactCache::verifyArtifact(const std::string &digest) {
  auto stamp = stampOf(digest);
  if (!stamp) return false;
  {
    std::lock_guard<std::mutex> lock(verified_mu_);
    auto it = verified_.find(digest);
    if (it != verified_.end() && it->second == *stamp) return true;
  }
  if (!disk_artifacts_.get(digest)) return false;  // get quarantines a mismatch
  remember(digest);
  return true;
}

std::optional<rpc::CompileReply> ArtifactCache::lookup(const std::string &key) {
  rpc::CompileReply entry;
  if (auto bytes = memory_entries_.get(key); bytes && entry.ParseFromString(*bytes)) {
    // The client loads the artifact from disk: the file must still be there, unchanged.
    if (verifyArtifact(entry.artifact_digest())) {
      touch(key);
      entry.set_hit(rpc::TIER_MEMORY);
      return entry;
    }
    memory_entries_.remove(key);
  }
  auto bytes = disk_entries_.get(key);
  if (!bytes) return std::nullopt;
  if (!entry.ParseFromString(*bytes) || !isDigest(entry.artifact_digest())) {
    spdlog::warn("cache entry {} is unreadable; dropping it", key);
    disk_entries_.remove(key);
    return std::nullopt;
  }
  auto artifact = disk_artifacts_.get(entry.artifact_digest());  // verifies the digest
  if (!artifact) {
    disk_entries_.remove(key);
    return std::nullopt;
  }
  remember(entry.artifact_digest());
  entry.set_artifact_path(disk_artifacts_.pathFor(entry.artifact_digest()));
  entry.set_hit(rpc::TIER_NONE);
  memory_entries_.put(key, entry.SerializeAsString());
  memory_artifacts_.put(entry.artifact_digest(), *artifact);
  touch(key);
  entry.set_hit(rpc::TIER_DISK);
  return entry;
}

bool ArtifactCache::insert(const std::string &key, const std::string &artifact,
                           rpc::CompileReply &reply) {
  std::string digest = sha256Hex(artifact);
  reply.set_key(key);
  reply.set_artifact_digest(digest);
  reply.set_artifact_size(artifact.size());
  reply.set_artifact_path(disk_artifacts_.pathFor(digest));
  rpc::CompileReply stored = reply;
  stored.set_hit(rpc::TIER_NONE);
  stored.set_compile_ms(0);
  std::string entry = stored.SerializeAsString();
  if (!disk_artifacts_.put(digest, artifact) || !disk_entries_.put(key, entry)) return false;
  remember(digest);
  memory_artifacts_.put(digest, artifact);
  memory_entries_.put(key, entry);
  enforceDiskBudget();
  return true;
}

void ArtifactCache::touch(const std::string &key) {
  std::error_code ec;
  std::filesystem::last_write_time(disk_entries_.pathFor(key), std::filesystem::file_time_type::clock::now(), ec);
}

std::vector<std::pair<std::filesystem::file_time_type, std::string>> ArtifactCache::diskKeysByUse() {
  namespace fs = std::filesystem;
  std::vector<std::pair<fs::file_time_type, std::string>> entries;  // (last use, key)
  std::error_code ec;
  for (const auto &file : fs::recursive_directory_iterator(dir_ + "/ac", ec))
    if (file.is_regular_file(ec) && isDigest(file.path().filename().string()))
      entries.emplace_back(file.last_write_time(ec), file.path().filename().string());
  std::sort(entries.begin(), entries.end());
  return entries;
}

std::optional<rpc::CompileReply> ArtifactCache::diskEntry(const std::string &key) {
  rpc::CompileReply entry;
  auto bytes = disk_entries_.get(key);
  if (!bytes || !entry.ParseFromString(*bytes) || !isDigest(entry.artifact_digest())) return std::nullopt;
  return entry;
}

void ArtifactCache::enforceDiskBudget() {
  if (diskBytes() <= disk_budget_) return;
  std::lock_guard<std::mutex> lock(evict_mu_);
  for (const auto &[used, key] : diskKeysByUse()) {
    if (diskBytes() <= disk_budget_) break;
    dropLocked(key);
    ++evictions_;
    spdlog::info("cache: evicted {} (disk tier over its {} MiB budget)", key.substr(0, 12), disk_budget_ >> 20);
  }
}

std::optional<std::string> ArtifactCache::artifactBytes(const rpc::CompileReply &entry) {
  if (auto bytes = memory_artifacts_.get(entry.artifact_digest())) return bytes;
  return disk_artifacts_.get(entry.artifact_digest());
}

std::vector<rpc::CacheEntry> ArtifactCache::list(size_t limit) {
  auto keys = diskKeysByUse();
  std::vector<rpc::CacheEntry> out;
  for (auto it = keys.rbegin(); it != keys.rend() && (limit == 0 || out.size() < limit); ++it) {
    auto entry = diskEntry(it->second);
    if (!entry) continue;  // removed meanwhile, or unreadable (lookup drops it)
    rpc::CacheEntry &listed = out.emplace_back();
    listed.set_key(it->second);
    listed.set_artifact_digest(entry->artifact_digest());
    listed.set_artifact_size(entry->artifact_size());
    listed.set_in_memory(memory_entries_.contains(it->second));
    listed.set_on_disk(true);
  }
  return out;
}

bool ArtifactCache::remove(const std::string &key) {
  if (!isDigest(key)) return false;
  std::lock_guard<std::mutex> lock(evict_mu_);
  bool cached = dropLocked(key);
  if (cached) spdlog::info("cache: removed {}", key.substr(0, 12));
  return cached;
}

bool ArtifactCache::dropLocked(const std::string &key) {
  std::optional<rpc::CompileReply> entry = diskEntry(key);
  rpc::CompileReply inMemory;
  if (auto bytes = memory_entries_.get(key); !entry && bytes && inMemory.ParseFromString(*bytes)) entry = inMemory;
  bool cached = entry || disk_entries_.contains(key) || memory_entries_.contains(key);
  memory_entries_.remove(key);
  disk_entries_.remove(key);
  if (!entry) return cached;
  // Two keys may name one artifact (content-addressed): it goes with the last of them.
  const std::string &digest = entry->artifact_digest();
  for (const auto &[used, other] : diskKeysByUse())
    if (auto e = diskEntry(other); e && e->artifact_digest() == digest) return cached;
  disk_artifacts_.remove(digest);
  memory_artifacts_.remove(digest);
  std::lock_guard<std::mutex> verified(verified_mu_);
  verified_.erase(digest);
  spdlog::debug("cache: removed artifact {}, named by no other entry", digest.substr(0, 12));
  return cached;
}

}  // namespace msjit::server
